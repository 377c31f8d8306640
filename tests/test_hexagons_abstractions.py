"""Synthetic procedures by abstraction mechanism: programs reproduce every gold board, files load
unchanged, and a reader written independently of the generator re-derives instructions from text."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hexagons import abstractions
from hexagons.abstractions import MECHANISMS, execute, generate, read_mechanisms, write
from hexagons.data import load_split

ROWS, COLS = 10, 18
COLOURS = {"white": 0, "black": 1, "yellow": 2, "green": 3, "red": 4, "blue": 5, "purple": 6, "orange": 7}
ORDINAL = {
    w: i
    for i, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
        "fourteenth fifteenth sixteenth seventeenth eighteenth".split()
    )
}
NUMBER = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten".split())}


@pytest.fixture(scope="module")
def generated():
    return generate(400, seed=3)


def test_every_step_is_its_program_on_the_previous_board(generated):
    used = set()
    for s in generated:
        boards = s.procedure.boards
        assert len(s.mechanisms) == len(s.programs) == s.procedure.num_steps
        for t, (mechanism, program) in enumerate(zip(s.mechanisms, s.programs), start=1):
            previous = boards[t - 2] if t >= 2 else None
            assert np.array_equal(execute(program, boards[t - 1], previous), boards[t]), (s.procedure.index, t, program)
            assert (boards[t] != boards[t - 1]).any()  # every instruction changes the board
            used.add(mechanism)
    assert used == set(MECHANISMS)
    again = generate(400, seed=3)
    assert all(
        a.procedure.texts == b.procedure.texts and np.array_equal(a.procedure.boards, b.procedure.boards) for a, b in zip(generated, again)
    )
    assert generate(5, seed=4)[0].procedure.texts != generated[0].procedure.texts


def test_files_load_unchanged_with_mechanisms_beside(generated, tmp_path):
    path = write(generated[:50], tmp_path / "synthetic.jsonl")
    loaded = load_split(path)
    assert [p.texts for p in loaded] == [s.procedure.texts for s in generated[:50]]
    assert all(np.array_equal(p.boards, s.procedure.boards) for p, s in zip(loaded, generated))
    assert {p.category for p in loaded} <= set(MECHANISMS.values())
    assert read_mechanisms(path) == {s.procedure.index: s.mechanisms for s in generated[:50]}
    with pytest.raises(ValueError, match="mechanisms"):
        generate(1, mechanisms=("loops",))


def test_the_command_line_writes_and_counts(tmp_path, capsys):
    abstractions.main(["--procedures", "30", "--out", str(tmp_path / "s.jsonl")])
    printed = capsys.readouterr().out
    assert "30 procedures" in printed and "procedures/s" in printed and len(load_split(tmp_path / "s.jsonl")) == 30


# ----------------------------------------------------------------------------- an independent reader
def _tile(text: str) -> tuple[int, int] | None:
    """(row, col) named by any of the generator's tile phrasings, read with plain patterns."""
    for pattern, row_word, col_word in (
        (r"the (\w+) tile from the top in the (\w+) column", 1, 2),
        (r"the (\w+) hexagon of the (\w+) column", 1, 2),
        (r"tile (\d+) of column (\d+)", 1, 2),
        (r"the (\w+) tile down in column (\d+)", 1, 2),
    ):
        m = re.search(pattern, text, re.I)
        if m:
            word = lambda w: ORDINAL[w] if w in ORDINAL else int(w) - 1  # noqa: E731
            return word(m.group(row_word).lower()), word(m.group(col_word).lower())
    return None


def _count(word: str) -> int:
    return NUMBER.get(word, None) or int(word)


def _column(text: str) -> int | None:
    m = re.search(r"the (\w+) column|column (\d+)", text)
    return None if m is None else (ORDINAL[m.group(1)] if m.group(1) else int(m.group(2)) - 1)


