"""The Builder's frame of reference: poses that face the action area and offsets in (right, up, ahead).

Minecraft yaw (degrees): a Builder with yaw 0 faces +z, yaw 90 faces -x; its right is
(-cos yaw, -sin yaw) in the (x, z) plane. Spatial language is relative to the cardinal direction
nearest to the yaw (``frame``); ``sample_pose`` keeps the yaw within 30 degrees of one, so "left"
and "in front of" are never ambiguous. "Ahead" points away from the Builder: a block ahead of a
reference block is *behind* it, one with negative ahead is *in front of* it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable

Pose = tuple[float, float, float, float, float]
"""(x, y, z, yaw, pitch) of the Builder, degrees."""

_FACING = ((0, 1), (-1, 0), (0, -1), (1, 0))
"""(x, z) forward unit vectors for yaw 0, 90, 180, 270."""


def frame(yaw: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """(forward, right) integer (x, z) unit vectors of the cardinal direction nearest to ``yaw``."""
    fx, fz = _FACING[round(yaw / 90.0) % 4]
    return (fx, fz), (-fz, fx)


def to_builder(offset: tuple[int, int, int], yaw: float) -> tuple[int, int, int]:
    """(right, up, ahead) of a world offset (dx, dy, dz)."""
    (fx, fz), (rx, rz) = frame(yaw)
    dx, dy, dz = offset
    return dx * rx + dz * rz, dy, dx * fx + dz * fz


def to_world(right: int, up: int, ahead: int, yaw: float) -> tuple[int, int, int]:
    """World offset (dx, dy, dz) of a (right, up, ahead) offset."""
    (fx, fz), (rx, rz) = frame(yaw)
    return right * rx + ahead * fx, up, right * rz + ahead * fz


def sample_pose(rng: random.Random, focus: Iterable[tuple[int, ...]], occupied: set[tuple[int, int, int]]) -> Pose:
    """A pose on the floor 4-8 cells from the centre of the ``focus`` cells, facing it, with the yaw
    within 30 degrees of a cardinal direction and the Builder's two cells free of blocks."""
    focus = list(focus)
    cx = sum(c[0] for c in focus) / len(focus)
    cz = sum(c[2] for c in focus) / len(focus)
    while True:
        yaw = 90.0 * rng.randrange(4) + rng.uniform(-30.0, 30.0)
        distance = rng.uniform(4.0, 8.0)
        fx, fz = -math.sin(math.radians(yaw)), math.cos(math.radians(yaw))
        x, z = cx - distance * fx, cz - distance * fz
        cell = (math.floor(x + 0.5), 1, math.floor(z + 0.5))
        if cell not in occupied and (cell[0], 2, cell[2]) not in occupied:
            yaw = (yaw + 180.0) % 360.0 - 180.0
            return (round(x, 3), 1.0, round(z, 3), round(yaw, 3), round(rng.uniform(20.0, 50.0), 3))
