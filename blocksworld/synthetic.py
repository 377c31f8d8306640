"""Synthetic blocks-world episodes, so every task runs without the corpus.

``random_structure`` grows a grounded, face-connected structure block by block;
``generate_items`` cuts its build order into BAP items whose Architect instruction places each new
block relative to the block it rests against, in the Builder's frame of reference
(``relation``); ``generate_targets`` gives empty-board Build items. Deterministic given a seed.
"""

from __future__ import annotations

import math

import numpy as np

from blocksworld.item import ARCHITECT, BapItem
from blocksworld.grid import BLOCKS_PER_COLOUR, COLOURS, FACES, NUM_COLOURS, PLACE, Block, in_region


def random_structure(rng: np.random.Generator, num_blocks: int) -> list[Block]:
    """Blocks in build order: the first on the floor near the centre, each next one face-adjacent
    to an earlier one (or on the floor next to it); at most 20 of a colour."""
    x, z = (int(v) for v in rng.integers(-2, 3, size=2))
    blocks = [(x, 1, z, int(rng.integers(1, NUM_COLOURS + 1)))]
    cells = {blocks[0][:3]}
    used = np.bincount([blocks[0][3]], minlength=NUM_COLOURS + 1)
    while len(blocks) < num_blocks:
        bx, by, bz, _ = blocks[int(rng.integers(len(blocks)))]
        dx, dy, dz = FACES[int(rng.integers(len(FACES)))]
        cell = (bx + dx, by + dy, bz + dz)
        if cell in cells or not in_region(*cell):
            continue
        colour = int(rng.integers(1, NUM_COLOURS + 1))
        if used[colour] >= BLOCKS_PER_COLOUR:
            continue
        used[colour] += 1
        cells.add(cell)
        blocks.append((*cell, colour))
    return blocks


def builder_pose(rng: np.random.Generator, blocks: list[Block]) -> tuple[float, float, float, float, float]:
    """A pose 6-9 cells from the blocks' centre, on the floor, facing it (yaw in degrees,
    Minecraft convention: facing (-sin yaw, cos yaw) in the (x, z) plane)."""
    cx, cz = np.mean([b[0] for b in blocks]), np.mean([b[2] for b in blocks])
    yaw = float(rng.uniform(-180.0, 180.0))
    distance = float(rng.uniform(6.0, 9.0))
    fx, fz = -math.sin(math.radians(yaw)), math.cos(math.radians(yaw))
    return (float(cx - distance * fx), 1.0, float(cz - distance * fz), yaw, float(rng.uniform(15.0, 45.0)))


def relation(offset: tuple[int, int, int], yaw: float) -> str:
    """Where a block at ``offset`` (a unit face step) from a reference block is, seen by a Builder
    with this yaw: "on top of", "below", "to the left of", "to the right of", "in front of",
    "behind"."""
    dx, dy, dz = offset
    if dy:
        return "on top of" if dy > 0 else "below"
    fx, fz = -math.sin(math.radians(yaw)), math.cos(math.radians(yaw))
    rx, rz = -math.cos(math.radians(yaw)), -math.sin(math.radians(yaw))
    ahead, right = dx * fx + dz * fz, dx * rx + dz * rz
    if abs(ahead) >= abs(right):
        return "behind" if ahead > 0 else "in front of"
    return "to the right of" if right > 0 else "to the left of"


def _instruction(blocks: list[Block], placed: list[Block], yaw: float) -> str:
    parts = []
    for block in placed:
        name = COLOURS[block[3] - 1]
        article = "an" if name[0] in "aeiou" else "a"
        earlier = [b for b in blocks if b != block]
        support = next(
            (b for b in reversed(earlier) if sum(abs(p - q) for p, q in zip(b[:3], block[:3])) == 1), None
        )
        if support is None:
            parts.append(f"put {article} {name} block on the ground")
        else:
            offset = tuple(p - q for p, q in zip(block[:3], support[:3]))
            parts.append(f"put {article} {name} block {relation(offset, yaw)} the {COLOURS[support[3] - 1]} one")
        blocks = blocks + [block]
    return ", then ".join(parts)


def generate_items(num_items: int, seed: int = 0, max_blocks: int = 12) -> list[BapItem]:
    """BAP items from random structures, each placing 1-3 blocks after one instruction."""
    rng = np.random.default_rng(seed)
    items: list[BapItem] = []
    game = 0
    while len(items) < num_items:
        structure = random_structure(rng, int(rng.integers(3, max_blocks + 1)))
        built: list[Block] = []
        history: list[tuple[str, str]] = []
        while len(built) < len(structure) and len(items) < num_items:
            run = structure[len(built) : len(built) + int(rng.integers(1, 4))]
            pose = builder_pose(rng, built or run)
            text = _instruction(built, run, pose[3])
            history.append((ARCHITECT, text))
            items.append(
                BapItem(
                    game_id=f"SYN-{seed}-{game}",
                    structure_id=f"S{game}",
                    split="synthetic",
                    sample_id=len(built),
                    start=tuple(sorted(built)),
                    end=tuple(sorted(built + run)),
                    actions=tuple((PLACE, *b) for b in run),
                    action_states=tuple(range(len(built), len(built) + len(run))),
                    history=tuple(history),
                    builder_pose=pose,
                )
            )
            history += [(PLACE, COLOURS[b[3] - 1]) for b in run]
            built += run
        game += 1
    return items


def generate_targets(num_targets: int, seed: int = 0, max_blocks: int = 20) -> list[BapItem]:
    """Build items: an empty start and a random target structure."""
    rng = np.random.default_rng(seed)
    targets = []
    for t in range(num_targets):
        structure = random_structure(rng, int(rng.integers(3, max_blocks + 1)))
        targets.append(
            BapItem(
                game_id=f"TARGET-{seed}-{t}",
                structure_id=f"T{t}",
                split="synthetic",
                sample_id=0,
                start=(),
                end=tuple(sorted(structure)),
                actions=(),
                action_states=(),
                history=(),
                builder_pose=builder_pose(rng, structure),
            )
        )
    return targets
