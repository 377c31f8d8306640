"""Synthetic BAP v2 data: shapes, structures, the three dialogue simulators, corpus round trip.

The instruction check reads each Architect line with its own parser and its own trigonometry (it
imports nothing from the simulators' lexicon or frame code) and compares the relation it states with
the geometry of the item.
"""

import functools
import math
import random
import re

import numpy as np
import pytest

import blocksworld
from blocksworld.data import load_items
from blocksworld.grid import COLOURS, PICK, PLACE, in_region, to_grid
from blocksworld.item import ARCHITECT
from blocksworld.replay import feasible_in_order, replay_in_env
from blocksworld.shapes import SHAPE_KINDS, sample_shape, shape_structure
from blocksworld.synthetic import SIMULATORS, game_log, generate_targets, main, simulate, simulate_game, vocabulary, write_corpus
from blocksworld.tokenizer import dialogue_window

GAMES = 40


@functools.cache
def _games(simulator):
    return simulate(simulator, GAMES, seed=7)


# --------------------------------------------------------------------------- shapes
def _plane_axes(cells):
    """Axes along which the cells vary."""
    return [a for a in range(3) if len({c[a] for c in cells}) > 1]


def _is_shape(kind, cells):
    cells = set(cells)
    axes = _plane_axes(cells)
    extent = [len({c[a] for c in cells}) for a in range(3)]
    if kind == "row":
        return len(axes) == 1 and extent[axes[0]] == len(cells) >= 3
    if kind == "diagonal":
        ordered = sorted(cells, key=lambda c: c[axes[0]]) if axes else []
        steps = {tuple(abs(b[i] - a[i]) for i in range(3)) for a, b in zip(ordered, ordered[1:])}
        return len(axes) == 2 and len(cells) >= 3 and len(steps) == 1 and sum(next(iter(steps))) == 2
    if len(axes) != 2:  # T, L, U and planes are flat
        return False
    a, b = (extent[i] for i in axes)
    if kind == "plane":
        return len(cells) == a * b and max(a, b) >= 3 and min(a, b) >= 2
    if kind == "l":
        return len(cells) == a + b - 1 and min(a, b) >= 2
    if kind == "t":
        return len(cells) == a + b - 1 and min(a, b) >= 3
    if kind == "u":
        return any(len(cells) == w + 2 * (h - 1) and w >= 3 and h >= 2 for w, h in ((a, b), (b, a)))
    raise AssertionError(kind)


def _neighbours(a, b):
    d = [abs(p - q) for p, q in zip(a, b)]
    return max(d) == 1 and sum(d) <= 2


@pytest.mark.parametrize("kind", SHAPE_KINDS)
def test_every_sampled_shape_fits_its_definition(kind):
    rng = random.Random(kind)
    orientations = set()
    for _ in range(200):
        shape = sample_shape(rng, kind, colour=1, max_length=5)
        assert _is_shape(kind, shape.cells), shape
        assert min(c[1] for c in shape.cells) == 1
        orientations.add(tuple(_plane_axes(shape.cells)))
    assert len(orientations) == 3  # every axis (rows) or plane (the others) is drawn


def test_composite_structures_are_grounded_connected_and_inside():
    rng = random.Random(3)
    for num_shapes in (1, 2, 3, 4):
        for _ in range(30):
            shapes = shape_structure(rng, num_shapes)
            cells = [c for s in shapes for c in s.cells]
            assert len(cells) == len(set(cells)), "shapes overlap"
            assert all(in_region(*c) for c in cells)
            assert any(c[1] == 1 for c in cells)
            assert len({s.colour for s in shapes}) == num_shapes
            for i, shape in enumerate(shapes[1:], start=1):
                assert any(_neighbours(a, b) for a in shape.cells for s in shapes[:i] for b in s.cells)
            assert all(any(_neighbours(a, b) for b in cells if b != a) for a in cells) or len(cells) == 1


def test_structure_parameters_are_validated():
    with pytest.raises(ValueError, match="kinds"):
        shape_structure(random.Random(0), 2, kinds=("circle",))
    with pytest.raises(ValueError, match="num_shapes"):
        shape_structure(random.Random(0), 7)
    with pytest.raises(ValueError, match="simulator"):
        simulate_game("chaotic", 0)


# --------------------------------------------------------------------------- games
def test_games_are_deterministic_and_independent_of_their_number():
    a = simulate("blocks", 3, seed=1)
    assert [g.items for g in a] == [g.items for g in simulate("blocks", 3, seed=1)]
    assert simulate_game("blocks", 2, seed=1).items == a[2].items
    assert a[0].items != simulate_game("blocks", 0, seed=2).items


