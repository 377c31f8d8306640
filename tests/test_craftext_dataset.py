"""Shipped dataset (both data versions): quality gates, scale, determinism, no goal met on the
first step; v2 without infeasible goals or phrasings naming foreign objects, and valid by
``python -m craftext.validate``."""

import json
from collections import Counter
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from craftax.craftax_env import make_craftax_env_from_params

import craftext
from craftext import dataset, validate
from craftext.dataset import DATA_VERSIONS
from craftext.generator import LEVELS, SPLITS, combination, parameter_space
from craftext.quality import foreign_objects, infeasible
from craftext.tokenizer import words

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("data_version", DATA_VERSIONS)
@pytest.mark.parametrize("classic", [True, False], ids=["classic", "full"])
def test_shipped_releases_pass_the_gates_and_scale(classic, data_version):
    default = dataset.load_release(classic, "default", data_version)
    full = dataset.load_release(classic, "full", data_version)
    for release in (default, full):
        dataset.check_gates(release)
        for level in LEVELS:
            for split in SPLITS:
                assert release.select(level, split).entries, (level, split)
    assert len({e.goal for e in default.entries}) >= 476
    assert np.mean([len(e.phrasings) for e in default.entries]) == pytest.approx(6, abs=0.5)
    assert len(full.texts()) >= 20_000
    assert {e.goal for e in full.entries} == {g for g in parameter_space(classic) if data_version == "v1" or not infeasible(g)}


def test_v2_has_no_infeasible_goal_and_no_phrasing_naming_a_foreign_object():
    for classic in (True, False):
        for release in ("default", "full"):
            v1, v2 = (dataset.load_release(classic, release, version) for version in DATA_VERSIONS)
            assert any(infeasible(e.goal) for e in v1.entries)  # what v2 repairs is there in v1
            assert any(foreign_objects(e.goal, t) for e in v1.entries for t in e.phrasings)
            assert not [e.goal.key() for e in v2.entries if infeasible(e.goal)]
            assert not [t for e in v2.entries for t in e.phrasings if foreign_objects(e.goal, t)]
            kept = [e for e in v1.entries if not infeasible(e.goal)]  # v2 is v1 less infeasible goals, foreign-object phrasings redrawn
            assert [(e.goal, e.level, e.split) for e in v2.entries] == [(e.goal, e.level, e.split) for e in kept]
            for old, new in zip(kept, v2.entries):
                redrawn = [a for a, b in zip(old.phrasings, new.phrasings) if a != b]
                assert redrawn == [t for t in old.phrasings if foreign_objects(old.goal, t)]
    with pytest.raises(ValueError, match="data version must be one of"):
        dataset.load("medium", "train", data_version="v3")


@pytest.mark.slow
def test_v2_release_is_valid(capsys):
    """``python -m craftext.validate`` on v2's default classic release exits 0: it parses, no
    duplicate, no infeasible goal, and no goal fires at reset in 2 worlds each."""
    validate.main([str(dataset.DATA / "v2" / "classic" / "default.jsonl"), "--episodes-per-goal", "2", "--expert-steps", "0", "--quiet"])
    out = capsys.readouterr().out
    assert out.rstrip().endswith("default.jsonl: valid") and "error:" not in out and "naming other objects" in out
    assert f"| all | {len(dataset.load_release(True, 'default', 'v2').entries)} | 0 |" in out


@pytest.mark.parametrize("classic", [True, False], ids=["classic", "full"])
def test_v2_metadata_describes_its_release(classic):
    """``python -m craftext.validate --metadata``'s record of v2's default release: its goals per
    scenario and level, none infeasible, none firing at once, the expert's episodes counted."""
    meta = json.loads(dataset.metadata_path(classic, "v2").read_text())
    release = dataset.load_release(classic, "default", "v2")
    assert str(dataset.metadata_path(classic, "v2").with_name("default.jsonl").relative_to(ROOT)) in meta["command"]
    assert ("--version full" in meta["command"]) == (not classic) and meta["infeasible_goals"] == meta["fire_at_once"] == []
    for group, key in (("scenario", lambda e: e.goal.scenario.name), ("level", lambda e: e.level)):
        counts = Counter(key(e) for e in release.entries)
        assert {name: row["goals"] for name, row in meta[group].items() if name != "all"} == counts
        assert meta[group]["all"]["episodes_played"] == meta[group]["all"]["expert_plays"] * meta["episodes_per_goal"]
        assert 0 < meta[group]["all"]["episodes_completed"] <= meta[group]["all"]["episodes_played"]


@pytest.mark.parametrize("data_version", DATA_VERSIONS)
def test_splits_are_what_they_claim(data_version):
    release = dataset.load_release(True, "default", data_version)
    train = release.select(split="train")
    train_goals = {e.goal for e in train.entries}
    assert {e.goal for e in release.select(split="test_paraphrased").entries} <= train_goals
    train_combinations = {combination(e.goal) for e in train.entries}
    assert not {combination(e.goal) for e in release.select(split="test_new_objects").entries} & train_combinations
    assert not set(release.select(split="test_paraphrased").texts()) & set(train.texts())


@pytest.mark.parametrize("data_version", DATA_VERSIONS)
def test_rebuild_is_deterministic_and_matches_the_shipped_files(data_version):
    rebuilt = dataset.build_release(True, "default", data_version=data_version)
    assert [e.to_json() for e in rebuilt.entries] == [e.to_json() for e in dataset.load_release(True, "default", data_version).entries]


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
    for data_version in DATA_VERSIONS:
        for classic in (True, False):
            for release in ("default", "full"):
                assert all(w in vocab.ids for t in dataset.load_release(classic, release, data_version).texts() for w in words(t))
    v1_texts = [t for classic in (True, False) for release in ("default", "full") for t in dataset.load_release(classic, release).texts()]
    v1 = sorted({w for t in v1_texts for w in words(t)})
    assert vocab.words[2 : 2 + len(v1)] == v1  # v1's word ids are those of the first release: v2's words come after
    ids = vocab.encode("Build a line of three zorbles", 8)
    assert ids[5] == 1 and ids[6] == 0


def test_stats_command(capsys):
    dataset.main(["stats", "--data-version", "v2"])
    out = capsys.readouterr().out
    assert "CrafText v2 default release, classic: 481 goals, 3606 phrasings" in out  # v1's 496 goals less 15 infeasible
    assert "leak check: passed" in out and "BUILD_LINE" in out and "test_new_objects" in out


@pytest.mark.parametrize("classic", [True, pytest.param(False, marks=pytest.mark.slow)], ids=["classic", "full"])
def test_no_shipped_goal_is_met_on_the_first_step(classic):
    """32 reset seeds x every goal of the default release of v1 and v2: the first (NOOP) step never succeeds."""
    goals = {e.goal: None for version in DATA_VERSIONS for e in dataset.load_release(classic, "default", version).entries}
    goals = np.stack([goal.encode() for goal in goals])
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


def test_lexicon_is_its_data_file():
    """Every word list lives in craftext/data/lexicon.json and the module exposes each of them as is."""
    from importlib import resources

    from craftext import lexicon

    data = json.loads((resources.files("craftext") / "data" / "lexicon.json").read_text(encoding="utf-8"))
    public = {name for name in vars(lexicon) if name.isupper() and not name.startswith("_")}
    assert public == set(data) and len(public) == 30
    assert lexicon.NUMBERS[3] == data["NUMBERS"]["3"] and lexicon.FULL_CHAINS[0] == tuple(data["FULL_CHAINS"][0])
    assert all(words for name in data for words in (data[name].values() if isinstance(data[name], dict) else [data[name]]))
