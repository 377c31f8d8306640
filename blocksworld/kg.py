"""Knowledge graph of a blocks-world state inside jit (JerichoWorld-style, exact).

``graph(grid, inventory, yaw, capacity)`` turns a (11, 9, 11) grid, the (6,) inventory and the
Builder's yaw (degrees) into fixed-size int arrays: ``subject``, ``relation``, ``object`` (K,)
int32 ids into ``SCHEMA``'s entity and relation names, ``valid`` (K,) bool and ``overflow`` ()
bool (more facts than K; the first K in order are kept). Valid facts come first in (subject,
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
    "world": "BlocksWorld", "version": SCHEMA_VERSION, "relations": RELATIONS,
    "entities": ("you", *COLOURS, "ground", *(str(n) for n in range(BLOCKS_PER_COLOUR + 1)),
                 *(f"block at ({x}, {y}, {z})" for x, y, z in (to_world(*np.unravel_index(i, SHAPE)) for i in range(NUM_CELLS)))),
}
CAPACITY = 1024
_SLOTS = 2 + 4 * len(SIDES)  # per cell: has colour, on, then 4 spatial relations x 4 sides


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
    occupied = grid != 0
    cell = jnp.arange(NUM_CELLS).reshape(SHAPE)
    padded = jnp.pad(occupied, ((1, 1), (0, 0), (1, 1)))
    below = jnp.pad(occupied, ((0, 0), (1, 0), (0, 0)))[:, :-1, :]
    on = jnp.where(jnp.arange(SHAPE[1])[None, :, None] == 0, _NUMBERS - 1, _CELLS + cell - SHAPE[2])
    relation = side_relations(yaw)
    spatial_obj, spatial_present = [], []
    for name in RELATIONS[4:]:
        for k, (dx, dz) in enumerate(SIDES):
            spatial_obj.append(_CELLS + cell + dx * SHAPE[1] * SHAPE[2] + dz)
            neighbour = padded[1 + dx : 1 + dx + SHAPE[0], :, 1 + dz : 1 + dz + SHAPE[2]]
            spatial_present.append(occupied & neighbour & (relation[k] == RELATIONS.index(name)))
    obj = jnp.stack([grid.astype(jnp.int32), on, *spatial_obj], -1).reshape(NUM_CELLS, _SLOTS)
    present = jnp.stack([occupied, occupied & ((jnp.arange(SHAPE[1])[None, :, None] == 0) | below), *spatial_present], -1).reshape(NUM_CELLS, _SLOTS)
    rel = jnp.asarray([2, 3, *(r for r in range(4, 8) for _ in SIDES)])
    # "you has colour" and "colour amount n" come first (smaller subject ids), then cells x slots
    left = inventory > 0
    head_s = jnp.concatenate([jnp.zeros(len(COLOURS), jnp.int32), 1 + jnp.arange(len(COLOURS))])
    head_r = jnp.repeat(jnp.arange(2), len(COLOURS))
    head_o = jnp.concatenate([1 + jnp.arange(len(COLOURS)), _NUMBERS + jnp.clip(inventory, 0, BLOCKS_PER_COLOUR)])
    subject = jnp.concatenate([head_s, jnp.repeat(_CELLS + jnp.arange(NUM_CELLS), _SLOTS)])
    relation_id = jnp.concatenate([head_r, jnp.tile(rel, NUM_CELLS)])
    objects = jnp.concatenate([head_o, obj.reshape(-1)])
    keep = jnp.concatenate([left, left, present.reshape(-1)])
    slot = jnp.flatnonzero(keep, size=capacity, fill_value=0)
    count = keep.sum()
    valid = jnp.arange(capacity) < count
    return {"subject": jnp.where(valid, subject[slot], 0), "relation": jnp.where(valid, relation_id[slot], 0),
            "object": jnp.where(valid, objects[slot], 0), "valid": valid, "overflow": count > capacity}
