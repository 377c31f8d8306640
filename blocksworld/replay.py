"""Replay of BAP items' gold actions through the JAX env, and an executable action order.

The corpus records the actions of one snapshot diff sorted by (x, y, z) (placements, then
removals), so some gold sequences are infeasible in recorded order: a placement before the block
that supports it, or a recolour whose placement comes before its removal. ``executable_order``
reorders actions **within each snapshot's diff** only: removals first, then placements, each next
placement the first one that is supported. The env treats infeasible actions as no-ops, so a
sequence that stays infeasible ends on a different structure; ``replay_in_env`` reports which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from blocksworld.grid import PICK, STOP, Action, apply_action, encode_action, to_grid
from blocksworld.item import BapItem

if TYPE_CHECKING:
    from blocksworld.env import BlocksWorld, EnvParams


def executable_order(item: BapItem) -> tuple[Action, ...]:
    """The item's actions, reordered within each snapshot so that each is feasible when possible."""
    grid = to_grid(item.start)
    ordered: list[Action] = []
    groups: dict[int, list[Action]] = {}
    for action, state in zip(item.actions, item.action_states):
        groups.setdefault(state, []).append(action)
    for state in sorted(groups):
        pending = [a for a in groups[state] if a[0] == PICK] + [a for a in groups[state] if a[0] != PICK]
        while pending:
            j = next((j for j, a in enumerate(pending) if apply_action(grid.copy(), a)), 0)
            apply_action(grid, pending[j])
            ordered.append(pending.pop(j))
    return tuple(ordered)


def feasible_in_order(item: BapItem, actions: Sequence[Action]) -> bool:
    grid = to_grid(item.start)
    return all(apply_action(grid, a) for a in actions)


def replay_in_env(env: BlocksWorld, params: EnvParams, sequences: Sequence[Sequence[Action]]) -> np.ndarray:
    """End grids (N, 11, 9, 11) of action sequences run by ``env.step_env`` from items 0..N-1."""
    length = max(1, max(len(s) for s in sequences))
    codes = np.full((len(sequences), length), STOP, np.int32)
    for i, seq in enumerate(sequences):
        codes[i, : len(seq)] = [encode_action(a) for a in seq]

    @jax.jit
    def run(items, codes, params):
        _, state = jax.vmap(env.reset_to_item, in_axes=(0, None))(items, params)

        def body(state, action):
            keys = jax.random.split(jax.random.key(0), len(items))
            _, state, *_ = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(keys, state, action, params)
            return state, None

        state, _ = jax.lax.scan(body, state, codes.T)
        return state.grid

    return np.asarray(run(jnp.arange(len(sequences)), jnp.asarray(codes), params))


def replay_report(env: BlocksWorld, params: EnvParams, items: Sequence[BapItem]) -> dict[str, int]:
    """How many items are infeasible in recorded order, and how many end on their recorded end
    structure when replayed in the env in recorded and in executable order."""
    ends = np.stack([to_grid(i.end) for i in items])
    recorded = replay_in_env(env, params, [i.actions for i in items])
    reordered = [executable_order(i) for i in items]
    executable = replay_in_env(env, params, reordered)
    same = lambda grids: (grids == ends).reshape(len(items), -1).all(1)  # noqa: E731
    return {
        "items": len(items),
        "infeasible_recorded_order": sum(not feasible_in_order(i, i.actions) for i in items),
        "infeasible_executable_order": sum(not feasible_in_order(i, a) for i, a in zip(items, reordered)),
        "env_end_matches_recorded_order": int(same(recorded).sum()),
        "env_end_matches_executable_order": int(same(executable).sum()),
    }
