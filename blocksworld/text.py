"""Text views of a structure for language-model agents, relative to the Builder.

``describe(grid, pose)``: one English line per block, e.g. "a red block 2 left and 3 ahead of you,
on the ground". ``facts(grid, pose)``: knowledge-graph triples (block, colour, position, and
on-top-of / left-of / right-of / in-front-of / behind between face-adjacent blocks, in the Builder's
frame of reference).
"""

from __future__ import annotations

import math

import numpy as np

from blocksworld.grid import COLOURS, to_blocks

Fact = tuple[str, str, str]


def _frame(yaw: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """(forward, right) unit vectors in the (x, z) plane for a Minecraft yaw in degrees."""
    rad = math.radians(yaw)
    return (-math.sin(rad), math.cos(rad)), (-math.cos(rad), -math.sin(rad))


def egocentric(block_xyz: tuple[int, int, int], pose: tuple[float, ...]) -> tuple[float, float, float]:
    """(right, up, ahead) of a block relative to the Builder at pose (x, y, z, yaw, pitch)."""
    (fx, fz), (rx, rz) = _frame(pose[3])
    dx, dy, dz = block_xyz[0] - pose[0], block_xyz[1] - pose[1], block_xyz[2] - pose[2]
    return dx * rx + dz * rz, dy, dx * fx + dz * fz


def _name(block: tuple[int, int, int, int]) -> str:
    x, y, z, colour = block
    return f"{COLOURS[colour - 1]} block at ({x}, {y}, {z})"


def describe(grid: np.ndarray, pose: tuple[float, ...]) -> str:
    """English description of every block relative to the Builder, nearest first."""
    blocks = to_blocks(grid)
    if not blocks:
        return "The build region is empty."
    lines = []
    for block in sorted(blocks, key=lambda b: math.dist(b[:3], pose[:3])):
        right, _, ahead = egocentric(block[:3], pose)
        side = f"{abs(right):.0f} {'right' if right >= 0 else 'left'}"
        depth = f"{abs(ahead):.0f} {'ahead of' if ahead >= 0 else 'behind'}"
        height = "on the ground" if block[1] == 1 else f"at height {block[1]}"
        colour = COLOURS[block[3] - 1]
        lines.append(f"{'an' if colour[0] in 'aeiou' else 'a'} {colour} block {side} and {depth} you, {height}")
    return f"{len(blocks)} blocks: " + "; ".join(lines) + "."


def facts(grid: np.ndarray, pose: tuple[float, ...]) -> list[Fact]:
    """(subject, relation, object) triples of a structure, spatial ones in the Builder's frame."""
    blocks = to_blocks(grid)
    cells = {b[:3]: b for b in blocks}
    out: list[Fact] = []
    for block in blocks:
        name = _name(block)
        out.append((name, "has colour", COLOURS[block[3] - 1]))
        if block[1] == 1:
            out.append((name, "is on", "the ground"))
    (fx, fz), (rx, rz) = _frame(pose[3])
    for block in blocks:
        x, y, z, _ = block
        below = cells.get((x, y - 1, z))
        if below:
            out.append((_name(block), "on top of", _name(below)))
        for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            other = cells.get((x + dx, y, z + dz))
            if other is None:
                continue
            right, ahead = dx * rx + dz * rz, dx * fx + dz * fz
            if abs(right) > abs(ahead):
                relation = "left of" if right > 0 else "right of"
            else:
                relation = "in front of" if ahead > 0 else "behind"
            out.append((_name(block), relation, _name(other)))
    return out