@pytest.mark.parametrize("simulator", SIMULATORS)
def test_games_have_the_papers_form(simulator):
    games = _games(simulator)
    for game in games:
        first = game.items[0]
        assert first.empty_board and {a[0] for a in _net(first)} == {PLACE}
        ends = [set(i.end) for i in game.items]
        assert all(set(i.start) == e for i, e in zip(game.items[1:], ends))  # items chain
        final = game.items[-1].end
        cells = [b[:3] for b in final]
        assert any(c[1] == 1 for c in cells)
        assert len(cells) == 1 or all(any(_neighbours(a, b) for b in cells if b != a) for a in cells)
    splits = {g.split for g in games}
    assert splits <= {"train", "dev", "test"} and "train" in splits
    assert len({g.structure_id for g in games}) == len(games)  # one target structure per game: splits never share one
    if simulator == "random":
        kinds = [a[0] for g in games for i in g.items[4:] for a in _net(i)]
        assert 0.03 < kinds.count(PICK) / len(kinds) < 0.2
        assert all({a[0] for a in _net(i)} == {PLACE} for g in games for i in g.items[:4])
    if simulator == "shapes":
        assert all(len(g.items) == 2 for g in games)


def test_every_item_replays_in_the_env_to_its_recorded_end():
    items = [i for s in SIMULATORS for g in _games(s) for i in g.items]
    assert all(feasible_in_order(i, i.actions) for i in items)
    env, params = blocksworld.make("BlocksWorld-BAP-v1", items, max_tokens=8)
    ends = replay_in_env(env, params, [i.actions for i in items])
    np.testing.assert_array_equal(ends, np.stack([to_grid(i.end) for i in items]))
    assert any(len(i.actions) > len(set(i.start) ^ set(i.end)) for i in items)  # temporary supports occur


def test_games_round_trip_through_the_corpus_format(tmp_path):
    games = _games("random")[:6] + _games("shapes")[:6]
    write_corpus(games, tmp_path)
    loaded = load_items(tmp_path)
    for split in ("train", "dev", "test"):
        assert loaded[split] == [i for g in games if g.split == split for i in g.items]
    assert len(game_log(games[0])["WorldStates"]) == 2 + len(games[0].events)


def test_simulated_dialogue_has_no_unknown_words():
    vocab = vocabulary()
    for simulator in SIMULATORS:
        for item in (i for g in _games(simulator) for i in g.items):
            ids = vocab.encode(dialogue_window(item.history), 400)
            assert 1 not in ids, [t for t in dialogue_window(item.history) if t not in vocab.ids]


