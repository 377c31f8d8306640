"""Aggregated DAgger (``baselines.bc.dagger``): the replay, failure-weighted goals, held-out scores and resuming."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from baselines.bc import dagger
from baselines.worlds import World

HEXAGONS = {"env": "Hexagons-Paint-v1", "data": "tiles", "max_episode_steps": 8, "data_size": 8}
WORLD_FLAGS = ["--env", "Hexagons-Paint-v1", "--data", "tiles", "--data-size", "8", "--max-episode-steps", "8"]
SMALL = ["--num-envs", "4", "--num-steps", "8", "--replay-steps", "64", "--updates", "2", "--batch-segments", "2", "--quiet"]
EVALUATION = ["--eval-episodes", "1", "--eval-splits", "train"]


def segments(round_index: int, steps: int = 3, worlds: int = 2) -> dict[str, np.ndarray]:
    """One round's segments whose every world feature is ``round_index * 10 + world``."""
    world = np.broadcast_to(round_index * 10 + np.arange(worlds, dtype=np.float32)[None, :, None], (steps, worlds, 5))
    return {
        "world": world.astype(np.float16),
        "text": np.full((steps, worlds), round_index, np.int32),
        "mask": np.ones((steps, worlds, 4), bool),
        "reset": np.zeros((steps, worlds), bool),
        "label": np.zeros((steps, worlds), np.int32),
        "hidden": np.zeros((worlds, 6), np.float32),
    }


def test_replay_keeps_the_newest_rounds_and_samples_whole_segments():
    example = dagger.Segments(**{k: jax.ShapeDtypeStruct(v.shape, v.dtype) for k, v in segments(0).items()})
    replay = dagger.Replay(capacity=4, num_envs=2, example=example)
    for r in range(3):
        replay.add(r, segments(r))
    assert replay.size == 4
    assert sorted(replay.data["world"][:, 0, 0].tolist()) == [10, 11, 20, 21]  # round 0 left first
    batch = replay.sample(np.random.default_rng(0), batches=5, size=3)
    assert batch.world.shape == (5, 3, 3, 5) and batch.hidden.shape == (5, 3, 6) and batch.world.dtype == np.float16
    assert (batch.world == batch.world[:, :1]).all()  # a segment's steps stay together, time-major
    assert set(np.unique(batch.text)) <= {1, 2}


def test_failing_goals_start_more_often():
    task = World(HEXAGONS, "train").task
    goals = len(task.goals)
    tries = np.full(goals, 10.0)
    wins = np.full(goals, 10.0)
    wins[0] = 0.0  # the student fails goal 0 every time
    p = dagger.goal_probabilities(task, tries, wins, floor=0.1)
    by_goal = np.bincount(task.text_goal, weights=p, minlength=goals)
    assert p.shape == (len(task.texts),) and np.isclose(p.sum(), 1.0)
    assert by_goal[0] > 5 * by_goal[1:].max()
    assert np.allclose(by_goal[1:], by_goal[1])
    uniform = dagger.goal_probabilities(task, np.zeros(goals), np.zeros(goals), 0.1)
    assert np.allclose(np.bincount(task.text_goal, weights=uniform, minlength=goals), 1.0 / goals)


def test_fresh_worlds_start_the_goal_of_the_drawn_text():
    task = World(HEXAGONS, "train").task
    env = dagger.GoalStarts(task)
    for text in (0, len(task.texts) - 1):
        probabilities = jnp.zeros(len(task.texts)).at[text].set(1.0)
        for seed in range(3):
            obs, _ = env.reset_env(jax.random.key(seed), (task.params, probabilities))
            assert task.text_goal[int(task.observe(obs).text)] == task.text_goal[text]  # a procedure starts at its first step


