"""Env-only throughput: pre-sampled random actions, ``lax.scan`` over the batched step.

Compile time is measured separately (``jit(...).lower(...).compile()``); each repeat runs the
compiled rollout from fresh states and waits with ``block_until_ready``. The final observation
and state are returned, so XLA cannot drop any of the observation work. The batched step is
gymnax's own ``env.step`` under ``vmap`` (auto-reset of every finished world) or, with
``reset_ratio``, ``baselines.wrappers.OptimisticResetVecEnv``.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any

import jax
import jax.numpy as jnp


def rollout_steps(num_envs: int, budget: int = 2**20, low: int = 32, high: int = 2048) -> int:
    """Scan length for ``num_envs`` worlds: about ``budget`` env-steps, clipped to [low, high]."""
    return int(min(max(budget // num_envs, low), high))


def _batched(env: Any, num_envs: int, reset_ratio: int | None):
    """(reset(key, params), step(key, state, actions, params)) over ``num_envs`` worlds."""
    if reset_ratio:
        from baselines.wrappers import OptimisticResetVecEnv

        vec = OptimisticResetVecEnv(env, num_envs, math.gcd(num_envs, reset_ratio))
        return vec.reset, vec.step

    def reset(key, params):
        return jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, num_envs), params)

    def step(key, state, actions, params):
        return jax.vmap(env.step, in_axes=(0, 0, 0, None))(jax.random.split(key, num_envs), state, actions, params)

    return reset, step


def measure_env(env: Any, params: Any, num_envs: int, num_steps: int, repeats: int = 5, seed: int = 0, reset_ratio: int | None = None) -> dict:
    """Steps/s of ``num_envs`` worlds over ``num_steps`` steps: median and spread of ``repeats``."""
    reset, step = _batched(env, num_envs, reset_ratio)

    def rollout(key, params):
        key_reset, key_act, key_step = jax.random.split(key, 3)
        obs, state = reset(key_reset, params)
        actions = jax.random.randint(key_act, (num_steps, num_envs), 0, env.num_actions)

        def body(carry, xs):
            _, state, total = carry
            k, a = xs
            obs, state, reward, *_ = step(k, state, a, params)
            return (obs, state, total + reward.sum()), None

        keys = jax.random.split(key_step, num_steps)
        (obs, state, total), _ = jax.lax.scan(body, (obs, state, jnp.float32(0)), (keys, actions))
        return obs, state, total

    key = jax.random.key(seed)
    start = time.perf_counter()
    compiled = jax.jit(rollout).lower(key, params).compile()
    compile_s = time.perf_counter() - start
    jax.block_until_ready(compiled(key, params))  # warm-up: allocations, caches
    times = []
    for r in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(compiled(jax.random.key(seed + 1 + r), params))
        times.append(time.perf_counter() - start)
    rates = [num_envs * num_steps / t for t in times]
    return {
        "num_envs": num_envs,
        "num_steps": num_steps,
        "repeats": repeats,
        "reset": f"optimistic/{reset_ratio}" if reset_ratio else "auto",
        "compile_s": compile_s,
        "steps_per_s_median": statistics.median(rates),
        "steps_per_s_min": min(rates),
        "steps_per_s_max": max(rates),
    }
