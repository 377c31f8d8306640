"""What each Craftax version offers to goals, read from the real ``craftax`` package.

Block ids are Craftax's ``BlockType`` values (Classic uses 0..16, full Craftax 0..36, with the same
ids for the shared blocks); achievement ids are Craftax's ``Achievement`` values (Classic 0..21,
full 0..66); items that can be collected get the suite's own ids (``ITEMS``).

``Frame`` views of a Craftax state give what the checkers need, the same way for both versions: the
map of the player's current floor and its light (full Craftax hides dark cells from the
observation), the player's position and facing cell, an inventory vector of ``ITEMS``, the
achievement vector and the light level.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np
from craftax.craftax.constants import Achievement as FullAchievement
from craftax.craftax.constants import Action as FullAction
from craftax.craftax.constants import BlockType as FullBlock
from craftax.craftax_classic.constants import Achievement as ClassicAchievement
from craftax.craftax_classic.constants import Action as ClassicAction
from craftax.craftax_classic.constants import BlockType as ClassicBlock
from jax import Array

ITEMS = ("wood", "stone", "coal", "iron", "diamond", "sapling", "ruby", "sapphire")
CLASSIC_ITEMS = ITEMS[:6]
# Blocks the agent can put down, with the Craftax action that does it (same ids in both versions).
PLACEABLE = {"stone": 7, "crafting_table": 8, "furnace": 9, "plant": 10}
PLANT, RIPE_PLANT = ClassicBlock.PLANT.value, ClassicBlock.RIPE_PLANT.value
NOOP = 0
LIGHT_THRESHOLD = 0.05  # full Craftax shows a cell in the observation when its light exceeds this
# DIRECTIONS[d] of craftax: player_direction 1 left, 2 right, 3 up, 4 down; (row, column) steps.
FACING = jnp.array([[0, 0], [0, -1], [0, 1], [-1, 0], [1, 0]], dtype=jnp.int32)


@dataclass(frozen=True)
class Version:
    """Names usable in goals for one Craftax version."""

    classic: bool
    blocks: dict[str, int]
    achievements: dict[str, int]
    items: tuple[str, ...]
    view: tuple[int, int]  # (rows, columns) the agent's local view covers

    @property
    def name(self) -> str:
        return "Craftax-Classic" if self.classic else "Craftax"

    @property
    def num_actions(self) -> int:
        return len(ClassicAction) if self.classic else len(FullAction)

    @property
    def action_names(self) -> tuple[str, ...]:
        """Craftax's action names in id order."""
        return tuple(a.name for a in (ClassicAction if self.classic else FullAction))

    @property
    def placed_block(self) -> np.ndarray:
        """(num_actions,) int32: the block a ``PLACE_*`` action puts down, -1 for other actions."""
        table = np.full(self.num_actions, -1, np.int32)
        for name, action in PLACEABLE.items():
            table[action] = self.blocks[name]
        return table


def _names(enum) -> dict[str, int]:
    return {member.name.lower(): member.value for member in enum if member.name not in ("INVALID", "OUT_OF_BOUNDS")}


CLASSIC = Version(True, _names(ClassicBlock), _names(ClassicAchievement), CLASSIC_ITEMS, (7, 9))
FULL = Version(False, _names(FullBlock), _names(FullAchievement), ITEMS, (9, 11))


