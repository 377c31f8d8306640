"""Static quality checks of a CrafText goal and its phrasings, by the Craftax rules and the lexicon
(no world is played): ``infeasible`` (an ordered craft and collection that contradict the recipes)
and ``foreign_objects`` (a phrasing naming a block or item its goal does not involve). Used by the
generator of the v2 release and by ``craftext.validate``."""

from __future__ import annotations

import re

from craftext import lexicon
from craftext.expert import CRAFTS, PICKAXE_TIER, PICKAXES
from craftext.goals import Goal, Scenario
from craftext.world import ITEMS

FAMILIES = ({"wood", "tree"}, {"plant", "sapling", "ripe_plant", "grass"}, {"water", "drink"}, {"crafting_table", "table"})
"""Names that stand for one thing in a goal (wood is chopped from trees, a sapling found in grass
and planted there, a drink taken from water)."""
CRAFTING = {
    "wood": {"crafting_table", "wood"},
    "stone": {"crafting_table", "wood", "stone"},
    "iron": {"crafting_table", "furnace", "wood", "stone", "coal", "iron"},
    "diamond": {"crafting_table", "furnace", "wood", "diamond"},
}
"""What making a tool of each material involves (its recipe and stations)."""


GRAMMAR = (
    r"(VERBS|LINE_WORDS|SQUARE_WORDS|CROSS_WORDS|SEQUENCE|WITHOUT|SIDES|NUMBERS|CELLS|UNITS|ORIENTATIONS|TIMES|ADVERBS|ADJECTIVES|POLITE)$"
)
"""The lexicon's lists of grammar words (verbs, shapes, counts, manners), not flavour."""


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    values = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return [s for v in values for s in _strings(v)]


def _words(text: str) -> str:
    """``text`` as lowercase words between single spaces, with a space at each end."""
    return f" {' '.join(re.findall(r'[a-z]+', text.lower()))} "


def _synonyms() -> list[tuple[str, str]]:
    """(phrase, object) for every name of a block or item in the lexicon that names only it and is
    not part of the grammar's other words ("track" of "track down", "wall" of a line), longest
    phrase first."""
    names = (lexicon.BLOCKS, lexicon.PLURALS, lexicon.ITEMS)
    grammar = " ".join(_words(s) for key, value in vars(lexicon).items() if re.search(GRAMMAR, key) for s in _strings(value))
    table: dict[str, set[str]] = {}
    for source in names:
        for name, words in source.items():
            for word in words:
                table.setdefault(_words(word), set()).add(name)
    unambiguous = [(word, owners.pop()) for word, owners in table.items() if len(owners) == 1 and word not in grammar]
    return sorted(unambiguous, key=lambda pair: -len(pair[0]))


_SYNONYMS = _synonyms()


def involved(goal: Goal) -> set[str]:
    """Names of the blocks and items a goal is about (arguments and achievement words, with
    ``FAMILIES`` and ``CRAFTING``)."""
    names = set()
    for key, value in goal.args:
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, str) and key not in ("side", "variant"):
                names.add(v)
                words = v.split("_")
                names.update(words)
                if words[0] == "make" and words[1] in CRAFTING:
                    names |= CRAFTING[words[1]]
    for family in FAMILIES:
        if names & family:
            names |= family
    return names


def foreign_objects(goal: Goal, text: str) -> list[str]:
    """Blocks or items a phrasing names (by an unambiguous lexicon synonym, whole words, longest
    first) that its goal does not involve."""
    text, found = _words(text), []
    for phrase, name in _SYNONYMS:
        if phrase in text:
            text = text.replace(phrase, " | ")
            found.append(name)
    goal_names = involved(goal)
    return sorted({name for name in found if name not in goal_names})


def _materials(craft: str) -> set[str]:
    """Items that crafting ``craft`` needs collected first: its recipe, and what mining those needs."""
    recipe, _ = CRAFTS[craft]
    needed = {item for item, count in zip(ITEMS, recipe) if count}
    for item in list(needed):
        if PICKAXE_TIER.get(item, 0):
            needed |= _materials(PICKAXES[PICKAXE_TIER[item] - 1])
    return needed


def infeasible(goal: Goal) -> str | None:
    """Why a goal cannot be completed from the start of an episode (empty inventory) under the
    Craftax rules, or None: a ``CRAFT_ORDER`` whose craft needs its item collected first, or whose
    item needs the crafted pickaxe to be mined."""
    if goal.scenario != Scenario.CRAFT_ORDER:
        return None
    a = goal.arguments
    if a["craft"] not in CRAFTS:
        return None
    if a["before"] and a["item"] in _materials(a["craft"]):
        return f"{a['craft']} needs {a['item']} collected first, so it cannot come before collecting {a['item']}"
    if not a["before"] and a["craft"] in PICKAXES and PICKAXE_TIER.get(a["item"], 0) > PICKAXES.index(a["craft"]):
        return f"mining {a['item']} needs the pickaxe of {a['craft']} (or a better one), so it cannot be collected before {a['craft']}"
    return None