def test_bad_settings_are_refused_before_anything_is_built(tmp_path):
    with pytest.raises(ValueError, match="DaggerConfig.updates must be >= 1"):
        dagger.DaggerConfig(updates=0).validate()
    with pytest.raises(SystemExit, match="--eval-splits 'tset' is not a split"):
        dagger.main(WORLD_FLAGS + SMALL + ["--eval-splits", "tset", "--out", str(tmp_path / "run")])
    with pytest.raises(SystemExit, match="--checkpoint-every must be >= 1, got 0"):
        dagger.main(WORLD_FLAGS + SMALL + ["--checkpoint-every", "0", "--out", str(tmp_path / "run")])
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_aggregated_dagger_scores_held_out_states_and_resumes_as_one_sitting(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    dagger.main(WORLD_FLAGS + SMALL + EVALUATION + ["--iterations", "4", "--checkpoint-every", "2", "--out", str(one)])
    dagger.main(WORLD_FLAGS + SMALL + EVALUATION + ["--iterations", "2", "--checkpoint-every", "2", "--out", str(two)])
    dagger.main(["--out", str(two), "--resume", "--iterations", "4", "--checkpoint-every", "2", "--quiet"])
    rows = [json.loads(line) for line in (one / "metrics.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rows] == [1, 2, 3, 4]
    assert rows[-1]["replay_states"] == 64 and rows[0]["passes"] == 1.0  # 2 x 2 segments of 4 a round
    assert all(0.0 <= r["heldout_agreement"] <= 1.0 and any(k.startswith("heldout_agreement/") for k in r) for r in rows)

    def measured(run):  # every figure but the round's wall time
        lines = (run / "metrics.jsonl").read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items() if k != "round_seconds"} for line in lines]

    assert measured(two) == measured(one) and all(r["round_seconds"] > 0 for r in rows)
    from baselines.worlds.checkpoints import saved_params

    for a, b in zip(jax.tree.leaves(saved_params(one)[0]), jax.tree.leaves(saved_params(two)[0])):
        np.testing.assert_array_equal(a, b)
    assert sorted(p.stem for p in (one / "replay").glob("*.npz")) == ["000002", "000003"]  # only what the replay holds
    from baselines.worlds.checkpoints import run_kind

    assert run_kind(one) == "dagger" and json.loads((one / "config.json").read_text())["kind"] == "dagger"
    evaluation = json.loads((two / "evaluation.json").read_text())
    assert set(evaluation["splits"]) == {"train"}
    assert (one / "learning_curve.png").is_file() and (one / "evaluation.png").is_file()


def test_a_run_folder_says_its_kind(tmp_path):
    from baselines.worlds.checkpoints import run_kind

    def folder(name: str, saved) -> str:
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text(json.dumps(saved))
        return str(tmp_path / name)

    assert run_kind(folder("dagger", {"kind": "dagger", "network": {}, "dagger": {}})) == "dagger"
    assert run_kind(folder("older-bc", {"bc": {}, "network": {}})) == "bc"  # written before kind was recorded
    assert run_kind(folder("older-ppo", {"ppo": {}, "command": {}})) == "ppo"
    with pytest.raises(ValueError, match="not the configuration of a run of this suite \\(kind 'mystery'\\)"):
        run_kind(folder("mystery", {"kind": "mystery"}))
    with pytest.raises(ValueError, match="not the configuration of a run"):
        run_kind(folder("list", [1, 2]))


def test_a_convolutional_student_reads_the_craftext_map():
    from baselines.bc.config import BCConfig
    from baselines.networks import MapConv, task_network
    from baselines.ppo import policy_inputs
    from baselines.worlds import make_task

    task = make_task("CrafText-Classic-Symbolic-v1")
    assert task.map_shape == (7, 9, 21)
    obs, _ = task.start(jax.random.key(0), 0, task.params)
    world = np.asarray(task.observe(obs).world)
    cells = world[: 7 * 9 * 21].reshape(7, 9, 21)
    assert (cells[..., :17].sum(-1) == 1).all()  # a one-hot block in every cell of the view, then the mobs
    network = task_network(BCConfig(world_encoder="conv").network_config(task.name), task)
    inputs = policy_inputs(task, jnp.zeros((len(task.texts), 8)), None, jax.tree.map(lambda x: x[None, None], obs), jnp.ones((1, 1), bool))
    params = network.init(jax.random.key(0), network.initial_hidden(1), *inputs)
    kernels = [leaf.shape for path, leaf in jax.tree_util.tree_leaves_with_path(params) if "MapConv" in jax.tree_util.keystr(path)]
    assert (9 * 21, 32) in kernels and (9 * 32, 32) in kernels  # 3 x 3 patches of 21, then 32 channels
    assert network.apply(params, network.initial_hidden(1), *inputs)[1].logits.shape == (1, 1, 17)
    grid = jax.random.normal(jax.random.key(1), (2, 7, 9, 21))
    conv = MapConv(32)
    conv_params = conv.init(jax.random.key(2), grid)
    kernel = conv_params["params"]["Dense_0"]["kernel"].reshape(3, 3, 21, 32)
    expected = jax.lax.conv_general_dilated(grid, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    np.testing.assert_allclose(conv.apply(conv_params, grid), expected + conv_params["params"]["Dense_0"]["bias"], atol=1e-4)
    with pytest.raises(ValueError, match="world_encoder conv reads a map .* Hexagons-Paint-v1 has none"):
        task_network(BCConfig(world_encoder="conv").network_config("Hexagons-Paint-v1"), World(HEXAGONS, "train").task)
