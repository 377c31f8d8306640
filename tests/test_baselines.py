"""PPO-T / PPO-T+ / FiLM: networks, GAE, training under one jit, seeds, sharding, checkpoints, CLI."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from baselines import evaluate
from baselines.networks import POLICIES, count_parameters, make_network
from baselines.ppo import PPO, PPOConfig, Transition, _gae, config_from_dict, tables, train_seeds
from baselines.tasks import make_task
from hexagons.synthetic import generate

ROOT = Path(__file__).resolve().parent.parent
TINY = dict(env_id="Hexagons-Paint-v1", num_envs=8, num_steps=8, total_timesteps=8 * 8 * 2, num_minibatches=2, layer_size=32, update_epochs=2)


@pytest.fixture(scope="module")
def hex_task():
    return make_task("Hexagons-Paint-v1", generate(16, seed=0), max_instructions=8, max_tokens=24, max_steps_in_episode=20)


def _inputs(t, b, world_shape, actions, embed=16, mask=None):
    world = jnp.ones((t, b, *world_shape))
    text = jnp.linspace(-1, 1, t * b * embed).reshape(t, b, embed)
    mask = jnp.ones((t, b, actions), bool) if mask is None else mask
    return world, text, text, jnp.zeros((t, b), bool), mask


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("pixels", [False, True])
def test_networks_shapes_and_masking(policy, pixels):
    net = make_network(policy, 5, pixels, layer_size=32)
    world_shape = (63, 63, 3) if pixels else (40,)
    mask = jnp.ones((2, 3, 5), bool).at[..., 1].set(False)
    x = _inputs(2, 3, world_shape, 5, mask=mask)
    params = net.init(jax.random.key(0), net.initial_hidden(3), *x)
    hidden, pi, value = net.apply(params, net.initial_hidden(3), *x)
    assert hidden.shape == (3, 32) and value.shape == (2, 3) and pi.logits.shape == (2, 3, 5)
    assert np.allclose(np.asarray(pi.probs[..., 1]), 0.0)  # infeasible actions are never chosen
    assert count_parameters(params) > 0


def test_paper_scale_network_sizes():
    """PPO-T at layer 512 on Classic pixels with 768-d text is the official model's size class (2.92M)."""
    net = make_network("ppo-t", 17, True, 512)
    x = _inputs(1, 1, (63, 63, 3), 17, embed=768)
    params = jax.eval_shape(net.init, jax.random.key(0), net.initial_hidden(1), *x)
    assert 2.5e6 < count_parameters(params) < 3.5e6


def test_gru_restarts_where_reset():
    net = make_network("ppo-t", 4, False, layer_size=16)
    world, text, plan, reset, mask = _inputs(3, 2, (10,), 4)
    params = net.init(jax.random.key(0), net.initial_hidden(2), world, text, plan, reset, mask)
    busy = jnp.full((2, 16), 0.7)
    _, _, v_reset = net.apply(params, busy, world, text, plan, reset.at[0].set(True), mask)
    _, _, v_fresh = net.apply(params, net.initial_hidden(2), world, text, plan, reset, mask)
    _, _, v_busy = net.apply(params, busy, world, text, plan, reset, mask)
    assert np.allclose(v_reset, v_fresh) and not np.allclose(v_busy, v_fresh)


def test_film_starts_as_identity_and_depends_on_text():
    net = make_network("film", 4, False, layer_size=16)
    world, text, plan, reset, mask = _inputs(1, 2, (10,), 4)
    params = net.init(jax.random.key(0), net.initial_hidden(2), world, text, plan, reset, mask)
    film = params["params"]["WorldEncoder_0"]["FiLM_0"]
    assert all(np.all(np.asarray(film[n]["kernel"]) == 0) for n in ("gamma", "beta"))
    from baselines.networks import WorldEncoder

    flat = world.reshape(2, -1)
    e1, e2 = jnp.ones((2, 64)), -jnp.ones((2, 64))
    enc = WorldEncoder(pixels=False)
    p = enc.init(jax.random.key(1), flat, e1)
    assert np.allclose(enc.apply(p, flat, e1), enc.apply(p, flat, e2))  # zero gamma / beta: identity modulation
    p = jax.tree.map(lambda x: x + 0.1, p)  # after some learning the text modulates the world features
    assert not np.allclose(enc.apply(p, flat, e1), enc.apply(p, flat, e2))


