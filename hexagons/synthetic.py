"""Synthetic drawing procedures: explicit, checkable instructions on the real board geometry.

Each instruction paints one primitive named with 1-based rows ("tiles from the top") and columns
("from the left"), the way Hexagons instructors talk about the board: one tile, a vertical run in a
column, a diagonal, the ring of tiles around a tile, a whole column, or erasing a tile. Boards are
cumulative, so a procedure has the same shape as a released one and every tool of the package
(env, metrics, baseline) runs on it. Deterministic given a seed.
"""

from __future__ import annotations

import zlib

import numpy as np

from hexagons.geometry import COLOUR_NAMES, COLS, NUM_TILES, ROWS, line, neighbours, tile_index
from hexagons.procedure import Procedure

ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth"
).split()
PAINTED = tuple(range(1, len(COLOUR_NAMES)))
DIAGONALS = {"down_right": "down and to the right", "up_right": "up and to the right"}


def _tile(rng: np.random.Generator, row: int, col: int) -> str:
    frames = (
        "the {r} tile from the top in the {c} column",
        "the {r} tile of the {c} column from the left",
        "tile {rn} of column {cn}",
    )
    return str(rng.choice(frames)).format(r=ORDINALS[row], c=ORDINALS[col], rn=row + 1, cn=col + 1)


KINDS = {"tile": 0.3, "run": 0.2, "diagonal": 0.15, "ring": 0.15, "column": 0.1, "erase": 0.1}
"""Instruction kinds and their probabilities."""

HELD_OUT_EVERY = 5
"""One single-tile combination (``held_out_tile``) or other meaning (``held_out_meaning``) in about
this many is held out."""


def held_out_tile(row: int, col: int, colour: int) -> bool:
    """Whether painting tile (``row``, ``col``) (0-based) in ``colour`` (1..7) is one of the
    combinations held out of training: 252 of the 1,260, among them every row, column and colour
    (the combination's index, row-major then colour, is a multiple of ``HELD_OUT_EVERY``)."""
    return ((row * COLS + col) * len(PAINTED) + colour - 1) % HELD_OUT_EVERY == 0


def held_out_meaning(meaning: tuple) -> bool:
    """Whether an instruction of this meaning (its kind, then the numbers that fix its text but for
    the wording: e.g. ``("run", column, first, last, colour)``, 0-based) is held out of training:
    single tiles by ``held_out_tile``, other kinds when a stable hash (CRC-32) of the meaning is a
    multiple of ``HELD_OUT_EVERY``."""
    if meaning[0] == "tile":
        return held_out_tile(*meaning[1:])
    return zlib.crc32(repr(meaning).encode()) % HELD_OUT_EVERY == 0


def _instruction(
    rng: np.random.Generator, board: np.ndarray, kinds: tuple[str, ...], held_out: bool | None = None
) -> tuple[str, list[int], int]:
    """One random instruction of one of ``kinds``: (text, tiles it paints, colour code), of a
    meaning ``held_out_meaning`` holds out (``held_out`` True) or of another (False), where
    ``held_out`` is not None."""
    text, tiles, colour, meaning = _draw(rng, board, kinds, held_out)
    while held_out is not None and held_out_meaning(meaning) != held_out:
        # Redrawn within the same kind, so the held-out mix of kinds stays KINDS'.
        text, tiles, colour, meaning = _draw(rng, board, (meaning[0],), held_out)
    return text, tiles, colour


