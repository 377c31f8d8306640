"""``python -m benchmarks``: env-only steps/s of every registered world vs num_envs, and PPO
training steps/s of each baseline policy with the share of time spent in the environment, beside
the same PPO-T on the training world's reference (bare Craftax Classic for CrafText: the training
cost of the instructions as a ratio).

Writes ``env_sps.json``, ``env_sps.csv``, ``env_sps.md``, ``env_sps.png``,
``training_sps.{json,md}``, ``step_only.json`` and, with a world whose family asks for them
(``Benchmark.host_timings``: the blocks world), the host-side ``bap_scoring.json`` and
``synthetic_items.json`` (simulated BAP items per minute) under ``--out`` (default
``runs/benchmarks/<device>``; a file already there is replaced only with ``--overwrite``).
``--host-only`` runs just the host-side timings. ``--quick`` is a seconds-long check that the code
works (tiny sizes, nothing written unless ``--out`` is given). The committed figures are under
``benchmarks/results/<device>``; every file names the suite release, commit, jax version, device
and date it was measured with. ``python -m benchmarks compare OLD NEW`` prints the ratio of every
figure two results folders share and flags drops (``benchmarks.compare``).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import sys
from pathlib import Path

from baselines.plots import write_png
from baselines.worlds import cli
from benchmarks import RESULTS_OUT, provenance_line

DEFAULT_NUM_ENVS = (1, 64, 1024, 4096, 16384)
RUNS = Path("runs/benchmarks")
"""Where a benchmark writes by default, one folder per device."""


def device_info() -> dict:
    """What a figure was measured with: device, host CPUs, versions (suite, jax, jaxlib, Python),
    the commit of the working tree (``unknown`` outside a git checkout) and the UTC date."""
    import datetime
    import subprocess

    import jax
    import jaxlib

    from baselines import __version__

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        commit = ""
    device = jax.devices()[0]
    return {
        "suite": __version__,
        "commit": commit.strip() or "unknown",
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "device": f"{device.platform}:{getattr(device, 'device_kind', device.platform)}",
        "num_devices": jax.device_count(),
        "host_cpus": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
    }


def device_slug(info: dict) -> str:
    """Folder name for a device's results: ``cpu-2cores``, ``nvidia-h100-80gb-hbm3``, ..."""
    platform_name, kind = info["device"].split(":", 1)
    if platform_name == "cpu":
        return f"cpu-{info['host_cpus']}cores"
    return "".join(ch if ch.isalnum() else "-" for ch in kind.lower()).strip("-")


