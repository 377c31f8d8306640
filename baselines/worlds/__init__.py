"""The suite layer: the registry of the worlds (``baselines.worlds.registry``, re-exported here),
what a family declares (``base``: ``WorldFamily``, the env-hook protocols), one module per family
(``craftext``, ``hexagons``, ``blocksworld``), the observation interface of the agents (``task``),
the episode session (``session``: ``World``), the episode file format with its key rule
(``episode``) and its recording and exact replay (``replay``), and the agents behind one
protocol, found by the kind of their run folder (``agents``: ``Agent``, ``load_agent``).
"""

from typing import Any

from baselines.worlds.base import (
    Benchmark,
    Evaluation,
    ExpertGap,
    Presets,
    Protocols,
    Questions,
    Reference,
    References,
    Setting,
    WorldFamily,
)
from baselines.worlds.registry import (
    DEFAULT_ENV,
    MAX_EPISODE_STEPS,
    UnknownWorldError,
    add_world_arguments,
    aliases,
    check_spec,
    check_splits,
    episode_limit,
    eval_splits,
    families,
    family_of,
    find_family,
    ids,
    make_task,
    presets,
    presets_of,
    register,
    registered,
    resolve,
    settings,
    spec_defaults,
    spec_from_args,
    spec_task,
    split_episodes,
    world_spec,
)

__all__ = [
    "DEFAULT_ENV",
    "MAX_EPISODE_STEPS",
    "Benchmark",
    "Evaluation",
    "ExpertGap",
    "Presets",
    "Protocols",
    "Questions",
    "Reference",
    "References",
    "Setting",
    "Task",
    "UnknownWorldError",
    "World",
    "WorldFamily",
    "add_world_arguments",
    "aliases",
    "check_spec",
    "check_splits",
    "episode_limit",
    "eval_splits",
    "families",
    "family_of",
    "find_family",
    "ids",
    "make_task",
    "presets",
    "presets_of",
    "register",
    "registered",
    "resolve",
    "settings",
    "spec_defaults",
    "spec_from_args",
    "spec_task",
    "split_episodes",
    "world_spec",
]


def __getattr__(name: str) -> Any:
    """``Task`` and ``World`` on first use (they import JAX)."""
    if name == "Task":
        from baselines.worlds.task import Task

        return Task
    if name == "World":
        from baselines.worlds.session import World

        return World
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
