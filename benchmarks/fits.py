"""``python -m benchmarks.fits``: which GPUs one PPO update at the paper's scale fits, per world and policy.

For every registered world and policy, the device memory of one compiled update (``baselines.plan``:
XLA's memory analysis of ``PPO.update`` with its runner donated, nothing run) at the paper's
batch: 1,024 worlds x 100 steps, 8 minibatches, 4 epochs, layer 512, the gradient of each
minibatch in 16 micro-batches (``python -m baselines --paper``; CrafText worlds take the paper
preset, the others the same PPO settings with their own defaults). A GPU fits the update when it
needs at most the share of its memory JAX takes by default (75%). PPO-T+ is planned where the
world has the goal structures its planner reads; the others are named under the table.

Writes ``fits.json`` and ``fits.md`` under ``--out`` (default ``runs/benchmarks/<device>``).
"""

from __future__ import annotations

import argparse

from baselines.configs import POLICIES
from baselines.worlds import cli
from benchmarks import RESULTS_OUT, provenance_line, write_results

PAPER_PPO = ["--num-envs", "1024", "--num-steps", "100", "--num-minibatches", "8", "--update-epochs", "4", "--layer-size", "512"]
MEMORIES = (16, 32, 40, 80)
"""GPU memory sizes (GiB) of the table's columns: V100 16 / 32 GB, A100 40 GB, A100 and H100 80 GB."""


def command(env_id: str, policy: str, micro_batches: int) -> list[str]:
    """The ``python -m baselines`` flags of the paper's run on ``env_id``: its family's ``paper``
    preset where it has one, else the paper's PPO settings."""
    from baselines import worlds

    preset = ["--paper"] if "paper" in worlds.presets_of(worlds.family_of(env_id)) else PAPER_PPO
    return [*preset, "--env", env_id, "--policy", policy, "--micro-batches", str(micro_batches)]


def markdown(rows: list[dict], info: dict, fraction: float) -> str:
    lines = [
        provenance_line(info),
        "",
        "| world | policy | one update (GiB) | " + " | ".join(f"{m} GB" for m in MEMORIES) + " |",
        "|---|---|---:|" + "---|" * len(MEMORIES),
    ]
    for r in rows:
        fits = ["yes" if r["device_memory_bytes"] <= fraction * m * 2**30 else "no" for m in MEMORIES]
        lines.append(f"| {r['world']} | {r['policy']} | {r['device_memory_bytes'] / 2**30:.2f} | " + " | ".join(fits) + " |")
    lines += [
        "",
        f"Device memory of one compiled update (XLA's memory analysis), against {fraction:.0%} of each GPU's memory (what JAX "
        f"takes by default); {rows[0]['micro_batches'] if rows else 16} gradient micro-batches per minibatch.",
    ]
    return "\n".join(lines) + "\n"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.fits", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", nargs="+", default=None, metavar="ID", help="registered worlds (default: every one)")
    p.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES), help=f"policies (default: {' '.join(POLICIES)})")
    p.add_argument("--micro-batches", type=cli.positive_int, default=16, help="gradient micro-batches per minibatch (default 16)")
    cli.add_out(p, RESULTS_OUT)
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> list[dict]:
    import jax

    from baselines import plan, worlds
    from baselines.__main__ import learner
    from baselines.roofline import MEMORY_FRACTION
    from benchmarks.__main__ import results_folder

    p = parser()
    args = cli.parse(p, argv)
    unknown = [e for e in args.env or () if e not in worlds.ids()]
    if unknown:
        p.error(f"unknown world {unknown[0]!r}; known: {', '.join(worlds.ids())}")
    info, out = results_folder(args, ("fits.json", "fits.md"))
    cases = [(env_id, policy) for env_id in args.env or worlds.ids() for policy in args.policies]
    rows, skipped = [], []
    with cli.progress(total=len(cases), desc="compile one update", unit="update", silent=args.quiet) as bar:
        for env_id, policy in cases:
            bar.update()
            try:
                ppo = learner([*command(env_id, policy, args.micro_batches), "--quiet"])
            except SystemExit as error:  # PPO-T+ on a world without the goal structures its planner reads
                skipped.append(f"{env_id} {policy}: {str(error).removeprefix('error: ')}")
                continue
            runner = jax.eval_shape(lambda ppo=ppo: ppo.init(jax.random.key(0)))
            memory = plan.device_memory(plan.compiled_update(ppo, runner))
            rows.append({"world": env_id, "policy": policy, "micro_batches": args.micro_batches, "device_memory_bytes": memory})
    text = markdown(rows, info, MEMORY_FRACTION) + "".join(f"\nnot planned: {line}" for line in skipped)
    write_results(out, "fits", {"device": info, "memory_fraction": MEMORY_FRACTION, "results": rows, "skipped": skipped}, text)
    return rows


if __name__ == "__main__":
    main()
