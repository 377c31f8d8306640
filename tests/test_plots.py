"""The pictures of a run folder: learning curves smoothed and titled with world, agent and seed,
the imitation loss on a panel of its own, and evaluation bars labelled in the docs' words."""

from __future__ import annotations

import json

import numpy as np
from PIL import Image

from baselines import plots


def test_smoothed_is_a_trailing_mean_over_a_tenth_of_the_points():
    values = np.arange(20.0)
    out = plots.smoothed(values)
    assert out.shape == (20,) and out[0] == 0 and out[1] == 0.5 and out[-1] == (18 + 19) / 2
    assert np.allclose(plots.smoothed([1.0, 1.0, 1.0]), 1.0)


def _run(tmp_path, imitation: float):
    run = tmp_path / f"imitation-{imitation}"
    run.mkdir(exist_ok=True)
    config = {"ppo": {"env_id": "Hexagons-Paint-v1", "policy": "ppo-t", "imitation_coef": imitation, "seed": 3}, "command": {}}
    (run / "config.json").write_text(json.dumps(config))
    rows = [
        {"env_steps": 64 * i, "success_rate": i / 40, "return": i / 20, "imitation_loss": imitation * (2 - i / 40), "update": i}
        for i in range(1, 41)
    ]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


def test_learning_curve_is_titled_and_shows_the_imitation_loss_when_there_is_one(tmp_path):
    assert plots.run_title(_run(tmp_path, 1.0)) == "Hexagons-Paint-v1: ppo-t + imitation, seed 3"
    with_imitation = Image.open(plots.learning_curve(_run(tmp_path, 1.0))).size
    without = Image.open(plots.learning_curve(_run(tmp_path, 0.0))).size
    assert with_imitation[0] > 1.3 * without[0]  # a third panel


def test_a_dagger_run_is_titled_with_its_student(tmp_path):
    def titled(network: dict) -> str:
        config = {"kind": "dagger", "dagger": {"seed": 2}, "network": {"policy": "film", **network}, "world": {"env": "E"}}
        (tmp_path / "config.json").write_text(json.dumps(config))
        return plots.run_title(tmp_path)

    assert titled({}) == "E: film, aggregated DAgger, seed 2"
    student = "film + placed cells, conv world encoder"
    assert titled({"world_encoder": "conv", "placed_channel": True}) == f"E: {student}, aggregated DAgger, seed 2"


def test_evaluation_bars_name_the_controls_as_the_docs_do(tmp_path, monkeypatch):
    labels = []
    original = plots.save

    def spy(fig, path, title=None):
        labels.extend(text.get_text() for ax in fig.axes for text in ax.get_legend().get_texts())
        labels.extend(text.get_text() for text in fig.texts)
        return original(fig, path, title)

    monkeypatch.setattr(plots, "save", spy)
    run = tmp_path / "run"
    run.mkdir()
    summary = {"success": 0.5, "success_ci": [0.4, 0.6], "goals": 4, "unit": "goal"}
    splits = {"train": dict.fromkeys(("agent", "shuffled", "random"), summary)}
    meta = {"env": "Hexagons-Paint-v1", "policy": "ppo-t"}
    (run / "evaluation.json").write_text(json.dumps({"meta": meta, "splits": splits, "gap": {"train": 0.0}}))
    plots.evaluation_bars(run)
    assert labels[:3] == ["agent", "shown another instruction", "uniform random"]
    assert any("95% bootstrap interval over goals" in label for label in labels)
