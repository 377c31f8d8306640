"""A goal's checker over Craftax transitions without the env: ``start`` and ``check`` (exported
as ``craftext.start`` / ``craftext.check``)."""

from __future__ import annotations

import jax.numpy as jnp
from flax import struct
from jax import Array

from craftext.checkers import initial_memory, step_events, update
from craftext.goals import Goal
from craftext.world import frame, version


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
