import copy
import json
import os
import shutil
from pathlib import Path

import pytest

from blocksworld import data
from blocksworld.data import MdcDataError, game_items, load_gold_configuration, load_items, read_jsonl
from blocksworld.grid import PICK, PLACE, colour_code
from blocksworld.item import ARCHITECT, BUILDER

CORPUS = Path(__file__).parent / "fixtures" / "mdc" / "data"
GAME1 = "B1-A2-C1-1522435497386"
RED, BLUE, ORANGE, YELLOW = (colour_code(c) for c in ("red", "blue", "orange", "yellow"))


@pytest.fixture(scope="module")
def items():
    return load_items(CORPUS)


def test_items_are_derived_as_the_reference_does(items):
    assert {s: len(v) for s, v in items.items()} == {"train": 4, "dev": 2, "test": 1}
    a, b, c, d = items["train"]
    # A: first placement on an empty board; history is the chat so far
    assert a.empty_board and a.actions == ((PLACE, 0, 1, 0, RED),)
    assert a.history[-1] == (ARCHITECT, "put a red block in the middle")
    assert a.history[0] == (BUILDER, "Mission has started.")
    # B: the glitch state (null position) is dropped; two placements of one diff, sorted by (x, y, z)
    assert b.actions == ((PLACE, 0, 2, 0, BLUE), (PLACE, 0, 3, 0, BLUE))
    assert b.start == ((0, 1, 0, RED),) and b.history[-2:] == ((PLACE, "red"), (ARCHITECT, "now two blue ones on top of it"))
    # C: within one diff, placements come before removals; the Builder's line ended run B
    assert c.actions == ((PLACE, 1, 1, 0, ORANGE), (PICK, 0, 3, 0, BLUE))
    assert (BUILDER, "like this?") in c.history
    # D: three placements of one diff in (x, y, z) order, the first unsupported until the others exist
    assert [x[1:4] for x in d.actions] == [(2, 2, 0), (3, 1, 0), (3, 2, 0)]
    assert d.builder_pose == (0.0, 1.0, -6.0, 0.0, 20.0)
    # the run with a block outside the region is dropped; the warm-up game (C9) is in no split
    assert all(i.game_id == GAME1 for i in items["train"])
    s1, green = items["dev"]
    assert s1.empty_board and s1.history == () and s1.sample_id == 1  # s_1 special case
    assert green.sample_id == 3 and green.start == ((0, 1, 0, colour_code("purple")),)
    # the pose is the last one before the first action (yaw 0), not the action's own snapshot (yaw 90)
    assert items["test"][0].builder_pose == (0.0, 1.0, -6.0, 0.0, 20.0)


def test_statistics_cli_and_export(tmp_path, capsys):
    out = tmp_path / "runs" / "items.jsonl"  # a folder that does not exist yet
    data.main([str(CORPUS), "--out", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:4] == ["train", "1", "4", "1"]
    assert lines[1].split()[4:7] == ["2.00", "±", "0.71"]  # raw lengths 1, 2, 2, 3
    back = read_jsonl(out)
    assert back == [i for split in load_items(CORPUS).values() for i in split]


def test_replay_cli_reports_infeasible_recorded_order(capsys):
    data.main([str(CORPUS), "--replay"])
    train_line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("train items"))
    assert "infeasible_recorded_order 1" in train_line and "env_end_matches_executable_order 4" in train_line


def test_gold_configuration_offsets():
    blocks = load_gold_configuration(CORPUS / "gold-configurations" / "C1.xml")
    assert blocks[0] == (0, 1, 0, RED) and len(blocks) == 6


def _log():
    path = next(CORPUS.glob(f"logs/*/logs/{GAME1}/postprocessed-observations.json"))
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    "mutate, state, field",
    [
        (lambda s: s[2].pop("ChatHistory"), 2, "ChatHistory"),
        (lambda s: s[5]["BlocksInGrid"][1].update(Type="cwc_minecraft_black_rn"), 5, "BlocksInGrid[1].Type"),
        (lambda s: s[5]["BlocksInGrid"][0]["AbsoluteCoordinates"].pop("Y"), 5, "BlocksInGrid[0].AbsoluteCoordinates"),
        (lambda s: s[3].update(BuilderPosition={"X": 0}), 3, "BuilderPosition"),
        (lambda s: s[6].update(ChatHistory="hello"), 6, "ChatHistory"),
        (lambda s: s[5]["BlocksInGrid"][0]["AbsoluteCoordinates"].update(X=0.5), 5, "BlocksInGrid[0].AbsoluteCoordinates"),
        (lambda s: s[5]["BlocksInGrid"][0]["AbsoluteCoordinates"].update(X=float("nan")), 5, "BlocksInGrid[0].AbsoluteCoordinates"),
        (lambda s: s[5]["BlocksInGrid"][0]["AbsoluteCoordinates"].update(Z=float("inf")), 5, "BlocksInGrid[0].AbsoluteCoordinates"),
        (lambda s: s[3].update(BuilderPosition={"X": float("nan"), "Y": 0, "Z": 0, "Yaw": 0, "Pitch": 0}), 3, "BuilderPosition"),
    ],
)
def test_malformed_logs_name_game_state_and_field(mutate, state, field):
    log = copy.deepcopy(_log())
    mutate(log["WorldStates"])
    with pytest.raises(MdcDataError) as err:
        game_items(GAME1, log, "train")
    assert (err.value.game, err.value.state, err.value.field) == (GAME1, state, field)
    assert f"game {GAME1}, state {state}, field '{field}'" in str(err.value)


