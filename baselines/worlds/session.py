"""A registered world's split as a session of episodes, one step at a time.

``World`` is a world spec (``baselines.worlds.world_spec``) on one split with its start and step
compiled once and the key rule of ``baselines.worlds.episode`` applied: what records (the
browser player, ``record``, the LLM agent, the text datasets) and what replays, so that exact
replay holds.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from baselines.worlds.episode import SCHEMA, now_utc, provenance, reset_key, step_key
from baselines.worlds.registry import spec_task, world_spec
from baselines.worlds.task import Task


@dataclass(frozen=True)
class Step:
    """What one step returned: obs, state, reward (float), terminated, truncated, success (bools)
    and scores (``Task.score`` of the step: metric -> (value, count), () arrays read only by those
    who need them)."""

    obs: Any
    state: Any
    reward: float
    terminated: bool
    truncated: bool
    success: bool
    scores: dict[str, tuple[Any, Any]]


class World:
    """A world's split, compiled for episodes: ``start(text, seed)`` and ``step(state, action, seed, t)``
    (unbatched, one jitted function each, params passed as arguments)."""

    def __init__(self, spec: dict, split: str):
        self.spec, self.split = world_spec(spec), split
        self.task: Task = spec_task(self.spec, split)
        task = self.task

        def start(key, text, params):
            return task.start(key, text, params)

        def step(state, action, seed, t, params, last):
            obs, state, reward, terminated, info = task.env.step_env(step_key(seed, t), state, action, params)
            truncated = task.env.is_truncated(state, params)
            return obs, state, reward, terminated, truncated, task.success(info), task.score(info, terminated | last)

        self._start, self._step = jax.jit(start), jax.jit(step)
        self._expert = jax.jit(task.expert) if task.expert is not None else None
        self._relabel = jax.jit(task.relabel) if task.relabel is not None else None

    def compile(self) -> None:
        """Compile start and step now (a player's first request would otherwise wait for it)."""
        obs, state = self.start(0, 0)
        self.step(state, int(np.flatnonzero(self.mask(obs))[0]), 0, 0)

    @property
    def env_id(self) -> str:
        return self.spec["env"]

    def start(self, text: int, seed: int) -> tuple[Any, Any]:
        """(obs, state) of an episode of instruction ``text`` with ``seed``."""
        if not 0 <= text < len(self.task.texts):
            raise ValueError(f"text id {text} outside this split's {len(self.task.texts)} instructions")
        if not 0 <= seed < 2**32:
            raise ValueError(f"seed {seed} is not a uint32 (0 .. 2**32 - 1)")
        return self._start(reset_key(seed), np.int32(text), self.task.params)

    def step(self, state: Any, action: int, seed: int, t: int, last: bool = False) -> Step:
        """Step ``t`` of the episode of ``seed``; ``last``: scored as the episode's end whether or
        not it ends (an evaluation's step limit)."""
        obs, state, reward, terminated, truncated, success, scores = self._step(
            state, np.int32(action), np.uint32(seed), np.int32(t), self.task.params, np.bool_(last)
        )
        return Step(obs, state, float(reward), bool(terminated), bool(truncated), bool(success), scores)

    def scripted(self, policy: str, obs: Any, state: Any, rng: np.random.Generator) -> int:
        """The action of a scripted policy: ``random`` (uniform over the feasible actions of
        ``obs``, drawn from ``rng``) or ``expert`` (``expert(state)``)."""
        return self.expert(state) if policy == "expert" else int(rng.choice(np.flatnonzero(self.mask(obs))))

    def relabel(self, obs: Any, text: int) -> Any:
        """``obs`` showing text id ``text`` in place of its own instruction (``Task.relabel``,
        compiled once); ValueError for a world that cannot."""
        if self._relabel is None:
            raise ValueError(f"{self.env_id} cannot show an observation another instruction (Task.relabel)")
        return self._relabel(obs, np.int32(text), self.task.params)

    @functools.cached_property
    def opening_texts(self) -> np.ndarray:
        """(len(texts),) bool: the instruction ids an episode starts by showing (not a Hexagons
        procedure's later steps); found by starting every one (one batched call)."""
        texts = np.arange(len(self.task.texts), dtype=np.int32)
        obs, _ = jax.jit(jax.vmap(self.task.start, in_axes=(None, 0, None)))(reset_key(0), texts, self.task.params)
        return np.asarray(jax.vmap(self.task.observe)(obs).text) == texts

    def schedule(self, episode: int) -> int:
        """The instruction id of the ``episode``-th episode of a session: the split's goals in
        turn, and within a goal its opening instructions (phrasings) in turn."""
        goal = episode % len(self.task.goals)
        openings = np.flatnonzero((self.task.text_goal == goal) & self.opening_texts)
        return int(openings[(episode // len(self.task.goals)) % len(openings)])

    def expert(self, state: Any) -> int:
        """The world's gold next action in ``state`` (``Task.expert``, compiled once; only for
        worlds that have one)."""
        if self._expert is None:
            raise ValueError(f"{self.env_id} has no scripted expert for these goals")
        return int(self._expert(state, self.task.params))

    @property
    def identity(self) -> dict:
        """What an episode records as its ``world``: the spec and the split."""
        return {**self.spec, "split": self.split}

    def instruction(self, obs: Any) -> str:
        """The instruction an observation shows (it changes within a Hexagons procedure)."""
        return self.task.texts[int(self.task.observe(obs).text)]

    def procedure(self, text: int) -> list[str]:
        """Every instruction an episode started from text id ``text`` shows, in order, whether or
        not a player reaches it (one for most worlds; a Hexagons procedure's steps)."""
        ids = self.task.procedure(int(text)) if self.task.procedure else (int(text),)
        return [self.task.texts[t] for t in ids]

    def mask(self, obs: Any) -> np.ndarray:
        """(num_actions,) bool feasible actions of an observation."""
        return np.asarray(self.task.observe(obs).mask)

    def meta(self, text: int, seed: int, source: str) -> dict:
        """The metadata of a new episode (``episode`` module docstring) before it is played."""
        goal = self.task.goals[int(self.task.text_goal[text])]["key"]
        return {
            "schema": SCHEMA,
            "env": self.env_id,
            "world": self.identity,
            "text": int(text),
            "goal": goal,
            "instruction": self.task.texts[text],
            "seed": int(np.uint32(seed)),
            "source": source,
            **provenance(),
            "created": now_utc(),
        }
