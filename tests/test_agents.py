"""Agents behind one protocol (``baselines.worlds.agents``): a toy agent of a few lines, registered
by the kind of its run folder, records episodes that replay exactly, is evaluated beside its
controls and enters the arena."""

import json
from pathlib import Path

import jax
import numpy as np
import pytest

from baselines import evaluate
from baselines.episodes.__main__ import main as episodes
from baselines.worlds import World
from baselines.worlds.agents import Agent, agent_kinds, load_agent, register_agent, registered_agent
from baselines.worlds.episode import load

SPEC = {"env": "Hexagons-Paint-v1", "data": "synthetic", "data_size": 4, "max_episode_steps": 12}
WORLD = ["--env", "Hexagons-Paint-v1", "--data", "synthetic", "--data-size", "4", "--max-episode-steps", "12"]


class FirstFeasible:
    """The toy agent: always the first feasible action."""

    def __init__(self, run, world, greedy=False):
        self.name, self.world = f"first-feasible:{run.name}", world

    def reset(self, seed):
        pass

    def act(self, obs, t):
        return int(np.flatnonzero(self.world.mask(obs))[0])


class Reader(FirstFeasible):
    """The toy agent, noting the text id of every observation it is shown."""

    def __init__(self, run, world, greedy=False):
        super().__init__(run, world, greedy)
        self.shown = []

    def act(self, obs, t):
        self.shown.append(int(self.world.task.observe(obs).text))
        return super().act(obs, t)


@pytest.fixture
def toy_run(tmp_path):
    run = tmp_path / "toy"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"kind": "first-feasible", "world": {**SPEC, "split": "train"}}))
    with registered_agent("first-feasible", FirstFeasible):
        yield run
    assert "first-feasible" not in agent_kinds()


def test_the_suite_kinds_are_agents():
    assert agent_kinds()[:4] == ("ppo", "bc", "dagger", "painter")
    assert isinstance(FirstFeasible(Path("run"), None), Agent) and not isinstance(object(), Agent)
    with pytest.raises(ValueError, match="agent kind 'ppo' is already registered"):
        register_agent("ppo", FirstFeasible)


def test_a_toy_agent_records_episodes_that_replay(toy_run, tmp_path, capsys):
    out = tmp_path / "episodes"
    episodes(["record", *WORLD, "--split", "train", "--policy", "agent", "--run", str(toy_run), "--episodes", "2", "--out", str(out)])
    files = sorted(out.glob("*.npz"))
    assert len(files) == 2 and all(load(f).meta["source"] == "agent:first-feasible:toy" for f in files)
    episodes(["replay", *map(str, files)])
    assert capsys.readouterr().out.count("replay exactly") == 2


def test_a_toy_agent_is_evaluated_beside_its_controls(toy_run, tmp_path, capsys):
    out = tmp_path / "evaluation"
    evaluate.main([str(toy_run), "--splits", "train,test", "--episodes", "2", "--with-expert", "--out", str(out), "--quiet"])
    saved = json.loads((out / "evaluation.json").read_text())
    assert saved["meta"]["played"] == "step by step" and saved["meta"]["policy"] == "first-feasible:toy"
    for split in ("train", "test"):
        by_policy = saved["splits"][split]
        assert list(by_policy) == ["agent", "shuffled", "random", "expert"]
        assert all(s["episodes"] == 2 * s["goals"] and len(s["success_ci"]) == 2 for s in by_policy.values())
        assert by_policy["expert"]["success"] > by_policy["random"]["success"]
        assert "gap_ci" in by_policy["agent"] and "texts_in_train" in by_policy["agent"]
    assert (out / "evaluation.md").is_file() and (out / "evaluation.png").is_file()
    assert "agent (first-feasible:toy, sample, step by step)" in capsys.readouterr().out
    (toy_run / "config.json").write_text(json.dumps({"kind": "first-feasible"}))
    with pytest.raises(SystemExit, match="config.json: names no world"):
        evaluate.main([str(toy_run), "--out", str(tmp_path / "refused")])


