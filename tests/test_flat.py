"""Your trainer, our worlds: gymnax's conventions in every world, the flat view that trainers
written for gymnax 0.x / 1.x and Craftax run unchanged, a compact PPO in each style through it,
and the world contract as a command (``baselines.worlds.check``)."""

from __future__ import annotations

import warnings
from typing import NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from gymnax.environments import environment, spaces

import baselines
from baselines import worlds
from baselines.flat import FlatParams
from baselines.worlds.check import POINTS, check

GRID_WORLDS = ("Hexagons-Paint-v1", "BlocksWorld-BAP-v1", "BlocksWorld-Build-v1")
SYMBOLIC = (*GRID_WORLDS, "CrafText-Classic-Symbolic-v1")


FULL_CRAFTAX = "CrafText-Symbolic-v1"
"""Full Craftax's step compiles for about 50 s on 2 cores: slow tier (its Classic sibling is fast)."""


@pytest.mark.parametrize(
    "env_id", [pytest.param(i, marks=pytest.mark.slow) if i == FULL_CRAFTAX else i for i in worlds.ids() if "Pixels" not in i]
)
def test_every_world_keeps_gymnax_conventions_and_has_a_flat_box_view(env_id):
    """``default_params`` (a gymnax ``EnvParams``), ``reset(key)`` without params, ``discount``,
    ``num_actions`` and ``name``; the flat view: hashable params, a float32 ``Box`` whose shape is
    the observation's and which contains it, the legacy 5-value step, the world's own ``info``."""
    env, params = baselines.make(env_id)
    assert isinstance(env.default_params, environment.EnvParams) and isinstance(params, environment.EnvParams)
    obs, state = env.reset(jax.random.key(0))
    assert float(env.discount(state, env.default_params)) == 1.0 and env.num_actions > 0 and env.name
    flat, flat_params = baselines.make(env_id, flat=True, legacy_step=True)
    assert flat_params == flat.default_params and hash(flat_params) == hash(FlatParams(flat_params.max_steps_in_episode))
    obs, state = flat.reset(jax.random.key(0), flat_params)
    space = flat.observation_space(flat_params)
    assert isinstance(space, spaces.Box) and space.shape == obs.shape and obs.dtype == jnp.float32 and bool(space.contains(obs))
    obs, state, reward, done, info = flat.step(jax.random.key(1), state, 0, flat_params)
    assert done.dtype == jnp.bool_ and {"terminated", "truncated"} <= set(info) and "final_observation" not in info
    own = set(jax.eval_shape(env.step_env, jax.random.key(1), env.reset(jax.random.key(0))[1], 0, env.default_params)[4])
    assert own <= set(info)
    if env_id.startswith("CrafText"):
        assert "Achievements/collect_wood" in info  # what Craftax_Baselines logs


def test_pixel_views_keep_gymnax_conventions_without_compiling():
    """The pixel worlds, traced only (their renderer compiles for minutes on a CPU)."""
    for env_id in (i for i in worlds.ids() if "Pixels" in i):
        env, params = baselines.make(env_id)
        obs, state = jax.eval_shape(env.reset, jax.random.key(0))
        assert isinstance(env.default_params, environment.EnvParams) and obs.world.dtype == jnp.uint8
        assert jax.eval_shape(env.discount, state, env.default_params).dtype == jnp.float32


def test_the_flat_view_holds_no_goal_or_dataset_index_and_resets_as_asked():
    """Two phrasings of one goal give the same world features and other text features; no
    observation entry is an index. ``auto_reset=False`` leaves a finished world as it is;
    ``final_observation`` is the 1.x step's unless turned off; the episode limit is the params'."""
    env, params = baselines.make("Hexagons-Paint-v1", flat=True)
    task = env.task
    obs_a, _ = jax.jit(task.start)(jax.random.key(0), jnp.int32(0), task.params)
    seen = env.flatten(obs_a)
    world = task.observe(obs_a).world.size
    np.testing.assert_array_equal(np.asarray(seen[world:]), np.asarray(env.text_features[0]))
    assert seen.shape == (world + env.text_features.shape[1],)
    short = FlatParams(max_steps_in_episode=1)
    _, state = env.reset(jax.random.key(2), short)
    obs, after, reward, terminated, truncated, info = env.step(jax.random.key(3), state, 0, short)
    assert bool(truncated | terminated) and "final_observation" in info and int(after.time) == 0  # reset
    stay, _ = baselines.make("Hexagons-Paint-v1", flat=True, auto_reset=False, final_observation=False)
    obs, after, *_, info = stay.step(jax.random.key(3), state, 0, short)
    assert int(after.time) == 1 and "final_observation" not in info
    with pytest.raises(TypeError, match="options of the flat view"):
        baselines.make("Hexagons-Paint-v1", legacy_step=True)


