"""Text views of a blocks-world state for language-model agents, all read from its knowledge graph
(``blocksworld.kg``): one source of truth for every style.

Styles (``verbalise(graph, style)``, host side, numpy only):
- ``summary``: block counts and the inventory, then one line per block: its colour and position,
  what it rests on and its same-layer neighbours in the Builder's frame ("left of the blue block
  at (-1, 1, 0)");
- ``grid``: each non-empty layer seen from above as aligned letters with an axis legend;
- ``triples``: one "subject | relation | object" line per fact.

``describe(grid, inventory, yaw)`` and ``facts(...)`` are the summary and the triples of a state.
``egocentric`` places a block relative to the Builder's pose.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from blocksworld import kg as K
from blocksworld.grid import COLOURS, SHAPE, X_RANGE, Z_RANGE

Fact = tuple[str, str, str]
STYLES = ("summary", "grid", "triples")
_CELLS = K.SCHEMA["entities"].index("block at (-5, 1, -5)")


def egocentric(block_xyz: tuple[int, int, int], pose: tuple[float, ...]) -> tuple[float, float, float]:
    """(right, up, ahead) of a block relative to the Builder at pose (x, y, z, yaw, pitch)."""
    rad = math.radians(pose[3])
    dx, dy, dz = block_xyz[0] - pose[0], block_xyz[1] - pose[1], block_xyz[2] - pose[2]
    return -dx * math.cos(rad) - dz * math.sin(rad), dy, -dx * math.sin(rad) + dz * math.cos(rad)


def triples(graph: dict) -> list[Fact]:
    """The valid facts of one graph (numpy or JAX arrays, unbatched) as name triples, in order."""
    names, relations = K.SCHEMA["entities"], K.RELATIONS
    valid = np.asarray(graph["valid"])
    return [
        (names[s], relations[r], names[o])
        for s, r, o in zip(*(np.asarray(graph[k])[valid].tolist() for k in ("subject", "relation", "object")))
    ]


def grid_of(graph: dict) -> np.ndarray:
    """(11, 9, 11) int8 grid of one graph (its ``has colour`` facts)."""
    valid = np.asarray(graph["valid"]) & (np.asarray(graph["relation"]) == K.RELATIONS.index("has colour"))
    grid = np.zeros(SHAPE, np.int8)
    grid.reshape(-1)[np.asarray(graph["subject"])[valid] - _CELLS] = np.asarray(graph["object"])[valid]
    return grid


def summary(graph: dict) -> str:
    """Counts, inventory and one line per block (module docstring) of one graph."""
    facts = triples(graph)
    colour = {s: o for s, r, o in facts if r == "has colour"}
    left = {s: o for s, r, o in facts if r == "amount"}
    counts = Counter(colour.values())
    lines = [
        (
            f"{len(colour)} blocks (" + ", ".join(f"{n} {c}" for c, n in sorted(counts.items())) + ")"
            if colour
            else "The build region is empty"
        )
        + ". Blocks left: "
        + (", ".join(f"{left[c]} {c}" for c in COLOURS if c in left) or "none")
        + "."
    ]
    about: dict[str, list[str]] = {}
    for s, r, o in facts:
        if s in colour and r != "has colour":
            about.setdefault(s, []).append(f"{r} " + ("the ground" if o == "ground" else f"the {colour[o]} {o}"))
    for block, parts in about.items():
        lines.append(f"{colour[block].capitalize()} {block}: " + "; ".join(parts) + ".")
    return "\n".join(lines)


def grid(graph: dict) -> str:
    """Each non-empty layer from above as letters (module docstring)."""
    cells = grid_of(graph)
    letters = np.array([".", *(c[0] for c in COLOURS)])
    out = [
        f"Layers seen from above: rows are z = {Z_RANGE[0]} (top) to {Z_RANGE[1]}, columns x = {X_RANGE[0]} (left) to {X_RANGE[1]}; "
        + ", ".join(f"{c[0]} {c}" for c in COLOURS)
        + ", . empty."
    ]
    for y in range(SHAPE[1]):
        layer = cells[:, y, :].T  # rows z, columns x
        if layer.any():
            out.append(f"Layer y = {y + 1}" + (" (on the ground)" if y == 0 else "") + ":")
            out += [" ".join(row) for row in letters[layer]]
    return "\n".join(out) if len(out) > 1 else out[0] + "\nThe build region is empty."


def verbalise(graph: dict, style: str = "summary") -> str:
    """One graph in one of ``STYLES``."""
    if style not in STYLES:
        raise ValueError(f"unknown text style {style!r}; use one of {', '.join(STYLES)}")
    return {"summary": summary, "grid": grid, "triples": lambda g: "\n".join(map(" | ".join, triples(g)))}[style](graph)


def describe(grid: np.ndarray, inventory: np.ndarray, yaw: float) -> str:
    """The summary of a state: grid (11, 9, 11), inventory (6,), Builder yaw in degrees."""
    return summary(K.graph(np.asarray(grid), np.asarray(inventory), np.float32(yaw)))


def facts(grid: np.ndarray, inventory: np.ndarray, yaw: float) -> list[Fact]:
    """The knowledge-graph triples of a state (``describe``'s arguments)."""
    return triples(K.graph(np.asarray(grid), np.asarray(inventory), np.float32(yaw)))