def _paint(board: np.ndarray, cells, colour: int) -> np.ndarray:
    out = board.copy()
    for r, c in cells:
        if 0 <= r < ROWS and 0 <= c < COLS:
            out[r * COLS + c] = colour
    return out


def rederive(text: str, board: np.ndarray, previous: np.ndarray | None) -> np.ndarray | None:
    """The board after ``text`` for the instruction frames this reader knows, else None."""
    colours = [COLOURS[w] for w in re.findall(r"\b(" + "|".join(COLOURS) + r")\b", text)]
    if m := re.search(
        r"(?:Paint every|Change all the) (\w+) tiles? (?:to )?(\w+)\.|Wherever there is an? (\w+) tile, make it (\w+)\.", text
    ):
        source, target = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return np.where(board == COLOURS[source], COLOURS[target], board).astype(board.dtype)
    if m := re.search(r"Fill the whole (\w+) row from the top with (\w+)|every tile of row (\d+) (\w+), all the way across", text):
        row = ORDINAL[m.group(1)] if m.group(1) else int(m.group(3)) - 1
        return _paint(board, [(row, c) for c in range(COLS)], COLOURS[m.group(2) or m.group(4)])
    if "every other tile" in text or "every second tile" in text or text.startswith("Alternate"):
        start = 1 if "second tile from the top" in text else 0
        return _paint(board, [(r, _column(text)) for r in range(start, ROWS, 2)], colours[0])
    if previous is not None and (
        m := re.search(r"(?:Mirror|Reflect|mirror image).*(?:across|over|side of) (?:the (\w+) column|column (\d+))", text)
    ):
        axis = ORDINAL[m.group(1)] if m.group(1) else int(m.group(2)) - 1
        changed = np.flatnonzero(board != previous)
        return _paint(board, [], 0) if not len(changed) else _mirror(board, changed, axis)
    if previous is not None and re.match(r"(Do the same thing again|Now draw exactly the same shape|Shift a copy)", text):
        m = re.search(r"(\w+) columns to the (left|right)(?: and (\w+) tiles? down)?", text)
        dc = _count(m.group(1)) * (1 if m.group(2) == "right" else -1)
        dr = _count(m.group(3)) if m.group(3) else 0
        out = board.copy()
        for t in np.flatnonzero(board != previous):
            r, c = divmod(int(t), COLS)
            out = _paint(out, [(r + dr, c + dc)], int(board[t]))
        return out
    if re.search(
        r"going (down|downwards) until you reach the edge|keep painting \w+ tiles (down|downwards) until"
        r"|(down|downwards) all the way to the edge",
        text,
    ):
        r, c = _tile(text)
        return _paint(board, [(row, c) for row in range(r, ROWS)], colours[0])
    if (
        len(colours) == 1
        and re.fullmatch(r"(Paint|Colour|Color|Fill in|Make) .* \w+\.|.* should be \w+\.|Put \w+ on .*\.", text)
        and _tile(text)
        and not re.search(r"line|tiles|around|touching|flower|every|ring", text)
    ):
        return _paint(board, [_tile(text)], colours[0])
    return None


def _mirror(board: np.ndarray, changed: np.ndarray, axis: int) -> np.ndarray:
    out = board.copy()
    for t in changed:
        r, c = divmod(int(t), COLS)
        out = _paint(out, [(r, 2 * axis - c)], int(board[t]))
    return out


def test_an_independent_reader_rederives_instructions_from_their_text(generated):
    checked: dict[str, int] = {}
    for s in generated:
        boards = s.procedure.boards
        for t, (text, mechanism) in enumerate(zip(s.procedure.texts, s.mechanisms), start=1):
            derived = rederive(text, boards[t - 1], boards[t - 2] if t >= 2 else None)
            if derived is not None:
                assert np.array_equal(derived, boards[t]), (text, mechanism)
                checked[mechanism] = checked.get(mechanism, 0) + 1
    assert sum(checked.values()) >= 400, checked
    assert {"explicit", "every_other", "until_edge", "conditional", "reference", "symmetry", "fill"} <= set(checked), checked
