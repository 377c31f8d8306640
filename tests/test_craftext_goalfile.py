"""User goal files: the format, every problem reported at once, validation against the real worlds,
and training on a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import craftext
from craftext import validate
from craftext.goalfile import GoalFileError, load_goals

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "goals.yaml"
WOOD = {
    "scenario": "ACHIEVEMENTS",
    "args": {"required": ["collect_wood"], "forbidden": None, "ordered": False},
    "phrasings": ["chop a tree"],
}


def write_lines(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_every_problem_is_reported_with_file_line_and_field(tmp_path):
    path = write_lines(
        tmp_path / "goals.jsonl",
        [
            {"format": "craftext-goals", "version": 1},
            WOOD,
            {**WOOD, "args": {"required": ["collect_wod"], "forbidden": None, "ordered": False}},
            {**WOOD, "phrasings": [], "split": "validation"},
            "{not json",
        ],
    )
    with pytest.raises(GoalFileError) as error:
        load_goals(path)
    assert error.value.problems == [f"{path}:5: not JSON (Expecting property name enclosed in double quotes at column 2)"]
    path = write_lines(
        tmp_path / "goals.jsonl",
        [
            WOOD,
            {**WOOD, "args": {"required": ["collect_wod"], "forbidden": None, "ordered": False}},
            {**WOOD, "phrasings": [], "split": "validation", "colour": "red"},
            {**WOOD, "key": "something else"},
            {**WOOD, "classic": False},
        ],
    )
    with pytest.raises(GoalFileError) as error:
        load_goals(path)
    problems = error.value.problems
    assert problems[0] == f"{path}:2: field 'args': achievement 'collect_wod' does not exist in Craftax-Classic"
    assert [p.split(": ")[0] for p in problems] == [f"{path}:{n}" for n in (2, 3, 3, 3, 4, 5)]
    assert (
        "field(s) 'colour': unknown" in problems[1] and "field 'phrasings'" in problems[2] and "field 'split': 'validation'" in problems[3]
    )
    assert "field 'key'" in problems[4] and "field 'classic'" in problems[5]
    with pytest.raises(GoalFileError, match="'version': expected 'craftext-goals' version 1"):
        load_goals(write_lines(tmp_path / "v2.jsonl", [{"format": "craftext-goals", "version": 2}, WOOD]))


def test_yaml_lines_and_the_shipped_release_is_an_instance(tmp_path):
    bad = tmp_path / "goals.yaml"
    bad.write_text(
        "goals:\n  - scenario: ACHIEVEMENTS\n    args: {required: [collect_wood], forbidden: null, ordered: false}\n"
        "    phrasings: [chop a tree]\n  - scenario: BUILD_LINE\n    args: {block: stone, size: 9, variant: straight, agent_built: true}\n"
        "    phrasings: [nine stones]\n"
    )
    with pytest.raises(GoalFileError) as error:
        load_goals(bad)
    assert error.value.problems == [f"{bad}:5: field 'args': size must be an int in 2..7, got 9"]
    example = load_goals(EXAMPLE)
    assert [e.split for e in example.entries] == ["train"] * 4 + ["test_paraphrased"] * 2
    assert [e.level for e in example.entries] == ["easy", "easy", "easy", "medium", "easy", "easy"]
    shipped = craftext.dataset.load_release(True, "default")
    assert [e.goal for e in load_goals(craftext.dataset.DATA / "v1/classic/default.jsonl").entries] == [e.goal for e in shipped.entries]


def test_duplicates_and_shared_phrasings_are_errors(tmp_path):
    other = {**WOOD, "args": {"required": ["collect_drink"], "forbidden": None, "ordered": False}, "phrasings": ["Chop a  tree"]}
    dataset = load_goals(write_lines(tmp_path / "g.jsonl", [WOOD, WOOD, other]))
    problems = validate.duplicates(dataset)
    assert any("appears 2 times in split train" in p for p in problems)
    assert any(p.startswith("phrasing 'chop a tree' belongs to 2 goals") for p in problems)


@pytest.mark.slow
def test_validate_plays_the_goals_and_make_reads_the_file(tmp_path, capsys):
    validate.main([str(EXAMPLE), "--episodes-per-goal", "2", "--expert-steps", "150"])
    out = capsys.readouterr().out
    assert "| ACHIEVEMENTS | 5 | 0 | 5 | 5 | 100% | " in out and "| BUILD_LINE | 1 | 0 | 1 | 1 | 100% | " in out
    assert out.rstrip().endswith("valid") and "warning" not in out
    with pytest.raises(SystemExit, match="invalid \\(1 problem"):
        validate.main([str(write_lines(tmp_path / "bad.jsonl", [{**WOOD, "scenario": "FLY"}]))])
    env, params = craftext.make("CrafText-Classic-Symbolic-v1", goals=EXAMPLE, split="test_paraphrased")
    assert int(params.num_goals) == 2 and int(env.make_params(load_goals(EXAMPLE)).num_goals) == 6
    with pytest.raises(ValueError, match="no goals in split 'test_new_objects'"):
        craftext.make("CrafText-Classic-Symbolic-v1", goals=EXAMPLE, split="test_new_objects")


def test_training_settings_from_a_goal_file(tmp_path):
    from baselines.__main__ import parser, settings
    from baselines.worlds import split_episodes

    run = settings(parser().parse_args(["--goals-file", str(EXAMPLE), "--out", str(tmp_path / "r")]))
    assert (run.goals, run.eval_splits) == ("", ["train", "test_paraphrased"])  # the quick preset's filter is for the shipped data
    pairs, _ = split_episodes(vars(run), "train")
    assert len(pairs) == 4
    bad = write_lines(tmp_path / "bad.jsonl", [{**WOOD, "split": "nope"}])
    with pytest.raises(SystemExit, match="field 'split'"):
        settings(parser().parse_args(["--goals-file", str(bad), "--out", str(tmp_path / "s")]))
