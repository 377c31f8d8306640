"""Goals as data: a validated Python ``Goal`` and its fixed-length int encoding.

Every goal encodes to ``ENCODING_SIZE`` int32 slots with a canonical meaning, whatever the
scenario: the scenario id, then one group of slots per component a scenario may use (structure,
relative placement, collecting, counting placements, achievements, time of day, exploring). A
scenario reads only its components; unused slots hold -1 (0 for counts and flags). The checkers
evaluate each component once per step and combine them by scenario (``craftext.checkers``).

Construct goals with the classmethods (``Goal.line("stone", 3)``, ...); every name and range is
checked against the chosen Craftax version at construction and raises ``GoalError`` naming the
field, never inside jit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

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


class GoalError(ValueError):
    """A goal names something its Craftax version lacks, or a value out of range."""


@dataclass(frozen=True)
class Goal:
    """One goal: a scenario and its arguments (names, not ids), valid for ``classic`` or full Craftax."""

    scenario: Scenario
    args: tuple[tuple[str, object], ...]
    classic: bool = True
    _slots: tuple[int, ...] = field(default=(), compare=False, repr=False)

    # ------------------------------------------------------------ construction
    @classmethod
    def _make(cls, scenario: Scenario, classic: bool, **args) -> Goal:
        slots = _encode(scenario, version(classic), args)
        if "side" in args:  # compass words are stored as the map sides they mean
            args["side"] = SIDE_NAMES[SIDES[args["side"]]]
        return cls(scenario, tuple(sorted(args.items())), classic, tuple(int(v) for v in slots))

    @classmethod
    def achievements(
        cls, required: list[str] | tuple[str, ...], forbidden: str | None = None, ordered: bool = False, classic: bool = True
    ) -> Goal:
        """Unlock every ``required`` achievement (1-3; in the given order if ``ordered``) without
        unlocking ``forbidden``."""
        return cls._make(Scenario.ACHIEVEMENTS, classic, required=tuple(required), forbidden=forbidden, ordered=bool(ordered))

    @classmethod
    def line(cls, block: str, size: int, variant: str = "straight", agent_built: bool = True, classic: bool = True) -> Goal:
        """Build ``size`` blocks in a row: ``variant`` "straight", "diagonal" or "either"."""
        return cls._make(Scenario.BUILD_LINE, classic, block=block, size=size, variant=variant, agent_built=agent_built)

    @classmethod
    def square(cls, block: str, size: int, agent_built: bool = True, classic: bool = True) -> Goal:
        """Build a filled ``size`` x ``size`` square of blocks."""
        return cls._make(Scenario.BUILD_SQUARE, classic, block=block, size=size, agent_built=agent_built)

    @classmethod
    def cross(cls, block: str, arm: int, variant: str = "plus", agent_built: bool = True, classic: bool = True) -> Goal:
        """Build a cross: a centre block and ``arm`` blocks in each of four directions; ``variant``
        "plus" (+), "x" (diagonal) or "either"."""
        return cls._make(Scenario.BUILD_CROSS, classic, block=block, arm=arm, variant=variant, agent_built=agent_built)

    @classmethod
    def place_relative(cls, obj: str, target: str, side: str, distance: int, classic: bool = True) -> Goal:
        """Place ``obj`` exactly ``distance`` cells on ``side`` (left/right/up/down or west/east/
        north/south on the map) of a ``target`` block."""
        return cls._make(Scenario.PLACE_RELATIVE, classic, obj=obj, target=target, side=side, distance=distance)

    @classmethod
    def collect_then_place(cls, item: str, count: int, obj: str, place_count: int = 1, classic: bool = True) -> Goal:
        """Collect ``count`` ``item``, then place ``place_count`` ``obj``."""
        return cls._make(Scenario.COLLECT_THEN_PLACE, classic, item=item, count=count, obj=obj, place_count=place_count)

    @classmethod
    def place_then_collect(cls, obj: str, place_count: int, item: str, count: int, classic: bool = True) -> Goal:
        """Place ``place_count`` ``obj``, then collect ``count`` ``item``."""
        return cls._make(Scenario.PLACE_THEN_COLLECT, classic, item=item, count=count, obj=obj, place_count=place_count)

    @classmethod
    def craft_order(cls, craft: str, item: str, before: bool = True, classic: bool = True) -> Goal:
        """Craft (the achievement ``make_*`` named ``craft``) before / after first collecting ``item``."""
        return cls._make(Scenario.CRAFT_ORDER, classic, craft=craft, item=item, before=bool(before))

    @classmethod
    def line_and_place(
        cls, block: str, size: int, variant: str, obj: str, target: str, side: str, distance: int, classic: bool = True
    ) -> Goal:
        """Build a line and place ``obj`` relative to ``target``, in any order."""
        return cls._make(
            Scenario.LINE_AND_PLACE, classic, block=block, size=size, variant=variant, agent_built=True,
            obj=obj, target=target, side=side, distance=distance,
        )

    @classmethod
    def collect_then_line(cls, item: str, count: int, block: str, size: int, variant: str = "straight", classic: bool = True) -> Goal:
        """Collect ``count`` ``item``, then build a line."""
        return cls._make(
            Scenario.COLLECT_THEN_LINE, classic, item=item, count=count, block=block, size=size, variant=variant, agent_built=True
        )

    @classmethod
    def collect_and_square(cls, item: str, count: int, block: str, size: int, classic: bool = True) -> Goal:
        """Collect ``count`` ``item`` and build a square, in any order."""
        return cls._make(Scenario.COLLECT_AND_SQUARE, classic, item=item, count=count, block=block, size=size, agent_built=True)

    @classmethod
    def time_place(cls, obj: str, night: bool, classic: bool = True) -> Goal:
        """Place ``obj`` while it is night (``night=True``) or day."""
        return cls._make(Scenario.TIME_PLACE, classic, obj=obj, night=bool(night))

    @classmethod
    def explore(cls, block: str, classic: bool = True) -> Goal:
        """Bring a ``block`` into view that was out of view at an earlier step."""
        return cls._make(Scenario.EXPLORE, classic, block=block)

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
        """The goal of an encoding (inverse of ``encode``)."""
        return _decode(np.asarray(slots), classic)

    def key(self) -> str:
        """A stable identifier, e.g. ``BUILD_LINE(block=stone,size=3,variant=straight,agent_built=True)``."""
        inner = ",".join(f"{k}={'+'.join(v) if isinstance(v, tuple) else v}" for k, v in self.args)
        return f"{self.scenario.name}({inner})"


def _lookup(table: dict[str, int], name: object, kind: str, v: Version) -> int:
    if not isinstance(name, str) or name not in table:
        close = [n for n in table if isinstance(name, str) and (name in n or n in name)][:5]
        hint = f"; close: {', '.join(close)}" if close else ""
        raise GoalError(f"{kind} {name!r} does not exist in {v.name}{hint}")
    return table[name]


def _in(value: object, allowed: range, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in allowed:
        raise GoalError(f"{what} must be an int in {allowed.start}..{allowed.stop - 1}, got {value!r}")
    return value


def _object(name: object, v: Version, what: str = "object") -> int:
    if name not in PLACEABLE:
        raise GoalError(f"{what} {name!r} cannot be placed: use one of {', '.join(PLACEABLE)}")
    return _lookup(v.blocks, name, "block", v)


def _item(name: object, v: Version) -> int:
    if name not in v.items:
        raise GoalError(f"item {name!r} cannot be collected in {v.name}: use one of {', '.join(v.items)}")
    return v.items.index(name)


def _variant(name: object, names: tuple[str, ...], what: str) -> int:
    if name not in names:
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
        if a["side"] not in SIDES:
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
        if not str(a["craft"]).startswith("make_"):
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
    v = version(classic)
    block = {i: n for n, i in v.blocks.items()}
    ach = {i: n for n, i in v.achievements.items()}
    scenario = Scenario(int(s[SCENARIO]))
    variant = ("straight", "diagonal", "either")
    if scenario == Scenario.ACHIEVEMENTS:
        required = [ach[int(i)] for i in s[[ACHIEVE_1, ACHIEVE_2, ACHIEVE_3]] if i >= 0]
        forbidden = ach[int(s[FORBIDDEN])] if s[FORBIDDEN] >= 0 else None
        return Goal.achievements(required, forbidden, bool(s[ORDERED]), classic)
    if scenario == Scenario.BUILD_LINE:
        return Goal.line(block[int(s[STRUCT_BLOCK])], int(s[STRUCT_SIZE]), variant[s[STRUCT_VARIANT]], bool(s[AGENT_BUILT]), classic)
    if scenario == Scenario.BUILD_SQUARE:
        return Goal.square(block[int(s[STRUCT_BLOCK])], int(s[STRUCT_SIZE]), bool(s[AGENT_BUILT]), classic)
    if scenario == Scenario.BUILD_CROSS:
        return Goal.cross(block[int(s[STRUCT_BLOCK])], int(s[STRUCT_SIZE]), ("plus", "x", "either")[s[STRUCT_VARIANT]], bool(s[AGENT_BUILT]), classic)
    place = dict(obj=block.get(int(s[PLACE_OBJECT])), target=block.get(int(s[PLACE_TARGET])), side=SIDE_NAMES[s[PLACE_SIDE]] if s[PLACE_SIDE] >= 0 else None, distance=int(s[PLACE_DISTANCE]))
    item = v.items[int(s[ITEM])] if s[ITEM] >= 0 else None
    if scenario == Scenario.PLACE_RELATIVE:
        return Goal.place_relative(classic=classic, **place)
    if scenario == Scenario.COLLECT_THEN_PLACE:
        return Goal.collect_then_place(item, int(s[ITEM_COUNT]), place["obj"], int(s[OBJECT_COUNT]), classic)
    if scenario == Scenario.PLACE_THEN_COLLECT:
        return Goal.place_then_collect(place["obj"], int(s[OBJECT_COUNT]), item, int(s[ITEM_COUNT]), classic)
    if scenario == Scenario.CRAFT_ORDER:
        return Goal.craft_order(ach[int(s[ACHIEVE_1])], item, not bool(s[ORDERED]), classic)
    if scenario == Scenario.LINE_AND_PLACE:
        return Goal.line_and_place(block[int(s[STRUCT_BLOCK])], int(s[STRUCT_SIZE]), variant[s[STRUCT_VARIANT]], classic=classic, **place)
    if scenario == Scenario.COLLECT_THEN_LINE:
        return Goal.collect_then_line(item, int(s[ITEM_COUNT]), block[int(s[STRUCT_BLOCK])], int(s[STRUCT_SIZE]), variant[s[STRUCT_VARIANT]], classic)
    if scenario == Scenario.COLLECT_AND_SQUARE:
        return Goal.collect_and_square(item, int(s[ITEM_COUNT]), block[int(s[STRUCT_BLOCK])], int(s[STRUCT_SIZE]), classic)
    if scenario == Scenario.TIME_PLACE:
        return Goal.time_place(place["obj"], bool(s[NIGHT]), classic)
    return Goal.explore(block[int(s[EXPLORE_BLOCK])], classic)
