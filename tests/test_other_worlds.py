"""No tool mistakes a world for another: a world of another distribution gets its own defaults
(no other world's preset, its own episode limit), summaries compare every setting a world
declares and its goal counts, the benchmarks measure the world they are given, PPO-T+ refuses a
world its planners cannot read, evaluation groups by every label a world's goals carry, and plugin
ids live in their package's namespace."""

from __future__ import annotations

import dataclasses
import json
from importlib import metadata

import numpy as np
import pytest
from corridor_world import FAMILY

from baselines import worlds
from baselines.worlds import cli
from baselines.worlds.base import Setting


@pytest.fixture
def corridor():
    with worlds.registered(FAMILY):
        yield FAMILY


def _run(argv: list[str]):
    from baselines.__main__ import parser, settings

    return settings(cli.parse(parser(), argv), prepare=False)


def test_a_world_without_a_preset_gets_its_own_defaults(corridor):
    """No ``--preset``: the main job's preset on its own world only; another world trains with
    its own defaults and episode limit (the corridor's params: 12), no CrafText goal filter."""
    run = _run(["--env", "Corridor-v1"])
    assert run.preset is None and run.goals == "" and run.imitation_coef == 0.0 and run.total_timesteps is None
    assert run.max_episode_steps == 12 == worlds.episode_limit("Corridor-v1")
    main_job = _run([])
    assert main_job.preset == "quick" and main_job.goals and main_job.max_episode_steps == 150
    assert _run(["--env", "hexagons"]).max_episode_steps == 500 == worlds.world_spec({"env": "hexagons"})["max_episode_steps"]
    assert _run(["--env", "Corridor-v1", "--max-episode-steps", "7"]).max_episode_steps == 7


def test_a_world_spec_carries_every_setting_a_world_declares(corridor):
    """What PPO, BC and DAgger put in their evaluation's meta (``world_spec``), so that
    ``results summarize`` compares a world's own settings too."""
    own = dataclasses.replace(FAMILY, name="Wide", ids=("Wide-v1",), settings=(Setting("width", 6, "cells of the corridor"),))
    with worlds.registered(own):
        assert worlds.world_spec({"env": "Wide-v1", "width": 9})["width"] == 9


def test_summaries_refuse_runs_of_other_goal_counts_or_world_settings(tmp_path):
    from baselines.results import ResultsError, summarize

    def evaluation(folder: str, seed: int, goals: int, width: int):
        path = tmp_path / folder
        path.mkdir()
        agent = {"success": 0.5, "goals": goals}
        meta = {"env": "Wide-v1", "width": width, "seed": seed, "command": "x", "suite": "0.6.0"}
        splits = {"train": {"agent": agent, "shuffled": agent, "random": agent}}
        (path / "evaluation.json").write_text(json.dumps({"meta": meta, "splits": splits}))
        return path

    first = evaluation("a", 0, 17, 6)
    with pytest.raises(ResultsError, match="splits.train.agent.goals' is 2, the first run's is 17"):
        summarize([first, evaluation("b", 1, 2, 6)], "runs")
    with pytest.raises(ResultsError, match="'meta.width' is 9, the first run's is 6"):
        summarize([first, evaluation("c", 1, 17, 9)], "runs")
    assert summarize([first, evaluation("d", 1, 17, 6)], "runs")["seeds"] == [0, 1]


def test_the_quick_benchmark_trains_on_the_world_it_is_given(corridor):
    from benchmarks.__main__ import training_env

    assert training_env(True, ["Corridor-v1"]) == "Corridor-v1" == training_env(False, ["Corridor-v1"])
    assert training_env(True, ["Craftax-Classic-Symbolic (bare)"]) == training_env(True)  # a reference world is not trained on


def test_ppo_t_plus_refuses_goals_its_planners_cannot_read(corridor):
    from baselines.configs import NetworkConfig
    from baselines.ppo import tables

    task = worlds.make_task("Corridor-v1")
    task = dataclasses.replace(task, goal_objects=tuple(range(len(task.goals))))  # filled as Task's docstring says
    with pytest.raises(ValueError, match="no goals the built-in planners read"):
        tables(NetworkConfig(env_id="Corridor-v1", policy="ppo-t+"), task, cache_dir=None)


def test_evaluation_groups_by_every_label_a_world_declares():
    from baselines import evaluate

    class Task:
        metrics = ("success",)
        goals = ({"key": "a", "room": "kitchen"}, {"key": "b", "room": "hall", "category": "Fetch"}, {"key": "c", "room": "hall"})

    totals = {"success": np.ones((2, 3, 2))}
    groups = evaluate.summarize(Task(), totals)["groups"]
    assert set(groups) == {"room:kitchen", "room:hall", "Fetch"} and groups["room:hall"]["goals"] == 2


class _Point:
    """An entry point of the ``instructworlds.worlds`` group as ``importlib.metadata`` gives it."""

    def __init__(self, package: str, family):
        self.name, self.value, self.family = "corridor", "corridor_world:FAMILY", family
        self.dist = type("Dist", (), {"name": package})()

    def load(self):
        return self.family


def test_plugin_ids_are_namespaced_and_a_clash_names_both_packages(monkeypatch):
    from baselines.worlds import registry

    monkeypatch.setattr(registry, "_FAMILIES", list(registry._FAMILIES))
    monkeypatch.setattr(registry, "_PACKAGES", {})
    monkeypatch.setattr(registry, "_LEFT_OUT", {})
    registry.load_entry_point(_Point("corridor-world", FAMILY))
    assert worlds.resolve("corridor-world/Corridor-v1") == worlds.resolve("Corridor-v1") == "Corridor-v1"
    copy = dataclasses.replace(FAMILY, name="Copy")
    with pytest.warns(UserWarning, match="other-corridor left out: .*Corridor-v1 is already registered, by corridor-world"):
        registry.load_entry_point(_Point("other-corridor", copy))
    with pytest.raises(worlds.UnknownWorldError, match="other-corridor/Corridor-v1 is left out: .* by corridor-world"):
        worlds.resolve("other-corridor/Corridor-v1")
    assert isinstance(metadata.entry_points(group=registry.ENTRY_POINTS), metadata.EntryPoints)
