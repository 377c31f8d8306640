"""Every world as one float32 vector, for the JAX-RL trainers researchers already run.

``baselines.make(env_id, flat=True)`` returns ``(FlatEnv, FlatParams)``: a gymnax ``Environment``
whose observation is a ``Box`` of float32, the world's features (``Task.observe``: a Craftax
symbolic vector or [0, 1] image, the grid worlds' one-hot grids) flattened, then the frozen text
features of the episode's instruction (``baselines.text_encoders``, ``hashed`` by default). No
goal, phrasing or dataset index is in it: the instruction enters as text features only.

Options, for the step API a trainer was written for:

* ``legacy_step=True``: the 5-value step of gymnax 0.x and Craftax, ``(obs, state, reward, done,
  info)`` with ``done = terminated | truncated``; default: gymnax 1.x's 6 values.
* ``auto_reset=False``: a finished world is not reset inside ``step`` (for trainers that bring
  their own resets, as Craftax_Baselines' optimistic resets do); default: reset, as gymnax does.
* ``final_observation``: ``info["final_observation"]``, the observation before a reset (default:
  with the 1.x step, as gymnax 1.x; not with the legacy step, whose trainers keep every ``info``
  entry of every step).

``info`` holds the world's own keys (CrafText: ``success`` and Craftax's ``Achievements/<name>``),
``terminated`` and ``truncated``. The world's params, dataset arrays included, live in the env;
``FlatParams`` hold only ``max_steps_in_episode``, so they are hashable and serve as a static jit
argument, as Craftax_Baselines passes them; ``env.default_params`` are the world's defaults.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import environment, spaces
from jax import Array

from baselines.worlds.task import Task


@struct.dataclass
class FlatParams(environment.EnvParams):
    """The flat view's params: the episode limit alone (hashable; the world's arrays stay in the env)."""

    max_steps_in_episode: int = 1


class FlatEnv(environment.Environment):
    """A world's ``Task`` as a gymnax env of float32 vectors (module docstring)."""

    def __init__(
        self,
        task: Task,
        text_features: np.ndarray,
        legacy_step: bool = False,
        auto_reset: bool = True,
        final_observation: bool | None = None,
    ):
        self.task, self.world, self.world_params = task, task.env, task.params
        self.text_features = jnp.asarray(text_features, jnp.float32)
        self.legacy_step, self.auto_reset = legacy_step, auto_reset
        self.final_observation = not legacy_step if final_observation is None else final_observation
        obs, _ = jax.eval_shape(self.world.reset_env, jax.random.key(0), self.world_params)
        self.size = int(np.prod(jax.eval_shape(task.observe, obs).world.shape)) + self.text_features.shape[1]

    @property
    def name(self) -> str:
        return self.task.name

    @property
    def num_actions(self) -> int:
        return self.task.num_actions

    @property
    def default_params(self) -> FlatParams:
        return FlatParams(max_steps_in_episode=int(self.world_params.max_steps_in_episode))

    def _world_params(self, params: FlatParams | None) -> Any:
        params = self.default_params if params is None else params
        return self.world_params.replace(max_steps_in_episode=params.max_steps_in_episode)

    def flatten(self, obs: Any) -> Array:
        """(size,) float32: the world's features, then the instruction's text features."""
        seen = self.task.observe(obs)
        return jnp.concatenate([seen.world.reshape(-1).astype(jnp.float32), self.text_features[seen.text]])

    def reset_env(self, key: Array, params: FlatParams) -> tuple[Array, Any]:
        obs, state = self.world.reset_env(key, self._world_params(params))
        return self.flatten(obs), state

    def step_env(self, key: Array, state: Any, action: Array, params: FlatParams) -> tuple[Array, Any, Array, Array, dict]:
        obs, state, reward, terminated, info = self.world.step_env(key, state, action, self._world_params(params))
        return self.flatten(obs), state, reward, terminated, info

    def is_truncated(self, state: Any, params: FlatParams) -> Array:
        return self.world.is_truncated(state, self._world_params(params))

    def is_terminated(self, state: Any, params: FlatParams) -> Array:
        return self.world.is_terminated(state, self._world_params(params))

    @partial(jax.jit, static_argnums=0)
    def reset(self, key: Array, params: FlatParams | None = None) -> tuple[Array, Any]:
        return self.reset_env(key, self.default_params if params is None else params)

    @partial(jax.jit, static_argnums=0)
    def step(self, key: Array, state: Any, action: int | Array, params: FlatParams | None = None) -> tuple:
        """One step: gymnax 1.x's 6 values, or with ``legacy_step`` 0.x's 5 (``done`` = terminated |
        truncated); a finished world is reset unless ``auto_reset`` is False."""
        params = self.default_params if params is None else params
        key_step, key_reset = jax.random.split(key)
        obs, state, reward, terminated, info = self.step_env(key_step, state, action, params)
        truncated = self.is_truncated(state, params) & ~terminated
        info = {**info, "terminated": terminated, "truncated": truncated}
        if self.final_observation:
            info["final_observation"] = obs
        if self.auto_reset:
            done = terminated | truncated
            obs_reset, state_reset = self.reset_env(key_reset, params)
            obs = jnp.where(done, obs_reset, obs)
            state = jax.tree.map(lambda fresh, now: jax.lax.select(done, fresh, now), state_reset, state)
        if self.legacy_step:
            return obs, state, reward, terminated | truncated, info
        return obs, state, reward, terminated, truncated, info

    def observation_space(self, params: FlatParams | None = None) -> spaces.Box:
        """A float32 ``Box`` of shape (size,): unbounded (the worlds' features have no common bounds)."""
        return spaces.Box(-jnp.inf, jnp.inf, (self.size,), jnp.float32)

    def action_space(self, params: FlatParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)


