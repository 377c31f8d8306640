"""PPO training throughput per baseline policy, and the share of time spent in the environment.

For each policy: the steps/s of whole PPO updates (rollout + GAE + epochs x minibatches, compiled
once with ``.lower().compile()``, warmed up, median of repeats). Once per task: the env-only steps/s
of the same worlds with the same reset strategy (``measure_env``: pre-sampled random actions, the
same number of steps). The env share is env-only time / update time; the rest is the network
(acting and learning). ``python -m benchmarks`` also trains PPO-T on the training world's reference
(``plain_task``: bare Craftax Classic beside CrafText) and records the ratio of the two
(``ratio_of_compared``).
"""

from __future__ import annotations

import time

import jax
import numpy as np

from baselines.configs import POLICIES, NetworkConfig
from baselines.networks import count_parameters
from baselines.ppo import PPO, PPOConfig, tables
from baselines.worlds.task import Task
from benchmarks import provenance_line
from benchmarks.env_sps import measure_env


def measure_training(
    task: Task, num_envs: int, num_steps: int, updates: int, repeats: int, layer_size: int = 512, policies: tuple[str, ...] = POLICIES
) -> list[dict]:
    """One row per policy: training and env-only steps/s, env share, compile time, parameter count."""
    steps = num_envs * num_steps * updates
    ratio = min(PPOConfig.reset_ratio, task.reset_ratio)  # the reset strategy PPO uses on this task
    env_only = measure_env(task.env, task.params, num_envs, num_steps * updates, repeats, reset_ratio=ratio if ratio > 1 else None)
    env_s = steps / env_only["steps_per_s_median"]
    rows = []
    for policy in policies:
        config = PPOConfig(
            network=NetworkConfig(env_id=task.name, policy=policy, layer_size=layer_size),
            num_envs=num_envs,
            num_steps=num_steps,
            total_timesteps=steps,
            num_minibatches=min(8, num_envs),
        )
        ppo = PPO(config, task, *tables(config.network, task))
        runner = ppo.init(jax.random.key(0))
        start = time.perf_counter()
        train = jax.jit(ppo.updates, static_argnums=1).lower(runner, updates).compile()
        compile_s = time.perf_counter() - start
        jax.block_until_ready(train(runner))  # warm-up, as for the env-only figure
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            jax.block_until_ready(train(runner))
            times.append(time.perf_counter() - start)
        train_s = float(np.median(times))
        rows.append(
            {
                "world": task.name,
                "policy": policy,
                "num_envs": num_envs,
                "num_steps": num_steps,
                "updates": updates,
                "layer_size": layer_size,
                "parameters": count_parameters(runner.params),
                "train_steps_per_s": steps / train_s,
                "env_only_steps_per_s": env_only["steps_per_s_median"],
                "env_share": min(env_s / train_s, 1.0),
                "compile_s": compile_s,
                "repeats": repeats,
            }
        )
    return rows


def markdown(rows: list[dict], info: dict) -> str:
    lines = [
        provenance_line(info),
        "",
        "| world | policy | num_envs x steps | layer | parameters | training steps/s | env-only steps/s | env share | compile (s) |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['world']} | {r['policy']} | {r['num_envs']} x {r['num_steps']} | {r['layer_size']} | {r['parameters']:,} | "
            f"{r['train_steps_per_s']:,.0f} | {r['env_only_steps_per_s']:,.0f} | {r['env_share']:.0%} | {r['compile_s']:.1f} |"
        )
    lines += [
        f"\nPPO-T training steps/s of {next(r['world'] for r in rows if 'ratio_of_compared' not in r)} / the same PPO-T on "
        f"{r['world']}: x{r['ratio_of_compared']:.2f}."
        for r in rows
        if "ratio_of_compared" in r
    ]
    return "\n".join(lines) + "\n"
