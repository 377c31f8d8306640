"""The naive rule-based baseline of the Hexagons paper, as a pattern matcher of our own design.

It reads only the current instruction and extracts explicit ``paint(tile, colour)`` actions:
tiles are named by a column ("the 6th column", "column 6", "the last column", "from the right")
and a position down that column ("the 5th tile from the top", "tiles 3 through 7", "the bottom
tile", "the whole column"). Within a sentence, column and tile mentions are paired in reading
order and each pair takes the next colour word in the sentence (else the previous one, else the
last colour of an earlier sentence).

Usage: ``python -m hexagons.baseline DIR --split test`` prints action-based scores on a split of
the released data (predicted paints applied to the gold board before each step).
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

import numpy as np

from hexagons.data import HexagonsDataError, load_split
from hexagons.geometry import COLOUR_NAMES, COLS, ROWS
from hexagons.metrics import action_scores, mean_scores
from hexagons.procedure import Procedure

_NUMBERS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen").split()
_ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth"
).split()
WORD_TO_NUMBER = {w: str(i + 1) for i, w in enumerate(_NUMBERS)} | {w: str(i + 1) for i, w in enumerate(_ORDINALS)}
_COLOURS = {name: code for code, name in enumerate(COLOUR_NAMES) if code} | {"violet": 6, "pink": 6, "grey": 1}
_ERASE = re.compile(r"\b(?:erase|uncolou?r|remove the colou?r|make (?:it|them|the \w+) white|blank)\b")

_NUM = r"(\d+)(?:st|nd|rd|th)?"
_RANGE = rf"{_NUM}(?:\s*(?:-|to|through|thru|and)\s*{_NUM})?"
_COLUMN = re.compile(rf"\b(?:{_RANGE}\s+(?:columns?|cols?)|(?:columns?|cols?)\s+(?:number\s+)?{_RANGE})(\s+from\s+the\s+right)?")
_TILE_WORDS = r"(?:tiles?|hex(?:agon)?s?|spots?|cells?|rows?|ones?|spaces?|positions?|places?)"
_ROW = re.compile(
    rf"\b(?:{_RANGE}\s+{_TILE_WORDS}|{_TILE_WORDS}\s+(?:number\s+)?{_RANGE}|{_RANGE}\s+(?=from the (?:top|bottom)|down\b))"
    r"(\s+from\s+the\s+bottom)?"
)
_WHOLE = re.compile(r"\b(?:whole|entire|full|all (?:the )?(?:tiles|hexagons) (?:in|of))\b")
_EDGE_ROW = re.compile(r"\b(top|bottom)(?:most)?\s+(?:tile|hex|hexagon|spot|cell)\b")
_EDGE_COLUMN = re.compile(r"\b(?:(leftmost|first)|(rightmost|last))\s+column\b")


@dataclass
class _Mention:
    position: int
    values: list[int]


def normalise(text: str) -> str:
    """Lower-case, number words to digits, left/right-most columns named by number."""
    text = text.lower().replace("\n", " ")
    text = re.sub(r"\b[a-z]+\b", lambda m: WORD_TO_NUMBER.get(m.group(0), m.group(0)), text)
    text = _EDGE_COLUMN.sub(lambda m: "1st column" if m.group(1) else f"{COLS}th column", text)
    return _EDGE_ROW.sub(lambda m: "1st tile" if m.group(1) == "top" else f"{ROWS}th tile", text)


def _span(first: str, last: str | None, size: int, from_end: bool) -> list[int]:
    """1-based inclusive range -> 0-based indices inside [0, size)."""
    a = int(first)
    b = int(last) if last else a
    values = [v - 1 for v in range(min(a, b), max(a, b) + 1)]
    if from_end:
        values = [size - 1 - v for v in values]
    return [v for v in values if 0 <= v < size]


def _mentions(pattern: re.Pattern, text: str, size: int) -> list[_Mention]:
    """Matches of a pattern whose groups are (first, last) number pairs and a final from-the-end flag."""
    found = []
    for m in pattern.finditer(text):
        *numbers, from_end = m.groups()
        first, last = next((numbers[i], numbers[i + 1]) for i in range(0, len(numbers), 2) if numbers[i])
        values = _span(first, last, size, from_end=from_end is not None)
        if values:
            found.append(_Mention(m.start(), values))
    return found


def predict(text: str) -> list[tuple[int, int]]:
    """``(tile index, colour code)`` pairs that an instruction explicitly asks for."""
    paints: dict[int, int] = {}
    last_colour: int | None = None
    for sentence in re.split(r"[.;!?]+", normalise(text)):
        colours = [(m.start(), _COLOURS[m.group(0)]) for m in re.finditer(r"\b[a-z]+\b", sentence) if m.group(0) in _COLOURS]
        if _ERASE.search(sentence):
            colours = [(m.start(), 0) for m in _ERASE.finditer(sentence)] + colours
            colours.sort()
        columns = _mentions(_COLUMN, sentence, COLS)
        rows = _mentions(_ROW, sentence, ROWS)
        if columns and not rows and _WHOLE.search(sentence):
            rows = [_Mention(columns[0].position, list(range(ROWS)))]
        for col, row in _pair(columns, rows):
            position = max(col.position, row.position)
            after = [c for p, c in colours if p > position]
            before = [c for p, c in colours if p <= position]
            colour = after[0] if after else before[-1] if before else last_colour
            if colour is None:
                continue
            if len(col.values) == len(row.values) > 1:
                tiles = [r * COLS + c for r, c in zip(row.values, col.values)]
            else:
                tiles = [r * COLS + c for c in col.values for r in row.values]
            for tile in tiles:
                paints[tile] = colour
        if colours:
            last_colour = colours[-1][1]
    return sorted(paints.items())


def _pair(columns: list[_Mention], rows: list[_Mention]) -> list[tuple[_Mention, _Mention]]:
    """Pair column and row mentions in reading order."""
    if not columns or not rows:
        return []
    if len(columns) == len(rows):
        return list(zip(columns, rows))
    if len(columns) == 1:
        return [(columns[0], r) for r in rows]
    if len(rows) == 1:
        return [(c, rows[0]) for c in columns]
    pairs = []
    for r in rows:
        preceding = [c for c in columns if c.position <= r.position]
        pairs.append((preceding[-1] if preceding else columns[0], r))
    return pairs


def apply(board: np.ndarray, paints: list[tuple[int, int]]) -> np.ndarray:
    """Board (180,) after the paints."""
    board = np.array(board)
    for tile, colour in paints:
        board[tile] = colour
    return board


def evaluate(procedures: list[Procedure], convention: str = "one") -> dict[str, float]:
    """Action-based scores (percent, macro over steps) with the gold board as context."""
    before = np.stack([p.boards[t - 1] for p in procedures for t in range(1, p.num_steps + 1)])
    gold = np.stack([p.boards[t] for p in procedures for t in range(1, p.num_steps + 1)])
    texts = [text for p in procedures for text in p.texts]
    predicted = np.stack([apply(b, predict(text)) for b, text in zip(before, texts)])
    return mean_scores(action_scores(before, gold, before, predicted), convention)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m hexagons.baseline", description=__doc__.split("\n\n")[0])
    p.add_argument("directory", help="folder holding the released train/dev/test.jsonl")
    p.add_argument("--split", default="test", choices=("train", "dev", "test"))
    p.add_argument("--by-category", action="store_true", help="also score each procedure category (convention 'one')")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        procedures = load_split(f"{args.directory}/{args.split}.jsonl")
    except (HexagonsDataError, OSError) as e:
        raise SystemExit(f"error: {e}") from None
    for convention in ("one", "exclude"):
        s = evaluate(procedures, convention)
        print(
            f"{args.split} action-based ({convention:>7}, {s['steps']} steps): "
            f"P {s['precision']:.2f}  R {s['recall']:.2f}  F1 {s['f1']:.2f}  EM {s['exact_match']:.2f}"
        )
    for category in sorted({p.category for p in procedures}) if args.by_category else ():
        s = evaluate([p for p in procedures if p.category == category])
        print(f"  {category:<22} ({s['steps']:>3} steps): F1 {s['f1']:6.2f}  EM {s['exact_match']:6.2f}")


if __name__ == "__main__":
    main()
