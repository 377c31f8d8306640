"""Parameters on disk, in the suite's one checkpoint format: an orbax checkpoint (``params/``)
with the run's ``config.json`` beside it. Training runs that resume (``python -m baselines``, the
Builder) keep several steps with ``orbax.checkpoint.CheckpointManager`` in the same format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any


def save_params(run: str | Path, params: Any) -> Path:
    """Write ``run/params`` (orbax), replacing an earlier one; returns the folder."""
    import orbax.checkpoint as ocp

    path = (Path(run) / "params").absolute()
    if path.exists():
        shutil.rmtree(path)
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(path, params)
    return path


def restore_params(run: str | Path, target: Any) -> Any:
    """The params saved by ``save_params`` in ``run``, restored into the structure, shapes and
    dtypes of ``target``."""
    import orbax.checkpoint as ocp

    with ocp.StandardCheckpointer() as checkpointer:
        return checkpointer.restore((Path(run) / "params").absolute(), target)


RUN_KINDS = {"ppo": "ppo", "bc": "network", "painter": "layout", "builder": "simulated_items"}
"""The command that trained a run -> the key its ``config.json`` alone has."""


def run_kind(run: str | Path) -> str:
    """Which command trained the run in folder ``run`` (a key of ``RUN_KINDS``: ``ppo`` for
    ``python -m baselines``, ``bc``, ``painter``, ``builder``), read from its ``config.json``;
    ValueError naming the folder otherwise."""
    path = Path(run) / "config.json"
    if not path.is_file():
        raise ValueError(f"{run}: not a run folder (no config.json)")
    saved = json.loads(path.read_text())
    kind = next((kind for kind, key in RUN_KINDS.items() if key in saved), None)
    if kind is None:
        raise ValueError(f"{path}: not the configuration of a run of this suite")
    return kind
