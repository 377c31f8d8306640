"""PPO built for the GPU it runs on: micro-batched gradients equal one pass, the compiled update
holds no per-step conditional and no host callback unless asked for progress, chunks donate
their runner, ``--plan`` writes its plan and HLO, and the paper's knobs are flags."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from baselines import plan
from baselines.__main__ import main
from baselines.configs import NetworkConfig
from baselines.ppo import PPO, PPOConfig, tables
from baselines.worlds import make_task
from hexagons.synthetic import generate

HEXAGONS = NetworkConfig(env_id="Hexagons-Paint-v1", layer_size=16)
SMALL = {"network": HEXAGONS, "num_envs": 8, "num_steps": 8, "total_timesteps": 8 * 8 * 2, "num_minibatches": 2}
SMALL |= {"update_epochs": 2}
RUN = ["--preset", "hexagons", "--num-envs", "8", "--num-steps", "8", "--total-timesteps", "128", "--layer-size", "16"]
RUN += ["--max-episode-steps", "6", "--data-size", "16", "--eval-episodes", "1", "--eval-splits", "train", "--quiet"]


@pytest.fixture(scope="module")
def task():
    return make_task("Hexagons-Paint-v1", generate(16, seed=0), max_instructions=8, max_tokens=24, max_steps_in_episode=6)


def _ppo(task, progress=None, **settings) -> PPO:
    config = PPOConfig(**{**SMALL, **settings})
    return PPO(config, task, *tables(config.network, task, cache_dir=None), progress=progress)


def test_micro_batched_gradient_and_update_equal_one_pass(task):
    """A minibatch of 4 worlds in 4 parts of one world: the same gradient (the advantages
    normalised over the whole minibatch) and, after a whole update, the same parameters."""
    one, four = _ppo(task, imitation_coef=0.5), _ppo(task, imitation_coef=0.5, micro_batches=4)
    runner = jax.jit(one.init)(jax.random.key(0))
    _, traj, hidden = jax.jit(one._rollout)(runner)
    advantages = jnp.linspace(-1.0, 2.0, traj.reward.size).reshape(traj.reward.shape)
    envs = jnp.arange(4)
    pick = (runner.params, hidden[envs], jax.tree.map(lambda x: x[:, envs], traj), advantages[:, envs], advantages[:, envs] * 0.5)
    (g1, aux1), (g4, aux4) = jax.jit(one.gradient)(*pick), jax.jit(four.gradient)(*pick)
    assert not np.allclose(np.asarray(jax.tree.leaves(g1)[0]), 0.0)
    for a, b in zip(jax.tree.leaves((g1, aux1)), jax.tree.leaves((g4, aux4))):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-4, atol=1e-6)
    (p1, m1), (p4, m4) = jax.jit(one.update)(runner), jax.jit(four.update)(runner)
    for a, b in zip(jax.tree.leaves(p1.params), jax.tree.leaves(p4.params)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)
    assert float(m1["value_loss"]) == pytest.approx(float(m4["value_loss"]), rel=1e-4)
    with pytest.raises(ValueError, match="micro_batches=3 must divide the 4 worlds of a minibatch"):
        PPOConfig(**SMALL, micro_batches=3).validate()


def test_the_update_syncs_nothing_per_step_and_a_chunk_donates_its_runner(task):
    """No conditional in the compiled update (truncated worlds' values are computed for every world
    and selected) and no host callback without progress; one callback with it; the chunk of a run
    holds one conditional (the guard of a shorter last chunk) and takes over its runner's buffers."""
    quiet = _ppo(task, imitation_coef=1.0, micro_batches=2)
    runner = jax.jit(quiet.init)(jax.random.key(0))
    assert plan.control_flow(plan.compiled_update(quiet, runner).as_text()) == {"conditionals": 0, "host_callbacks": 0}
    reports = []
    shown = _ppo(task, progress=reports.append, imitation_coef=1.0)
    assert plan.control_flow(plan.compiled_update(shown, runner).as_text())["host_callbacks"] == 1
    chunk = shown.compiled_updates(runner, 2)
    assert plan.control_flow(chunk.as_text())["conditionals"] == 1
    before = jax.tree.leaves(runner.params)[0]
    after, metrics = jax.block_until_ready(chunk(runner, np.int32(1)))  # one of the two updates runs
    assert before.is_deleted() and int(after.update) == 1 and metrics["update"].tolist() == [1, 0]
    assert [int(np.asarray(m["update"])) for m in reports] == [1]


def test_plan_writes_its_analysis_and_the_flags_reach_the_run(tmp_path, capsys):
    """``--plan`` compiles one update, runs nothing, and writes plan.json (memory, cost per env-step
    of world and learner, control flow, per GPU) and the optimised HLO; the paper's knobs are
    flags recorded in config.json, refused before anything is built when they do not fit."""
    main([*RUN, "--num-minibatches", "2", "--micro-batches", "2", "--plan", "--out", str(tmp_path / "plan")])
    result = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert "| V100 16GB | yes |" in capsys.readouterr().out
    assert not (tmp_path / "plan" / "config.json").exists() and (tmp_path / "plan" / "update.hlo.txt").read_text().startswith("HloModule")
    memory = result["memory_analysis"]
    assert 0 < result["device_memory_bytes"] == memory["argument"] + memory["output"] + memory["temp"] - memory["alias"]
    assert memory["alias"] > 0  # the donated runner
    per_step = result["per_env_step"]
    assert per_step["learner"]["flops"] > per_step["world"]["flops"] > 0
    assert per_step["total"]["bytes"] == pytest.approx(per_step["world"]["bytes"] + per_step["learner"]["bytes"])
    assert result["conditionals"] == result["host_callbacks"] == 0
    assert set(result["gpus"]) == {"V100 16GB", "V100 32GB", "A100 40GB", "A100 80GB", "H100 80GB"}
    assert all(gpu["fits"] and gpu["steps_per_s"] > 0 for gpu in result["gpus"].values())
    settings = {"num_envs": 8, "num_steps": 8, "num_minibatches": 2, "micro_batches": 2, "update_epochs": 4, "total_steps": 128}
    assert result["settings"] == settings

    with pytest.raises(SystemExit, match="--micro-batches 3 must divide the 4 worlds of a minibatch"):
        main([*RUN, "--num-minibatches", "2", "--micro-batches", "3", "--out", str(tmp_path / "bad")])
    assert not (tmp_path / "bad").exists()
    run = tmp_path / "run"
    main([*RUN, "--num-minibatches", "2", "--update-epochs", "1", "--micro-batches", "2", "--reset-ratio", "2", "--out", str(run)])
    saved = json.loads((run / "config.json").read_text())
    assert {k: saved["ppo"][k] for k in ("num_minibatches", "update_epochs", "micro_batches", "reset_ratio")} == {
        "num_minibatches": 2,
        "update_epochs": 1,
        "micro_batches": 2,
        "reset_ratio": 2,
    }
    with pytest.raises(SystemExit, match="--micro-batches 4 \\(the run has 2\\)"):
        main(["--out", str(run), "--resume", "--micro-batches", "4"])
    with pytest.raises(SystemExit, match="--plan compiles the update of a new run"):
        main(["--out", str(run), "--resume", "--plan"])
