"""Augmentations of BAP items, corpus or simulated: colour permutation, rotation, synonym paraphrase.

* ``permute_colours``: blocks, actions, the colour of every earlier action in the history and the
  colour words of the chat; the inventory follows (the env derives it from the start structure).
* ``rotate``: quarter turns about the vertical axis through x = z = 0, the Builder's position
  turning with the blocks and its yaw gaining 90 degrees per turn, so every spatial relation in the
  Builder's frame of reference stays true. The region is symmetric, so nothing leaves it.
* ``paraphrase``: each occurrence of a word or phrase of a synonym group (``lexicon.SYNONYMS``)
  in a chat line becomes a random member of its group.

``action_codes`` maps action codes (``blocksworld.grid``) through a colour permutation and rotation,
so that a prediction made in a transformed copy of an item can be read in the original and back.

``augment`` makes copies of whole games: all items of a game share a copy's colour permutation and
rotation, and a history line is paraphrased the same way in every item that contains it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from blocksworld.grid import (
    ACTIONS_PER_CELL,
    COLOURS,
    NUM_CELL_ACTIONS,
    NUM_COLOURS,
    PICK,
    PLACE,
    REMOVE,
    SHAPE,
    STOP,
    X_RANGE,
    Z_RANGE,
    Block,
)
from blocksworld.item import BapItem
from blocksworld.lexicon import SYNONYMS

_COLOUR_WORD = re.compile(r"\b(" + "|".join(COLOURS) + r")\b", re.IGNORECASE)


def _map_blocks(item: BapItem, block: Callable[[Block], Block], **changes) -> BapItem:
    """The item with ``block`` applied to its start, end and actions (and ``changes``)."""
    return replace(
        item,
        start=tuple(sorted(map(block, item.start))),
        end=tuple(sorted(map(block, item.end))),
        actions=tuple((a[0], *block(a[1:])) for a in item.actions),
        **changes,
    )


def _validate_permutation(permutation: Sequence[int]) -> None:
    if sorted(permutation) != list(range(1, NUM_COLOURS + 1)):
        raise ValueError(f"colour permutation {list(permutation)} is not a permutation of 1..{NUM_COLOURS}")


def permute_colours(item: BapItem, permutation: Sequence[int]) -> BapItem:
    """``permutation[c - 1]`` is the new code of colour ``c``."""
    _validate_permutation(permutation)
    names = {old: COLOURS[new - 1] for old, new in zip(COLOURS, permutation)}

    def block(b: Block) -> Block:
        return (*b[:3], permutation[b[3] - 1])

    def word(match: re.Match) -> str:
        new = names[match.group(0).lower()]
        return new.capitalize() if match.group(0)[0].isupper() else new

    history = tuple((kind, names[text]) if kind in (PLACE, PICK) else (kind, _COLOUR_WORD.sub(word, text)) for kind, text in item.history)
    return _map_blocks(item, block, history=history)


def _turn(x: float, z: float, quarter_turns: int) -> tuple[float, float]:
    for _ in range(quarter_turns % 4):
        x, z = -z, x
    return x, z


def rotate(item: BapItem, quarter_turns: int) -> BapItem:
    """Turn the item by ``quarter_turns`` x 90 degrees: (x, z) -> (-z, x) per turn, yaw + 90."""

    def block(b: Block) -> Block:
        x, z = _turn(b[0], b[2], quarter_turns)
        return (x, b[1], z, b[3])

    px, py, pz, yaw, pitch = item.builder_pose
    px, pz = _turn(px, pz, quarter_turns)
    yaw = (yaw + 90.0 * quarter_turns + 180.0) % 360.0 - 180.0
    return _map_blocks(item, block, builder_pose=(px + 0.0, py, pz + 0.0, round(yaw, 6), pitch))


def action_codes(permutation: Sequence[int], quarter_turns: int) -> np.ndarray:
    """(STOP + 1,) int32: per action code, the code of the same action in the item after
    ``permute_colours(permutation)`` then ``rotate(quarter_turns)`` (a removal stays a removal; STOP
    stays STOP)."""
    _validate_permutation(permutation)
    cell, k = np.divmod(np.arange(NUM_CELL_ACTIONS), ACTIONS_PER_CELL)
    xi, yi, zi = np.unravel_index(cell, SHAPE)
    x, z = _turn(xi + X_RANGE[0], zi + Z_RANGE[0], quarter_turns)  # world coordinates, as ``rotate`` turns them
    colour = np.concatenate([np.asarray(permutation) - 1, [REMOVE]])[k]
    codes = np.ravel_multi_index((x - X_RANGE[0], yi, z - Z_RANGE[0]), SHAPE) * ACTIONS_PER_CELL + colour
    return np.append(codes, STOP).astype(np.int32)


_GROUP_OF = {phrase: group for group in SYNONYMS for phrase in group}
_PHRASE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _GROUP_OF), key=len, reverse=True)) + r")\b")


def paraphrase_text(text: str, rng: random.Random) -> str:
    """``text`` (lower case) with every synonym-group phrase replaced by a random group member."""
    return _PHRASE.sub(lambda m: rng.choice(_GROUP_OF[m.group(0)]), text.lower())


def paraphrase(item: BapItem, seed: int | str) -> BapItem:
    """Paraphrase every chat line of the history; line ``j`` draws from its own generator
    (``seed``, ``j``), so items of one game agree on their shared lines."""
    history = tuple(
        (kind, text) if kind in (PLACE, PICK) else (kind, paraphrase_text(text, random.Random(f"{seed}:{j}")))
        for j, (kind, text) in enumerate(item.history)
    )
    return replace(item, history=history)


def augment(items: Sequence[BapItem], copies: int, seed: int = 0, paraphrasing: bool = True) -> list[BapItem]:
    """``copies`` augmented copies of every item (in item order, copy by copy): per game and copy a
    random colour permutation and quarter turn, then (``paraphrasing``) a synonym paraphrase. A
    copy's structure id gets the suffix ``_<copy>`` (the corpus names its augmented games so)."""
    out = []
    for copy in range(copies):
        for item in items:
            key = f"{seed}:{item.game_id}:{copy}"
            rng = random.Random(key)
            permutation = rng.sample(range(1, NUM_COLOURS + 1), NUM_COLOURS)
            new = rotate(permute_colours(item, permutation), rng.randrange(4))
            if paraphrasing:
                new = paraphrase(new, key)
            structure = f"{item.structure_id}_{copy}"
            out.append(replace(new, structure_id=structure, game_id=item.game_id.replace(item.structure_id, structure)))
    return out
