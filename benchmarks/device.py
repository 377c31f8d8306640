"""``python -m benchmarks.device``: the first measurements on a new accelerator, in one short run.

1. env-steps/s of every benchmark world (bare Craftax Classic included) at 1,024 and 8,192 worlds
   (``benchmarks.env_sps.measure_env``, each world's own reset strategy);
2. the ratio of each world's steps/s to its family's reference world's at each size (CrafText's to
   bare Craftax Classic's);
3. the paper's run (``python -m baselines --paper``, PPO-T): its plan (``baselines.plan``: device
   memory from XLA's analysis, the roofline projection), then 20 updates with the measured
   steps/s and the device's peak memory beside the plan's figures.

It writes ``device.json`` under ``--out`` (default ``runs/benchmarks/<device>``) after every
measurement, so a run stopped by its time limit keeps what it measured; each part that would
start after ``--budget`` seconds is left out and named. ``device.json`` carries the suite release,
commit, jax version, device and date, and its env rows are what ``python -m benchmarks compare``
reads. ``--quick`` measures tiny sizes (8 worlds; the paper's run on the default world at 8 worlds
x 8 steps): a check of the script on a CPU in about a minute.
"""

from __future__ import annotations

import argparse
import json
import time

from baselines.worlds import cli
from benchmarks import RESULTS_OUT, provenance_line

NUM_ENVS = (1024, 8192)
PAPER_UPDATES = 20
QUICK_PAPER = ["--num-envs", "8", "--num-steps", "8", "--num-minibatches", "2", "--micro-batches", "2", "--layer-size", "16"]
QUICK_PAPER += ["--max-episode-steps", "16"]
"""``--quick``: the paper's settings at toy size, on the default world (a pixel world compiles for minutes on a CPU)."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.device", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes: a check of the script on a CPU")
    p.add_argument("--budget", type=float, default=420.0, help="seconds after which no new part starts (default 420)")
    p.add_argument("--env", nargs="+", default=None, metavar="ID", help="worlds of the env figures (default: every benchmark world)")
    p.add_argument("--policy", choices=("ppo-t", "ppo-t+", "film"), default="ppo-t", help="the paper run's policy (default ppo-t)")
    cli.add_out(p, RESULTS_OUT)
    cli.add_run_options(p)
    return p


def peak_memory() -> int | None:
    """Peak bytes in use on the first device since the process started (None where the device
    does not report it, as a CPU)."""
    import jax

    stats = jax.devices()[0].memory_stats() if hasattr(jax.devices()[0], "memory_stats") else None
    return int(stats["peak_bytes_in_use"]) if stats and "peak_bytes_in_use" in stats else None


def paper_run(argv: list[str], updates: int) -> dict:
    """The plan of ``python -m baselines ARGV --paper``, then ``updates`` updates of it: measured
    steps/s (after the first, which compiles) and peak device memory beside the plan."""
    import jax
    import numpy as np

    from baselines import plan
    from baselines.__main__ import learner

    ppo = learner(argv)
    result, _ = plan.plan(ppo)
    runner = jax.jit(ppo.init)(jax.random.key(0))
    update = plan.compiled_update(ppo, runner)
    runner, _ = jax.block_until_ready(update(runner))
    start = time.perf_counter()
    for _ in range(updates - 1):
        runner, metrics = update(runner)
    jax.block_until_ready(runner)
    seconds = time.perf_counter() - start
    c = ppo.config
    return {
        "command": "python -m baselines " + " ".join(argv),
        "policy": c.policy,
        "world": ppo.task.name,
        "num_envs": c.num_envs,
        "num_steps": c.num_steps,
        "micro_batches": c.micro_batches,
        "updates": updates,
        "steps_per_s": (updates - 1) * c.batch_size / seconds,
        "peak_memory_bytes": peak_memory(),
        "plan_device_memory_bytes": result["device_memory_bytes"],
        "plan_per_env_step": result["per_env_step"],
        "plan_gpus": result["gpus"],
        "finite": bool(np.isfinite(float(metrics["value_loss"]))),
    }


def markdown(record: dict) -> str:
    lines = [provenance_line(record["device"]), "", "| world | num_envs | steps/s (median) | compile (s) |", "|---|---:|---:|---:|"]
    lines += [f"| {r['world']} | {r['num_envs']:,} | {r['steps_per_s_median']:,.0f} | {r['compile_s']:.1f} |" for r in record["results"]]
    for pair, ratio in record["over_reference"].items():
        lines.append(f"\nsteps/s of {pair} worlds: x{ratio:.2f}.")
    if record.get("paper"):
        p = record["paper"]
        peak = f"{p['peak_memory_bytes'] / 2**30:.2f} GiB" if p["peak_memory_bytes"] is not None else "not reported by this device"
        lines.append(
            f"\n{p['command']}: {p['steps_per_s']:,.0f} steps/s over {p['updates'] - 1} updates after the first; peak device memory "
            f"{peak}; the plan: {p['plan_device_memory_bytes'] / 2**30:.2f} GiB."
        )
    if record["skipped"]:
        lines.append(f"\nleft out, past the {record['budget_s']:.0f} s budget: {', '.join(record['skipped'])}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    p = parser()
    args = cli.parse(p, argv)
    from baselines import worlds  # after the parser: --help starts without JAX
    from benchmarks.__main__ import results_folder
    from benchmarks.env_sps import measure_env, rollout_steps
    from benchmarks.worlds import chosen_worlds

    table = chosen_worlds(p, args.env)
    began = time.perf_counter()
    info, out = results_folder(args, ("device.json", "device.md"))
    out.mkdir(parents=True, exist_ok=True)
    sizes = (8,) if args.quick else NUM_ENVS
    record: dict = {"device": info, "budget_s": args.budget, "results": [], "over_reference": {}, "paper": None, "skipped": []}

    def save() -> None:
        cli.write_atomic(out / "device.json", json.dumps(record, indent=1))

    parts = [(name, n) for name in table for n in sizes]
    with cli.progress(total=len(parts) + 1, desc="device check", unit="part", silent=args.quiet) as bar:
        for name, n in parts:
            if time.perf_counter() - began > args.budget:
                record["skipped"].append(f"{name} at {n:,} worlds")
                continue
            world = table[name]
            env, params = world.make()
            steps = 8 if args.quick else rollout_steps(n, 2**21, 16, 128)
            row = measure_env(env, params, n, steps, repeats=2 if args.quick else 3, reset_ratio=world.settings.reset_ratio)
            record["results"].append({"world": name, **row})
            save()
            bar.update()
        rates = {(r["world"], r["num_envs"]): r["steps_per_s_median"] for r in record["results"]}
        record["over_reference"] = {
            f"{world.compared_with} / {name} at {n}": rates[world.compared_with, n] / rates[name, n]
            for name, world in table.items()
            for n in sizes
            if world.compared_with and (name, n) in rates and (world.compared_with, n) in rates
        }
        if time.perf_counter() - began > args.budget:
            record["skipped"].append("the paper's run")
        else:
            paper = ["--paper", "--policy", args.policy] + (["--env", worlds.DEFAULT_ENV, *QUICK_PAPER] if args.quick else [])
            record["paper"] = paper_run(paper, 3 if args.quick else PAPER_UPDATES)
        bar.update()
    record["seconds"] = time.perf_counter() - began
    save()
    cli.write_atomic(out / "device.md", markdown(record))
    print(markdown(record) + f"\nwrote {out / 'device.json'} and {out / 'device.md'}")
    return record


if __name__ == "__main__":
    main()
