"""Vector wrappers in baselines/: auto-reset, optimistic reset, logging, legacy 5-tuple."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hexagons
from baselines.worlds.wrappers import AutoResetVecEnv, LegacyStepAPIWrapper, LogWrapper, OptimisticResetVecEnv
from hexagons.env import STOP
from hexagons.synthetic import generate

NUM_ENVS = 16
LIMIT = 5


@functools.cache
def _world():
    env, params = hexagons.make("Hexagons-Paint-v1", generate(64, seed=0), max_instructions=8, max_tokens=32, max_steps_in_episode=LIMIT)
    return env, params


def _finish(state, which):
    """Put the worlds in ``which`` one step from the time limit."""
    return state.replace(time=jnp.where(which, LIMIT - 1, 0).astype(jnp.int32))


@pytest.mark.parametrize("num_done", [0, 1, 3, 4, 9, NUM_ENVS])
@pytest.mark.parametrize("ratio", [1, 4])
def test_optimistic_reset_with_few_or_many_done(num_done, ratio):
    env, params = _world()
    vec = OptimisticResetVecEnv(env, NUM_ENVS, reset_ratio=ratio)
    _, state = vec.reset(jax.random.key(0), params)
    done = np.zeros(NUM_ENVS, bool)
    done[np.random.default_rng(num_done).permutation(NUM_ENVS)[:num_done]] = True
    state = _finish(state, jnp.asarray(done))
    action = jnp.zeros(NUM_ENVS, jnp.int32)  # paint tile 0 white: a no-op on a fresh board
    obs, new, reward, term, trunc, info = vec.step(jax.random.key(1), state, action, params)
    np.testing.assert_array_equal(np.asarray(term | trunc), done)
    time = np.asarray(new.time)
    assert (time[done] == 0).all() and (time[~done] == 1).all()
    # finished worlds got fresh worlds: each one equals one of the step's fresh resets
    fresh_obs, fresh = jax.vmap(env.reset_env, in_axes=(0, None))(
        jax.random.split(jax.random.split(jax.random.key(1), 3)[1], vec.num_resets), params
    )
    fresh_procs = set(np.asarray(fresh.procedure).tolist())
    assert set(np.asarray(new.procedure)[done].tolist()) <= fresh_procs
    # at most num_resets finished worlds, and then all of them, start distinct fresh worlds
    if num_done:
        np.testing.assert_array_equal(np.asarray(obs.board)[done], 0)
    # running worlds keep their own state
    np.testing.assert_array_equal(np.asarray(new.procedure)[~done], np.asarray(state.procedure)[~done])
    np.testing.assert_array_equal(np.asarray(info["final_observation"].procedure), np.asarray(state.procedure))


def test_optimistic_reset_gives_distinct_worlds_up_to_num_resets():
    env, params = _world()
    vec = OptimisticResetVecEnv(env, NUM_ENVS, reset_ratio=4)
    _, state = vec.reset(jax.random.key(0), params)
    state = _finish(state, jnp.ones(NUM_ENVS, bool))
    # every world done: each of the 4 fresh worlds is used, by ratio-sized groups
    _, new, *_ = vec.step(jax.random.key(3), state, jnp.zeros(NUM_ENVS, jnp.int32), params)
    procs, counts = np.unique(np.asarray(new.procedure), return_counts=True)
    assert counts.sum() == NUM_ENVS and len(procs) <= vec.num_resets


def test_reset_ratio_must_divide():
    env, _ = _world()
    with pytest.raises(ValueError, match="reset_ratio"):
        OptimisticResetVecEnv(env, NUM_ENVS, reset_ratio=3)


def test_auto_reset_vec_env_matches_gymnax_step():
    env, params = _world()
    vec = AutoResetVecEnv(env, NUM_ENVS)
    obs, state = vec.reset(jax.random.key(0), params)
    assert obs.board.shape == (NUM_ENVS, 180)
    state = _finish(state, jnp.arange(NUM_ENVS) % 2 == 0)
    obs, new, reward, term, trunc, info = vec.step(jax.random.key(1), state, jnp.full(NUM_ENVS, STOP), params)
    np.testing.assert_array_equal(np.asarray(new.time), np.where(np.arange(NUM_ENVS) % 2 == 0, 0, 1))
    assert vec.num_actions == env.num_actions  # attributes fall through to the env


def test_log_wrapper_episode_returns_and_valid_flag():
    env, params = _world()
    log = LogWrapper(AutoResetVecEnv(env, NUM_ENVS))
    _, state = log.reset(jax.random.key(0), params)
    running, last = np.zeros(NUM_ENVS), np.zeros(NUM_ENVS)
    gold = np.asarray(params.gold_boards)
    for t in range(3 * LIMIT):
        # paint one tile of the gold step, then STOP: F1 > 0 at every STOP
        proc, k = np.asarray(state.env_state.procedure), np.asarray(state.env_state.instruction)
        tile = np.argmax(gold[proc, k + 1] != gold[proc, k], axis=1)
        paint = tile * 8 + gold[proc, k + 1, tile]
        action = jnp.asarray(np.where(t % 2 == 0, paint, STOP).astype(np.int32))
        _, state, reward, term, trunc, info = log.step(jax.random.key(t), state, action, params)
        done = np.asarray(term | trunc)
        running += np.asarray(reward)
        last = np.where(done, running, last)
        running = np.where(done, 0.0, running)
        np.testing.assert_array_equal(np.asarray(info["returned_episode"]), done)
        np.testing.assert_allclose(np.asarray(info["returned_episode_returns"]), last, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(state.episode_returns), running, rtol=1e-6)
        if t == 0:
            assert not np.asarray(info["returned_episode_valid"]).any()
    assert np.asarray(info["returned_episode_valid"]).all()  # every world finished within LIMIT steps
    assert last.max() > 0


def test_legacy_step_api_gives_five_values():
    env, params = _world()
    legacy = LegacyStepAPIWrapper(env)
    obs, state = legacy.reset(jax.random.key(0), params)
    out = legacy.step(jax.random.key(1), state, STOP, params)
    assert len(out) == 5 and out[3].dtype == jnp.bool_
