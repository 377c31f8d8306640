"""Episode files: an episode is its world, its seed and its actions; the rest comes from replay.

The key rule (the one place it is written): ``root = jax.random.key(seed)`` (uint32 seed, the
default threefry implementation); the reset key is ``fold_in(root, 0)`` and the key of step ``t``
(0-based) is ``fold_in(fold_in(root, 1), t)``. A policy's own sampling keys are not part of the
episode (its actions are).

File: ``np.savez_compressed`` with ``actions`` int32 [T], ``rewards`` float32 [T], ``terminated`` /
``truncated`` bool [T], ``t_ms`` int64 [T] (milliseconds since the episode started; 0 for agents)
and ``meta``, a JSON string (``Episode.meta``): ``schema``, ``env`` (the versioned id), ``world``
(the world spec of ``baselines.worlds.world_spec`` plus ``split``: what rebuilds the Task), ``text`` (the
instruction id in the Task's table), ``goal`` (its goal's key), ``instruction``, ``seed``,
``source`` (``agent:<name>`` or ``human:<id>``), ``return``, ``success``, ``length``,
``final_state_sha256`` (``state_digest``), ``package`` / ``git`` / ``jax`` / ``backend`` (what made
it) and ``created`` (UTC, ISO 8601).

A live recording (``Journal``) appends one JSON line per step to ``<name>.jsonl`` as it happens
(the first line is the metadata), so a crash loses nothing; ``Journal.close`` writes the ``.npz``
and removes the journal.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import io
import json
import os
import stat
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import jax
import numpy as np
from jax import Array

from baselines.worlds.cli import write_atomic

SCHEMA = 1
MAX_EPISODE_BYTES = 64 * 2**20
"""The most an episode file's arrays may take inflated (18 bytes a step: over 3.5M steps); a file
claiming more (a zip bomb) is refused before it is read."""

ARRAYS = {"actions": np.int32, "rewards": np.float32, "terminated": np.bool_, "truncated": np.bool_, "t_ms": np.int64}
STEP_FIELDS = {"actions": "action", "rewards": "reward", "terminated": "terminated", "truncated": "truncated", "t_ms": "t_ms"}
"""Array name -> its field in a journal's step line."""
REQUIRED_META = ("schema", "env", "world", "text", "seed", "source", "length", "final_state_sha256")
INDEX = "index.jsonl"


class EpisodeError(ValueError):
    """A malformed episode file or journal (the message names the file and the field)."""


def reset_key(seed: int) -> Array:
    """The reset key of an episode (module docstring)."""
    return jax.random.fold_in(jax.random.key(seed), 0)


def step_key(seed: int | Array, t: int | Array) -> Array:
    """The key of step ``t`` (0-based) of an episode (module docstring); traceable in both."""
    return jax.random.fold_in(jax.random.fold_in(jax.random.key(seed), 1), t)


