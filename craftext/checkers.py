"""JIT-compiled scenario checkers: pure functions of per-step events, a goal encoding and memory.

**Events** (``step_events``) are computed once per step and shared by every checker: whether the
agent placed a block this step and where (a ``PLACE_*`` action whose own block now stands in the
facing cell, which held something else before), a 15 x 15 patch of the agent-placed blocks and of
all blocks centred on that cell, inventory gains, newly unlocked achievements, day or night, and
what the agent's observation shows of the map (``view``: dark cells of full Craftax are hidden). A
``placed`` map (one flag per cell of every floor) remembers which cells hold a block the agent put
there; only removing that block (mining or collecting it) clears the flag: a plant that ripens or
is eaten stays the agent's plant.

**Structures are event-driven.** A structure the agent builds becomes complete on the step it
places one of its blocks, so every structure check looks only at structures that contain the
cell just placed, inside the patch centred on it (next to the player, so the window is centred on
the player and holds the largest goal in every position through that cell). Checks are a few
hundred array lookups and two cumulative sums, never a scan over the map.

Component semantics (each documented where it is computed):

* line: at least ``size`` blocks in a row through the placed cell, horizontally or vertically
  ("straight"), along a diagonal ("diagonal") or either;
* square: a filled ``size`` x ``size`` square of blocks containing the placed cell;
* cross: a centre block with ``arm`` blocks in each of four directions, "+" (plus), "x" (diagonal)
  or either, containing the placed cell;
* relative placement: the object placed exactly ``distance`` cells on ``side`` of a target block
  (left/right = column -/+, up/down = row -/+ on the map), or the target placed there with the
  agent's object already at that offset;
* collecting: inventory increases of the item, counted from the moment the goal was set;
* achievements: the step at which each required achievement is first unlocked; a forbidden one
  fails the goal for good;
* time of day: night is a light level below 0.5;
* exploring: the block is in the agent's view now and was out of it at an earlier step or when
  the goal was set (``initial_memory`` looks at the view then).

Block matching: a goal's ``plant`` is any plant (a sapling or a ripe plant: a plant the agent put
down stays part of its structure when it ripens); ``ripe_plant`` is only a ripe plant.

Structures count only blocks the agent placed unless the goal's ``agent_built`` slot is 0 (then
natural blocks count too, but the structure must still contain a block placed this step).
**Memory** is ``MEMORY_SIZE`` int32 slots reset with the goal (``MEMORY_INIT``): the step a
structure / relative placement / collection first completed, counts of placed objects and
collected items, the first-unlock step of each required achievement, whether the forbidden
achievement was unlocked, and whether the explore target was ever out of view.

Achievements: Craftax unlocks each achievement once per episode, so a goal set mid-episode
(``set_goal``) that requires an achievement the agent has already unlocked cannot succeed in that
episode.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from jax import Array

from craftext import goals as G
from craftext.world import LIGHT_THRESHOLD, PLANT, RIPE_PLANT, Frame, Version

RADIUS = 7
PATCH = 2 * RADIUS + 1
T_STRUCT, T_PLACE, T_COLLECT, PLACED_COUNT, COLLECTED, T_ACH1, T_ACH2, T_ACH3, FORBIDDEN_SEEN, WAS_OUT_OF_VIEW = range(10)
MEMORY_SIZE = 10
MEMORY_INIT = np.array([-1, -1, -1, 0, 0, -1, -1, -1, 0, 0], dtype=np.int32)
NIGHT_LIGHT = 0.5


class Memory(NamedTuple):
    """A checker memory (MEMORY_SIZE,) int32 read by name: steps of first completion (-1: not
    yet), counts and flags."""

    t_structure: Array  # () the structure first completed
    t_placement: Array  # () the relative placement first completed
    t_collected: Array  # () the collection first reached its count
    placed_count: Array  # () objects of the goal placed (while placing counts)
    collected: Array  # () items of the goal collected (while collecting counts)
    t_achievements: Array  # (3,) each required achievement first unlocked
    forbidden_seen: Array  # () 1: the forbidden achievement was unlocked
    was_out_of_view: Array  # () 1: the explore block was out of view at some step

    @classmethod
    def of(cls, memory: Array) -> Memory:
        return cls(
            t_structure=memory[T_STRUCT],
            t_placement=memory[T_PLACE],
            t_collected=memory[T_COLLECT],
            placed_count=memory[PLACED_COUNT],
            collected=memory[COLLECTED],
            t_achievements=memory[T_ACH1 : T_ACH3 + 1],
            forbidden_seen=memory[FORBIDDEN_SEEN],
            was_out_of_view=memory[WAS_OUT_OF_VIEW],
        )

    def encode(self) -> Array:
        """(MEMORY_SIZE,) int32."""
        head = jnp.stack([self.t_structure, self.t_placement, self.t_collected, self.placed_count, self.collected])
        tail = jnp.stack([self.forbidden_seen, self.was_out_of_view])
        return jnp.concatenate([head.astype(jnp.int32), self.t_achievements.astype(jnp.int32), tail.astype(jnp.int32)])


@struct.dataclass
class StepEvents:
    """time: () step of the episode; placed: () bool, the agent put a block down; block: () the
    block now in the facing cell (the placed block when ``placed``); agent_patch / world_patch:
    (15, 15) int32 agent-placed / all block ids around the facing cell (0 outside the map or not
    agent-placed); gained: (8,) int32 inventory increases; unlocked: (A,) bool newly unlocked
    achievements; night: () bool; view: (rows, cols) int32 block ids the observation shows."""

    time: Array
    placed: Array
    block: Array
    agent_patch: Array
    world_patch: Array
    gained: Array
    unlocked: Array
    night: Array
    view: Array


def is_block(cells: Array, block: Array) -> Array:
    """Whether ``cells`` hold ``block`` (any shape, broadcast); a ripe plant is also a plant."""
    return (cells == block) | ((block == PLANT) & (cells == RIPE_PLANT))


def _window(grid: Array, centre: Array, rows: int, cols: int) -> tuple[Array, Array]:
    """(rows, cols) cells of ``grid`` (H, W) centred on ``centre`` and whether each is on the map."""
    r = centre[0] + jnp.arange(rows) - rows // 2
    c = centre[1] + jnp.arange(cols) - cols // 2
    valid = ((r >= 0) & (r < grid.shape[0]))[:, None] & ((c >= 0) & (c < grid.shape[1]))[None, :]
    rc = jnp.clip(r, 0, grid.shape[0] - 1)[:, None], jnp.clip(c, 0, grid.shape[1] - 1)[None, :]
    return grid[rc], valid


def observed_view(now: Frame, shape: tuple[int, int]) -> Array:
    """(rows, cols) block ids the agent's observation shows around it (0 off the map or in the dark)."""
    seen, valid = _window(now.floor_map, now.position, *shape)
    if now.light_map is not None:
        light, _ = _window(now.light_map, now.position, *shape)
        valid &= light > LIGHT_THRESHOLD
    return jnp.where(valid, seen, 0).astype(jnp.int32)


