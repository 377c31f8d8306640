"""What an agent can know of the blocks it placed in CrafText, from its own observations alone.

CrafText's structure checks count only blocks the agent placed, and in Craftax Classic's symbolic
observation a placed stone looks like a natural one. ``marker(env)`` gives an agent-side channel of
the 7 x 9 view's cells that hold a block the agent placed, worked out from consecutive views:

- it moved when the new view matches the previous one shifted by a cell towards its facing
  direction better than unshifted (a move also turns it that way); the marks then shift with the
  view;
- it placed a block when the facing cell turned into a block it can place (stone, table, furnace,
  sapling) from another kind;
- a mark stays while its cell keeps its kind (a sapling ripening or eaten stays one plant, as in the
  checkers) and leaves with the view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from craftext.checkers import block_kind


def symbolic_map(env: Any) -> tuple[int, ...]:
    """(H, W, C) of the map at the start of Classic's symbolic observation (the 7 x 9 view, one-hot
    blocks then the four mob kinds; Craftax's ``render_craftax_symbolic``); () for pixels and full Craftax."""
    if env.pixels or not env.classic:
        return ()
    from craftax.craftax_classic.constants import OBS_DIM, BlockType

    return (*OBS_DIM, len(BlockType) + 4)


def marker(env: Any) -> tuple[int, tuple[int, ...], Callable[[Array, Array], tuple[Array, Array]]] | None:
    """(size, map_shape, mark) of the placed-cells channel of a CrafText env (module docstring), None
    for pixels and full Craftax. ``mark(memory (size,), world (D,)) -> (memory, marked world (D + H * W,))``:
    the agent keeps the previous view's block kinds and its marks (``size`` = 2 H W floats, zeros
    before its first view), and the marks are appended to the map as its last channel
    (``map_shape`` = (H, W, C + 1))."""
    map_shape = symbolic_map(env)
    if not map_shape:
        return None
    h, w, channels = map_shape
    blocks = channels - 4  # one-hot blocks, then the four mob kinds
    cells = h * w * channels
    facing = cells + 12 + 4  # after the inventory (12) and the intrinsics (4): LEFT, RIGHT, UP, DOWN one-hot
    steps = jnp.asarray([[0, -1], [0, 1], [-1, 0], [1, 0]])
    placed_block = env.version.placed_block  # the block each PLACE_* action puts down
    placeable = np.zeros(blocks, bool)
    placeable[placed_block[placed_block >= 0]] = True
    placeable_kind = jnp.asarray(placeable)

    def shifted(grid, step, fill):
        """(h, w) ``grid`` seen from one cell further along ``step``: out[r, c] = grid[r + dr, c + dc]."""
        padded = jnp.pad(grid, 1, constant_values=fill)
        return jax.lax.dynamic_slice(padded, (1 + step[0], 1 + step[1]), (h, w))

    def mark(memory, world):
        view = world[:cells].reshape(h, w, channels)
        kind = block_kind(view[..., :blocks].argmax(-1))
        before = memory[: h * w].reshape(h, w).astype(jnp.int32) - 1  # -1: not seen
        marks = memory[h * w :].reshape(h, w) > 0.5
        step = steps[world[facing : facing + 4].argmax()]
        before_moved = shifted(before, step, -1)

        def mismatches(old):  # seen cells whose kind differs from the new view's
            return jnp.sum((old >= 0) & (old != kind))

        moved = mismatches(before_moved) < mismatches(before)
        before = jnp.where(moved, before_moved, before)
        marks = jnp.where(moved, shifted(marks, step, False), marks) & (before == kind)
        r, c = h // 2 + step[0], w // 2 + step[1]
        placed = ~moved & (before[r, c] >= 0) & (before[r, c] != kind[r, c]) & placeable_kind[kind[r, c]]
        marks = marks.at[r, c].set(marks[r, c] | placed)
        memory = jnp.concatenate([(kind + 1).ravel(), marks.ravel()]).astype(memory.dtype)
        channel = marks.astype(world.dtype)[..., None]
        return memory, jnp.concatenate([jnp.concatenate([view, channel], -1).ravel(), world[cells:]])

    return 2 * h * w, (h, w, channels + 1), mark
