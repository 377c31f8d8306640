"""Seed summaries and the documentation's figures (``baselines.results``): the intervals are
Student-t intervals, mismatched runs are refused naming the file and field, and every marked figure
of the README and the docs pages is what ``docs/results`` says."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from baselines import __version__, evaluate
from baselines.results import ResultsError, held_out_note, interval, load, main, model_table, pages, render, summarize, update_docs

ROOT = Path(__file__).resolve().parent.parent


def _run(folder: Path, seed: int, agent: dict[str, float], seen: dict[str, float] | None = None, **meta) -> Path:
    """A run folder whose ``evaluation.json`` is written by ``evaluate.save`` (4 goals x 8 episodes);
    ``seen``: split -> the share of its texts in train, where the evaluation recorded one."""

    def summary(success: float) -> dict:
        return {"success": success, "episodes": 32, "goals": 4, "groups": {}, "per_goal": {}}

    splits = {split: {"agent": summary(a), "shuffled": summary(a / 2), "random": summary(0.1)} for split, a in agent.items()}
    for split, share in (seen or {}).items():
        splits[split]["agent"]["texts_in_train"] = share
    base = {"env": "Hexagons-Paint-v1", "policy": "ppo-t", "success_metric": "exact_match", "episodes_per_goal": 8}
    base.update({"total_steps": 400000, "device": "cpu:0", "jax": "0.10.2", "seed": seed, "command": f"python -m baselines --seed {seed}"})
    evaluate.save(splits, folder, {**base, **meta})
    return folder


def test_interval_is_the_student_t_interval():
    values = [0.998, 0.989, 0.993]
    mean, half = interval(values)
    expected = stats.t.interval(0.95, 2, loc=np.mean(values), scale=stats.sem(values))
    assert mean == pytest.approx(np.mean(values)) and (mean - half, mean + half) == pytest.approx(expected)
    assert interval([0.5]) == (0.5, 0.0)


def test_summarize_aggregates_seeds_and_refuses_mismatched_runs(tmp_path):
    runs = [_run(tmp_path / f"s{s}", s, {"train": a, "test": a - 0.2}) for s, a in enumerate([0.8, 0.7, 0.9])]
    summary = summarize(runs, "Hexagons, my procedures")
    assert summary["suite"] == __version__ and summary["seeds"] == [0, 1, 2]
    assert summary["splits"]["train"]["agent"] == [0.8, 0.7, 0.9] and summary["splits"]["test"]["goals"] == 4
    assert "seed" not in summary["meta"] and summary["commands"][2] == "python -m baselines --seed 2"
    with pytest.raises(ResultsError, match=r"s3/evaluation.json: field 'meta.total_steps' is 1, the first run's is 400000"):
        summarize([*runs, _run(tmp_path / "s3", 3, {"train": 0.5, "test": 0.5}, total_steps=1)], "x")
    with pytest.raises(ResultsError, match="a seed appears twice"):
        summarize([runs[0], _run(tmp_path / "again", 0, {"train": 0.5, "test": 0.5})], "x")
    with pytest.raises(ResultsError, match=r"s4/evaluation.json: field 'splits'"):
        summarize([runs[0], _run(tmp_path / "s4", 4, {"train": 0.5})], "x")
    cloned = [_run(tmp_path / f"c{s}", s, {"train": 0.5, "test": 0.5}, init_from=f"runs/bc-s{s}") for s in range(3)]
    assert summarize(cloned, "x")["init_from"] == ["runs/bc-s0", "runs/bc-s1", "runs/bc-s2"]  # each seed from its own clone
    assert "init_from" not in summary and "init_from" not in summarize(cloned[:1], "x")["meta"]
    shared = _run(tmp_path / "c3", 3, {"train": 0.5, "test": 0.5}, init_from="runs/bc-s0")
    with pytest.raises(ResultsError, match="field 'meta.init_from'"):
        summarize([*cloned, shared], "x")
    old = json.loads((runs[0] / "evaluation.json").read_text())
    del old["meta"]["command"]
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "evaluation.json").write_text(json.dumps(old))
    with pytest.raises(ResultsError, match="field 'meta.command' missing"):
        summarize([tmp_path / "old"], "x")


def test_paper_protocol_summaries_count_instructions_and_show_the_published_figures(tmp_path):
    """Evaluations of ``python -m baselines.evaluate --protocol paper`` average over instructions:
    the table says so, and shows the published figure of each split beside the agent's."""
    paper = {"unit": "instruction", "episodes_per_instruction": 4, "episodes_per_goal": None}
    seen = {"train": 1.0, "test": 0.0}
    runs = [_run(tmp_path / f"s{s}", s, {"train": a, "test": a - 0.2}, seen, **paper) for s, a in enumerate([0.5, 0.6, 0.7])]
    summary = summarize(runs, "CrafText Medium", {"source": "the paper's Table 2", "splits": {"train": 0.45}})
    text = render(["medium"], _summaries(tmp_path, medium=summary))
    assert "| split | agent | shown another instruction | uniform random | agent - another instruction | published |" in text
    assert "| train (4 instructions) | 0.600 ± 0.248 | 0.300 ± 0.124 | 0.100 ± 0.000 | +0.300 ± 0.124 | 0.45 |" in text
    test_row = "| test (4 instructions; 0% of texts in train) | 0.400 ± 0.248 | 0.200 ± 0.124 | 0.100 ± 0.000 | +0.200 ± 0.124 | – |"
    assert test_row in text  # how held out the split is; none published
    assert held_out_note("train", 1.0) == "" and held_out_note("train", 0.0) == "0% of texts in train"  # another world's train
    assert "per instruction, averaged over instructions" in text and "4 episodes per instruction each" in text
    assert text.endswith("Published: the paper's Table 2.")
    with pytest.raises(ResultsError, match="published split 'test_new_objects': the runs evaluate train, test"):
        summarize(runs, "x", {"source": "p", "splits": {"test_new_objects": 0.28}})
    bad = tmp_path / "docs" / "results" / "medium.json"
    bad.write_text(json.dumps({**summary, "published": {"splits": {"train": "high"}}}))
    with pytest.raises(ResultsError, match="medium.json: field 'published'"):
        load(bad)


