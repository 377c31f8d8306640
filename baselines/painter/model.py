"""The painter network: instruction tokens and the current board in, a paint per tile out.

Text (``text="learned"``): the current instruction and its context (earlier instructions) as
learned token embeddings with positions, a segment embedding (0 context, 1 current) and the
embedding of the number a token denotes ("fifth", "5": 5; 0 for other tokens), through
``text_layers`` transformer layers. ``text="minilm"``: the word pieces through the first
``text_layers`` layers of the pretrained MiniLM (segments as its token types; its word-piece table
is the frozen ``pretrained`` collection, the rest fine-tuned), projected to ``width``, plus the
number embedding. Board:
each of the 180 tiles embeds its colour, and its 1-based row and column through the same number
embedding (each by its own linear map), so "the fifth column" and column 5 start out alike; then
``tile_layers``
layers of self-attention over tiles, cross-attention to the text and an MLP. Each tile gets 9
logits: class 0 = leave it, class 1 + c = paint it colour c (0..7, 0 erases).
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp
from jax import Array

from baselines.painter.data import MAX_NUMBER
from baselines.text_encoders import minilm_bert
from hexagons.geometry import COLS, NUM_COLOURS, NUM_TILES

NUM_CLASSES = NUM_COLOURS + 1


class Block(nn.Module):
    """Pre-norm transformer block: self-attention, optional cross-attention, MLP."""

    width: int
    heads: int
    cross: bool

    @nn.compact
    def __call__(self, x: Array, mask: Array | None, memory: Array | None = None, memory_mask: Array | None = None) -> Array:
        attention = lambda: nn.MultiHeadDotProductAttention(num_heads=self.heads, qkv_features=self.width)  # noqa: E731
        x = x + attention()(nn.LayerNorm()(x), mask=mask)
        if self.cross:
            x = x + attention()(nn.LayerNorm()(x), memory, mask=memory_mask)
        h = nn.Dense(2 * self.width)(nn.LayerNorm()(x))
        return x + nn.Dense(self.width)(nn.gelu(h))


class PainterNet(nn.Module):
    """tokens (B, T) int32 (0 pads), numbers (B, T) int32 (0..18), segments (B, T) int32, board (B, 180)
    int32, hint (B, 180) int32 the rule baseline's classes (used when ``hints``) -> logits (B, 180, 9)."""

    vocabulary_size: int
    max_tokens: int
    width: int = 128
    heads: int = 4
    text_layers: int = 2
    tile_layers: int = 3
    hints: bool = False
    text: str = "learned"

    @nn.compact
    def __call__(self, tokens: Array, numbers: Array, segments: Array, board: Array, hint: Array) -> Array:
        present = tokens != 0
        number = nn.Embed(MAX_NUMBER + 1, self.width)
        if self.text == "minilm":
            bert = minilm_bert(self.text_layers, self.max_tokens, pooled=False, frozen_words=True, name="minilm")
            states = bert(tokens, present, segments)
            text = nn.Dense(self.width)(states) + number(numbers)
        else:
            text = (
                nn.Embed(self.vocabulary_size, self.width)(tokens)
                + nn.Embed(self.max_tokens, self.width)(jnp.arange(tokens.shape[-1]))
                + nn.Embed(2, self.width)(segments)
                + number(numbers)
            )
            text_mask = nn.make_attention_mask(present, present)
            for _ in range(self.text_layers):
                text = Block(self.width, self.heads, cross=False)(text, text_mask)
        text = nn.LayerNorm()(text)
        tile = jnp.arange(NUM_TILES)
        tiles = (
            nn.Embed(NUM_COLOURS, self.width)(board)
            + nn.Dense(self.width, use_bias=False)(number(tile // COLS + 1))
            + nn.Dense(self.width, use_bias=False)(number(tile % COLS + 1))
        )
        if self.hints:
            tiles = tiles + nn.Embed(NUM_CLASSES, self.width)(hint)
        cross_mask = nn.make_attention_mask(jnp.ones(board.shape, bool), present)
        for _ in range(self.tile_layers):
            tiles = Block(self.width, self.heads, cross=True)(tiles, None, text, cross_mask)
        return nn.Dense(NUM_CLASSES)(nn.LayerNorm()(tiles))
