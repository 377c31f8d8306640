"""Agents behind one protocol, found by the kind of their run folder.

An ``Agent`` plays a ``World`` one step at a time: ``name``, ``reset(seed)`` and ``act(obs, t) ->
action``. That is all ``python -m baselines.episodes record --policy agent`` (and through its
episode files the player's replays, videos and the arena) and ``python -m baselines.evaluate``
(on the host, ``baselines.evaluate.play_on_host``) need. ``load_agent(run, world)`` reads the run
folder's kind (the ``kind`` of its ``config.json``) and calls the loader of that kind:

- the suite's own: ``ppo``, ``bc`` and ``dagger`` (PPO-T / FiLM policies,
  ``baselines.episodes.agent.PolicyAgent``) and ``painter`` (``baselines.painter.agent``);
- one another distribution declares under the entry-point group ``instructworlds.agents``
  (``[project.entry-points."instructworlds.agents"] mykind = "package.module:load"``);
- one registered at run time: ``register_agent(kind, loader)``, or ``registered_agent`` for the
  length of a ``with`` block.

A loader is ``loader(run: Path, world: World, greedy: bool) -> Agent``. Loaders are named as
``"module:attribute"`` text until used, so this module imports no agent.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import pkgutil
import warnings
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from baselines.worlds.session import World

ENTRY_POINTS = "instructworlds.agents"
"""The entry-point group through which another distribution declares an agent kind's loader."""


@runtime_checkable
class Agent(Protocol):
    """What plays a world one step at a time."""

    name: str
    """How episode files, the arena and evaluation tables name it."""

    def reset(self, seed: int) -> None:
        """The next ``act`` starts the episode of ``seed``."""

    def act(self, obs: Any, t: int) -> int:
        """The action (an int in ``[0, num_actions)``) for observation ``obs`` (one world's, unbatched)
        at step ``t`` of the episode."""


AgentLoader = Callable[[Path, "World", bool], Agent]
_LOADERS: dict[str, AgentLoader | str] = {
    "ppo": "baselines.episodes.agent:PolicyAgent",
    "bc": "baselines.episodes.agent:PolicyAgent",
    "dagger": "baselines.episodes.agent:PolicyAgent",
    "painter": "baselines.painter.agent:load",
}
_entry_points_loaded = False


def _loaders() -> dict[str, AgentLoader | str]:
    """Every kind's loader, the installed distributions' (``ENTRY_POINTS``) added on the first call;
    one that clashes with a kind already there is left out with a warning naming it."""
    global _entry_points_loaded
    if not _entry_points_loaded:
        _entry_points_loaded = True
        for point in metadata.entry_points(group=ENTRY_POINTS):
            if point.name in _LOADERS:
                warnings.warn(f"agent entry point {point.name} = {point.value!r} left out: kind {point.name!r} is taken", stacklevel=2)
            else:
                _LOADERS[point.name] = point.value
    return _LOADERS


def agent_kinds() -> tuple[str, ...]:
    """The run kinds whose folders hold an agent, in registration order."""
    return tuple(_loaders())


def register_agent(kind: str, loader: AgentLoader | str) -> None:
    """Add the loader of the run folders of ``kind``; ValueError if the kind is taken."""
    if kind in _loaders():
        raise ValueError(f"agent kind {kind!r} is already registered")
    _LOADERS[kind] = loader


@contextlib.contextmanager
def registered_agent(kind: str, loader: AgentLoader | str) -> Iterator[None]:
    """``register_agent(kind, loader)`` for the length of a ``with`` block."""
    register_agent(kind, loader)
    try:
        yield
    finally:
        del _LOADERS[kind]


def run_folder_kind(run: str | Path) -> str:
    """The kind of the run in folder ``run``: its ``config.json``'s ``kind`` when an agent kind has
    that name, else the suite's reading of the folder (``baselines.worlds.checkpoints.run_kind``, which
    also tells folders written before kinds were recorded); ValueError naming the folder otherwise."""
    path = Path(run) / "config.json"
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        saved = None
    kind = saved.get("kind") if isinstance(saved, dict) else None
    if kind in _loaders():
        return kind
    from baselines.worlds.checkpoints import RUN_KINDS, run_kind

    if isinstance(kind, str) and kind not in RUN_KINDS:
        close = difflib.get_close_matches(kind, [*agent_kinds(), *RUN_KINDS], n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ValueError(f"{path}: kind {kind!r} is neither a run of this suite nor a registered agent kind{hint}")
    return run_kind(run)


def agent_kind(run: str | Path) -> str:
    """The kind of run folder ``run`` (``run_folder_kind``); ValueError naming the folder for a
    run whose kind holds no agent."""
    kind = run_folder_kind(run)
    if kind not in _loaders():
        close = difflib.get_close_matches(kind, agent_kinds(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        kinds = ", ".join(agent_kinds())
        raise ValueError(f"{run}: a {kind} run holds no agent that plays a world step by step; agent kinds: {kinds}{hint}")
    return kind


def load_agent(run: str | Path, world: World, greedy: bool = False) -> Agent:
    """The agent of run folder ``run`` playing ``world`` (``greedy``: the most likely action where
    the agent samples); ValueError naming the folder for a run whose kind holds no agent."""
    kind = agent_kind(run)
    loader = _loaders()[kind]
    if isinstance(loader, str):
        try:
            loader = pkgutil.resolve_name(loader)
        except (ImportError, AttributeError, ValueError) as error:
            raise ValueError(f"{run}: the loader of agent kind {kind!r}, {loader!r}, cannot be imported: {error}") from None
    agent = loader(Path(run), world, greedy)
    if not isinstance(agent, Agent):
        raise TypeError(f"the loader of agent kind {kind!r} gave a {type(agent).__name__}, which lacks name, reset or act")
    return agent