def test_bad_directory_names_json_and_xml(tmp_path):
    with pytest.raises(MdcDataError, match="directory name"):
        data.structure_id("game-without-structure")
    corpus = tmp_path / "data"
    shutil.copytree(CORPUS, corpus)
    path = next(corpus.glob(f"logs/*/logs/{GAME1}/postprocessed-observations.json"))
    path.write_text("{broken")
    with pytest.raises(MdcDataError, match=f"game {GAME1}, field '<json>'"):
        load_items(corpus)
    xml = corpus / "gold-configurations" / "C1.xml"
    xml.write_text('<DrawBlock type="x" x="1"/>\n')
    with pytest.raises(MdcDataError, match="line 1"):
        load_gold_configuration(xml)


@pytest.fixture
def corpus(tmp_path):
    shutil.copytree(CORPUS, tmp_path / "data")
    return tmp_path / "data"


def _game_log(corpus) -> Path:
    return next(corpus.glob(f"logs/*/logs/{GAME1}/postprocessed-observations.json"))


def test_a_split_game_without_its_log_is_an_error_or_a_counted_skip(corpus):
    _game_log(corpus).unlink()
    with pytest.raises(MdcDataError, match=f"game {GAME1}, field '<file>'.*postprocessed-observations.json is missing"):
        load_items(corpus)
    with pytest.warns(UserWarning, match=f"skipped 1 game folder.*{GAME1}"):
        items = load_items(corpus, skip_missing=True)
    assert len(items["train"]) < 4


@pytest.mark.parametrize(
    "content, field",
    [
        ('{"train": "C1", "val": ["C2"], "test": ["C5"]}', "train"),
        ('{"train": ["C1"], "test": ["C5"]}', "val"),
        ('["C1"]', "<file>"),
        ("{broken", "<json>"),
        (b"\xff\xfe{}", "<file>"),
    ],
)
def test_bad_splits_json_names_the_file_and_field(corpus, content, field):
    path = corpus / "logs" / "splits.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(MdcDataError) as err:
        load_items(corpus)
    assert err.value.field == field and "splits.json" in str(err.value)
    path.unlink()
    with pytest.raises(MdcDataError, match="splits.json is missing"):
        load_items(corpus)


def test_non_utf8_and_deeply_nested_logs_name_the_file(corpus):
    log = _game_log(corpus)
    log.write_bytes(b'{"WorldStates": ["\xe9"]}')
    with pytest.raises(MdcDataError, match=f"game {GAME1}.*not UTF-8"):
        load_items(corpus)
    log.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(MdcDataError, match=f"game {GAME1}.*(nested too deeply|<json>)"):
        load_items(corpus)


def test_cli_missing_log_is_a_clear_error_and_skip_missing_reports(corpus, capsys):
    _game_log(corpus).unlink()
    with pytest.raises(SystemExit, match="is missing"):
        data.main([str(corpus)])
    with pytest.warns(UserWarning, match="skipped 1 game folder"):
        data.main([str(corpus), "--skip-missing"])
    assert "train" in capsys.readouterr().out


@pytest.mark.skipif(not os.environ.get("MDC_DATA"), reason="set MDC_DATA to the corpus's data/ folder")
def test_real_corpus_counts_match_the_paper():
    stats = {s: data.split_statistics(v) for s, v in load_items(os.environ["MDC_DATA"]).items()}
    assert [stats[s]["items"] for s in ("train", "dev", "test")] == [3709, 1331, 1616]
    assert round(stats["dev"]["raw_mean"], 1) == 4.3 and round(stats["dev"]["raw_std"], 1) == 4.5
