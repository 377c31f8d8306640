"""Knowledge graph of a blocks-world state inside jit (JerichoWorld-style, exact).

``graph(grid, inventory, yaw, capacity)`` turns a (11, 9, 11) grid, the (6,) inventory and the
Builder's yaw (degrees) into fixed-size int arrays: ``subject``, ``relation``, ``object`` (K,)
int32 ids into ``SCHEMA``'s entity and relation names, ``valid`` (K,) bool and ``overflow`` ()
bool (more facts than K, or more than ``MAX_BLOCKS`` blocks; the first ones in order are kept). Valid facts come first in (subject,
relation, object) id order, so two graphs are equal exactly when their arrays are.

Facts: ``you has`` a colour with blocks left and that colour's ``amount``; for every block, its
``has colour``, ``on`` (the block below, or the ground), and ``left of`` / ``right of`` /
``in front of`` / ``behind`` each face-adjacent block in the same layer, in the Builder's frame
(the other block is to the right of it / to the left / farther ahead / nearer). The Builder sees
the whole region, so the ``observed`` and ``true`` scopes are the same graph.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from blocksworld.grid import BLOCKS_PER_COLOUR, COLOURS, NUM_CELLS, SHAPE, to_world

SCHEMA_VERSION = 1
SCOPES = ("observed", "true")
RELATIONS = ("has", "amount", "has colour", "on", "left of", "right of", "in front of", "behind")
SIDES = ((-1, 0), (0, -1), (0, 1), (1, 0))
"""(dx, dz) of the four same-layer neighbours, in increasing cell index (the object order)."""
_NUMBERS = 1 + len(COLOURS) + 1  # entity ids: you, colours, ground, numbers 0..20, cells
_CELLS = _NUMBERS + BLOCKS_PER_COLOUR + 1
SCHEMA = {
    "world": "BlocksWorld",
    "version": SCHEMA_VERSION,
    "relations": RELATIONS,
    "entities": (
        "you",
        *COLOURS,
        "ground",
        *(str(n) for n in range(BLOCKS_PER_COLOUR + 1)),
        *(f"block at ({x}, {y}, {z})" for x, y, z in (to_world(*np.unravel_index(i, SHAPE)) for i in range(NUM_CELLS))),
    ),
}
CAPACITY = 1024
MAX_BLOCKS = 256
"""Blocks described at most (the region holds 1,089; the corpus's structures hold about 100):
more set ``overflow``."""


def side_relations(yaw: Array) -> Array:
    """(4,) int32 relation id of a block to its neighbour on each of ``SIDES``, for a Builder
    yaw in degrees (Minecraft: forward = (-sin, cos), right = (-cos, -sin) in (x, z))."""
    rad = jnp.deg2rad(yaw)
    sides = jnp.asarray(SIDES, jnp.float32)
    right = sides[:, 0] * -jnp.cos(rad) + sides[:, 1] * -jnp.sin(rad)
    ahead = sides[:, 0] * -jnp.sin(rad) + sides[:, 1] * jnp.cos(rad)
    lateral = jnp.where(right > 0, RELATIONS.index("left of"), RELATIONS.index("right of"))
    depth = jnp.where(ahead > 0, RELATIONS.index("in front of"), RELATIONS.index("behind"))
    return jnp.where(jnp.abs(right) > jnp.abs(ahead), lateral, depth)


def graph(grid: Array, inventory: Array, yaw: Array, capacity: int = CAPACITY) -> dict[str, Array]:
    """The knowledge graph (module docstring) of one state."""
    occupied = (grid != 0).reshape(-1)
    cells = jnp.flatnonzero(occupied, size=MAX_BLOCKS, fill_value=0)  # blocks in cell order = subject order
    num_blocks = occupied.sum()
    real = jnp.arange(MAX_BLOCKS) < num_blocks
    layer = SHAPE[1] * SHAPE[2]
    x, y, z = cells // layer, cells // SHAPE[2] % SHAPE[1], cells % SHAPE[2]
    on = jnp.where(y == 0, _NUMBERS - 1, _CELLS + cells - SHAPE[2])
    rests = (y == 0) | occupied[jnp.maximum(cells - SHAPE[2], 0)]
    # the four sides, ordered per state by (relation id, neighbour cell): canonical within a block
    dx, dz = (jnp.asarray([s[i] for s in SIDES]) for i in (0, 1))
    nx, nz = x[:, None] + dx, z[:, None] + dz
    neighbour = cells[:, None] + dx * layer + dz
    touching = (nx >= 0) & (nx < SHAPE[0]) & (nz >= 0) & (nz < SHAPE[2]) & occupied[jnp.clip(neighbour, 0, NUM_CELLS - 1)]
    relation = side_relations(yaw)
    order = jnp.argsort(relation * len(SIDES) + jnp.arange(len(SIDES)))
    obj = jnp.concatenate([grid.reshape(-1)[cells, None].astype(jnp.int32), on[:, None], _CELLS + neighbour[:, order]], 1)
    present = jnp.concatenate([real[:, None], (real & rests)[:, None], real[:, None] & touching[:, order]], 1)
    rel = jnp.broadcast_to(jnp.concatenate([jnp.array([2, 3]), relation[order]]), obj.shape)
    # "you has colour" and "colour amount n" come first (smaller subject ids), then blocks x slots
    left = inventory > 0
    subject = jnp.concatenate([jnp.zeros(len(COLOURS), jnp.int32), 1 + jnp.arange(len(COLOURS)), jnp.repeat(_CELLS + cells, obj.shape[1])])
    relation_id = jnp.concatenate([jnp.repeat(jnp.arange(2), len(COLOURS)), rel.reshape(-1)])
    objects = jnp.concatenate([1 + jnp.arange(len(COLOURS)), _NUMBERS + jnp.clip(inventory, 0, BLOCKS_PER_COLOUR), obj.reshape(-1)])
    keep = jnp.concatenate([left, left, present.reshape(-1)])
    slot = jnp.flatnonzero(keep, size=capacity, fill_value=0)
    count = keep.sum()
    valid = jnp.arange(capacity) < count
    return {
        "subject": jnp.where(valid, subject[slot], 0),
        "relation": jnp.where(valid, relation_id[slot], 0),
        "object": jnp.where(valid, objects[slot], 0),
        "valid": valid,
        "overflow": (count > capacity) | (num_blocks > MAX_BLOCKS),
    }
