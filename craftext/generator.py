"""Instruction generator: every goal of each scenario's parameter space, phrased by a grammar.

Hierarchy: scenario -> goal (a parameterised scenario, ``craftext.goals.Goal``) -> phrasings.
Levels follow the paper's rule: **easy** = achievement goals (and exploring), **medium** = short
prerequisite chains (small structures, placements, conditionals on wood / stone / saplings),
**hard** = complex goals or long chains (crosses, big structures, combinations, conditionals on
coal / iron / diamond or iron tools).

Splits per level: ``train``; ``test_paraphrased`` = training goals phrased only with held-out
sentence frames (the last frame of each scenario) and the full synonym lists, whose last entry
never appears in training phrasings; ``test_new_objects`` = goals whose parameter combination
(``combination``: the blocks / items / achievements involved, not sizes) is held out of training
altogether. Deterministic given a seed; no language model involved.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Callable

import numpy as np

from craftext import lexicon as L
from craftext.goals import (
    CROSS_ARMS,
    DISTANCES,
    LINE_SIZES,
    SIDE_NAMES,
    SQUARE_SIZES,
    Goal,
    Scenario,
)
from craftext.world import PLACEABLE, version

LEVELS = ("easy", "medium", "hard")
SPLITS = ("train", "test_paraphrased", "test_new_objects")
TARGETS = ("grass", "water", "stone", "tree", "sand", "path", "coal", "iron", "diamond", "lava", "crafting_table", "furnace", "plant")
FULL_TARGETS = TARGETS + ("sapphire", "ruby", "fountain", "fire_grass", "ice_grass", "gravel", "chest")
EXPLORE_BLOCKS = ("water", "sand", "tree", "coal", "iron", "diamond", "lava")
FULL_EXPLORE = EXPLORE_BLOCKS + ("sapphire", "ruby", "fountain", "chest")
CRAFTS = ("make_wood_pickaxe", "make_wood_sword", "make_stone_pickaxe", "make_stone_sword", "make_iron_pickaxe", "make_iron_sword")
CHAINS = (  # natural two-step achievement orders of the Craftax tech tree
    ("collect_wood", "place_table"),
    ("place_table", "make_wood_pickaxe"),
    ("place_table", "make_wood_sword"),
    ("make_wood_pickaxe", "collect_stone"),
    ("collect_stone", "place_stone"),
    ("collect_stone", "place_furnace"),
    ("make_wood_pickaxe", "collect_coal"),
    ("collect_stone", "make_stone_pickaxe"),
    ("collect_stone", "make_stone_sword"),
    ("make_stone_pickaxe", "collect_iron"),
    ("collect_iron", "make_iron_pickaxe"),
    ("collect_iron", "make_iron_sword"),
    ("make_iron_pickaxe", "collect_diamond"),
    ("collect_sapling", "place_plant"),
    ("place_plant", "eat_plant"),
    ("make_wood_sword", "defeat_zombie"),
    ("make_stone_sword", "defeat_skeleton"),
    ("collect_drink", "wake_up"),
    ("eat_cow", "wake_up"),
    ("collect_wood", "collect_sapling"),
)
ACHIEVEMENT_WORDS = {**L.ACHIEVEMENTS, **L.FULL_ACHIEVEMENTS}
DEEP = {"coal", "iron", "diamond", "ruby", "sapphire", "make_iron_pickaxe", "make_iron_sword", "make_stone_pickaxe", "make_stone_sword"}


# ----------------------------------------------------------------------------- parameter spaces
def parameter_space(classic: bool = True) -> list[Goal]:
    """Every goal of every scenario for one Craftax version."""
    v = version(classic)
    objects, items = list(PLACEABLE), v.items
    targets = TARGETS if classic else FULL_TARGETS
    goals: list[Goal] = []
    achievements = list(ACHIEVEMENT_WORDS) if not classic else list(L.ACHIEVEMENTS)
    chains = CHAINS if classic else CHAINS + L.FULL_CHAINS
    goals += [Goal.achievements([a], classic=classic) for a in achievements]
    goals += [Goal.achievements([a, b], ordered=True, classic=classic) for a, b in chains]
    goals += [Goal.achievements([a, b], classic=classic) for a, b in chains]
    goals += [
        Goal.achievements([a, b, c], ordered=True, classic=classic) for (a, b), (b2, c) in itertools.product(chains, chains) if b == b2
    ]
    goals += [
        Goal.achievements([a], forbidden=f, classic=classic)
        for a, f in itertools.permutations(
            ("collect_wood", "collect_sapling", "collect_drink", "eat_cow", "collect_stone", "place_stone", "defeat_zombie"), 2
        )
    ]
    goals += [Goal.explore(b, classic=classic) for b in (EXPLORE_BLOCKS if classic else FULL_EXPLORE)]
    for block, size, variant in itertools.product(objects, LINE_SIZES, ("straight", "diagonal", "either")):
        goals.append(Goal.line(block, size, variant, classic=classic))
    goals += [Goal.square(block, size, classic=classic) for block, size in itertools.product(objects, SQUARE_SIZES)]
    for block, arm, variant in itertools.product(objects, CROSS_ARMS, ("plus", "x", "either")):
        goals.append(Goal.cross(block, arm, variant, classic=classic))
    for obj, target, side, distance in itertools.product(objects, targets, SIDE_NAMES, DISTANCES):
        if obj != target:
            goals.append(Goal.place_relative(obj, target, side, distance, classic=classic))
    for item, count, obj, place_count in itertools.product(items, range(1, 6), objects, range(1, 4)):
        goals.append(Goal.collect_then_place(item, count, obj, place_count, classic=classic))
        goals.append(Goal.place_then_collect(obj, place_count, item, count, classic=classic))
    goals += [Goal.craft_order(c, i, before, classic=classic) for c, i, before in itertools.product(CRAFTS, items, (True, False))]
    for block, size, variant, target, side in itertools.product(
        ("stone", "crafting_table", "plant"), (2, 3, 4), ("straight", "diagonal"), ("water", "tree", "grass", "sand"), SIDE_NAMES
    ):
        goals.append(Goal.line_and_place(block, size, variant, block, target, side, 1, classic=classic))
    for item, count, block, size, variant in itertools.product(items, (1, 2, 3), objects, (2, 3, 4), ("straight", "diagonal")):
        goals.append(Goal.collect_then_line(item, count, block, size, variant, classic=classic))
    for item, count, block, size in itertools.product(items, (1, 2, 3), objects, (2, 3)):
        goals.append(Goal.collect_and_square(item, count, block, size, classic=classic))
    goals += [Goal.time_place(obj, night, classic=classic) for obj, night in itertools.product(objects, (False, True))]
    return goals


def level(goal: Goal) -> str:
    """easy / medium / hard by the paper's rule (see the module docstring)."""
    a, s = goal.arguments, goal.scenario
    if s in (Scenario.ACHIEVEMENTS, Scenario.EXPLORE):
        return "easy"
    named = {str(x) for x in a.values() if isinstance(x, str)}
    if s in (Scenario.BUILD_CROSS, Scenario.LINE_AND_PLACE, Scenario.COLLECT_THEN_LINE, Scenario.COLLECT_AND_SQUARE):
        return "hard"
    if s == Scenario.BUILD_LINE and a["size"] > 4 or s == Scenario.BUILD_SQUARE and a["size"] > 3:
        return "hard"
    if s in (Scenario.COLLECT_THEN_PLACE, Scenario.PLACE_THEN_COLLECT) and (a["count"] > 3 or a["place_count"] > 2):
        return "hard"
    return "hard" if named & DEEP else "medium"


