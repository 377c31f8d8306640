"""``BlocksWorld-BAP-v1`` and ``BlocksWorld-Build-v1``: the Minecraft build grid as a gymnax env.

State: the (11, 9, 11) int8 grid (``blocksworld.grid``), the start grid of the episode, the
inventory (6,) (20 blocks per colour at the start of a game; placed blocks leave it, removed ones
return, so blocks + inventory = 120 always), the Builder's pose (x, y, z, yaw, pitch), the episode's
item index (its dialogue is looked up in the params) and the step counter.

Actions (7624): ``((xi * 9 + yi) * 11 + zi) * 7 + k``; ``k < 6`` places colour ``k + 1``, feasible
into an empty cell that is on the floor (y = 1) or face-adjacent to a block, with that colour in
the inventory; ``k = 6`` removes the block in the cell, feasible where a block is. ``7623`` is STOP.
Infeasible actions, and actions outside ``[0, 7624)``, are no-ops (masked by ``action_mask``, which
covers the valid range); a step still passes. ``step_env`` on a finished episode (after STOP, or an
exact match in Build) is absorbing: nothing changes, reward 0, terminated (gymnax's ``step``
resets it instead).

Both tasks score net actions from the start grid against a reference end grid, with counts
updated in O(1) per action (``|pred|``, ``|pred & reference|``; ``|reference|`` is in the params):

* BAP: reset loads an item (start structure, dialogue, pose); reward at STOP, or when the time limit
  cuts the episode, is the item's strict net-action F1 (``blocksworld.metrics``).
* Build: start from the item's start (empty for targets), the reference is the target structure,
  which the observation shows; dense reward = change of the structure-match F1 each step; the
  episode terminates on an exact match or STOP.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import environment, spaces
from jax import Array

from blocksworld import render, text
from blocksworld.grid import (
    ACTIONS_PER_CELL,
    BLOCKS_PER_COLOUR,
    COLOURS,
    FACES,
    NUM_CELL_ACTIONS,
    NUM_CELLS,
    NUM_COLOURS,
    REMOVE,
    SHAPE,
    STOP,
    X_RANGE,
    Y_RANGE,
    Z_RANGE,
    to_grid,
    to_world,
)
from blocksworld.item import BapItem
from blocksworld.kg import SCHEMA, SCOPES, graph
from blocksworld.metrics import prf
from blocksworld.tokenizer import Vocabulary, dialogue_window

TASKS = ("bap", "build")


@struct.dataclass
class EnvState(environment.EnvState):
    """grid / start: (11, 9, 11) int8; inventory (6,) int32; pose (5,) float32; item () int32;
    matched / num_predicted: () int32 net-action counts; done: () bool, the episode ended."""

    grid: Array
    start: Array
    inventory: Array
    pose: Array
    item: Array
    matched: Array
    num_predicted: Array
    done: Array


@struct.dataclass(kw_only=True)
class EnvParams(environment.EnvParams):
    """A gymnax ``EnvParams`` (keyword-only): items stacked to arrays (``num_items`` valid rows):
    starts, references: (N, 11, 9, 11) int8; poses: (N, 5) float32; dialogue: (N, L) int32;
    num_reference: (N,) int32 net actions start -> reference."""

    starts: Array
    references: Array
    poses: Array
    dialogue: Array
    num_reference: Array
    num_items: Array
    max_steps_in_episode: int = 64


@struct.dataclass
class Observation:
    """grid (11, 9, 11) int8; inventory (6,) int32; builder_pose (5,) float32 (x, y, z, yaw, pitch in
    degrees); dialogue (L,) int32; item () int32; target (11, 9, 11) int8 for Build;
    action_mask (7624,) bool when asked for."""

    grid: Array
    inventory: Array
    builder_pose: Array
    dialogue: Array
    item: Array
    target: Array | None = None
    action_mask: Array | None = None


def _net_counts(start: Array, value: Array, reference: Array) -> tuple[Array, Array]:
    """(|pred net actions|, |pred & reference net actions|) contributed by one cell."""
    place = (value != 0) & (value != start)
    remove = (start != 0) & (start != value)
    gold_place = (reference != 0) & (reference != start)
    gold_remove = (start != 0) & (start != reference)
    matched = (place & gold_place & (value == reference)).astype(jnp.int32) + (remove & gold_remove).astype(jnp.int32)
    return place.astype(jnp.int32) + remove.astype(jnp.int32), matched


def stack_params(starts: np.ndarray, references: np.ndarray, poses: np.ndarray, dialogue: np.ndarray, **settings) -> EnvParams:
    """Params of items already as arrays: start and reference grids (N, 11, 9, 11) int8, poses
    (N, 5), dialogue ids (N, L); ``settings``: ``max_steps_in_episode``."""
    changed = starts != references
    num_reference = (changed & (starts != 0)).sum((1, 2, 3)) + (changed & (references != 0)).sum((1, 2, 3))
    return EnvParams(
        starts=jnp.asarray(starts, jnp.int8),
        references=jnp.asarray(references, jnp.int8),
        poses=jnp.asarray(poses, jnp.float32),
        dialogue=jnp.asarray(dialogue, jnp.int32),
        num_reference=jnp.asarray(num_reference.astype(np.int32)),
        num_items=jnp.asarray(len(starts), jnp.int32),
        **settings,
    )


def feasible_actions(grid: Array, inventory: Array) -> Array:
    """(7624,) bool of a grid (11, 9, 11) and inventory (6,): placements into empty cells on the
    floor or face-adjacent to a block, of colours still in the inventory; removals where a block
    is; STOP."""
    occupied = grid != 0
    padded = jnp.pad(occupied, 1)
    touching = jnp.zeros(SHAPE, bool).at[:, 0, :].set(True)
    for dx, dy, dz in FACES:
        touching |= padded[1 + dx : 1 + dx + SHAPE[0], 1 + dy : 1 + dy + SHAPE[1], 1 + dz : 1 + dz + SHAPE[2]]
    place = (~occupied & touching)[..., None] & (inventory > 0)
    cells = jnp.concatenate([place, occupied[..., None]], axis=-1)
    return jnp.concatenate([cells.reshape(-1), jnp.ones(1, bool)])


def inventory_of(grid: Array) -> Array:
    """(6,) int32 blocks left per colour when ``grid`` holds the only placed blocks (20 - on grid)."""
    counts = (grid[..., None] == jnp.arange(1, NUM_COLOURS + 1, dtype=grid.dtype)).sum((0, 1, 2))
    return (BLOCKS_PER_COLOUR - counts).astype(jnp.int32)


class BlocksWorld(environment.Environment[EnvState, EnvParams]):
    """The build grid with a BAP or a Build task; see the module docstring."""

    def __init__(self, vocabulary: Vocabulary, task: str = "bap", max_tokens: int = 128, observe_action_mask: bool = False):
        if task not in TASKS:
            raise ValueError(f"task={task!r}: use one of {TASKS}")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
        self.vocabulary, self.task, self.max_tokens = vocabulary, task, max_tokens
        self.observe_action_mask = observe_action_mask

    def make_params(self, items: Sequence[BapItem], **settings) -> EnvParams:
        """Stack items into params; ``settings`` override ``max_steps_in_episode``."""
        if not items:
            raise ValueError("no items")
        for name, value in settings.items():
            if name != "max_steps_in_episode":
                raise ValueError(f"unknown setting {name!r}; use max_steps_in_episode")
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        starts = np.stack([to_grid(i.start) for i in items])
        for item, start in zip(items, starts):
            counts = np.bincount(start.ravel(), minlength=NUM_COLOURS + 1)[1:]
            if (counts > BLOCKS_PER_COLOUR).any():
                raise ValueError(f"item {item.game_id}:{item.sample_id} starts with more than 20 blocks of a colour")
        return stack_params(
            starts,
            np.stack([to_grid(i.end) for i in items]),
            np.array([i.builder_pose for i in items], np.float32),
            np.stack([self.vocabulary.encode(dialogue_window(i.history), self.max_tokens) for i in items]),
            **settings,
        )

    @functools.cached_property
    def default_params(self) -> EnvParams:
        """Params over 256 simulated items of this task (``blocksworld.simulators``: the ``random``
        simulator's BAP items, or the ``blocks`` simulator's Build targets; seed 0), encoded with this
        env's vocabulary; ``blocksworld.make`` or ``env.make_params(items)`` give others."""
        from blocksworld.simulators import generate_items, generate_targets

        return self.make_params(generate_items(256, 0, "random") if self.task == "bap" else generate_targets(256, 0, "blocks"))

    def check_params(self, params: EnvParams) -> None:
        """Raise ``ValueError`` naming the field if ``params`` do not fit this env's shapes (runs
        while tracing, so a mismatch fails before anything is compiled)."""
        n = params.starts.shape[0]
        expected = {
            "starts": (n, *SHAPE),
            "references": (n, *SHAPE),
            "poses": (n, 5),
            "dialogue": (n, self.max_tokens),
            "num_reference": (n,),
            "num_items": (),
        }
        for name, shape in expected.items():
            if getattr(params, name).shape != shape:
                raise ValueError(
                    f"EnvParams.{name} has shape {getattr(params, name).shape}; this env needs {shape} (max_tokens={self.max_tokens})"
                )

    # ----------------------------------------------------------------- dynamics
    def reset_env(self, key: Array, params: EnvParams) -> tuple[Observation, EnvState]:
        return self.reset_to_item(jax.random.randint(key, (), 0, params.num_items), params)

    def reset_to_item(self, item: int | Array, params: EnvParams) -> tuple[Observation, EnvState]:
        """Start the episode of item ``item`` (for evaluation over a whole split)."""
        self.check_params(params)
        item = jnp.asarray(item, jnp.int32)
        start = params.starts[item]
        state = EnvState(
            time=jnp.int32(0),
            grid=start,
            start=start,
            inventory=inventory_of(start),
            pose=params.poses[item],
            item=item,
            matched=jnp.int32(0),
            num_predicted=jnp.int32(0),
            done=jnp.bool_(False),
        )
        return self.get_obs(state, params), state

    def _score(self, state: EnvState, params: EnvParams) -> Array:
        return prf(state.matched, state.num_predicted, params.num_reference[state.item])[2]

    def is_terminated(self, state: EnvState, params: EnvParams) -> Array:
        """() bool: the episode ended (STOP, or the Build target reached); gymnax's ``discount`` is 0 then."""
        return state.done

    def step_env(
        self, key: Array, state: EnvState, action: int | Array, params: EnvParams
    ) -> tuple[Observation, EnvState, Array, Array, dict]:
        self.check_params(params)
        was_done = state.done
        action = jnp.asarray(action, jnp.int32)
        in_range = (action >= 0) & (action < NUM_CELL_ACTIONS)
        is_stop = action == STOP
        cell, k = jnp.divmod(jnp.clip(action, 0, NUM_CELL_ACTIONS - 1), ACTIONS_PER_CELL)
        xz, zi = jnp.divmod(cell, SHAPE[2])
        xi, yi = jnp.divmod(xz, SHAPE[1])
        old = state.grid[xi, yi, zi]
        is_remove = k == REMOVE
        colour = jnp.where(is_remove, 0, k + 1).astype(jnp.int8)
        feasible = (
            in_range
            & ~was_done  # a finished episode is absorbing: nothing changes, no reward, still terminated
            & jnp.where(is_remove, old != 0, (old == 0) & self._supported(state.grid, xi, yi, zi) & (state.inventory[k % NUM_COLOURS] > 0))
        )
        new = jnp.where(feasible, colour, old)

        start, reference = state.start[xi, yi, zi], params.references[state.item, xi, yi, zi]
        pred_old, match_old = _net_counts(start, old, reference)
        pred_new, match_new = _net_counts(start, new, reference)
        inventory_change = jnp.where(is_remove, 1, -1) * feasible
        touched = jnp.where(is_remove, old.astype(jnp.int32) - 1, k)
        score_before = self._score(state, params)
        state = state.replace(
            time=state.time + (~was_done).astype(jnp.int32),
            grid=state.grid.at[xi, yi, zi].set(new),
            inventory=state.inventory.at[jnp.clip(touched, 0, NUM_COLOURS - 1)].add(inventory_change),
            num_predicted=state.num_predicted + pred_new - pred_old,
            matched=state.matched + match_new - match_old,
        )
        score = self._score(state, params)
        limit = state.time >= params.max_steps_in_episode
        if self.task == "bap":
            terminated = is_stop
            reward = jnp.where(is_stop | limit, score, 0.0)
        else:
            exact = (state.matched == params.num_reference[state.item]) & (state.matched == state.num_predicted)
            terminated = is_stop | exact
            reward = score - score_before
        # Only scalars need a choice for a finished episode: its grid, inventory and counts are
        # unchanged already (``feasible`` is False), so no whole-state select per step.
        state = state.replace(done=was_done | terminated)
        reward = jnp.where(was_done, 0.0, reward)
        info = {"feasible": feasible, "f1": score}
        return self.get_obs(state, params), state, reward, state.done, info

    @staticmethod
    def _supported(grid: Array, xi: Array, yi: Array, zi: Array) -> Array:
        """The cell is on the floor or shares a face with a block (O(1): six lookups)."""
        touching = yi == 0
        for dx, dy, dz in FACES:
            a, b, c = xi + dx, yi + dy, zi + dz
            inside = (a >= 0) & (a < SHAPE[0]) & (b >= 0) & (b < SHAPE[1]) & (c >= 0) & (c < SHAPE[2])
            value = grid[jnp.clip(a, 0, SHAPE[0] - 1), jnp.clip(b, 0, SHAPE[1] - 1), jnp.clip(c, 0, SHAPE[2] - 1)]
            touching |= inside & (value != 0)
        return touching

    # ----------------------------------------------------------------- views
    def get_obs(self, state: EnvState, params: EnvParams, key: Array | None = None) -> Observation:
        return Observation(
            grid=state.grid,
            inventory=state.inventory,
            builder_pose=state.pose,
            dialogue=params.dialogue[state.item],
            item=state.item,
            target=params.references[state.item] if self.task == "build" else None,
            action_mask=self.action_mask(state, params) if self.observe_action_mask else None,
        )

    action_axes = ("x", "y", "z")
    """Names of the cell coordinates of the first 7623 actions (mixed radix 11 x 9 x 11 x 7)."""
    axis_origins = (X_RANGE[0], Y_RANGE[0], Z_RANGE[0])
    """The world coordinate (as the dialogue and the text view say it) of index 0 of each axis."""
    tools = (*COLOURS, "remove")
    """Names of the 7 per-cell actions (the last factor)."""

    @functools.cached_property
    def action_names(self) -> tuple[str, ...]:
        """(7624,) text name of every action: "place <colour> at (x, y, z)", "remove at (x, y, z)", "stop"."""
        names = []
        for i in range(NUM_CELLS):
            x, y, z = to_world(*(int(v) for v in np.unravel_index(i, SHAPE)))
            names += [f"place {c} at ({x}, {y}, {z})" for c in COLOURS] + [f"remove at ({x}, {y}, {z})"]
        return (*names, "stop")

    manual = (
        "You are the Builder in a Minecraft build region: x and z from -5 to 5, y (height) from 1 to 9. "
        "Blocks rest on the ground (y = 1) or touch another block's face; you hold 20 blocks of each colour "
        f"({', '.join(COLOURS)}).",
        ("place <colour> at (x, y, z)", "put a block of that colour into an empty cell"),
        ("remove at (x, y, z)", "take the block out of that cell"),
        ("stop", "end your turn: the structure is what the Architect asked for"),
    )
    """The game's rules for a language agent: a paragraph, then (action pattern, one-line description)."""

    def render(self, state: EnvState, params: EnvParams) -> np.ndarray:
        """(H, W, 3) uint8 picture of the grid from the Builder's side (``blocksworld.render``; on
        the host, one unbatched state)."""
        return np.asarray(render.to_image(np.asarray(state.grid), float(state.pose[3])))

    def render_target(self, state: EnvState, params: EnvParams) -> np.ndarray:
        """(H, W, 3) uint8 picture of the item's reference grid (what the Builder should build),
        from the same side as ``render``."""
        return np.asarray(render.to_image(np.asarray(params.references[state.item]), float(state.pose[3])))

    def action_mask(self, state: EnvState, params: EnvParams) -> Array:
        """(7624,) bool: feasible placements and removals, and STOP (``feasible_actions``)."""
        return feasible_actions(state.grid, state.inventory)

    def valid_actions(self, key: Array, state: EnvState, params: EnvParams) -> Array:
        """(7624,) bool exact valid actions: the feasible placements and removals, and STOP (the
        analytic ``action_mask`` is exact here; ``key`` is unused)."""
        return self.action_mask(state, params)

    kg_schema = SCHEMA
    """Entity and relation names of ``kg`` (``blocksworld.kg.SCHEMA``)."""

    def kg(self, state: EnvState, params: EnvParams, scope: str = "observed") -> dict[str, Array]:
        """Knowledge graph of the state in the Builder's frame (``blocksworld.kg.graph``; both
        scopes see the whole region)."""
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        return graph(state.grid, state.inventory, state.pose[3])

    def verbalise(self, graph: dict, style: str = "summary") -> str:
        """Text of one (host, unbatched) graph in a ``blocksworld.text.STYLES`` style."""
        return text.verbalise(graph, style)

    def expert_action(self, state: EnvState, params: EnvParams) -> Array:
        """() int32: the gold next action (a demonstration) towards the item's reference grid, first
        feasible one in action order of: a placement of a reference block; else a temporary support
        (in the colour with the most blocks left) under a reference block that touches nothing yet
        (a pillar from the floor, as Builders do); else the removal of a block the reference does
        not have (wrong blocks and supports); else STOP. Placing before removing keeps every support
        a later placement needs."""
        reference = params.references[state.item]
        empty = state.grid == 0
        place = empty[..., None] & (reference[..., None] == jnp.arange(1, NUM_COLOURS + 1, dtype=jnp.int8))
        waiting = place.any(-1)
        above = jnp.cumsum(waiting[:, ::-1], axis=1)[:, ::-1] - waiting  # reference blocks still to place higher up the column
        support = (empty & ~waiting & (above > 0))[..., None] & jax.nn.one_hot(jnp.argmax(state.inventory), NUM_COLOURS, dtype=bool)
        remove = (~empty & (state.grid != reference))[..., None]
        feasible = self.action_mask(state, params)[:NUM_CELL_ACTIONS]
        priority = jnp.concatenate([3 * place + 2 * support, remove], -1).reshape(-1) * feasible
        return jnp.where(priority.any(), jnp.argmax(priority), STOP).astype(jnp.int32)

    @property
    def name(self) -> str:
        return "BlocksWorld-BAP-v1" if self.task == "bap" else "BlocksWorld-Build-v1"

    @property
    def num_actions(self) -> int:
        return NUM_CELL_ACTIONS + 1

    def action_space(self, params: EnvParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def observation_space(self, params: EnvParams) -> spaces.Dict:
        grid = spaces.Box(0, NUM_COLOURS, SHAPE, jnp.int8)
        leaves = {
            "grid": grid,
            "inventory": spaces.Box(0, BLOCKS_PER_COLOUR, (NUM_COLOURS,), jnp.int32),
            "builder_pose": spaces.Box(-jnp.inf, jnp.inf, (5,), jnp.float32),
            "dialogue": spaces.Box(0, len(self.vocabulary) - 1, (self.max_tokens,), jnp.int32),
            "item": spaces.Discrete(params.starts.shape[0]),
        }
        if self.task == "build":
            leaves["target"] = grid
        if self.observe_action_mask:
            leaves["action_mask"] = spaces.Box(0, 1, (self.num_actions,), jnp.bool_)
        return spaces.Dict(leaves)
