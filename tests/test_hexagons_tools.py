"""Rule-based baseline, synthetic generator, tokenizer, text views and rendering."""

from pathlib import Path

import numpy as np
import pytest

from hexagons import baseline, synthetic
from hexagons.data import load_split
from hexagons.geometry import tile_index
from hexagons.render import save_png, to_image, to_terminal
from hexagons.text import describe, facts
from hexagons.tokenizer import UNK_ID, Vocabulary, tokenize

FIXTURE = Path(__file__).parent / "fixtures" / "hexagons"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("In the first column, color the 2nd tile blue", [(tile_index(1, 0), 5)]),
        ("the tile in the sixth column, fifth from the top red", [(77, 4)]),
        ("Paint tiles 1 through 3 of the last column orange.", [(17, 7), (35, 7), (53, 7)]),
        ("Color the whole first column green.", [(tile_index(r, 0), 3) for r in range(10)]),
        ("Erase the top tile of the first column.", [(0, 0)]),
        ("Paint the 2nd tile from the bottom of the 3rd column from the right purple.", [(tile_index(8, 15), 6)]),
        ("You are done when the board looks like a flower.", []),
    ],
)
def test_rule_baseline_patterns(text, expected):
    assert baseline.predict(text) == sorted(expected)


def test_rule_baseline_on_fixture_and_synthetic(capsys):
    baseline.main([str(FIXTURE), "--split", "train", "--by-category"])
    out = capsys.readouterr().out
    assert "F1 83.33" in out
    categories = {p.category for p in load_split(FIXTURE / "train.jsonl")}
    assert len(categories) > 1 and all(f"  {c}" in out for c in categories)  # one line per category
    scores = baseline.evaluate(synthetic.generate(40, seed=5))
    assert scores["f1"] > 60  # explicit synthetic instructions are mostly parsed


def test_synthetic_is_deterministic_and_cumulative():
    a, b = synthetic.generate(5, seed=9), synthetic.generate(5, seed=9)
    assert [p.texts for p in a] == [p.texts for p in b]
    assert all(np.array_equal(x.boards, y.boards) for x, y in zip(a, b))
    assert [p.texts for p in synthetic.generate(5, seed=10)] != [p.texts for p in a]
    for p in a:
        assert not p.boards[0].any() and p.boards.shape == (p.num_steps + 1, 180)


def test_held_out_tile_combinations_never_reach_training():
    """The tiles data's dev and test paint (row, column, colour) combinations that train never
    does, while every row, column and colour word appears in both."""
    combinations = {(r, c, k) for r in range(10) for c in range(18) for k in synthetic.PAINTED}
    held = {x for x in combinations if synthetic.held_out_tile(*x)}
    assert len(held) == 252 and all({x[i] for x in held} == {x[i] for x in combinations - held} for i in range(3))

    def painted(held_out: bool) -> set:
        procedures = synthetic.generate(60, seed=int(held_out), kinds=("tile",), held_out=held_out)
        return {
            (*divmod(int(t), 18), int(p.boards[s + 1, t]))
            for p in procedures
            for s in range(p.num_steps)
            for t in np.flatnonzero(p.boards[s + 1] != p.boards[s])
        }

    train, test = painted(False), painted(True)
    assert test <= held and not train & held and len(test) > 100
    assert [p.texts for p in synthetic.generate(5, seed=9, held_out=None)] == [p.texts for p in synthetic.generate(5, seed=9)]


def test_held_out_meanings_keep_test_texts_out_of_training():
    """Every kind's held-out instructions: no test text is a training one (about a third would be
    without the rule), and the kinds keep their mix."""
    train = synthetic.generate(300, seed=0, held_out=False)
    test = synthetic.generate(100, seed=2, held_out=True)
    texts = {text for p in train for text in p.texts}
    assert not any(text in texts for p in test for text in p.texts)
    unheld = {text for p in synthetic.generate(100, seed=2) for text in p.texts}
    assert len(unheld & texts) > 0.1 * len(unheld)
    first_words = [{text.split()[0] for p in split for text in p.texts} for split in (train, test)]
    assert first_words[0] == first_words[1] == {"Paint", "Colour", "Make", "Starting", "In", "Erase"}
    assert synthetic.held_out_meaning(("tile", 0, 0, 1)) and not synthetic.held_out_meaning(("tile", 0, 0, 2))


def test_tokenizer_and_vocabulary(tmp_path):
    assert tokenize("Paint the 5th tile, RED!") == ["paint", "the", "5th", "tile", ",", "red", "!"]
    vocab = Vocabulary.build(["paint red", "paint blue"])
    ids, cut = vocab.encode("paint green", 4)
    assert ids.tolist() == [vocab.ids["paint"], UNK_ID, 0, 0] and not cut
    assert vocab.encode("paint red red red red", 3)[1]
    vocab.save(tmp_path / "v.json")
    assert Vocabulary.load(tmp_path / "v.json").words == vocab.words


def test_text_views():
    board = np.zeros(180, np.int8)
    assert "blank" in describe(board)
    board[[tile_index(1, 2), tile_index(2, 2), tile_index(3, 2)]] = 4
    board[tile_index(0, 5)] = 5
    text = describe(board)
    assert "4 of 180 tiles are coloured (3 red, 1 blue)" in text
    assert "Column 3: tiles 2-4 red." in text and "Column 6: tile 1 blue." in text
    f = facts(board)
    assert ("tile (2, 3)", "has colour", "red") in f
    assert ("tile (2, 3)", "down", "tile (3, 3)") in f
    assert not any(r == "down" and s == "tile (1, 6)" for s, r, _ in f)


def test_rendering(tmp_path):
    board = np.zeros(180, np.int8)
    board[0], board[1], board[179] = 4, 5, 7
    art = to_terminal(board).splitlines()
    assert art[0][0] == "R" and art[1][2] == "B" and art[19][34] == "O"
    image = to_image(board, radius=10)
    x, y = 2 + 10, 2 + int(10 * 0.866)  # centre of tile 0
    assert image.getpixel((x, y)) == (220, 45, 45)
    save_png(board, tmp_path / "b.png")
    assert (tmp_path / "b.png").stat().st_size > 0
