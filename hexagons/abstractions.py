"""Synthetic procedures rich in abstraction: every instruction is a small program on the board.

The Hexagons paper targets abstraction mechanisms (its section 3.2 and Table 4): objects, bounded
iteration, conditional iteration, conditional statements, functions and symmetry. Each family
here (``MECHANISMS``) writes instructions the way people do for one mechanism, with several
sentence frames and synonyms, and records the program that produces the step's gold board from
the previous board (``execute``), so a step's board is always its program's output.

A program is a dict with an ``op`` and its arguments; 0-based rows and columns, colour codes:
- ``tile`` (row, col, colour); ``line`` (row, col, direction, length or None = to the edge, colour);
  ``ring`` (row, col, colour, centre: a colour or None); ``every_other`` (col, start, colour);
  ``fill_row`` (row, colour); ``fill_blank`` (col0, col1, colour): the blank tiles of columns
  col0..col1;
- ``recolour`` (source, colour); ``below`` (anchor, colour): the blank tile right below every tile of
  the anchor colour; ``column_if`` (col, colour, source): the tiles of a column that have colour
  ``source``;
- ``copy`` (rows, cols, times or None = while the copy fits on the board): the previous step's
  paints again, shifted ``rows`` down and ``cols`` right (an even number: columns keep their
  offset, so the shape is the same), ``times`` times; ``mirror`` (col): the previous step's paints
  mirrored in the vertical line through column ``col``.

``generate`` writes procedures (``hexagons.procedure.Procedure``, the released format; ``category``
is the paper's category of the procedure's most frequent mechanism) and their per-step mechanisms
and programs (``Synthetic``). ``write`` saves both: the released JSONL that ``hexagons.data`` reads
unchanged, and ``<name>.programs.jsonl`` beside it.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hexagons.geometry import COLOUR_NAMES, COLS, NUM_TILES, OFF_BOARD, ROWS, line, neighbours, tile_index
from hexagons.procedure import Procedure

MECHANISMS = {
    "explicit": "simple",
    "line": "composed objects",
    "shape": "composed objects",
    "every_other": "bounded iteration",
    "bounded": "bounded iteration",
    "until_edge": "conditional iteration",
    "conditional": "conditions",
    "reference": "other",
    "symmetry": "symmetry",
    "fill": "composed objects",
}
"""Mechanism -> the paper's category it belongs to."""
WEIGHTS = {
    "explicit": 0.16,
    "line": 0.1,
    "shape": 0.1,
    "every_other": 0.08,
    "bounded": 0.12,
    "until_edge": 0.1,
    "conditional": 0.1,
    "reference": 0.08,
    "symmetry": 0.08,
    "fill": 0.08,
}
ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth"
).split()
NUMBERS = "one two three four five six seven eight nine ten".split()
PAINTED = tuple(range(1, len(COLOUR_NAMES)))
DIRECTION_WORDS = {
    "down": ("down", "downwards"),
    "down_right": ("down and to the right", "diagonally down-right"),
    "up_right": ("up and to the right", "diagonally up-right"),
    "up": ("up", "upwards"),
    "down_left": ("down and to the left", "diagonally down-left"),
    "up_left": ("up and to the left", "diagonally up-left"),
}
VERBS = ("Paint", "Colour", "Color", "Fill in", "Make")


