"""Elementary shapes and composite target structures of the BAP v2 shape-based simulators.

The six shapes (Jayannavar et al., appendix 11.4), drawn in a local (u, v) plane and embedded in
the world (v is "up" in a vertical embedding):

* ``row``: n >= 3 blocks along x, y (a column) or z;
* ``diagonal``: n >= 3 blocks, one step along each of two axes per block; horizontal (x-z plane)
  or vertical (x-y / z-y plane, going up);
* ``t``: a bar of odd length w >= 3 whose midpoint meets one end of a stem, h >= 3 tall in all;
* ``l``: two rows (w >= 2, h >= 2) joined at their ends;
* ``u``: a base w >= 3 with two parallel sides of equal length h >= 2 (corner included);
* ``plane``: a x b blocks with a >= 3, b >= 2 (either way round).

T, L and U lie horizontally or vertically, and a vertical one is up or upside down. A composite
structure (``shape_structure``) has at least one block on the ground, every shape shares a face or
an edge with an earlier one (so every block shares a face or an edge with another), shapes never
overlap, each shape has its own colour, and everything is inside the build region.
"""

from __future__ import annotations

import random
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass

from blocksworld.grid import BLOCKS_PER_COLOUR, NUM_COLOURS, X_RANGE, Y_RANGE, Z_RANGE, Block, in_region

Cell = tuple[int, int, int]
SHAPE_KINDS = ("row", "diagonal", "t", "l", "u", "plane")
NEIGHBOURS = tuple((dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1) if 1 <= abs(dx) + abs(dy) + abs(dz) <= 2)
"""The 18 offsets of the "connected neighbourhood": the 6 face and 12 edge neighbours."""


@dataclass(frozen=True)
class Shape:
    """One shape instance: ``kind`` (one of ``SHAPE_KINDS``), colour code 1..6, its world cells."""

    kind: str
    colour: int
    cells: tuple[Cell, ...]

    @property
    def blocks(self) -> tuple[Block, ...]:
        return tuple((*c, self.colour) for c in self.cells)

    @property
    def vertical(self) -> bool:
        """The shape spans more than one layer."""
        return len({c[1] for c in self.cells}) > 1

    @property
    def bottom(self) -> int:
        return min(c[1] for c in self.cells)


