"""Text views of a board for language-model agents, all read from its knowledge graph
(``hexagons.kg``): one source of truth for every style. Tiles are named as instructors name them:
1-based ``(row, column)``, rows counted down their column, columns from the left.

Styles (``verbalise(graph, style)``, host side, numpy only): ``summary`` (colour counts, then runs
per column), ``grid`` (10 rows of 18 colour letters with a legend), ``triples`` (one
"subject | relation | object" line per fact). ``describe(board)`` and ``facts(board)`` are the
summary and the triples of a board.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from hexagons import kg as K
from hexagons.geometry import COLOUR_NAMES, COLS, NUM_TILES, ROWS, row_col
from hexagons.render import LETTERS, to_terminal

Fact = tuple[str, str, str]
STYLES = ("summary", "grid", "triples")


def tile_name(index: int) -> str:
    """``"tile (r, c)"`` with the 1-based row down the column and column from the left."""
    row, col = row_col(index)
    return f"tile ({row + 1}, {col + 1})"


def board_of(graph: dict) -> np.ndarray:
    """(180,) int8 board of one graph (its ``has colour`` facts)."""
    valid = np.asarray(graph["valid"]) & (np.asarray(graph["relation"]) == 0)
    board = np.zeros(NUM_TILES, np.int8)
    board[np.asarray(graph["subject"])[valid] - K.SCHEMA["entities"].index(tile_name(0))] = np.asarray(graph["object"])[valid]
    return board


def triples(graph: dict) -> list[Fact]:
    """The valid facts of one graph (numpy or JAX arrays, unbatched) as name triples, in order."""
    names, relations = K.SCHEMA["entities"], K.RELATIONS
    valid = np.asarray(graph["valid"])
    return [(names[s], relations[r], names[o]) for s, r, o in zip(*(np.asarray(graph[k])[valid].tolist() for k in ("subject", "relation", "object")))]


def summary(graph: dict) -> str:
    """Colour counts, then the runs of each column, of one graph's board."""
    board = board_of(graph)
    coloured = np.flatnonzero(board)
    if coloured.size == 0:
        return "The board is blank: all 180 tiles are white."
    counts = Counter(COLOUR_NAMES[c] for c in board[coloured])
    counted = ", ".join(f"{n} {name}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    lines = [f"{coloured.size} of 180 tiles are coloured ({counted}); the rest are white."]
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


def grid(graph: dict) -> str:
    """The board as letters on 21 aligned lines (``hexagons.render.to_terminal``) under a legend."""
    legend = ("Board, 10 rows x 18 columns: row 1 on top, column 1 on the left; tiles of even columns (2, 4, ...) "
              "sit half a row lower; letters: " + ", ".join(f"{letter} {name}" for letter, name in zip(LETTERS[1:], COLOUR_NAMES[1:])) + ", . white.")
    return legend + "\n" + to_terminal(board_of(graph))


def verbalise(graph: dict, style: str = "summary") -> str:
    """One graph in one of ``STYLES``."""
    if style not in STYLES:
        raise ValueError(f"unknown text style {style!r}; use one of {', '.join(STYLES)}")
    return {"summary": summary, "grid": grid, "triples": lambda g: "\n".join(map(" | ".join, triples(g)))}[style](graph)


def describe(board: np.ndarray) -> str:
    """The summary of a (180,) board."""
    return summary(K.graph(np.asarray(board)))


def facts(board: np.ndarray) -> list[Fact]:
    """The knowledge-graph triples of a (180,) board (colour, row and column of every coloured
    tile, and ``(a, "down", b)``-style links between coloured neighbours: b is directly below a)."""
    return triples(K.graph(np.asarray(board)))