def test_the_blind_control_shows_another_goals_instruction_in_the_same_worlds(toy_run):
    world = World(SPEC, "train")
    agent = Reader(toy_run, world)
    units, _ = evaluate.evaluation_units(world.task)
    totals = evaluate.play_on_host(world, agent, units, 2, 3, ("agent", "shuffled"), quiet=True)
    goal = world.task.text_goal
    own, other = np.split(np.asarray(agent.shown), 2)  # 3 steps of 2 episodes of every goal, per policy
    starts = np.repeat([units[u][j % len(units[u])] for u in range(len(units)) for j in range(2)], 3)
    assert (goal[own] == goal[starts]).all() and (goal[other] != goal[starts]).all()
    assert all(t.shape == (2, 2, len(units), 2) for t in totals.values())
    seeds = {evaluate.host_seed("train", u, j) for u in range(300) for j in range(300)}
    assert len(seeds) == 300 * 300  # every unit and episode a world of its own
    opening = int(np.flatnonzero(world.opening_texts & (goal != goal[0]))[0])
    obs, _ = world.start(0, 1)
    shown, started = world.relabel(obs, opening), world.start(opening, 1)[0]
    assert world.instruction(shown) == world.task.texts[opening] and (shown.board == obs.board).all()
    assert (shown.instruction == started.instruction).all() and shown.procedure == started.procedure


THREE_WORLDS = [SPEC, {"env": "BlocksWorld-BAP-v1", "data": "shapes", "data_size": 4}, {"env": "CrafText-Classic-Symbolic-v1"}]


@pytest.mark.parametrize("spec", THREE_WORLDS, ids=lambda s: s["env"])
def test_every_world_shows_an_observation_another_instruction(spec):
    world = World(spec, "train")
    goal = world.task.text_goal
    other = int(np.flatnonzero((goal != goal[0]) & world.opening_texts)[0])
    obs, started = world.start(0, 3)[0], world.start(other, 3)[0]
    shown = world.relabel(obs, other)
    observed, own = world.task.observe(shown), world.task.observe(obs)
    assert int(observed.text) == other and (observed.world == own.world).all() and (observed.mask == own.mask).all()
    assert world.instruction(shown) == world.instruction(started) == world.task.texts[other]
    assert jax.tree.structure(shown) == jax.tree.structure(obs)


def test_runs_without_an_agent_are_refused_by_name(toy_run, tmp_path):
    world = World(SPEC, "train")
    builder = tmp_path / "builder"
    builder.mkdir()
    (builder / "config.json").write_text(json.dumps({"kind": "builder"}))
    with pytest.raises(ValueError, match="a builder run holds no agent that plays a world step by step"):
        load_agent(builder, world)
    with pytest.raises(SystemExit, match="a builder run holds no agent that plays a world step by step"):
        evaluate.main([str(builder), "--out", str(tmp_path / "refused")])  # before anything is built
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "config.json").write_text(json.dumps({"kind": "first-feasable"}))
    with pytest.raises(ValueError, match="kind 'first-feasable' is neither .* agent kind \\(did you mean first-feasible\\?\\)"):
        load_agent(tmp_path / "odd", world)
    with registered_agent("broken", lambda run, world, greedy: object()):
        (tmp_path / "odd" / "config.json").write_text(json.dumps({"kind": "broken"}))
        with pytest.raises(TypeError, match="kind 'broken' gave a object, which lacks name, reset or act"):
            load_agent(tmp_path / "odd", world)
    with registered_agent("missing", "no_such_module:load"):
        (tmp_path / "odd" / "config.json").write_text(json.dumps({"kind": "missing"}))
        with pytest.raises(ValueError, match="loader of agent kind 'missing', 'no_such_module:load', cannot be imported"):
            load_agent(tmp_path / "odd", world)
    assert load_agent(toy_run, world).name == "first-feasible:toy"


@pytest.mark.slow
def test_a_toy_agents_episodes_enter_the_arena(toy_run, tmp_path, capsys):
    from baselines.arena.__main__ import main as arena
    from baselines.arena.store import Store

    db = str(tmp_path / "arena.sqlite")
    for policy, extra in (("agent", ["--run", str(toy_run)]), ("random", [])):
        out = tmp_path / policy
        episodes(["record", *WORLD, "--split", "train", "--policy", policy, *extra, "--episodes", "2", "--out", str(out), "--quiet"])
        arena(["add-agent", policy, "--db", db])
        arena(["add-episodes", str(out), "--agent", policy, "--formats", "webm", "--db", db, "--quiet"])
    counts = Store(tmp_path / "arena.sqlite").counts()
    assert counts["episodes"] == 4 and counts["tasks"] == 2
