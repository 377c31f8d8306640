"""A scripted, privileged CrafText expert: a planner on the real Craftax dynamics for every
scenario, used to check that goals are feasible (``craftext.validate``), as a demonstrator for
behavioural cloning and for imitation on the agent's own rollouts.

It reads the whole map of the player's floor, the inventory, the agent-placed map and the goal's
checker memory (which phase of a conditional goal is done), never the observation. Each step:

1. **Objective** from the goal: gather an item (wood from trees, stone / coal /
   iron / diamond by mining, a sapling from grass, a drink from water), craft a tool, place an
   object anywhere, place it on a given cell, wait (for night or day), or wander (to lose sight of
   a block before exploring for it). Achievements goals pursue their first required achievement
   not unlocked yet; conditional and combined goals follow the checker memory's phases.
2. **Prerequisites** (resolved in a fixed number of rounds, enough for the longest chain): mining needs the pickaxe of
   its tier, crafting needs its materials, a crafting table nearby (one is placed: 2 wood) and for
   iron tools a furnace nearby (1 stone), placing needs the object's cost in the inventory (a table
   2 wood, stone or a furnace 1 stone, a plant 1 sapling). All materials, stations included, are
   gathered before the first is placed, so the agent crafts where it builds its table; a
   structure's blocks too, up to the 9 of an item the inventory holds (then in batches).
3. **Placing on a cell** (structures, relative placement): the cell ``X`` is faced from the cell
   below it (``N``), reached by stepping up from the cell below that (``P``), so every target cell
   is entered from the same side and the agent never stands where it must place. A structure is
   laid out row by row from its top (lines straight or diagonal, filled squares, "+" or "x"
   crosses; "either" builds the straight / "+" form) at the anchor where the cells it has already
   placed are a prefix of the layout and every other cell, with its ``N`` and ``P``, is open ground
   (the nearest such anchor when nothing is placed yet), searched within ``WINDOW`` cells of the
   agent. A relative placement takes the nearest target block (within ``WINDOW`` cells) whose
   offset cell and approach from any side are open, walks towards the target when none is, and
   places the target first if the world has none and it can be placed.
4. **Moving**: a shortest walk (distance field relaxed ``REACH`` times) over grass, sand and path,
   and once the agent holds a pickaxe also through natural stone, which it mines on the way;
   with nothing in reach it walks in a direction that changes every 8 steps, onto open ground only
   (Craftax lets a player walk into lava, which kills).
5. **Sight** (``sight=True``): the expert looks for blocks, targets of placements and cows only in
   the agent's view (7 x 9 cells in Classic, lit ones in full Craftax) and, with nothing in view
   to go for, walks on the way it faces while that is open ground: an expert whose choices the
   observation determines, for an agent to imitate. Its own structure's blocks it remembers.

To stay alive it drinks when its drink level is ``THIRSTY`` or lower, hunts a cow when hungry
(unless the goal forbids it), hits back a zombie next to it, and when its energy is ``TIRED`` or
lower walls itself in and sleeps. Craftax turns a player only by moving it (or against a blocked
cell), so a player cannot face an open cell it stands beside; the expert sleeps in a two-cell
pocket ``B -> A -> S`` in a line whose other neighbours are all walls (stone, water, trees, ...; it
digs ``A`` and ``S`` out of stone): it walks from ``B`` through ``A`` into ``S``, steps back onto
``A`` (now facing ``B``), places a stone on ``B`` and sleeps where no zombie can reach it (a
sleeping player takes 7 damage from a zombie, an awake one 2). Awake, it mines the stone in front
to leave; with no pocket within ``WINDOW`` cells it walks on, and sleeps in the open at energy 0.
It sleeps only when tired: sheltering every night, and a wood sword crafted at its first table,
both lowered its completion of the Hard goals (60% of 128 episodes against 64%).

``covers`` says which goals it plays; others get ``NOOP``: it does not play goals that require
fighting, eating or sleeping (``eat_cow``, ``defeat_zombie``, ``eat_plant``, ``wake_up``, ...) or
full Craftax's floors below the overworld. A goal it misses may still be feasible.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax import constants as full_constants
from craftax.craftax_classic import constants as classic_constants
from jax import Array

from craftext import checkers as C
from craftext.goals import CROSS, CROSS_ARMS, LINE, LINE_SIZES, SQUARE, SQUARE_SIZES, Goal, GoalFields, Scenario
from craftext.world import FACING, ITEMS, LIGHT_THRESHOLD, NOOP, PLACEABLE, frame, version

DO = 5
REACH = 32  # steps of the distance field
SIGHT_REACH = 16  # steps of the distance field of the expert limited to the agent's view (targets within 7 cells)
CARRY = 9  # Craftax's inventory holds at most 9 of an item
FAR = 10_000
PAD = 10  # cells a layout offset, with its approach, reaches from its anchor
WINDOW = 10  # structures and relative placements are planned within this many cells of the agent
GATHER, CRAFT, PLACE_ANY, PLACE_AT, WAIT, WANDER, UNCOVERED, SLEEP = range(8)
DRINK, MEAT = len(ITEMS), len(ITEMS) + 1  # pseudo items: a drink of water, a cow eaten
VISIT = -1  # the argument of GATHER that walks to the goal's explore or target block and does nothing there
THIRSTY = HUNGRY = TIRED = 3  # at this drink / food / energy level (of 9) the expert drinks / hunts a cow / sleeps first
SOURCES = {"wood": "tree", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamond", "sapling": "grass", "drink": "water"}
"""The block each gatherable item comes from (by ``DO`` on it)."""
PICKAXE_TIER = {"stone": 1, "coal": 1, "iron": 2, "diamond": 3}
PICKAXES = ("make_wood_pickaxe", "make_stone_pickaxe", "make_iron_pickaxe")
CRAFTS = {  # (wood, stone, coal, iron), needs a furnace nearby
    "make_wood_pickaxe": ((1, 0, 0, 0), False),
    "make_stone_pickaxe": ((1, 1, 0, 0), False),
    "make_iron_pickaxe": ((1, 1, 1, 1), True),
    "make_wood_sword": ((1, 0, 0, 0), False),
    "make_stone_sword": ((1, 1, 0, 0), False),
    "make_iron_sword": ((1, 1, 1, 1), True),
}
OBJECTS = tuple(PLACEABLE)  # stone, crafting_table, furnace, plant
COSTS = {"stone": ("stone", 1), "crafting_table": ("wood", 2), "furnace": ("stone", 1), "plant": ("sapling", 1)}
GROUND = {
    "stone": ("grass", "sand", "path"),
    "crafting_table": ("grass", "sand", "path"),
    "furnace": ("grass", "sand", "path"),
    "plant": ("grass",),
}
"""Where the expert puts each object (Craftax also allows stone on water and lava)."""
WALKABLE = ("grass", "sand", "path")
TABLE, FURNACE = OBJECTS.index("crafting_table"), OBJECTS.index("furnace")
ACHIEVEMENT_OBJECTIVES = {
    **{f"collect_{item}": (GATHER, ITEMS.index(item)) for item in ("wood", "stone", "coal", "iron", "diamond", "sapling")},
    "collect_drink": (GATHER, DRINK),
    "place_stone": (PLACE_ANY, 0),
    "place_table": (PLACE_ANY, TABLE),
    "place_furnace": (PLACE_ANY, FURNACE),
    "place_plant": (PLACE_ANY, 3),
    **{name: (CRAFT, i) for i, name in enumerate(CRAFTS)},
}
"""The objective that unlocks each achievement the expert can unlock."""


def covers(goal: Goal) -> bool:
    """Whether the expert plays ``goal``: every achievement, craft and item it names is one it can
    reach (``ACHIEVEMENT_OBJECTIVES``, ``CRAFTS``, ``SOURCES``); every scenario otherwise."""
    a = goal.arguments
    if goal.scenario == Scenario.ACHIEVEMENTS:
        return all(name in ACHIEVEMENT_OBJECTIVES for name in a["required"])
    if goal.scenario == Scenario.CRAFT_ORDER and a["craft"] not in CRAFTS:
        return False
    return a.get("item", "wood") in SOURCES


def _layouts() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Structure layouts: lookup (kind 0..3, size 0..7, variant 0..2) -> row, offsets (rows, 49, 2)
    sorted top to bottom, and the number of cells of each row."""
    shapes = {}
    for size in LINE_SIZES:
        straight, diagonal = [(0, j) for j in range(size)], [(j, j) for j in range(size)]
        shapes[LINE, size] = (straight, diagonal, straight)
    for size in SQUARE_SIZES:
        square = [(i, j) for i in range(size) for j in range(size)]
        shapes[SQUARE, size] = (square,) * 3
    for arm in CROSS_ARMS:
        plus = [(0, 0)] + [(i * dr, i * dc) for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)) for i in range(1, arm + 1)]
        x = [(0, 0)] + [(i * dr, i * dc) for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)) for i in range(1, arm + 1)]
        shapes[CROSS, arm] = (plus, x, plus)
    cells = max(SQUARE_SIZES) ** 2
    lookup = np.zeros((4, cells + 1, 3), np.int32)
    offsets, counts = [np.zeros((cells, 2), np.int32)], [0]
    for (kind, size), variants in shapes.items():
        for variant, layout in enumerate(variants):
            lookup[kind, size, variant] = len(offsets)
            row = np.zeros((cells, 2), np.int32)
            row[: len(layout)] = sorted(layout)
            offsets.append(row)
            counts.append(len(layout))
    return lookup, np.stack(offsets), np.array(counts, np.int32)


