"""Runs one documented ``python -m MODULE ARGS`` the way ``tests/test_docs.py`` needs: the public
data the docs name (``DIR``, ``Hexagons/data``) replaced by the fixtures in the same format, and
small budgets appended (argparse keeps the last value of a flag), so that a page's whole command
sequence runs in minutes. Used as ``python -m tests.documented -m MODULE ARGS``.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEXAGONS = str(ROOT / "tests" / "fixtures" / "hexagons")
CORPUS = str(ROOT / "tests" / "fixtures" / "mdc" / "data")
GRID = ("hexagons", "blocks", "blocksworld", "Hexagons-Paint-v1", "BlocksWorld-BAP-v1", "BlocksWorld-Build-v1")

SMALL = {
    "baselines": ["--total-timesteps", "512", "--num-envs", "8", "--num-steps", "8", "--layer-size", "16", "--max-episode-steps", "16"]
    + ["--eval-episodes", "1", "--eval-splits", "train", "--quiet"],
    "baselines.bc": ["--epochs", "2", "--layer-size", "16", "--eval-episodes", "1", "--eval-splits", "train", "--quiet"],
    "baselines.bc.dagger": ["--iterations", "2", "--num-envs", "4", "--num-steps", "8", "--replay-steps", "64", "--updates", "2"]
    + ["--batch-segments", "2", "--max-episode-steps", "16", "--eval-episodes", "1", "--eval-splits", "train", "--quiet"],
    "baselines.evaluate": ["--episodes", "1", "--max-steps", "16", "--quiet"],
    "baselines.episodes record": ["--episodes", "2", "--quiet"],
    "baselines.episodes render": ["--quiet"],
    "baselines.textworld generate": ["--episodes", "2", "--max-steps", "4", "--batch-size", "2", "--quiet"],
    "baselines.builder train": ["--max-epochs", "1", "--simulated-items", "16", "--max-actions", "2", "--batch-size", "16"]
    + ["--embeddings", "learned", "--quiet"],
    "baselines.builder evaluate": ["--synthetic-items", "16"],
    "baselines.painter train": ["--epochs", "1", "--width", "16", "--tile-layers", "1", "--text-layers", "1", "--synthetic-procedures", "8"]
    + ["--quiet"],
    "hexagons.abstractions": ["--procedures", "10"],
    "blocksworld.synthetic": ["--games", "5"],
    "craftext.validate": ["--episodes-per-goal", "1", "--expert-steps", "20", "--quiet"],
    "benchmarks.device": ["--quick", "--env", "Hexagons-Paint-v1", "--quiet"],
    "benchmarks.fits": ["--env", "Hexagons-Paint-v1", "--policies", "ppo-t", "--quiet"],
}
"""Budgets appended to a documented command (by module, and subcommand where there is one); runs
evaluate their train split only (each split's evaluator is a compilation of its own)."""


def small(module: str, args: list[str]) -> list[str]:
    """The documented arguments with the fixtures for the public data and the small budgets."""
    data = HEXAGONS if module.startswith("hexagons") or "painter" in module else CORPUS
    args = [data if a in ("DIR", "Hexagons/data") else a for a in args]
    key = f"{module} {args[0]}" if args and not args[0].startswith("-") and f"{module} {args[0]}" in SMALL else module
    extra = list(SMALL.get(key, []))
    if module == "baselines":
        if "--resume" in args:  # the run's own settings; a budget flag would contradict them
            return [*args, "--quiet"]
        if any(a in GRID for a in args):  # generated grid-world data, a quarter for each held-out split
            extra += ["--data-size", "16"]
    return [*args, *extra]


def main() -> None:
    if sys.argv[1] != "-m":
        raise SystemExit("usage: python -m tests.documented -m MODULE ARGS")
    module, args = sys.argv[2], sys.argv[3:]
    sys.argv = [module, *small(module, args)]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
