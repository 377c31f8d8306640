"""A world defined here, in a few lines of gymnax env and one registry entry, joins every tool of
the suite: PPO training with the three-policy evaluation, recorded and replayed episodes, videos,
text/graph records and the benchmarks. Nothing outside this file names it."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct
from gymnax.environments import environment, spaces

from baselines import worlds
from baselines.worlds import WorldFamily, registry
from baselines.worlds.base import EnvHooks, ExpertHooks, TextHooks
from baselines.worlds.task import Observed, Task

CELLS = 6
LEFT, RIGHT, STOP = 0, 1, 2


@struct.dataclass
class State(environment.EnvState):
    position: jax.Array
    target: jax.Array
    done: jax.Array


@struct.dataclass
class Params(environment.EnvParams):
    targets: jax.Array = struct.field(default_factory=lambda: jnp.arange(CELLS))
    max_steps_in_episode: int = 12


@struct.dataclass
class Obs:
    world: jax.Array
    text: jax.Array


class Corridor(environment.Environment):
    """Walk a corridor of ``CELLS`` cells to the one the instruction names, then STOP there."""

    name = "Corridor"
    num_actions = 3
    action_names = ("left", "right", "stop")
    manual = (
        "You walk a corridor of cells 0 to 5; stop on the cell your instruction names.",
        ("left", "step left"),
        ("right", "step right"),
        ("stop", "end the episode here"),
    )
    kg_schema = {"world": "Corridor", "version": 1, "entities": ("you", *(f"cell {i}" for i in range(CELLS))), "relations": ("at",)}

    def reset_env(self, key, params):
        text = jax.random.randint(key, (), 0, params.targets.shape[0])
        return self.start(text, params)

    def start(self, text, params):
        state = State(time=0, position=jnp.int32(0), target=jnp.int32(text), done=jnp.bool_(False))
        return self.get_obs(state, params), state

    def step_env(self, key, state, action, params):
        position = jnp.clip(state.position + (action == RIGHT) - (action == LEFT), 0, CELLS - 1)
        success = (action == STOP) & (state.position == params.targets[state.target])
        new = state.replace(
            time=state.time + 1, position=jnp.where(state.done, state.position, position), done=state.done | (action == STOP)
        )
        return self.get_obs(new, params), new, success.astype(jnp.float32), new.done, {"success": success & ~state.done}

    def get_obs(self, state, params=None, key=None):
        return Obs(jax.nn.one_hot(state.position, CELLS), state.target)

    def action_mask(self, state, params):
        return jnp.array([state.position > 0, state.position < CELLS - 1, True])

    def expert_action(self, state, params):
        goal = params.targets[state.target]
        return jnp.where(state.position < goal, RIGHT, jnp.where(state.position > goal, LEFT, STOP)).astype(jnp.int32)

    def render(self, state, params):
        picture = np.full((16, 16 * CELLS, 3), 240, np.uint8)
        picture[:, 16 * int(params.targets[state.target]) :][:, :16] = (120, 200, 120)
        picture[4:12, 16 * int(state.position) + 4 :][:, :8] = (200, 60, 60)
        return picture

    def kg(self, state, params, scope="observed"):
        return {
            "subject": jnp.zeros(1, jnp.int32),
            "relation": jnp.zeros(1, jnp.int32),
            "object": (1 + state.position)[None],
            "valid": jnp.ones(1, bool),
            "overflow": jnp.bool_(False),
        }

    def verbalise(self, graph, style="summary"):
        return f"You are at cell {int(graph['object'][0]) - 1}."

    def valid_actions(self, key, state, params):
        return self.action_mask(state, params)

    def action_space(self, params=None):
        return spaces.Discrete(self.num_actions)


SPLIT_TARGETS = {"train": (0, 2, 3, 5), "dev": (1, 4), "test": (1, 4)}


def corridor_task(env_id, targets=None, max_steps_in_episode=12, **_) -> Task:
    env = Corridor()
    targets = SPLIT_TARGETS["train"] if targets is None else targets
    params = Params(targets=jnp.asarray(targets, jnp.int32), max_steps_in_episode=max_steps_in_episode)
    return Task(
        env_id,
        env,
        params,
        texts=tuple(f"walk to cell {t} and stop" for t in targets),
        text_goal=np.arange(len(targets)),
        goals=tuple({"key": f"cell {t}"} for t in targets),
        observe=lambda obs: Observed(obs.world, obs.text, jnp.ones(3, bool)),
        start=lambda key, text, params: env.start(text, params),
        success=lambda info: info["success"],
        expert=env.expert_action,
    )


CORRIDOR = WorldFamily(
    name="Corridor",
    ids=("Corridor-v1",),
    make=lambda env_id: (Corridor(), Params()),
    task=corridor_task,
    episodes=lambda spec, split: (list(SPLIT_TARGETS[split]), {}),
)


@pytest.fixture
def corridor(monkeypatch):
    monkeypatch.setattr(registry, "_FAMILIES", list(worlds.families()))  # registered for this test only
    worlds.register(CORRIDOR)
    return CORRIDOR


def test_the_env_declares_its_hooks():
    env = Corridor()
    assert isinstance(env, EnvHooks) and isinstance(env, TextHooks) and isinstance(env, ExpertHooks)


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
            "--total-steps",
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
            "--imitation",
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