def make_flat(
    env_id: str,
    legacy_step: bool = False,
    auto_reset: bool = True,
    final_observation: bool | None = None,
    encoder: str = "hashed",
    **task_settings,
) -> tuple[FlatEnv, FlatParams]:
    """``(FlatEnv, its default FlatParams)`` of a registered world id or alias with the world's
    default episodes (``task_settings`` go to the family's task builder); ``encoder``: the frozen
    text encoder of the instruction features (``baselines.text_encoders.make_encoder``)."""
    from baselines.text_encoders import DEFAULT_CACHE, embed, make_encoder
    from baselines.worlds import make_task

    task = make_task(env_id, **task_settings)
    env = FlatEnv(task, embed(make_encoder(encoder), task.texts, DEFAULT_CACHE), legacy_step, auto_reset, final_observation)
    return env, env.default_params


def to_gymnasium(env: FlatEnv, params: FlatParams | None = None, seed: int = 0):
    """A gymnasium ``Env`` of one world of a flat view (gymnax 1.x step): gymnax's
    ``GymnaxToGymWrapper`` with what gymnasium's ``check_env`` asks of it besides, a reset that
    seeds gymnasium's generator and numpy values on the host."""
    import gymnasium
    from gymnax.wrappers.gym import GymnaxToGymWrapper

    if env.legacy_step:
        raise ValueError("to_gymnasium takes a flat view with gymnax 1.x's step (legacy_step=False)")

    class GymnasiumEnv(GymnaxToGymWrapper):
        def reset(self, *, seed: int | None = None, options: dict | None = None):
            gymnasium.Env.reset(self, seed=seed)
            obs, info = super().reset(seed=seed, options=options)
            return np.asarray(obs), info

        def step(self, action):
            obs, reward, terminated, truncated, info = super().step(action)
            return np.asarray(obs), float(reward), bool(terminated), bool(truncated), jax.device_get(info)

    return GymnasiumEnv(env, params, seed)