# ----------------------------------------------------------------------------- programs
def _tiles(program: dict, board: np.ndarray, previous: np.ndarray | None) -> tuple[list[int], list[int]]:
    """(tiles, colours) a program paints on ``board`` (``previous``: the board before the previous step)."""
    op = program["op"]
    if op == "tile":
        return [tile_index(program["row"], program["col"])], [program["colour"]]
    if op == "line":
        start = tile_index(program["row"], program["col"])
        tiles = line(start, program["direction"], program["length"] or ROWS + COLS)
        tiles = tiles[: tiles.index(OFF_BOARD)] if OFF_BOARD in tiles else tiles
        return tiles, [program["colour"]] * len(tiles)
    if op == "ring":
        centre = tile_index(program["row"], program["col"])
        ring = neighbours(centre)
        head = [(centre, program["centre"])] if program["centre"] is not None else []
        pairs = head + [(t, program["colour"]) for t in ring]
        return [t for t, _ in pairs], [c for _, c in pairs]
    if op == "every_other":
        tiles = [tile_index(r, program["col"]) for r in range(program["start"], ROWS, 2)]
        return tiles, [program["colour"]] * len(tiles)
    if op == "fill_row":
        return [tile_index(program["row"], c) for c in range(COLS)], [program["colour"]] * COLS
    if op == "fill_blank":
        tiles = [tile_index(r, c) for c in range(program["col0"], program["col1"] + 1) for r in range(ROWS) if board[tile_index(r, c)] == 0]
        return tiles, [program["colour"]] * len(tiles)
    if op == "recolour":
        tiles = np.flatnonzero(board == program["source"]).tolist()
        return tiles, [program["colour"]] * len(tiles)
    if op == "below":
        tiles = [t + COLS for t in np.flatnonzero(board == program["anchor"]).tolist() if t + COLS < NUM_TILES and board[t + COLS] == 0]
        return tiles, [program["colour"]] * len(tiles)
    if op == "column_if":
        tiles = [tile_index(r, program["col"]) for r in range(ROWS) if board[tile_index(r, program["col"])] == program["source"]]
        return tiles, [program["colour"]] * len(tiles)
    if op in ("copy", "mirror"):
        if previous is None:
            raise ValueError(f"{op} refers to the previous step, and there is none")
        changed = np.flatnonzero(board != previous)
        shape = [(*divmod(int(t), COLS), int(board[t])) for t in changed]
        if op == "mirror":
            moved = [tile_index(r, 2 * program["col"] - c) for r, c, _ in shape]
            pairs = [(t, colour) for t, (_, _, colour) in zip(moved, shape) if t != OFF_BOARD]
            return [t for t, _ in pairs], [c for _, c in pairs]
        pairs, k = [], 1
        while program["times"] is None or k <= program["times"]:
            copy = [(tile_index(r + k * program["rows"], c + k * program["cols"]), colour) for r, c, colour in shape]
            if program["times"] is None and any(t == OFF_BOARD for t, _ in copy):
                break
            pairs += [(t, colour) for t, colour in copy if t != OFF_BOARD]
            k += 1
        return [t for t, _ in pairs], [c for _, c in pairs]
    raise ValueError(f"unknown program op {op!r}")


def execute(program: dict, board: np.ndarray, previous: np.ndarray | None = None) -> np.ndarray:
    """The board (180,) after ``program`` on ``board``; ``previous`` is the board before the
    previous step (what ``copy`` and ``mirror`` refer to)."""
    tiles, colours = _tiles(program, np.asarray(board), previous)
    out = np.array(board, dtype=np.int8, copy=True)
    out[np.asarray(tiles, dtype=np.int64)] = np.asarray(colours, dtype=np.int8)
    return out


# ----------------------------------------------------------------------------- wording
def _pick(rng: np.random.Generator, options) -> str:
    return str(options[int(rng.integers(len(options)))])


def _a(word: str) -> str:
    """``word`` with its indefinite article: "a red", "an orange"."""
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _tile_words(rng: np.random.Generator, row: int, col: int) -> str:
    return _pick(
        rng,
        (
            "the {r} tile from the top in the {c} column",
            "the {r} hexagon of the {c} column",
            "tile {rn} of column {cn}",
            "the {r} tile down in column {cn}",
        ),
    ).format(r=ORDINALS[row], c=ORDINALS[col], rn=row + 1, cn=col + 1)


def _column_words(rng: np.random.Generator, col: int) -> str:
    return _pick(rng, ("the {c} column", "column {cn}", "the {c} column from the left")).format(c=ORDINALS[col], cn=col + 1)


def _count_words(rng: np.random.Generator, n: int) -> str:
    return NUMBERS[n - 1] if n <= len(NUMBERS) and rng.random() < 0.6 else str(n)


