"""Shipped dataset: quality gates, scale, determinism, and no goal met on the first step."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from craftax.craftax_env import make_craftax_env_from_params

import craftext
from craftext import dataset
from craftext.generator import LEVELS, SPLITS, combination
from craftext.tokenizer import words


@pytest.mark.parametrize("classic", [True, False], ids=["classic", "full"])
def test_shipped_releases_pass_the_gates_and_scale(classic):
    default = dataset.load_release(classic, "default")
    full = dataset.load_release(classic, "full")
    for release in (default, full):
        dataset.check_gates(release)
        for level in LEVELS:
            for split in SPLITS:
                assert release.select(level, split).entries, (level, split)
    assert len({e.goal for e in default.entries}) >= 476
    assert np.mean([len(e.phrasings) for e in default.entries]) == pytest.approx(6, abs=0.5)
    assert len(full.texts()) >= 20_000
    from craftext.generator import parameter_space

    assert {e.goal for e in full.entries} == set(parameter_space(classic))  # every valid goal


def test_splits_are_what_they_claim():
    release = dataset.load_release(True, "default")
    train = release.select(split="train")
    train_goals = {e.goal for e in train.entries}
    assert {e.goal for e in release.select(split="test_paraphrased").entries} <= train_goals
    train_combinations = {combination(e.goal) for e in train.entries}
    assert not {combination(e.goal) for e in release.select(split="test_new_objects").entries} & train_combinations
    assert not set(release.select(split="test_paraphrased").texts()) & set(train.texts())


def test_rebuild_is_deterministic_and_matches_the_shipped_files():
    rebuilt = dataset.build_release(True, "default")
    assert [e.to_json() for e in rebuilt.entries] == [e.to_json() for e in dataset.load_release(True, "default").entries]


def test_gates_catch_leaks():
    release = dataset.load_release(True, "default")
    train = release.select(split="train").entries
    leaked = dataset.Entry(train[0].goal, train[0].level, "test_paraphrased", train[0].phrasings[:1])
    with pytest.raises(dataset.DatasetError, match="test phrasings also appear in train"):
        dataset.check_gates(dataset.Dataset(release.entries + [leaked]))
    new_leak = dataset.Entry(train[0].goal, train[0].level, "test_new_objects", ("A brand new phrasing.",))
    with pytest.raises(dataset.DatasetError, match="new-objects goals"):
        dataset.check_gates(dataset.Dataset(release.entries + [new_leak]))


def test_vocabulary_covers_every_shipped_phrasing_and_handles_unknown_words():
    vocab = dataset.vocabulary()
    assert len(vocab.ids) >= 2500  # the target: real lexicons, at least 2,500 distinct words
    for classic in (True, False):
        for release in ("default", "full"):
            assert all(w in vocab.ids for t in dataset.load_release(classic, release).texts() for w in words(t))
    ids = vocab.encode("Build a line of three zorbles", 8)
    assert ids[5] == 1 and ids[6] == 0


def test_stats_command(capsys):
    dataset.main(["stats"])
    out = capsys.readouterr().out
    assert "leak check: passed" in out and "BUILD_LINE" in out and "test_new_objects" in out


@pytest.mark.parametrize("classic", [True, False], ids=["classic", "full"])
def test_no_shipped_goal_is_met_on_the_first_step(classic):
    """32 reset seeds x every goal of the default release: the first (NOOP) step never succeeds."""
    goals = np.stack([e.goal.encode() for e in dataset.load_release(classic, "default").entries])
    world = make_craftax_env_from_params(classic=classic, symbolic=True, auto_reset=False)
    params = world.default_params

    @jax.jit
    def first_step(key):
        _, state = world.reset_env(key, params)
        _, after, *_ = world.step_env(key, state, 0, params)

        def check(goal):
            return craftext.check(goal, craftext.start(goal, state, classic), state, 0, after, classic)[0]

        return jax.vmap(check)(jnp.asarray(goals))

    fired = np.stack([np.asarray(first_step(k)) for k in jax.random.split(jax.random.key(0), 32)])
    assert not fired.any(), f"{int(fired.sum())} (seed, goal) pairs succeed on the first step"