_LAYOUT_LOOKUP, _LAYOUT_OFFSETS, _LAYOUT_COUNTS = _layouts()
_STEPS = np.array([[0, -1], [0, 1], [-1, 0], [1, 0]], np.int32)  # directions 1..4: left, right, up, down


class _Rules:
    """Per Craftax version, as arrays indexed by ids: what each item comes from and the pickaxe it
    needs, recipes, objects' costs, grounds and place actions, achievements' objectives."""

    def __init__(self, classic: bool):
        v = version(classic)
        blocks = max(v.blocks.values()) + 1
        actions = classic_constants.Action if classic else full_constants.Action
        self.close = np.asarray((classic_constants if classic else full_constants).CLOSE_BLOCKS)
        self.source = np.zeros((MEAT + 1, blocks), bool)  # MEAT comes from cows, not blocks
        self.tier = np.zeros(MEAT + 1, np.int32)
        for item, block in SOURCES.items():
            i = DRINK if item == "drink" else ITEMS.index(item)
            self.source[i, v.blocks[block]] = True
            self.tier[i] = PICKAXE_TIER.get(item, 0)
        self.pickaxe = np.array([0] + [list(CRAFTS).index(p) for p in PICKAXES], np.int32)  # tier -> craft
        self.recipe = np.array([np.pad(r, (0, len(ITEMS) - 4)) for r, _ in CRAFTS.values()], np.int32)
        self.furnace = np.array([f for _, f in CRAFTS.values()])
        self.craft_action = np.array([actions[name.upper()].value for name in CRAFTS], np.int32)
        self.cost_item = np.array([ITEMS.index(COSTS[o][0]) for o in OBJECTS], np.int32)
        self.cost = np.array([COSTS[o][1] for o in OBJECTS], np.int32)
        self.place_action = np.array([PLACEABLE[o] for o in OBJECTS], np.int32)
        self.ground = np.zeros((len(OBJECTS), blocks), bool)
        for i, o in enumerate(OBJECTS):
            self.ground[i, [v.blocks[b] for b in GROUND[o]]] = True
        self.object = np.full(blocks, -1, np.int32)  # block id -> object index
        self.object[[v.blocks[o] for o in OBJECTS]] = np.arange(len(OBJECTS))
        self.object[v.blocks["ripe_plant"]] = OBJECTS.index("plant")
        self.walkable = np.zeros(blocks, bool)
        self.walkable[[v.blocks[b] for b in WALKABLE]] = True
        self.stone = v.blocks["stone"]
        self.drink, self.eat_cow = v.achievements["collect_drink"], v.achievements["eat_cow"]
        self.no_sleep = [v.achievements["wake_up"], v.achievements["place_stone"]]  # sleeping unlocks these
        self.sleep_action = actions.SLEEP.value
        self.defeat = [v.achievements[a] for a in v.achievements if a.startswith("defeat_")]
        self.achievement = np.tile(np.array([UNCOVERED, 0], np.int32), (max(v.achievements.values()) + 1, 1))
        self.craft = np.zeros(len(self.achievement), np.int32)  # achievement id -> craft index
        for name, objective in ACHIEVEMENT_OBJECTIVES.items():
            self.achievement[v.achievements[name]] = objective
            if name in CRAFTS:
                self.craft[v.achievements[name]] = list(CRAFTS).index(name)


