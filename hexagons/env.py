"""``Hexagons-Paint-v1``: execute a drawing procedure one instruction at a time.

Actions (``num_actions = 1441``): ``a < 1440`` paints tile ``a // 8`` with colour ``a % 8`` (colour
0 erases); ``a = 1440`` is STOP, which ends the current instruction. Painting a tile with the
colour it already has is infeasible, and so is an action outside ``[0, 1441)``: a documented no-op
(the step still counts towards the time limit) and masked by ``action_mask`` (which covers only the
valid range). ``step_env`` on a finished episode is absorbing: nothing changes, reward 0,
terminated (gymnax's ``step`` resets it instead).

Reward: at the end of an instruction (STOP, or the paint budget ``max_paints_per_instruction``
running out), the action-based F1 of the agent's changes during that instruction against the gold
step's changes (``hexagons.metrics``; empty/empty scores 1). The counts behind it are updated in
O(1) per paint. The episode terminates after the procedure's last instruction and is truncated at
``max_steps_in_episode``. ``info``: ``instruction_finished``, its ``action_f1`` and ``exact_match``
(0 on other steps), and ``procedure_exact``, true on the step that ends the procedure when every
one of its instructions was exact (the episode's success).

Context (constructor arguments, since they fix observation shapes):
``history="none" | "previous" | "full"`` adds no / the previous / all previous instructions;
``oracle_board=True`` starts every instruction from the gold board before it (the paper's oracle
board-state; otherwise the agent keeps painting on its own board, the "predicted" setting).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import environment, spaces
from jax import Array

from hexagons import render, text
from hexagons.geometry import COLOUR_NAMES, NUM_COLOURS, NUM_TILES
from hexagons.kg import SCHEMA, SCOPES, graph
from hexagons.metrics import scores_from_counts
from hexagons.procedure import Procedure
from hexagons.tokenizer import Vocabulary

NUM_PAINT_ACTIONS = NUM_TILES * NUM_COLOURS
STOP = NUM_PAINT_ACTIONS
HISTORY_MODES = ("none", "previous", "full")


@struct.dataclass
class EnvState(environment.EnvState):
    """One episode. Boards are (180,) int8; ``instruction`` is 0-based into the procedure;
    ``exact_instructions``: the instructions of the episode finished with an exact match so far;
    ``done``: the procedure's last instruction has ended."""

    board: Array
    start_board: Array
    procedure: Array
    instruction: Array
    paints: Array
    matched: Array
    num_predicted: Array
    exact_instructions: Array
    done: Array


@struct.dataclass(kw_only=True)
class EnvParams(environment.EnvParams):
    """A gymnax ``EnvParams`` (keyword-only): dataset arrays (padded to capacity; ``num_procedures``
    are valid) and episode settings.

    gold_boards: (P, S + 1, 180) int8, gold board before instruction 0 and after each instruction.
    tokens: (P, S, L) int32 instruction token ids.
    num_instructions: (P,) int32; num_gold_changes: (P, S) int32, |gold action set| per instruction.
    """

    gold_boards: Array
    tokens: Array
    num_instructions: Array
    num_gold_changes: Array
    num_procedures: Array
    max_paints_per_instruction: int = NUM_TILES
    max_steps_in_episode: int = 20_000


@struct.dataclass
class Observation:
    """board: (180,) int8; instruction: (L,) int32; procedure, instruction_index: () int32;
    history: (1, L) or (S, L) int32 earlier instructions (zeros where absent), when asked for;
    action_mask: (1441,) bool, when asked for."""

    board: Array
    instruction: Array
    procedure: Array
    instruction_index: Array
    history: Array | None = None
    action_mask: Array | None = None


