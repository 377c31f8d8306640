"""Text views of a board for language-model agents, all read from its knowledge graph
(``hexagons.kg``): one source of truth for every style. Tiles are named as instructors name them:
1-based ``(row, column)``, rows counted down their column, columns from the left.

Styles (``verbalise(graph, style)``, host side, numpy only): ``summary`` (colour counts, then runs
per column), ``grid`` (10 rows of 18 colour letters with a legend), ``triples`` (one
"subject | relation | object" line per fact). ``describe(board)`` and ``facts(board)`` are the
summary and the triples of a board.
"""

from __future__ import annotations

import functools

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


_FIRST_TILE = K.SCHEMA["entities"].index(tile_name(0))


def board_of(graph: dict) -> np.ndarray:
    """(180,) int8 board of one graph (its ``has colour`` facts)."""
    valid = np.asarray(graph["valid"]) & (np.asarray(graph["relation"]) == 0)
    board = np.zeros(NUM_TILES, np.int8)
    board[np.asarray(graph["subject"])[valid] - _FIRST_TILE] = np.asarray(graph["object"])[valid]
    return board


def triples(graph: dict) -> list[Fact]:
    """The valid facts of one graph (numpy or JAX arrays, unbatched) as name triples, in order."""
    names, relations = K.SCHEMA["entities"], K.RELATIONS
    valid = np.asarray(graph["valid"])
    return [
        (names[s], relations[r], names[o])
        for s, r, o in zip(*(np.asarray(graph[k])[valid].tolist() for k in ("subject", "relation", "object")))
    ]


def summary(graph: dict) -> str:
    """Colour counts, then the runs of each column, of one graph's board."""
    board = board_of(graph)
    counts = np.bincount(board, minlength=len(COLOUR_NAMES)).tolist()
    coloured = NUM_TILES - counts[0]
    if not coloured:
        return "The board is blank: all 180 tiles are white."
    ranked = sorted((-n, name) for n, name in zip(counts[1:], COLOUR_NAMES[1:]) if n)  # most first, then by name
    counted = ", ".join(f"{-n} {name}" for n, name in ranked)
    columns = board.reshape(ROWS, COLS).T.tobytes()  # column-major: ROWS bytes per column
    lines = (_column_line(col, columns[col * ROWS : (col + 1) * ROWS]) for col in range(COLS))
    return "\n".join([f"{coloured} of 180 tiles are coloured ({counted}); the rest are white.", *filter(None, lines)])


@functools.lru_cache(maxsize=1 << 16)
def _column_line(col: int, column: bytes) -> str:
    """``"Column c: tiles 1-3 red, tile 5 blue."`` for the (10,) int8 colours of a column ("" if white)."""
    runs, values, row = [], np.frombuffer(column, np.int8), 0
    while row < ROWS:
        end = row
        while end + 1 < ROWS and values[end + 1] == values[row]:
            end += 1
        if values[row]:
            where = f"tile {row + 1}" if end == row else f"tiles {row + 1}-{end + 1}"
            runs.append(f"{where} {COLOUR_NAMES[values[row]]}")
        row = end + 1
    return f"Column {col + 1}: {', '.join(runs)}." if runs else ""


def grid(graph: dict) -> str:
    """The board as letters on 21 aligned lines (``hexagons.render.to_terminal``) under a legend."""
    legend = (
        "Board, 10 rows x 18 columns: row 1 on top, column 1 on the left; tiles of even columns (2, 4, ...) "
        "sit half a row lower; letters: "
        + ", ".join(f"{letter} {name}" for letter, name in zip(LETTERS[1:], COLOUR_NAMES[1:]))
        + ", . white."
    )
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
