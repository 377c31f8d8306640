"""Every word the blocks-world dialogue simulators say, and the synonym groups of the paraphraser.

Spatial words are reserved: openers, sign-offs and Builder lines never contain a relation phrase
(``RELATIONS``), a direction of the Builder-anchored phrases (``ANCHORS``) or a colour, so a
sentence's meaning is carried by its slots only. ``words()`` is the closed vocabulary of the
simulators (with the colours and number words), used to build a token table that never meets an
unknown word.
"""

from __future__ import annotations

import re

from blocksworld.grid import COLOURS

NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")

OPENERS = ("", "now ", "next, ", "okay, ", "ok ", "then ", "great, now ", "alright, ", "good. ", "perfect, ", "and ")
ENDINGS = ("", ".", " please", "!", " please.", " for me")
PLACE_VERBS = ("place", "put", "add", "put down", "set", "stick")
REMOVE_VERBS = ("remove", "take away", "get rid of", "break", "pick up")
NOUNS = ("block", "cube")
PLURAL_NOUNS = ("blocks", "cubes")
FLOATING = "floating"
GOING = "going"

EXPLICIT_PLACE = (
    "{verb} {obj} on the ground at square {x} from the west and {z} from the south",
    "on the ground, {x} from the west and {z} from the south, {verb} {obj}",
)
"""Absolute placements of the ``explicit`` simulator: squares counted 1..11 from the west (x = -5)
and south (z = -5) edges of the build region, independent of the Builder's pose."""

FIRST_BLOCK = (
    "start by placing {obj} on the ground",
    "first, put {obj} on the ground",
    "let's begin with {obj} on the ground",
    "place {obj} on the ground to start",
    "to begin, {verb} {obj} on the ground",
)
REMOVE_LAST = ("remove that block", "undo that last one", "take that one away", "actually, get rid of that block", "remove that one")

# Relations to a reference block, keyed by (Builder-frame axis, sign); axis 0 right, 1 up, 2 ahead.
RELATIONS = {
    (0, 1): ("to the right of",),
    (0, -1): ("to the left of",),
    (1, 1): ("on top of", "above"),
    (1, -1): ("below", "under", "underneath"),
    (2, 1): ("behind",),
    (2, -1): ("in front of",),
}
COMPOUND_UP = {1: "above", -1: "below"}
"""The vertical part of a 2D relation ("diagonally above and to the left of")."""
COUNTED = {(0, 1): "to the right", (0, -1): "to the left", (1, 1): "above", (1, -1): "below", (2, 1): "behind", (2, -1): "in front"}
"""Counted parts: "one to the left, two below and one in front of ..."."""
DIAGONALLY = ("diagonally ", "")

LAST_PLACED = (
    "the last block you placed",
    "the last block you added",
    "the last one you put down",
    "the block you just placed",
    "the last block",
)
LAST_REMOVED = ("the last block you removed", "the block you just removed", "the last one you took away")
UNIQUE_COLOUR = ("the {colour} block", "the {colour} one", "the {colour} cube")
EXTREMES = {
    (0, -1): ("leftmost",),
    (0, 1): ("rightmost",),
    (1, 1): ("highest", "topmost"),
    (1, -1): ("lowest", "bottom-most"),
    (2, -1): ("closest", "nearest"),
    (2, 1): ("furthest", "farthest"),
}
"""Extreme of a colour in the Builder's frame: "the leftmost red block" (closest: least ahead)."""
EXTREME_COLOUR = ("the {extreme} {colour} block", "the {extreme} {colour} one")

COLOUR_QUESTIONS = ("what colour?", "which color?", "what color should it be?", "which colour?")
COLOUR_ANSWERS = ("{colour}", "make it {colour}", "{colour} please", "{colour} ones")
WHERE_QUESTIONS = ("where?", "where should it go?", "where do you want it?", "where exactly?")
DIRECTION_QUESTIONS = ("which way?", "in which direction?", "which direction should it go?")
SIZE_QUESTIONS = ("how long?", "how big?", "what size?", "how many blocks?")
START_QUESTIONS = ("where should it start?", "where do i start it?", "starting where?")
DONE = ("done", "done!", "ok, done", "finished", "there you go")

# Shape-based dialogues.
BUILD_VERBS = ("build", "make", "create", "put down", "add")
SHAPE_NAMES = {
    ("row", False): ("row", "line"),
    ("row", True): ("column", "tower", "pillar", "stack"),
    ("diagonal", False): ("diagonal", "diagonal line"),
    ("diagonal", True): ("diagonal", "staircase", "stairway"),
    ("plane", False): ("plane", "layer", "floor"),
    ("plane", True): ("plane", "wall"),
}
ANCHORS = {
    (0, 1): ("to the right of you", "to your right"),
    (0, -1): ("to the left of you", "to your left"),
    (1, 1): ("up", "upwards"),
    (2, 1): ("away from you",),
    (2, -1): ("towards you",),
}
"""Builder-anchored directions of a shape, from its starting block ("going up and to your left")."""
LENGTH = ("{n} blocks long", "of {n} blocks", "{n} long")
HEIGHT = ("{n} blocks tall", "{n} blocks high", "of {n} blocks")
AREA = ("{da}x{db}", "{a} by {b}", "{a} blocks by {b} blocks")
"""Plane sizes: da / db in digits, a / b in words or digits."""
SHAPE_START = (", starting {where}", " starting {where}", ", beginning {where}")

SYNONYMS = (
    ("place", "put", "set"),
    ("block", "cube"),
    ("blocks", "cubes"),
    ("remove", "take away", "get rid of"),
    ("now", "next"),
    ("okay", "ok", "alright"),
    ("great", "good", "nice", "perfect"),
    ("on top of", "above"),
    ("below", "under", "underneath"),
    ("tower", "column", "pillar"),
    ("row", "line"),
    ("staircase", "stairway"),
    ("build", "make", "create"),
    ("closest", "nearest"),
    ("furthest", "farthest"),
    ("highest", "topmost"),
    ("lowest", "bottom-most"),
    ("start", "begin"),
    ("yes", "yeah", "yep"),
    ("sorry", "oops"),
    ("done", "finished"),
    ("another", "one more"),
    ("small", "little"),
    ("big", "large"),
)
"""Groups of interchangeable words or phrases for ``blocksworld.augment.paraphrase``."""

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_SLOT = re.compile(r"\{\w+\}")


def words() -> set[str]:
    """Every word any simulator line can contain (lower case, as ``blocksworld.tokenizer.words``
    splits them; punctuation and digits are not words here)."""
    texts: list[str] = list(COLOURS) + ["and", "of", "a", "an", "the"]
    for name, value in globals().items():
        if not name.isupper():
            continue
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
            texts += value
        elif isinstance(value, dict):
            for entries in value.values():
                texts += entries if isinstance(entries, tuple) else [entries]
    for group in SYNONYMS:
        texts += group
    return {w for text in texts for w in _WORD.findall(_SLOT.sub(" ", text.lower()))}
