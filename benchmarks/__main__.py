"""``python -m benchmarks``: env-only steps/s of every registered world vs num_envs, and PPO
training steps/s of each baseline policy with the share of time spent in the environment.

Writes ``env_sps.json``, ``env_sps.csv``, ``env_sps.md``, ``env_sps.png``,
``training_sps.{json,md}`` and, with a blocks world, the host-side ``bap_scoring.json`` and
``synthetic_items.json`` (simulated BAP items per minute) under ``--out`` (default
``benchmarks/results/<device>``). ``--host-only`` runs just the host-side blocks-world timings. ``--quick`` is a seconds-long check that the code
works (tiny sizes, nothing written unless ``--out`` is given).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import json
import os
import platform
import sys
from pathlib import Path

import jax
import jaxlib

from benchmarks.env_sps import compare_step_only, measure_env, rollout_steps
from benchmarks.metrics_time import bap_scoring_time, synthetic_generation_rate
from benchmarks.training import markdown, measure_training
from benchmarks.worlds import WORLDS

DEFAULT_NUM_ENVS = (1, 64, 1024, 4096, 16384)
RESULTS = Path(__file__).parent / "results"


def device_info() -> dict:
    device = jax.devices()[0]
    return {
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
    (out / "env_sps.json").write_text(json.dumps({"device": info, "results": rows}, indent=2))
    with (out / "env_sps.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = [
        f"Device: {info['device']} ({info['host_cpus']} host CPUs), jax {info['jax']}, jaxlib {info['jaxlib']}.",
        "",
        "| world | reset | num_envs | steps/s (median) | min | max | compile (s) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['world']} | {r['reset']} | {r['num_envs']} | {r['steps_per_s_median']:,.0f} | {r['steps_per_s_min']:,.0f} "
            f"| {r['steps_per_s_max']:,.0f} | {r['compile_s']:.2f} |"
        )
    (out / "env_sps.md").write_text("\n".join(lines) + "\n")

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
    fig.savefig(out / "env_sps.png", dpi=120)
    plt.close(fig)


def _training(args, info: dict, on_cpu: bool) -> list[dict]:
    """PPO training benchmark: CrafText Classic (Hexagons at toy size with --quick)."""
    num_envs = args.training_envs if args.training_envs is not None else (8 if args.quick else 64 if on_cpu else 1024)
    if not num_envs:
        return []
    from baselines.tasks import make_task

    if args.quick:
        task, sizes = make_task("Hexagons-Paint-v1", max_steps_in_episode=50), dict(num_steps=8, updates=1, repeats=1, layer_size=32, policies=("ppo-t",))
    else:
        task, sizes = make_task("CrafText-Classic-Symbolic-v1"), dict(num_steps=64, updates=2, repeats=args.repeats)
    rows = measure_training(task, num_envs, **sizes)
    for r in rows:
        print(f"PPO {r['policy']:<7} {r['world']} {r['num_envs']} envs: {r['train_steps_per_s']:,.0f} training steps/s, "
              f"env-only {r['env_only_steps_per_s']:,.0f} steps/s, env share {r['env_share']:.0%}, compile {r['compile_s']:.1f} s", flush=True)
    return rows


def _host_timings(args, info: dict) -> list[dict]:
    """BAP v2 scoring time and simulated items per minute, printed and saved."""
    scoring = bap_scoring_time(args.mdc)
    print(
        f"BAP v2 metrics, {scoring['items']} {scoring['source']} items: {scoring['median_s']:.2f} s "
        f"(first call with compilation {scoring['first_call_s']:.2f} s)",
        flush=True,
    )
    rates = synthetic_generation_rate(repeats=args.repeats)
    for r in rates:
        print(f"synthetic {r['simulator']:<7} {r['items_per_min_median']:>12,.0f} BAP items/min ({r['games']} games, {r['items']} items)", flush=True)
    out = args.out or RESULTS / device_slug(info)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bap_scoring.json").write_text(json.dumps({"device": info, **scoring}, indent=2))
    (out / "synthetic_items.json").write_text(json.dumps({"device": info, "results": rates}, indent=2))
    print(f"wrote {out}/bap_scoring.json, synthetic_items.json")
    return rates


STEP_ONLY = ("Craftax-Classic-Symbolic (bare)", "CrafText-Classic-Symbolic-v1")


def _step_only(args, info: dict, num_envs: int = 256, num_steps: int = 16) -> dict | None:
    """CrafText's cost without resets: ``vmap(step_env)`` from reset states, bare Craftax and
    CrafText timed in interleaved rounds (``compare_step_only``); the median per-round ratio."""
    if args.quick or not args.step_only_rounds or not all(w in args.worlds for w in STEP_ONLY):
        return None
    envs = {name: WORLDS[name].make() for name in STEP_ONLY}
    result = compare_step_only(envs, num_envs, num_steps, rounds=args.step_only_rounds)
    craftext = result[STEP_ONLY[1]]
    print(f"step only (no resets), {num_envs} envs x {num_steps} steps, {args.step_only_rounds} interleaved rounds: "
          f"CrafText / bare Craftax x{craftext['ratio_median']:.3f} (per-round range {craftext['ratio_min']:.2f} .. {craftext['ratio_max']:.2f})",
          flush=True)
    return {"device": info, "num_envs": num_envs, "num_steps": num_steps, "rounds": args.step_only_rounds, "results": result}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", nargs="+", default=None, help="world ids (default: all; --quick: those without world generation)")
    parser.add_argument("--num-envs", nargs="+", type=int, default=None, help=f"default {DEFAULT_NUM_ENVS}")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="results folder (default benchmarks/results/<device>)")
    parser.add_argument("--quick", action="store_true", help="seconds-long check with tiny sizes")
    parser.add_argument("--training-envs", type=int, default=None, help="num_envs of the PPO training benchmark (default 64 on CPU, 1024 elsewhere; 0 skips it)")
    parser.add_argument("--mdc", default=None, help="Minecraft Dialogue Corpus data/ folder: time BAP dev scoring on it")
    parser.add_argument("--host-only", action="store_true", help="only the host-side blocks-world timings (BAP scoring, synthetic items)")
    parser.add_argument("--step-only-rounds", type=int, default=40,
                        help="interleaved rounds of the step-only CrafText / bare Craftax comparison (256 envs, 16 steps; 0 skips it)")
    args = parser.parse_args(argv)
    if args.host_only:
        return _host_timings(args, device_info())
    if args.worlds is None:
        args.worlds = [w for w, spec in WORLDS.items() if not (args.quick and spec.reset_ratio)]
    unknown = [w for w in args.worlds if w not in WORLDS]
    if unknown:
        close = difflib.get_close_matches(unknown[0], WORLDS, n=3, cutoff=0.4)
        parser.error(f"unknown world {unknown[0]!r}; close: {close or 'none'}; known: {', '.join(WORLDS)}")
    num_envs = args.num_envs or ((1, 8) if args.quick else DEFAULT_NUM_ENVS)
    repeats = 1 if args.quick else args.repeats
    info = device_info()
    print(f"device {info['device']}, {info['host_cpus']} host CPUs, jax {info['jax']}", flush=True)
    rows = []
    on_cpu = info["device"].startswith("cpu")
    for world in args.worlds:
        spec = WORLDS[world]
        env, params = spec.make()
        for n in num_envs:
            if on_cpu and spec.max_cpu_envs and n > spec.max_cpu_envs:
                print(f"{world:<24} num_envs {n:>6}  skipped on CPU (above {spec.max_cpu_envs})", flush=True)
                continue
            steps = 8 if args.quick else rollout_steps(n, budget=spec.step_budget, high=spec.max_steps)
            result = {"world": world, **measure_env(env, params, n, steps, repeats, reset_ratio=spec.reset_ratio)}
            rows.append(result)
            print(
                f"{world:<24} num_envs {n:>6}  {result['steps_per_s_median']:>14,.0f} steps/s "
                f"[{result['steps_per_s_min']:,.0f} .. {result['steps_per_s_max']:,.0f}]  "
                f"compile {result['compile_s']:.2f} s",
                flush=True,
            )
    host = not args.quick and any(w.startswith("BlocksWorld") for w in args.worlds)
    training = _training(args, info, on_cpu)
    ratio_rows = {r["num_envs"]: r for r in rows if r["world"] == "Craftax-Classic-Symbolic (bare)"}
    for r in rows:
        bare = ratio_rows.get(r["num_envs"])
        if r["world"].startswith("CrafText") and bare:
            print(
                f"CrafText / bare Craftax at {r['num_envs']} envs: steps/s x{r['steps_per_s_median'] / bare['steps_per_s_median']:.2f}, "
                f"compile x{r['compile_s'] / bare['compile_s']:.2f}",
                flush=True,
            )
    step_only = _step_only(args, info)
    out = args.out if args.out or args.quick else RESULTS / device_slug(info)
    if out is not None:
        write_results(rows, info, out)
        if step_only:
            (out / "step_only.json").write_text(json.dumps(step_only, indent=2))
        if training:
            (out / "training_sps.json").write_text(json.dumps({"device": info, "results": training}, indent=2))
            (out / "training_sps.md").write_text(markdown(training, info))
        print(f"wrote {out}/env_sps.{{json,csv,md,png}}")
    if host:
        _host_timings(args, info)
    return rows


if __name__ == "__main__":
    sys.exit(main() and 0)
