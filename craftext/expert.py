"""A scripted expert for CrafText's simplest goals: a demonstrator for behavioural cloning and for
imitation on the agent's own rollouts.

It covers ``ACHIEVEMENTS`` goals whose required achievements are all in ``COVERED`` (collect wood,
collect a sapling, drink water, place a crafting table), in either Craftax version, with any
forbidden achievement (the expert never does anything but its own targets). It is privileged: it
reads the whole map of the player's floor, not the observation.

Each step the first required achievement not unlocked yet picks a target and an action: a tree
and ``DO`` (wood), grass and ``DO`` (a sapling drops with probability 0.1 per try), water and
``DO`` (drink), and for a table first wood until the inventory holds the 2 it costs, then
``PLACE_TABLE`` onto grass, sand or path. Facing a target cell with no creature in it, the expert
takes the action; next to one, it turns (or steps) towards it; otherwise it takes the first step
of a shortest walk over grass, sand and path to a cell next to a target (a distance field relaxed
``REACH`` times, so targets further than ``REACH`` steps are not seen); with none in reach it walks
in a direction that changes every 8 steps. Goals it does not cover (``covers``) get ``NOOP``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from craftext.goals import ACHIEVE_1, ACHIEVE_2, ACHIEVE_3, SCENARIO, Goal, Scenario
from craftext.world import FACING, NOOP, frame, version

COVERED = ("collect_wood", "collect_sapling", "collect_drink", "place_table")
"""Achievements the expert can unlock."""
TARGETS = {"collect_wood": ("tree",), "collect_sapling": ("grass",), "collect_drink": ("water",), "place_table": ("grass", "sand", "path")}
"""Blocks each achievement's action is aimed at."""
ACTIONS = {"collect_wood": 5, "collect_sapling": 5, "collect_drink": 5, "place_table": 8}
"""The action that unlocks it when facing a target: DO (5) or PLACE_TABLE (8), the same ids in both versions."""
WALKABLE = ("grass", "sand", "path")
TABLE_WOOD = 2  # wood a crafting table costs in both versions
REACH = 32  # steps of the distance field
FAR = 10_000


def covers(goal: Goal) -> bool:
    """Whether the expert plays ``goal``: an achievements goal whose required ones are all ``COVERED``."""
    return goal.scenario == Scenario.ACHIEVEMENTS and all(name in COVERED for name in goal.arguments["required"])


class _Tables:
    """Per Craftax version: achievement id -> (block id -> is a target), its action, whether it is
    covered; block id -> walkable."""

    def __init__(self, classic: bool):
        v = version(classic)
        num_blocks = max(v.blocks.values()) + 1
        num_achievements = max(v.achievements.values()) + 1
        self.targets = np.zeros((num_achievements, num_blocks), bool)
        self.action = np.full(num_achievements, NOOP, np.int32)
        self.covered = np.zeros(num_achievements, bool)
        for name in COVERED:
            a = v.achievements[name]
            self.targets[a, [v.blocks[b] for b in TARGETS[name]]] = True
            self.action[a], self.covered[a] = ACTIONS[name], True
        self.walkable = np.zeros(num_blocks, bool)
        self.walkable[[v.blocks[b] for b in WALKABLE]] = True
        self.wood, self.table = v.achievements["collect_wood"], v.achievements["place_table"]


_TABLES = {classic: _Tables(classic) for classic in (True, False)}


def _shift(grid: Array, step: Array, fill) -> Array:
    """grid[r + step_r, c + step_c] for every (r, c), ``fill`` outside (step: a static (2,) offset)."""
    h, w = grid.shape
    padded = jnp.pad(grid, 1, constant_values=fill)
    return jax.lax.dynamic_slice(padded, (1 + step[0], 1 + step[1]), (h, w))


def distance_to(targets: Array, walkable: Array) -> Array:
    """(H, W) int32: steps over ``walkable`` cells from each cell to a walkable cell next to a
    ``targets`` cell (0 there), ``FAR`` where none is within ``REACH`` steps."""
    beside = jnp.zeros_like(targets)
    for d in range(1, 5):
        beside |= _shift(targets, FACING[d], False)
    start = jnp.where(walkable & beside, 0, FAR)

    def relax(_, dist):
        nearest = jnp.stack([_shift(dist, FACING[d], FAR) for d in range(1, 5)]).min(0)
        return jnp.where(walkable, jnp.minimum(dist, nearest + 1), FAR)

    return jax.lax.fori_loop(0, REACH, relax, start)


def expert_action(craftax_state, goal: Array, classic: bool) -> Array:
    """() int32: the expert's action in a Craftax state for a goal encoding (20,) (module docstring)."""
    tables, f = _TABLES[classic], frame(craftax_state, classic)
    required = goal[jnp.asarray([ACHIEVE_1, ACHIEVE_2, ACHIEVE_3])]
    pending = (required >= 0) & ~f.achievements[jnp.maximum(required, 0)]
    achievement = required[jnp.argmax(pending)]
    playable = (goal[SCENARIO] == Scenario.ACHIEVEMENTS) & pending.any() & jnp.all(~pending | jnp.asarray(tables.covered)[jnp.maximum(required, 0)])
    achievement = jnp.where((achievement == tables.table) & (f.inventory[0] < TABLE_WOOD), tables.wood, jnp.maximum(achievement, 0))

    mobs = craftax_state.mob_map if classic else craftax_state.mob_map[f.floor]
    grid = f.floor_map
    h, w = grid.shape
    targets = jnp.asarray(tables.targets)[achievement][grid] & ~mobs
    walkable = jnp.asarray(tables.walkable)[grid]

    def at(cells: Array, position: Array):
        inside = (position >= 0).all() & (position < jnp.asarray([h, w])).all()
        return inside & cells[jnp.clip(position[0], 0, h - 1), jnp.clip(position[1], 0, w - 1)]

    neighbours = f.position + FACING[1:]  # (4, 2): left, right, up, down
    target_beside = jax.vmap(lambda p: at(targets, p))(neighbours)
    dist = distance_to(targets, walkable)
    step_cost = jax.vmap(lambda p: jnp.where(at(walkable, p), dist[jnp.clip(p[0], 0, h - 1), jnp.clip(p[1], 0, w - 1)], FAR))(neighbours)
    wander = 1 + (jnp.asarray(craftax_state.timestep, jnp.uint32) // 8 * jnp.uint32(2654435761) >> 16) % 4
    move = jnp.where(step_cost.min() < FAR, 1 + jnp.argmin(step_cost), wander)
    action = jnp.where(at(targets, f.facing), jnp.asarray(tables.action)[achievement],
                       jnp.where(target_beside.any(), 1 + jnp.argmax(target_beside), move))
    return jnp.where(playable, action, NOOP).astype(jnp.int32)