def write_results(rows: list[dict], info: dict, out: Path) -> None:
    """JSON (with device info), CSV, a Markdown table and a log-log plot of steps/s vs num_envs."""
    out.mkdir(parents=True, exist_ok=True)
    cli.write_atomic(out / "env_sps.json", json.dumps({"device": info, "results": rows}, indent=2))
    table = io.StringIO(newline="")
    writer = csv.DictWriter(table, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    cli.write_atomic(out / "env_sps.csv", table.getvalue())
    lines = [
        provenance_line(info),
        "",
        "| world | reset | num_envs | steps/s (median) | min | max | compile (s) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['world']} | {r['reset']} | {r['num_envs']} | {r['steps_per_s_median']:,.0f} | {r['steps_per_s_min']:,.0f} "
            f"| {r['steps_per_s_max']:,.0f} | {r['compile_s']:.2f} |"
        )
    cli.write_atomic(out / "env_sps.md", "\n".join(lines) + "\n")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for world in dict.fromkeys(r["world"] for r in rows):
        points = [(r["num_envs"], r["steps_per_s_median"]) for r in rows if r["world"] == world]
        ax.plot(*zip(*points), marker="o", label=world)
    ax.set(xscale="log", yscale="log", xlabel="num_envs", ylabel="env steps / s", title=info["device"])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    write_png(fig, out / "env_sps.png", dpi=120)
    plt.close(fig)


def output_folder(out: Path | None, info: dict) -> Path:
    """``--out``, else ``runs/benchmarks/<device>``."""
    return out if out is not None else RUNS / device_slug(info)


def results_folder(args: argparse.Namespace, files: tuple[str, ...]) -> tuple[dict, Path]:
    """(``device_info()``, the folder a benchmark writes ``files`` to: ``args.out`` or
    ``runs/benchmarks/<device>``), refusing files already there unless ``args.overwrite``."""
    info = device_info()
    out = output_folder(args.out, info)
    cli.refuse_existing([out / name for name in files], args.overwrite)
    return info, out


def training_env(quick: bool, chosen: list[str] | None = None) -> str:
    """The world of the PPO training benchmark: the first registered world of ``chosen`` (``--env``),
    else the default world; with ``--quick``, the first world whose family is measured in quick
    runs (no world generation)."""
    from baselines import worlds
    from benchmarks.worlds import benchmark_of

    given = [w for w in chosen or () if w in worlds.ids()]
    if given:
        return given[0]
    if not quick:
        return worlds.DEFAULT_ENV
    return next(f.default_id for f in worlds.families() if benchmark_of(f).quick)


def _training(args, info: dict, on_cpu: bool) -> list[dict]:
    """PPO training benchmark on ``training_env`` (toy sizes with --quick)."""
    num_envs = args.training_envs if args.training_envs is not None else (8 if args.quick else 64 if on_cpu else 1024)
    if not num_envs:
        return []
    from baselines.worlds import make_task
    from baselines.worlds.task import plain_task
    from benchmarks.training import measure_training
    from benchmarks.worlds import bench_worlds

    if args.quick:
        task, sizes = (
            make_task(training_env(True, args.env), max_steps_in_episode=50),
            {"num_steps": 8, "updates": 1, "repeats": 1, "layer_size": 32, "policies": ("ppo-t",)},
        )
    else:
        task, sizes = make_task(training_env(False, args.env)), {"num_steps": 64, "updates": 2, "repeats": args.repeats}
    rows = measure_training(task, num_envs, **sizes)
    ours = next(r for r in rows if r["policy"] == "ppo-t")
    references = {name: w for name, w in bench_worlds().items() if w.compared_with == task.name}
    for name, world in references.items():  # the same PPO-T on the bare world: the cost of the instructions
        reference = plain_task(name, *world.make(), reset_ratio=world.settings.reset_ratio or 1)
        bare = measure_training(reference, num_envs, **{**sizes, "policies": ("ppo-t",)})
        for r in bare:
            r["ratio_of_compared"] = ours["train_steps_per_s"] / r["train_steps_per_s"]
        rows += bare
    for r in rows:
        print(
            f"PPO {r['policy']:<7} {r['world']} {r['num_envs']} envs: {r['train_steps_per_s']:,.0f} training steps/s, "
            f"env-only {r['env_only_steps_per_s']:,.0f} steps/s, env share {r['env_share']:.0%}, compile {r['compile_s']:.1f} s",
            flush=True,
        )
        if "ratio_of_compared" in r:
            print(f"PPO ppo-t training {task.name} / {r['world']}: x{r['ratio_of_compared']:.2f}", flush=True)
    return rows


HOST_FILES = ("bap_scoring.json", "synthetic_items.json")


def _host_timings(args, info: dict, out: Path) -> list[dict]:
    """BAP v2 scoring time and simulated items per minute, printed and saved."""
    from benchmarks.metrics_time import bap_scoring_time, synthetic_generation_rate

    scoring = bap_scoring_time(args.mdc)
    print(
        f"BAP v2 metrics, {scoring['items']} {scoring['source']} items: {scoring['median_s']:.2f} s "
        f"(first call with compilation {scoring['first_call_s']:.2f} s)",
        flush=True,
    )
    rates = synthetic_generation_rate(repeats=args.repeats)
    for r in rates:
        print(
            f"synthetic {r['simulator']:<7} {r['items_per_min_median']:>12,.0f} BAP items/min ({r['games']} games, {r['items']} items)",
            flush=True,
        )
    out.mkdir(parents=True, exist_ok=True)
    cli.write_atomic(out / "bap_scoring.json", json.dumps({"device": info, **scoring}, indent=2))
    cli.write_atomic(out / "synthetic_items.json", json.dumps({"device": info, "results": rates}, indent=2))
    print(f"wrote {out}/bap_scoring.json, synthetic_items.json")
    return rates


def _step_only(args, info: dict, chosen: dict, num_envs: int = 256, num_steps: int = 16) -> dict | None:
    """A family's cost without resets beside its reference world: ``vmap(step_env)`` from reset
    states, the reference and the world timed in interleaved rounds (``compare_step_only``); the
    median per-round ratio."""
    pair = next(((name, w.compared_with) for name, w in chosen.items() if w.compared_with in chosen), None)
    if args.quick or not args.step_only_rounds or pair is None:
        return None
    from benchmarks.env_sps import compare_step_only

    envs = {name: chosen[name].make() for name in pair}
    result = compare_step_only(envs, num_envs, num_steps, rounds=args.step_only_rounds)
    compared = result[pair[1]]
    print(
        f"step only (no resets), {num_envs} envs x {num_steps} steps, {args.step_only_rounds} interleaved rounds: "
        f"{pair[1]} / {pair[0]} x{compared['ratio_median']:.3f} "
        f"(per-round range {compared['ratio_min']:.2f} .. {compared['ratio_max']:.2f})",
        flush=True,
    )
    return {"device": info, "num_envs": num_envs, "num_steps": num_steps, "rounds": args.step_only_rounds, "results": result}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description=__doc__.split("\n\n")[0],
        epilog="python -m benchmarks compare OLD NEW prints every figure two results folders share as a ratio and flags drops "
        "beyond 15% (see python -m benchmarks compare --help)",
    )
    p.add_argument(
        "--env",
        nargs="+",
        default=None,
        metavar="ID",
        help="worlds to measure: registered ids or reference worlds (default: every family's benchmark ids and references; "
        "--quick: those without world generation)",
    )
    p.add_argument(
        "--num-envs-list",
        nargs="+",
        type=int,
        default=None,
        metavar="N",
        help=f"num_envs values to measure (default {' '.join(map(str, DEFAULT_NUM_ENVS))})",
    )
    p.add_argument("--repeats", type=int, default=5)
    cli.add_out(p, RESULTS_OUT)
    p.add_argument("--quick", action="store_true", help="seconds-long check with tiny sizes")
    p.add_argument(
        "--training-envs",
        type=int,
        default=None,
        help="num_envs of the PPO training benchmark (default 64 on CPU, 1024 elsewhere; 0 skips it)",
    )
    p.add_argument("--mdc", default=None, help="Minecraft Dialogue Corpus data/ folder: time BAP dev scoring on it")
    p.add_argument("--host-only", action="store_true", help="only the host-side timings (BAP scoring, synthetic items)")
    p.add_argument(
        "--step-only-rounds",
        type=int,
        default=40,
        help="interleaved rounds of the step-only comparison of a world and its reference (256 envs, 16 steps; 0 skips it)",
    )
    return p