def test_gymnasium_accepts_the_flat_view():
    """The flat view as a gymnasium env (gymnax's ``GymnaxToGymWrapper``, seeded, numpy values)
    passes gymnasium's ``check_env``."""
    from gymnasium.utils.env_checker import check_env

    from baselines.flat import to_gymnasium

    env, params = baselines.make("BlocksWorld-BAP-v1", flat=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's notes on an unbounded Box
        check_env(to_gymnasium(env, params), skip_render_check=True)
    with pytest.raises(ValueError, match="legacy_step=False"):
        to_gymnasium(baselines.make("BlocksWorld-BAP-v1", flat=True, legacy_step=True)[0])


# ----------------------------------------------------------------------------- a compact PPO in each style
class Step(NamedTuple):
    obs: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    done: jax.Array


class Policy(nn.Module):
    actions: int

    @nn.compact
    def __call__(self, x):
        h = nn.tanh(nn.Dense(32)(x))
        return nn.Dense(self.actions)(h), nn.Dense(1)(h)[..., 0]


def compact_ppo(env, params, legacy: bool, num_envs: int = 4, num_steps: int = 8, updates: int = 3):
    """A minimal PPO of the kind researchers write against gymnax: vmapped ``env.reset`` /
    ``env.step`` with the world's params passed in, a scan over steps, GAE, one clipped update a
    rollout. ``legacy``: the 0.x step (``obs, state, reward, done, info``), else 1.x's six values."""
    net = Policy(env.num_actions)
    size = env.observation_space(params).shape[0]
    opt = optax.adam(3e-4)

    def train(key):
        key, k_init, k_reset = jax.random.split(key, 3)
        weights = net.init(k_init, jnp.zeros((size,)))
        opt_state = opt.init(weights)
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k_reset, num_envs), params)

        def update(carry, key):
            weights, opt_state, obs, state = carry

            def act(carry, key):
                obs, state = carry
                k_act, k_step = jax.random.split(key)
                logits, value = net.apply(weights, obs)
                action = jax.random.categorical(k_act, logits)
                log_prob = jax.nn.log_softmax(logits)[jnp.arange(num_envs), action]
                out = jax.vmap(env.step, in_axes=(0, 0, 0, None))(jax.random.split(k_step, num_envs), state, action, params)
                if legacy:
                    next_obs, state, reward, done, _ = out
                else:
                    next_obs, state, reward, terminated, truncated, _ = out
                    done = terminated | truncated
                return (next_obs, state), Step(obs, action, log_prob, value, reward, done)

            (obs, state), traj = jax.lax.scan(act, (obs, state), jax.random.split(key, num_steps))
            last = net.apply(weights, obs)[1]

            def back(next_value, t):
                value = t.reward + 0.99 * next_value * (1 - t.done)
                return value, value

            targets = jax.lax.scan(back, last, traj, reverse=True)[1]
            advantages = targets - traj.value

            def loss(weights):
                logits, value = net.apply(weights, traj.obs)
                log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), traj.action[..., None], -1)[..., 0]
                ratio = jnp.exp(log_prob - traj.log_prob)
                clipped = jnp.minimum(ratio * advantages, jnp.clip(ratio, 0.8, 1.2) * advantages)
                return -clipped.mean() + 0.5 * ((value - targets) ** 2).mean()

            value, grads = jax.value_and_grad(loss)(weights)
            steps, opt_state = opt.update(grads, opt_state)
            return (optax.apply_updates(weights, steps), opt_state, obs, state), value

        return jax.lax.scan(update, (weights, opt_state, obs, state), jax.random.split(key, updates))[1]

    return jax.block_until_ready(jax.jit(train)(jax.random.key(0)))