def state_digest(state: Any) -> str:
    """sha256 (hex) over the leaves of a state pytree, in tree order: dtype, shape and bytes of
    each (PRNG keys by their key data)."""
    digest = hashlib.sha256()
    for leaf in jax.tree.leaves(state):
        if jax.dtypes.issubdtype(getattr(leaf, "dtype", None), jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        array = np.ascontiguousarray(np.asarray(leaf))
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def provenance() -> dict[str, str]:
    """What produced an episode: package version, git commit (``unknown`` outside a checkout), jax
    version and backend."""
    try:
        version = metadata.version("instructworlds")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return {
        "package": version,
        "git": _git_commit(Path(__file__).resolve().parent),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
    }


def _git_commit(folder: Path) -> str:
    """The checked-out commit of the git work tree holding ``folder``, read from ``.git`` (no
    subprocess: forking a process that runs JAX may deadlock)."""
    for parent in (folder, *folder.parents):
        git = parent / ".git"
        if not git.is_dir():
            continue
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head
        ref = head[5:]
        if (git / ref).is_file():
            return (git / ref).read_text().strip()
        packed = git / "packed-refs"
        lines = packed.read_text().splitlines() if packed.is_file() else []
        return next((line.split()[0] for line in lines if line.endswith(" " + ref)), "unknown")
    return "unknown"


@dataclass
class Episode:
    """One episode: the five per-step arrays (module docstring) and ``meta``."""

    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    t_ms: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        for name, dtype in ARRAYS.items():
            setattr(self, name, np.asarray(getattr(self, name), dtype).reshape(-1))
        lengths = {name: len(getattr(self, name)) for name in ARRAYS}
        if len(set(lengths.values())) != 1:
            raise EpisodeError(f"episode arrays differ in length: {lengths}")

    def __len__(self) -> int:
        return len(self.actions)

    @property
    def seed(self) -> int:
        return int(self.meta["seed"])

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (``.npz``) atomically (a temporary file renamed into place)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        packed = io.BytesIO()
        np.savez_compressed(packed, meta=np.asarray(json.dumps(self.meta)), **{name: getattr(self, name) for name in ARRAYS})
        write_atomic(path, packed.getvalue())
        return path


def load(path: str | Path) -> Episode:
    """Read an episode file; raises ``EpisodeError`` naming the file and the missing or bad field.
    Only a regular file is opened (a FIFO or a device would block), and one whose arrays would
    take more than ``MAX_EPISODE_BYTES`` inflated is refused before anything is inflated."""
    path = Path(path)
    try:
        regular = stat.S_ISREG(path.stat().st_mode)
    except OSError as error:
        raise EpisodeError(f"{path}: cannot be read ({error.strerror})") from None
    if not regular:
        raise EpisodeError(f"{path}: not a regular file")
    unreadable = (OSError, ValueError, EOFError, KeyError, RecursionError, zipfile.BadZipFile, zlib.error)
    try:
        with zipfile.ZipFile(path) as archive:
            inflated = sum(member.file_size for member in archive.infolist())
        if inflated > MAX_EPISODE_BYTES:
            raise EpisodeError(f"{path}: its arrays take {inflated / 2**20:,.0f} MiB inflated, over the {MAX_EPISODE_BYTES >> 20} MiB read")
        with np.load(path, allow_pickle=False) as data:
            missing = [name for name in (*ARRAYS, "meta") if name not in data.files]
            if missing:
                raise EpisodeError(f"{path}: missing field(s) {', '.join(missing)}")
            arrays = {name: data[name] for name in ARRAYS}
            meta_text = str(data["meta"])
    except unreadable as error:
        if isinstance(error, EpisodeError):
            raise
        raise EpisodeError(f"{path}: not an episode file ({type(error).__name__}: {str(error)[:200]})") from None
    try:
        meta = json.loads(meta_text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise EpisodeError(f"{path}: field meta is not JSON ({type(error).__name__})") from None
    missing = [key for key in REQUIRED_META if key not in meta]
    if missing:
        raise EpisodeError(f"{path}: meta lacks {', '.join(missing)}")
    if meta["schema"] != SCHEMA:
        raise EpisodeError(f"{path}: schema {meta['schema']!r}, this package reads schema {SCHEMA}")
    try:
        episode = Episode(**arrays, meta=meta)
    except EpisodeError as error:
        raise EpisodeError(f"{path}: {error}") from None
    if len(episode) != meta["length"]:
        raise EpisodeError(f"{path}: meta length {meta['length']} but {len(episode)} actions")
    return episode


def write_index(folder: str | Path) -> Path:
    """``folder/index.jsonl``: one line per episode file under ``folder`` (sorted by path) with its
    path relative to ``folder`` and its metadata; unreadable files raise ``EpisodeError``."""
    folder = Path(folder)
    rows = [{"file": str(path.relative_to(folder)), **load(path).meta} for path in sorted(folder.rglob("*.npz"))]
    index = folder / INDEX
    write_atomic(index, "".join(json.dumps(row) + "\n" for row in rows))
    return index


def read_index(folder: str | Path) -> list[dict]:
    """The rows of ``folder/index.jsonl`` (``write_index`` first if it is missing)."""
    index = Path(folder) / INDEX
    if not index.exists():
        write_index(folder)
    return [json.loads(line) for line in index.read_text().splitlines() if line.strip()]


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class Journal:
    """A live recording: ``begin`` writes the metadata line of ``<path>.jsonl``, ``append`` one line
    per step (flushed and fsynced: a dead server or browser loses nothing), ``close`` the episode
    file ``<path>.npz`` (then the journal is removed). ``open`` reads a journal back."""

    def __init__(self, path: Path, meta: dict, steps: list[dict] | None = None, written: bool = True):
        self.path, self.meta, self.steps, self.written = Path(path), meta, steps or [], written
        self.started = time.monotonic() - (self.steps[-1]["t_ms"] / 1000 if self.steps else 0.0)

    @classmethod
    def begin(cls, path: Path, meta: dict, lazy: bool = False) -> Journal:
        """A new journal at ``path`` (.jsonl); ``lazy``: its file is written with the first step, so an
        episode nobody plays leaves no file."""
        journal = cls(Path(path).with_suffix(".jsonl"), meta, written=False)
        if not lazy:
            journal._start()
        return journal

    def _start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write(json.dumps(self.meta) + "\n", mode="w")
        self.written = True

    @classmethod
    def open(cls, path: str | Path) -> Journal:
        """A journal read back; raises ``EpisodeError`` naming the file and line of a bad entry."""
        path = Path(path)
        lines = path.read_text().splitlines()
        steps = []
        try:
            meta = json.loads(lines[0])
        except (IndexError, json.JSONDecodeError) as error:
            raise EpisodeError(f"{path}: line 1 (metadata) is not JSON ({error})") from None
        for number, line in enumerate(lines[1:], start=2):
            try:
                step = json.loads(line)
                steps.append({key: step[key] for key in STEP_FIELDS.values()})
            except json.JSONDecodeError:
                if number == len(lines):  # a line cut by a crash mid-write: the step never completed
                    break
                raise EpisodeError(f"{path}: line {number} is not JSON") from None
            except (KeyError, TypeError) as error:
                raise EpisodeError(f"{path}: line {number} lacks field {error}") from None
        return cls(path, meta, steps)

    def _write(self, text: str, mode: str = "a") -> None:
        with self.path.open(mode) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

    def append(self, action: int, reward: float, terminated: bool, truncated: bool) -> None:
        step = {
            "action": int(action),
            "reward": float(reward),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "t_ms": int(1000 * (time.monotonic() - self.started)),
        }
        if not self.written:
            self._start()
        self.steps.append(step)
        self._write(json.dumps(step) + "\n")

    def arrays(self) -> dict[str, list]:
        """The steps so far as the episode's per-step arrays (``ARRAYS`` names, lists)."""
        return {name: [step[key] for step in self.steps] for name, key in STEP_FIELDS.items()}

    def so_far(self, meta: dict | None = None) -> Episode:
        """The steps so far as an ``Episode`` with the journal's metadata (or ``meta``)."""
        arrays: dict[str, np.ndarray] = {name: np.asarray(values, ARRAYS[name]) for name, values in self.arrays().items()}
        return Episode(**arrays, meta=self.meta if meta is None else meta)

    def episode(self, final_state_sha256: str, success: bool) -> Episode:
        meta = {
            **self.meta,
            "length": len(self.steps),
            "return": float(np.sum(self.arrays()["rewards"], dtype=np.float32)),
            "success": bool(success),
            "final_state_sha256": final_state_sha256,
        }
        return self.so_far(meta)

    def close(self, final_state_sha256: str, success: bool) -> Path:
        """Write the episode file beside the journal and remove the journal; returns the file."""
        path = self.episode(final_state_sha256, success).save(self.path.with_suffix(".npz"))
        self.path.unlink(missing_ok=True)
        return path
