"""Builder models of BAP v2 in Flax: a world encoder (set or CNN) shared by a GRU and a transformer decoder.

World features per cell (``world_features``): 7 channels one-hot of the cell (empty, colours 1-6),
1 channel action recency ``max(0, 5 - age) / 5`` (age: actions since the cell last changed, 0 for
the latest, over the game's earlier actions and the ones decoded so far), 3 channels perspective
coordinates (the cell relative to the Builder: forward, right, up, in blocks / 10; pitch ignored).

Both decoders emit one state per decoding step; the action classifier (``ActionHead``) combines
it with the encoded world as it is at that step: per cell
``Dense(7)(relu(Dense(world[cell]) + Dense(state)))`` for the 7623 place / remove actions, and STOP
from the state and the max-pooled world features. ``BuilderModel.step_logits`` is one decoding step
(greedy decoding re-encodes the world after every action); ``BuilderModel.__call__`` is teacher
forcing over a whole gold sequence.

* ``gru`` (paper sec. 2.6): word embeddings -> GRU over the dialogue window; its last state starts
  a GRU decoder whose input is the embedding of the previous action (``text_attention``: each decoder
  output also attends over the encoder's token states).
* ``transformer`` (sec. 6.3): frozen text-encoder token states (MiniLM, computed once outside the
  jit) -> Dense(256) -> a causal transformer decoder (5 layers, 2 heads, FFN 512) over the previous
  actions' embeddings with learned positions, cross-attending to the projected text.

Two world encoders give the head the same (..., 11, 9, 11, width) cell features:

* ``set`` (``SetWorldEncoder``, the default): the blocks on the board (and the cells changed in the last
  ``RECENCY_SPAN`` actions) as a set of at most ``MAX_BLOCKS`` tokens through a small transformer
  whose board token every cell reads, beside its own features and its 6 neighbours' (``builder_frame``:
  also ordered by the Builder's left / right / front / behind). All of it is
  matrix products (XLA's CPU convolutions run about 10x fewer FLOP per second than its matmuls).
* ``cnn`` (``WorldEncoder``, the paper's kind): 3D convolutions over every cell.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import linen as nn
from jax import Array

from baselines.builder import MODELS, WORLDS
from blocksworld.grid import ACTIONS_PER_CELL, NUM_CELL_ACTIONS, NUM_COLOURS, REMOVE, SHAPE, X_RANGE, Y_RANGE, Z_RANGE
from blocksworld.tokenizer import SPECIAL, UNK

UNKNOWN_TOKEN = SPECIAL.index(UNK)
"""The word id that word dropout puts in place of a dialogue token."""
RECENCY_SPAN = 5
"""Actions over which a changed cell's recency weight fades to 0 (the reference's "step" scheme)."""
MAX_BLOCKS = 64
"""Block tokens of the ``set`` world encoder. Corpus boards hold at most 52 blocks in train, 42 in
test and 96 in dev (99% of dev boards <= 64), the simulators' 28; on a fuller board the cells of
highest flat index are left out of the set (they keep their own and their neighbours' features)."""


def world_features(grid: Array, age: Array, pose: Array) -> Array:
    """(11, 9, 11, 11) float32 CNN input of a grid (11, 9, 11) int8, cell ages (11, 9, 11) int32 and
    the Builder's pose (x, y, z, yaw, pitch)."""
    onehot = jax.nn.one_hot(grid.astype(jnp.int32), NUM_COLOURS + 1)
    recency = (jnp.maximum(0, RECENCY_SPAN - age) / RECENCY_SPAN)[..., None]
    x, y, z = jnp.meshgrid(*(jnp.arange(lo, hi + 1, dtype=jnp.float32) for lo, hi in (X_RANGE, Y_RANGE, Z_RANGE)), indexing="ij")
    yaw = jnp.deg2rad(pose[3])
    dx, dy, dz = x - pose[0], y - pose[1], z - pose[2]
    forward = -jnp.sin(yaw) * dx + jnp.cos(yaw) * dz  # yaw 0 faces +z, yaw 90 faces -x (Minecraft)
    right = -jnp.cos(yaw) * dx - jnp.sin(yaw) * dz
    perspective = jnp.stack([forward, right, dy], -1) / 10.0
    return jnp.concatenate([onehot, recency, perspective], -1)


def advance(grid: Array, age: Array, code: Array) -> tuple[Array, Array]:
    """Grid and ages after action ``code`` (no feasibility check: for gold actions; STOP and padding
    -1 leave both unchanged)."""
    act = (code >= 0) & (code < NUM_CELL_ACTIONS)
    cell, k = jnp.divmod(jnp.clip(code, 0, NUM_CELL_ACTIONS - 1), ACTIONS_PER_CELL)
    index = jnp.unravel_index(cell, SHAPE)
    value = jnp.where(k == REMOVE, 0, k + 1).astype(grid.dtype)
    grid = jnp.where(act, grid.at[index].set(value), grid)
    age = jnp.where(act, (age + 1).at[index].set(0), age)
    return grid, jnp.minimum(age, RECENCY_SPAN)


def action_features(code: Array) -> Array:
    """(..., 13) features of action codes: start-of-sequence, place, remove, colour one-hot (6),
    normalised x, y, z; -1 (the start of decoding) has only the first set."""
    start = code < 0
    cell, k = jnp.divmod(jnp.clip(code, 0, NUM_CELL_ACTIONS - 1), ACTIONS_PER_CELL)
    xi, yi, zi = jnp.unravel_index(cell, SHAPE)
    remove = k == REMOVE
    colour = jax.nn.one_hot(jnp.where(remove, -1, k), NUM_COLOURS)
    position = jnp.stack([xi / (SHAPE[0] - 1), yi / (SHAPE[1] - 1), zi / (SHAPE[2] - 1)], -1)
    features = jnp.concatenate([jnp.stack([start, ~remove, remove], -1).astype(jnp.float32), colour, position], -1)
    return jnp.where(start[..., None], jnp.zeros_like(features).at[..., 0].set(1.0), features)


class WorldEncoder(nn.Module):
    """(..., 11, 9, 11, 11) features -> (..., 11, 9, 11, width): 3D convolutions (kernel 3, same
    padding), then every cell adds a projection of the max-pooled board (the whole board in view
    for two cheap layers; the CNN is most of the compute, see ``baselines.builder``)."""

    width: int = 16
    layers: int = 2

    @nn.compact
    def __call__(self, features: Array) -> Array:
        lead = features.shape[:-4]
        x = features.reshape(-1, *features.shape[-4:])
        for _ in range(self.layers):
            x = nn.relu(nn.Conv(self.width, (3, 3, 3), padding="SAME")(x))
        x = nn.relu(x + nn.Dense(self.width)(x.max((1, 2, 3)))[:, None, None, None])
        return x.reshape(*lead, *x.shape[1:])


def neighbour_features(features: Array) -> Array:
    """(..., 11, 9, 11, 11) -> (..., 11, 9, 11, 42): the cell one-hot (7 channels) of each of the 6
    face neighbours (-x, +x, -y, +y, -z, +z); all zero outside the grid."""
    cells = features[..., : NUM_COLOURS + 1]
    parts = []
    for axis in range(cells.ndim - 4, cells.ndim - 1):
        size = cells.shape[axis]
        for pad, start in (((1, 0), 0), ((0, 1), 1)):  # the cell at i - 1, then at i + 1
            widths = [(0, 0)] * cells.ndim
            widths[axis] = pad
            parts.append(jax.lax.slice_in_dim(jnp.pad(cells, widths), start, start + size, axis=axis))
    return jnp.concatenate(parts, -1)


_FACING_ORDER = jnp.array([[4, 5, 2, 3, 1, 0], [1, 0, 2, 3, 5, 4], [5, 4, 2, 3, 0, 1], [0, 1, 2, 3, 4, 5]])
"""Per quarter turn of the Builder's yaw (0, 90, 180, 270 degrees: facing +z, -x, -z, +x), the
indices into ``neighbour_features``' order of the neighbours behind, in front, below, above, to the
left and to the right."""


def builder_frame_neighbours(features: Array, near: Array) -> Array:
    """Features (N, 11, 9, 11, 11) and their ``neighbour_features`` (N, 11, 9, 11, 42) -> the same
    (N, 11, 9, 11, 42) in the Builder's frame (behind, front, below, above, left, right) at the
    quarter turn nearest its yaw. The yaw is read from the perspective channels' step along x
    (forward changes by -sin(yaw) / 10, right by -cos(yaw) / 10), so the features need nothing
    beside ``world_features``."""
    step = features[:, 1, 0, 0, -3:-1] - features[:, 0, 0, 0, -3:-1]  # (N, 2): forward, right
    yaw = jnp.arctan2(-step[:, 0], -step[:, 1])
    quarter = jnp.round(yaw / (jnp.pi / 2)).astype(jnp.int32) % 4
    near = near.reshape(*features.shape[:-1], 6, NUM_COLOURS + 1)
    order = _FACING_ORDER[quarter][:, None, None, None, :, None]
    return jnp.take_along_axis(near, order, axis=-2).reshape(*features.shape[:-1], -1)


class _SetBlock(nn.Module):
    """Pre-norm self-attention over a set (under ``mask``), then a 2x feed-forward."""

    heads: int

    @nn.compact
    def __call__(self, x: Array, mask: Array) -> Array:
        q = nn.LayerNorm()(x)
        x = x + nn.MultiHeadDotProductAttention(self.heads)(q, q, mask=mask)
        return x + nn.Dense(x.shape[-1])(nn.relu(nn.Dense(2 * x.shape[-1])(nn.LayerNorm()(x))))


class SetWorldEncoder(nn.Module):
    """(..., 11, 9, 11, 11) features -> (..., 11, 9, 11, width).

    Every cell is embedded from its 11 features, its neighbours' cell one-hots (with ``builder_frame``
    also in the Builder's frame: ``builder_frame_neighbours``) and learned x / y / z position
    embeddings. The occupied or recently changed cells (at most ``MAX_BLOCKS``, in flat order) and
    one learned board token form a set; ``layers`` self-attention blocks mix it, and
    every cell adds a projection of the board token's output. Per cell this is two small matrix
    products, so the encoder costs what the set holds."""

    width: int = 32
    layers: int = 2
    heads: int = 4
    builder_frame: bool = False

    @nn.compact
    def __call__(self, features: Array) -> Array:
        lead = features.shape[:-4]
        x = features.reshape(-1, *features.shape[-4:])
        n = x.shape[0]
        near = neighbour_features(x)
        inputs = [x, near] + ([builder_frame_neighbours(x, near)] if self.builder_frame else [])
        position = sum(
            nn.Embed(size, self.width, name=f"position_{axis}")(jnp.arange(size)).reshape(
                [size if a == axis else 1 for a in range(3)] + [self.width]
            )
            for axis, size in enumerate(SHAPE)
        )
        cells = nn.Dense(self.width)(jnp.concatenate(inputs, -1)) + position
        cells = cells.reshape(n, -1, self.width)
        present = ((x[..., 0] < 0.5) | (x[..., NUM_COLOURS + 1] > 0)).reshape(n, -1)  # a block, or changed lately
        index = jax.vmap(lambda p: jnp.nonzero(p, size=MAX_BLOCKS, fill_value=0)[0])(present)
        valid = jnp.arange(MAX_BLOCKS)[None] < present.sum(-1, keepdims=True)
        tokens = jnp.take_along_axis(cells, index[..., None], 1)
        board = self.param("board_token", nn.initializers.normal(0.02), (self.width,))
        tokens = jnp.concatenate([jnp.broadcast_to(board, (n, 1, self.width)), tokens], 1)
        valid = jnp.concatenate([jnp.ones((n, 1), bool), valid], 1)
        for _ in range(self.layers):
            tokens = _SetBlock(self.heads)(tokens, nn.make_attention_mask(valid, valid))
        cells = cells + nn.Dense(self.width)(nn.LayerNorm()(tokens[:, :1]))
        cells = nn.relu(nn.LayerNorm()(cells))
        return cells.reshape(*lead, *SHAPE, self.width)


class ActionHead(nn.Module):
    """(decoder state (..., H), world encoding (..., 11, 9, 11, C)) -> (..., 7624) logits."""

    hidden: int = 64

    @nn.compact
    def __call__(self, state: Array, world: Array) -> Array:
        cells = nn.Dense(self.hidden)(world) + nn.Dense(self.hidden)(state)[..., None, None, None, :]
        cell_logits = nn.Dense(ACTIONS_PER_CELL)(nn.relu(cells)).reshape(*state.shape[:-1], NUM_CELL_ACTIONS)
        pooled = world.max((-4, -3, -2))
        stop = nn.Dense(1)(nn.relu(nn.Dense(self.hidden)(jnp.concatenate([state, pooled], -1))))
        return jnp.concatenate([cell_logits, stop], -1)


class GruDecoder(nn.Module):
    """Dialogue tokens -> GRU encoder; GRU decoder over previous actions. With ``attention`` every
    decoder output also reads the encoder's token states (dot-product attention over the window):
    ``tanh(Dense(H)([output, attended]))``; without it the decoder sees the dialogue only through
    its initial state."""

    vocab_size: int
    embed_dim: int = 300
    hidden: int = 256
    action_dim: int = 64
    attention: bool = False

    def setup(self):
        self.embed = nn.Embed(self.vocab_size, self.embed_dim)
        self.encoder = nn.RNN(nn.GRUCell(self.hidden), return_carry=True)
        self.init_state = nn.Dense(self.hidden)
        self.action_in = nn.Sequential([nn.Dense(self.action_dim), nn.relu, nn.Dense(self.action_dim)])
        self.cell = nn.GRUCell(self.hidden)
        if self.attention:
            self.query = nn.Dense(self.hidden, use_bias=False)
            self.combine = nn.Dense(self.hidden)

    def encode(self, tokens: Array) -> dict:
        """(B, L) int32 (0-padded) -> the initial decoder state ``carry`` (B, H); with ``attention``
        also the encoder's token states ``memory`` (B, L, H) and their ``mask`` (B, L) bool."""
        lengths = jnp.maximum((tokens != 0).sum(-1), 1)
        carry, states = self.encoder(self.embed(tokens), seq_lengths=lengths)
        context = {"carry": jnp.tanh(self.init_state(carry))}
        if self.attention:
            context |= {"memory": states, "mask": tokens != 0}
        return context

    def sequence(self, context: dict, previous: Array) -> Array:
        """Teacher forcing: previous actions (B, T) -> outputs (B, T, H)."""
        embedded = self.action_in(action_features(previous))
        _, outputs = nn.scan(
            lambda cell, c, x: cell(c, x), variable_broadcast="params", split_rngs={"params": False}, in_axes=1, out_axes=1
        )(self.cell, context["carry"], embedded)
        if not self.attention:
            return outputs
        scores = jnp.einsum("bth,blh->btl", self.query(outputs), context["memory"]) / jnp.sqrt(self.hidden)
        weights = jax.nn.softmax(jnp.where(context["mask"][:, None], scores, -1e9), -1)
        attended = jnp.einsum("btl,blh->bth", weights, context["memory"])
        return jnp.tanh(self.combine(jnp.concatenate([outputs, attended], -1)))


class _DecoderLayer(nn.Module):
    heads: int
    ffn: int

    @nn.compact
    def __call__(self, x: Array, memory: Array, memory_mask: Array) -> Array:
        causal = nn.make_causal_mask(jnp.ones(x.shape[:2], bool))
        x = nn.LayerNorm()(x + nn.MultiHeadDotProductAttention(self.heads)(x, x, mask=causal))
        cross = nn.make_attention_mask(jnp.ones(x.shape[:2], bool), memory_mask)
        x = nn.LayerNorm()(x + nn.MultiHeadDotProductAttention(self.heads)(x, memory, mask=cross))
        return nn.LayerNorm()(x + nn.Dense(x.shape[-1])(nn.relu(nn.Dense(self.ffn)(x))))


class TransformerDecoder(nn.Module):
    """Frozen text states -> Dense(width); a causal transformer decoder over previous actions."""

    width: int = 256
    layers: int = 5
    heads: int = 2
    ffn: int = 512
    max_steps: int = 32

    def setup(self):
        self.project = nn.Dense(self.width)
        self.action_in = nn.Sequential([nn.Dense(self.width), nn.relu, nn.Dense(self.width)])
        self.positions = nn.Embed(self.max_steps, self.width)
        self.blocks = [_DecoderLayer(self.heads, self.ffn) for _ in range(self.layers)]

    def sequence(self, text: Array, text_mask: Array, previous: Array) -> Array:
        """Projected text (B, L, width), its mask (B, L), previous actions (B, T) -> (B, T, width)."""
        x = self.action_in(action_features(previous)) + self.positions(jnp.arange(previous.shape[1]))[None]
        for block in self.blocks:
            x = block(x, text, text_mask)
        return x


class BuilderModel(nn.Module):
    """A decoder (``gru`` or ``transformer``) + a world encoder (``cnn`` or ``set``) + the action head.

    Inputs are a dict ``text``: ``tokens`` (B, L) int32 for ``gru``; ``states`` (B, L, D) float
    and ``mask`` (B, L) bool for ``transformer``."""

    kind: str
    vocab_size: int = 0
    max_steps: int = 32
    world_encoder: str = "set"
    cnn_width: int = 16
    set_width: int = 32
    head_hidden: int = 64
    text_attention: bool = False
    builder_frame: bool = False
    dropout: float = 0.0

    def setup(self):
        if self.kind == "gru":
            self.decoder = GruDecoder(self.vocab_size, attention=self.text_attention)
        elif self.kind == "transformer":
            self.decoder = TransformerDecoder(max_steps=self.max_steps)
        else:
            raise ValueError(f"unknown model {self.kind!r}; use one of {', '.join(MODELS)}")
        if self.world_encoder == "cnn":
            self.world = WorldEncoder(self.cnn_width)
        elif self.world_encoder == "set":
            self.world = SetWorldEncoder(self.set_width, builder_frame=self.builder_frame)
        else:
            raise ValueError(f"unknown world encoder {self.world_encoder!r}; use one of {', '.join(WORLDS)}")
        self.head = ActionHead(self.head_hidden)
        self.drop = nn.Dropout(self.dropout)

    def context(self, text: dict) -> dict:
        """What the decoder reads of the dialogue, computed once per item: the GRU's initial state
        (and its encoder's token states with ``text_attention``), or the projected text states and their mask."""
        if self.kind == "gru":
            return self.decoder.encode(text["tokens"])
        return {"memory": self.decoder.project(text["states"].astype(jnp.float32)), "mask": text["mask"]}

    def _outputs(self, context: dict, previous: Array) -> Array:
        if self.kind == "gru":
            return self.decoder.sequence(context, previous)
        return self.decoder.sequence(context["memory"], context["mask"], previous)

    def __call__(self, text: dict, previous: Array, features: Array, train: bool = False) -> Array:
        """Teacher forcing: previous actions (B, T) (-1 first), world features (B, T, 11, 9, 11, 11)
        -> logits (B, T, 7624). With ``train`` and ``dropout`` > 0 (needs a ``dropout`` rng): word
        dropout (each dialogue word becomes ``<unk>`` with probability ``dropout``, speaker marks kept; the
        transformer's projected text states get dropout instead), and dropout on the decoder
        states and the encoded world cells before the action head."""
        deterministic = not train or self.dropout == 0
        if self.kind == "gru" and not deterministic:
            tokens = text["tokens"]
            unknown = jax.random.bernoulli(self.make_rng("dropout"), self.dropout, tokens.shape) & (tokens >= len(SPECIAL))
            text = {**text, "tokens": jnp.where(unknown, UNKNOWN_TOKEN, tokens)}
        context = self.context(text)
        if self.kind == "transformer":
            context = {**context, "memory": self.drop(context["memory"], deterministic)}
        states = self.drop(self._outputs(context, previous), deterministic)
        return self.head(states, self.drop(self.world(features), deterministic))

    def step_logits(self, context: dict, previous: Array, t: Array, features: Array) -> Array:
        """Logits (B, 7624) of action ``t`` from the context, the actions so far ``previous`` (B, T)
        (-1 first; entries after ``t`` are ignored: both decoders are causal) and the current world
        features (B, 11, 9, 11, 11). The decoder re-reads the prefix (at most 21 actions, cheap next
        to the CNN), so one function serves both decoders."""
        return self.head(self._outputs(context, previous)[:, t], self.world(features))