@pytest.mark.parametrize("legacy", [True, False], ids=["gymnax 0.x step", "gymnax 1.x step"])
def test_a_compact_ppo_trains_through_the_flat_view(legacy):
    env, params = baselines.make("Hexagons-Paint-v1", flat=True, legacy_step=legacy)
    losses = compact_ppo(env, params, legacy)
    assert losses.shape == (3,) and np.isfinite(np.asarray(losses)).all()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", SYMBOLIC[1:])
def test_a_compact_ppo_of_each_style_trains_on_every_world(env_id):
    """The other worlds (CrafText compiles for tens of seconds), both step styles, with their
    optimistic-reset form (no reset inside the step) too."""
    for legacy in (True, False):
        env, params = baselines.make(env_id, flat=True, legacy_step=legacy)
        assert np.isfinite(np.asarray(compact_ppo(env, params, legacy))).all()
    env, params = baselines.make(env_id, flat=True, legacy_step=True, auto_reset=False)
    assert np.isfinite(np.asarray(compact_ppo(env, params, True))).all()


# ----------------------------------------------------------------------------- the contract as a command
@pytest.fixture
def corridor():
    import corridor_world  # tests/conftest.py puts the example world on the path

    with worlds.registered(corridor_world.FAMILY):
        yield corridor_world


def test_the_contract_holds_for_a_plugin_and_names_the_rule_a_world_breaks(corridor, capsys):
    import dataclasses

    assert check("Corridor-v1") == []
    assert capsys.readouterr().out.count("ok    ") == len(POINTS)

    def no_limit(env_id, targets=None):  # a task builder without the episode-limit keyword
        return corridor.corridor_task(env_id, targets)

    class Unordered(corridor.Corridor):  # facts out of canonical order
        def kg(self, state, params, scope="observed"):
            graph = super().kg(state, params, scope)
            two = jnp.asarray([3, 1], jnp.int32)
            return {
                **graph,
                "subject": jnp.zeros(2, jnp.int32),
                "relation": jnp.zeros(2, jnp.int32),
                "object": two,
                "valid": jnp.ones(2, bool),
            }

    broken = dataclasses.replace(
        corridor.FAMILY, name="Broken", ids=("Broken-v1",), task=no_limit, make=lambda env_id: (Unordered(), corridor.Params())
    )
    with worlds.registered(broken):
        failed = {point.name: message for point, message in check("Broken-v1")}
    out = capsys.readouterr().out
    assert set(failed) == {"episode limit", "text view"}
    assert "does not take max_steps_in_episode=" in failed["episode limit"] and "canonical" in out
    assert "rule: the task builder takes max_steps_in_episode= and truncates there" in out

    class Unmasked(corridor.Corridor):  # no action_mask: not the suite's EnvHooks
        def __getattribute__(self, name):
            if name == "action_mask":
                raise AttributeError(name)
            return super().__getattribute__(name)

    unmasked = dataclasses.replace(
        broken, name="Unmasked", ids=("Unmasked-v1",), task=corridor.corridor_task, make=lambda env_id: (Unmasked(), corridor.Params())
    )
    with worlds.registered(unmasked):
        failed = {point.name: message for point, message in check("Unmasked-v1")}
    assert "lacks the suite's EnvHooks: action_mask" in failed["gymnax"]  # (its text view's valid actions fail with it)


def test_the_check_command_exits_nonzero_and_refuses_an_unknown_id(capsys):
    from baselines.worlds.check import main

    with pytest.raises(SystemExit, match="unknown env id 'Hexagon-Paint-v1'. Did you mean Hexagons-Paint-v1"):
        main(["Hexagon-Paint-v1"])
    assert main(["hexagons", "--quiet"]) == 0
    assert "hexagons: 8 of 8 points hold" in capsys.readouterr().out
