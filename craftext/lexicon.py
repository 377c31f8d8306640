"""Word lists the instruction grammar draws from: synonyms for every block, item, achievement,
verb and spatial word, plus politeness, pacing and purpose phrases.

The lists are data, ``craftext/data/lexicon.json``, read once at import; edit them there. Each
list's **last** entry is held out of training phrasings (``held_out``): it appears only in the
``test_paraphrased`` split, together with held-out sentence frames. A new word goes before a
list's last entry; ``python -m craftext.dataset build`` then regenerates the shipped releases with
it (a new data version, since the phrasings change).

Names and what they hold (lists of phrases; tables map a key to such a list):

- ``BLOCKS`` / ``PLURALS`` / ``ITEMS``: names of every block (singular, plural) and of the mass
  nouns counted with ``UNITS`` (``1`` and ``"many"``: "a piece of", "pieces of");
  ``ACHIEVEMENTS`` / ``FULL_ACHIEVEMENTS``: phrasings of each Classic / full-game achievement;
  ``FULL_CHAINS``: (prerequisite, achievement) pairs of the full game's sequences.
- ``NUMBERS`` / ``CELLS`` (by count), ``SIDES``, ``ORIENTATIONS`` and ``CROSS_WORDS`` (by variant
  index), ``TIMES`` (0 day, 1 night), ``LINE_WORDS``, ``SQUARE_WORDS``, ``SEQUENCE`` ("then" /
  "and"), ``WITHOUT``, ``FRAME_WORDS``: the spatial, counting and sentence words.
- ``PLACE_VERBS``, ``BUILD_VERBS``, ``COLLECT_VERBS``, ``EXPLORE_VERBS``: verbs.
- ``POLITE``, ``CLOSERS``, ``ADVERBS``, ``OPENERS``, ``ENCOURAGEMENTS``, ``VOCATIVES``,
  ``PURPOSES``: manners and scene-setting in many registers; they never name a block, item or
  creature, so they cannot change what a goal asks. ``ADJECTIVES``: descriptive words by the kind
  of thing they may describe.
"""

from __future__ import annotations

import json
from importlib import resources


def _int_keys(pairs: list[tuple[str, list]]) -> dict:
    """JSON object -> dict, keys that are counts or indices ("1") back to ints."""
    return {int(key) if key.isdigit() else key: value for key, value in pairs}


_DATA = json.loads((resources.files("craftext") / "data" / "lexicon.json").read_text(encoding="utf-8"), object_pairs_hook=_int_keys)

BLOCKS: dict[str, list[str]] = _DATA["BLOCKS"]
PLURALS: dict[str, list[str]] = _DATA["PLURALS"]
ITEMS: dict[str, list[str]] = _DATA["ITEMS"]
UNITS: dict[int | str, list[str]] = _DATA["UNITS"]
ACHIEVEMENTS: dict[str, list[str]] = _DATA["ACHIEVEMENTS"]
SIDES: dict[str, list[str]] = _DATA["SIDES"]
NUMBERS: dict[int, list[str]] = _DATA["NUMBERS"]
CELLS: dict[int, list[str]] = _DATA["CELLS"]
PLACE_VERBS: list[str] = _DATA["PLACE_VERBS"]
BUILD_VERBS: list[str] = _DATA["BUILD_VERBS"]
COLLECT_VERBS: list[str] = _DATA["COLLECT_VERBS"]
POLITE: list[str] = _DATA["POLITE"]
CLOSERS: list[str] = _DATA["CLOSERS"]
ADVERBS: list[str] = _DATA["ADVERBS"]
PURPOSES: list[str] = _DATA["PURPOSES"]
LINE_WORDS: list[str] = _DATA["LINE_WORDS"]
ORIENTATIONS: dict[int, list[str]] = _DATA["ORIENTATIONS"]
SQUARE_WORDS: list[str] = _DATA["SQUARE_WORDS"]
CROSS_WORDS: dict[int, list[str]] = _DATA["CROSS_WORDS"]
TIMES: dict[int, list[str]] = _DATA["TIMES"]
EXPLORE_VERBS: list[str] = _DATA["EXPLORE_VERBS"]
SEQUENCE: dict[str, list[str]] = _DATA["SEQUENCE"]
WITHOUT: list[str] = _DATA["WITHOUT"]
FULL_ACHIEVEMENTS: dict[str, list[str]] = _DATA["FULL_ACHIEVEMENTS"]
FULL_CHAINS: tuple[tuple[str, str], ...] = tuple((first, then) for first, then in _DATA["FULL_CHAINS"])
OPENERS: list[str] = _DATA["OPENERS"]
ENCOURAGEMENTS: list[str] = _DATA["ENCOURAGEMENTS"]
ADJECTIVES: dict[str, list[str]] = _DATA["ADJECTIVES"]
VOCATIVES: list[str] = _DATA["VOCATIVES"]
FRAME_WORDS: dict[str, list[str]] = _DATA["FRAME_WORDS"]


def held_out(words: list[str]) -> str:
    """The entry of a word list reserved for test phrasings."""
    return words[-1]