def _summaries(root: Path, **summaries: dict) -> Path:
    """``root`` with ``docs/results/NAME.json`` written for each summary."""
    (root / "docs" / "results").mkdir(parents=True, exist_ok=True)
    for name, summary in summaries.items():
        (root / "docs" / "results" / f"{name}.json").write_text(json.dumps(summary))
    return root


def test_summary_files_are_checked(tmp_path):
    bad = tmp_path / "bad.json"
    fields = {"format": "instructworlds-results", "version": 1, "kind": "seeds", "title": "t", "suite": "0.3.0", "seeds": [0, 1]}
    bad.write_text(json.dumps(fields))
    with pytest.raises(ResultsError, match="bad.json: field 'commands' missing"):
        load(bad)
    bad.write_text(json.dumps({**fields, "kind": "other"}))
    with pytest.raises(ResultsError, match="bad.json: field 'kind'"):
        load(bad)
    with pytest.raises(ResultsError, match="no such summary"):
        load(tmp_path / "none.json")


def test_update_docs_rewrites_marked_blocks_and_check_reports_them(tmp_path, capsys):
    runs = [_run(tmp_path / f"s{s}", s, {"train": a, "test": a - 0.2}) for s, a in enumerate([0.8, 0.7, 0.9])]
    root = tmp_path / "repo"
    (root / "docs" / "results").mkdir(parents=True)
    (root / "docs" / "results" / "mine.json").write_text(json.dumps(summarize(runs, "Hexagons, my procedures")))
    (root / "docs" / "results" / "one.json").write_text(json.dumps(summarize(runs[:1], "Hexagons, one seed")))
    (root / "README.md").write_text("# r\n<!-- results: mine one -->\nstale\n<!-- /results -->\n")
    (root / "docs" / "page.md").write_text(
        "text\n<!-- results: mine -->\n<!-- /results -->\n- item\n\n    <!-- results: one -->\n    <!-- /results -->\nmore\n"
    )
    assert update_docs(root, check=True) == [root / "README.md", root / "docs" / "page.md"]
    assert "stale" in (root / "README.md").read_text()
    update_docs(root)
    page = (root / "docs" / "page.md").read_text()
    assert "| train (4 goals) | 0.800 ± 0.248 | 0.400 ± 0.124 | 0.100 ± 0.000 | +0.400 ± 0.124 |" in page
    assert "3 training seeds (0, 1, 2), 8 episodes per goal each: `python -m baselines --seed 0`" in page and page.endswith("more\n")
    assert "\n    | train (4 goals) | 0.800 | 0.400 | 0.100 | +0.400 |\n" in page  # indented like its list item
    readme = (root / "README.md").read_text()
    mine = "| Hexagons, my procedures: ppo-t, 400k steps, 3 seeds | train | 0.80 ± 0.25 | 0.40 ± 0.12 | 0.10 ± 0.00 |\n"
    assert mine + "|  | test | 0.60 ± 0.25 |" in readme
    assert "| Hexagons, one seed: ppo-t, 400k steps, 1 seed | train | 0.80 |" in readme and "|  | test | 0.60 |" in readme
    assert "stale" not in readme
    assert update_docs(root, check=True) == []
    (root / "docs" / "page.md").write_text("<!-- results: missing -->\n<!-- /results -->\n")
    with pytest.raises(ResultsError, match="page.md: .*missing.json: no such summary"):
        update_docs(root, check=True)


