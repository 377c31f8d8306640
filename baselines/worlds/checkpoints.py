"""Run folders and parameters on disk, in the suite's one checkpoint format: an orbax checkpoint
(``params/``) with the run's ``config.json`` beside it. ``RunFolder`` is a training run's folder
from start to finish (its config, ``Checkpoints`` it resumes from, its metrics, the swap of an
overwrite); ``Checkpoints`` keeps the steps of a run that resumes (``python -m baselines``, DAgger,
the Builder). ``baselines.ppo.load_policy`` gives the network and parameters of a PPO,
behavioural-cloning or DAgger run."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baselines.worlds import cli
from baselines.worlds.cli import write_atomic

if TYPE_CHECKING:
    from typing_extensions import Unpack


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


RUN_KINDS = {"ppo": "ppo", "dagger": "dagger", "bc": "network", "painter": "layout", "builder": "simulated_items"}
"""The command that trained a run (the ``kind`` its ``config.json`` records) -> the key its
``config.json`` alone has (how the kind of a folder written before ``kind`` was recorded is told)."""


class Checkpoints:
    """The steps a training run saves to resume from, in folder ``run/name`` (``checkpoints/`` by
    default; an orbax ``CheckpointManager`` keeping the last ``keep`` steps), opened without creating
    the folder unless ``create``. ``latest(target, ...)`` restores the latest readable step;
    ``save(step, state)`` writes one in the background and ``wait()`` until it is written (before the
    next step takes over donated buffers); ``close`` waits for the last and closes the manager."""

    def __init__(self, run: str | Path, keep: int | None = None, name: str = "checkpoints", create: bool = True):
        import orbax.checkpoint as ocp

        self.run, self.folder = Path(run), (Path(run) / name).absolute()
        options = ocp.CheckpointManagerOptions(max_to_keep=keep, create=create)
        self.manager: Any = ocp.CheckpointManager(self.folder, options=options) if create or self.folder.is_dir() else None

    def steps(self) -> list[int]:
        """The saved steps, latest first."""
        return sorted(self.manager.all_steps(), reverse=True) if self.manager else []

    def latest(self, *targets: Any, set_aside: bool = True) -> tuple[int, int, Any] | None:
        """``(step, i, state)`` of the latest step readable into the structure of one of ``targets``
        (tried in order: ``i`` says which; an earlier format of the state can be the second), or None
        without a saved step. A step none of them reads is moved to ``run/unreadable-checkpoints``
        with a warning (by one process of a multi-process run: ``set_aside``), and the one before is
        tried; ValueError naming the folder if none is readable."""
        import orbax.checkpoint as ocp

        steps = self.steps()
        for step in steps:
            errors = []
            for i, target in enumerate(targets):
                try:
                    return step, i, self.manager.restore(step, args=ocp.args.StandardRestore(target))
                except Exception as error:  # orbax raises many types for a damaged or other step
                    errors.append(f"{type(error).__name__}: {str(error)[:200]}")
            problem = f"checkpoint {step} in {self.folder} cannot be read ({'; '.join(errors)})"
            print(f"warning: {problem}; trying the one before", file=sys.stderr, flush=True)
            if set_aside:
                aside = self.run / "unreadable-checkpoints"
                aside.mkdir(exist_ok=True)
                shutil.move(str(self.folder / str(step)), str(aside / str(step)))
            self.manager.reload()  # the step may be saved afresh
        if steps:
            raise ValueError(f"no readable checkpoint in {self.folder}")
        return None

    def save(self, step: int, state: Any) -> None:
        import orbax.checkpoint as ocp

        self.manager.save(step, args=ocp.args.StandardSave(state))

    def wait(self) -> None:
        if self.manager:
            self.manager.wait_until_finished()

    def close(self) -> None:
        if self.manager:
            self.manager.wait_until_finished()
            self.manager.close()


class RunFolder:
    """A training run's folder from start to finish: ``open`` takes ``--out`` under the output
    policy (``cli.prepare_out``: a new folder, an overwrite staged beside the old one, or the
    folder a ``resume`` continues); ``write_config`` saves a new run's ``config.json``;
    ``checkpoints`` are the steps it resumes from; ``metrics`` appends rows to ``metrics.jsonl``,
    first dropping those past the step a resumed run continues from; ``finish`` marks it finished
    (an overwrite takes the old folder's place) and returns where it now is. Only the ``lead``
    process of a multi-process run writes files."""

    def __init__(self, path: str | Path, resumed: bool = False, lead: bool = True):
        self.path, self.resumed, self.lead = Path(path), resumed, lead
        self.path.mkdir(parents=True, exist_ok=True)  # every process's, where they share no file system

    @classmethod
    def open(cls, out: Path | None, *, kind: str, **request: Unpack[cli.OutRequest]) -> RunFolder:
        return cls(cli.prepare_out(out, kind=kind, **request), request.get("resume", False))

    def write_config(self, record: dict[str, Any], resumed_too: bool = False) -> None:
        """``config.json`` of a new run (``configs.run_record`` for a trainer of a policy network);
        a resumed run keeps its own unless ``resumed_too`` (a resumed Builder's new budget)."""
        if self.lead and (resumed_too or not self.resumed):
            write_atomic(self.path / "config.json", json.dumps(record, indent=1))

    def checkpoints(self, keep: int | None = None, name: str = "checkpoints") -> Checkpoints:
        return Checkpoints(self.path, keep, name)

    @contextlib.contextmanager
    def metrics(self, field: str = "", resumed_at: int | None = None) -> Iterator[Callable[[dict[str, Any]], None]]:
        """A function that appends one row to ``metrics.jsonl`` (flushed); with ``resumed_at``, the
        rows whose ``field`` is past it are dropped first (written after that checkpoint)."""
        path = self.path / "metrics.jsonl"
        if self.lead and resumed_at is not None:
            keep_metrics_until(path, field, resumed_at)
        with path.open("a") if self.lead else open(os.devnull, "w") as log:

            def write(row: dict[str, Any]) -> None:
                log.write(json.dumps(row) + "\n")
                log.flush()

            yield write

    def finish(self) -> Path:
        """Mark the folder finished (``cli.finish_out``); returns where it now is."""
        return cli.finish_out(self.path) if self.lead else cli.final_path(self.path)


def keep_metrics_until(path: Path, field: str, last: int) -> None:
    """Drop the rows of a run's ``metrics.jsonl`` whose ``field`` is past ``last`` (written after
    the checkpoint a run resumes from)."""
    if path.exists():
        rows = [line for line in path.read_text().splitlines() if line.strip() and json.loads(line)[field] <= last]
        write_atomic(path, "".join(row + "\n" for row in rows))


def run_kind(run: str | Path) -> str:
    """Which command trained the run in folder ``run`` (a key of ``RUN_KINDS``: ``ppo`` for
    ``python -m baselines``, ``dagger`` (``baselines.bc.dagger``), ``bc``, ``painter``,
    ``builder``): the ``kind`` its ``config.json`` records (told by ``RUN_KINDS``' keys for a folder
    written before); ValueError naming the folder otherwise."""
    path = Path(run) / "config.json"
    if not path.is_file():
        raise ValueError(f"{run}: not a run folder (no config.json)")
    saved = json.loads(path.read_text())
    kind = saved.get("kind") if isinstance(saved, dict) else None
    if kind is None and isinstance(saved, dict):
        kind = next((kind for kind, key in RUN_KINDS.items() if key in saved), None)
    if kind not in RUN_KINDS:
        raise ValueError(f"{path}: not the configuration of a run of this suite" + (f" (kind {kind!r})" if kind else ""))
    return kind


def run_world(run: str | Path) -> dict:
    """The world settings (``baselines.worlds`` spec: env, level, goals, ...) a run trained on or
    plays, from its ``config.json``: its ``world`` (every trainer's, an agent of another kind), or
    the ``command`` of a PPO run of 0.5.0 (which held its flags too: they are left to the spec's
    readers to drop)."""
    saved = json.loads((Path(run) / "config.json").read_text())
    if isinstance(saved.get("world"), dict) and "env" in saved["world"]:
        return {k: v for k, v in saved["world"].items() if k != "split"}
    if "ppo" in saved and isinstance(saved.get("command"), dict):
        return dict(saved["command"])
    raise ValueError(f"{Path(run) / 'config.json'}: names no world (a 'world' of settings, env first, or a PPO run's 'command')")


def saved_params(run: str | Path) -> tuple[Any, str]:
    """The params of a BC run (``params/``) or of a PPO run's latest checkpoint, as saved (numpy
    arrays, their saved dtypes), and where in ``run`` they were read (``params`` or
    ``checkpoints/<update>``); ValueError naming the folder if it has neither."""
    import orbax.checkpoint as ocp

    run = Path(run)
    if (run / "params").is_dir():
        with ocp.StandardCheckpointer() as checkpointer:
            return checkpointer.restore((run / "params").absolute()), "params"
    found = Checkpoints(run, create=False).latest(None, set_aside=False)  # as saved: no structure to restore into
    if found is None:
        raise ValueError(f"{run}: no params/ and no checkpoint to load")
    step, _, runner = found
    return runner["params"], f"checkpoints/{step}"


def trained_params(run: str | Path, target: Any) -> Any:
    """A BC run's params, or those of a PPO run's latest checkpoint (``saved_params``), in the
    structure and dtypes of ``target`` (a run exported as float16 computes in float32)."""
    import jax
    import jax.numpy as jnp

    return jax.tree.map(lambda saved, like: jnp.asarray(saved, like.dtype), saved_params(run)[0], target)
