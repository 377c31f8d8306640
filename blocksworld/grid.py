"""The build region of the Minecraft Collaborative Building Task, its colours and its action codes.

World coordinates: x, z in [-5, 5] horizontal, y in [1, 9] vertical (y = 1 rests on the floor).
A structure is an int8 grid of shape (11, 9, 11) indexed ``[x + 5, y - 1, z + 5]`` holding 0 for
an empty cell or a colour code 1..6 (``COLOURS``, alphabetical; the corpus's own type strings are
mapped by ``colour_code``).

Actions: ``((xi * 9 + yi) * 11 + zi) * 7 + k`` with ``k = 0..5`` placing colour ``k + 1`` and
``k = 6`` removing the block in the cell: 7623 actions, plus ``STOP = 7623``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

X_RANGE, Y_RANGE, Z_RANGE = (-5, 5), (1, 9), (-5, 5)
SHAPE = (11, 9, 11)
NUM_CELLS = SHAPE[0] * SHAPE[1] * SHAPE[2]
COLOURS = ("blue", "green", "orange", "purple", "red", "yellow")
NUM_COLOURS = len(COLOURS)
BLOCKS_PER_COLOUR = 20
ACTIONS_PER_CELL = NUM_COLOURS + 1
REMOVE = NUM_COLOURS  # the per-cell action index of a removal
NUM_CELL_ACTIONS = NUM_CELLS * ACTIONS_PER_CELL
STOP = NUM_CELL_ACTIONS
PLACE, PICK = "putdown", "pickup"
FACES = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
"""Grid steps to the six face-adjacent cells."""

Block = tuple[int, int, int, int]
"""(x, y, z, colour code) in world coordinates."""
Action = tuple[str, int, int, int, int]
"""(PLACE or PICK, x, y, z, colour code); a removal carries the colour of the removed block."""

_COLOUR_RE = re.compile("|".join(COLOURS))


def colour_code(type_string: str) -> int:
    """Colour code 1..6 of a corpus type string such as ``cwc_minecraft_red_rn``."""
    match = _COLOUR_RE.search(type_string)
    if match is None:
        raise ValueError(f"no colour in block type {type_string!r}")
    return COLOURS.index(match.group(0)) + 1


def in_region(x: int, y: int, z: int) -> bool:
    return X_RANGE[0] <= x <= X_RANGE[1] and Y_RANGE[0] <= y <= Y_RANGE[1] and Z_RANGE[0] <= z <= Z_RANGE[1]


def to_index(x: int, y: int, z: int) -> tuple[int, int, int]:
    """Grid index of world coordinates."""
    return x - X_RANGE[0], y - Y_RANGE[0], z - Z_RANGE[0]


def to_world(xi: int, yi: int, zi: int) -> tuple[int, int, int]:
    """World coordinates of a grid index."""
    return xi + X_RANGE[0], yi + Y_RANGE[0], zi + Z_RANGE[0]


def to_grid(blocks: Iterable[Block]) -> np.ndarray:
    """(11, 9, 11) int8 grid of blocks; raises ValueError for a block outside the region."""
    grid = np.zeros(SHAPE, dtype=np.int8)
    for x, y, z, colour in blocks:
        if not in_region(x, y, z):
            raise ValueError(f"block ({x}, {y}, {z}) is outside the build region")
        grid[to_index(x, y, z)] = colour
    return grid


def encode_action(action: Action) -> int:
    """Action code of a (type, x, y, z, colour) action."""
    kind, x, y, z, colour = action
    xi, yi, zi = to_index(x, y, z)
    k = colour - 1 if kind == PLACE else REMOVE
    return ((xi * SHAPE[1] + yi) * SHAPE[2] + zi) * ACTIONS_PER_CELL + k


def decode_action(code: int) -> tuple[tuple[int, int, int], int]:
    """(grid index, per-cell action k) of an action code < STOP."""
    cell, k = divmod(code, ACTIONS_PER_CELL)
    xy, zi = divmod(cell, SHAPE[2])
    xi, yi = divmod(xy, SHAPE[1])
    return (xi, yi, zi), k


def is_supported(grid: np.ndarray, xi: int, yi: int, zi: int) -> bool:
    """A placement into (xi, yi, zi) is supported: on the floor or face-adjacent to a block."""
    if yi == 0:
        return True
    for dx, dy, dz in FACES:
        a, b, c = xi + dx, yi + dy, zi + dz
        if 0 <= a < SHAPE[0] and 0 <= b < SHAPE[1] and 0 <= c < SHAPE[2] and grid[a, b, c]:
            return True
    return False


def apply_action(grid: np.ndarray, action: Action) -> bool:
    """Apply an action in place if feasible (placement: empty, supported cell; removal: a block of
    that colour is there). Returns whether it was feasible; an infeasible action changes nothing."""
    kind, x, y, z, colour = action
    if not in_region(x, y, z):
        return False
    idx = to_index(x, y, z)
    if kind == PLACE:
        if grid[idx] or not is_supported(grid, *idx):
            return False
        grid[idx] = colour
        return True
    if grid[idx] != colour:
        return False
    grid[idx] = 0
    return True