def _model(root: Path, figures: list[list[str]]) -> dict:
    """A model summary in ``root/docs/results/model.json`` over ``root/eval.json``."""
    (root / "docs" / "results").mkdir(parents=True, exist_ok=True)
    (root / "eval.json").write_text(json.dumps({"test": {"f1": 21.40724, "em": 6.8}, "blind": {"f1": 1.484}}))
    summary = {"format": "instructworlds-results", "version": 1, "kind": "model", "title": "painter", "evaluation": "eval.json"}
    summary.update({"measured_at": "0feb5b0", "test_set": "released test", "published": "T5 36.84"})
    summary["figures"] = [{"label": k[-1], "keys": k, "digits": 2} for k in figures]
    summary["controls"] = [{"label": "another instruction", "keys": ["blind", "f1"], "digits": 1}]
    (root / "docs" / "results" / "model.json").write_text(json.dumps(summary))
    return summary


def test_model_rows_are_read_from_the_committed_evaluation_file(tmp_path):
    _model(tmp_path, [["test", "f1"], ["test", "em"]])
    table = render(["model"], tmp_path)
    assert "| painter | released test, f1 / em | 21.41 / 6.80 | another instruction: 1.5 | T5 36.84 |" in table
    assert "`eval.json` (commit 0feb5b0)" in table
    summary = _model(tmp_path, [["test", "recall"]])
    with pytest.raises(ResultsError, match=r"eval.json: field 'test.recall' missing \(painter: recall\)"):
        model_table([summary], tmp_path)
    runs = [_run(tmp_path / "s0", 0, {"train": 0.5})]
    (tmp_path / "docs" / "results" / "seeds.json").write_text(json.dumps(summarize(runs, "x")))
    with pytest.raises(ResultsError, match="separate tables"):
        render(["model", "seeds"], tmp_path)
    (tmp_path / "docs" / "results" / "model.json").write_text(json.dumps({**summary, "figures": [{"label": "f1", "digits": 2}]}))
    with pytest.raises(ResultsError, match=r"model.json: field 'figures\[0\].keys'"):
        load(tmp_path / "docs" / "results" / "model.json")


def test_summarize_command_writes_the_summary_and_its_picture(tmp_path, capsys, monkeypatch):
    runs = [_run(tmp_path / f"s{s}", s, {"train": a}) for s, a in enumerate([0.8, 0.7])]
    out = tmp_path / "summary.json"
    main(["summarize", *map(str, runs), "--title", "two seeds", "--out", str(out)])
    assert load(out)["seeds"] == [0, 1] and out.with_suffix(".png").stat().st_size > 0
    assert "| train (4 goals) | 0.750" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="already exists"):
        main(["summarize", *map(str, runs), "--title", "two seeds", "--out", str(out)])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match="no docs/results"):
        main(["update-docs", "--check"])


def test_the_documented_figures_are_the_committed_summaries():
    """Every marked figure of the README and the docs is rendered from ``docs/results``, every
    summary is shown somewhere, and a seed summary's release has a CHANGELOG section (a development
    version's: ``Unreleased`` until its release is made, then that release's)."""
    assert update_docs(ROOT, check=True) == [], "run python -m baselines.results update-docs"
    shown = {n for page in pages(ROOT) for m in _markers(page) for n in m}
    committed = {p.stem for p in (ROOT / "docs" / "results").glob("*.json")}
    assert shown == committed
    changelog = (ROOT / "CHANGELOG.md").read_text()
    for name in committed:
        summary = load(ROOT / "docs" / "results" / f"{name}.json")
        suite = summary.get("suite", "")
        sections = {suite.split(".dev")[0], "Unreleased"} if ".dev" in suite else {suite}  # figures belong to the coming release
        assert summary["kind"] == "model" or any(f"\n## {release}\n" in changelog for release in sections), name
    assert render(sorted(committed)[:1], ROOT)


def _markers(page: Path) -> list[list[str]]:
    from baselines.results import MARKER

    return [m[2].split() for m in MARKER.finditer(page.read_text())]
