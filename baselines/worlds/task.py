"""The observation interface of every world: a ``Task`` is a registered env and its params with
what a language-conditioned policy needs.

A ``Task`` turns each world's own observation into ``Observed``: the world features, the id of the
instruction in the task's instruction table (``texts``), and the action mask. The frozen text
encoders embed ``texts`` once, outside the jit; inside it the policy looks embeddings up by id.
Each family builds its tasks (``baselines.worlds.<family>``); ``baselines.worlds.make_task`` gives
the task of any registered id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from jax import Array


@struct.dataclass
class Observed:
    """world: float32 features, (D,) or (H, W, C); text: () int32 id into ``Task.texts``;
    mask: (num_actions,) bool, True where the action is feasible."""

    world: Array
    text: Array
    mask: Array


@dataclass(frozen=True)
class PlacedCells:
    """An agent-side channel: the cells of the agent's view that hold a block it placed itself,
    worked out from its own consecutive observations alone (the world's observation is unchanged;
    the agent keeps what it needs between steps).

    size: floats the agent keeps between steps (zeros: no earlier observation); map_shape:
    (H, W, C + 1) of the map in the marked features; mark(memory (size,), world (D,)) -> (memory,
    marked world (D + H * W,)): the features with the marks appended as the map's last channel.
    """

    size: int
    map_shape: tuple[int, ...]
    mark: Callable[[Array, Array], tuple[Array, Array]]


@dataclass(frozen=True, kw_only=True)
class Task:
    """A world ready for the baselines.

    texts: the instruction table (index = ``Observed.text``; a world may pad it with empty rows,
    as Hexagons pads every procedure to ``max_instructions`` steps). text_goal: (len(texts),) int goal id
    of each text. goals: one label dict per goal (``key``, and optionally labels such as
    ``category`` and ``level`` that evaluation tables group by). observe(obs) -> ``Observed``.
    start(key, text, params) -> (obs, state): an episode of the goal of text id ``text``, shown that
    text (jittable). success(info) -> () bool: the step completed what the instruction asks.
    score(info, ended) -> metric -> (value, count) of one step for the evaluator, summed over an
    episode; ``metrics`` names them, the headline first (default: ``success`` counted once per
    episode, at its end). reset_ratio: optimistic-reset ratio. action_factors: the mixed-radix
    layout of the first ``prod(action_factors)`` actions (for factored policy heads; empty: no
    such structure). expert(state, params) -> () int32: the world's gold next action in an env
    state (a demonstrator for imitation; None: the world has none for these goals). goal_objects:
    the goals themselves, where planners can read them. procedure(text) -> the text ids an episode
    started from text id ``text`` shows, in order (None: that one text; a Hexagons procedure has
    several). map_shape: (H, W, C) when the first H * W * C features of a vector world are a map,
    channels last (what a convolutional world encoder reads; empty: no such layout).
    relabel(obs, text, params) -> obs: the observation showing text id ``text`` in place of its
    own instruction, the world features unchanged (the blind control of an agent that reads
    observations itself, ``python -m baselines.evaluate --step-by-step``; None: the world cannot).
    placed_cells: how an agent marks the cells of its view holding blocks it placed itself
    (``PlacedCells``; None: the world has no such layout).
    """

    name: str
    env: Any
    params: Any
    texts: tuple[str, ...]
    text_goal: np.ndarray
    goals: tuple[dict, ...]
    observe: Callable[[Any], Observed]
    start: Callable[[Array, Array, Any], tuple[Any, Any]]
    success: Callable[[dict], Array]
    score: Callable[[dict, Array], dict[str, tuple[Array, Array]]] = None  # type: ignore[assignment]
    metrics: tuple[str, ...] = ("success",)
    reset_ratio: int = 1
    action_factors: tuple[int, ...] = ()
    expert: Callable[[Any, Any], Array] | None = None
    goal_objects: tuple[Any, ...] = field(default=(), repr=False)
    procedure: Callable[[int], tuple[int, ...]] | None = None
    map_shape: tuple[int, ...] = ()
    relabel: Callable[[Any, Array, Any], Any] | None = None
    placed_cells: PlacedCells | None = None

    def __post_init__(self):
        if self.score is None:
            object.__setattr__(self, "score", self._success_at_end)

    def _success_at_end(self, info: dict, ended: Array) -> dict[str, tuple[Array, Array]]:
        return {"success": (self.success(info).astype(jnp.float32), ended.astype(jnp.float32))}

    @property
    def num_actions(self) -> int:
        return self.env.num_actions

    @property
    def pixels(self) -> bool:
        """Whether the world features are an image (H, W, C)."""
        world = jax.eval_shape(lambda: self.observe(self.env.reset(jax.random.key(0), self.params)[0]).world)
        return len(world.shape) == 3


def all_feasible(num_actions: int) -> Array:
    """(num_actions,) True: the mask of a world without infeasible actions."""
    return jnp.ones(num_actions, bool)


def plain_task(name: str, env: Any, params: Any, reset_ratio: int = 1) -> Task:
    """A world without instructions as a ``Task``: one empty instruction, the world's own (array)
    observation as the features, every action feasible, never a success (``success`` reads the
    vector env's ``info["terminated"]`` for its shape). The same policy and PPO then train on it,
    e.g. a family's ``Reference`` world in the training benchmark."""

    def observe(obs) -> Observed:
        return Observed(jnp.asarray(obs, jnp.float32), jnp.int32(0), all_feasible(env.num_actions))

    def start(key: Array, text: Array, params: Any):
        return env.reset_env(key, params)

    return Task(
        name=name,
        env=env,
        params=params,
        texts=("",),
        text_goal=np.zeros(1, np.int32),
        goals=({"key": "none"},),
        observe=observe,
        start=start,
        success=lambda info: jnp.zeros_like(info["terminated"]),
        score=lambda info, ended: {"success": (jnp.zeros(ended.shape, jnp.float32), ended.astype(jnp.float32))},
        reset_ratio=reset_ratio,
    )
