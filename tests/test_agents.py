"""Agents behind one protocol (``baselines.worlds.agents``): a toy agent of a few lines, registered
by the kind of its run folder, records episodes that replay exactly and enter the arena."""

import json
from pathlib import Path

import numpy as np
import pytest

from baselines.episodes.__main__ import main as episodes
from baselines.worlds import World
from baselines.worlds.agents import Agent, agent_kinds, load_agent, register_agent, registered_agent
from baselines.worlds.episode import load

WORLD = ["--env", "Hexagons-Paint-v1", "--data", "synthetic", "--data-size", "4", "--max-episode-steps", "12"]


class FirstFeasible:
    """The toy agent: always the first feasible action."""

    def __init__(self, run, world, greedy=False):
        self.name, self.world = f"first-feasible:{run.name}", world

    def reset(self, seed):
        pass

    def act(self, obs, t):
        return int(np.flatnonzero(self.world.mask(obs))[0])


@pytest.fixture
def toy_run(tmp_path):
    run = tmp_path / "toy"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"kind": "first-feasible"}))
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


def test_runs_without_an_agent_are_refused_by_name(toy_run, tmp_path):
    world = World({"env": "Hexagons-Paint-v1", "data": "synthetic", "data_size": 4, "max_episode_steps": 12}, "train")
    builder = tmp_path / "builder"
    builder.mkdir()
    (builder / "config.json").write_text(json.dumps({"kind": "builder"}))
    with pytest.raises(ValueError, match="a builder run holds no agent that plays a world step by step"):
        load_agent(builder, world)
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
