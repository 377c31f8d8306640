"""Geometry of the Hexagons board: 10 rows x 18 columns of flat-topped hexagons.

Tiles are indexed row-major, ``index = row * 18 + col``, row 0 at the top and column 0 at the
left, exactly as the released JSONL stores boards. Columns with an odd 0-based index are shifted
down by half a tile ("odd-q" offset layout), so a fixed row is a zigzag and the straight lines of
the board are the vertical and the two diagonal directions.

Every transformation works in axial coordinates ``(q, r_ax) = (col, row - (col - col % 2) // 2)``
and returns ``-1`` for a tile that lands off the board: reflections and rotations of a
rectangle of hexagons are only partial symmetries.
"""

from __future__ import annotations

import math

import numpy as np

ROWS = 10
COLS = 18
NUM_TILES = ROWS * COLS
COLOUR_NAMES = ("white", "black", "yellow", "green", "red", "blue", "purple", "orange")
NUM_COLOURS = len(COLOUR_NAMES)
OFF_BOARD = -1

# Axial steps of the six neighbour directions of a flat-topped hexagon.
DIRECTIONS: dict[str, tuple[int, int]] = {
    "up": (0, -1),
    "up_right": (1, -1),
    "down_right": (1, 0),
    "down": (0, 1),
    "down_left": (-1, 1),
    "up_left": (-1, 0),
}
# The three straight-line families, named by their forward direction.
LINE_DIRECTIONS = ("down", "down_right", "up_right")


def tile_index(row: int, col: int) -> int:
    """Index of the tile at 0-based ``(row, col)``, or -1 when off the board."""
    if 0 <= row < ROWS and 0 <= col < COLS:
        return row * COLS + col
    return OFF_BOARD


def row_col(index: int) -> tuple[int, int]:
    """0-based ``(row, col)`` of a tile index in [0, 180)."""
    if not 0 <= index < NUM_TILES:
        raise ValueError(f"tile index {index} is outside [0, {NUM_TILES})")
    return divmod(index, COLS)


def to_axial(index: int) -> tuple[int, int]:
    """Axial coordinates ``(q, r_ax)`` of a tile."""
    row, col = row_col(index)
    return col, row - (col - (col & 1)) // 2


def from_axial(q: int, r_ax: int) -> int:
    """Tile index of axial ``(q, r_ax)``, or -1 when off the board."""
    return tile_index(r_ax + (q - (q & 1)) // 2, q)


def centre(index: int) -> tuple[float, float]:
    """Centre of a tile in units of the hexagon's circumradius; x to the right, y downwards."""
    row, col = row_col(index)
    return 1.5 * col, math.sqrt(3.0) * (row + 0.5 * (col & 1))


def neighbour(index: int, direction: str) -> int:
    """The adjacent tile in ``direction`` (a key of ``DIRECTIONS``), or -1 when off the board."""
    dq, dr = DIRECTIONS[direction]
    q, r_ax = to_axial(index)
    return from_axial(q + dq, r_ax + dr)


def neighbours(index: int) -> list[int]:
    """On-board neighbours of a tile, in ``DIRECTIONS`` order (2 to 6 tiles)."""
    return [n for n in (neighbour(index, d) for d in DIRECTIONS) if n != OFF_BOARD]


def line(start: int, direction: str, length: int) -> list[int]:
    """``length`` tiles from ``start`` stepping in ``direction``; off-board tiles are -1."""
    tiles = [start]
    for _ in range(length - 1):
        tiles.append(OFF_BOARD if tiles[-1] == OFF_BOARD else neighbour(tiles[-1], direction))
    return tiles


def _relative(index: int, about: int) -> tuple[int, int]:
    q, r_ax = to_axial(index)
    q0, r0 = to_axial(about)
    return q - q0, r_ax - r0


def _absolute(dq: int, dr: int, about: int) -> int:
    q0, r0 = to_axial(about)
    return from_axial(q0 + dq, r0 + dr)


def rotate(index: int, about: int, sixths: int) -> int:
    """Rotate a tile clockwise by ``sixths`` x 60 degrees about the centre of tile ``about``."""
    dq, dr = _relative(index, about)
    x, z = dq, dr
    y = -x - z
    for _ in range(sixths % 6):
        x, y, z = -z, -x, -y
    return _absolute(x, z, about)


def reflect(index: int, about: int, axis: str) -> int:
    """Mirror a tile in the vertical (``axis="vertical"``: left <-> right) or horizontal
    (``axis="horizontal"``: top <-> bottom) line through the centre of tile ``about``."""
    dq, dr = _relative(index, about)
    if axis == "vertical":
        return _absolute(-dq, dr + dq, about)
    if axis == "horizontal":
        return _absolute(dq, -dr - dq, about)
    raise ValueError(f"unknown axis {axis!r}: use 'vertical' or 'horizontal'")


def transform_board(board: np.ndarray, tile_map: np.ndarray) -> np.ndarray:
    """Apply a tile permutation to a board (180,) -> (180,).

    ``tile_map[i]`` is where tile ``i`` goes (or -1 to drop it); tiles nothing maps to are blank.
    """
    board = np.asarray(board)
    out = np.zeros_like(board)
    keep = tile_map != OFF_BOARD
    out[tile_map[keep]] = board[keep]
    return out


def tile_map(fn, *args) -> np.ndarray:
    """Tabulate a per-tile transformation ``fn(index, *args)`` into a (180,) int array."""
    return np.array([fn(i, *args) for i in range(NUM_TILES)], dtype=np.int32)


def _neighbour_table() -> np.ndarray:
    table = np.full((NUM_TILES, len(DIRECTIONS)), OFF_BOARD, dtype=np.int32)
    for i in range(NUM_TILES):
        for j, d in enumerate(DIRECTIONS):
            table[i, j] = neighbour(i, d)
    return table


NEIGHBOUR_TABLE: np.ndarray = _neighbour_table()
"""(180, 6) int32: the neighbour of each tile in each of ``DIRECTIONS``, -1 when off the board."""