_SHARED_KEYS = {
    "q": "NOOP",
    "w": "UP",
    "d": "RIGHT",
    "s": "DOWN",
    "a": "LEFT",
    " ": "DO",
    "t": "PLACE_TABLE",
    "Tab": "SLEEP",
    "r": "PLACE_STONE",
    "f": "PLACE_FURNACE",
    "p": "PLACE_PLANT",
}
CLASSIC_KEYS = {
    **_SHARED_KEYS,
    "1": "MAKE_WOOD_PICKAXE",
    "2": "MAKE_STONE_PICKAXE",
    "3": "MAKE_IRON_PICKAXE",
    "4": "MAKE_WOOD_SWORD",
    "5": "MAKE_STONE_SWORD",
    "6": "MAKE_IRON_SWORD",
}
FULL_KEYS = {
    **_SHARED_KEYS,
    "1": "MAKE_WOOD_PICKAXE",
    "2": "MAKE_STONE_PICKAXE",
    "3": "MAKE_IRON_PICKAXE",
    "4": "MAKE_DIAMOND_PICKAXE",
    "5": "MAKE_WOOD_SWORD",
    "6": "MAKE_STONE_SWORD",
    "7": "MAKE_IRON_SWORD",
    "8": "MAKE_DIAMOND_SWORD",
    "e": "REST",
    ",": "ASCEND",
    ".": "DESCEND",
    "y": "MAKE_IRON_ARMOUR",
    "u": "MAKE_DIAMOND_ARMOUR",
    "i": "SHOOT_ARROW",
    "o": "MAKE_ARROW",
    "g": "CAST_FIREBALL",
    "h": "CAST_ICEBALL",
    "j": "PLACE_TORCH",
    "z": "DRINK_POTION_RED",
    "x": "DRINK_POTION_GREEN",
    "c": "DRINK_POTION_BLUE",
    "v": "DRINK_POTION_PINK",
    "b": "DRINK_POTION_CYAN",
    "n": "DRINK_POTION_YELLOW",
    "m": "READ_BOOK",
    "k": "ENCHANT_SWORD",
    "l": "ENCHANT_ARMOUR",
    "[": "MAKE_TORCH",
    "]": "LEVEL_UP_DEXTERITY",
    "-": "LEVEL_UP_STRENGTH",
    "=": "LEVEL_UP_INTELLIGENCE",
    ";": "ENCHANT_BOW",
}
"""Craftax's own key maps (its ``play_craftax*`` scripts), as browser ``KeyboardEvent.key`` names."""


def keyboard(classic: bool) -> dict[str, tuple[int, str]]:
    """Key -> (action id, action name) of Craftax Classic or full Craftax."""
    actions = ClassicAction if classic else FullAction
    return {key: (actions[name].value, name.lower()) for key, name in (CLASSIC_KEYS if classic else FULL_KEYS).items()}


def version(classic: bool) -> Version:
    return CLASSIC if classic else FULL


@dataclass(frozen=True)
class Frame:
    """The parts of a Craftax state the checkers read.

    floor_map: (H, W) block ids of the player's floor; light_map: (H, W) light of its cells (full
    Craftax shows a cell only above ``LIGHT_THRESHOLD``; None in Classic, which hides no cell);
    position: (2,) row, column; facing: (2,) the cell in front of the player; inventory: (8,)
    counts of ``ITEMS``; achievements: (A,) bool; light: () in [0, 1]; floor: () int (0 in Classic)."""

    floor_map: Array
    light_map: Array | None
    position: Array
    facing: Array
    inventory: Array
    achievements: Array
    light: Array
    floor: Array


def frame(state, classic: bool) -> Frame:
    """``Frame`` of a Craftax (Classic or full) ``EnvState``."""
    inv = state.inventory
    counts = [inv.wood, inv.stone, inv.coal, inv.iron, inv.diamond, inv.sapling]
    if classic:
        floor, floor_map = jnp.int32(0), state.map
        light_map = None
        counts += [0, 0]
    else:
        floor = jnp.asarray(state.player_level, jnp.int32)
        floor_map = state.map[floor]
        light_map = state.light_map[floor]
        counts += [inv.ruby, inv.sapphire]
    position = jnp.asarray(state.player_position, jnp.int32)
    return Frame(
        floor_map=floor_map,
        light_map=light_map,
        position=position,
        facing=position + FACING[state.player_direction],
        inventory=jnp.stack([jnp.asarray(c, jnp.int32) for c in counts]),
        achievements=state.achievements,
        light=jnp.asarray(state.light_level, jnp.float32),
        floor=floor,
    )