def initial_memory(encoding: Array, now: Frame, version: Version) -> Array:
    """(MEMORY_SIZE,) memory of a goal encoding set on the world ``now``: ``MEMORY_INIT``, with
    whether the goal's explore block is out of the agent's view at this moment."""
    visible = jnp.any(is_block(observed_view(now, version.view), G.GoalFields.of(encoding).explore_block))
    return jnp.asarray(MEMORY_INIT).at[WAS_OUT_OF_VIEW].set((~visible).astype(jnp.int32))


def block_kind(block: Array) -> Array:
    """A block id with ripe plants read as plants (ripening or being eaten keeps a plant a plant)."""
    return jnp.where(block == RIPE_PLANT, PLANT, block)


def step_events(prev: Frame, now: Frame, action: Array, placed_map: Array, time: Array, version: Version) -> tuple[StepEvents, Array]:
    """Events of the step ``prev -> now`` under ``action`` and the updated ``placed_map`` (same
    shape as the Craftax map: (H, W), or (floors, H, W) for full Craftax)."""
    h, w = now.floor_map.shape
    r, c = now.facing[0], now.facing[1]
    inside = (r >= 0) & (r < h) & (c >= 0) & (c < w) & (prev.floor == now.floor)
    rc, cc = jnp.clip(r, 0, h - 1), jnp.clip(c, 0, w - 1)
    before, after = prev.floor_map[rc, cc], now.floor_map[rc, cc]
    table = jnp.asarray(version.placed_block)
    own_block = jnp.where((action >= 0) & (action < table.shape[0]), table[jnp.clip(action, 0, table.shape[0] - 1)], -1)
    placed = inside & (before != after) & (after == own_block)
    removed = inside & (block_kind(before) != block_kind(after))
    cell = (rc, cc) if placed_map.ndim == 2 else (now.floor, rc, cc)
    placed_map = placed_map.at[cell].set(placed | (placed_map[cell] & ~removed))
    floor_placed = placed_map if placed_map.ndim == 2 else placed_map[now.floor]

    centre = jnp.stack([rc, cc])
    world, valid = _window(now.floor_map.astype(jnp.int32), centre, PATCH, PATCH)
    mine, _ = _window(floor_placed, centre, PATCH, PATCH)
    events = StepEvents(
        time=jnp.asarray(time, jnp.int32),
        placed=placed,
        block=after.astype(jnp.int32),
        agent_patch=jnp.where(valid & mine, world, 0),
        world_patch=jnp.where(valid, world, 0),
        gained=jnp.maximum(now.inventory - prev.inventory, 0),
        unlocked=now.achievements & ~prev.achievements,
        night=now.light < NIGHT_LIGHT,
        view=observed_view(now, version.view),
    )
    return events, placed_map