def combination(goal: Goal) -> tuple:
    """The parameters a goal combines (blocks, items, achievements, variants; not sizes or counts)."""
    a = goal.arguments
    keep = ("required", "forbidden", "block", "variant", "obj", "target", "item", "craft", "night")
    return (goal.scenario.name,) + tuple((k, a[k]) for k in keep if k in a)


def held_out(goal: Goal) -> bool:
    """Whether the goal's combination is reserved for ``test_new_objects`` (a stable hash)."""
    return zlib.crc32(repr(combination(goal)).encode()) % 5 == 0


# ----------------------------------------------------------------------------- grammar
class _Words:
    """Word choices for one phrasing: training phrasings never see a list's held-out last entry."""

    def __init__(self, rng: np.random.Generator, test: bool):
        self.rng, self.test = rng, test

    def __call__(self, words: list[str]) -> str:
        pool = words if self.test or len(words) < 2 else words[:-1]
        return str(pool[self.rng.integers(len(pool))])


def _n(w: _Words, count: int) -> str:
    return w(L.NUMBERS[count])


def _adjective(w: _Words, kind: str) -> str:
    """An optional describing word (half of the time nothing)."""
    return f"{w(L.ADJECTIVES[kind])} " if w.rng.random() < 0.5 else ""


def _a(phrase: str) -> str:
    """``phrase`` with its indefinite article."""
    return ("an " if phrase[0] in "aeiou" else "a ") + phrase