def test_cli_prints_statistics_and_writes_splits(tmp_path, capsys):
    main(["--games", "5", "--simulators", "shapes", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "items/min" in out and "shapes    all" in out
    assert {p.name for p in (tmp_path / "shapes").iterdir()} == {"items-train.jsonl", "items-dev.jsonl", "items-test.jsonl"}


def test_build_env_draws_fresh_targets_with_the_same_shapes():
    from blocksworld.synthetic import endless_params

    env, params = blocksworld.make("BlocksWorld-Build-v1", simulator="shapes", num_items=8, max_tokens=8)
    fresh = next(endless_params(env, "shapes", 8, seed=1))
    assert fresh.references.shape == params.references.shape
    assert not np.array_equal(np.asarray(fresh.references), np.asarray(params.references))
    target = generate_targets(1, seed=0, simulator="shapes")[0]
    np.testing.assert_array_equal(np.asarray(params.references[0]), to_grid(target.end))


@pytest.mark.parametrize("simulator", SIMULATORS)
def test_build_targets_carry_their_games_dialogue_as_the_instruction(simulator):
    game = simulate_game(simulator, 0)
    (target,) = generate_targets(1, seed=0, simulator=simulator)
    architect = [text for speaker, text in game.items[-1].history if speaker == ARCHITECT]
    assert architect and [text for speaker, text in target.history if speaker == ARCHITECT] == architect
    env, params = blocksworld.make("BlocksWorld-Build-v1", simulator=simulator, num_items=2)
    texts = [env.vocabulary.decode(row) for row in np.asarray(params.dialogue)]
    assert all(text.strip() not in ("", "<dialogue>") and "</architect>" in text for text in texts)


# --------------------------------------------------------------------------- independent instruction check
NUMBER = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
NUM = r"(\d+|" + "|".join(NUMBER) + r")"
RELATION = re.compile(r"(?:\b" + NUM + r" )?\b(to the right|to the left|on top|above|underneath|under|below|in front|behind)\b")
UNIT = {
    "to the right": (1, 0, 0),
    "to the left": (-1, 0, 0),
    "on top": (0, 1, 0),
    "above": (0, 1, 0),
    "underneath": (0, -1, 0),
    "under": (0, -1, 0),
    "below": (0, -1, 0),
    "in front": (0, 0, -1),
    "behind": (0, 0, 1),
}  # (right, up, away from the Builder)
ANCHOR = re.compile(r"to the right of you|to your right|to the left of you|to your left|upwards|up|away from you|towards you")
ANCHOR_UNIT = {
    "to the right of you": (1, 0, 0),
    "to your right": (1, 0, 0),
    "to the left of you": (-1, 0, 0),
    "to your left": (-1, 0, 0),
    "up": (0, 1, 0),
    "upwards": (0, 1, 0),
    "away from you": (0, 0, 1),
    "towards you": (0, 0, -1),
}
COLOUR = re.compile(r"\b(" + "|".join(COLOURS) + r")\b")
OBJECT = re.compile(r"\b(a|an|" + NUM[1:-1] + r") (?:floating )?(?:(?:" + "|".join(COLOURS) + r") )?(?:block|cube)s?\b")
REMOVAL = re.compile(r"\b(remove|take away|get rid of|break|pick up|undo|take that one away)\b")
EXTREME = {
    "leftmost": (0, -1),
    "rightmost": (0, 1),
    "highest": (1, 1),
    "topmost": (1, 1),
    "lowest": (1, -1),
    "bottom-most": (1, -1),
    "closest": (2, -1),
    "nearest": (2, -1),
    "furthest": (2, 1),
    "farthest": (2, 1),
}


def _number(word):
    return int(word) if word.isdigit() else NUMBER[word]


def _world(vector, yaw):
    """World (dx, dy, dz) of a (right, up, away) vector for a Minecraft yaw snapped to 90 degrees."""
    theta = math.radians(90 * round(yaw / 90))
    forward = (round(-math.sin(theta)), round(math.cos(theta)))
    right = (round(-math.cos(theta)), round(-math.sin(theta)))
    r, u, a = vector
    return r * right[0] + a * forward[0], u, r * right[1] + a * forward[1]


def _builder(cell, yaw):
    """(right, up, away) coordinates of a world cell."""
    theta = math.radians(90 * round(yaw / 90))
    return (
        cell[0] * round(-math.cos(theta)) + cell[2] * round(-math.sin(theta)),
        cell[1],
        cell[0] * round(-math.sin(theta)) + cell[2] * round(math.cos(theta)),
    )


def _add(cell, step, k=1):
    return tuple(c + k * s for c, s in zip(cell, step))


def _architect_lines(item):
    lines = []
    for speaker, text in reversed(item.history):
        if speaker in (PLACE, PICK):
            break
        if speaker == ARCHITECT:
            lines.append(text.lower())
    return lines[::-1]


def _net(item):
    start, end = set(item.start), set(item.end)
    return {(PLACE, *b) for b in end - start} | {(PICK, *b) for b in start - end}


def _last_target(previous):
    """(kind, cell) of the last action of the previous item that was not undone in it."""
    if previous is None:
        return None
    net = _net(previous)
    for action in reversed(previous.actions):
        if action in net:
            return action[0], action[1:4]
    return None


def _resolve(reference, board, last, yaw):
    """The cell a reference phrase names on ``board`` ({cell: colour name})."""
    if not reference or re.search(r"\b(last|just)\b", reference):
        kind = PICK if re.search(r"\b(removed|took away)\b", reference) else PLACE
        assert last is not None and last[0] == kind, (reference, last)
        return last[1]
    colour = COLOUR.search(reference).group(1)
    same = [c for c, v in board.items() if v == colour]
    extreme = next((e for e in EXTREME if e in reference), None)
    if extreme is None:
        assert len(same) == 1, f"{reference!r} is ambiguous"
        return same[0]
    axis, sign = EXTREME[extreme]
    best = max(sign * _builder(c, yaw)[axis] for c in same)
    chosen = [c for c in same if sign * _builder(c, yaw)[axis] == best]
    assert len(chosen) == 1, f"{reference!r} is ambiguous"
    return chosen[0]


def _relation(text):
    """(right, up, away) vector of a relation clause and the text after it."""
    matches = list(RELATION.finditer(text))
    vector = [0, 0, 0]
    for m in matches:
        count = _number(m.group(1)) if m.group(1) else 1
        for i, v in enumerate(UNIT[m.group(2)]):
            vector[i] += count * v
    rest = text[matches[-1].end() :]
    rest = re.sub(r"^ of\b", "", rest)
    rest = re.sub(r"(please|for me|[.!])+", " ", rest).strip()
    return tuple(vector), rest


def _check_block_item(item, previous):
    lines, yaw = _architect_lines(item), item.builder_pose[3]
    board = {b[:3]: COLOURS[b[3] - 1] for b in item.start}
    last = _last_target(previous)
    net = _net(item)
    text = " ".join(lines)
    if REMOVAL.search(text):
        assert {a[0] for a in net} == {PICK}
        if not RELATION.search(text):  # "remove that block"
            assert {a[1:4] for a in net} == {last[1]} and last[0] == PLACE
            return
    else:
        assert {a[0] for a in net} == {PLACE}
    if "on the ground" in text:
        assert not board and len(net) == 1 and next(iter(net))[2] == 1
        assert COLOURS[next(iter(net))[4] - 1] in text
        return
    located = [line for line in lines if RELATION.search(line)]
    assert len(located) == 1, lines
    begin = RELATION.search(located[0]).start()  # the location runs to the next comma or the end
    end = located[0].find(",", begin) % (len(located[0]) + 1)
    vector, reference = _relation(located[0][begin:end])
    heads = [line if line != located[0] else line[:begin] + line[end:] for line in lines]
    count = next((m for m in map(OBJECT.search, heads) if m), None)
    n = 1 if count is None or count.group(1) in ("a", "an") else _number(count.group(1))
    colours = [m.group(1) for head in heads for m in COLOUR.finditer(head)]
    ref = _resolve(reference, board, last, yaw)
    step = _world(vector, yaw)
    expected = {_add(ref, step, k) for k in range(1, n + 1)}
    assert {a[1:4] for a in net} == expected, (lines, vector, ref, net)
    assert {COLOURS[a[4] - 1] for a in net} == {colours[0]}


SHAPE_WORDS = {
    "row": "row",
    "line": "row",
    "column": "row",
    "tower": "row",
    "pillar": "row",
    "stack": "row",
    "diagonal": "diagonal",
    "staircase": "diagonal",
    "stairway": "diagonal",
    "plane": "plane",
    "layer": "plane",
    "floor": "plane",
    "wall": "plane",
}


def _check_shape_item(item, previous):
    lines, yaw = _architect_lines(item), item.builder_pose[3]
    text = " | ".join(lines)
    kind = SHAPE_WORDS[re.search(r"\b(" + "|".join(SHAPE_WORDS) + r")\b", text).group(1)]
    colour = COLOUR.search(text).group(1)
    area = re.search(NUM + r"(?: blocks| cubes)? ?(?:x|by) ?" + NUM, text)
    length = re.search(NUM + r" (?:block|cube)s? (?:long|tall|high)|of " + NUM + " (?:block|cube)s|" + NUM + " long", text)
    directions = []
    for line in lines:
        going = re.search(r"going (.*?)(?=,? ?(?:starting|beginning)\b|$)", line)
        if going:
            directions += [ANCHOR_UNIT[m.group(0)] for m in ANCHOR.finditer(going.group(1))]
    if kind == "row" and not directions:
        directions = [(0, 1, 0)]  # a tower goes up
    steps = [_world(d, yaw) for d in directions]
    if kind == "plane":
        a, b = _number(area.group(1)), _number(area.group(2))
        shape = {_add(_add((0, 0, 0), steps[0], i), steps[1], j) for i in range(a) for j in range(b)}
    else:
        n = _number(next(g for g in length.groups() if g))
        step = steps[0] if kind == "row" else tuple(map(sum, zip(*steps)))
        assert len(steps) == (1 if kind == "row" else 2)
        shape = {_add((0, 0, 0), step, k) for k in range(n)}
    net = _net(item)
    placed = {a[1:4] for a in net}
    assert {a[0] for a in net} == {PLACE} and {COLOURS[a[4] - 1] for a in net} == {colour}
    start_clause = next(
        (re.search(r"(?:starting|beginning) (.*)", line).group(1) for line in lines if re.search(r"(?:starting|beginning) ", line)), None
    )
    if start_clause is None:  # the first shape: anywhere on the ground
        assert previous is None and min(c[1] for c in placed) == 1
        assert any({_add(s, c) for c in shape} == placed for s in placed), (lines, placed)
        return
    vector, reference = _relation(start_clause)
    last = _last_target(previous)
    start = _add(_resolve(reference, {}, last, yaw), _world(vector, yaw))
    assert {_add(start, c) for c in shape} == placed, (lines, placed)


def _check_explicit_item(item, previous):
    text = " ".join(_architect_lines(item))
    x, z = map(int, re.search(r"(\d+) from the west and (\d+) from the south", text).groups())
    ((kind, *cell, colour),) = _net(item)
    assert kind == PLACE and tuple(cell) == (x - 6, 1, z - 6) and COLOURS[colour - 1] in text, text


@pytest.mark.parametrize("simulator", SIMULATORS)
def test_every_instruction_states_the_true_relation(simulator):
    check = {"shapes": _check_shape_item, "explicit": _check_explicit_item}.get(simulator, _check_block_item)
    checked = 0
    for game in _games(simulator):
        previous = None
        for item in game.items:
            check(item, previous)
            previous, checked = item, checked + 1
    assert checked >= GAMES