# ---------------------------------------------------------------- structure geometry (static tables)
def _flat(dr: int, dc: int) -> int:
    return (RADIUS + dr) * PATCH + (RADIUS + dc)


_BITS = np.int32(1) << np.arange(PATCH, dtype=np.int32)  # bit j of a row mask = column j


def _bits(cells: Array) -> Array:
    """(..., 15) bool -> (...,) int32 with bit j set where cell j is."""
    return (cells.astype(jnp.int32) * _BITS).sum(-1)


def _run_through_centre(bits: Array, reversed_bits: Array) -> Array:
    """Length of the run of set bits through bit ``RADIUS`` (0 if it is clear), from a 15-bit mask
    and the same mask with its bit order reversed. Trailing ones of x: popcount(x & ~(x + 1))."""

    def trailing_ones(x):
        return jax.lax.population_count(x & ~(x + 1))

    up, down = trailing_ones(bits >> RADIUS), trailing_ones(reversed_bits >> RADIUS)
    return jnp.where(up > 0, up + down - 1, 0)


_MAX_RUN = max(G.LINE_SIZES) - 1  # cells a structure reaches beyond the placed one
_MAX_ARM = max(G.CROSS_ARMS)
_CROSS_DIRECTIONS = (((0, 1), (0, -1), (1, 0), (-1, 0)), ((1, 1), (1, -1), (-1, 1), (-1, -1)))


