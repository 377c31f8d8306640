"""Vectorised wrappers around any gymnax 1.x environment.

A vector env holds ``num_envs`` worlds and exposes batched
``reset(key, params) -> (obs, state)`` and
``step(key, state, action, params) -> (obs, state, reward, terminated, truncated, info)`` with a
leading ``num_envs`` axis on every array (``params`` are shared, unbatched). Finished worlds are
reset inside ``step``; ``info["final_observation"]`` holds the observation before the reset.

* ``AutoResetVecEnv``: every finished world gets its own fresh reset (one ``reset_env`` per world
  per step, as gymnax's own ``step`` does).
* ``OptimisticResetVecEnv``: only ``num_envs // reset_ratio`` fresh worlds are generated per step,
  for worlds whose reset is expensive (Craftax world generation). Finished worlds are ranked by a
  random priority and the first ``num_resets`` of them (``lax.top_k``) get distinct fresh worlds;
  any further finished worlds reuse one of those fresh worlds (block ``i // reset_ratio``), so a
  step with more than ``num_resets`` finished worlds stays correct, only less diverse.
* ``LogWrapper``: running episode returns and lengths over a vector env.
* ``vector_env``: the vector env a learner steps (optimistic resets where the world asks for them).
* ``batched_env``: the plain (reset, step) pair of a batch of worlds that the benchmarks time.
* ``LegacyStepAPIWrapper`` (re-exported from gymnax): the old 5-tuple step for older code.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.environments.environment import Environment
from gymnax.wrappers import LegacyStepAPIWrapper
from jax import Array

__all__ = ["AutoResetVecEnv", "LegacyStepAPIWrapper", "LogState", "LogWrapper", "OptimisticResetVecEnv", "batched_env", "vector_env"]


def _select(mask: Array, on_true: Any, on_false: Any) -> Any:
    """Per-world select over pytrees with a leading (num_envs,) axis."""

    def pick(a, b):
        return jnp.where(mask.reshape(mask.shape + (1,) * (a.ndim - 1)), a, b)

    return jax.tree.map(pick, on_true, on_false)


class AutoResetVecEnv:
    """``num_envs`` copies of ``env``, each reset independently when it finishes."""

    def __init__(self, env: Environment, num_envs: int):
        self.env, self.num_envs = env, num_envs

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    @partial(jax.jit, static_argnums=0)
    def reset(self, key: Array, params: Any) -> tuple[Any, Any]:
        return jax.vmap(self.env.reset_env, in_axes=(0, None))(jax.random.split(key, self.num_envs), params)

    def _transition(self, key: Array, state: Any, action: Array, params: Any):
        """One step of every world without resetting: (obs, state, reward, terminated, truncated, info)."""
        step = jax.vmap(self.env.step_env, in_axes=(0, 0, 0, None))
        obs, state, reward, terminated, info = step(jax.random.split(key, self.num_envs), state, action, params)
        truncated = jax.vmap(self.env.is_truncated, in_axes=(0, None))(state, params) & ~terminated
        return obs, state, reward, terminated, truncated, info

    @partial(jax.jit, static_argnums=0)
    def step(self, key: Array, state: Any, action: Array, params: Any):
        key_step, key_reset = jax.random.split(key)
        obs, state, reward, terminated, truncated, info = self._transition(key_step, state, action, params)
        obs_re, state_re = self.reset(key_reset, params)
        done = terminated | truncated
        info = {**info, "final_observation": obs, "terminated": terminated, "truncated": truncated}
        return _select(done, obs_re, obs), _select(done, state_re, state), reward, terminated, truncated, info


class OptimisticResetVecEnv(AutoResetVecEnv):
    """Like ``AutoResetVecEnv`` but generates only ``num_envs // reset_ratio`` fresh worlds a step."""

    def __init__(self, env: Environment, num_envs: int, reset_ratio: int):
        if reset_ratio < 1 or num_envs % reset_ratio:
            raise ValueError(f"reset_ratio={reset_ratio} must be >= 1 and divide num_envs={num_envs}")
        super().__init__(env, num_envs)
        self.reset_ratio = reset_ratio
        self.num_resets = num_envs // reset_ratio

    @partial(jax.jit, static_argnums=0)
    def step(self, key: Array, state: Any, action: Array, params: Any):
        key_step, key_reset, key_rank = jax.random.split(key, 3)
        obs, state, reward, terminated, truncated, info = self._transition(key_step, state, action, params)
        done = terminated | truncated
        fresh_obs, fresh_state = jax.vmap(self.env.reset_env, in_axes=(0, None))(jax.random.split(key_reset, self.num_resets), params)
        # Finished worlds rank above running ones; random order among each group.
        priority = jax.random.uniform(key_rank, (self.num_envs,)) + done
        _, chosen = jax.lax.top_k(priority, self.num_resets)
        source = jnp.arange(self.num_envs) // self.reset_ratio
        source = source.at[chosen].set(jnp.arange(self.num_resets))
        obs_re = jax.tree.map(lambda x: x[source], fresh_obs)
        state_re = jax.tree.map(lambda x: x[source], fresh_state)
        info = {**info, "final_observation": obs, "terminated": terminated, "truncated": truncated}
        return _select(done, obs_re, obs), _select(done, state_re, state), reward, terminated, truncated, info


