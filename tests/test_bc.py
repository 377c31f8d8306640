"""Behavioural cloning from episode files, the scripted CrafText expert, and PPO from a cloned policy."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest

from baselines import bc
from baselines.ppo import TrainedRun, trained_run
from baselines.worlds import World
from baselines.worlds.episode import EpisodeError, load
from baselines.worlds.replay import ReplayMismatch, record, replay

HEXAGONS = {"env": "Hexagons-Paint-v1", "data": "tiles", "max_episode_steps": 8, "data_size": 8}


@pytest.fixture(scope="module")
def hexagon_demos(tmp_path_factory):
    """A folder of 16 expert episodes of the Hexagons tiles world (the split's goals in turn)."""
    world = World(HEXAGONS, "train")
    folder = tmp_path_factory.mktemp("demos")
    for i in range(16):
        record(world, "expert", world.schedule(i), i, folder / f"demo-{i:02d}")
    return folder


def test_schedule_starts_every_goal_at_its_first_instruction():
    world = World(HEXAGONS, "train")
    texts = [world.schedule(i) for i in range(len(world.task.goals))]
    assert [int(world.task.text_goal[t]) for t in texts] == list(range(len(world.task.goals)))
    assert all(world.instruction(world.start(t, 0)[0]) == world.task.texts[t] for t in texts)


def test_demos_replay_in_one_batch_and_errors_name_the_file(hexagon_demos, tmp_path):
    paths, episodes = bc.load_demos(hexagon_demos)
    task = World(HEXAGONS, "train").task
    buckets = bc.length_buckets([len(e) for e in episodes])
    demos = bc.replay_demos(task, paths, episodes)
    assert [d.action.shape for d in demos] == [(length, len(ids)) for length, ids in buckets.items()]
    for d, ids in zip(demos, buckets.values()):
        assert np.asarray(d.valid).sum(0).tolist() == [len(episodes[i]) for i in ids]
        assert (np.asarray(d.action)[0] == [episodes[i].actions[0] for i in ids]).all()
        assert np.asarray(d.mask)[0, np.arange(len(ids)), np.asarray(d.action)[0]].all()
        assert (np.asarray(d.text)[0] == [episodes[i].meta["text"] for i in ids]).all()
    assert bc.length_buckets([1, 8, 9, 16, 17, 150]) == {8: [0, 1], 16: [2, 3], 32: [4], 256: [5]}

    bad = load(paths[3])
    bad.rewards[0] += 1.0
    with pytest.raises(ReplayMismatch, match=str(paths[3]).replace("\\", "\\\\") + ": step 0"):
        bc.replay_demos(task, paths[3:4], [bad])
    other = load(paths[0])
    other.meta["world"] = {**other.meta["world"], "split": "test"}
    other.save(tmp_path / "other.npz")
    load(paths[1]).save(tmp_path / "first.npz")
    with pytest.raises(EpisodeError, match="other.npz: field world"):
        bc.load_demos(tmp_path)
    with pytest.raises(EpisodeError, match="no episode files"):
        bc.load_demos(tmp_path / "missing")


def test_cloning_learns_the_demonstrations_and_initialises_ppo(hexagon_demos, tmp_path):
    out = tmp_path / "run"
    bc.main(
        [
            "--demos",
            str(hexagon_demos),
            "--out",
            str(out),
            "--epochs",
            "200",
            "--layer-size",
            "32",
            "--batch-episodes",
            "4",
            "--eval-episodes",
            "1",
            "--lr",
            "3e-3",
        ]
    )
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 200 and rows[-1]["loss"] < 0.5 * rows[0]["loss"] and rows[-1]["accuracy"] > 0.5
    assert "val_loss" in rows[0]  # 10% of 16 episodes held out: 2
    evaluation = json.loads((out / "evaluation.json").read_text())
    assert set(evaluation["splits"]) == {"train", "test"}
    assert set(evaluation["splits"]["train"]) == {"agent", "shuffled", "random"}
    assert evaluation["splits"]["train"]["agent"]["success"] > evaluation["splits"]["train"]["random"]["success"]
    assert (out / "learning_curve.png").stat().st_size > 0 and (out / "evaluation.png").stat().st_size > 0

    from baselines.configs import NetworkConfig
    from baselines.ppo import PPO, PPOConfig, load_params, tables

    task = World(HEXAGONS, "train").task
    network = NetworkConfig(env_id="Hexagons-Paint-v1", layer_size=32)
    config = PPOConfig(network=network, num_envs=4, num_steps=2, num_minibatches=1)
    ppo = PPO(config, task, *tables(network, task))
    fresh = ppo.init(jax.random.key(0)).params
    cloned = load_params(out, network, fresh)
    assert jax.tree.structure(cloned) == jax.tree.structure(fresh)
    assert not all(np.array_equal(a, b) for a, b in zip(jax.tree.leaves(cloned), jax.tree.leaves(fresh)))
    with pytest.raises(ValueError, match="layer_size 32 \\(this run: 64\\)"):
        load_params(out, NetworkConfig(env_id="Hexagons-Paint-v1", layer_size=64), fresh)
    with pytest.raises(ValueError, match="not a behavioural-cloning run folder"):
        load_params(tmp_path, network, fresh)
    saved = json.loads((out / "config.json").read_text())
    assert trained_run(out) == TrainedRun("bc", network, 0) and set(saved["run"]) == {"demos", "episodes", "held_out"}
    (tmp_path / "seed7").mkdir()
    network_fields = {k: v for k, v in saved["network"].items() if k != "placed_channel"}
    released = {"kind": "bc", "bc": saved["bc"] | network_fields | {"seed": 7}, "network": network_fields, "world": saved["world"]}
    (tmp_path / "seed7" / "config.json").write_text(json.dumps(released | saved["run"]))  # as 0.5.0 saved a BC run
    assert trained_run(tmp_path / "seed7") == TrainedRun("bc", network, 7)  # what evaluate evaluates and reports it with

    from baselines.episodes.agent import Agent, PolicyAgent

    world = World(HEXAGONS, "train")
    agent = PolicyAgent(out, world, greedy=True)
    recorded = [load(record(world, agent, world.schedule(i), i, tmp_path / "agent" / f"e{i}")) for i in range(4)]
    assert all(e.meta["source"] == "agent:ppo-t:run" for e in recorded)
    assert sum(e.meta["success"] for e in recorded) >= 3  # the cloned policy, greedy, on its training procedures
    assert all(replay(e).success == e.meta["success"] for e in recorded)
    with pytest.raises(ValueError, match="not a run folder"):
        PolicyAgent(tmp_path / "agent", world)
    with pytest.warns(DeprecationWarning, match="Agent is deprecated and goes in 0.7.0; use baselines.episodes.agent.PolicyAgent"):
        assert isinstance(Agent(out, world), PolicyAgent)  # the old name, for one release

    from baselines.evaluate import main as evaluate

    evaluate([str(out), "--step-by-step", "--splits", "train", "--episodes", "2", "--greedy", "--out", str(tmp_path / "host"), "--quiet"])
    host = json.loads((tmp_path / "host" / "evaluation.json").read_text())  # the same agent, one step at a time on the host
    by_policy = host["splits"]["train"]
    assert host["meta"]["played"] == "step by step" and by_policy["agent"]["success"] >= 0.5
    assert by_policy["agent"]["success"] > max(by_policy["shuffled"]["success"], by_policy["random"]["success"])


def test_bad_settings_fail_before_anything_is_compiled(hexagon_demos, tmp_path, capsys):
    with pytest.raises(ValueError, match="BCConfig.validation"):
        bc.BCConfig(validation=1.0).validate()
    with pytest.raises(SystemExit):
        bc.main(["--demos", str(hexagon_demos), "--policy", "ppo-t+"])
    assert "invalid choice: 'ppo-t+'" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no episode files"):
        bc.main(["--demos", str(tmp_path), "--out", str(tmp_path / "run")])
    with pytest.raises(SystemExit, match="--eval-splits 'tset' is not a split of Hexagons-Paint-v1's data .*did you mean 'test'"):
        bc.main(["--demos", str(hexagon_demos), "--eval-splits", "train,tset", "--out", str(tmp_path / "run")])
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_craftext_expert_plays_its_goals_and_only_those(tmp_path):
    from baselines.worlds import spec_task
    from craftext import Goal
    from craftext.expert import covers

    assert covers(Goal.achievements(["collect_wood", "place_table"], forbidden="eat_cow"))
    assert covers(Goal.achievements(["collect_stone"])) and covers(Goal.line("stone", 3)) and covers(Goal.explore("iron"))
    assert not covers(Goal.achievements(["collect_wood", "eat_plant"])) and not covers(Goal.achievements(["defeat_zombie"]))
    assert spec_task({"env": "CrafText-Classic-Symbolic-v1", "level": "easy"}, "train").expert is None  # goals it cannot play

    world = World(
        {
            "env": "CrafText-Classic-Symbolic-v1",
            "release": "full",
            "level": "easy",
            "max_episode_steps": 60,
            "goals": "ACHIEVEMENTS(forbidden=None,ordered=False,required=place_table),required=collect_drink)",
        },
        "train",
    )
    assert world.task.expert is not None
    for i in range(len(world.task.goals)):
        path = record(world, "expert", world.schedule(i), 7 + i, tmp_path / f"expert-{i}")
        episode = load(path)
        assert episode.meta["success"], episode.meta["goal"]
        assert replay(episode).success
