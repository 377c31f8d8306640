"""``python -m benchmarks.projection``: what each world's step would do on a GPU, as a projection.

For every benchmark world, the roofline bound of its compiled batched step (the step the env
benchmark times: gymnax's auto-resetting ``vmap(env.step)``, or optimistic resets for worlds
that generate maps) on a V100, an A100 and an H100 at 1,024 and 16,384 worlds, from XLA's cost
analysis (``baselines.roofline``: an upper bound, stated as a projection). Beside it stand the published GPU
measurements a world family names (``Benchmark.published``: the CrafText paper's V100 figures) and
what PPO at the paper's scale needs (1e9 steps in 12 hours: 23,148 steps/s). A GPU run of
``python -m benchmarks`` replaces the projection with measurements.

Writes ``projection.json`` and ``projection.md`` under ``--out`` (default
``runs/benchmarks/<device>``; a file there is replaced only with ``--overwrite``).
"""

from __future__ import annotations

import argparse

from baselines.roofline import GPUS, PAPER_SCALE, roofline, step_cost
from baselines.worlds import cli
from benchmarks import RESULTS_OUT, write_results

NUM_ENVS = (1024, 16384)
FILES = ("projection.json", "projection.md")


def markdown(rows: list[dict], info: dict) -> str:
    lines = [
        f"Projection from XLA's cost analysis on {info['device']} (suite {info.get('suite', '?')}, commit "
        f"{info.get('commit', '?')}, jax {info['jax']}, {info.get('date', '?')}): roofline-bound steps/s, not measurements.",
        "",
        "| world | num_envs | flops / step | bytes / step | " + " | ".join(GPUS) + " | published, 1,024 envs (measured) |",
        "|---|---:|---:|---:|" + "---:|" * len(GPUS) + "---:|",
    ]
    for r in rows:
        bounds = [f"{g['steps_per_s'] / 1e6:,.1f}M ({g['bound']})" for g in r["gpus"].values()]
        paper = f"{r['published'][0]:,} ({r['published'][1]})" if r.get("published") and r["num_envs"] == 1024 else ""
        cells = [r["world"], f"{r['num_envs']:,}", f"{r['flops']:,.0f}", f"{r['bytes']:,.0f}", *bounds, paper]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"PPO at the paper's scale (1e9 steps in 12 h) needs {PAPER_SCALE:,.0f} steps/s."]
    return "\n".join(lines) + "\n"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.projection", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", nargs="+", default=None, metavar="ID", help="worlds (default: every benchmark world)")
    p.add_argument("--num-envs-list", nargs="+", type=int, default=list(NUM_ENVS), metavar="N", help="default 1024 16384")
    cli.add_out(p, RESULTS_OUT)
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> list[dict]:
    from benchmarks.__main__ import results_folder
    from benchmarks.worlds import chosen_worlds

    p = parser()
    args = cli.parse(p, argv)
    table = chosen_worlds(p, args.env)
    info, out = results_folder(args, FILES)
    rows = []
    with cli.progress(total=len(table) * len(args.num_envs_list), desc="compile and analyse", unit="step", silent=args.quiet) as bar:
        for world, spec in table.items():
            env, params = spec.make()
            for n in args.num_envs_list:
                cost = step_cost(env, params, n, spec.settings.reset_ratio)
                published = next(([sps, who] for name, sps, who in spec.settings.published if name == world), None)
                rows.append({"world": world, "num_envs": n, **cost, "gpus": roofline(cost), "published": published})
                bar.update()
    paths = write_results(out, "projection", {"device": info, "gpus": GPUS, "results": rows}, markdown(rows, info))
    print(f"wrote {paths[0]} and {paths[1]}")
    return rows


if __name__ == "__main__":
    main()
