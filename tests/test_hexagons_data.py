import copy
import json
import os
from pathlib import Path

import numpy as np
import pytest

from hexagons import data
from hexagons.data import HexagonsDataError, load_dataset, load_split, parse_record

FIXTURE = Path(__file__).parent / "fixtures" / "hexagons"


def _records(split="train"):
    return [json.loads(line) for line in (FIXTURE / f"{split}.jsonl").read_text().splitlines()]


def test_fixture_counts_and_quirks_are_accepted():
    dataset = load_dataset(FIXTURE)
    assert {s: len(p) for s, p in dataset.items()} == {"train": 3, "dev": 1, "test": 1}
    train = dataset["train"]
    assert [p.num_steps for p in train] == [2, 3, 1]
    assert train[1].texts[1] == ""  # the release's one empty instruction
    assert train[0].texts[1].startswith("\n")  # stray whitespace kept as released
    assert train[2].agreement_tags is None and train[2].agreement_scores is None  # "None" agreement
    assert train[0].agreement_scores.dtype == np.float32  # ints and floats mixed
    assert train[0].boards.shape == (3, 180) and not train[0].boards[0].any()
    assert train[0].boards[1, 77] == 4  # "sixth column, fifth from the top" = 4 * 18 + 5
    assert train[1].boards[3, 0] == 0 and train[1].boards[2, 0] == 3  # erasure
    assert data.split_statistics(train)["empty_steps"] == 1


def test_cli_prints_per_split_counts(capsys):
    data.main([str(FIXTURE)])
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:3] == ["train", "3", "6"]
    assert out[2].split()[:3] == ["dev", "1", "1"]
    assert out[0].endswith("in train") and out[1].endswith(" -") and out[3].endswith(" 0 (0.0%)")  # no test text is in train
    test = data.load_split(FIXTURE / "test.jsonl")
    assert data.split_statistics(test, {test[0].texts[0].strip()})["steps_in_train"] == 1  # one of its two steps


def _mutations():
    def drop_key(r):
        del r["image_id"]

    def bad_colour(r):
        r["drawing_procedure"][1][2][5] = 8

    def short_board(r):
        r["drawing_procedure"][1][2] = r["drawing_procedure"][1][2][:179]

    def wrong_count(r):
        r["number_of_drawing_steps"] = 5

    def bad_step_id(r):
        r["drawing_procedure"][2][0] = 7

    def bad_sentinel(r):
        r["drawing_procedure"][0][1] = "hello"

    def bad_tags(r):
        r["agreement_tags"] = ["A", "Z"]

    def bad_scores(r):
        r["agreement_scores"] = [[1, 1, 1], [2, 0, 0]]

    def text_not_string(r):
        r["drawing_procedure"][1][1] = None

    def extra_key(r):
        r["comment"] = "x"

    return [
        (drop_key, "image_id"),
        (bad_colour, "drawing_procedure[1][2]"),
        (short_board, "drawing_procedure[1][2]"),
        (wrong_count, "drawing_procedure"),
        (bad_step_id, "drawing_procedure[2][0]"),
        (bad_sentinel, "drawing_procedure[0]"),
        (bad_tags, "agreement_tags"),
        (bad_scores, "agreement_scores"),
        (text_not_string, "drawing_procedure[1][1]"),
        (extra_key, "comment"),
    ]


@pytest.mark.parametrize("mutate, field", _mutations(), ids=lambda x: getattr(x, "__name__", x))
def test_malformed_record_names_file_line_and_field(tmp_path, mutate, field):
    records = _records()
    bad = copy.deepcopy(records[0])
    mutate(bad)
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (records[1], bad, records[2])) + "\n")
    with pytest.raises(HexagonsDataError) as err:
        load_split(path)
    assert err.value.line == 2 and err.value.field == field
    assert str(path) in str(err.value) and "line 2" in str(err.value) and field in str(err.value)


def test_broken_json_duplicate_ids_and_missing_files(tmp_path):
    path = tmp_path / "dev.jsonl"
    path.write_text('{"index": 1,\n')
    with pytest.raises(HexagonsDataError, match="line 1, field '<json>'"):
        load_split(path)
    line = json.dumps(_records("dev")[0])
    path.write_text(line + "\n" + line + "\n")
    with pytest.raises(HexagonsDataError, match="line 2, field 'index'"):
        load_split(path)
    with pytest.raises(FileNotFoundError, match="test.jsonl"):
        load_dataset(tmp_path, ("dev", "test"))


def test_non_utf8_and_deeply_nested_lines_name_file_and_line(tmp_path):
    path = tmp_path / "dev.jsonl"
    line = json.dumps(_records("dev")[0]).encode()
    path.write_bytes(line + b"\n" + b'{"text": "\xff"}\n')
    with pytest.raises(HexagonsDataError, match="line 2.*UTF-8"):
        load_split(path)
    path.write_bytes(line + b"\n" + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    with pytest.raises(HexagonsDataError) as err:
        load_split(path)
    assert err.value.line == 2 and str(path) in str(err.value)


def test_parse_record_rejects_non_objects():
    with pytest.raises(HexagonsDataError, match="JSON object"):
        parse_record([1, 2, 3])


@pytest.mark.skipif(not os.environ.get("HEXAGONS_DATA"), reason="set HEXAGONS_DATA to the release's data/ folder")
def test_release_counts_match_the_paper():
    stats = {s: data.split_statistics(p) for s, p in load_dataset(os.environ["HEXAGONS_DATA"]).items()}
    assert [stats[s]["procedures"] for s in data.SPLITS] == [496, 62, 62]
    assert [stats[s]["steps"] for s in data.SPLITS] == [3278, 446, 453]
    assert [stats[s]["empty_steps"] for s in data.SPLITS] == [83, 4, 3]
    assert [stats[s]["agreed_procedures"] for s in data.SPLITS] == [394, 49, 43]