def _many(rng: np.random.Generator, n: int, noun: str) -> str:
    return f"{_count_words(rng, n)} {noun}" + ("" if n == 1 else "s")


# ----------------------------------------------------------------------------- mechanisms
def _explicit(rng, board, previous):
    row, col, colour = int(rng.integers(ROWS)), int(rng.integers(COLS)), int(rng.choice(PAINTED))
    text = _pick(rng, ("{v} {t} {k}.", "{t} should be {k}.", "Put {k} on {t}.")).format(
        v=_pick(rng, VERBS), t=_tile_words(rng, row, col), k=COLOUR_NAMES[colour]
    )
    return text, {"op": "tile", "row": row, "col": col, "colour": colour}


def _line(rng, board, previous):
    direction = _pick(rng, tuple(DIRECTION_WORDS))
    row, col, colour = int(rng.integers(ROWS)), int(rng.integers(COLS)), int(rng.choice(PAINTED))
    program = {"op": "line", "row": row, "col": col, "direction": direction, "length": int(rng.integers(3, 7)), "colour": colour}
    length = len(_tiles(program, board, None)[0])
    if length < 2:
        return None
    program["length"] = length
    text = _pick(
        rng,
        (
            "Draw {ak} line of {n} tiles starting at {t} and going {d}.",
            "Starting from {t}, {v} {n} tiles {k} going {d}.",
            "Make a line {d} from {t}, {n} tiles long, in {k}.",
        ),
    ).format(
        k=COLOUR_NAMES[colour],
        ak=_a(COLOUR_NAMES[colour]),
        n=_count_words(rng, length),
        t=_tile_words(rng, row, col),
        d=_pick(rng, DIRECTION_WORDS[direction]),
        v=_pick(rng, VERBS).lower(),
    )
    return text, program


def _shape(rng, board, previous):
    row, col = int(rng.integers(1, ROWS - 1)), int(rng.integers(1, COLS - 1))
    colour, centre = (int(c) for c in rng.choice(PAINTED, 2, replace=False))
    if rng.random() < 0.5:
        text = _pick(
            rng,
            (
                "Make a flower around {t}: the middle {m} and the six tiles around it {k}.",
                "Draw a flower centred on {t} with {am} centre and {k} petals.",
            ),
        ).format(t=_tile_words(rng, row, col), m=COLOUR_NAMES[centre], am=_a(COLOUR_NAMES[centre]), k=COLOUR_NAMES[colour])
        return text, {"op": "ring", "row": row, "col": col, "colour": colour, "centre": centre}
    text = _pick(rng, ("{v} all six tiles touching {t} {k}, leaving it as it is.", "Surround {t} with a ring of {k} tiles.")).format(
        v=_pick(rng, VERBS), t=_tile_words(rng, row, col), k=COLOUR_NAMES[colour]
    )
    return text, {"op": "ring", "row": row, "col": col, "colour": colour, "centre": None}


def _every_other(rng, board, previous):
    col, start, colour = int(rng.integers(COLS)), int(rng.integers(2)), int(rng.choice(PAINTED))
    first = "starting with the top tile" if start == 0 else "starting with the second tile from the top"
    text = _pick(
        rng, ("{v} every other tile of {c} {k}, {f}.", "In {c}, {f}, {v2} every second tile {k}.", "Alternate {k} and blank down {c}, {f}.")
    ).format(v=_pick(rng, VERBS), v2=_pick(rng, VERBS).lower(), c=_column_words(rng, col), k=COLOUR_NAMES[colour], f=first)
    return text, {"op": "every_other", "col": col, "start": start, "colour": colour}