def _thing(w: _Words, block: str, count: int) -> str:
    if count == 1:
        return _a(_adjective(w, block) + w(L.BLOCKS[block]))
    return f"{_n(w, count)} {_adjective(w, block)}{w(L.PLURALS[block])}"


def _line(w: _Words, a: dict) -> str:
    return (  # one f-string, so the words are drawn in this order
        f"{w(L.BUILD_VERBS)} {_a(_adjective(w, 'structure') + w(L.LINE_WORDS))} of {_n(w, a['size'])} "
        f"{w(L.PLURALS[a['block']])}{w(L.ORIENTATIONS[('straight', 'diagonal', 'either').index(a['variant'])])}"
    )


def _square(w: _Words, a: dict) -> str:
    k = a["size"]
    return f"{w(L.BUILD_VERBS)} {_a(_adjective(w, 'structure') + str(k))} by {k} {w(L.SQUARE_WORDS)} of {w(L.PLURALS[a['block']])}"


def _cross(w: _Words, a: dict) -> str:
    shape = w(L.CROSS_WORDS[("plus", "x", "either").index(a["variant"])])
    unit = "block" if a["arm"] == 1 else "blocks"
    return f"{w(L.BUILD_VERBS)} a {shape} of {w(L.PLURALS[a['block']])} with arms {_n(w, a['arm'])} {unit} long"


def _relative(w: _Words, a: dict) -> str:
    target = _adjective(w, "target") + w(L.BLOCKS[a["target"]])
    return f"{w(L.PLACE_VERBS)} {_thing(w, a['obj'], 1)} {w(L.CELLS[a['distance']])} {w(L.SIDES[a['side']])} the {target}"


def _amount(w: _Words, item: str, count: int) -> str:
    if count == 1:
        return f"{w(L.UNITS[1])} {w(L.ITEMS[item])}"
    return f"{_n(w, count)} {w(L.UNITS['many'])} {_adjective(w, 'item')}{w(L.ITEMS[item])}"


def _collect(w: _Words, a: dict) -> str:
    return f"{w(L.COLLECT_VERBS)} {_amount(w, a['item'], a['count'])}"


def _place_count(w: _Words, a: dict) -> str:
    return f"{w(L.PLACE_VERBS)} {_thing(w, a['obj'], a['place_count'])}"


