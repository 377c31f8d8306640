"""Env-only throughput: pre-sampled random actions, ``lax.scan`` over the batched step.

Compile time is measured separately (``jit(...).lower(...).compile()``); each repeat runs the
compiled rollout from fresh states and waits with ``block_until_ready``. The final observation
and state are returned, so XLA cannot drop any of the observation work. The batched step is
gymnax's own ``env.step`` under ``vmap`` (auto-reset of every finished world) or, with
``reset_ratio``, ``baselines.worlds.wrappers.OptimisticResetVecEnv`` (``baselines.worlds.wrappers.batched_env``).

``compare_step_only`` times ``vmap(env.step_env)`` alone from states reset outside the timing (no
resets at all) for several worlds in interleaved rounds: the cost of the step itself, where world
generation cannot hide it.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from baselines.worlds.wrappers import batched_env


def rollout_steps(num_envs: int, budget: int = 2**20, low: int = 32, high: int = 2048) -> int:
    """Scan length for ``num_envs`` worlds: about ``budget`` env-steps, clipped to [low, high]."""
    return int(min(max(budget // num_envs, low), high))


def measure_env(
    env: Any,
    params: Any,
    num_envs: int,
    num_steps: int,
    repeats: int = 5,
    seed: int = 0,
    reset_ratio: int | None = None,
    mesh: Mesh | None = None,
    observe: bool = True,
) -> dict:
    """Steps/s of ``num_envs`` worlds over ``num_steps`` steps: median and spread of ``repeats``;
    with a ``mesh``, the worlds are sharded over its ``data`` axis (as PPO shards them).
    ``observe=False`` returns no observation, so XLA drops the work of building it."""
    reset, step = batched_env(env, num_envs, reset_ratio)

    def shard(tree, axis: int = 0):
        if mesh is None:
            return tree
        spec = NamedSharding(mesh, PartitionSpec(*([None] * axis), "data"))
        return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, spec) if x.ndim > axis else x, tree)

    def rollout(key, params):
        key_reset, key_act, key_step = jax.random.split(key, 3)
        obs, state = shard(reset(key_reset, params))
        actions = shard(jax.random.randint(key_act, (num_steps, num_envs), 0, env.num_actions), axis=1)

        def body(carry, xs):
            _, state, total = carry
            k, a = xs
            obs, state, reward, *_ = step(k, state, a, params)
            return shard((obs if observe else None, state)) + (total + reward.sum(),), None

        keys = jax.random.split(key_step, num_steps)
        (obs, state, total), _ = jax.lax.scan(body, (obs if observe else None, state, jnp.float32(0)), (keys, actions))
        return obs, state, total

    timing = time_rollout(rollout, params, num_envs, num_steps, repeats, seed)
    return {"reset": f"optimistic/{reset_ratio}" if reset_ratio else "auto", **timing}


def step_only_rollout(env: Any, num_envs: int, num_steps: int, observe: bool = True):
    """``rollout(key, params, states)``: ``num_steps`` steps of ``vmap(env.step_env)`` with random
    actions from ``states`` (reset beforehand), no resets; returns the final obs, state and the
    summed reward (so no work can be dropped). ``observe=False`` returns no observation, so XLA
    drops the work of building it: the cost of the state update alone."""
    step = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))

    def rollout(key, params, states):
        key_act, key_step = jax.random.split(key)
        actions = jax.random.randint(key_act, (num_steps, num_envs), 0, env.num_actions)

        def body(carry, xs):
            _, state, total = carry
            k, a = xs
            obs, state, reward, *_ = step(jax.random.split(k, num_envs), state, a, params)
            return (obs if observe else None, state, total + reward.sum()), None

        obs = jax.vmap(env.get_obs, in_axes=(0, None))(states, params) if observe else None
        (obs, state, total), _ = jax.lax.scan(body, (obs, states, jnp.float32(0)), (jax.random.split(key_step, num_steps), actions))
        return obs, state, total

    return rollout


def reset_states(env: Any, params: Any, num_envs: int, seed: int = 0) -> Any:
    """``num_envs`` freshly reset states (``vmap(env.reset_env)``)."""
    keys = jax.random.split(jax.random.key(seed), num_envs)
    return jax.block_until_ready(jax.jit(jax.vmap(env.reset_env, in_axes=(0, None)))(keys, params)[1])


def compare_step_only(envs: dict[str, tuple[Any, Any]], num_envs: int, num_steps: int, rounds: int = 10, seed: int = 0) -> dict:
    """Step-only steps/s of several ``name -> (env, params)`` measured in one run, interleaved:
    every round times each env once (same key, same reset seed), so slow phases of the machine
    hit all of them alike. Returns per name the median and spread, and the per-round ratio of each
    env to the first one (median, min, max)."""
    compiled, args = {}, {}
    for name, (env, params) in envs.items():
        states = reset_states(env, params, num_envs, seed)
        start = time.perf_counter()
        compiled[name] = jax.jit(step_only_rollout(env, num_envs, num_steps)).lower(jax.random.key(seed), params, states).compile()
        args[name] = (params, states, time.perf_counter() - start)
        jax.block_until_ready(compiled[name](jax.random.key(seed), params, states))
    rates: dict[str, list[float]] = {name: [] for name in envs}
    for r in range(rounds):
        for name in envs:
            params, states, _ = args[name]
            start = time.perf_counter()
            jax.block_until_ready(compiled[name](jax.random.key(seed + 1 + r), params, states))
            rates[name].append(num_envs * num_steps / (time.perf_counter() - start))
    first = next(iter(envs))
    out = {}
    for name, values in rates.items():
        ratios = [v / b for v, b in zip(values, rates[first])]
        out[name] = {
            "num_envs": num_envs,
            "num_steps": num_steps,
            "rounds": rounds,
            "compile_s": args[name][2],
            "steps_per_s_median": statistics.median(values),
            "steps_per_s_min": min(values),
            "steps_per_s_max": max(values),
            "ratio_median": statistics.median(ratios),
            "ratio_min": min(ratios),
            "ratio_max": max(ratios),
        }
    return out


def time_rollout(rollout, params: Any, num_envs: int, num_steps: int, repeats: int, seed: int, *extra: Any) -> dict:
    """Compile ``rollout(key, params, *extra)`` once, warm it up, then time ``repeats`` calls."""
    key = jax.random.key(seed)
    start = time.perf_counter()
    compiled = jax.jit(rollout).lower(key, params, *extra).compile()
    compile_s = time.perf_counter() - start
    jax.block_until_ready(compiled(key, params, *extra))  # warm-up: allocations, caches
    times = []
    for r in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(compiled(jax.random.key(seed + 1 + r), params, *extra))
        times.append(time.perf_counter() - start)
    rates = [num_envs * num_steps / t for t in times]
    return {
        "num_envs": num_envs,
        "num_steps": num_steps,
        "repeats": repeats,
        "compile_s": compile_s,
        "steps_per_s_median": statistics.median(rates),
        "steps_per_s_min": min(rates),
        "steps_per_s_max": max(rates),
    }
