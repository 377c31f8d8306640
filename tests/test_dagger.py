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
    again = WORLD_FLAGS + SMALL + EVALUATION + ["--iterations", "2", "--checkpoint-every", "2", "--out", str(one), "--overwrite"]
    dagger.main(again)  # the replay is written into the folder that takes the old run's place
    assert sorted(p.name for p in (one / "replay").iterdir()) == ["000000.npz", "000001.npz"]
    dagger.main(["--out", str(one), "--resume", "--iterations", "4", "--checkpoint-every", "2", "--quiet"])
    assert measured(one) == measured(two)
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
    from baselines.configs import NetworkConfig
    from baselines.networks import MapConv, task_network
    from baselines.ppo import policy_inputs
    from baselines.worlds import make_task

    task = make_task("CrafText-Classic-Symbolic-v1")
    assert task.map_shape == (7, 9, 21)
    obs, _ = task.start(jax.random.key(0), 0, task.params)
    world = np.asarray(task.observe(obs).world)
    cells = world[: 7 * 9 * 21].reshape(7, 9, 21)
    assert (cells[..., :17].sum(-1) == 1).all()  # a one-hot block in every cell of the view, then the mobs
    network = task_network(NetworkConfig(env_id=task.name, world_encoder="conv", layer_size=256), task)
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
        task_network(NetworkConfig(env_id="Hexagons-Paint-v1", world_encoder="conv"), World(HEXAGONS, "train").task)


def classic_view(blocks: np.ndarray, facing: int) -> np.ndarray:
    """A Craftax Classic symbolic observation (1345,) of a (7, 9) block-id view facing ``facing``
    (0 left, 1 right, 2 up, 3 down): one-hot blocks, no mobs, an empty inventory."""
    world = np.zeros(7 * 9 * 21 + 22, np.float32)
    view = world[: 7 * 9 * 21].reshape(7, 9, 21)
    view[np.arange(7)[:, None], np.arange(9)[None, :], blocks] = 1.0
    world[7 * 9 * 21 + 16 + facing] = 1.0
    return world


def test_the_placed_channel_marks_the_blocks_the_agent_placed_from_its_observations():
    from craftax.craftax_classic.constants import BlockType as B

    from baselines.worlds import make_task

    placed = make_task("CrafText-Classic-Symbolic-v1").placed_cells
    assert placed.size == 2 * 7 * 9 and placed.map_shape == (7, 9, 22)
    left, right, down = 0, 1, 3
    grass = np.full((7, 9), B.GRASS.value)
    start = grass.copy()
    start[0, 0] = B.STONE.value  # natural stone
    stone_placed = start.copy()
    stone_placed[3, 5] = B.STONE.value  # the facing cell on the right of the agent at (3, 4)
    walked_down = np.full((7, 9), B.GRASS.value)  # the view one row further down: row r shows the old row r + 1
    walked_down[2, 5] = B.STONE.value
    mined = walked_down.copy()
    mined[2, 5] = B.PATH.value
    sapling = mined.copy()
    sapling[3, 3] = B.PLANT.value
    ripe = sapling.copy()
    ripe[3, 3] = B.RIPE_PLANT.value
    frames = [
        (start, right, []),
        (stone_placed, right, [(3, 5)]),
        (walked_down, down, [(2, 5)]),  # the mark moves with the view; the natural stone left it
        (walked_down, left, [(2, 5)]),  # turned left, blocked: the view stays
        (mined, left, []),  # the placed stone is gone
        (sapling, left, [(3, 3)]),
        (ripe, left, [(3, 3)]),  # a ripening sapling stays the agent's plant
    ]
    memory = jnp.zeros(placed.size)
    for step, (blocks, facing, expected) in enumerate(frames):
        memory, marked = jax.jit(placed.mark)(memory, jnp.asarray(classic_view(blocks, facing)))
        marked = np.asarray(marked)
        assert marked.shape == (7 * 9 * 22 + 22,)
        grid = marked[: 7 * 9 * 22].reshape(7, 9, 22)
        np.testing.assert_array_equal(grid[..., :21], classic_view(blocks, facing)[: 7 * 9 * 21].reshape(7, 9, 21))
        assert sorted(zip(*np.nonzero(grid[..., -1]))) == expected, f"frame {step}"
        np.testing.assert_array_equal(marked[7 * 9 * 22 :], classic_view(blocks, facing)[7 * 9 * 21 :])
    _, fresh = placed.mark(jnp.zeros(placed.size), jnp.asarray(classic_view(stone_placed, right)))
    assert not np.asarray(fresh)[: 7 * 9 * 22].reshape(7, 9, 22)[..., -1].any()  # no earlier view: nothing is known to be placed


