"""A user's own grid-world data: Build target files and Hexagons procedure files, through ``make``
and the baselines' ``--data FILE``."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import pytest

import blocksworld
import hexagons
from baselines.__main__ import parser, settings
from baselines.worlds import eval_splits, family_of, split_episodes
from blocksworld.targets import TargetFileError, load_targets

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ROOT / "docs" / "examples" / "build_targets.jsonl"
PROCEDURES = ROOT / "tests" / "fixtures" / "hexagons" / "train.jsonl"


def test_every_problem_of_a_target_file_is_reported_with_line_and_field(tmp_path):
    good = {"name": "tower", "blocks": [[0, 1, 0, "red"], [0, 2, 0, "red"]]}
    rows = [
        json.dumps(good),
        "{not json",
        json.dumps({"blocks": [[0, 1, 0, "red"]], "colour": "red"}),
        json.dumps({"name": "far", "blocks": [[9, 1, 0, "red"], [0, 1, 0, "pink"], [0, 1, 0, "red"], [0, 1, 0, "red"]], "split": "val"}),
        json.dumps({"name": "many", "blocks": [[x, y, 0, "blue"] for x in range(-5, 6) for y in (1, 2)]}),
        json.dumps({**good, "pose": [0, 1]}),
        json.dumps(good),
    ]
    path = tmp_path / "targets.jsonl"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(TargetFileError) as error:
        load_targets(path)
    problems = "\n".join(error.value.problems)
    for expected in (
        ":2: not JSON",
        ":3: field 'colour': unknown",
        ":3: field 'name': required",
        ":4: field 'blocks[0]': (9, 1, 0) is outside",
        ":4: field 'blocks[1]': colour 'pink'",
        ":4: field 'blocks': cell (0, 1, 0) appears 2 times",
        ":4: field 'split': 'val'",
        ":5: field 'blocks': 22 blue blocks, the Builder has 20",
        ":6: field 'pose'",
        ":7: field 'name': 'tower' already on line 1",
    ):
        assert expected in problems, expected
    assert len(error.value.problems) == 10


def test_build_targets_from_a_file_through_make_the_expert_and_the_baselines(tmp_path):
    items = load_targets(TARGETS)
    assert [i.split for i in items].count("test") == 2 and items[0].history == (("Architect", "stack three red blocks in the middle"),)
    env, params = blocksworld.make("BlocksWorld-Build-v1", TARGETS, max_steps_in_episode=32)
    step, expert = jax.jit(env.step_env), jax.jit(env.expert_action)
    for i in range(len(items)):  # the expert builds every target exactly
        _, state = env.reset_to_item(i, params)
        for t in range(32):
            _, state, _, done, info = step(jax.random.key(t), state, expert(state, params), params)
            if done:
                break
        assert float(info["f1"]) == 1.0, items[i].game_id
    with pytest.raises(ValueError, match="a target file is for BlocksWorld-Build-v1"):
        blocksworld.make("BlocksWorld-BAP-v1", TARGETS)

    spec = {"env": "BlocksWorld-Build-v1", "data": str(TARGETS)}
    assert family_of("BlocksWorld-Build-v1").splits_of(spec) == ("train", "test") and eval_splits(spec) == ("train", "test")
    episodes, _ = split_episodes({"env": "BlocksWorld-Build-v1", "data": str(TARGETS)}, "test")
    assert [e.game_id for e in episodes] == ["purple tower", "orange row"]
    run = settings(parser().parse_args(["--env", "BlocksWorld-Build-v1", "--data", str(TARGETS), "--out", str(tmp_path / "r")]))
    assert run.eval_splits == ["train", "test"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"name": "x", "blocks": [[0, 0, 0, "red"]]}) + "\n")
    with pytest.raises(SystemExit, match="bad.jsonl:1: field 'blocks\\[0\\]'"):
        settings(parser().parse_args(["--env", "BlocksWorld-Build-v1", "--data", str(bad), "--out", str(tmp_path / "s")]))


def test_hexagons_procedures_from_a_file(tmp_path):
    env, params = hexagons.make("Hexagons-Paint-v1", PROCEDURES)
    assert int(params.tokens.shape[0]) == len(PROCEDURES.read_text().splitlines())
    assert eval_splits({"env": "Hexagons-Paint-v1", "data": str(PROCEDURES)}) == ("train",)
    run = settings(parser().parse_args(["--env", "Hexagons-Paint-v1", "--data", str(PROCEDURES), "--out", str(tmp_path / "r")]))
    assert run.eval_splits == ["train"]
    bad = tmp_path / "procedures.jsonl"
    bad.write_text(PROCEDURES.read_text().splitlines()[0].replace('"category": "simple"', '"category": 7') + "\n")
    with pytest.raises(SystemExit, match="procedures.jsonl.*line 1.*category"):
        settings(parser().parse_args(["--env", "Hexagons-Paint-v1", "--data", str(bad), "--out", str(tmp_path / "s")]))
