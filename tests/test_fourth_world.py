"""A world from elsewhere, a few lines of gymnax env and one ``WorldFamily``
(``baselines/worlds/example_world``, shipped with the suite), joins every tool of the suite: PPO training with the
three-policy evaluation, recorded and replayed episodes, videos, text/graph records and the
benchmarks; registered for one test, or installed as a distribution whose entry point declares it.
Nothing of the suite names it."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corridor_world import FAMILY, Corridor

from baselines import worlds
from baselines.worlds import episode
from baselines.worlds.base import EnvHooks, Evaluation, ExpertHooks, TextHooks, WorldFamily
from tests.conftest import CORRIDOR_PACKAGE


@pytest.fixture
def corridor():
    with worlds.registered(FAMILY):  # registered for this test only
        yield FAMILY


def test_the_env_declares_its_hooks():
    env = Corridor()
    assert isinstance(env, EnvHooks) and isinstance(env, TextHooks) and isinstance(env, ExpertHooks)


def test_an_entry_is_what_builds_a_world_and_tools_read_their_facets_with_their_defaults(corridor):
    """A ``WorldFamily`` holds what identifies and builds a world (at most 10 fields); each tool's
    per-world settings are a facet it reads, with its defaults where a family declares none."""
    assert len(dataclasses.fields(WorldFamily)) <= 10
    assert corridor.evaluation == Evaluation() and corridor.expert_gap([]) is None and worlds.presets_of(corridor) == {}
    craftext = worlds.family_of("CrafText-Classic-Symbolic-v1")
    assert craftext.evaluation.splits == ("train", "test_paraphrased", "test_new_objects") and "Building" in craftext.evaluation.group_order
    with pytest.raises(ValueError, match="one facet of each type, got Evaluation twice"):
        dataclasses.replace(corridor, facets=(Evaluation(), Evaluation(splits=("train",))))


def test_a_fourth_world_joins_every_tool(corridor, tmp_path, capsys):
    from baselines.__main__ import main as train
    from baselines.episodes.__main__ import main as episodes
    from baselines.textworld.__main__ import main as textworld
    from benchmarks.__main__ import main as benchmark

    with pytest.raises(ValueError, match="already registered"):
        worlds.register(corridor)
    train(
        [
            "--env",
            "Corridor-v1",
            "--total-timesteps",
            "512",
            "--num-envs",
            "8",
            "--num-steps",
            "8",
            "--layer-size",
            "16",
            "--max-episode-steps",
            "12",
            "--eval-episodes",
            "2",
            "--imitation-coef",
            "1",
            "--out",
            str(tmp_path / "run"),
            "--quiet",
        ]
    )
    evaluation = json.loads((tmp_path / "run" / "evaluation.json").read_text())
    assert list(evaluation["splits"]) == ["train", "test"] and set(evaluation["splits"]["test"]) == {"agent", "shuffled", "random"}
    assert evaluation["splits"]["test"]["agent"]["goals"] == 2

    episodes(["record", "--env", "Corridor-v1", "--split", "test", "--policy", "expert", "--episodes", "2", "--out", str(tmp_path / "eps")])
    episodes(
        [
            "record",
            "--env",
            "Corridor-v1",
            "--split",
            "test",
            "--policy",
            "agent",
            "--run",
            str(tmp_path / "run"),
            "--episodes",
            "2",
            "--out",
            str(tmp_path / "agent"),
        ]
    )
    recorded = sorted((tmp_path / "eps").glob("*.npz")) + sorted((tmp_path / "agent").glob("*.npz"))
    assert len(recorded) == 4
    episodes(["replay", *map(str, recorded)])
    assert capsys.readouterr().out.count("replay exactly") == 4
    episodes(["render", str(tmp_path / "eps"), "--out", str(tmp_path / "videos"), "--formats", "gif", "--quiet"])
    assert len(list((tmp_path / "videos").glob("*.gif"))) == 2

    textworld(
        [
            "generate",
            "--env",
            "Corridor-v1",
            "--policy",
            "mixed",
            "--episodes",
            "4",
            "--max-steps",
            "8",
            "--batch-size",
            "4",
            "--out",
            str(tmp_path / "records"),
            "--quiet",
        ]
    )
    rows = [json.loads(line) for path in sorted((tmp_path / "records").glob("*.jsonl")) for line in path.open()]
    assert rows and all(r["world"] == "Corridor" and r["graph"][0][:2] == ["you", "at"] for r in rows)

    measured = benchmark(["--env", "Corridor-v1", "--quick", "--training-envs", "0", "--out", str(tmp_path / "bench")])
    assert {r["world"] for r in measured} == {"Corridor-v1"} and all(r["steps_per_s_median"] > 0 for r in measured)


@pytest.mark.slow
def test_an_installed_world_joins_every_command_by_its_entry_point(tmp_path):
    """The corridor package built and installed (pip, no network) into a folder of its own: with
    that folder on the path, ``instructworlds train`` and the benchmarks offer Corridor-v1, and
    episodes record and evaluate its agent kind."""
    source = shutil.copytree(CORRIDOR_PACKAGE, tmp_path / "source")  # the build writes beside its sources
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "--target", str(site)]
    subprocess.run([*pip, str(source)], check=True, capture_output=True)
    assert list(site.glob("corridor_world-*.dist-info/entry_points.txt"))
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = [sys.executable, "-m", "baselines", "--env", "Corridor-v1", "--help"]
    without = subprocess.run(probe, env=clean, capture_output=True, text=True)
    assert without.returncode != 0 and "unknown env id 'Corridor-v1'" in without.stderr
    env = {**clean, "PYTHONPATH": str(site)}
    script = Path(sys.executable).with_name("instructworlds")
    small = ["--total-timesteps", "512", "--num-envs", "8", "--num-steps", "8", "--layer-size", "16", "--eval-episodes", "1", "--quiet"]
    subprocess.run([str(script), "train", "--env", "Corridor-v1", *small, "--out", str(tmp_path / "run")], env=env, check=True)
    evaluation = json.loads((tmp_path / "run" / "evaluation.json").read_text())
    assert evaluation["meta"]["env"] == "Corridor-v1" and list(evaluation["splits"]) == ["train", "test"]
    bench = [sys.executable, "-m", "benchmarks", "--env", "Corridor-v1", "--quick", "--training-envs", "0"]
    subprocess.run([*bench, "--out", str(tmp_path / "bench")], env=env, check=True, capture_output=True)
    rows = json.loads((tmp_path / "bench" / "env_sps.json").read_text())["results"]
    assert {r["world"] for r in rows} == {"Corridor-v1"}
    walker = tmp_path / "walker"  # a run of the agent kind the package declares (instructworlds.agents)
    walker.mkdir()
    (walker / "config.json").write_text(json.dumps({"kind": "corridor-walker", "world": {"env": "Corridor-v1"}}))
    record = [sys.executable, "-m", "baselines.episodes", "record", "--env", "Corridor-v1", "--split", "test", "--policy", "agent"]
    subprocess.run([*record, "--run", str(walker), "--episodes", "1", "--out", str(tmp_path / "walked")], env=env, check=True)
    (recorded,) = (tmp_path / "walked").glob("*.npz")
    assert episode.load(recorded).meta["source"] == "agent:walker:walker"
    evaluate = [str(script), "evaluate", str(walker), "--splits", "test", "--episodes", "2", "--quiet"]
    subprocess.run([*evaluate, "--out", str(tmp_path / "walker-evaluation")], env=env, check=True, capture_output=True)
    walked = json.loads((tmp_path / "walker-evaluation" / "evaluation.json").read_text())["splits"]["test"]
    assert list(walked) == ["agent", "shuffled", "random"] and walked["agent"]["episodes"] == 4


def test_baselines_make_builds_any_registered_world(corridor):
    import baselines

    env, params = baselines.make("Corridor-v1")
    assert isinstance(env, Corridor) and env.num_actions == 3
    assert baselines.make_task("Corridor-v1").texts[0] == "walk to cell 0 and stop"
    hexagons_env, _ = baselines.make("hexagons")  # an alias
    assert hexagons_env.name.startswith("Hexagons")
    with pytest.raises(worlds.UnknownWorldError, match="Did you mean Corridor-v1"):
        baselines.make("Corridor-v2")
