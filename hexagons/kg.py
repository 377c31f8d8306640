"""Knowledge graph of a Hexagons board inside jit (JerichoWorld-style, exact).

``graph(board, capacity)`` turns a (180,) board into fixed-size int arrays: ``subject``,
``relation``, ``object`` (K,) int32 ids into ``SCHEMA``'s entity and relation names, ``valid``
(K,) bool and ``overflow`` () bool. Valid facts come first in (subject, relation, object) id order,
so two graphs are equal exactly when their arrays are. Facts, for every painted (non-white) tile:
``has colour``, ``row`` and ``column`` (1-based, as instructors count), and ``down`` /
``down right`` / ``up right`` to a painted neighbour along the board's three line directions.
The whole board is in view, so the ``observed`` and ``true`` scopes are the same graph.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from hexagons.geometry import COLOUR_NAMES, COLS, DIRECTIONS, LINE_DIRECTIONS, NEIGHBOUR_TABLE, NUM_TILES, ROWS, row_col

SCHEMA_VERSION = 1
SCOPES = ("observed", "true")
RELATIONS = ("has colour", "row", "column", *(d.replace("_", " ") for d in LINE_DIRECTIONS))
_NUMBERS = len(COLOUR_NAMES)  # entity id of the number "1"
_TILES = _NUMBERS + max(ROWS, COLS)  # entity id of tile 0
SCHEMA = {
    "world": "Hexagons",
    "version": SCHEMA_VERSION,
    "relations": RELATIONS,
    "entities": (
        *COLOUR_NAMES,
        *(str(n) for n in range(1, max(ROWS, COLS) + 1)),
        *(f"tile ({r + 1}, {c + 1})" for r, c in map(row_col, range(NUM_TILES))),
    ),
}
CAPACITY = NUM_TILES * len(RELATIONS)  # every candidate fact: never overflows
_ROW_COL = np.array([row_col(i) for i in range(NUM_TILES)], np.int32)
_LINES = NEIGHBOUR_TABLE[:, [list(DIRECTIONS).index(d) for d in LINE_DIRECTIONS]]


def graph(board: Array, capacity: int = CAPACITY) -> dict[str, Array]:
    """The knowledge graph (module docstring) of a (180,) int board."""
    painted = board != 0
    tiles = _TILES + jnp.arange(NUM_TILES)
    neighbour = jnp.asarray(_LINES)
    obj = jnp.concatenate([board[:, None].astype(jnp.int32), _NUMBERS + jnp.asarray(_ROW_COL), _TILES + neighbour], axis=1)
    present = jnp.concatenate(
        [jnp.repeat(painted[:, None], 3, 1), painted[:, None] & (neighbour >= 0) & painted[jnp.maximum(neighbour, 0)]], axis=1
    )
    # slots are (tile, relation) in id order with one object each: compaction keeps canonical order
    slot = jnp.flatnonzero(present, size=capacity, fill_value=0)
    count = present.sum()
    valid = jnp.arange(capacity) < count
    return {
        "subject": jnp.where(valid, tiles[slot // len(RELATIONS)], 0),
        "relation": jnp.where(valid, slot % len(RELATIONS), 0),
        "object": jnp.where(valid, obj.reshape(-1)[slot], 0),
        "valid": valid,
        "overflow": count > capacity,
    }