def _local(kind: str, rng: random.Random, max_length: int) -> tuple[list[tuple[int, int]], bool]:
    """(u, v) cells of a shape and whether it may be flipped upside down when vertical."""
    n = rng.randint(3, max_length)
    if kind == "row":
        return [(k, 0) for k in range(n)], False
    if kind == "diagonal":
        return [(k, k) for k in range(n)], False
    if kind == "plane":
        a, b = rng.randint(3, max(3, min(max_length, 4))), rng.randint(2, 3)
        if rng.random() < 0.5:
            a, b = b, a
        return [(u, v) for u in range(a) for v in range(b)], False
    if kind == "t":
        w = rng.choice(list(range(3, max_length + 1, 2)))
        return [(u, n - 1) for u in range(w)] + [(w // 2, v) for v in range(n - 1)], True
    if kind == "l":
        w, h = rng.randint(2, max_length), rng.randint(2, max_length)
        return [(0, v) for v in range(h)] + [(u, 0) for u in range(1, w)], True
    if kind == "u":
        h = rng.randint(2, max_length)
        return [(u, 0) for u in range(n)] + [(u, v) for u in (0, n - 1) for v in range(1, h)], True
    raise ValueError(f"unknown shape kind {kind!r}; use one of {SHAPE_KINDS}")


def sample_shape(rng: random.Random, kind: str, colour: int, max_length: int = 5) -> Shape:
    """A shape of ``kind`` with a random size (longest side <= ``max_length``) and orientation, its
    lowest cell at y = 1 and its cells near x = z = 0 (``place`` moves it)."""
    if max_length < 3:
        raise ValueError(f"max_length={max_length}: shapes need at least 3")
    local, flippable = _local(kind, rng, max_length)
    horizontal_axes = [0, 2]
    rng.shuffle(horizontal_axes)
    signs = (rng.choice((-1, 1)), rng.choice((-1, 1)))
    cells = []
    if kind == "row" and rng.random() < 1 / 3:  # a column
        cells = [(0, u, 0) for u, _ in local]
    elif kind != "row" and rng.random() < 0.5:  # vertical: u horizontal, v up (or down when flipped)
        height = max(v for _, v in local)
        flip = flippable and rng.random() < 0.5
        for u, v in local:
            cell = [0, height - v if flip else v, 0]
            cell[horizontal_axes[0]] = signs[0] * u
            cells.append(tuple(cell))
    else:  # horizontal: u and v on the two horizontal axes
        for u, v in local:
            cell = [0, 0, 0]
            cell[horizontal_axes[0]], cell[horizontal_axes[1]] = signs[0] * u, signs[1] * v
            cells.append(tuple(cell))
    base = min(c[1] for c in cells)
    return Shape(kind, colour, tuple(sorted((x, y - base + Y_RANGE[0], z) for x, y, z in cells)))


def translated(shape: Shape, offset: Cell) -> Shape:
    return Shape(shape.kind, shape.colour, tuple((x + offset[0], y + offset[1], z + offset[2]) for x, y, z in shape.cells))


def touches(cells: Iterable[Cell], others: Container[Cell]) -> bool:
    """Some cell shares a face or an edge with a cell of ``others``."""
    return any((x + dx, y + dy, z + dz) in others for x, y, z in cells for dx, dy, dz in NEIGHBOURS)


def connected(cells: Sequence[Cell]) -> bool:
    """Every cell is reachable from every other through shared faces or edges."""
    cells = set(cells)
    if not cells:
        return True
    seen, frontier = set(), [next(iter(cells))]
    while frontier:
        x, y, z = frontier.pop()
        if (x, y, z) in seen:
            continue
        seen.add((x, y, z))
        frontier += [(x + dx, y + dy, z + dz) for dx, dy, dz in NEIGHBOURS if (x + dx, y + dy, z + dz) in cells]
    return seen == cells


def shape_structure(
    rng: random.Random,
    num_shapes: int = 3,
    kinds: Sequence[str] = SHAPE_KINDS,
    max_length: int = 5,
    max_attempts: int = 200,
) -> list[Shape]:
    """``num_shapes`` shapes (kinds drawn with replacement from ``kinds``, distinct colours) forming
    one grounded, connected structure inside the build region; the first shape rests on the ground.
    Raises RuntimeError if no placement is found in ``max_attempts`` tries per shape."""
    if not 1 <= num_shapes <= NUM_COLOURS:
        raise ValueError(f"num_shapes={num_shapes}: use 1..{NUM_COLOURS} (one colour per shape)")
    unknown = set(kinds) - set(SHAPE_KINDS)
    if unknown or not kinds:
        raise ValueError(f"kinds={list(kinds)}: use a non-empty subset of {SHAPE_KINDS}")
    colours = rng.sample(range(1, NUM_COLOURS + 1), num_shapes)
    shapes: list[Shape] = []
    occupied: set[Cell] = set()
    for colour in colours:
        for _ in range(max_attempts):
            shape = sample_shape(rng, rng.choice(list(kinds)), colour, max_length)
            if len(shape.cells) > BLOCKS_PER_COLOUR:
                continue
            if not shapes:  # on the ground, anywhere in the region
                xs, zs = [c[0] for c in shape.cells], [c[2] for c in shape.cells]
                low_x, high_x = X_RANGE[0] - min(xs), X_RANGE[1] - max(xs)
                low_z, high_z = Z_RANGE[0] - min(zs), Z_RANGE[1] - max(zs)
                if low_x > high_x or low_z > high_z:
                    continue
                candidate = translated(shape, (rng.randint(low_x, high_x), 0, rng.randint(low_z, high_z)))
            else:  # one of its cells next to an existing cell
                anchor = rng.choice(sorted(occupied))
                step = rng.choice(NEIGHBOURS)
                own = rng.choice(shape.cells)
                target = (anchor[0] + step[0], anchor[1] + step[1], anchor[2] + step[2])
                candidate = translated(shape, tuple(t - o for t, o in zip(target, own)))
            if all(in_region(*c) for c in candidate.cells) and not occupied.intersection(candidate.cells):
                shapes.append(candidate)
                occupied.update(candidate.cells)
                break
        else:
            raise RuntimeError(f"no place for shape {len(shapes) + 1} of {num_shapes} after {max_attempts} attempts")
    return shapes