def test_gae_by_hand():
    reward = jnp.asarray([[1.0], [0.0], [2.0]])
    value = jnp.asarray([[0.5], [0.2], [0.1]])
    ended = jnp.asarray([[False], [True], [False]])
    z = jnp.zeros((3, 1))
    traj = Transition(None, z, z, z, value, reward, ended, z, z, z, z)
    adv, ret = _gae(traj, jnp.asarray([0.3]), gamma=0.9, lam=0.5)
    d2 = 2.0 + 0.9 * 0.3 - 0.1
    d1 = 0.0 - 0.2  # episode ended: no bootstrap
    d0 = 1.0 + 0.9 * 0.2 - 0.5
    expect = [d0 + 0.45 * d1, d1, d2]
    assert np.allclose(np.asarray(adv[:, 0]), expect, atol=1e-6)
    assert np.allclose(np.asarray(ret), np.asarray(adv) + np.asarray(value))


def test_config_validation_names_the_field():
    with pytest.raises(ValueError, match="num_minibatches"):
        PPOConfig(num_envs=10, num_minibatches=4).validate()
    with pytest.raises(ValueError, match="gae_lambda"):
        PPOConfig(gae_lambda=1.5).validate()
    with pytest.raises(ValueError, match="bogus"):
        config_from_dict({"bogus": 1})


@pytest.fixture(scope="module")
def trained(hex_task):
    config = PPOConfig(**TINY, policy="film")
    ppo = PPO(config, hex_task, *tables(config, hex_task, cache_dir=None))
    train = jax.jit(ppo.train)
    # Block before the next dispatch: two training programs in flight at once can hang XLA:CPU here.
    return ppo, train, jax.block_until_ready(train(jax.random.key(0)))


def test_train_runs_under_one_jit_and_learns_something(trained):
    ppo, _, out = trained
    m = out["metrics"]
    assert m["update"].tolist() == [1, 2] and int(out["runner"].update) == 2
    assert all(np.isfinite(np.asarray(v)).all() for v in m.values())
    init = ppo.init(jax.random.key(0)).params
    changed = jax.tree.map(lambda a, b: bool(jnp.any(a != b)), init, out["runner"].params)
    assert any(jax.tree.leaves(changed))


def test_train_is_deterministic_and_vmaps_over_seeds(trained):
    ppo, train, out = trained
    again = jax.block_until_ready(train(jax.random.key(0)))
    assert all(jax.tree.leaves(jax.tree.map(lambda a, b: bool(jnp.all(a == b)), out["runner"].params, again["runner"].params)))
    seeds = jax.jit(train_seeds, static_argnums=0)(ppo, jax.random.split(jax.random.key(1), 2))
    value_loss = np.asarray(seeds["metrics"]["value_loss"])
    assert value_loss.shape == (2, 2) and not np.allclose(value_loss[0], value_loss[1])


SHARDED = textwrap.dedent("""
    import sys, jax, numpy as np
    from baselines.ppo import PPO, PPOConfig, tables
    from baselines.tasks import make_task
    from hexagons.synthetic import generate
    task = make_task("Hexagons-Paint-v1", generate(16, seed=0), max_instructions=8, max_tokens=24, max_steps_in_episode=20)
    config = PPOConfig(**{TINY})
    ppo = PPO(config, task, *tables(config, task, cache_dir=None))
    out = jax.jit(ppo.train)(jax.random.key(0))
    leaves = [np.asarray(x) for x in jax.tree.leaves(out["runner"].params)]
    np.savez(sys.argv[1], *leaves)
    print("devices", jax.device_count(), "sharded", ppo.mesh is not None)
""")