class HexagonsPaint(environment.Environment[EnvState, EnvParams]):
    """Paint the Hexagons board by instructions; see the module docstring."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        max_instructions: int = 64,
        max_tokens: int = 128,
        history: str = "none",
        oracle_board: bool = False,
        observe_action_mask: bool = False,
    ):
        if history not in HISTORY_MODES:
            raise ValueError(f"history={history!r}: use one of {HISTORY_MODES}")
        for name, value in (("max_instructions", max_instructions), ("max_tokens", max_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        self.vocabulary = vocabulary
        self.max_instructions = max_instructions
        self.max_tokens = max_tokens
        self.history = history
        self.oracle_board = oracle_board
        self.observe_action_mask = observe_action_mask

    # ----------------------------------------------------------------- data
    def make_params(self, procedures: Sequence[Procedure], **settings) -> EnvParams:
        """Stack procedures into ``EnvParams`` (shapes fixed by this env); ``settings`` override
        ``max_paints_per_instruction`` / ``max_steps_in_episode``. Raises ``ValueError`` naming the
        procedure that does not fit."""
        if not procedures:
            raise ValueError("no procedures")
        for name, value in settings.items():
            if name not in ("max_paints_per_instruction", "max_steps_in_episode"):
                raise ValueError(f"unknown setting {name!r}; use max_paints_per_instruction or max_steps_in_episode")
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        n, s, length = len(procedures), self.max_instructions, self.max_tokens
        boards = np.zeros((n, s + 1, NUM_TILES), dtype=np.int8)
        tokens = np.zeros((n, s, length), dtype=np.int32)
        counts = np.zeros(n, dtype=np.int32)
        truncated = 0
        for i, proc in enumerate(procedures):
            if proc.num_steps > s:
                raise ValueError(f"procedure {proc.index} has {proc.num_steps} instructions; this env holds max_instructions={s}")
            counts[i] = proc.num_steps
            boards[i, : proc.num_steps + 1] = proc.boards
            for t, instruction in enumerate(proc.texts):
                tokens[i, t], cut = self.vocabulary.encode(instruction, length)
                truncated += cut
        if truncated:
            warnings.warn(f"{truncated} instructions are longer than max_tokens={length} and were truncated", stacklevel=2)
        gold_changes = (boards[:, 1:] != boards[:, :-1]).sum(-1).astype(np.int32)
        return EnvParams(
            gold_boards=jnp.asarray(boards),
            tokens=jnp.asarray(tokens),
            num_instructions=jnp.asarray(counts),
            num_gold_changes=jnp.asarray(gold_changes),
            num_procedures=jnp.asarray(n, dtype=jnp.int32),
            **settings,
        )

    def check_params(self, params: EnvParams) -> None:
        """Raise ``ValueError`` naming the field if ``params`` do not fit this env's shapes (runs
        while tracing, so a mismatch fails before anything is compiled)."""
        p = params.gold_boards.shape[0]
        expected = {
            "gold_boards": (p, self.max_instructions + 1, NUM_TILES),
            "tokens": (p, self.max_instructions, self.max_tokens),
            "num_instructions": (p,),
            "num_gold_changes": (p, self.max_instructions),
            "num_procedures": (),
        }
        for name, shape in expected.items():
            if getattr(params, name).shape != shape:
                raise ValueError(
                    f"EnvParams.{name} has shape {getattr(params, name).shape}; this env needs {shape} "
                    f"(max_instructions={self.max_instructions}, max_tokens={self.max_tokens})"
                )

    @functools.cached_property
    def default_params(self) -> EnvParams:
        """Params over 256 synthetic procedures (``hexagons.synthetic``, seed 0)."""
        from hexagons.synthetic import generate

        return self.make_params(generate(256, seed=0))

    # ----------------------------------------------------------------- dynamics
    def reset_env(self, key: Array, params: EnvParams) -> tuple[Observation, EnvState]:
        return self.reset_to_procedure(jax.random.randint(key, (), 0, params.num_procedures), params)

    def reset_to_procedure(self, procedure: int | Array, params: EnvParams) -> tuple[Observation, EnvState]:
        """Start the episode of procedure ``procedure`` (for evaluation over a whole split)."""
        self.check_params(params)
        procedure = jnp.asarray(procedure, jnp.int32)
        state = self._start_instruction(
            EnvState(
                time=jnp.int32(0),
                board=jnp.zeros(NUM_TILES, jnp.int8),
                start_board=jnp.zeros(NUM_TILES, jnp.int8),
                procedure=procedure,
                instruction=jnp.int32(0),
                paints=jnp.int32(0),
                matched=jnp.int32(0),
                num_predicted=jnp.int32(0),
                exact_instructions=jnp.int32(0),
                done=jnp.bool_(False),
            ),
            params,
        )
        return self.get_obs(state, params), state

    def _start_instruction(self, state: EnvState, params: EnvParams) -> EnvState:
        """Zero the per-instruction counters; the oracle setting also loads the gold board."""
        board = state.board
        if self.oracle_board:
            board = params.gold_boards[state.procedure, state.instruction]
        return state.replace(board=board, start_board=board, paints=jnp.int32(0), matched=jnp.int32(0), num_predicted=jnp.int32(0))

    def is_terminated(self, state: EnvState, params: EnvParams) -> Array:
        """() bool: the episode ended (the procedure's last instruction ended); gymnax's ``discount`` is 0 then."""
        return state.done

    def step_env(
        self, key: Array, state: EnvState, action: int | Array, params: EnvParams
    ) -> tuple[Observation, EnvState, Array, Array, dict]:
        self.check_params(params)
        previous = state
        action = jnp.asarray(action, jnp.int32)
        in_range = (action >= 0) & (action <= STOP)
        is_stop = action == STOP
        tile = jnp.clip(action // NUM_COLOURS, 0, NUM_TILES - 1)
        colour = (action % NUM_COLOURS).astype(jnp.int8)
        old = state.board[tile]
        paint = in_range & ~is_stop & (old != colour)

        # O(1) update of |H| and |G & H| for the one tile that changes.
        gold_before = params.gold_boards[state.procedure, state.instruction, tile]
        gold_after = params.gold_boards[state.procedure, state.instruction + 1, tile]
        start = state.start_board[tile]

        def membership(value):
            predicted = value != start
            return predicted.astype(jnp.int32), (predicted & (gold_after != gold_before) & (value == gold_after)).astype(jnp.int32)

        pred_old, match_old = membership(old)
        pred_new, match_new = membership(colour)
        paint_i = paint.astype(jnp.int32)
        state = state.replace(
            time=state.time + 1,
            board=state.board.at[tile].set(jnp.where(paint, colour, old)),
            paints=state.paints + paint_i,
            num_predicted=state.num_predicted + paint_i * (pred_new - pred_old),
            matched=state.matched + paint_i * (match_new - match_old),
        )

        finished = ~previous.done & (is_stop | (state.paints >= params.max_paints_per_instruction))
        num_gold = params.num_gold_changes[state.procedure, state.instruction]
        scores = scores_from_counts(state.matched, num_gold, state.num_predicted)
        reward = jnp.where(finished, scores.f1, 0.0)
        exact = finished & (scores.exact_match > 0)
        state = state.replace(exact_instructions=state.exact_instructions + exact.astype(jnp.int32))
        next_instruction = state.instruction + finished.astype(jnp.int32)
        terminated = next_instruction >= params.num_instructions[state.procedure]
        advanced = self._start_instruction(
            state.replace(instruction=jnp.minimum(next_instruction, params.num_instructions[state.procedure] - 1)),
            params,
        )
        state = jax.tree.map(lambda a, b: jnp.where(finished & ~terminated, a, b), advanced, state.replace(done=terminated))
        # A finished episode is absorbing: nothing changes, no reward, still terminated.
        state = jax.tree.map(lambda a, b: jnp.where(previous.done, a, b), previous, state)
        info = {
            "instruction_finished": finished,
            "action_f1": jnp.where(finished, scores.f1, 0.0),
            "exact_match": jnp.where(finished, scores.exact_match, 0.0),
            "procedure_exact": finished & terminated & (state.exact_instructions == params.num_instructions[state.procedure]),
        }
        return self.get_obs(state, params), state, reward, state.done, info

    # ----------------------------------------------------------------- views
    def get_obs(self, state: EnvState, params: EnvParams, key: Array | None = None) -> Observation:
        instruction, history = self.instruction_view(state.procedure, state.instruction, params)
        return Observation(
            board=state.board,
            instruction=instruction,
            procedure=state.procedure,
            instruction_index=state.instruction,
            history=history,
            action_mask=self.action_mask(state, params) if self.observe_action_mask else None,
        )

    def instruction_view(self, procedure: Array, instruction: Array, params: EnvParams) -> tuple[Array, Array | None]:
        """What an observation shows of step ``instruction`` of procedure ``procedure``: its (L,)
        tokens and the history (``Observation.history``; None without)."""
        tokens = params.tokens[procedure]
        history = None
        if self.history == "previous":
            previous = tokens[jnp.maximum(instruction - 1, 0)]
            history = jnp.where(instruction > 0, previous, 0)[None]
        elif self.history == "full":
            earlier = jnp.arange(self.max_instructions) < instruction
            history = jnp.where(earlier[:, None], tokens, 0)
        return tokens[instruction], history

    action_axes = ("row", "column")
    """Names of the tile coordinates of the paint actions (mixed radix 10 x 18 x 8)."""
    axis_origins = (1, 1)
    """What the instructions call index 0 of each axis: rows and columns count from 1."""
    tools = COLOUR_NAMES
    """Names of the 8 paint colours (the last factor; white erases)."""

    @functools.cached_property
    def action_names(self) -> tuple[str, ...]:
        """(1441,) text name of every action: "paint tile (r, c) <colour>" (1-based; white erases), "stop"."""
        return (*(f"paint {text.tile_name(i)} {c}" for i in range(NUM_TILES) for c in COLOUR_NAMES), "stop")

    manual = (
        "You paint a board of hexagon tiles, 10 rows x 18 columns, tiles named (row, column) from 1; every tile starts "
        f"white. Colours: {', '.join(COLOUR_NAMES[1:])}; painting a tile white erases it.",
        ("paint tile (r, c) <colour>", "paint one tile"),
        ("stop", "the current instruction is done; the next one follows"),
    )
    """The game's rules for a language agent: a paragraph, then (action pattern, one-line description)."""

    def render(self, state: EnvState, params: EnvParams) -> np.ndarray:
        """(H, W, 3) uint8 picture of the board (``hexagons.render``; on the host, one unbatched state)."""
        return np.asarray(render.to_image(np.asarray(state.board)))

    def render_target(self, state: EnvState, params: EnvParams) -> np.ndarray:
        """(H, W, 3) uint8 picture of the gold board after the current instruction."""
        step = min(int(state.instruction) + 1, params.gold_boards.shape[1] - 1)
        return np.asarray(render.to_image(np.asarray(params.gold_boards[state.procedure, step])))

    def action_mask(self, state: EnvState, params: EnvParams) -> Array:
        """(1441,) bool: paints that change their tile, and STOP (always valid; a finished
        episode is absorbing whatever the action)."""
        paints = state.board[:, None] != jnp.arange(NUM_COLOURS, dtype=jnp.int8)[None, :]
        return jnp.concatenate([paints.reshape(-1), jnp.ones(1, bool)])

    def valid_actions(self, key: Array, state: EnvState, params: EnvParams) -> Array:
        """(1441,) bool exact valid actions: the paints that change their tile, and STOP (the
        analytic ``action_mask`` is exact here; ``key`` is unused)."""
        return self.action_mask(state, params)

    kg_schema = SCHEMA
    """Entity and relation names of ``kg`` (``hexagons.kg.SCHEMA``)."""

    def kg(self, state: EnvState, params: EnvParams, scope: str = "observed") -> dict[str, Array]:
        """Knowledge graph of the board (``hexagons.kg.graph``; both scopes see the whole board)."""
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        return graph(state.board)

    def verbalise(self, graph: dict, style: str = "summary") -> str:
        """Text of one (host, unbatched) graph in a ``hexagons.text.STYLES`` style."""
        return text.verbalise(graph, style)

    def expert_action(self, state: EnvState, params: EnvParams) -> Array:
        """() int32: the gold next action (a demonstration): paint the first tile (in tile order) of
        the current instruction's gold changes that the board does not show yet, with its gold
        colour; STOP when none is left."""
        before = params.gold_boards[state.procedure, state.instruction]
        after = params.gold_boards[state.procedure, state.instruction + 1]
        todo = (after != before) & (state.board != after)
        tile = jnp.argmax(todo)
        return jnp.where(todo.any(), tile * NUM_COLOURS + after[tile].astype(jnp.int32), STOP).astype(jnp.int32)

    @property
    def name(self) -> str:
        return "Hexagons-Paint-v1"

    @property
    def num_actions(self) -> int:
        return NUM_PAINT_ACTIONS + 1

    def action_space(self, params: EnvParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def observation_space(self, params: EnvParams) -> spaces.Dict:
        num_procedures = params.tokens.shape[0]
        token = functools.partial(spaces.Box, 0, len(self.vocabulary) - 1, dtype=jnp.int32)
        leaves = {
            "board": spaces.Box(0, NUM_COLOURS - 1, (NUM_TILES,), jnp.int8),
            "instruction": token((self.max_tokens,)),
            "procedure": spaces.Discrete(num_procedures),
            "instruction_index": spaces.Discrete(self.max_instructions),
        }
        if self.history != "none":
            rows = 1 if self.history == "previous" else self.max_instructions
            leaves["history"] = token((rows, self.max_tokens))
        if self.observe_action_mask:
            leaves["action_mask"] = spaces.Box(0, 1, (self.num_actions,), jnp.bool_)
        return spaces.Dict(leaves)