def _core(goal: Goal, w: _Words) -> str:
    """The instruction's content, without politeness or purpose."""
    a, s = goal.arguments, goal.scenario
    if s == Scenario.ACHIEVEMENTS:
        parts = [w(ACHIEVEMENT_WORDS[x]) for x in a["required"]]
        joined = f" {w(L.SEQUENCE['then' if a['ordered'] else 'and'])} ".join(parts)
        if a["forbidden"]:
            joined += f", {w(L.WITHOUT)} {w(ACHIEVEMENT_WORDS[a['forbidden']])}"
        return joined
    if s == Scenario.EXPLORE:
        return f"{w(L.EXPLORE_VERBS)} some {w(L.BLOCKS[a['block']])}"
    if s == Scenario.BUILD_LINE:
        return _line(w, a)
    if s == Scenario.BUILD_SQUARE:
        return _square(w, a)
    if s == Scenario.BUILD_CROSS:
        return _cross(w, a)
    if s == Scenario.PLACE_RELATIVE:
        return _relative(w, a)
    if s == Scenario.COLLECT_THEN_PLACE:
        return f"{_collect(w, a)}, {w(L.SEQUENCE['then'])} {_place_count(w, a)}"
    if s == Scenario.PLACE_THEN_COLLECT:
        return f"{_place_count(w, a)}, {w(L.SEQUENCE['then'])} {_collect(w, a)}"
    if s == Scenario.CRAFT_ORDER:
        craft, item = w(L.ACHIEVEMENTS[a["craft"]]), w(L.ITEMS[a["item"]])
        return (
            f"{craft} before you {w(L.COLLECT_VERBS)} any {item}"
            if a["before"]
            else f"{w(L.COLLECT_VERBS)} some {item} first, {w(L.SEQUENCE['then'])} {craft}"
        )
    if s == Scenario.LINE_AND_PLACE:
        return f"{_line(w, a)} {w(L.SEQUENCE['and'])} {_relative(w, a)}"
    if s == Scenario.COLLECT_THEN_LINE:
        return f"{_collect(w, a)}, {w(L.SEQUENCE['then'])} {_line(w, a)}"
    if s == Scenario.COLLECT_AND_SQUARE:
        return f"{_collect(w, a)} {w(L.SEQUENCE['and'])} {_square(w, a)}"
    return f"{w(L.PLACE_VERBS)} {_thing(w, a['obj'], 1)} {w(L.TIMES[int(a['night'])])}"


# Sentence frames: (words, politeness, adverb, core, purpose, closer) -> text. The last one is held out.
Frame = Callable[[_Words, str, str, str, str, str], str]
FRAMES: list[Frame] = [
    lambda w, p, adv, c, why, end: f"{p}{adv}{c}{why}{end}.",
    lambda w, p, adv, c, why, end: f"your task is to {adv}{c}{why}.",
    lambda w, p, adv, c, why, end: f"here is what i want: {c}{end}.",
    lambda w, p, adv, c, why, end: f"{p}{adv}{c}{end}, and do it{why}.",
    lambda w, p, adv, c, why, end: f"the plan is simple: {c}{why}.",
    lambda w, p, adv, c, why, end: f"{w(L.FRAME_WORDS['wish'])} {adv}{c}{why}{end}.",
    lambda w, p, adv, c, why, end: f"{w(L.FRAME_WORDS['duty'])} {adv}{c}{why}.",
    lambda w, p, adv, c, why, end: f"{w(L.FRAME_WORDS['list'])}: {c}{end}. do it{why}.",
    lambda w, p, adv, c, why, end: f"{w(L.FRAME_WORDS['quest'])}: {adv}{c}{why}{end}.",
    lambda w, p, adv, c, why, end: f"listen up, explorer: {c}{why}, and report back when it is done.",
]


def phrase(goal: Goal, rng: np.random.Generator, test: bool = False) -> str:
    """One phrasing; ``test`` uses the held-out frame and the full synonym lists."""
    w = _Words(rng, test)
    frame = FRAMES[-1] if test else FRAMES[int(rng.integers(len(FRAMES) - 1))]
    text = (
        w(L.OPENERS)
        + w(L.VOCATIVES)
        + frame(w, w(L.POLITE), w(L.ADVERBS), _core(goal, w), w(L.PURPOSES), w(L.CLOSERS))
        + w(L.ENCOURAGEMENTS)
    )
    text = text.replace(" i ", " I ").replace("i need", "I need").replace("i would", "I would")
    text = ". ".join(part[:1].upper() + part[1:] for part in text.split(". "))
    return text[0].upper() + text[1:]


def phrasings(goal: Goal, count: int, rng: np.random.Generator, test: bool = False, tries: int = 50) -> list[str]:
    """``count`` distinct phrasings (fewer only if the grammar cannot produce more)."""
    out: list[str] = []
    for _ in range(tries * count):
        text = phrase(goal, rng, test)
        if text not in out:
            out.append(text)
        if len(out) == count:
            break
    return out
