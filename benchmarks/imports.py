"""``python -m benchmarks.imports``: how long importing each package and printing each command's help take.

Each measurement is a fresh ``python`` process (so nothing is cached in the interpreter; the
operating system's file cache is warm after the first repeat), timed from start to exit: ``import
PACKAGE`` for every world package and the suite's packages, and ``python -m MODULE --help`` for
every command (``baselines.worlds.commands``). The median of ``--repeats`` runs is reported beside the
2-second target and the bare interpreter's start-up. Writes ``imports.json`` and ``imports.png``
under ``--out`` (default ``runs/benchmarks/<device>``; files already there are replaced only with
``--overwrite``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from baselines.plots import pyplot, save
from baselines.worlds import cli
from benchmarks import RESULTS_OUT

TARGET_S = 2.0
PACKAGES = ("craftext", "hexagons", "blocksworld", "hexagons.data", "blocksworld.data", "craftext.dataset", "baselines", "baselines.worlds")
FILES = ("imports.json", "imports.png")


def wall_time(argv: list[str], repeats: int) -> dict:
    """Median, min and max seconds of ``repeats`` runs of a fresh ``python`` with ``argv``; raises
    RuntimeError with its message if a run fails."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, *argv], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise RuntimeError(f"python {' '.join(argv)} failed: {done.stderr[-500:]}")
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3), "max_s": round(max(times), 3)}


def measure(repeats: int, quiet: bool = False) -> dict:
    """Every package import and every command's ``--help``, and the bare interpreter."""
    from baselines.worlds.commands import COMMANDS

    jobs = {"python (start-up only)": ["-c", "pass"]}
    jobs |= {f"import {p}": ["-c", f"import {p}"] for p in PACKAGES}
    jobs |= {f"python -m {m} --help": ["-m", m, "--help"] for m in COMMANDS.values()}
    rows = []
    for name, argv in cli.progress(jobs.items(), desc="imports", unit="measurement", silent=quiet):
        rows.append({"what": name, **wall_time(argv, repeats)})
    return {"target_s": TARGET_S, "repeats": repeats, "results": rows}


def plot(result: dict, info: dict, out: Path) -> Path:
    """``imports.png``: horizontal bars of the medians with the target line."""
    rows = result["results"]
    fig, ax = pyplot().subplots(figsize=(8, 0.28 * len(rows) + 1.2))
    ax.barh([r["what"] for r in rows], [r["median_s"] for r in rows], color=["#888" if i == 0 else "#3b7dd8" for i in range(len(rows))])
    ax.axvline(result["target_s"], color="k", ls="--", lw=1, label=f"target {result['target_s']:g} s")
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.set(xlabel=f"seconds (median of {result['repeats']} fresh processes)", title=f"{info['device']}, {info['host_cpus']} host CPUs")
    ax.legend(fontsize=8)
    return save(fig, out / "imports.png")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.imports", description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5, help="fresh processes per measurement (default 5)")
    cli.add_out(p, RESULTS_OUT)
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> dict:
    from benchmarks.__main__ import results_folder

    args = cli.parse(parser(), argv)
    info, out = results_folder(args, FILES)
    result = {"device": info, **measure(args.repeats, args.quiet)}
    for r in result["results"]:
        print(
            f"{r['what']:<45} {r['median_s']:6.2f} s  [{r['min_s']:.2f} .. {r['max_s']:.2f}]"
            + ("  over the target" if r["median_s"] > TARGET_S else "")
        )
    out.mkdir(parents=True, exist_ok=True)
    cli.write_atomic(out / "imports.json", json.dumps(result, indent=1))
    print(f"wrote {out / 'imports.json'} and {plot(result, info, out)}")
    return result


if __name__ == "__main__":
    main()