def test_two_devices_give_the_same_update_as_one(tmp_path):
    """Envs sharded over 2 CPU devices: same total batch, same update (up to float reassociation)."""
    script = tmp_path / "run.py"
    script.write_text(SHARDED.replace("{TINY}", repr(TINY)))
    runs = {}
    for devices in (1, 2):
        env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}", JAX_PLATFORMS="cpu")
        done = subprocess.run([sys.executable, str(script), str(tmp_path / f"p{devices}.npz")], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert f"devices {devices} sharded {devices > 1}" in done.stdout
        runs[devices] = np.load(tmp_path / f"p{devices}.npz")
    for name in runs[1].files:
        assert np.allclose(runs[1][name], runs[2][name], rtol=1e-4, atol=1e-5), name


def test_cli_checkpoints_and_resumes_to_the_same_result(tmp_path):
    """Kill after the first checkpoint (simulated by deleting the later ones) and resume: same params."""
    out = tmp_path / "run"
    args = ["--env", "Hexagons-Paint-v1", "--num-envs", "8", "--num-steps", "8", "--total-steps", str(8 * 8 * 4),
            "--layer-size", "32", "--checkpoint-every", "2", "--max-episode-steps", "30", "--out", str(out)]
    from baselines.__main__ import main

    main(args)
    checkpoints = out / "checkpoints"
    assert sorted(p.name for p in checkpoints.iterdir() if p.name.isdigit()) == ["2", "4"]
    final = _saved_params(checkpoints / "4")
    shutil.rmtree(checkpoints / "4")
    main(args + ["--resume"])
    resumed = _saved_params(checkpoints / "4")
    assert all(np.array_equal(a, b) for a, b in zip(final, resumed))
    config = json.loads((out / "config.json").read_text())
    assert config["ppo"]["num_envs"] == 8 and len((out / "metrics.jsonl").read_text().splitlines()) == 6


def _saved_params(path: Path) -> list[np.ndarray]:
    import orbax.checkpoint as ocp

    restored = ocp.StandardCheckpointer().restore(path.absolute() / "default")
    return [np.asarray(x) for x in jax.tree.leaves(restored["params"])]


def test_summaries_and_table():
    class FakeTask:
        goals = ({"key": "a", "category": "Building", "level": "medium"}, {"key": "b", "category": "Achievement", "level": "easy"},
                 {"key": "c", "category": "Achievement", "level": "easy"})

    success = np.asarray([[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], bool)
    s = evaluate.summarize(FakeTask, success)
    assert s["Building"] == {"success_rate": 0.5, "goals": 1}
    assert s["Achievement"] == {"success_rate": 0.125, "goals": 2}
    assert np.isclose(s["Total"]["success_rate"], (0.5 + 0.25) / 3) and s["per_goal"]["b"] == 0.25
    md = evaluate.table({"train": {"ppo-t": s}})
    assert "| train | ppo-t | – | 0.50 (1) | – | 0.12 (2) | – | 0.25 (3) | 0.12 (2) | 0.50 (1) |" in md


@pytest.mark.slow
def test_craftext_cli_trains_and_prints_the_table(tmp_path, capsys):
    """The README's main job at toy size: CrafText training, then agent vs random on a test split."""
    from baselines.__main__ import main

    main(["--total-steps", str(16 * 8), "--num-envs", "16", "--num-steps", "8", "--layer-size", "32", "--max-episode-steps", "20",
          "--eval-episodes", "2", "--eval-splits", "test_new_objects", "--policy", "ppo-t+", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "| test_new_objects | ppo-t+ (sample) |" in out and "| test_new_objects | random |" in out
    results = json.loads((tmp_path / "evaluation.json").read_text())["results"]["test_new_objects"]
    assert 0.0 <= results["random"]["Total"]["success_rate"] <= 1.0 and results["random"]["Total"]["goals"] == 10
