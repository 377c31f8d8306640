"""The worlds the benchmarks know, each with its reset strategy.

Cheap worlds use gymnax's own ``env.step`` (every finished world reset at once). Craftax-based
worlds, whose reset generates a whole world, use ``OptimisticResetVecEnv`` with ``reset_ratio`` 16,
the setting of the CrafText paper; the bare Craftax world is measured the same way beside CrafText.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from gymnax.environments import environment, spaces


@dataclass(frozen=True)
class BenchWorld:
    """make() -> (env, params); reset_ratio: optimistic resets (None: gymnax auto-reset);
    max_cpu_envs: the largest num_envs measured on a CPU (memory and time); step_budget /
    max_steps: env-steps per repeat and the longest scan (``rollout_steps``)."""

    make: Callable[[], tuple[Any, Any]]
    reset_ratio: int | None = None
    max_cpu_envs: int | None = None
    step_budget: int = 2**20
    max_steps: int = 2048


class BareCraftax(environment.Environment):
    """The real Craftax world (no auto-reset) behind the gymnax interface, without instructions."""

    def __init__(self, classic: bool = True):
        from craftax.craftax_env import make_craftax_env_from_params

        self.craftax = make_craftax_env_from_params(classic=classic, symbolic=True, auto_reset=False)

    @property
    def default_params(self):
        return self.craftax.default_params

    def reset_env(self, key, params):
        return self.craftax.reset_env(key, params)

    def step_env(self, key, state, action, params):
        obs, state, reward, done, _ = self.craftax.step_env(key, state, action, params)
        return obs, state, reward, done, {}

    def get_obs(self, state, params=None, key=None):
        return self.craftax.get_obs(state)

    def is_truncated(self, state, params):
        return jnp.bool_(False)  # Craftax's own done includes its time limit

    @property
    def num_actions(self) -> int:
        return self.craftax.num_actions

    def action_space(self, params=None):
        return spaces.Discrete(self.num_actions)


def _hexagons() -> tuple[Any, Any]:
    import hexagons

    return hexagons.make("Hexagons-Paint-v1")


def _blocksworld(env_id: str) -> Callable[[], tuple[Any, Any]]:
    def make() -> tuple[Any, Any]:
        import blocksworld

        return blocksworld.make(env_id)

    return make


def _bare_craftax() -> tuple[Any, Any]:
    env = BareCraftax(classic=True)
    return env, env.default_params


def _craftext() -> tuple[Any, Any]:
    """CrafText Classic with every goal of the full release's medium training split."""
    import craftext
    from craftext import dataset

    return craftext.make("CrafText-Classic-Symbolic-v1", dataset.load("medium", "train", release="full").pairs())


WORLDS: dict[str, BenchWorld] = {
    "Hexagons-Paint-v1": BenchWorld(_hexagons),
    "BlocksWorld-BAP-v1": BenchWorld(_blocksworld("BlocksWorld-BAP-v1")),
    "BlocksWorld-Build-v1": BenchWorld(_blocksworld("BlocksWorld-Build-v1")),
    "Craftax-Classic-Symbolic (bare)": BenchWorld(_bare_craftax, reset_ratio=16, max_cpu_envs=1024, step_budget=2**15, max_steps=64),
    "CrafText-Classic-Symbolic-v1": BenchWorld(_craftext, reset_ratio=16, max_cpu_envs=1024, step_budget=2**15, max_steps=64),
}