def _draw(rng: np.random.Generator, board: np.ndarray, kinds: tuple[str, ...], held_out: bool | None) -> tuple[str, list[int], int, tuple]:
    """``_instruction``'s candidate with its meaning; single tiles (and erased tiles) are drawn of
    the ``held_out`` class directly."""
    colour = int(rng.choice(PAINTED))
    row, col = int(rng.integers(ROWS)), int(rng.integers(COLS))
    weights = np.asarray([KINDS[k] for k in kinds])
    kind = rng.choice(list(kinds), p=weights / weights.sum())
    while kind == "tile" and held_out is not None and held_out_tile(row, col, colour) != held_out:
        colour, row, col = int(rng.choice(PAINTED)), int(rng.integers(ROWS)), int(rng.integers(COLS))
    name = COLOUR_NAMES[colour]
    erasable = np.flatnonzero(board) if kind == "erase" else []
    if held_out is not None:
        erasable = [t for t in erasable if held_out_meaning(("erase", *divmod(int(t), COLS))) == held_out]
    if len(erasable):
        tile = int(rng.choice(erasable))
        r, c = divmod(tile, COLS)
        return f"Erase {_tile(rng, r, c)}; make it white again.", [tile], 0, ("erase", r, c)
    if kind == "run":
        length = int(rng.integers(2, ROWS - row + 1)) if row < ROWS - 1 else 1
        last = row + length - 1
        text = str(
            rng.choice(
                (
                    "In the {c} column, colour tiles {a} through {b} from the top {k}.",
                    "Paint {k} the tiles {a} to {b} of column {cn}.",
                )
            )
        ).format(c=ORDINALS[col], cn=col + 1, a=row + 1, b=last + 1, k=name)
        return text, [tile_index(r, col) for r in range(row, last + 1)], colour, ("run", col, row, last, colour)
    if kind == "diagonal":
        direction = str(rng.choice(list(DIAGONALS)))
        tiles = [t for t in line(tile_index(row, col), direction, int(rng.integers(2, 6))) if t >= 0]
        text = f"Starting at {_tile(rng, row, col)}, paint {len(tiles)} tiles {name} going {DIAGONALS[direction]}."
        return text, tiles, colour, ("diagonal", row, col, direction, len(tiles), colour)
    if kind == "ring":
        centre = tile_index(row, col)
        return f"Colour every tile touching {_tile(rng, row, col)} {name}.", neighbours(centre), colour, ("ring", row, col, colour)
    if kind == "column":
        return f"Paint the whole {ORDINALS[col]} column {name}.", [tile_index(r, col) for r in range(ROWS)], colour, ("column", col, colour)
    text = str(rng.choice(("Paint {t} {k}.", "Colour {t} {k}.", "Make {t} {k}."))).format(t=_tile(rng, row, col), k=name)
    return text, [tile_index(row, col)], colour, ("tile", row, col, colour)


def generate(
    num_procedures: int,
    seed: int = 0,
    min_steps: int = 2,
    max_steps: int = 8,
    kinds: tuple[str, ...] = tuple(KINDS),
    held_out: bool | None = None,
) -> list[Procedure]:
    """``num_procedures`` procedures of ``min_steps..max_steps`` instructions each, of the
    instruction ``kinds`` (default all, in the ``KINDS`` proportions; e.g. ``("tile",)``: single
    tiles only). ``held_out`` True / False: instructions only of the meanings ``held_out_meaning``
    holds out / only of the others, so that test procedures share no instruction, in meaning or
    text, with training ones; None: any."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not kinds:
        raise ValueError(f"kinds {kinds!r}: use a non-empty subset of {', '.join(KINDS)}")
    rng = np.random.default_rng(seed)
    procedures = []
    for index in range(num_procedures):
        num_steps = int(rng.integers(min_steps, max_steps + 1))
        boards = np.zeros((num_steps + 1, NUM_TILES), dtype=np.int8)
        texts = []
        for t in range(1, num_steps + 1):
            text, tiles, colour = _instruction(rng, boards[t - 1], tuple(kinds), held_out)
            boards[t] = boards[t - 1]
            boards[t, tiles] = colour
            texts.append(text)
        procedures.append(
            Procedure(
                index=index,
                annotation_round=-1,
                category="synthetic",
                image_id=f"SYN{index:06d}",
                instructor_id=0,
                texts=tuple(texts),
                boards=boards,
            )
        )
    return procedures