_RULES = {classic: _Rules(classic) for classic in (True, False)}


def _shifts(grid: Array, fill):
    """A function of ``step`` (2,), traced or static, |step| <= PAD: grid[r + step_r, c + step_c]
    for every (r, c), ``fill`` outside the map (the grid is padded once)."""
    h, w = grid.shape
    padded = jnp.pad(grid, PAD, constant_values=fill)
    return lambda step: jax.lax.dynamic_slice(padded, (PAD + step[0], PAD + step[1]), (h, w))


def _shift(grid: Array, step, fill) -> Array:
    """grid[r + step_r, c + step_c] for every (r, c), ``fill`` outside (``_shifts``)."""
    return _shifts(grid, fill)(step)


def _window(grid: Array, centre: Array, fill) -> Array:
    """(2 WINDOW + 1, 2 WINDOW + 1) cells of ``grid`` centred on ``centre``, ``fill`` off the map."""
    size = 2 * WINDOW + 1
    return jax.lax.dynamic_slice(jnp.pad(grid, WINDOW, constant_values=fill), (centre[0], centre[1]), (size, size))


def distance_field(start: Array, passable: Array, reach: int = REACH) -> Array:
    """(H, W) int32: steps over ``passable`` cells to the nearest ``start`` cell (0 there), ``FAR``
    where none is within ``reach`` steps."""

    def relax(_, dist):
        shifted = _shifts(dist, FAR)
        nearest = jnp.stack([shifted(FACING[d]) for d in range(1, 5)]).min(0)
        return jnp.where(passable, jnp.minimum(dist, nearest + 1), FAR)

    return jax.lax.fori_loop(0, reach, relax, jnp.where(start & passable, 0, FAR))


def _beside(cells: Array) -> Array:
    """Cells with a ``cells`` cell left, right, above or below."""
    shifted = _shifts(cells, False)
    return jnp.stack([shifted(FACING[d]) for d in range(1, 5)]).any(0)


