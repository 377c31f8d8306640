"""``python -m baselines.export RUN --out FOLDER``: a trained agent as a small folder to share or
commit: its final parameters (float16 by default, half the size; ``evaluate`` computes in float32)
with the run's ``config.json``, ``metrics.jsonl`` and learning curve, without checkpoints or
optimizer state.

``RUN`` is a run folder of ``python -m baselines`` (its latest checkpoint), ``python -m
baselines.bc`` or ``python -m baselines.painter``. The folder reads like the run everywhere a run
is read (``python -m baselines.evaluate FOLDER``, ``--init-from`` for a BC run, ``python -m
baselines.painter evaluate FOLDER``); ``config.json`` gains an ``export``
record: where the parameters came from, their dtype and this command. Rounding to float16 changes
sampled episodes, so evaluate the exported folder, not the run, for figures that others reproduce
from it.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np

from baselines.worlds import cli
from baselines.worlds.checkpoints import run_kind, save_params, saved_params

DTYPES = ("float16", "bfloat16", "float32")
COPIED = ("metrics.jsonl", "learning_curve.png", "vocabulary.json")
"""Files of the run copied beside the parameters where the run has them."""


def export_run(run: Path, out: Path, dtype: str = "float16", command_line: str = "") -> Path:
    """Write ``out/params`` (the run's final parameters, floating arrays cast to ``dtype``),
    ``out/config.json`` (with an ``export`` record) and the files of ``COPIED``; returns ``out``."""
    import jax
    import ml_dtypes

    kind = run_kind(run)
    if kind not in ("ppo", "bc", "dagger", "painter"):
        raise ValueError(f"{run}: a run of python -m baselines, baselines.bc, baselines.bc.dagger or baselines.painter, not of {kind}")
    params, source = saved_params(run)
    floating = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)

    def cast(leaf) -> np.ndarray:
        leaf = np.asarray(leaf)
        return leaf.astype(floating) if np.issubdtype(leaf.dtype, np.floating) else leaf

    params = jax.tree.map(cast, params)
    out.mkdir(parents=True, exist_ok=True)
    save_params(out, params)
    config = json.loads((run / "config.json").read_text())
    config["export"] = {"run": str(run), "params": source, "dtype": dtype, "command": command_line}
    cli.write_atomic(out / "config.json", json.dumps(config, indent=1))
    for name in COPIED:
        if (run / name).is_file():
            shutil.copy(run / name, out / name)
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m baselines.export", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "run", type=Path, help="run folder of python -m baselines (its latest checkpoint), python -m baselines.bc or baselines.painter"
    )
    p.add_argument("--dtype", choices=DTYPES, default="float16", help="dtype of the saved floating parameters (default float16)")
    cli.add_out(p, "folder for params/, config.json and the run's metrics", required=True)
    return p


def _export(args: argparse.Namespace) -> None:
    out = cli.prepare_out(args.out, kind="export", overwrite=args.overwrite)
    export_run(args.run, out, args.dtype, args.command_line)
    size = sum(f.stat().st_size for f in (out / "params").rglob("*") if f.is_file())
    out = cli.finish_out(out)
    print(f"{args.run} -> {out} (params {args.dtype}, {size / 1e6:.1f} MB)", flush=True)


def main(argv: list[str] | None = None) -> None:
    cli.run(parser(), _export, argv)


if __name__ == "__main__":
    main()