"""Old spellings accepted for one release."""


def main(argv: list[str] | None = None) -> list[dict] | int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["compare"]:
        from benchmarks.compare import main as compare

        return compare(argv[1:])
    p = parser()
    args = cli.parse(p, argv)
    from benchmarks.worlds import bench_worlds, chosen_worlds

    table = bench_worlds()
    info = device_info()
    out = output_folder(args.out, info) if args.out or not args.quick else None
    if args.host_only:
        cli.refuse_existing([out / name for name in HOST_FILES], args.overwrite)
        return _host_timings(args, info, out)
    if args.env is None:
        args.env = [w for w, spec in table.items() if not args.quick or spec.settings.quick]
    chosen = chosen_worlds(p, args.env, table)
    host = not args.quick and any(w.settings.host_timings for w in chosen.values())
    if out is not None:
        files = ["env_sps.json", "env_sps.csv", "env_sps.md", "env_sps.png", "training_sps.json", "training_sps.md", "step_only.json"]
        cli.refuse_existing([out / name for name in files + list(HOST_FILES if host else ())], args.overwrite)
    from benchmarks.env_sps import measure_env, rollout_steps

    num_envs = args.num_envs_list or ((1, 8) if args.quick else DEFAULT_NUM_ENVS)
    repeats = 1 if args.quick else args.repeats
    print(f"device {info['device']}, {info['host_cpus']} host CPUs, jax {info['jax']}", flush=True)
    rows = []
    on_cpu = info["device"].startswith("cpu")
    with cli.progress(total=len(chosen) * len(num_envs), desc="env steps/s", unit="measurement") as bar:
        for world, spec in chosen.items():
            env, params = spec.make()
            settings = spec.settings
            for n in num_envs:
                bar.update()
                if on_cpu and settings.max_cpu_envs and n > settings.max_cpu_envs:
                    bar.write(f"{world:<24} num_envs {n:>6}  skipped on CPU (above {settings.max_cpu_envs})")
                    continue
                steps = 8 if args.quick else rollout_steps(n, budget=settings.step_budget, high=settings.max_steps)
                result = {"world": world, **measure_env(env, params, n, steps, repeats, reset_ratio=settings.reset_ratio)}
                rows.append(result)
                bar.write(
                    f"{world:<24} num_envs {n:>6}  {result['steps_per_s_median']:>14,.0f} steps/s "
                    f"[{result['steps_per_s_min']:,.0f} .. {result['steps_per_s_max']:,.0f}]  compile {result['compile_s']:.2f} s"
                )
    training = _training(args, info, on_cpu)
    for reference, spec in chosen.items():
        by_envs = {r["num_envs"]: r for r in rows if r["world"] == reference}
        for r in rows:
            if spec.compared_with == r["world"] and r["num_envs"] in by_envs:
                base = by_envs[r["num_envs"]]
                print(
                    f"{r['world']} / {reference} at {r['num_envs']} envs: "
                    f"steps/s x{r['steps_per_s_median'] / base['steps_per_s_median']:.2f}, "
                    f"compile x{r['compile_s'] / base['compile_s']:.2f}",
                    flush=True,
                )
    step_only = _step_only(args, info, chosen)
    if out is not None:
        from benchmarks.training import markdown

        write_results(rows, info, out)
        if step_only:
            cli.write_atomic(out / "step_only.json", json.dumps(step_only, indent=2))
        if training:
            cli.write_atomic(out / "training_sps.json", json.dumps({"device": info, "results": training}, indent=2))
            cli.write_atomic(out / "training_sps.md", markdown(training, info))
        print(f"wrote {out}/env_sps.{{json,csv,md,png}}")
    if host:
        _host_timings(args, info, out)
    return rows


if __name__ == "__main__":
    result = main()
    sys.exit(result if isinstance(result, int) else 0)
