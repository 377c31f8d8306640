"""Importer of the official CrafText data, on a fixture in its format (and the real wheel with the network)."""

import subprocess
import sys
from pathlib import Path

import pytest

from craftext.goals import Goal
from craftext.official import import_official, main

FIXTURE = Path(__file__).parent / "fixtures" / "official"


def test_fixture_is_read_with_dict_semantics_and_validated():
    report = import_official(FIXTURE)
    # 4 medium line records in the literal, one key repeated -> 3; 1 hard; 2 test; 2 localization; 2 achievements
    assert len(report.records) == 10
    assert len(report.duplicate_keys) == 1 and "LINE_TABLE_2" in report.duplicate_keys[0]
    goals = {r.key: g for r, g in report.imported}
    assert goals["LINE_TABLE_2"] == Goal.line("crafting_table", 2, "diagonal")  # the last record wins
    assert goals["LINE_STONE_3"] == Goal.line("stone", 3)
    assert goals["PLACE_TABLE_LEFT_OF_WATER_2"] == Goal.place_relative("crafting_table", "water", "left", 2)
    assert goals["WOOD_NOT_SAPLING"] == Goal.achievements(["collect_wood"], forbidden="collect_sapling")
    reasons = {r.key: reason for r, reason in report.dropped}
    assert "string" in reasons["LINE_BROKEN"]
    assert "enchantment_table_ice" in reasons["LINE_ICE_ALTAR_4"]
    assert "darkness" in reasons["PLACE_STONE_ABOVE_DARKNESS"]  # a capital-I record, read all the same
    assert reasons["NO_TEXT"] == "no instruction text"
    assert report.leaks == 1  # "Lay three stones in a row." is in train and in test_paraphrased
    assert report.new_object_leaks == 0
    splits = {(r.level, r.split) for r, _ in report.imported}
    assert ("medium", "test_new_objects") in splits and ("easy", "train") in splits


def test_report_command(capsys):
    main(str(FIXTURE))
    out = capsys.readouterr().out
    assert "10 goals" in out and "duplicate keys overwritten: 1" in out and "leaks): 1" in out


def test_import_writes_a_goal_file_the_commands_read(tmp_path, capsys):
    from craftext.goalfile import load_goals

    out = tmp_path / "official.jsonl"
    main(str(FIXTURE), out=out)
    assert "--goals-file" in capsys.readouterr().out
    loaded = load_goals(out)
    report = import_official(FIXTURE)
    assert {e.goal for e in loaded.entries} == {g for _, g in report.imported}
    assert {(e.goal, e.split) for e in loaded.entries} == {(g, r.split) for r, g in report.imported}
    before = out.read_text()
    with pytest.raises(SystemExit, match="already exists"):
        main(str(FIXTURE), out=out)
    assert out.read_text() == before and not list(tmp_path.glob(".*partial"))
    main(str(FIXTURE), out=out, overwrite=True)
    assert out.read_text() == before


def test_missing_data_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="dataset/scenarious"):
        import_official(tmp_path)


@pytest.mark.network
def test_official_wheel_totals(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "craftext==0.2.2", "-d", str(tmp_path)], check=True)
    report = import_official(next(tmp_path.glob("craftext-0.2.2-*.whl")))
    assert (len(report.records), report.phrasings) == (433, 2615)


@pytest.mark.parametrize("content, message", [(b"not a zip at all", "not a wheel"), (None, "no such file")])
def test_a_bad_wheel_is_a_clear_error_without_traceback(tmp_path, content, message, capsys):
    from craftext.official import OfficialDataError

    wheel = tmp_path / "craftext-0.2.2-py3-none-any.whl"
    if content is not None:
        wheel.write_bytes(content)
    with pytest.raises(OfficialDataError, match=message):
        import_official(wheel)
    with pytest.raises(SystemExit, match=f"error: .*{message}"):
        main(str(wheel))


def test_non_utf8_data_module_is_a_clear_error(tmp_path):
    import shutil

    from craftext.official import OfficialDataError

    shutil.copytree(FIXTURE, tmp_path / "data")
    module = next((tmp_path / "data").rglob("*.py"))
    module.write_bytes(b"x = {'\xff': 1}\n")
    with pytest.raises(OfficialDataError, match="UTF-8"):
        import_official(tmp_path / "data")
