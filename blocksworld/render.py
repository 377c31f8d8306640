"""Pictures of a structure: PNG voxels seen from the Builder's side, and text layers.

``to_image`` turns the region so that the Builder's facing direction (yaw snapped to the nearest
quarter turn) points into the picture, then draws the cubes in an oblique projection, far and low
ones first. ``to_layers`` prints one 11 x 11 character map per height with blocks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from blocksworld.grid import COLOURS, SHAPE

RGB = {
    "blue": (45, 95, 215),
    "green": (60, 170, 75),
    "orange": (245, 140, 30),
    "purple": (140, 60, 185),
    "red": (220, 45, 45),
    "yellow": (250, 215, 40),
}
LETTERS = ".BGOPRY"  # empty, then the colours in code order


def builder_view(grid: np.ndarray, yaw: float) -> np.ndarray:
    """The grid rotated about the vertical axis so that axis 2 points the way the Builder faces
    (yaw snapped to a quarter turn) and axis 0 to the Builder's right."""
    quarter = int(np.round(yaw / 90.0)) % 4
    # yaw 0 faces +z with +x on the left: mirror x so that axis 0 runs to the right.
    view = np.asarray(grid)[::-1]
    return np.rot90(view, k=quarter, axes=(0, 2))


def _shade(rgb: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    return tuple(int(c * factor) for c in rgb)


def to_image(grid: np.ndarray, yaw: float = 0.0, cell: int = 24) -> Image.Image:
    """RGB picture of the structure from the Builder's side (front faces, tops, right sides)."""
    view = builder_view(grid, yaw)
    nx, ny, nz = SHAPE
    depth = cell // 2
    width = nx * cell + nz * depth + 2 * cell
    height = ny * cell + nz * depth + 2 * cell
    image = Image.new("RGB", (width, height), (235, 235, 235))
    draw = ImageDraw.Draw(image)

    def corner(x: float, y: float, z: float) -> tuple[float, float]:
        return cell + x * cell + z * depth, height - cell - y * cell - z * depth

    floor = [corner(0, 0, 0), corner(nx, 0, 0), corner(nx, 0, nz), corner(0, 0, nz)]
    draw.polygon(floor, fill=(205, 205, 205), outline=(150, 150, 150))
    for z in range(nz - 1, -1, -1):
        for y in range(ny):
            for x in range(nx):
                code = int(view[x, y, z])
                if not code:
                    continue
                rgb = RGB[COLOURS[code - 1]]
                top = [corner(x, y + 1, z), corner(x + 1, y + 1, z), corner(x + 1, y + 1, z + 1), corner(x, y + 1, z + 1)]
                side = [corner(x + 1, y, z), corner(x + 1, y, z + 1), corner(x + 1, y + 1, z + 1), corner(x + 1, y + 1, z)]
                front = [corner(x, y, z), corner(x + 1, y, z), corner(x + 1, y + 1, z), corner(x, y + 1, z)]
                draw.polygon(side, fill=_shade(rgb, 0.7), outline=(40, 40, 40))
                draw.polygon(top, fill=_shade(rgb, 1.0), outline=(40, 40, 40))
                draw.polygon(front, fill=_shade(rgb, 0.85), outline=(40, 40, 40))
    return image


def save_png(grid: np.ndarray, path: str | Path, yaw: float = 0.0, cell: int = 24) -> None:
    to_image(grid, yaw, cell).save(path)


def to_layers(grid: np.ndarray, yaw: float | None = None) -> str:
    """One character map per occupied height (``.`` empty, B G O P R Y colours). Rows run from
    far to near and columns from left to right as the Builder sees them when ``yaw`` is given, else
    rows are z from -5 to 5 and columns x from -5 to 5."""
    view = builder_view(grid, yaw) if yaw is not None else np.asarray(grid)
    blocks = []
    for y in range(SHAPE[1]):
        layer = view[:, y, :]
        if not layer.any():
            continue
        rows = [layer[:, z] for z in (range(SHAPE[2] - 1, -1, -1) if yaw is not None else range(SHAPE[2]))]
        blocks.append(f"y={y + 1}\n" + "\n".join("".join(LETTERS[int(c)] for c in row) for row in rows))
    return "\n\n".join(blocks) if blocks else "(empty)"
