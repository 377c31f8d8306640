"""CrafText envs: the real Craftax worlds (no-auto-reset variant inside) with one instruction per
episode and its JIT-compiled checker.

``CrafText-Classic-Symbolic-v1``, ``CrafText-Classic-Pixels-v1``, ``CrafText-Symbolic-v1``,
``CrafText-Pixels-v1``. Observation: the Craftax observation (the pixel views' as uint8 images),
the instruction as padded token ids, its index in the dataset and its goal's index. Reward: 1 on
success plus the Craftax reward times ``craftax_reward_scale`` (default 1/50). The episode
terminates on success or death and is truncated at ``max_steps_in_episode``; ``info["success"]``
flags success, and Craftax's own ``Achievements/<name>`` (100 for each achievement unlocked) come
on the step that ends the episode. A new episode draws a goal uniformly, then one of its
phrasings uniformly, with a key of its own. ``set_goal`` replaces the instruction mid-episode and
restarts the checker memory (an achievement already unlocked in the episode cannot be unlocked
again, so a goal that requires it cannot succeed after the switch).

Actions: Craftax's own (17 in Classic, 43 in full Craftax); every one is legal in every state (one
whose requirements are unmet changes nothing of the player, while the world moves on). An action
outside ``[0, num_actions)`` is played as NOOP. ``step_env`` on a finished episode (success or
death) is absorbing: the state stays as it is, reward 0, terminated.

Goals and phrasings travel in ``EnvParams`` (``make_params``), so one compiled step serves every
split of a dataset with the same capacities (``capacity=`` pads splits to common shapes).
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

from craftext import text
from craftext.checkers import initial_memory, step_events, update
from craftext.dataset import Dataset, load
from craftext.expert import expert_action
from craftext.goals import ENCODING_SIZE, Goal
from craftext.kg import action_mask, graph, schema, valid_actions
from craftext.tokenizer import Vocabulary
from craftext.world import NOOP, frame, keyboard, version

MANUAL = (
    "You play Craftax, a 2-D Minecraft: you see the cells around you on a map of rows and columns (north is up). "
    "Collect wood from trees, stone with a wood pickaxe, coal and iron likewise (iron needs a stone pickaxe, diamond an "
    "iron pickaxe); tools are made near a crafting table (iron ones also near a furnace); keep health, food, drink and "
    "energy up by eating, drinking water and sleeping. Moving turns you to face that way; DO acts on the cell you face."
)
ACTION_HELP = {
    "noop": "do nothing",
    "left": "face and move west",
    "right": "face and move east",
    "up": "face and move north",
    "down": "face and move south",
    "do": "collect, attack, drink or eat what you face",
    "sleep": "sleep until rested",
    "place_stone": "put stone on the cell you face",
    "place_table": "build a crafting table (wood)",
    "place_furnace": "build a furnace (stone)",
    "place_plant": "plant a sapling on grass",
    "make_wood_pickaxe": "craft a wood pickaxe at a table",
    "make_stone_pickaxe": "craft a stone pickaxe",
    "make_iron_pickaxe": "craft an iron pickaxe (table and furnace)",
    "make_wood_sword": "craft a wood sword",
    "make_stone_sword": "craft a stone sword",
    "make_iron_sword": "craft an iron sword (table and furnace)",
}
BLOCK_PIXELS = 16  # pixels per block of ``CrafText.render`` (Craftax's image size)
NEVER = 2**30  # Craftax's own time limit, disabled: the suite truncates with max_steps_in_episode


@struct.dataclass
class EnvState(environment.EnvState):
    """world: the Craftax state; goal: (20,) encoding; memory: (10,) checker memory; placed: bool
    map of cells holding a block the agent placed (Craftax map shape); done: the episode ended
    (success or death)."""

    world: object
    goal: Array
    goal_index: Array
    instruction: Array
    memory: Array
    placed: Array
    done: Array


@struct.dataclass(kw_only=True)
class EnvParams(environment.EnvParams):
    """A gymnax ``EnvParams`` (keyword-only). goals: (G, 20) int32; phrase_start / phrase_count:
    (G,) the phrasings of each goal in ``tokens`` (P, L) int32; phrase_goal: (P,) goal of each
    phrasing; num_goals: valid goals (rows past it pad the arrays to a capacity)."""

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
    """world: the Craftax observation: a flat float32 symbolic vector, or (H, W, 3) uint8 pixels
    (Craftax's image in [0, 1] times 255, rounded); instruction: (L,) int32 token ids;
    instruction_index: () index of the phrasing; goal_index: () index of its goal."""

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
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
        self.vocabulary, self.classic, self.pixels, self.max_tokens = vocabulary, classic, pixels, max_tokens
        self.version = version(classic)
        self.craftax = make_craftax_env_from_params(classic=classic, symbolic=not pixels, auto_reset=False)

    def make_params(
        self, goals: Sequence[tuple[Goal, Sequence[str]]] | Dataset, capacity: tuple[int, int] | None = None, **settings
    ) -> EnvParams:
        """Params for ``(goal, phrasings)`` pairs or a ``Dataset`` (e.g. ``craftext.goalfile.load_goals(FILE)``,
        all its splits); ``capacity=(goals, phrasings)`` pads the arrays to
        those sizes (so every split shares one compiled step); ``settings`` override the scalar
        fields. Raises ``ValueError`` naming what is wrong."""
        if isinstance(goals, Dataset):
            goals = goals.pairs()
        if not goals:
            raise ValueError("no goals")
        _check_settings(settings)
        rows: list[np.ndarray] = []
        starts: list[int] = []
        counts: list[int] = []
        phrase_goal: list[int] = []
        tokens: list[np.ndarray] = []
        for g, (goal, phrasings) in enumerate(goals):
            if not isinstance(goal, Goal):
                raise ValueError(f"goals[{g}]: expected a craftext.Goal, got {type(goal).__name__}")
            if goal.classic != self.classic:
                raise ValueError(f"goal {goal.key()} is for {'Classic' if goal.classic else 'full'} Craftax")
            if isinstance(phrasings, str) or not phrasings:
                raise ValueError(f"goal {goal.key()}: phrasings must be a non-empty list of strings")
            rows.append(goal.encode())
            starts.append(len(tokens))
            counts.append(len(phrasings))
            for phrasing in phrasings:
                tokens.append(self.vocabulary.encode(phrasing, self.max_tokens))
                phrase_goal.append(g)
        num_goals, num_texts = capacity if capacity is not None else (len(rows), len(tokens))
        if num_goals < len(rows) or num_texts < len(tokens):
            raise ValueError(f"capacity {capacity} is smaller than the {len(rows)} goals and {len(tokens)} phrasings given")
        pad_goals, pad_texts = num_goals - len(rows), num_texts - len(tokens)
        return EnvParams(
            craftax=self.craftax.default_params.replace(max_timesteps=NEVER),
            goals=jnp.asarray(np.concatenate([np.stack(rows), np.repeat(rows[:1], pad_goals, 0)])),
            phrase_start=jnp.asarray(starts + [0] * pad_goals, jnp.int32),
            phrase_count=jnp.asarray(counts + [1] * pad_goals, jnp.int32),
            phrase_goal=jnp.asarray(phrase_goal + [0] * pad_texts, jnp.int32),
            tokens=jnp.asarray(np.concatenate([np.stack(tokens), np.zeros((pad_texts, self.max_tokens), np.int32)])),
            num_goals=jnp.asarray(len(goals), jnp.int32),
            **settings,
        )

    def check_params(self, params: EnvParams) -> None:
        """Raise ``ValueError`` naming the field if ``params`` do not fit this env's shapes (runs
        while tracing, so a mismatch fails before anything is compiled)."""
        goals = params.goals.shape[0]
        expected = {
            "goals": (goals, ENCODING_SIZE),
            "phrase_start": (goals,),
            "phrase_count": (goals,),
            "tokens": (params.phrase_goal.shape[0], self.max_tokens),
            "num_goals": (),
        }
        for name, shape in expected.items():
            if getattr(params, name).shape != shape:
                raise ValueError(
                    f"EnvParams.{name} has shape {getattr(params, name).shape}; this {self.name} env needs {shape} "
                    f"(params made by an env with other max_tokens?)"
                )

    @functools.cached_property
    def default_params(self) -> EnvParams:
        """Params of the shipped medium training set of this Craftax version."""
        return self.make_params(load("medium", "train", classic=self.classic).pairs())

    # ----------------------------------------------------------------- dynamics
    def reset_env(self, key: Array, params: EnvParams) -> tuple[Observation, EnvState]:
        self.check_params(params)
        key_world, key_goal, key_phrase = jax.random.split(key, 3)
        world_obs, world = self.craftax.reset_env(key_world, params.craftax)
        world = jax.tree.map(_strong, world)  # Craftax's reset leaves Python scalars weakly typed
        goal_index = jax.random.randint(key_goal, (), 0, params.num_goals)
        instruction = params.phrase_start[goal_index] + jax.random.randint(key_phrase, (), 0, params.phrase_count[goal_index])
        goal = params.goals[goal_index]
        state = EnvState(
            time=jnp.int32(0),
            world=world,
            goal=goal,
            goal_index=goal_index,
            instruction=instruction,
            memory=initial_memory(goal, frame(world, self.classic), self.version),
            placed=jnp.zeros(world.map.shape, bool),
            done=jnp.bool_(False),
        )
        return self._observation(world_obs, state, params), state

    def set_goal(self, state: EnvState, instruction: int | Array, params: EnvParams) -> EnvState:
        """Replace the instruction (a phrasing index) mid-episode; the checker memory restarts from
        the world as it is now. Craftax unlocks each achievement once per episode: a goal requiring
        one the agent already has cannot succeed in this episode."""
        instruction = jnp.asarray(instruction, jnp.int32)
        goal_index = params.phrase_goal[instruction]
        goal = params.goals[goal_index]
        memory = initial_memory(goal, frame(state.world, self.classic), self.version)
        return state.replace(goal=goal, goal_index=goal_index, instruction=instruction, memory=memory)

    def is_terminated(self, state: EnvState, params: EnvParams) -> Array:
        """() bool: the episode ended (success or death); gymnax's ``discount`` is 0 then."""
        return state.done

    def step_env(
        self, key: Array, state: EnvState, action: int | Array, params: EnvParams
    ) -> tuple[Observation, EnvState, Array, Array, dict]:
        self.check_params(params)
        action = jnp.asarray(action, jnp.int32)
        action = jnp.where((action >= 0) & (action < self.num_actions), action, NOOP)
        _, world, world_reward, dead, _ = self.craftax.step_env(key, state.world, action, params.craftax)
        time = state.time + 1
        events, placed = step_events(frame(state.world, self.classic), frame(world, self.classic), action, state.placed, time, self.version)
        success, memory = update(state.goal, state.memory, events)
        stepped = state.replace(time=time, world=world, memory=memory, placed=placed, done=success | dead)
        # A finished episode is absorbing: nothing changes, no reward, still terminated.
        new = jax.tree.map(lambda old, now: jnp.where(state.done, old, now), state, stepped)
        success = success & ~state.done
        reward = jnp.where(state.done, 0.0, success.astype(jnp.float32) + params.craftax_reward_scale * world_reward)
        ended = (new.done | (time >= params.max_steps_in_episode)) & ~state.done
        return self.get_obs(new, params), new, reward, new.done, {"success": success, **self.achievements(new, ended)}

    def achievements(self, state: EnvState, ended: Array) -> dict[str, Array]:
        """Craftax's own ``info``: ``Achievements/<name>``, 100.0 for each achievement the episode
        unlocked, reported on the step that ends it (success, death or the step limit; 0 elsewhere)."""
        unlocked = state.world.achievements * ended * 100.0  # type: ignore[attr-defined]  # a Craftax state
        return {f"Achievements/{name}": unlocked[index] for name, index in self.version.achievements.items()}

    def expert_action(self, state: EnvState, params: EnvParams, sight: bool = False) -> Array:
        """() int32: the scripted expert's action (``craftext.expert``; ``NOOP`` once the episode
        has ended and for goals it does not cover, ``craftext.expert.covers``); ``sight``: it looks
        for blocks and cows only in the agent's view."""
        return jnp.where(state.done, NOOP, expert_action(state.world, state.goal, state.memory, state.placed, self.classic, sight)).astype(
            jnp.int32
        )

    @property
    def action_names(self) -> tuple[str, ...]:
        """Text name of every action (Craftax's action names, lower case: "noop", "do", "place_table", ...)."""
        return tuple(name.lower() for name in self.version.action_names)

    @property
    def manual(self) -> tuple:
        """The game's rules for a language agent: a paragraph, then (action, one-line description)."""
        return (MANUAL, *((name, ACTION_HELP.get(name, name.replace("_", " "))) for name in self.action_names))

    @property
    def keys(self) -> dict[str, tuple[int, str]]:
        """Keyboard controls for people: browser key name -> (action, name), Craftax's own key map."""
        return keyboard(self.classic)

    render_is_traceable = True
    """``render`` runs under jit / vmap (the grid worlds render on the host)."""

    def render(self, state: EnvState, params: EnvParams) -> Array:
        """(144, 144, 3) Classic / (208, 176, 3) full uint8 picture of the agent's view and inventory:
        Craftax's own pixel renderer at 16 pixels per block (jittable and vmappable)."""
        return self._pixel_renderer(state.world).astype(jnp.uint8)

    @functools.cached_property
    def _pixel_renderer(self):
        if self.classic:
            from craftax.craftax_classic.renderer import make_craftax_pixel_renderer
        else:
            from craftax.craftax.renderer import make_craftax_pixel_renderer
        with jax.ensure_compile_time_eval():  # Craftax builds its textures with jnp (maybe first under render's trace)
            return make_craftax_pixel_renderer(BLOCK_PIXELS)

    def get_obs(self, state: EnvState, params: EnvParams, key: Array | None = None) -> Observation:
        return self._observation(self.craftax.get_obs(state.world), state, params)

    def _observation(self, world_obs: Array, state: EnvState, params: EnvParams) -> Observation:
        if self.pixels:  # Craftax's image in [0, 1] as the picture it is: uint8, a quarter of the bytes a trajectory keeps
            world_obs = jnp.round(world_obs * 255.0).astype(jnp.uint8)
        return Observation(
            world=world_obs,
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
        """(num_actions,) bool analytic valid actions (``craftext.kg.action_mask``): Classic masks
        actions whose preconditions fail (they would change nothing of the player; Craftax plays
        them as a no-op while the world moves on); full Craftax allows every action. Actions
        outside the range play as NOOP."""
        return action_mask(state.world, self.classic)

    def valid_actions(self, key: Array, state: EnvState, params: EnvParams) -> Array:
        """(num_actions,) bool valid actions (``craftext.kg.valid_actions``): Classic, the
        analytic mask (what the observation predicts; DO facing grass counts as valid); full
        Craftax, those whose step with ``key`` changes the player's part of the world
        differently from NOOP."""

        def step(k, world, action):
            return self.craftax.step_env(k, world, action, params.craftax)[1]

        return valid_actions(step, key, state.world, self.classic)

    @property
    def kg_schema(self) -> dict:
        """Entity and relation names of ``kg`` (``craftext.kg.schema``)."""
        return schema(self.classic)

    def kg(self, state: EnvState, params: EnvParams, scope: str = "observed") -> dict[str, Array]:
        """Knowledge graph of the state (``craftext.kg.graph``): fixed-size int arrays, canonical order."""
        return graph(state.world, self.classic, scope)

    def verbalise(self, graph: dict, style: str = "summary") -> str:
        """Text of one (host, unbatched) graph in a ``craftext.text.STYLES`` style."""
        return text.verbalise(graph, self.classic, style)

    def observation_space(self, params: EnvParams) -> spaces.Dict:
        world = self.craftax.observation_space(params.craftax)
        if self.pixels:
            world = spaces.Box(0, 255, world.shape, jnp.uint8)
        return spaces.Dict(
            {
                "world": spaces.Box(world.low, world.high, world.shape, world.dtype),
                "instruction": spaces.Box(0, len(self.vocabulary) - 1, (self.max_tokens,), jnp.int32),
                "instruction_index": spaces.Discrete(params.tokens.shape[0]),
                "goal_index": spaces.Discrete(params.goals.shape[0]),
            }
        )


class BareCraftax(environment.Environment):
    """The Craftax world CrafText wraps (no auto-reset), behind the gymnax interface without
    instructions: the reference CrafText's cost is measured against."""

    def __init__(self, classic: bool = True):
        self.craftax = make_craftax_env_from_params(classic=classic, symbolic=True, auto_reset=False)

    @property
    def default_params(self):
        return self.craftax.default_params

    def reset_env(self, key: Array, params):
        return self.craftax.reset_env(key, params)

    def step_env(self, key: Array, state, action, params):
        obs, state, reward, done, _ = self.craftax.step_env(key, state, action, params)
        return obs, state, reward, done, {}

    def get_obs(self, state, params=None, key=None):
        return self.craftax.get_obs(state)

    def is_truncated(self, state, params) -> Array:
        return jnp.bool_(False)  # Craftax's own done includes its time limit

    @property
    def num_actions(self) -> int:
        return self.craftax.num_actions

    def action_space(self, params=None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)


def _check_settings(settings: dict) -> None:
    """Raise ``ValueError`` for an unknown or out-of-range scalar setting of ``make_params``."""
    known = {"craftax_reward_scale", "max_steps_in_episode"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)}; use {', '.join(sorted(known))}")
    steps = settings.get("max_steps_in_episode", 1)
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"max_steps_in_episode must be a positive int, got {steps!r}")
    scale = settings.get("craftax_reward_scale", 0.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not np.isfinite(scale):
        raise ValueError(f"craftax_reward_scale must be a finite number, got {scale!r}")