@pytest.mark.slow
def test_a_student_with_the_placed_channel_carries_its_marks_in_the_recurrent_state():
    from baselines.configs import NetworkConfig
    from baselines.networks import task_network
    from baselines.ppo import policy_inputs
    from baselines.worlds import make_task

    task = make_task("CrafText-Classic-Symbolic-v1")
    for encoder, kernel in (("dense", (7 * 9 * 22 + 22, 256)), ("conv", (9 * 22, 32))):
        network = task_network(NetworkConfig(env_id=task.name, world_encoder=encoder, placed_channel=True, layer_size=16), task)
        assert network.initial_hidden(2).shape == (2, 16 + 2 * 7 * 9)
        obs, _ = jax.vmap(task.start, in_axes=(0, None, None))(jax.random.split(jax.random.key(0), 2), 0, task.params)
        frames = jax.tree.map(lambda x: jnp.stack([x, x[::-1], x]), obs)  # (3, 2, ...): the worlds' views, swapped at t = 1
        reset = jnp.asarray([[True, True], [False, False], [False, True]])
        inputs = policy_inputs(task, jnp.zeros((len(task.texts), 8)), None, frames, reset)
        params = network.init(jax.random.key(0), network.initial_hidden(2), *inputs)
        assert kernel in [leaf.shape for leaf in jax.tree.leaves(params)]
        hidden, pi, _ = network.apply(params, network.initial_hidden(2), *inputs)
        for b in range(2):
            memory = jnp.zeros(task.placed_cells.size)
            for t in range(3):
                memory = jnp.where(reset[t, b], 0.0, memory)
                memory, _ = task.placed_cells.mark(memory, inputs[0][t, b])
            np.testing.assert_array_equal(hidden[b, 16:], memory)
        assert pi.logits.shape == (3, 2, 17)
    with pytest.raises(ValueError, match="placed_channel marks cells .* Hexagons-Paint-v1 has none"):
        task_network(NetworkConfig(env_id="Hexagons-Paint-v1", placed_channel=True), World(HEXAGONS, "train").task)


@pytest.mark.slow
def test_aggregated_dagger_trains_and_evaluates_a_student_with_the_placed_channel(tmp_path):
    run = tmp_path / "placed"
    world = ["--env", "CrafText-Classic-Symbolic-v1", "--level", "medium", "--expert", "view", "--max-episode-steps", "16"]
    evaluation = ["--eval-episodes", "1", "--eval-splits", "test_new_objects"]
    dagger.main(world + SMALL + evaluation + ["--placed-channel", "--layer-size", "32", "--iterations", "2", "--out", str(run)])
    assert json.loads((run / "config.json").read_text())["network"]["placed_channel"] is True
    with np.load(run / "replay" / "000001.npz") as saved_round:
        assert saved_round["hidden"].shape == (4, 32 + 2 * 7 * 9)  # the GRU's state, then the marks memory
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rows] == [1, 2] and "heldout_agreement/Building" in rows[0]
    assert set(json.loads((run / "evaluation.json").read_text())["splits"]) == {"test_new_objects"}
    with pytest.raises(SystemExit, match="its network differs: --placed-channel True \\(the run's: False\\)"):
        committed = ["--init-from", "docs/models/craftext-dagger-medium-s0"]
        dagger.main(world + SMALL + committed + ["--placed-channel", "--out", str(tmp_path / "x")])


@pytest.mark.slow
def test_the_placed_channel_agrees_with_the_checkers_record_of_placed_blocks():
    """The expert plays Building goals; every cell the channel marks holds a block the world
    records as placed by the agent, and most such cells in view are marked (those that left the
    view and came back are not)."""
    from baselines.worlds import make_task

    task = make_task("CrafText-Classic-Symbolic-v1")
    placed = task.placed_cells
    texts = jnp.asarray([t for t, g in enumerate(task.text_goal) if task.goals[g]["category"] == "Building"][:32:2])
    worlds = len(texts)

    def in_view(record, position):  # the checker's (64, 64) record of placed blocks around the agent, as its 7 x 9 view
        return jax.lax.dynamic_slice(jnp.pad(record, 9), position - jnp.asarray([3, 4]) + 9, (7, 9))

    def play(key):
        obs, state = jax.vmap(task.start, in_axes=(0, 0, None))(jax.random.split(key, worlds), texts, task.params)

        def step(carry, key):
            obs, state, memory = carry
            memory, marked = jax.vmap(placed.mark)(memory, jax.vmap(task.observe)(obs).world)
            marks = marked[:, : 7 * 9 * 22].reshape(worlds, 7, 9, 22)[..., -1] > 0.5
            truth = jax.vmap(in_view)(state.placed, state.world.player_position)
            action = jax.vmap(task.expert, in_axes=(0, None))(state, task.params)
            keys = jax.random.split(key, worlds)
            obs, next_state, *_ = jax.vmap(task.env.step_env, in_axes=(0, 0, 0, None))(keys, state, action, task.params)
            return (obs, next_state, memory), (marks, truth, state.done)

        return jax.lax.scan(step, (obs, state, jnp.zeros((worlds, placed.size))), jax.random.split(key, 200))[1]

    marks, truth, done = map(np.asarray, jax.jit(play)(jax.random.key(1)))
    live = ~done[:, :, None, None]
    assert (truth & live).sum() > 100  # the expert builds
    assert not (marks & ~truth & live).any()
    assert (marks & truth & live).sum() > 0.8 * (truth & live).sum()