def _bounded(rng, board, previous):
    if previous is not None and 0 < int((board != previous).sum()) <= 12 and rng.random() < 0.7:
        times, cols = int(rng.integers(2, 5)), int(rng.choice((2, 4)))
        rows = int(rng.choice((0, 0, 1, 2)))
        where = f"{_count_words(rng, cols)} columns to the right" + (f" and {_many(rng, rows, 'tile')} lower" if rows else "")
        text = _pick(
            rng,
            (
                "Repeat what you just drew {n} more times, each copy {w} of the one before.",
                "Copy the last shape {n} times, moving {w} each time.",
                "Make {n} more of the same shape, each one {w} of the previous one.",
            ),
        ).format(n=_count_words(rng, times), w=where)
        return text, {"op": "copy", "rows": rows, "cols": cols, "times": times}
    col, colour = int(rng.integers(COLS)), int(rng.choice(PAINTED))
    n = int(rng.integers(2, ROWS))
    text = _pick(rng, ("{v} the top {n} tiles of {c} {k}.", "In {c}, {v2} {n} tiles {k}, starting from the top.")).format(
        v=_pick(rng, VERBS), v2=_pick(rng, VERBS).lower(), n=_count_words(rng, n), c=_column_words(rng, col), k=COLOUR_NAMES[colour]
    )
    return text, {"op": "line", "row": 0, "col": col, "direction": "down", "length": n, "colour": colour}


def _until_edge(rng, board, previous):
    if previous is not None and 0 < int((board != previous).sum()) <= 12 and rng.random() < 0.5:
        cols = int(rng.choice((2, 4)))
        program = {"op": "copy", "rows": 0, "cols": cols, "times": None}
        if not _tiles(program, board, previous)[0]:
            return None
        text = _pick(
            rng,
            (
                "Repeat this pattern to the right, every {n} columns, until you run out of room on the board.",
                "Keep copying the last shape {n} columns to the right until it no longer fits.",
            ),
        ).format(n=_count_words(rng, cols))
        return text, program
    direction = _pick(rng, tuple(DIRECTION_WORDS))
    row, col, colour = int(rng.integers(ROWS)), int(rng.integers(COLS)), int(rng.choice(PAINTED))
    text = _pick(
        rng,
        (
            "From {t}, {v} {k} going {d} until you reach the edge of the board.",
            "Start at {t} and keep painting {k} tiles {d} until you hit the border.",
            "Extend {ak} line from {t} {d} all the way to the edge.",
        ),
    ).format(
        t=_tile_words(rng, row, col),
        v=_pick(rng, VERBS).lower(),
        k=COLOUR_NAMES[colour],
        ak=_a(COLOUR_NAMES[colour]),
        d=_pick(rng, DIRECTION_WORDS[direction]),
    )
    return text, {"op": "line", "row": row, "col": col, "direction": direction, "length": None, "colour": colour}


def _conditional(rng, board, previous):
    present = sorted({int(c) for c in board} - {0})
    if not present:
        return None
    source = int(rng.choice(present))
    colour = int(rng.choice([c for c in PAINTED if c != source]))
    kind = _pick(rng, ("recolour", "below", "column_if"))
    if kind == "recolour":
        text = _pick(
            rng, ("Paint every {s} tile {k}.", "Wherever there is {as_} tile, make it {k}.", "Change all the {s} tiles to {k}.")
        ).format(s=COLOUR_NAMES[source], as_=_a(COLOUR_NAMES[source]), k=COLOUR_NAMES[colour])
        return text, {"op": "recolour", "source": source, "colour": colour}
    if kind == "below":
        program = {"op": "below", "anchor": source, "colour": colour}
        if not _tiles(program, board, None)[0]:
            return None
        text = _pick(
            rng,
            (
                "Directly below each {s} tile, paint the tile {k} if it is empty.",
                "For every {s} tile, colour the blank tile right under it {k}.",
            ),
        ).format(s=COLOUR_NAMES[source], k=COLOUR_NAMES[colour])
        return text, program
    cols = [c for c in range(COLS) if any(board[tile_index(r, c)] == source for r in range(ROWS))]
    col = int(rng.choice(cols))
    text = _pick(rng, ("In {c}, paint the {s} tiles {k}.", "If a tile in {c} is {s}, make it {k}.")).format(
        c=_column_words(rng, col), s=COLOUR_NAMES[source], k=COLOUR_NAMES[colour]
    )
    return text, {"op": "column_if", "col": col, "colour": colour, "source": source}


