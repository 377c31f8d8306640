"""Worker of ``test_scale_out.py``: trains tiny PPO runs on every local device (CrafText and
Hexagons, every policy) and saves parameters, metrics and what the shardings were.

    XLA_FLAGS=--xla_force_host_platform_device_count=N python tests/scale_worker.py OUT.npz
"""

from __future__ import annotations

import json
import sys

import jax
import numpy as np

from baselines.configs import NetworkConfig
from baselines.ppo import PPO, PPOConfig, tables
from baselines.worlds import make_task

CASES = [("Hexagons-Paint-v1", "ppo-t"), ("Hexagons-Paint-v1", "film"), ("CrafText-Classic-Symbolic-v1", "ppo-t+")]
"""Every policy, both kinds of world (PPO-T+'s built-in planners are CrafText's; its network is PPO-T's plus the plan)."""
STEPS = 6  # episode step limit: shorter than a rollout, so episodes end, reset and truncate in every update


def task_of(env_id: str):
    if env_id.startswith("Hexagons"):
        from hexagons.synthetic import generate

        return make_task(env_id, generate(16, seed=0), max_instructions=8, max_tokens=24, max_steps_in_episode=STEPS)
    from craftext import dataset

    return make_task(env_id, dataset.load("easy", "train").pairs()[:6], max_steps_in_episode=STEPS)


def main(out: str) -> None:
    saved, report = {}, {"devices": jax.device_count(), "cases": {}}
    for env_id, policy in CASES:
        task = task_of(env_id)
        config = PPOConfig(
            network=NetworkConfig(env_id=env_id, policy=policy, layer_size=16),
            num_envs=8,
            num_steps=8,
            total_timesteps=8 * 8 * 3,
            num_minibatches=2,
            update_epochs=2,
        )
        ppo = PPO(config, task, *tables(config.network, task, cache_dir=None))

        @jax.jit
        def run(seed):
            runner, metrics = ppo.updates(ppo.init(jax.random.key(seed)), config.num_updates)
            return runner, metrics, ppo._rollout(runner)[1].ended  # one more rollout: which envs ended, per device

        runner, metrics, ended = run(np.uint32(0))
        name = f"{env_id}/{policy}"
        env_specs = {str(getattr(leaf.sharding, "spec", "one device")) for leaf in jax.tree.leaves(runner.env_state) if leaf.ndim > 0}
        report["cases"][name] = {
            "env_state_specs": sorted(env_specs),
            "params_replicated": all(leaf.sharding.is_fully_replicated for leaf in jax.tree.leaves(runner.params)),
            "ended_per_device": [int(np.asarray(shard.data).sum()) for shard in ended.addressable_shards],
            "traj_spec": str(ended.sharding.spec) if ppo.mesh is not None else None,
            "episodes": [int(e) for e in np.asarray(metrics["episodes"])],
        }
        for i, leaf in enumerate(jax.tree.leaves(runner.params)):
            saved[f"{name}/param{i}"] = np.asarray(leaf)
        for key in ("return", "success_rate", "entropy", "value_loss"):
            saved[f"{name}/{key}"] = np.asarray(metrics[key])
    np.savez(out, **saved)
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
