"""CrafText envs: the real Craftax worlds (no-auto-reset variant inside) with one instruction per
episode and its JIT-compiled checker.

``CrafText-Classic-Symbolic-v1``, ``CrafText-Classic-Pixels-v1``, ``CrafText-Symbolic-v1``,
``CrafText-Pixels-v1``. Observation: the Craftax observation, the instruction as padded token ids,
its index in the dataset and its goal's index. Reward: 1 on success plus the Craftax reward times
``craftax_reward_scale`` (default 1/50). The episode terminates on success or death and is
truncated at ``max_steps_in_episode``; ``info["success"]`` flags success. A new episode draws a goal
uniformly, then one of its phrasings uniformly, with a key of its own. ``set_goal`` replaces the
instruction mid-episode and restarts the checker memory.

Goals and phrasings travel in ``EnvParams`` (``make_params``), so one compiled step serves every
split of a dataset with the same capacities.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax_env import make_craftax_env_from_params
from flax import struct
from gymnax.environments import environment, spaces
from jax import Array

from craftext.checkers import MEMORY_INIT, step_events, update
from craftext.goals import Goal
from craftext.tokenizer import Vocabulary
from craftext.world import frame, version

NEVER = 2**30  # Craftax's own time limit, disabled: the suite truncates with max_steps_in_episode


@struct.dataclass
class EnvState(environment.EnvState):
    """world: the Craftax state; goal: (20,) encoding; memory: (10,) checker memory; placed: bool
    map of cells holding a block the agent placed (Craftax map shape)."""

    world: object
    goal: Array
    goal_index: Array
    instruction: Array
    memory: Array
    placed: Array


@struct.dataclass
class EnvParams:
    """goals: (G, 20) int32; phrase_start / phrase_count: (G,) the phrasings of each goal in
    ``tokens`` (P, L) int32; phrase_goal: (P,) goal of each phrasing; num_goals: valid goals."""

    craftax: object
    goals: Array
    phrase_start: Array
    phrase_count: Array
    phrase_goal: Array
    tokens: Array
    num_goals: Array
    craftax_reward_scale: float = 1.0 / 50.0
    max_steps_in_episode: int = 10_000


@struct.dataclass
class Observation:
    """world: the Craftax observation (flat symbolic vector or (H, W, 3) pixels); instruction: (L,)
    int32 token ids; instruction_index: () index of the phrasing; goal_index: () index of its goal."""

    world: Array
    instruction: Array
    instruction_index: Array
    goal_index: Array


def _strong(leaf: Array | int | float) -> Array:
    """The leaf as an array of definite dtype, so that reset and step states have identical types."""
    leaf = jnp.asarray(leaf)
    if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
        return leaf
    return jnp.asarray(leaf, dtype=leaf.dtype)


class CrafText(environment.Environment[EnvState, EnvParams]):
    """Craftax with instructions; see the module docstring."""

    def __init__(self, vocabulary: Vocabulary, classic: bool = True, pixels: bool = False, max_tokens: int = 72):
        self.vocabulary, self.classic, self.pixels, self.max_tokens = vocabulary, classic, pixels, max_tokens
        self.version = version(classic)
        self.craftax = make_craftax_env_from_params(classic=classic, symbolic=not pixels, auto_reset=False)

    def make_params(self, goals: Sequence[tuple[Goal, Sequence[str]]], **settings) -> EnvParams:
        """Params for ``(goal, phrasings)`` pairs; ``settings`` override the scalar fields."""
        if not goals:
            raise ValueError("no goals")
        rows, starts, counts, phrase_goal, tokens = [], [], [], [], []
        for g, (goal, phrasings) in enumerate(goals):
            if goal.classic != self.classic:
                raise ValueError(f"goal {goal.key()} is for {'Classic' if goal.classic else 'full'} Craftax")
            if not phrasings:
                raise ValueError(f"goal {goal.key()} has no phrasing")
            rows.append(goal.encode())
            starts.append(len(tokens))
            counts.append(len(phrasings))
            for text in phrasings:
                tokens.append(self.vocabulary.encode(text, self.max_tokens))
                phrase_goal.append(g)
        return EnvParams(
            craftax=self.craftax.default_params.replace(max_timesteps=NEVER),
            goals=jnp.asarray(np.stack(rows)),
            phrase_start=jnp.asarray(starts, jnp.int32),
            phrase_count=jnp.asarray(counts, jnp.int32),
            phrase_goal=jnp.asarray(phrase_goal, jnp.int32),
            tokens=jnp.asarray(np.stack(tokens)),
            num_goals=jnp.asarray(len(goals), jnp.int32),
            **settings,
        )

    @functools.cached_property
    def default_params(self) -> EnvParams:
        """Params of the shipped medium training set of this Craftax version."""
        from craftext.dataset import load

        return self.make_params(load("medium", "train", classic=self.classic).pairs())

    # ----------------------------------------------------------------- dynamics
    def reset_env(self, key: Array, params: EnvParams) -> tuple[Observation, EnvState]:
        key_world, key_goal, key_phrase = jax.random.split(key, 3)
        _, world = self.craftax.reset_env(key_world, params.craftax)
        world = jax.tree.map(_strong, world)  # Craftax's reset leaves Python scalars weakly typed
        goal_index = jax.random.randint(key_goal, (), 0, params.num_goals)
        instruction = params.phrase_start[goal_index] + jax.random.randint(key_phrase, (), 0, params.phrase_count[goal_index])
        state = EnvState(
            time=jnp.int32(0),
            world=world,
            goal=params.goals[goal_index],
            goal_index=goal_index,
            instruction=instruction,
            memory=jnp.asarray(MEMORY_INIT),
            placed=jnp.zeros(world.map.shape, bool),
        )
        return self.get_obs(state, params), state

    def set_goal(self, state: EnvState, instruction: int | Array, params: EnvParams) -> EnvState:
        """Replace the instruction (a phrasing index) mid-episode; the checker memory restarts."""
        instruction = jnp.asarray(instruction, jnp.int32)
        goal_index = params.phrase_goal[instruction]
        return state.replace(goal=params.goals[goal_index], goal_index=goal_index, instruction=instruction, memory=jnp.asarray(MEMORY_INIT))

    def step_env(
        self, key: Array, state: EnvState, action: int | Array, params: EnvParams
    ) -> tuple[Observation, EnvState, Array, Array, dict]:
        action = jnp.asarray(action, jnp.int32)
        _, world, world_reward, dead, _ = self.craftax.step_env(key, state.world, action, params.craftax)
        time = state.time + 1
        events, placed = step_events(frame(state.world, self.classic), frame(world, self.classic), action, state.placed, time, self.version.view)
        success, memory = update(state.goal, state.memory, events)
        state = state.replace(time=time, world=world, memory=memory, placed=placed)
        reward = success.astype(jnp.float32) + params.craftax_reward_scale * world_reward
        return self.get_obs(state, params), state, reward, success | dead, {"success": success}

    def get_obs(self, state: EnvState, params: EnvParams, key: Array | None = None) -> Observation:
        return Observation(
            world=self.craftax.get_obs(state.world),
            instruction=params.tokens[state.instruction],
            instruction_index=state.instruction,
            goal_index=state.goal_index,
        )

    @property
    def name(self) -> str:
        return f"CrafText-{'Classic-' if self.classic else ''}{'Pixels' if self.pixels else 'Symbolic'}-v1"

    @property
    def num_actions(self) -> int:
        return self.craftax.num_actions

    def action_space(self, params: EnvParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def action_mask(self, state: EnvState, params: EnvParams) -> Array:
        """(num_actions,) all True: Craftax accepts every action in every state (one whose
        requirements are unmet changes nothing of the player, while the world still moves on)."""
        return jnp.ones(self.num_actions, bool)

    def observation_space(self, params: EnvParams) -> spaces.Dict:
        world = self.craftax.observation_space(params.craftax)
        return spaces.Dict(
            {
                "world": spaces.Box(world.low, world.high, world.shape, world.dtype),
                "instruction": spaces.Box(0, len(self.vocabulary) - 1, (self.max_tokens,), jnp.int32),
                "instruction_index": spaces.Discrete(params.tokens.shape[0]),
                "goal_index": spaces.Discrete(params.goals.shape[0]),
            }
        )


