"""Augmentations (colour permutation, rotation, paraphrase) and the curriculum arrangement."""

import random
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from blocksworld.augment import action_codes, augment, paraphrase, paraphrase_text, permute_colours, rotate
from blocksworld.curriculum import action_length, curriculum, dataset_rank
from blocksworld.data import load_items
from blocksworld.grid import COLOURS, PICK, STOP, encode_action, to_grid
from blocksworld.item import ARCHITECT
from blocksworld.spatial import to_builder
from blocksworld.synthetic import SIMULATORS, simulate
from tests.test_blocksworld_synthetic import _check_block_item, _check_shape_item

CORPUS = Path(__file__).parent / "fixtures" / "mdc" / "data"


def test_colour_permutation_maps_blocks_actions_and_words():
    item = next(i for i in load_items(CORPUS)["train"] if i.start and any(k == ARCHITECT for k, _ in i.history))
    permutation = (2, 3, 4, 5, 6, 1)  # blue -> green, ..., yellow -> blue
    new = permute_colours(item, permutation)
    assert [b[:3] for b in sorted(new.start, key=lambda b: b[:3])] == [b[:3] for b in sorted(item.start, key=lambda b: b[:3])]
    old_cells = {b[:3]: b[3] for b in item.start}
    assert all(permutation[old_cells[b[:3]] - 1] == b[3] for b in new.start)
    assert [a[4] for a in new.actions] == [permutation[a[4] - 1] for a in item.actions]
    words = lambda text, name: len(re.findall(rf"\b{name}\b", text.lower()))  # noqa: E731
    for (_, text), (_, new_text) in zip(item.history, new.history):
        for code, name in enumerate(COLOURS, start=1):
            assert words(text, name) == words(new_text, COLOURS[permutation[code - 1] - 1])
    np.testing.assert_array_equal(to_grid(new.end) != 0, to_grid(item.end) != 0)
    with pytest.raises(ValueError, match="permutation"):
        permute_colours(item, (1, 1, 2, 3, 4, 5))


@pytest.mark.parametrize("turns", range(4))
def test_action_codes_name_each_action_of_a_transformed_item(turns):
    permutation = (4, 1, 6, 2, 3, 5)
    codes = action_codes(permutation, turns)
    assert sorted(codes.tolist()) == list(range(STOP + 1)) and codes[STOP] == STOP  # a bijection
    for item in simulate("blocks", 2, seed=7)[0].items:
        item = replace(item, actions=(*item.actions, (PICK, 5, 9, -4, 3)))  # a removal too
        new = rotate(permute_colours(item, permutation), turns)
        assert [codes[encode_action(a)] for a in item.actions] == [encode_action(a) for a in new.actions]


def _egocentric(item):
    """The end structure in the Builder's frame: sorted (right, up, ahead, colour)."""
    px, _, pz, yaw, _ = item.builder_pose
    return sorted((*(round(v, 6) for v in to_builder((x - px, y, z - pz), yaw)), c) for x, y, z, c in item.end)


def test_rotation_keeps_relations_in_the_builders_frame():
    item = simulate("blocks", 1, seed=3)[0].items[3]
    assert {rotate(item, 1).end, rotate(item, 2).end, rotate(item, 3).end}.isdisjoint({item.end})
    for turns in range(4):
        assert _egocentric(rotate(item, turns)) == _egocentric(item)
    assert rotate(rotate(item, 1), 3) == item


@pytest.mark.parametrize("simulator", SIMULATORS)
def test_augmented_simulated_games_still_state_true_relations(simulator):
    check = _check_shape_item if simulator == "shapes" else _check_block_item
    games = simulate(simulator, 12, seed=11)
    for game in games:
        copies = augment(game.items, copies=2, seed=5)
        assert len(copies) == 2 * len(game.items)
        assert {c.structure_id for c in copies} == {f"{game.structure_id}_0", f"{game.structure_id}_1"}
        for copy in range(2):
            previous = None
            for item in copies[copy * len(game.items) : (copy + 1) * len(game.items)]:
                check(item, previous)
                previous = item


def test_paraphrase_uses_the_lexicon_and_agrees_across_items():
    rng = random.Random(0)
    texts = {paraphrase_text("place a red block on top of the tower", rng) for _ in range(40)}
    assert len(texts) > 3 and all("red" in t for t in texts)
    assert any("cube" in t for t in texts) and any("above" in t for t in texts)
    game = simulate("random", 1, seed=2)[0]
    a, b = paraphrase(game.items[2], "k"), paraphrase(game.items[3], "k")
    assert b.history[: len(a.history)] == a.history  # a shared line is paraphrased alike


def test_curriculum_stages_grow_harder_and_end_with_everything():
    items = [i for s in SIMULATORS for g in simulate(s, 10, seed=4) for i in g.items]
    stages = curriculum(items, key=lambda i: (dataset_rank(i), action_length(i)), num_buckets=4, seed=1)
    assert len(stages) == 5
    assert sorted(map(id, stages[-1])) == sorted(map(id, items))
    seen = [id(i) for stage in stages[:-1] for i in stage]
    assert len(seen) == len(set(seen)), "stages overlap"
    ranked = sorted(items, key=lambda i: (dataset_rank(i), action_length(i)))
    easiest = {id(i) for i in ranked[: len(items) // 4 + 1]}
    assert all(id(i) in easiest for i in stages[0])
    hardness = [np.mean([dataset_rank(i) for i in stage]) for stage in stages[:-1]]
    assert hardness == sorted(hardness) and hardness[0] < hardness[-1]
    assert [len(s) for s in stages[:-1]] == sorted(len(s) for s in stages[:-1])
    assert curriculum(items, action_length, 4, seed=1) == curriculum(items, action_length, 4, seed=1)
    with pytest.raises(ValueError, match="num_buckets"):
        curriculum(items[:3], action_length, 5)