def _reference(rng, board, previous):
    if previous is None or not 0 < int((board != previous).sum()) <= 20:
        return None
    rows = int(rng.choice((0, 0, 1, 2, 3)))
    cols = int(rng.choice((-4, -2, 2, 4, 6)))
    program = {"op": "copy", "rows": rows, "cols": cols, "times": 1}
    if len(_tiles(program, board, previous)[0]) < int((board != previous).sum()):
        return None
    side = "right" if cols > 0 else "left"
    where = f"{_count_words(rng, abs(cols))} columns to the {side}" + (f" and {_many(rng, rows, 'tile')} down" if rows else "")
    text = _pick(
        rng, ("Do the same thing again, {w}.", "Now draw exactly the same shape {w}.", "Shift a copy of what you just made {w}.")
    ).format(w=where)
    return text, program


def _symmetry(rng, board, previous):
    if previous is None or not 0 < int((board != previous).sum()) <= 20:
        return None
    col = int(rng.integers(3, COLS - 3))
    text = _pick(
        rng,
        (
            "Mirror what you just drew across {c}.",
            "Reflect the last step over {c}, as if it were a mirror.",
            "Make a mirror image of the previous step on the other side of {c}.",
        ),
    ).format(c=_column_words(rng, col))
    program = {"op": "mirror", "col": col}
    tiles = _tiles(program, board, previous)[0]
    return (text, program) if tiles and not set(tiles) <= set(np.flatnonzero(board != previous).tolist()) else None


def _fill(rng, board, previous):
    colour = int(rng.choice(PAINTED))
    if rng.random() < 0.5:
        row = int(rng.integers(ROWS))
        text = _pick(rng, ("Fill the whole {r} row from the top with {k}.", "{v} every tile of row {rn} {k}, all the way across.")).format(
            r=ORDINALS[row], rn=row + 1, k=COLOUR_NAMES[colour], v=_pick(rng, VERBS)
        )
        return text, {"op": "fill_row", "row": row, "colour": colour}
    col0 = int(rng.integers(COLS - 1))
    col1 = int(rng.integers(col0 + 1, min(COLS, col0 + 4)))
    text = _pick(
        rng, ("Fill all the empty tiles in columns {a} to {b} with {k}.", "{v} the blank tiles of columns {a} through {b} {k}.")
    ).format(a=col0 + 1, b=col1 + 1, k=COLOUR_NAMES[colour], v=_pick(rng, VERBS))
    return text, {"op": "fill_blank", "col0": col0, "col1": col1, "colour": colour}


FAMILIES = {
    "explicit": _explicit,
    "line": _line,
    "shape": _shape,
    "every_other": _every_other,
    "bounded": _bounded,
    "until_edge": _until_edge,
    "conditional": _conditional,
    "reference": _reference,
    "symmetry": _symmetry,
    "fill": _fill,
}


@dataclass(frozen=True)
class Synthetic:
    """A generated procedure with, per instruction, its ``mechanisms`` and ``programs``."""

    procedure: Procedure
    mechanisms: tuple[str, ...]
    programs: tuple[dict, ...]


