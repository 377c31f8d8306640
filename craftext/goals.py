"""Goals as data: a validated Python ``Goal`` and its fixed-length int encoding.

Every goal encodes to ``ENCODING_SIZE`` int32 slots with a canonical meaning, whatever the
scenario: the scenario id, then one group of slots per component a scenario may use (structure,
relative placement, collecting, counting placements, achievements, time of day, exploring). A
scenario reads only its components; unused slots hold -1 (0 for counts and flags). The checkers
evaluate each component once per step and combine them by scenario (``craftext.checkers``). Code
reads an encoding by name through ``GoalFields.of(encoding)``, never by slot number.

Construct goals with the classmethods (``Goal.line("stone", 3)``, ...) or directly as
``Goal(scenario, {argument: value}, classic)`` with the arguments of ``ARGUMENTS[scenario]``. Every
name, type and range is checked against the chosen Craftax version at construction and raises
``GoalError`` naming the field, never inside jit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from craftext.world import PLACEABLE, Version, version


class Scenario(IntEnum):
    ACHIEVEMENTS = 0
    BUILD_LINE = 1
    BUILD_SQUARE = 2
    BUILD_CROSS = 3
    PLACE_RELATIVE = 4
    COLLECT_THEN_PLACE = 5
    PLACE_THEN_COLLECT = 6
    CRAFT_ORDER = 7
    LINE_AND_PLACE = 8
    COLLECT_THEN_LINE = 9
    COLLECT_AND_SQUARE = 10
    TIME_PLACE = 11
    EXPLORE = 12


CATEGORIES = {
    Scenario.ACHIEVEMENTS: "Achievement",
    Scenario.EXPLORE: "Achievement",
    Scenario.BUILD_LINE: "Building",
    Scenario.BUILD_SQUARE: "Building",
    Scenario.BUILD_CROSS: "Building",
    Scenario.PLACE_RELATIVE: "Localization",
    Scenario.TIME_PLACE: "Localization",
    Scenario.COLLECT_THEN_PLACE: "Conditional",
    Scenario.PLACE_THEN_COLLECT: "Conditional",
    Scenario.CRAFT_ORDER: "Conditional",
    Scenario.LINE_AND_PLACE: "Combo",
    Scenario.COLLECT_THEN_LINE: "Combo",
    Scenario.COLLECT_AND_SQUARE: "Combo",
}

# Slots of the encoding.
SCENARIO = 0
STRUCT_KIND, STRUCT_BLOCK, STRUCT_SIZE, STRUCT_VARIANT, AGENT_BUILT = 1, 2, 3, 4, 5
PLACE_OBJECT, PLACE_TARGET, PLACE_SIDE, PLACE_DISTANCE = 6, 7, 8, 9
ITEM, ITEM_COUNT, OBJECT_COUNT = 10, 11, 12
ACHIEVE_1, ACHIEVE_2, ACHIEVE_3, FORBIDDEN, ORDERED = 13, 14, 15, 16, 17
NIGHT, EXPLORE_BLOCK = 18, 19
ENCODING_SIZE = 20

LINE, SQUARE, CROSS = 1, 2, 3
STRAIGHT, DIAGONAL, EITHER = 0, 1, 2
SIDES = {"left": 0, "right": 1, "up": 2, "down": 3, "west": 0, "east": 1, "north": 2, "south": 3}
SIDE_NAMES = ("left", "right", "up", "down")
LINE_SIZES, SQUARE_SIZES, CROSS_ARMS, DISTANCES = range(2, 8), range(2, 8), range(1, 4), range(1, 6)
ITEM_COUNTS, OBJECT_COUNTS = range(1, 10), range(1, 6)


class GoalFields(NamedTuple):
    """A goal encoding read by name: each field the slot(s) of ``encoding[..., SLOT]`` (numpy or JAX
    arrays, traced or not). Ids are block / item / achievement ids of the goal's Craftax version,
    -1 where a scenario does not use the slot; counts and flags 0 there."""

    scenario: Any  # a Scenario value
    structure_kind: Any  # LINE, SQUARE or CROSS
    structure_block: Any
    structure_size: Any  # a line's or square's size, a cross's arm
    structure_variant: Any  # STRAIGHT, DIAGONAL, EITHER (a cross: plus, x, either)
    agent_built: Any  # 1: only agent-placed blocks count
    place_object: Any  # the object a placement (or a count of placements) puts down
    place_target: Any  # the block it goes beside
    place_side: Any  # 0-3: left, right, up, down
    place_distance: Any
    item: Any
    item_count: Any
    object_count: Any
    required: Any  # (..., 3) achievement ids (a craft order's craft first)
    forbidden: Any
    ordered: Any  # ACHIEVEMENTS: in order; CRAFT_ORDER: 0 craft before collecting, 1 after
    night: Any
    explore_block: Any

    @classmethod
    def of(cls, encoding: Any) -> GoalFields:
        """The fields of an encoding (..., ENCODING_SIZE)."""
        e = encoding
        return cls(
            scenario=e[..., SCENARIO],
            structure_kind=e[..., STRUCT_KIND],
            structure_block=e[..., STRUCT_BLOCK],
            structure_size=e[..., STRUCT_SIZE],
            structure_variant=e[..., STRUCT_VARIANT],
            agent_built=e[..., AGENT_BUILT],
            place_object=e[..., PLACE_OBJECT],
            place_target=e[..., PLACE_TARGET],
            place_side=e[..., PLACE_SIDE],
            place_distance=e[..., PLACE_DISTANCE],
            item=e[..., ITEM],
            item_count=e[..., ITEM_COUNT],
            object_count=e[..., OBJECT_COUNT],
            required=e[..., ACHIEVE_1 : ACHIEVE_3 + 1],
            forbidden=e[..., FORBIDDEN],
            ordered=e[..., ORDERED],
            night=e[..., NIGHT],
            explore_block=e[..., EXPLORE_BLOCK],
        )


ARGUMENTS: dict[Scenario, tuple[str, ...]] = {
    Scenario.ACHIEVEMENTS: ("required", "forbidden", "ordered"),
    Scenario.BUILD_LINE: ("block", "size", "variant", "agent_built"),
    Scenario.BUILD_SQUARE: ("block", "size", "agent_built"),
    Scenario.BUILD_CROSS: ("block", "arm", "variant", "agent_built"),
    Scenario.PLACE_RELATIVE: ("obj", "target", "side", "distance"),
    Scenario.COLLECT_THEN_PLACE: ("item", "count", "obj", "place_count"),
    Scenario.PLACE_THEN_COLLECT: ("item", "count", "obj", "place_count"),
    Scenario.CRAFT_ORDER: ("craft", "item", "before"),
    Scenario.LINE_AND_PLACE: ("block", "size", "variant", "agent_built", "obj", "target", "side", "distance"),
    Scenario.COLLECT_THEN_LINE: ("item", "count", "block", "size", "variant", "agent_built"),
    Scenario.COLLECT_AND_SQUARE: ("item", "count", "block", "size", "agent_built"),
    Scenario.TIME_PLACE: ("obj", "night"),
    Scenario.EXPLORE: ("block",),
}
"""The arguments each scenario takes (all of them, no others)."""
_NAMES = ("block", "obj", "target", "item", "craft", "side", "variant")
_FLAGS = ("agent_built", "ordered", "before", "night")


class GoalError(ValueError):
    """A goal names something its Craftax version lacks, a value of the wrong type or out of range."""


@dataclass(frozen=True)
class Goal:
    """One goal: a scenario and its arguments (names, not ids), valid for ``classic`` or full Craftax.

    ``args`` may be given as a dict or as (name, value) pairs; it is stored sorted, with compass
    sides stored as the map sides they mean. Construction validates and encodes."""

    scenario: Scenario
    args: Any  # a dict or (name, value) pairs when given; stored as sorted (name, value) pairs
    classic: bool = True
    _slots: tuple[int, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.classic, (bool, np.bool_)):
            raise GoalError(f"field 'classic' must be a bool, got {self.classic!r}")
        scenario = _scenario(self.scenario)
        args = _arguments(scenario, self.args)
        slots = _encode(scenario, version(bool(self.classic)), args)
        if "side" in args:  # compass words are stored as the map sides they mean
            args["side"] = SIDE_NAMES[SIDES[args["side"]]]
        object.__setattr__(self, "scenario", scenario)
        object.__setattr__(self, "classic", bool(self.classic))
        object.__setattr__(self, "args", tuple(sorted(args.items())))
        object.__setattr__(self, "_slots", tuple(int(v) for v in slots))

    # ------------------------------------------------------------ construction
    @classmethod
    def achievements(
        cls, required: list[str] | tuple[str, ...], forbidden: str | None = None, ordered: bool = False, classic: bool = True
    ) -> Goal:
        """Unlock every ``required`` achievement (1-3; in the given order if ``ordered``) without
        unlocking ``forbidden``."""
        return cls(Scenario.ACHIEVEMENTS, {"required": required, "forbidden": forbidden, "ordered": ordered}, classic)

    @classmethod
    def line(cls, block: str, size: int, variant: str = "straight", agent_built: bool = True, classic: bool = True) -> Goal:
        """Build ``size`` blocks in a row: ``variant`` "straight", "diagonal" or "either"."""
        return cls(Scenario.BUILD_LINE, {"block": block, "size": size, "variant": variant, "agent_built": agent_built}, classic)

    @classmethod
    def square(cls, block: str, size: int, agent_built: bool = True, classic: bool = True) -> Goal:
        """Build a filled ``size`` x ``size`` square of blocks."""
        return cls(Scenario.BUILD_SQUARE, {"block": block, "size": size, "agent_built": agent_built}, classic)

    @classmethod
    def cross(cls, block: str, arm: int, variant: str = "plus", agent_built: bool = True, classic: bool = True) -> Goal:
        """Build a cross: a centre block and ``arm`` blocks in each of four directions; ``variant``
        "plus" (+), "x" (diagonal) or "either"."""
        return cls(Scenario.BUILD_CROSS, {"block": block, "arm": arm, "variant": variant, "agent_built": agent_built}, classic)

    @classmethod
    def place_relative(cls, obj: str, target: str, side: str, distance: int, classic: bool = True) -> Goal:
        """Place ``obj`` exactly ``distance`` cells on ``side`` (left/right/up/down or west/east/
        north/south on the map) of a ``target`` block."""
        return cls(Scenario.PLACE_RELATIVE, {"obj": obj, "target": target, "side": side, "distance": distance}, classic)

    @classmethod
    def collect_then_place(cls, item: str, count: int, obj: str, place_count: int = 1, classic: bool = True) -> Goal:
        """Collect ``count`` ``item``, then place ``place_count`` ``obj``."""
        return cls(Scenario.COLLECT_THEN_PLACE, {"item": item, "count": count, "obj": obj, "place_count": place_count}, classic)

    @classmethod
    def place_then_collect(cls, obj: str, place_count: int, item: str, count: int, classic: bool = True) -> Goal:
        """Place ``place_count`` ``obj``, then collect ``count`` ``item``."""
        return cls(Scenario.PLACE_THEN_COLLECT, {"item": item, "count": count, "obj": obj, "place_count": place_count}, classic)

    @classmethod
    def craft_order(cls, craft: str, item: str, before: bool = True, classic: bool = True) -> Goal:
        """Craft (the achievement ``make_*`` named ``craft``) before / after first collecting ``item``."""
        return cls(Scenario.CRAFT_ORDER, {"craft": craft, "item": item, "before": before}, classic)

    @classmethod
    def line_and_place(
        cls, block: str, size: int, variant: str, obj: str, target: str, side: str, distance: int, classic: bool = True
    ) -> Goal:
        """Build a line and place ``obj`` relative to ``target``, in any order."""
        args = {"block": block, "size": size, "variant": variant, "agent_built": True}
        args |= {"obj": obj, "target": target, "side": side, "distance": distance}
        return cls(Scenario.LINE_AND_PLACE, args, classic)

    @classmethod
    def collect_then_line(cls, item: str, count: int, block: str, size: int, variant: str = "straight", classic: bool = True) -> Goal:
        """Collect ``count`` ``item``, then build a line."""
        args = {"item": item, "count": count, "block": block, "size": size, "variant": variant, "agent_built": True}
        return cls(Scenario.COLLECT_THEN_LINE, args, classic)

    @classmethod
    def collect_and_square(cls, item: str, count: int, block: str, size: int, classic: bool = True) -> Goal:
        """Collect ``count`` ``item`` and build a square, in any order."""
        return cls(Scenario.COLLECT_AND_SQUARE, {"item": item, "count": count, "block": block, "size": size, "agent_built": True}, classic)

    @classmethod
    def time_place(cls, obj: str, night: bool, classic: bool = True) -> Goal:
        """Place ``obj`` while it is night (``night=True``) or day."""
        return cls(Scenario.TIME_PLACE, {"obj": obj, "night": night}, classic)

    @classmethod
    def explore(cls, block: str, classic: bool = True) -> Goal:
        """Bring a ``block`` into view that was out of view at an earlier step."""
        return cls(Scenario.EXPLORE, {"block": block}, classic)

    # ------------------------------------------------------------ views
    @property
    def category(self) -> str:
        return CATEGORIES[self.scenario]

    @property
    def arguments(self) -> dict[str, object]:
        return dict(self.args)

    def encode(self) -> np.ndarray:
        """(ENCODING_SIZE,) int32."""
        return np.array(self._slots, dtype=np.int32)

    @classmethod
    def decode(cls, slots: np.ndarray, classic: bool = True) -> Goal:
        """The goal of an encoding (inverse of ``encode``); ``GoalError`` naming the slot if it is
        not the canonical encoding of a valid goal."""
        return _decode(np.asarray(slots), classic)

    def to_json(self) -> dict:
        """The goal's fields of a goal-file record (``craftext.goalfile``): key, scenario, args,
        classic and category."""
        args = {k: list(v) if isinstance(v, tuple) else v for k, v in self.args}
        return {"key": self.key(), "scenario": self.scenario.name, "args": args, "classic": self.classic, "category": self.category}

    def key(self) -> str:
        """A stable identifier, e.g. ``BUILD_LINE(block=stone,size=3,variant=straight,agent_built=True)``."""
        inner = ",".join(f"{k}={'+'.join(v) if isinstance(v, tuple) else v}" for k, v in self.args)
        return f"{self.scenario.name}({inner})"


def _scenario(value: object) -> Scenario:
    if isinstance(value, Scenario):
        return value
    if isinstance(value, str) and value in Scenario.__members__:
        return Scenario[value]
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and int(value) in set(Scenario):
        return Scenario(int(value))
    raise GoalError(f"field 'scenario': {value!r} is not a scenario; use one of {', '.join(Scenario.__members__)}")


def _arguments(scenario: Scenario, args: Any) -> dict[str, Any]:
    """The arguments as a dict of checked types: names are strings, counts ints, flags bools,
    ``required`` a tuple of 1-3 strings and ``forbidden`` a string or None."""
    try:
        args = dict(args.items() if isinstance(args, dict) else args)
    except (TypeError, ValueError):
        raise GoalError(f"field 'args': expected a dict or (name, value) pairs, got {args!r}") from None
    expected = ARGUMENTS[scenario]
    unknown = [k for k in args if k not in expected]
    missing = [k for k in expected if k not in args]
    if unknown or missing:
        problem = "; ".join([f"unknown {unknown}"] * bool(unknown) + [f"missing {missing}"] * bool(missing))
        raise GoalError(f"field 'args' of {scenario.name}: {problem}; it takes {', '.join(expected)}")
    for name, value in args.items():
        if name in _NAMES and not isinstance(value, str):
            raise GoalError(f"field '{name}' must be a string, got {value!r}")
        if name in _FLAGS and not isinstance(value, (bool, np.bool_)):
            raise GoalError(f"field '{name}' must be a bool (True or False), got {value!r}")
    if scenario == Scenario.ACHIEVEMENTS:
        required = args["required"]
        if isinstance(required, str) or not isinstance(required, (list, tuple)) or not all(isinstance(r, str) for r in required):
            raise GoalError(f"field 'required' must be a list of 1-3 achievement names, got {required!r}")
        args["required"] = tuple(required)
        if args["forbidden"] is not None and not isinstance(args["forbidden"], str):
            raise GoalError(f"field 'forbidden' must be an achievement name or None, got {args['forbidden']!r}")
    return {k: bool(v) if k in _FLAGS else v for k, v in args.items()}


def _lookup(table: dict[str, int], name: object, kind: str, v: Version) -> int:
    if not isinstance(name, str) or name not in table:
        close = [n for n in table if isinstance(name, str) and (name in n or n in name)][:5]
        hint = f"; close: {', '.join(close)}" if close else ""
        raise GoalError(f"{kind} {name!r} does not exist in {v.name}{hint}")
    return table[name]


def _in(value: object, allowed: range, what: str) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or int(value) not in allowed:
        raise GoalError(f"{what} must be an int in {allowed.start}..{allowed.stop - 1}, got {value!r}")
    return int(value)


def _object(name: object, v: Version, what: str = "object") -> int:
    if name not in PLACEABLE:
        raise GoalError(f"{what} {name!r} cannot be placed: use one of {', '.join(PLACEABLE)}")
    return _lookup(v.blocks, name, "block", v)


def _item(name: object, v: Version) -> int:
    if name not in v.items:
        raise GoalError(f"item {name!r} cannot be collected in {v.name}: use one of {', '.join(v.items)}")
    return v.items.index(name)


def _variant(name: object, names: tuple[str, ...], what: str) -> int:
    if not isinstance(name, str) or name not in names:
        raise GoalError(f"{what} {name!r}: use one of {', '.join(names)}")
    return names.index(name)


def _encode(scenario: Scenario, v: Version, a: dict) -> np.ndarray:
    s = np.full(ENCODING_SIZE, -1, dtype=np.int32)
    s[SCENARIO] = scenario
    s[[AGENT_BUILT, ITEM_COUNT, OBJECT_COUNT, ORDERED, NIGHT]] = 0
    if "block" in a and scenario != Scenario.EXPLORE:
        kind = {Scenario.BUILD_SQUARE: SQUARE, Scenario.COLLECT_AND_SQUARE: SQUARE, Scenario.BUILD_CROSS: CROSS}.get(scenario, LINE)
        s[STRUCT_KIND] = kind
        s[STRUCT_BLOCK] = _object(a["block"], v, "block")
        if kind == CROSS:
            s[STRUCT_SIZE] = _in(a["arm"], CROSS_ARMS, "arm")
            s[STRUCT_VARIANT] = _variant(a["variant"], ("plus", "x", "either"), "cross variant")
        else:
            s[STRUCT_SIZE] = _in(a["size"], LINE_SIZES if kind == LINE else SQUARE_SIZES, "size")
            s[STRUCT_VARIANT] = _variant(a.get("variant", "straight"), ("straight", "diagonal", "either"), "line variant")
        s[AGENT_BUILT] = int(bool(a["agent_built"]))
    if "target" in a:
        s[PLACE_OBJECT] = _object(a["obj"], v)
        s[PLACE_TARGET] = _lookup(v.blocks, a["target"], "target block", v)
        if not isinstance(a["side"], str) or a["side"] not in SIDES:
            raise GoalError(f"side {a['side']!r}: use one of {', '.join(SIDES)}")
        s[PLACE_SIDE] = SIDES[a["side"]]
        s[PLACE_DISTANCE] = _in(a["distance"], DISTANCES, "distance")
    if "item" in a:
        s[ITEM] = _item(a["item"], v)
        s[ITEM_COUNT] = 1 if scenario == Scenario.CRAFT_ORDER else _in(a["count"], ITEM_COUNTS, "count")
    if "place_count" in a:
        s[PLACE_OBJECT] = _object(a["obj"], v)
        s[OBJECT_COUNT] = _in(a["place_count"], OBJECT_COUNTS, "place_count")
    if scenario == Scenario.ACHIEVEMENTS:
        required = a["required"]
        if not 1 <= len(required) <= 3 or len(set(required)) != len(required):
            raise GoalError(f"required achievements must be 1-3 distinct names, got {required!r}")
        for slot, name in zip((ACHIEVE_1, ACHIEVE_2, ACHIEVE_3), required):
            s[slot] = _lookup(v.achievements, name, "achievement", v)
        if a["forbidden"] is not None:
            if a["forbidden"] in required:
                raise GoalError(f"achievement {a['forbidden']!r} is both required and forbidden")
            s[FORBIDDEN] = _lookup(v.achievements, a["forbidden"], "achievement", v)
        s[ORDERED] = int(a["ordered"] and len(required) > 1)
    if scenario == Scenario.CRAFT_ORDER:
        if not a["craft"].startswith("make_"):
            raise GoalError(f"craft {a['craft']!r} must be a make_* achievement")
        s[ACHIEVE_1] = _lookup(v.achievements, a["craft"], "achievement", v)
        s[ORDERED] = 0 if a["before"] else 1
    if scenario == Scenario.TIME_PLACE:
        s[PLACE_OBJECT] = _object(a["obj"], v)
        s[NIGHT] = int(a["night"])
    if scenario == Scenario.EXPLORE:
        s[EXPLORE_BLOCK] = _lookup(v.blocks, a["block"], "block", v)
    return s


def _decode(s: np.ndarray, classic: bool) -> Goal:
    if s.shape != (ENCODING_SIZE,) or not np.issubdtype(s.dtype, np.integer):
        raise GoalError(f"an encoding is {ENCODING_SIZE} ints, got shape {s.shape} of {s.dtype}")
    v = version(classic)
    blocks = {i: n for n, i in v.blocks.items()}
    achievements = {i: n for n, i in v.achievements.items()}

    def pick(table: dict | tuple, slot: int, what: str, optional: bool = False):
        i = int(s[slot])
        if optional and i < 0:
            return None
        if i not in (table if isinstance(table, dict) else range(len(table))):
            raise GoalError(f"encoding slot {slot} ({what}): {i} is not a valid id in {v.name}")
        return table[i]

    scenario = _scenario(int(s[SCENARIO]))
    structure_variants = ("plus", "x", "either") if scenario == Scenario.BUILD_CROSS else ("straight", "diagonal", "either")
    values = {
        "block": lambda: pick(blocks, EXPLORE_BLOCK if scenario == Scenario.EXPLORE else STRUCT_BLOCK, "block"),
        "size": lambda: int(s[STRUCT_SIZE]),
        "arm": lambda: int(s[STRUCT_SIZE]),
        "variant": lambda: pick(structure_variants, STRUCT_VARIANT, "variant"),
        "agent_built": lambda: bool(s[AGENT_BUILT]),
        "obj": lambda: pick(blocks, PLACE_OBJECT, "object"),
        "target": lambda: pick(blocks, PLACE_TARGET, "target"),
        "side": lambda: pick(SIDE_NAMES, PLACE_SIDE, "side"),
        "distance": lambda: int(s[PLACE_DISTANCE]),
        "item": lambda: pick(v.items, ITEM, "item"),
        "count": lambda: int(s[ITEM_COUNT]),
        "place_count": lambda: int(s[OBJECT_COUNT]),
        "required": lambda: tuple(pick(achievements, a, "achievement") for a in (ACHIEVE_1, ACHIEVE_2, ACHIEVE_3) if s[a] >= 0),
        "forbidden": lambda: pick(achievements, FORBIDDEN, "achievement", optional=True),
        "ordered": lambda: bool(s[ORDERED]),
        "before": lambda: not bool(s[ORDERED]),
        "craft": lambda: pick(achievements, ACHIEVE_1, "achievement"),
        "night": lambda: bool(s[NIGHT]),
    }
    goal = Goal(scenario, {name: values[name]() for name in ARGUMENTS[scenario]}, classic)
    if not np.array_equal(goal.encode(), s):
        slot = int(np.flatnonzero(goal.encode() != s)[0])
        raise GoalError(f"encoding slot {slot} holds {int(s[slot])}, but {goal.key()} encodes it as {int(goal.encode()[slot])}")
    return goal
