"""Text views of a board for language-model agents: an English description and (subject,
relation, object) facts. Tiles are named as instructors name them: 1-based ``(row, column)``,
rows counted down their column, columns from the left."""

from __future__ import annotations

from collections import Counter

import numpy as np

from hexagons.geometry import COLOUR_NAMES, COLS, LINE_DIRECTIONS, ROWS, neighbour, row_col

Fact = tuple[str, str, str]


def tile_name(index: int) -> str:
    """``"tile (r, c)"`` with the 1-based row down the column and column from the left."""
    row, col = row_col(index)
    return f"tile ({row + 1}, {col + 1})"


def describe(board: np.ndarray) -> str:
    """A short English description of a board (180,): colour counts, then runs per column."""
    board = np.asarray(board)
    coloured = np.flatnonzero(board)
    if coloured.size == 0:
        return "The board is blank: all 180 tiles are white."
    counts = Counter(COLOUR_NAMES[c] for c in board[coloured])
    summary = ", ".join(f"{n} {name}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    lines = [f"{coloured.size} of 180 tiles are coloured ({summary}); the rest are white."]
    for col in range(COLS):
        column = board[col::COLS]
        runs, row = [], 0
        while row < ROWS:
            end = row
            while end + 1 < ROWS and column[end + 1] == column[row]:
                end += 1
            if column[row]:
                where = f"tile {row + 1}" if end == row else f"tiles {row + 1}-{end + 1}"
                runs.append(f"{where} {COLOUR_NAMES[column[row]]}")
            row = end + 1
        if runs:
            lines.append(f"Column {col + 1}: {', '.join(runs)}.")
    return "\n".join(lines)


def facts(board: np.ndarray) -> list[Fact]:
    """Colour of every coloured tile, and how coloured tiles touch each other along the board's
    three line directions (``(a, "down", b)``: b is directly below a)."""
    board = np.asarray(board)
    out: list[Fact] = []
    for index in np.flatnonzero(board):
        out.append((tile_name(index), "has colour", COLOUR_NAMES[board[index]]))
    for index in np.flatnonzero(board):
        for direction in LINE_DIRECTIONS:
            other = neighbour(int(index), direction)
            if other >= 0 and board[other]:
                out.append((tile_name(index), direction.replace("_", " "), tile_name(other)))
    return out

