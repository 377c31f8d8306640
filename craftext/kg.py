"""Knowledge graph of a Craftax state inside jit, and its valid actions (JerichoWorld-style, exact).

``graph(world, classic, scope)`` turns a Craftax (Classic or full) ``EnvState`` into fixed-size
integer arrays: ``subject``, ``relation``, ``object`` (K,) int32 ids into ``schema(classic)``'s
entity and relation names, ``valid`` (K,) bool, ``overflow`` () bool (more facts than K), and
``grid`` (rows, cols) int32, the local view (block id; ``num_blocks + k`` for a mob of kind k;
-1 where nothing is seen) for the grid text style. Valid facts come first, sorted by (subject,
relation, object) id, so two graphs are equal exactly when their arrays are. Pure and vmappable.

Facts (all about what the player can know):
- ``you``: ``row`` / ``column`` (map cell), ``faces`` a compass direction, ``facing`` the block in
  front, ``health`` / ``food`` / ``drink`` / ``energy`` (and ``mana``, ``floor`` in full Craftax)
  numbers, ``is sleeping``, ``time`` day or night, ``has`` an item, ``achieved`` an achievement;
- an item the player has: ``amount`` n (Classic tools are items; full Craftax's pickaxe and
  sword levels are their amounts);
- each block and mob kind in sight: ``nearest direction`` (8-point compass, north = row - 1) and
  ``nearest distance`` (steps, |row| + |column| offset) of its nearest instance.

Scopes: ``observed`` covers the agent's view window (7 x 9 Classic, 9 x 11 full) without the
cells full Craftax shows dark; ``true`` covers the whole map of the player's floor, dark or not,
and every mob on it.

Valid actions: ``action_mask(world, classic)`` is the analytic precondition mask (Classic: exact
except ``DO`` on grass, which gives a sapling with probability 0.1; full Craftax: every action,
which is sound but not exact); ``counterfactual_valid`` is the state-change definition: an action
is valid when stepping it (same key) changes an agent-attributable part of the state differently
from ``NOOP``. ``valid_actions``, the records' label, is the mask in Classic (predictable from
the observation) and the counterfactual in full Craftax.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax_classic import game_logic as classic_logic
from craftax.craftax_classic.constants import Achievement as ClassicAchievement
from craftax.craftax_classic.constants import Action as ClassicAction
from craftax.craftax_classic.constants import BlockType as ClassicBlock
from jax import Array

from craftext.world import LIGHT_THRESHOLD, NOOP, frame, version

SCHEMA_VERSION = 1
SCOPES = ("observed", "true")
COMPASS = ("here", "north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")
_FACING_COMPASS = np.array([0, 7, 3, 1, 5])  # craftax player_direction 1 left, 2 right, 3 up, 4 down
MAX_NUMBER = 127  # numbers are entities "0" .. "127"; larger values are clipped
RELATIONS = (
    "row",
    "column",
    "faces",
    "facing",
    "health",
    "food",
    "drink",
    "energy",
    "mana",
    "floor",
    "is",
    "time",
    "has",
    "achieved",
    "amount",
    "nearest direction",
    "nearest distance",
)
_R = {name: i for i, name in enumerate(RELATIONS)}
CLASSIC_MOBS = {"zombies": ("zombie",), "cows": ("cow",), "skeletons": ("skeleton",)}
FULL_MOBS = {
    "melee_mobs": ("zombie", "gnome warrior", "orc soldier", "lizard", "knight", "troll", "pigman", "frost troll"),
    "passive_mobs": ("cow", "bat", "snail"),
    "ranged_mobs": ("skeleton", "gnome archer", "orc mage", "kobold", "knight archer", "deep thing", "fire elemental", "ice elemental"),
}
CLASSIC_TOOLS = ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword")
FULL_TOOLS = ("pickaxe", "sword")


@functools.cache
def schema(classic: bool) -> dict:
    """The static schema of a version: ``entities`` and ``relations`` (name lists; ids are
    positions), ``blocks`` / ``mobs`` / ``items`` (entity ids of each kind), ``version``."""
    v = version(classic)
    by_id = {i: n for n, i in v.blocks.items()}
    blocks = [by_id.get(i, "unknown") for i in range(max(by_id) + 1)]  # indexed by Craftax block id
    mobs = [m for kinds in (CLASSIC_MOBS if classic else FULL_MOBS).values() for m in kinds]
    items = [*v.items, *(CLASSIC_TOOLS if classic else FULL_TOOLS)]
    achievements = sorted(v.achievements, key=v.achievements.get)
    names = ["you", *COMPASS, "day", "night", "sleeping", "unknown"]
    for name in [*blocks, *mobs, *items, *achievements]:
        if name.replace("_", " ") not in names:
            names.append(name.replace("_", " "))
    names += [str(n) for n in range(MAX_NUMBER + 1)]
    index = {n: i for i, n in enumerate(names)}
    return {
        "world": v.name,
        "version": SCHEMA_VERSION,
        "entities": tuple(names),
        "relations": RELATIONS,
        "blocks": np.array([index[b.replace("_", " ")] for b in blocks]),  # by block id
        "mobs": np.array([index[m] for m in mobs]),
        "items": np.array([index[i.replace("_", " ")] for i in items]),
        "achievements": np.array([index[a.replace("_", " ")] for a in achievements]),
    }


def _compass(dr: Array, dc: Array) -> Array:
    """Compass entity offset (index into ``COMPASS``) of a (row, column) offset; north = row - 1."""
    octant = jnp.round(jnp.arctan2(dc, -dr) / (jnp.pi / 4)).astype(jnp.int32) % 8
    return jnp.where((dr == 0) & (dc == 0), 0, 1 + octant)


def _nearest(kind: Array, dr: Array, dc: Array, seen: Array, num_kinds: int) -> tuple[Array, Array, Array]:
    """Per kind: (present (k,), compass (k,), distance (k,)) of the nearest seen instance; ties
    go to the smaller (row, column) offset."""
    distance = jnp.abs(dr) + jnp.abs(dc)
    order = (distance * 1024 + (dr + 512)) * 1024 + (dc + 512)
    match = seen[None, :] & (kind[None, :] == jnp.arange(num_kinds)[:, None])
    best = jnp.argmin(jnp.where(match, order[None, :], jnp.iinfo(jnp.int32).max), axis=1)
    return match.any(1), _compass(dr[best], dc[best]), distance[best]


def _mobs(world, classic: bool, floor: Array) -> tuple[Array, Array, Array]:
    """(positions (M, 2), kind (M,) index into the schema's mob list, alive (M,)) of every mob."""
    groups = CLASSIC_MOBS if classic else FULL_MOBS
    positions, kinds, alive, offset = [], [], [], 0
    for field, names in groups.items():
        mobs = getattr(world, field)
        if classic:
            positions.append(mobs.position), alive.append(mobs.mask), kinds.append(jnp.full(mobs.mask.shape, offset))
        else:
            positions.append(mobs.position[floor]), alive.append(mobs.mask[floor]), kinds.append(offset + mobs.type_id[floor])
        offset += len(names)
    return jnp.concatenate(positions), jnp.concatenate(kinds).astype(jnp.int32), jnp.concatenate(alive)


def graph(world, classic: bool, scope: str = "observed", capacity: int | None = None) -> dict[str, Array]:
    """The knowledge graph of a Craftax ``EnvState`` (module docstring); ``capacity`` K defaults
    to the number of candidate facts (never overflows)."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    s = schema(classic)
    v = version(classic)
    number = len(s["entities"]) - MAX_NUMBER - 1
    f = frame(world, classic)
    r, c = f.position[0], f.position[1]
    height, width = f.floor_map.shape
    rows, cols = v.view
    # the view window (what the agent sees), and the cells the nearest-object facts consider
    wdr, wdc = (jnp.asarray(x.ravel()) for x in np.meshgrid(np.arange(rows) - rows // 2, np.arange(cols) - cols // 2, indexing="ij"))
    w_block, w_seen = _cells(f, wdr, wdc, hide_dark=not classic)
    if scope == "observed":
        dr, dc, block, seen = wdr, wdc, w_block, w_seen
    else:
        dr, dc = (x.ravel() for x in jnp.meshgrid(jnp.arange(height) - r, jnp.arange(width) - c, indexing="ij"))
        block, seen = _cells(f, dr, dc, hide_dark=False)
    mob_pos, mob_kind, alive = _mobs(world, classic, f.floor)
    mdr, mdc = mob_pos[:, 0] - r, mob_pos[:, 1] - c
    in_view = alive & (jnp.abs(mdr) <= rows // 2) & (jnp.abs(mdc) <= cols // 2)
    if not classic:
        mpos = jnp.clip(mob_pos, 0, jnp.array([height - 1, width - 1]))
        in_view = in_view & (f.light_map[mpos[:, 0], mpos[:, 1]] > LIGHT_THRESHOLD)
    if scope == "observed":
        alive = in_view
    b_present, b_dir, b_dist = _nearest(block, dr, dc, seen & ((dr != 0) | (dc != 0)), len(s["blocks"]))
    m_present, m_dir, m_dist = _nearest(mob_kind, mdr, mdc, alive, len(s["mobs"]))

    def num(x):
        return number + jnp.clip(jnp.asarray(x, jnp.int32), 0, MAX_NUMBER)

    you = 0
    facts = []  # (subject, relation, object, present) columns of candidate facts

    def add(subject, relation, obj, present=True):
        shape = jnp.broadcast_shapes(jnp.shape(subject), jnp.shape(obj), jnp.shape(present))
        facts.append(tuple(jnp.broadcast_to(jnp.asarray(x, jnp.int32), shape).ravel() for x in (subject, _R[relation], obj, present)))

    add(you, "row", num(r))
    add(you, "column", num(c))
    add(you, "faces", 1 + jnp.asarray(_FACING_COMPASS)[world.player_direction])
    fr, fc = f.facing[0], f.facing[1]
    facing_inside = (fr >= 0) & (fr < height) & (fc >= 0) & (fc < width)
    add(you, "facing", jnp.asarray(s["blocks"])[f.floor_map[jnp.clip(fr, 0, height - 1), jnp.clip(fc, 0, width - 1)]], facing_inside)
    for vital in ("health", "food", "drink", "energy") + (() if classic else ("mana",)):
        add(you, vital, num(jnp.round(getattr(world, f"player_{vital}"))))
    if not classic:
        add(you, "floor", num(f.floor))
    add(you, "is", s["entities"].index("sleeping"), world.is_sleeping)
    add(you, "time", jnp.where(f.light < 0.5, s["entities"].index("night"), s["entities"].index("day")))
    inv = world.inventory
    tools = [getattr(inv, t) for t in (CLASSIC_TOOLS if classic else FULL_TOOLS)]
    amounts = jnp.concatenate([f.inventory[: len(v.items)], jnp.stack([jnp.asarray(t, jnp.int32) for t in tools])])
    items = jnp.asarray(s["items"])
    add(you, "has", items, amounts > 0)
    add(items, "amount", num(amounts), amounts > 0)
    add(you, "achieved", jnp.asarray(s["achievements"]), f.achievements.astype(bool))
    for kinds, present, direction, distance in ((s["blocks"], b_present, b_dir, b_dist), (s["mobs"], m_present, m_dir, m_dist)):
        kinds = jnp.asarray(kinds)
        add(kinds, "nearest direction", 1 + direction, present)
        add(kinds, "nearest distance", num(distance), present)
    subject, relation, obj, present = (jnp.concatenate(col) for col in zip(*facts))
    out = _sorted(subject, relation, obj, present.astype(bool), len(s["entities"]), capacity or subject.shape[0])
    grid = jnp.where(w_seen, w_block, -1).reshape(rows, cols)
    shown = jnp.where(in_view, (mdr + rows // 2) * cols + mdc + cols // 2, rows * cols)
    out["grid"] = grid.reshape(-1).at[shown].set(len(s["blocks"]) + mob_kind, mode="drop").reshape(rows, cols).astype(jnp.int32)
    return out


def _sorted(subject: Array, relation: Array, obj: Array, present: Array, num_entities: int, capacity: int) -> dict[str, Array]:
    """Present candidate facts in canonical (subject, relation, object) order, padded to capacity."""
    key = (subject * len(RELATIONS) + relation) * num_entities + obj
    key = jnp.sort(jnp.where(present, key, jnp.iinfo(jnp.int32).max))
    if key.shape[0] < capacity:
        key = jnp.pad(key, (0, capacity - key.shape[0]), constant_values=jnp.iinfo(jnp.int32).max)
    count = present.sum()
    valid = jnp.arange(capacity) < count
    key = jnp.where(valid, key[:capacity], 0)
    return {
        "subject": key // (len(RELATIONS) * num_entities),
        "relation": key // num_entities % len(RELATIONS),
        "object": key % num_entities,
        "valid": valid,
        "overflow": count > capacity,
    }


def _cells(f, dr, dc, hide_dark: bool) -> tuple[Array, Array]:
    """(block id, seen) of the cells at (row, column) offsets from the player: seen is False
    outside the map and, with ``hide_dark``, where full Craftax shows darkness."""
    height, width = f.floor_map.shape
    rr, cc = f.position[0] + dr, f.position[1] + dc
    inside = (rr >= 0) & (rr < height) & (cc >= 0) & (cc < width)
    rr, cc = jnp.clip(rr, 0, height - 1), jnp.clip(cc, 0, width - 1)
    return f.floor_map[rr, cc], inside & (f.light_map[rr, cc] > LIGHT_THRESHOLD) if hide_dark else inside


# ---------------------------------------------------------------------------- valid actions
_C = ClassicAction
_B = ClassicBlock
_COLLECT_DRINK = ClassicAchievement.COLLECT_DRINK.value


def _classic_mask(world) -> Array:
    """(17,) bool: Craftax-Classic actions whose preconditions hold (``game_logic``'s rules)."""
    pos, inv = world.player_position, world.inventory
    in_wall = functools.partial(classic_logic.is_in_wall, world)
    facing = pos + classic_logic.DIRECTIONS[world.player_direction]
    inside = classic_logic.in_bounds(world, facing)
    free = inside & ~classic_logic.is_in_mob(world, facing)
    block = world.map[facing[0], facing[1]]
    moves = []
    for action in (_C.LEFT, _C.RIGHT, _C.UP, _C.DOWN):
        target = pos + classic_logic.DIRECTIONS[action.value]
        walk = classic_logic.is_position_in_bounds_not_in_wall_not_in_mob_not_in_lava(world, target) | (
            world.map[target[0], target[1]] == _B.LAVA.value
        )
        moves.append((world.player_direction != action.value) | walk)
    mine = (
        (block == _B.TREE.value)
        | (block == _B.GRASS.value)
        | (block == _B.RIPE_PLANT.value)
        | ((block == _B.WATER.value) & ((world.player_drink < 9) | ~world.achievements[_COLLECT_DRINK]))
        | (((block == _B.STONE.value) | (block == _B.COAL.value)) & (inv.wood_pickaxe > 0))
        | ((block == _B.IRON.value) & (inv.stone_pickaxe > 0))
        | ((block == _B.DIAMOND.value) & (inv.iron_pickaxe > 0))
    )
    do = inside & (classic_logic.is_in_mob(world, facing) | mine)
    table = classic_logic.is_near_block(world, _B.CRAFTING_TABLE.value)
    furnace = classic_logic.is_near_block(world, _B.FURNACE.value)
    wood, stone, iron, coal = inv.wood >= 1, inv.stone >= 1, inv.iron >= 1, inv.coal >= 1
    mask = jnp.stack(
        [
            jnp.bool_(True),
            *moves,
            do,
            world.player_energy < 9,
            free & (inv.stone > 0) & ((block == _B.WATER.value) | ~in_wall(facing)),
            free & (inv.wood >= 2) & ~in_wall(facing),
            free & (inv.stone > 0) & ~in_wall(facing),
            free & (inv.sapling > 0) & (block == _B.GRASS.value),
            table & wood,
            table & wood & stone,
            table & furnace & wood & stone & iron & coal,
            table & wood,
            table & wood & stone,
            table & furnace & wood & stone & iron & coal,
        ]
    )
    return jnp.where(world.is_sleeping, jnp.arange(mask.shape[0]) == NOOP, mask)


def action_mask(world, classic: bool) -> Array:
    """(num_actions,) bool analytic valid-action mask (module docstring)."""
    if classic:
        return _classic_mask(world)
    return jnp.ones(version(classic).num_actions, bool)


ATTRIBUTABLE = (
    "map",
    "item_map",
    "player_position",
    "player_direction",
    "player_level",
    "inventory",
    "is_sleeping",
    "is_resting",
    "achievements",
    "player_food",
    "player_drink",
    "player_mana",
    "player_xp",
    "player_dexterity",
    "player_strength",
    "player_intelligence",
    "chests_opened",
    "learned_spells",
    "sword_enchantment",
    "bow_enchantment",
    "armour_enchantments",
    "potion_mapping",
)
"""Craftax state fields an action of the player changes directly (plus every mob's health and
presence); other fields (timers, light, mob moves) follow from these or from the world alone."""


def counterfactual_valid(step, key: Array, world, actions: Array) -> Array:
    """(len(actions),) bool: whether each action's outcome differs from ``NOOP``'s (same key) in
    an ``ATTRIBUTABLE`` field or a mob's health / presence (NOOP itself counts as valid).
    ``step(key, world, action) -> world``."""
    actions = jnp.asarray(actions, jnp.int32)
    outcomes = jax.vmap(step, in_axes=(None, None, 0))(key, world, jnp.concatenate([jnp.array([NOOP], jnp.int32), actions]))

    def parts(w):
        fields = [getattr(w, name) for name in ATTRIBUTABLE if hasattr(w, name)]
        mobs = [getattr(w, name) for name in (*CLASSIC_MOBS, *FULL_MOBS) if hasattr(w, name)]
        return fields + [(m.health, m.mask) for m in mobs]

    every = parts(outcomes)
    differs = jax.tree.map(lambda x: (x[1:] != x[:1]).reshape(actions.shape[0], -1).any(1), every)
    return jnp.stack(jax.tree.leaves(differs)).any(0) | (actions == NOOP)


def valid_actions(step, key: Array, world, classic: bool) -> Array:
    """(num_actions,) bool valid actions of a record. Classic: the analytic mask, which the
    observation predicts (facing block, inventory, nearby table and furnace, vitals, sleep): it
    holds every action that changes the state (``counterfactual_valid``, property-tested) and
    allows one that may not, DO facing grass (a sapling with probability 0.1). The counterfactual
    itself is not the label there: whether DO on grass changes anything depends on the step's key
    and on hidden state (Craftax Classic respawns a despawned mob in that step). Full Craftax:
    the counterfactual of every action (its analytic mask allows every action)."""
    if classic:
        return action_mask(world, classic)
    return counterfactual_valid(step, key, world, jnp.arange(version(classic).num_actions))
