"""CrafText: the Craftax worlds with natural-language instructions and JIT-compiled checkers.

``make("CrafText-Classic-Symbolic-v1")`` gives ``(env, params)`` over the shipped medium training
set; ``craftext.Goal`` builds goals; ``craftext.start`` / ``craftext.check`` validate a goal against
Craftax states without the env.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence

import jax.numpy as jnp
from flax import struct
from jax import Array

from craftext.checkers import initial_memory, step_events, update
from craftext.env import CrafText, EnvParams, EnvState, Observation
from craftext.goals import Goal, GoalError, Scenario
from craftext.tokenizer import Vocabulary
from craftext.world import frame, version

REGISTERED_IDS = {
    "CrafText-Classic-Symbolic-v1": (True, False),
    "CrafText-Classic-Pixels-v1": (True, True),
    "CrafText-Symbolic-v1": (False, False),
    "CrafText-Pixels-v1": (False, True),
}

__all__ = [
    "REGISTERED_IDS",
    "CrafText",
    "EnvParams",
    "EnvState",
    "Goal",
    "GoalError",
    "Observation",
    "Progress",
    "Scenario",
    "Vocabulary",
    "check",
    "make",
    "start",
]


def make(
    env_id: str,
    goals: Sequence[tuple[Goal, Sequence[str]]] | str | os.PathLike | None = None,
    vocabulary: Vocabulary | None = None,
    *,
    level: str = "medium",
    split: str = "train",
    max_tokens: int = 72,
    **settings,
) -> tuple[CrafText, EnvParams]:
    """Build a registered CrafText env and its params.

    goals: ``(Goal, phrasings)`` pairs, or the path of a goal file (``craftext.goalfile``; its
        ``split`` goals), default: the shipped dataset's ``level`` / ``split`` for this Craftax
        version. vocabulary: token ids (default: the shipped vocabulary, which also covers
        every test split). settings: ``craftax_reward_scale``, ``max_steps_in_episode``.
    """
    if not isinstance(env_id, str) or env_id not in REGISTERED_IDS:
        close = difflib.get_close_matches(env_id, list(REGISTERED_IDS), n=3, cutoff=0.4) if isinstance(env_id, str) else []
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown CrafText env id {env_id!r}.{hint} Registered: {', '.join(REGISTERED_IDS)}")
    classic, pixels = REGISTERED_IDS[env_id]
    if isinstance(goals, (str, os.PathLike)):
        from craftext.goalfile import split_pairs

        goals = split_pairs(goals, classic, split)
    if goals is None or vocabulary is None:
        from craftext import dataset

        if goals is None:
            goals = dataset.load(level, split, classic=classic).pairs()
        if vocabulary is None:
            vocabulary = dataset.vocabulary()
    env = CrafText(vocabulary, classic=classic, pixels=pixels, max_tokens=max_tokens)
    return env, env.make_params(goals, **settings)


@struct.dataclass
class Progress:
    """Checker state of one goal: memory (10,) int32, the agent-placed map, the step counter."""

    memory: Array
    placed: Array
    time: Array


def _encoding(goal: Goal | Array) -> Array:
    return jnp.asarray(goal.encode() if isinstance(goal, Goal) else goal, jnp.int32)


def start(goal: Goal | Array, world_state, classic: bool = True) -> Progress:
    """Fresh progress of ``goal`` set on ``world_state`` (a Craftax ``EnvState``): what is in view
    now is recorded (an explore goal needs its block to come into view later). Jittable."""
    memory = initial_memory(_encoding(goal), frame(world_state, classic), version(classic))
    return Progress(memory, jnp.zeros(world_state.map.shape, bool), jnp.int32(0))


def check(goal: Goal | Array, progress: Progress, prev_state, action: int | Array, state, classic: bool = True) -> tuple[Array, Progress]:
    """Advance the checker of ``goal`` over the Craftax transition ``prev_state --action--> state``.

    Returns ``(success, progress)``. Pure and jittable; ``goal`` may be a ``Goal`` or its encoding.
    """
    time = progress.time + 1
    events, placed = step_events(
        frame(prev_state, classic), frame(state, classic), jnp.asarray(action, jnp.int32), progress.placed, time, version(classic)
    )
    success, memory = update(_encoding(goal), progress.memory, events)
    return success, Progress(memory, placed, time)
