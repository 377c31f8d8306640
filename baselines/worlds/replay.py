"""Worlds of episodes and exact replay.

``world_of(meta)`` is the (cached) ``baselines.worlds.World`` an episode was played in;
``replay(episode)`` rebuilds it from the episode's metadata, steps the episode's actions and fails
loudly (``ReplayMismatch``) when a reward, a termination flag or the final state's digest differs
from the recording. A ``Recording`` is an
episode being played and journaled (the browser player's and ``record``'s); ``record`` plays a
scripted policy (random, or the world's expert) into an episode file.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from baselines.worlds import world_spec
from baselines.worlds.episode import Episode, EpisodeError, Journal, provenance, state_digest
from baselines.worlds.session import World

if TYPE_CHECKING:
    from baselines.worlds.agents import Agent

POLICIES = ("random", "expert")
"""Scripted policies of ``record``."""


class ReplayMismatch(EpisodeError):
    """Replaying an episode did not give what was recorded."""


@functools.lru_cache(maxsize=8)
def _cached_world(spec_json: str, split: str) -> World:
    return World(json.loads(spec_json), split)


def world_of(meta: dict) -> World:
    """The (cached) world an episode was played in."""
    world = dict(meta["world"])
    split = world.pop("split")
    return _cached_world(json.dumps(world_spec(world), sort_keys=True), split)


@dataclass
class Replayed:
    """An episode replayed: ``states`` (T + 1, with the reset state first; only when kept),
    ``observations`` likewise, the final observation and state, its digest and the success flag."""

    final_obs: Any
    final_state: Any
    digest: str
    success: bool
    states: list
    observations: list


def _rerun(world: World, episode: Episode, keep_states: bool = False) -> Replayed:
    """Step an episode's actions from its start; raises ``ReplayMismatch`` at the first step whose
    reward or flags differ from the recorded ones (the digest is computed, not checked)."""
    meta = episode.meta
    obs, state = world.start(int(meta["text"]), episode.seed)
    states, observations = ([state], [obs]) if keep_states else ([], [])
    success = False
    for t, action in enumerate(episode.actions):
        out = world.step(state, int(action), episode.seed, t)
        recorded = (float(episode.rewards[t]), bool(episode.terminated[t]), bool(episode.truncated[t]))
        if (np.float32(out.reward), out.terminated, out.truncated) != (np.float32(recorded[0]), *recorded[1:]):
            raise ReplayMismatch(
                f"step {t}: recorded (reward, terminated, truncated) {recorded}, replayed "
                f"{(out.reward, out.terminated, out.truncated)}; recorded with {_made_by(meta)}, replayed with {provenance()}"
            )
        obs, state, success = out.obs, out.state, success or out.success
        if keep_states:
            states.append(state)
            observations.append(obs)
    return Replayed(obs, state, state_digest(state), success, states, observations)


def _made_by(meta: dict) -> dict:
    return {k: meta.get(k) for k in ("package", "git", "jax", "backend")}


def replay(episode: Episode, keep_states: bool = False) -> Replayed:
    """Regenerate an episode from its world, seed and actions; raises ``ReplayMismatch`` naming the
    first step whose reward or flags differ, or a final-state digest that differs (a different
    package version, jax or backend than the recording's, listed in the message)."""
    meta = episode.meta
    replayed = _rerun(world_of(meta), episode, keep_states)
    if replayed.digest != meta["final_state_sha256"]:
        raise ReplayMismatch(
            f"final state sha256 {replayed.digest[:16]}... differs from the recorded {str(meta['final_state_sha256'])[:16]}...; "
            f"recorded with {_made_by(meta)}, replayed with {provenance()}"
        )
    return replayed


class Recording:
    """An episode being played in a world and journaled step by step (``Journal``): ``act`` steps
    the world with a feasible action and records it; when the episode ends (terminated or
    truncated) or ``close`` ends it early, the episode file is written (``file``)."""

    def __init__(self, world: World, journal: Journal, obs: Any, state: Any, success: bool = False):
        self.world, self.journal, self.obs, self.state, self.success = world, journal, obs, state, success
        self.file: Path | None = None
        self.discarded = False

    @classmethod
    def begin(
        cls, world: World, text: int, seed: int, path: str | Path, source: str, extra: dict | None = None, lazy: bool = False
    ) -> Recording:
        """A new episode of instruction ``text`` with ``seed``, journaled at ``path`` (.jsonl);
        ``extra`` adds fields to its metadata; ``lazy``: the journal is written from the first step on
        (``Journal.begin``)."""
        obs, state = world.start(text, seed)
        return cls(world, Journal.begin(Path(path), {**world.meta(text, seed, source), **(extra or {})}, lazy=lazy), obs, state)

    @classmethod
    def resume(cls, world: World, path: str | Path) -> Recording:
        """The unfinished episode of journal ``path``, its steps replayed and checked (``ReplayMismatch``
        names the journal and the step)."""
        journal = Journal.open(path)
        try:
            replayed = _rerun(world, journal.so_far())
        except ReplayMismatch as error:
            raise ReplayMismatch(f"{path}: {error}") from None
        return cls(world, journal, replayed.final_obs, replayed.final_state, replayed.success)

    @property
    def ended(self) -> bool:
        return self.file is not None or self.discarded

    def discard(self) -> None:
        """End an episode in which nothing was played, leaving no file."""
        if self.journal.steps:
            raise ValueError("an episode with steps is saved (close), never discarded")
        self.discarded = True

    def act(self, action: int) -> None:
        """Step with ``action`` and record it; ValueError if the episode has ended or the action is
        not feasible now."""
        if self.ended:
            raise ValueError("the episode has ended: start a new one")
        if not 0 <= action < self.world.task.num_actions or not self.world.mask(self.obs)[action]:
            raise ValueError(f"action {action} is not feasible now")
        seed, t = int(self.journal.meta["seed"]), len(self.journal.steps)
        out = self.world.step(self.state, action, seed, t)
        self.journal.append(action, out.reward, out.terminated, out.truncated)
        self.obs, self.state, self.success = out.obs, out.state, self.success or out.success
        if out.terminated or out.truncated:
            self.close()

    def close(self) -> Path:
        """Write the episode file (once) and remove the journal; returns the file."""
        if self.file is None:
            self.file = self.journal.close(state_digest(self.state), self.success)
        return self.file


def record(world: World, policy: str | Agent, text: int, seed: int, path: str | Path, max_steps: int | None = None) -> Path:
    """Play one episode and write it to ``path`` (a ``Recording``). ``policy``: ``random`` (uniform
    over the feasible actions, drawn from ``seed``), ``expert`` (the world's gold next action,
    ``Task.expert``: the grid worlds, and CrafText goal sets that ``craftext.expert`` covers), or a
    step-by-step agent (``baselines.worlds.agents.Agent``). Stops when the episode ends or after ``max_steps``
    (default: the world's ``max_episode_steps``)."""
    agent = None if isinstance(policy, str) else policy
    if agent is None and policy not in POLICIES:
        raise ValueError(f"policy {policy!r}: use one of {', '.join(POLICIES)}")
    if policy == "expert" and world.task.expert is None:
        raise ValueError(f"{world.env_id} has no expert for this split's goals (Task.expert); use policy random")
    recording = Recording.begin(world, text, seed, path, f"agent:{policy if agent is None else agent.name}")
    rng = np.random.default_rng(seed)
    if agent is not None:
        agent.reset(seed)
    for t in range(max_steps or world.spec["max_episode_steps"]):
        if recording.ended:
            break
        if isinstance(policy, str):
            action = world.scripted(policy, recording.obs, recording.state, rng)
        else:
            action = policy.act(recording.obs, t)
        recording.act(action)
    return recording.close()