@struct.dataclass
class LogState:
    """Vector env state plus (num_envs,) running and last-finished episode statistics.

    ``returned_episode_valid`` is False until a world has finished its first episode: before that its
    ``returned_episode_*`` entries are placeholders and must not be averaged."""

    env_state: Any
    episode_returns: Array
    episode_lengths: Array
    returned_episode_returns: Array
    returned_episode_lengths: Array
    returned_episode_valid: Array


class LogWrapper:
    """Episode returns/lengths of a vector env, reported in ``info`` at every step.

    info["returned_episode"]: (num_envs,) bool, this step finished an episode;
    info["returned_episode_returns" | "returned_episode_lengths"]: the last finished episode's;
    info["returned_episode_valid"]: (num_envs,) bool, the world has finished at least one episode.
    """

    def __init__(self, vec_env: AutoResetVecEnv):
        self.vec_env = vec_env

    def __getattr__(self, name: str) -> Any:
        return getattr(self.vec_env, name)

    @partial(jax.jit, static_argnums=0)
    def reset(self, key: Array, params: Any) -> tuple[Any, LogState]:
        obs, env_state = self.vec_env.reset(key, params)
        zeros_f = jnp.zeros(self.vec_env.num_envs, jnp.float32)
        zeros_i = jnp.zeros(self.vec_env.num_envs, jnp.int32)
        return obs, LogState(env_state, zeros_f, zeros_i, zeros_f, zeros_i, jnp.zeros(self.vec_env.num_envs, bool))

    @partial(jax.jit, static_argnums=0)
    def step(self, key: Array, state: LogState, action: Array, params: Any):
        obs, env_state, reward, terminated, truncated, info = self.vec_env.step(key, state.env_state, action, params)
        done = terminated | truncated
        returns = state.episode_returns + reward
        lengths = state.episode_lengths + 1
        state = LogState(
            env_state=env_state,
            episode_returns=jnp.where(done, 0.0, returns),
            episode_lengths=jnp.where(done, 0, lengths),
            returned_episode_returns=jnp.where(done, returns, state.returned_episode_returns),
            returned_episode_lengths=jnp.where(done, lengths, state.returned_episode_lengths),
            returned_episode_valid=state.returned_episode_valid | done,
        )
        info = {
            **info,
            "returned_episode": done,
            "returned_episode_returns": state.returned_episode_returns,
            "returned_episode_lengths": state.returned_episode_lengths,
            "returned_episode_valid": state.returned_episode_valid,
        }
        return obs, state, reward, terminated, truncated, info


def vector_env(env: Environment, num_envs: int, reset_ratio: int) -> AutoResetVecEnv:
    """``num_envs`` worlds of ``env``: an ``OptimisticResetVecEnv`` at the largest ratio that is at
    most ``reset_ratio`` and divides ``num_envs``, or an ``AutoResetVecEnv`` when that ratio is 1."""
    ratio = max(1, reset_ratio)
    while num_envs % ratio:
        ratio -= 1
    return OptimisticResetVecEnv(env, num_envs, ratio) if ratio > 1 else AutoResetVecEnv(env, num_envs)


def batched_env(env: Environment, num_envs: int, reset_ratio: int | None = None):
    """(reset(key, params), step(key, state, actions, params)) over ``num_envs`` worlds: gymnax's own
    auto-resetting ``env.step`` under ``vmap``, or with ``reset_ratio`` an ``OptimisticResetVecEnv``
    (ratio reduced to a divisor of ``num_envs``)."""
    if reset_ratio:
        vec = OptimisticResetVecEnv(env, num_envs, math.gcd(num_envs, reset_ratio))
        return vec.reset, vec.step

    def reset(key, params):
        return jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, num_envs), params)

    def step(key, state, actions, params):
        return jax.vmap(env.step, in_axes=(0, 0, 0, None))(jax.random.split(key, num_envs), state, actions, params)

    return reset, step
