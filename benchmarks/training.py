"""PPO training throughput per baseline policy, and the share of time spent in the environment.

For each policy: the steps/s of whole PPO updates (rollout + GAE + epochs x minibatches, compiled
once with ``.lower().compile()``, median of repeats), and the steps/s of the same vector env (same
wrappers and reset strategy) stepping pre-sampled random actions for the same number of steps. The
env share is env-only time / update time; the rest is the network (acting and learning).
"""

from __future__ import annotations

import time

import jax
import numpy as np

from baselines.networks import POLICIES
from baselines.ppo import PPO, PPOConfig, tables
from baselines.tasks import Task


def _timed(fn, args, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        out.append(time.perf_counter() - start)
    return out


def measure_training(task: Task, num_envs: int, num_steps: int, updates: int, repeats: int, layer_size: int = 512,
                     policies: tuple[str, ...] = POLICIES) -> list[dict]:
    """One row per policy: training and env-only steps/s, env share, compile time, parameter count."""
    rows = []
    for policy in policies:
        config = PPOConfig(env_id=task.name, policy=policy, num_envs=num_envs, num_steps=num_steps, total_timesteps=num_envs * num_steps * updates,
                           num_minibatches=min(8, num_envs), layer_size=layer_size)
        ppo = PPO(config, task, *tables(config, task))
        runner = ppo.init(jax.random.key(0))
        start = time.perf_counter()
        train = jax.jit(ppo.updates, static_argnums=1).lower(runner, updates).compile()
        compile_s = time.perf_counter() - start

        def env_only(key, state, ppo=ppo):
            def step(carry, key):
                state = carry
                k_act, k_env = jax.random.split(key)
                action = jax.random.randint(k_act, (num_envs,), 0, task.num_actions)
                _, state, reward, *_ = ppo.env.step(k_env, state, action, task.params)
                return state, reward.sum()

            return jax.lax.scan(step, state, jax.random.split(key, num_steps * updates))

        env_run = jax.jit(env_only).lower(jax.random.key(1), runner.env_state).compile()
        train_s = float(np.median(_timed(train, (runner,), repeats)))
        env_s = float(np.median(_timed(env_run, (jax.random.key(1), runner.env_state), repeats)))
        steps = num_envs * num_steps * updates
        rows.append({
            "world": task.name, "policy": policy, "num_envs": num_envs, "num_steps": num_steps, "updates": updates, "layer_size": layer_size,
            "parameters": int(sum(np.prod(x.shape) for x in jax.tree.leaves(runner.params))),
            "train_steps_per_s": steps / train_s, "env_only_steps_per_s": steps / env_s, "env_share": min(env_s / train_s, 1.0),
            "compile_s": compile_s, "repeats": repeats,
        })
    return rows


def markdown(rows: list[dict], info: dict) -> str:
    lines = [f"Device: {info['device']} ({info['host_cpus']} host CPUs), jax {info['jax']}.", "",
             "| world | policy | num_envs x steps | layer | parameters | training steps/s | env-only steps/s | env share | compile (s) |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['world']} | {r['policy']} | {r['num_envs']} x {r['num_steps']} | {r['layer_size']} | {r['parameters']:,} | "
                     f"{r['train_steps_per_s']:,.0f} | {r['env_only_steps_per_s']:,.0f} | {r['env_share']:.0%} | {r['compile_s']:.1f} |")
    return "\n".join(lines) + "\n"
