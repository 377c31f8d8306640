"""``python -m benchmarks.history``: every release's env throughput measured again in one sitting.

Figures measured months apart on a shared machine compare the machine as much as the code. This
command extracts each release's source tree from git (``git archive``) into a temporary folder and
runs the same probe in it (``benchmarks/release_probe.py``: gymnax's auto-resetting
``vmap(env.step)``, random actions, 64 steps in a ``lax.scan``, reset time subtracted), then the
working tree, one after the other on this machine with this environment's jax. The ratios
between releases are the history; the absolute figures are this sitting's.

Writes ``history.json``, ``history.md`` and ``history.png`` (steps/s per world and release, bars
from the slowest to the fastest repeat) under ``--out`` (default ``runs/benchmarks/<device>``; a
file there is replaced only with ``--overwrite``). Needs a git checkout with the releases' commits.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from baselines import worlds
from baselines.plots import pyplot, save
from baselines.worlds import cli
from benchmarks import RESULTS_OUT, provenance_line, write_results
from benchmarks.worlds import benchmark_of

RELEASES = (("0.1.0", "04c1e68"), ("0.2.0", "3a58360"), ("0.3.0", "fc92320"), ("0.4.0", "45429e6"), ("0.5.0", "bf3f0db"))
"""(release, commit) of every release whose tree the probe runs in; the working tree follows."""
FILES = ("history.json", "history.md", "history.png")
ROOT = Path(__file__).resolve().parent.parent
PROBE = Path(__file__).with_name("release_probe.py")


def extract(repo: Path, commit: str, folder: Path) -> Path:
    """The source tree of ``commit`` of the git checkout ``repo`` in ``folder`` (``git archive``);
    SystemExit naming the commit when ``repo`` does not hold it."""
    try:
        archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit], capture_output=True, check=True, timeout=120)
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", b"") or b""
        needed = "a git checkout with the release history is needed"
        raise SystemExit(f"error: cannot read commit {commit} from {repo} ({needed}): {detail.decode().strip()}") from None
    folder.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def default_worlds(num_envs: int) -> list[str]:
    """The benchmark ids of every registered family that steps ``num_envs`` worlds here (on a CPU,
    the families without a smaller CPU limit: not the worlds that generate Craftax maps)."""
    import jax

    on_cpu = jax.default_backend() == "cpu"
    chosen = []
    for family in worlds.families():
        settings = benchmark_of(family)
        if not (on_cpu and settings.max_cpu_envs and settings.max_cpu_envs < num_envs):
            chosen += settings.ids or family.ids
    return chosen


def probe_target(env_id: str) -> str:
    """``module:function:env_id`` of a world's ``make`` as the probe imports it in a release's tree."""
    make = worlds.family_of(env_id).make
    return f"{make.__module__}:{make.__name__}:{env_id}"


def probe(tree: Path, targets: list[str], num_envs: int, repeats: int) -> list[dict]:
    """The probe's rows, run by this Python from the root of ``tree`` (its packages first on the path)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.read_text(), str(num_envs), str(repeats), *targets],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
    )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or len(rows) != len(targets):
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"error: the probe failed in {tree} (exit {done.returncode}): {tail[0]}")
    return rows


def markdown(history: list[dict], info: dict) -> str:
    releases = [h["release"] for h in history]
    lines = [
        provenance_line(info),
        "",
        f"Env steps/s at {history[0]['num_envs']:,} worlds, every release in this one sitting (median of {history[0]['repeats']}):",
        "",
        "| world | " + " | ".join(releases) + f" | {releases[-1]} / {releases[0]} |",
        "|---|" + "---:|" * (len(releases) + 1),
    ]
    for world in history[0]["results"]:
        rates = [h["results"][world].get("steps_per_s_median") for h in history]
        cells = [f"{r / 1e6:,.2f}M" if r else "n/a" for r in rates]
        ratio = f"{rates[-1] / rates[0]:.2f}x" if rates[0] and rates[-1] else "n/a"
        lines.append(f"| {world} | " + " | ".join(cells) + f" | {ratio} |")
    return "\n".join(lines) + "\n"


def plot(history: list[dict], info: dict, out: Path) -> Path:
    """``history.png``: steps/s per release, one line per world, bars from the slowest to the fastest repeat."""
    fig, ax = pyplot().subplots(figsize=(6.4, 3.8))
    x = range(len(history))
    for world in history[0]["results"]:
        rows = [h["results"][world] for h in history]
        shown = [(i, r) for i, r in zip(x, rows) if "steps_per_s_median" in r]
        medians = [r["steps_per_s_median"] / 1e6 for _, r in shown]
        spread = [
            [m - r["steps_per_s_min"] / 1e6 for m, (_, r) in zip(medians, shown)],
            [r["steps_per_s_max"] / 1e6 - m for m, (_, r) in zip(medians, shown)],
        ]
        ax.errorbar([i for i, _ in shown], medians, yerr=spread, marker="o", capsize=3, label=world)
    ax.set_xticks(list(x), [h["release"] for h in history])
    ax.set(ylabel=f"million env steps / s ({history[0]['num_envs']:,} worlds)", xlabel="release", title=f"{info['device']}, one sitting")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return save(fig, out / "history.png")


def release_pair(text: str) -> tuple[str, str]:
    name, _, commit = text.partition("=")
    if not name or not commit:
        raise argparse.ArgumentTypeError(f"{text!r}: use NAME=COMMIT, e.g. 0.1.0=04c1e68")
    return name, commit


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.history", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--release", type=release_pair, action="append", default=None, metavar="NAME=COMMIT", help="releases (default: every release)"
    )
    p.add_argument("--env", nargs="+", default=None, metavar="ID", help="worlds (default: every benchmark world that steps N worlds here)")
    p.add_argument("--num-envs", type=cli.positive_int, default=16384, metavar="N", help="worlds stepped at once (default 16,384)")
    p.add_argument("--repeats", type=cli.positive_int, default=5, metavar="R", help="timed calls per world and release (median; default 5)")
    p.add_argument("--repo", type=Path, default=ROOT, metavar="DIR", help="git checkout with the releases (this suite's if not given)")
    cli.add_out(p, RESULTS_OUT)
    cli.add_run_options(p)
    return p


def main(argv: list[str] | None = None) -> list[dict]:
    from baselines import __version__
    from benchmarks.__main__ import results_folder

    p = parser()
    args = cli.parse(p, argv)
    try:
        targets = [probe_target(env_id) for env_id in args.env or default_worlds(args.num_envs)]
    except ValueError as error:  # an unknown id: the registry's message names the known ones
        p.error(str(error))
    info, out = results_folder(args, FILES)
    releases = [*(args.release or RELEASES), (__version__, info["commit"])]
    history = []
    with (
        tempfile.TemporaryDirectory() as scratch,
        cli.progress(total=len(releases), desc="releases", unit="release", silent=args.quiet) as bar,
    ):
        for i, (name, commit) in enumerate(releases):
            tree = ROOT if i == len(releases) - 1 else extract(args.repo, commit, Path(scratch) / str(i))
            rows = probe(tree, targets, args.num_envs, args.repeats)
            history.append(
                {
                    "release": name,
                    "commit": commit,
                    "num_envs": args.num_envs,
                    "repeats": args.repeats,
                    "results": {r["world"]: r for r in rows},
                }
            )
            bar.update()
    paths = write_results(out, "history", {"device": info, "history": history}, markdown(history, info))
    print(f"wrote {paths[0]}, {paths[1]} and {plot(history, info, out)}")
    return history


if __name__ == "__main__":
    main()
