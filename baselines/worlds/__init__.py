"""The registry of the suite's worlds: the one place outside the world packages that knows them.

Each world package registers its env ids (``REGISTERED_IDS``); each family module here
(``craftext``, ``hexagons``, ``blocksworld``) turns them into a ``WorldFamily`` with what the tools
need. Every command and tool asks this module: ``family_of(env_id)`` (an unknown id is one
``UnknownWorldError`` naming the close ones), ``make_task``, ``split_episodes`` / ``spec_task`` of a
world spec, ``add_world_arguments(parser)`` for the flags that choose a world, ``presets()``.
A new world joins with ``register(WorldFamily(...))`` (see CONTRIBUTING.md).

A *world spec* is the dict of settings that chooses a world and its episodes: ``env``, every
family's settings (``--level``, ``--data``, ...) and ``max_episode_steps``; what a training run
saves and an episode file records to rebuild its world (``world_spec`` fills the defaults).
"""

from typing import Any

from baselines.worlds.base import Benchmark, Questions, Reference, Setting, WorldFamily
from baselines.worlds.registry import (
    DEFAULT_ENV,
    MAX_EPISODE_STEPS,
    UnknownWorldError,
    add_world_arguments,
    aliases,
    check_spec,
    eval_splits,
    families,
    family_of,
    find_family,
    ids,
    make_task,
    presets,
    register,
    resolve,
    settings,
    spec_defaults,
    spec_from_args,
    spec_task,
    split_episodes,
    world_spec,
)

__all__ = ["DEFAULT_ENV", "MAX_EPISODE_STEPS", "Benchmark", "Questions", "Reference", "Setting", "Task", "UnknownWorldError", "World",
           "WorldFamily", "add_world_arguments", "aliases", "check_spec", "eval_splits", "families", "family_of", "find_family", "ids",
           "make_task", "presets", "register", "resolve", "settings", "spec_defaults", "spec_from_args", "spec_task", "split_episodes",
           "world_spec"]


def __getattr__(name: str) -> Any:
    """``Task`` and ``World`` on first use (they import JAX)."""
    if name == "Task":
        from baselines.worlds.task import Task

        return Task
    if name == "World":
        from baselines.worlds.session import World

        return World
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