def generate(
    num_procedures: int,
    seed: int = 0,
    min_steps: int = 2,
    max_steps: int = 8,
    mechanisms: tuple[str, ...] = tuple(MECHANISMS),
    start_index: int = 100_000,
) -> list[Synthetic]:
    """``num_procedures`` procedures of ``min_steps..max_steps`` instructions, mechanisms drawn in
    the ``WEIGHTS`` proportions among ``mechanisms`` (a mechanism that does not apply to the board,
    e.g. a reference on the first step, is drawn again; the first step of a procedure is an object
    or an explicit tile). Deterministic given the seed."""
    unknown = sorted(set(mechanisms) - set(MECHANISMS))
    if unknown or not mechanisms:
        raise ValueError(f"mechanisms {mechanisms!r}: use a non-empty subset of {', '.join(MECHANISMS)}")
    rng = np.random.default_rng(seed)
    cdf = np.cumsum([WEIGHTS[m] for m in mechanisms])
    cdf /= cdf[-1]  # a draw is cdf.searchsorted(uniform): what Generator.choice(p=...) does, without its checks
    out = []
    for index in range(num_procedures):
        steps = int(rng.integers(min_steps, max_steps + 1))
        boards = np.zeros((steps + 1, NUM_TILES), np.int8)
        texts, used, programs = [], [], []
        for t in range(1, steps + 1):
            previous = boards[t - 2] if t >= 2 else None
            for _ in range(100):
                mechanism = mechanisms[int(cdf.searchsorted(rng.random(), side="right"))]
                made = FAMILIES[mechanism](rng, boards[t - 1], previous)
                after = execute(made[1], boards[t - 1], previous) if made is not None else boards[t - 1]
                if not np.array_equal(after, boards[t - 1]):
                    break
            else:
                mechanism, made = "explicit", _explicit(rng, boards[t - 1], previous)
                after = execute(made[1], boards[t - 1], previous)
            boards[t] = after
            texts.append(made[0][0].upper() + made[0][1:])
            used.append(mechanism)
            programs.append(made[1])
        category = MECHANISMS[Counter(m for m in used if m != "explicit").most_common(1)[0][0]] if set(used) - {"explicit"} else "simple"
        procedure = Procedure(
            index=start_index + index,
            annotation_round=-1,
            category=category,
            image_id=f"SYN{index:06d}",
            instructor_id=0,
            texts=tuple(texts),
            boards=boards,
        )
        out.append(Synthetic(procedure, tuple(used), tuple(programs)))
    return out


def to_record(procedure: Procedure) -> dict:
    """A procedure as a record of the released JSONL format (agreement lists: the string "None")."""
    return {
        "index": procedure.index,
        "annotation_round": max(procedure.annotation_round, 0),
        "category": procedure.category,
        "image_id": procedure.image_id,
        "instructor_id": procedure.instructor_id,
        "number_of_drawing_steps": procedure.num_steps,
        "agreement_tags": "None",
        "agreement_scores": "None",
        "drawing_procedure": [[0, "NONE", [0] * NUM_TILES]]
        + [[t, text, procedure.boards[t].tolist()] for t, text in enumerate(procedure.texts, start=1)],
    }


def programs_path(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(path.stem + ".programs.jsonl")


def write(synthetic: list[Synthetic], path: str | Path) -> Path:
    """``path`` (released JSONL format) and ``programs_path(path)`` (one line per procedure: index,
    mechanisms, programs)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(to_record(s.procedure)) + "\n" for s in synthetic))
    programs_path(path).write_text(
        "".join(
            json.dumps({"index": s.procedure.index, "mechanisms": list(s.mechanisms), "programs": list(s.programs)}) + "\n"
            for s in synthetic
        )
    )
    return path


def read_mechanisms(path: str | Path) -> dict[int, tuple[str, ...]]:
    """procedure index -> the mechanism of each of its instructions (from ``programs_path(path)``)."""
    rows = [json.loads(line) for line in programs_path(path).read_text().splitlines() if line.strip()]
    return {int(row["index"]): tuple(row["mechanisms"]) for row in rows}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m hexagons.abstractions", description=__doc__.split("\n\n")[0])
    p.add_argument("--procedures", type=int, default=1000, help="procedures to generate (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    p.add_argument("--out", type=Path, required=True, help="the JSONL file to write (programs beside it)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.out.exists() and not args.overwrite:
        raise SystemExit(f"error: {args.out} already exists; replace it with --overwrite or choose another --out")
    started = time.perf_counter()
    synthetic = generate(args.procedures, args.seed)
    seconds = time.perf_counter() - started
    write(synthetic, args.out)
    counts = Counter(m for s in synthetic for m in s.mechanisms)
    print(
        f"{args.procedures} procedures, {sum(counts.values())} instructions in {seconds:.2f} s "
        f"({args.procedures / seconds:,.0f} procedures/s) -> {args.out}, {programs_path(args.out)}"
    )
    for mechanism, category in MECHANISMS.items():
        print(f"  {mechanism:<12} {category:<22} {counts[mechanism]:>7}")


if __name__ == "__main__":
    main()