def _structure_cell(
    mine: Array, ground: Array, walkable: Array, position: Array, facing: Array, goal: GoalFields
) -> tuple[Array, Array, Array]:
    """The next cell of the goal's structure: (cell (2,), found (), cells left to place ()).

    mine: (H, W) cells holding an agent-placed block of the structure's kind; ground: where its
    blocks can go; walkable: where the agent can stand (module docstring, point 3). An anchor
    counts its placed prefix first, then its nearness: facing its next cell from below, else the
    steps to the cell two below it."""
    row = jnp.asarray(_LAYOUT_LOOKUP)[
        jnp.clip(goal.structure_kind, 0, 3),
        jnp.clip(goal.structure_size, 0, _LAYOUT_LOOKUP.shape[1] - 1),
        jnp.clip(goal.structure_variant, 0, 2),
    ]
    offsets, count = jnp.asarray(_LAYOUT_OFFSETS)[row], jnp.asarray(_LAYOUT_COUNTS)[row]
    below = np.array([1, 0])
    approachable = _shift(walkable, below, False) & _shift(walkable, 2 * below, False)  # N and P open
    # one shifted map per layout cell, not three: bit 0 mine, bit 1 open ground with its approach
    cells_at = _shifts(mine.astype(jnp.int8) | ((ground & approachable).astype(jnp.int8) << 1), jnp.int8(0))
    placed, ok, prefix = jnp.zeros(mine.shape, jnp.int32), jnp.ones(mine.shape, bool), jnp.ones(mine.shape, bool)
    for i in range(_LAYOUT_OFFSETS.shape[1]):
        o = offsets[i]
        cell = cells_at(o)
        filled, open_ = (cell & 1) > 0, (cell & 2) > 0
        used = i < count
        ok &= ~used | (prefix & filled) | open_
        prefix &= ~used | filled
        placed += (used & prefix).astype(jnp.int32)
    h, w = mine.shape
    r, c = jnp.arange(h)[:, None], jnp.arange(w)[None, :]
    first = offsets[0]
    ready = (r + first[0] + 1 == position[0]) & (c + first[1] == position[1]) & (r + first[0] == facing[0]) & (c + first[1] == facing[1])
    approach = jnp.where(ready, -1, jnp.abs(r + first[0] + 2 - position[0]) + jnp.abs(c + first[1] - position[1]))
    score = jnp.where(ok & (placed < count), placed * 4 * h * w - approach, -FAR * h * w)
    best = jnp.argmax(score)
    anchor = jnp.stack([best // w, best % w])
    k = placed.reshape(-1)[best]
    return anchor + offsets[jnp.clip(k, 0, offsets.shape[0] - 1)], score.reshape(-1)[best] > -FAR * h * w, count - k


def _relative_cell(
    grid: Array, ground: Array, walkable: Array, position: Array, facing: Array, goal: GoalFields
) -> tuple[Array, Array, Array]:
    """Where to place the goal's object ``distance`` cells on ``side`` of a target block: (cell (2,),
    approach direction 1..4, found ()); the cell the agent faces from its approach if it is one,
    else the one with the nearest approach start."""
    offset = jnp.asarray(_STEPS)[jnp.clip(goal.place_side, 0, 3)] * goal.place_distance
    target = _shift(C.is_block(grid, goal.place_target), -offset, False)  # cell X has the target at X - offset
    h, w = grid.shape
    r, c = jnp.arange(h)[:, None], jnp.arange(w)[None, :]
    walkable_at = _shifts(walkable, False)
    scores = []
    for d in range(4):
        step = _STEPS[d]
        ok = target & ground & walkable_at(-step) & walkable_at(-2 * step)
        ready = (r - step[0] == position[0]) & (c - step[1] == position[1]) & (r == facing[0]) & (c == facing[1])
        approach = jnp.abs(r - 2 * step[0] - position[0]) + jnp.abs(c - 2 * step[1] - position[1])
        scores.append(jnp.where(ok, jnp.where(ready, 1, -approach), -FAR))
    scores = jnp.stack(scores).reshape(-1)
    best = jnp.argmax(scores)
    cell = best % (h * w)
    return jnp.stack([cell // w, cell % w]), 1 + best // (h * w), scores[best] > -FAR


def _sleep_pocket(walkable: Array, diggable: Array, wall: Array, position: Array, facing: Array) -> tuple[Array, Array, Array]:
    """The two-cell pocket ``B -> A -> S`` to sleep in (module docstring): (``S`` (2,), the direction
    1..4 from ``B`` to ``S``, found ()); the pocket the agent is in or at first (by how far through
    it is), else the one with the nearest ``B``.

    walkable: (H, W) cells a zombie can stand on; diggable: stone the agent can mine out of the
    pocket; wall: cells no zombie enters."""
    h, w = walkable.shape
    r, c = jnp.arange(h)[:, None], jnp.arange(w)[None, :]
    open_ = walkable | diggable
    open_at, wall_at, walkable_at = _shifts(open_, False), _shifts(wall, False), _shifts(walkable, False)
    scores = []
    for d in range(4):
        s = _STEPS[d]
        side = s[::-1]

        def is_at(p: Array, k: int) -> Array:  # p == S - k s
            return (r - k * s[0] == p[0]) & (c - k * s[1] == p[1])

        ok = open_ & open_at(-s) & walkable_at(-2 * s) & wall_at(s)  # S, A, B and the wall ahead
        ok &= wall_at(side) & wall_at(-side) & wall_at(side - s) & wall_at(-side - s)  # both sides of S and A
        in_a, in_s = is_at(position, 1), is_at(position, 0)
        stage = jnp.select([in_a & is_at(facing, 2), in_s & is_at(facing, -1), in_a, is_at(position, 2)], [4, 3, 2, 1], 0)
        # 4: in A facing B (place the stone), 3: in S, 2: in A, 1: on B
        approach = jnp.abs(r - 2 * s[0] - position[0]) + jnp.abs(c - 2 * s[1] - position[1])
        scores.append(jnp.where(ok, stage * 4 * (h + w) - approach, -FAR))
    scores = jnp.stack(scores).reshape(-1)
    best = jnp.argmax(scores)
    cell = best % (h * w)
    return jnp.stack([cell // w, cell % w]), 1 + best // (h * w), scores[best] > -FAR


def _mobs(mobs, floor: Array | None, shape: tuple[int, int]) -> Array:
    """(H, W) bool: cells holding one of ``mobs`` (Craftax ``Mobs``; per floor in full Craftax)."""
    position, mask = (mobs.position, mobs.mask) if floor is None else (mobs.position[floor], mobs.mask[floor])
    return jnp.zeros(shape, bool).at[position[:, 0], position[:, 1]].max(mask, mode="drop")


def _pickaxe_tier(craftax_state, classic: bool) -> Array:
    inv = craftax_state.inventory
    if classic:
        return jnp.maximum(jnp.maximum(inv.wood_pickaxe > 0, 2 * (inv.stone_pickaxe > 0)), 3 * (inv.iron_pickaxe > 0)).astype(jnp.int32)
    return jnp.asarray(inv.pickaxe, jnp.int32)


class _Scene(NamedTuple):
    """What the expert reads of a Craftax state; maps are (H, W) of the player's floor."""

    state: Any  # the Craftax state (the player's levels, direction, sleep, time)
    grid: Array  # block ids
    position: Array  # (2,)
    facing: Array  # (2,) the cell the player faces
    inventory: Array  # (items,) ``craftext.world.ITEMS``
    light: Array  # () daylight
    achievements: Array  # (A,) bool, unlocked
    seen: Array  # cells whose blocks and cows the expert knows (the view with ``sight``)
    mobs: Array  # cells holding any mob
    hostile: Array  # cells holding a zombie (a melee mob)
    cows: Array  # seen cells holding a cow (a passive mob)
    placed: Array  # cells holding a block the agent placed
    walkable: Array  # open ground
    tier: Array  # () the best pickaxe held: 0 none .. 3 iron
    tunnel: Array  # natural stone the agent can mine its way through
    near_table: Array  # () a crafting table within reach
    near_furnace: Array  # () a furnace within reach

    @property
    def corner(self) -> Array:
        """(2,) the map cell of the planning window's cell (0, 0) (``_window``)."""
        return self.position - WINDOW


def _scene(craftax_state, placed: Array, classic: bool, sight: bool) -> _Scene:
    """The ``_Scene`` of a Craftax state and its agent-placed map (Craftax map shape)."""
    R, f = _RULES[classic], frame(craftax_state, classic)
    grid, position = f.floor_map, f.position
    h, w = grid.shape
    seen = jnp.ones((h, w), bool)
    if sight:
        rows, cols = version(classic).view
        seen = (jnp.abs(jnp.arange(h) - position[0]) <= rows // 2)[:, None] & (jnp.abs(jnp.arange(w) - position[1]) <= cols // 2)[None, :]
        if f.light_map is not None:
            seen &= f.light_map > LIGHT_THRESHOLD
    floor = None if classic else f.floor
    placed = placed if classic else placed[f.floor]
    tier = _pickaxe_tier(craftax_state, classic)
    near = jax.vmap(lambda o: grid[jnp.clip(position[0] + o[0], 0, h - 1), jnp.clip(position[1] + o[1], 0, w - 1)])(jnp.asarray(R.close))
    return _Scene(
        state=craftax_state,
        grid=grid,
        position=position,
        facing=f.facing,
        inventory=f.inventory,
        light=f.light,
        achievements=f.achievements,
        seen=seen,
        mobs=craftax_state.mob_map if classic else craftax_state.mob_map[f.floor],
        hostile=_mobs(craftax_state.zombies if classic else craftax_state.melee_mobs, floor, (h, w)),
        cows=_mobs(craftax_state.cows if classic else craftax_state.passive_mobs, floor, (h, w)) & seen,
        placed=placed,
        walkable=jnp.asarray(R.walkable)[grid],
        tier=tier,
        tunnel=(tier >= 1) & (grid == R.stone) & ~placed,
        near_table=jnp.any(near == version(classic).blocks["crafting_table"]),
        near_furnace=jnp.any(near == version(classic).blocks["furnace"]),
    )


def _at(cells: Array, p: Array) -> Array:
    """() whether cell ``p`` (2,) is on the map and set in ``cells`` (H, W)."""
    h, w = cells.shape
    inside = (p >= 0).all() & (p < jnp.asarray([h, w])).all()
    return inside & cells[jnp.clip(p[0], 0, h - 1), jnp.clip(p[1], 0, w - 1)]


def _ground_of(R: _Rules, obj: Array, grid: Array) -> Array:
    """(H, W) cells an object (index of ``OBJECTS``) can be placed on."""
    return jnp.asarray(R.ground)[jnp.clip(obj, 0, len(OBJECTS) - 1)][grid]


def _cost_of(R: _Rules, obj: Array) -> tuple[Array, Array]:
    """The item an object costs and how many of it."""
    obj = jnp.clip(obj, 0, len(OBJECTS) - 1)
    return jnp.asarray(R.cost_item)[obj], jnp.asarray(R.cost)[obj]


def _objective(kind, arg, cell: Array | None = None, direction=0) -> Array:
    """(5,) int32 objective: kind, argument, target cell (2,), approach direction 1..4."""
    cell = jnp.zeros(2, jnp.int32) if cell is None else cell
    return jnp.stack([jnp.asarray(kind, jnp.int32), jnp.asarray(arg, jnp.int32), cell[0], cell[1], jnp.asarray(direction, jnp.int32)])


def _build(R: _Rules, s: _Scene, goal: GoalFields) -> Array:
    """The objective of building the goal's structure: its next cell, approached from below, or
    gathering its material while the inventory holds too little."""
    struct_object = jnp.asarray(R.object)[jnp.maximum(goal.structure_block, 0)]
    mine = s.placed & C.is_block(s.grid, goal.structure_block)
    centre = jnp.asarray([WINDOW, WINDOW])
    cell, found, left = _structure_cell(
        _window(mine, s.position, False),
        _window(_ground_of(R, struct_object, s.grid), s.position, False),
        _window(s.walkable, s.position, False),
        centre,
        s.facing - s.corner,
        goal,
    )
    material, unit = _cost_of(R, struct_object)
    short = s.inventory[material] < jnp.minimum(left * unit, CARRY - CARRY % unit)  # more than the inventory holds: in batches
    kind = jnp.where(short, GATHER, jnp.where(found, PLACE_AT, WANDER))
    return _objective(kind, jnp.where(short, material, struct_object), cell + s.corner, 3)  # approached from below: moving up


def _place_relative(R: _Rules, s: _Scene, goal: GoalFields) -> Array:
    """The objective of placing the goal's object beside its target block: the cell, else placing
    the target where the world has none in sight, else walking to a target."""
    place_object = jnp.asarray(R.object)[jnp.maximum(goal.place_object, 0)]
    clearable = s.tunnel & (place_object != OBJECTS.index("plant"))  # stone is mined out of the way (a plant needs grass)
    cell, direction, found = _relative_cell(
        _window(jnp.where(s.seen, s.grid, -1), s.position, -1),
        _window(_ground_of(R, place_object, s.grid) | clearable, s.position, False),
        _window(s.walkable | s.tunnel, s.position, False),
        jnp.asarray([WINDOW, WINDOW]),
        s.facing - s.corner,
        goal,
    )
    target_object = jnp.asarray(R.object)[jnp.maximum(goal.place_target, 0)]
    target_absent = (target_object >= 0) & ~jnp.any(C.is_block(s.grid, goal.place_target) & s.seen)
    kind = jnp.where(found, PLACE_AT, jnp.where(target_absent, PLACE_ANY, GATHER))
    return _objective(kind, jnp.where(found, place_object, jnp.where(target_absent, target_object, VISIT)), cell + s.corner, direction)


def _goal_objective(R: _Rules, s: _Scene, goal: GoalFields, memory: C.Memory) -> Array:
    """(5,) the objective of the goal's scenario in its current phase (module docstring, point 1)."""
    pending = (goal.required >= 0) & ~s.achievements[jnp.maximum(goal.required, 0)]
    achievement_kind, achievement_arg = jnp.asarray(R.achievement)[jnp.maximum(goal.required[jnp.argmax(pending)], 0)]
    build, relative = _build(R, s, goal), _place_relative(R, s, goal)
    place_object = jnp.asarray(R.object)[jnp.maximum(goal.place_object, 0)]
    gather_item, place_any = _objective(GATHER, goal.item), _objective(PLACE_ANY, place_object)
    craft = _objective(CRAFT, jnp.asarray(R.craft)[jnp.maximum(goal.required[0], 0)])
    collected, structure_done, placed_done = memory.t_collected >= 0, memory.t_structure >= 0, memory.placed_count >= goal.object_count
    place_material, place_unit = _cost_of(R, place_object)
    wait_for_time = ~((s.light < C.NIGHT_LIGHT) == (goal.night > 0)) & (s.inventory[place_material] >= place_unit)  # stocked
    by_scenario = jnp.stack(
        [
            jnp.where(pending.any(), _objective(achievement_kind, achievement_arg), _objective(WAIT, 0)),  # ACHIEVEMENTS
            build,
            build,
            build,  # BUILD_LINE, BUILD_SQUARE, BUILD_CROSS
            relative,  # PLACE_RELATIVE
            jnp.where(collected, place_any, gather_item),  # COLLECT_THEN_PLACE
            jnp.where(placed_done, gather_item, place_any),  # PLACE_THEN_COLLECT
            jnp.where(jnp.where(goal.ordered == 0, memory.t_achievements[0] >= 0, ~collected), gather_item, craft),  # CRAFT_ORDER
            jnp.where(structure_done, relative, build),  # LINE_AND_PLACE
            jnp.where(collected, build, gather_item),  # COLLECT_THEN_LINE
            jnp.where(collected, build, gather_item),  # COLLECT_AND_SQUARE
            jnp.where(wait_for_time, _objective(WAIT, 0), place_any),  # TIME_PLACE
            _objective(jnp.where(memory.was_out_of_view > 0, GATHER, WANDER), VISIT),  # EXPLORE
        ]
    )
    return by_scenario[jnp.clip(goal.scenario, 0, len(Scenario) - 1)]


class _Shelter(NamedTuple):
    """Where the expert can sleep: ``safe`` () every open cell beside it is a dead end; ``found``
    () a sleep pocket within the window (``_sleep_pocket``), with the objective ``sleep`` (5,)."""

    safe: Array
    found: Array
    sleep: Array


def _shelter(s: _Scene) -> _Shelter:
    h, w = s.grid.shape
    beside_player = jnp.zeros((h, w), bool).at[s.position[0], s.position[1]].set(True)
    dead_end = ~s.walkable | ~_beside(s.walkable & ~beside_player)
    safe = jax.vmap(lambda p: ~_at(~dead_end, p))(s.position + FACING[1:]).all()
    pocket, direction, found = _sleep_pocket(
        _window(s.walkable, s.position, False),
        _window(s.tunnel & s.seen, s.position, False),
        _window(~s.walkable & s.seen, s.position, True),
        jnp.asarray([WINDOW, WINDOW]),
        s.facing - s.corner,
    )
    return _Shelter(safe, found, _objective(SLEEP, 0, pocket + s.corner, direction))  # 0: a stone for the way in


def _survive(R: _Rules, s: _Scene, goal: GoalFields, shelter: _Shelter, current: Array) -> Array:
    """(5,) drinking, hunting a cow or sleeping first when thirsty, hungry or tired (unless the
    goal forbids its achievement), else ``current``."""
    thirsty = (s.state.player_drink <= THIRSTY) & (goal.forbidden != R.drink)
    hungry = (s.state.player_food <= HUNGRY) & (goal.forbidden != R.eat_cow)
    tired = (s.state.player_energy <= TIRED) & ~jnp.isin(goal.forbidden, jnp.asarray(R.no_sleep))
    sleepy = tired & (shelter.safe | shelter.found | (s.state.player_energy == 0))
    current = jnp.where(sleepy, shelter.sleep, current)
    return jnp.where(thirsty, _objective(GATHER, DRINK), jnp.where(hungry, _objective(GATHER, MEAT), current))


def _prerequisites(R: _Rules, s: _Scene, shelter: _Shelter, kind: Array, arg: Array) -> tuple[Array, Array]:
    """The objective's first unmet prerequisite, in rounds (module docstring, point 2): (kind, arg)."""
    for _ in range(6):
        need_tier = jnp.where(arg >= 0, jnp.asarray(R.tier)[jnp.clip(arg, 0, MEAT)], 0)
        tool = (kind == GATHER) & (s.tier < need_tier)
        recipe = jnp.asarray(R.recipe)[jnp.clip(arg, 0, len(CRAFTS) - 1)]
        furnace = jnp.asarray(R.furnace)[jnp.clip(arg, 0, len(CRAFTS) - 1)]
        needs = recipe.at[0].add(2 * ~s.near_table).at[1].add(furnace & ~s.near_furnace)
        lacking = s.inventory < needs
        crafting = kind == CRAFT
        placing = (kind == PLACE_ANY) | (kind == PLACE_AT) | ((kind == SLEEP) & ~shelter.safe & shelter.found)
        material, unit = _cost_of(R, arg)
        poor = placing & (s.inventory[material] < unit)
        # the first that holds: the pickaxe, a missing material, the table, the furnace, the object's cost
        conditions = [tool, crafting & lacking.any(), crafting & ~s.near_table, crafting & furnace & ~s.near_furnace, poor]
        kind, arg = (
            jnp.select(conditions, [CRAFT, GATHER, PLACE_ANY, PLACE_ANY, GATHER], kind),
            jnp.select(conditions, [jnp.asarray(R.pickaxe)[jnp.clip(need_tier, 0, 3)], jnp.argmax(lacking), TABLE, FURNACE, material], arg),
        )
    return kind, arg


def _move(s: _Scene, start: Array, sight: bool) -> tuple[Array, Array]:
    """() the move one step along a shortest walk to a ``start`` cell (H, W), digging through
    tunnel stone, with none in reach the wander heading; and () the wander heading alone
    (module docstring, points 4 and 5)."""
    h, w = s.grid.shape
    passable = s.walkable | s.tunnel
    dist = distance_field(start, passable, SIGHT_REACH if sight else REACH)
    neighbours = s.position + FACING[1:]
    cost = jax.vmap(lambda p: jnp.where(_at(passable, p), dist[jnp.clip(p[0], 0, h - 1), jnp.clip(p[1], 0, w - 1)], FAR))(neighbours)
    heading = (jnp.asarray(s.state.timestep, jnp.uint32) // 8 * jnp.uint32(2654435761) >> 16) % 4
    turns = (heading + jnp.arange(4)) % 4  # the heading, else the next direction onto open ground (never lava)
    open_turns = jax.vmap(lambda d: _at(s.walkable, neighbours[d]))(turns)
    wander = jnp.where(open_turns.any(), 1 + turns[jnp.argmax(open_turns)], NOOP)
    if sight:  # straight on while the way ahead is open: an explorer the agent can imitate
        ahead = jnp.asarray(s.state.player_direction, jnp.int32) - 1
        wander = jnp.where(_at(s.walkable, neighbours[jnp.clip(ahead, 0, 3)]), 1 + ahead, wander)
    best = jnp.argmin(cost)
    dig = _at(s.tunnel, neighbours[best]) & (s.facing == neighbours[best]).all()
    return jnp.where(cost[best] < FAR, jnp.where(dig, DO, 1 + best), wander), wander


def _action(R: _Rules, s: _Scene, goal: GoalFields, shelter: _Shelter, objective: Array, sight: bool) -> Array:
    """() the action that pursues ``objective`` (5,) (module docstring, points 3 and 4), after
    staying asleep, fighting back and leaving a pocket."""
    kind, arg, cell, direction = objective[0], objective[1], objective[2:4], objective[4]
    h, w = s.grid.shape
    visited = C.is_block(s.grid, jnp.where(goal.scenario == Scenario.EXPLORE, goal.explore_block, goal.place_target))
    source = jnp.where(arg >= 0, jnp.asarray(R.source)[jnp.clip(arg, 0, MEAT)][s.grid], visited) & ~s.placed & s.seen
    targets = jnp.where(kind == GATHER, jnp.where(arg == MEAT, s.cows, source & ~s.mobs), _ground_of(R, arg, s.grid) & ~s.mobs)
    step = jnp.asarray(_STEPS)[jnp.clip(direction - 1, 0, 3)]
    stand, before = cell - step, cell - 2 * step
    at_cell = jnp.zeros((h, w), bool).at[before[0], before[1]].set(True)
    move, wander = _move(s, jnp.where((kind == PLACE_AT) | (kind == SLEEP), at_cell, _beside(targets)), sight)
    neighbours = s.position + FACING[1:]
    target_beside = jax.vmap(lambda p: _at(targets, p))(neighbours)
    place = jnp.asarray(R.place_action)[jnp.clip(arg, 0, len(OBJECTS) - 1)]
    craft_action = jnp.asarray(R.craft_action)[jnp.clip(arg, 0, len(CRAFTS) - 1)]
    interact_action = jnp.where(kind == GATHER, jnp.where(arg == VISIT, NOOP, DO), place)
    interact = jnp.where(_at(targets, s.facing), interact_action, jnp.where(target_beside.any(), 1 + jnp.argmax(target_beside), move))
    at_position, facing = (lambda p: (s.position == p).all()), (lambda p: (s.facing == p).all())
    place_at = jnp.where(
        at_position(stand) & facing(cell),
        jnp.where(_at(s.tunnel, cell), DO, place),
        jnp.where(at_position(before), jnp.where(facing(stand) & _at(s.tunnel, stand), DO, direction), move),
    )
    back = 1 + ((direction - 1) ^ 1)  # the way out of the pocket: from S onto A, facing B
    in_pocket = at_position(stand) | at_position(before)
    go_in = jnp.where(in_pocket & _at(s.tunnel, s.facing) & (facing(stand) | facing(cell)), DO, direction)
    sleep_action = jnp.where(
        shelter.safe | ~shelter.found,  # walled in, or at energy 0 with no pocket in reach: in the open
        jnp.where(s.state.player_energy < 9, R.sleep_action, NOOP),  # Craftax sleeps below full energy
        jnp.select([at_position(stand) & facing(before), at_position(cell), in_pocket], [place, back, go_in], move),
    )
    attacker = jax.vmap(lambda p: _at(s.hostile, p))(neighbours) & ~jnp.isin(goal.forbidden, jnp.asarray(R.defeat))
    leave = shelter.safe & (kind != SLEEP) & (s.tier >= 1) & _at(s.grid == R.stone, s.facing)  # awake in a walled pocket: mine the way out
    kinds = [kind == SLEEP, kind == GATHER, kind == PLACE_ANY, kind == PLACE_AT, kind == CRAFT, kind == WANDER]
    action = jnp.select(
        [s.state.is_sleeping, _at(s.hostile, s.facing) & attacker.any(), attacker.any(), leave, *kinds],
        [NOOP, DO, 1 + jnp.argmax(attacker), DO, sleep_action, interact, interact, place_at, craft_action, wander],
        NOOP,
    )
    return action.astype(jnp.int32)


def expert_action(craftax_state, goal: Array, memory: Array, placed: Array, classic: bool, sight: bool = False) -> Array:
    """() int32: the expert's action for a goal encoding (20,) with its checker memory (10,) and the
    agent-placed map (Craftax map shape), in a Craftax state (module docstring); with ``sight`` it
    looks for blocks and cows only in the agent's view (module docstring, point 5)."""
    R, s, fields = _RULES[classic], _scene(craftax_state, placed, classic, sight), GoalFields.of(goal)
    shelter = _shelter(s)
    objective = _survive(R, s, fields, shelter, _goal_objective(R, s, fields, C.Memory.of(memory)))
    kind, arg = _prerequisites(R, s, shelter, objective[0], objective[1])
    return _action(R, s, fields, shelter, objective.at[0].set(kind).at[1].set(arg), sight)
