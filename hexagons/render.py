"""Pictures of a board (180,): a PNG with real hexagons and colours, and a terminal string."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from hexagons.geometry import COLS, NUM_TILES, ROWS, centre

RGB = (
    (255, 255, 255),  # white
    (30, 30, 30),  # black
    (250, 215, 40),  # yellow
    (60, 170, 75),  # green
    (220, 45, 45),  # red
    (45, 95, 215),  # blue
    (140, 60, 185),  # purple
    (245, 140, 30),  # orange
)
LETTERS = ".KYGRBPO"


def to_image(board: np.ndarray, radius: int = 20) -> Image.Image:
    """RGB image of the board: flat-topped hexagons of circumradius ``radius`` pixels."""
    board = np.asarray(board)
    margin = 2
    width = int(1.5 * radius * (COLS - 1) + 2 * radius) + 2 * margin
    height = int(math.sqrt(3) * radius * (ROWS + 0.5)) + 2 * margin
    image = Image.new("RGB", (width, height), (200, 200, 200))
    draw = ImageDraw.Draw(image)
    half = math.sqrt(3) / 2
    for index in range(NUM_TILES):
        x, y = centre(index)
        cx, cy = margin + radius * (1 + x), margin + radius * (half + y)
        corners = [(cx + radius * math.cos(math.pi / 3 * k), cy + radius * math.sin(math.pi / 3 * k)) for k in range(6)]
        draw.polygon(corners, fill=RGB[int(board[index])], outline=(90, 90, 90))
    return image


def save_png(board: np.ndarray, path: str | Path, radius: int = 20) -> None:
    to_image(board, radius).save(path)


def to_terminal(board: np.ndarray) -> str:
    """Letters on 21 text lines (``.`` white, K Y G R B P O for the colours); odd columns sit half a
    row lower, as on the board."""
    board = np.asarray(board)
    lines = [[" "] * (2 * COLS) for _ in range(2 * ROWS + 1)]
    for index in range(NUM_TILES):
        row, col = divmod(index, COLS)
        lines[2 * row + (col & 1)][2 * col] = LETTERS[int(board[index])]
    return "\n".join("".join(line).rstrip() for line in lines)