def _cross_tables(directions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidate centres (the placed cell, or up to 3 cells back along an arm) and their cells.
    Returns cells (13 candidates, 13 cells) flat indices, the arm distance of each candidate centre
    and of each cell (0 = the centre)."""
    centres = [(0, 0, 0)] + [(-i * dr, -i * dc, i) for dr, dc in directions for i in range(1, _MAX_ARM + 1)]
    cells, cell_arm = [], []
    for cr, cc, _ in centres:
        row, arm = [_flat(cr, cc)], [0]
        for dr, dc in directions:
            for i in range(1, _MAX_ARM + 1):
                row.append(_flat(cr + i * dr, cc + i * dc))
                arm.append(i)
        cells.append(row)
        cell_arm.append(arm)
    return np.array(cells), np.array([c[2] for c in centres]), np.array(cell_arm)


_CROSSES = [_cross_tables(d) for d in _CROSS_DIRECTIONS]


def line_complete(mask: Array, size: Array, variant: Array) -> Array:
    """At least ``size`` consecutive blocks through the patch centre along an allowed direction
    (straight: the centre row or column; diagonal: either diagonal through the centre)."""
    lines = jnp.stack([mask[RADIUS], mask[:, RADIUS], jnp.diagonal(mask), jnp.diagonal(mask[:, ::-1])])  # (4, 15)
    runs = _run_through_centre(_bits(lines), _bits(lines[:, ::-1]))
    allowed = jnp.array([1, 1, 0, 0]) * (variant != G.DIAGONAL) + jnp.array([0, 0, 1, 1]) * (variant != G.STRAIGHT)
    return jnp.any((runs >= size) & (allowed > 0))


def square_complete(mask: Array, size: Array) -> Array:
    """A filled ``size`` x ``size`` square of blocks containing the patch centre: for each top row
    that keeps the centre row inside, the AND of ``size`` row masks must hold a run of ``size`` set
    bits through the centre column."""
    rows, reversed_rows = _bits(mask), _bits(mask[:, ::-1])  # (15,)
    tops = RADIUS - _MAX_RUN + np.arange(_MAX_RUN + 1)  # candidate top rows 1..7
    both = jnp.stack([rows, reversed_rows])
    spans = [both[:, tops]]  # spans[k][:, i]: AND of rows tops[i] .. tops[i] + k
    for k in range(1, _MAX_RUN + 1):
        spans.append(spans[-1] & both[:, tops + k])
    span = jnp.stack(spans)[jnp.clip(size - 1, 0, _MAX_RUN)]  # (2, 7)
    keeps_centre = tops + size - 1 >= RADIUS
    return jnp.any(keeps_centre & (_run_through_centre(span[0], span[1]) >= size))


def cross_complete(mask: Array, arm: Array, variant: Array) -> Array:
    """A centre block with ``arm`` blocks along each of four directions, containing the patch centre."""
    flat = mask.reshape(-1)
    found = []
    for kind, (cells, centre_arm, cell_arm) in enumerate(_CROSSES):
        needed = cell_arm <= arm
        complete = jnp.all(flat[cells] | ~needed, axis=1) & (centre_arm <= arm)
        allowed = (variant == kind) | (variant == 2)
        found.append(allowed & jnp.any(complete))
    return found[0] | found[1]


_SIDE_STEPS = np.array([[0, -1], [0, 1], [-1, 0], [1, 0]], dtype=np.int32)  # left, right, up, down


def relative_placement(events: StepEvents, goal: G.GoalFields) -> Array:
    """The object placed ``distance`` cells on ``side`` of a target block, or the target placed with
    the agent's object already there."""
    step = jnp.asarray(_SIDE_STEPS)[jnp.clip(goal.place_side, 0, 3)] * goal.place_distance
    target_at = events.world_patch[RADIUS - step[0], RADIUS - step[1]]
    object_at = events.agent_patch[RADIUS + step[0], RADIUS + step[1]]
    as_object = (events.block == goal.place_object) & is_block(target_at, goal.place_target)
    as_target = (events.block == goal.place_target) & is_block(object_at, goal.place_object)
    return events.placed & (goal.place_distance > 0) & (as_object | as_target)


def structure_complete(events: StepEvents, goal: G.GoalFields) -> Array:
    """The goal's structure completed by the block placed this step."""
    patch = jnp.where(goal.agent_built > 0, events.agent_patch, events.world_patch)
    mask = is_block(patch, goal.structure_block)
    size, variant, kind = goal.structure_size, goal.structure_variant, goal.structure_kind
    done = jnp.select(
        [kind == G.LINE, kind == G.SQUARE, kind == G.CROSS],
        [line_complete(mask, size, variant), square_complete(mask, size), cross_complete(mask, size, variant)],
        False,
    )
    return events.placed & done


def update(encoding: Array, memory: Array, events: StepEvents) -> tuple[Array, Array]:
    """One step of the checker of a goal encoding (ENCODING_SIZE,) with its memory (MEMORY_SIZE,):
    ``(success, memory)``."""
    goal, m, t = G.GoalFields.of(encoding), Memory.of(memory), events.time
    S = G.Scenario

    def unlocked(index):
        return (index >= 0) & events.unlocked[jnp.clip(index, 0, events.unlocked.shape[0] - 1)]

    def first(step, happened):
        return jnp.where((step < 0) & happened, t, step)

    gain = jnp.where(goal.item >= 0, events.gained[jnp.clip(goal.item, 0, events.gained.shape[0] - 1)], 0)
    collecting = jnp.where(goal.scenario == S.PLACE_THEN_COLLECT, m.placed_count >= goal.object_count, True)
    collected = m.collected + jnp.where(collecting, gain, 0)
    t_collected = first(m.t_collected, (goal.item_count > 0) & (collected >= goal.item_count))
    placing = jnp.where(goal.scenario == S.COLLECT_THEN_PLACE, m.t_collected >= 0, True)
    placed_object = events.placed & (events.block == goal.place_object)
    placed_count = m.placed_count + (placed_object & placing)
    building = jnp.where(goal.scenario == S.COLLECT_THEN_LINE, m.t_collected >= 0, True)
    t_structure = first(m.t_structure, structure_complete(events, goal) & building)
    t_placement = first(m.t_placement, relative_placement(events, goal))
    t_ach = [first(m.t_achievements[i], unlocked(goal.required[i])) for i in range(3)]
    forbidden = (m.forbidden_seen > 0) | unlocked(goal.forbidden)
    visible = jnp.any(is_block(events.view, goal.explore_block))

    required = [(goal.required[i] < 0) | (t_ach[i] >= 0) for i in range(3)]
    in_order = ((goal.required[1] < 0) | (t_ach[0] < t_ach[1])) & ((goal.required[2] < 0) | (t_ach[1] < t_ach[2]))
    achieved = required[0] & required[1] & required[2] & ~forbidden & ((goal.ordered == 0) | in_order)
    craft, item = t_ach[0], t_collected
    craft_order = (craft >= 0) & (item >= 0) & jnp.where(goal.ordered == 0, craft < item, craft > item)
    success_by_scenario = jnp.stack(
        [
            achieved,  # ACHIEVEMENTS
            t_structure >= 0,  # BUILD_LINE
            t_structure >= 0,  # BUILD_SQUARE
            t_structure >= 0,  # BUILD_CROSS
            t_placement >= 0,  # PLACE_RELATIVE
            placed_count >= goal.object_count,  # COLLECT_THEN_PLACE
            (placed_count >= goal.object_count) & (t_collected >= 0),  # PLACE_THEN_COLLECT
            craft_order,  # CRAFT_ORDER
            (t_structure >= 0) & (t_placement >= 0),  # LINE_AND_PLACE
            t_structure >= 0,  # COLLECT_THEN_LINE
            (t_structure >= 0) & (t_collected >= 0),  # COLLECT_AND_SQUARE
            placed_object & (events.night == (goal.night > 0)),  # TIME_PLACE
            visible & (m.was_out_of_view > 0),  # EXPLORE
        ]
    )
    updated = Memory(
        t_structure=t_structure,
        t_placement=t_placement,
        t_collected=t_collected,
        placed_count=placed_count,
        collected=collected,
        t_achievements=jnp.stack(t_ach),
        forbidden_seen=forbidden,
        was_out_of_view=(m.was_out_of_view > 0) | ~visible,
    )
    return success_by_scenario[goal.scenario], updated.encode()
