"""Step-by-step plans (at most 5 short steps) for PPO-T+.

* ``RetrievalPlanner``: the default. It reads only the instruction text: the plan is that of the
  training instruction nearest to it under the frozen text encoder (cosine similarity). A
  paraphrase may retrieve another goal's plan; ``test_new_objects`` measures how far it carries.
* ``goal_plan(goal)``: the **oracle**. It derives the plan from the gold goal's structure and
  Craftax's prerequisite chains (wood -> table -> wooden pickaxe -> stone -> ...), so it is handed
  the answer; it gives the retrieval planner its training plans, and is used directly only as the
  explicitly named ``oracle`` planner (labelled so in every table).
* ``ChatPlanner``: plans from an OpenAI-compatible ``/chat/completions`` endpoint with the paper's
  prompt (appendix J), through ``baselines.chat.ChatClient`` (the key goes only to the configured
  host: no redirects, https off the loopback). Nothing contacts the network unless you build one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from craftext.goals import Goal, Scenario

MAX_STEPS = 5
REQUIRES = {  # Craftax achievement -> achievements it needs first (one sufficient chain)
    "place_table": ("collect_wood",),
    "make_wood_pickaxe": ("place_table",),
    "make_wood_sword": ("place_table",),
    "collect_stone": ("make_wood_pickaxe",),
    "collect_coal": ("make_wood_pickaxe",),
    "place_stone": ("collect_stone",),
    "place_furnace": ("collect_stone",),
    "make_stone_pickaxe": ("collect_stone",),
    "make_stone_sword": ("collect_stone",),
    "collect_iron": ("make_stone_pickaxe",),
    "make_iron_pickaxe": ("collect_iron", "collect_coal", "place_furnace"),
    "make_iron_sword": ("collect_iron", "collect_coal", "place_furnace"),
    "collect_diamond": ("make_iron_pickaxe",),
    "place_plant": ("collect_sapling",),
    "eat_plant": ("place_plant",),
    "defeat_zombie": ("make_wood_sword",),
    "defeat_skeleton": ("make_stone_sword",),
    "make_torch": ("collect_coal",),
    "place_torch": ("make_torch",),
    "make_arrow": ("collect_stone",),
    "collect_sapphire": ("make_iron_pickaxe",),
    "collect_ruby": ("make_iron_pickaxe",),
    "make_diamond_pickaxe": ("collect_diamond",),
    "make_diamond_sword": ("collect_diamond",),
    "make_iron_armour": ("collect_iron", "place_furnace"),
    "make_diamond_armour": ("collect_diamond",),
    "enter_gnomish_mines": ("make_stone_pickaxe",),
    "fire_bow": ("find_bow", "make_arrow"),
}
OBTAIN = {  # placeable object or item -> the achievement that yields it
    "stone": "collect_stone",
    "crafting_table": "place_table",
    "furnace": "place_furnace",
    "plant": "collect_sapling",
    "wood": "collect_wood",
    "coal": "collect_coal",
    "iron": "collect_iron",
    "diamond": "collect_diamond",
    "sapling": "collect_sapling",
    "ruby": "collect_ruby",
    "sapphire": "collect_sapphire",
}
PLACE_OBJECT = {"crafting_table": "collect_wood", "furnace": "collect_stone"}  # placing needs the material, not the achievement


def _words(name: str) -> str:
    return name.replace("_", " ")


def _chain(achievement: str, seen: list[str]) -> list[str]:
    """Prerequisites first, then ``achievement``; each achievement once."""
    for need in REQUIRES.get(achievement, ()):
        _chain(need, seen)
    if achievement not in seen:
        seen.append(achievement)
    return seen


def _material(obj: str, seen: list[str]) -> list[str]:
    """Steps that put a placeable ``obj`` in the inventory."""
    return _chain(PLACE_OBJECT.get(obj, OBTAIN.get(obj, "collect_wood")), seen)


def reads_goals(goals: Sequence) -> bool:
    """Whether the built-in planners (``goal_plan``, retrieval of its plans) read these goals:
    CrafText goals, at least one."""
    return bool(goals) and all(isinstance(goal, Goal) for goal in goals)


def goal_plan(goal: Goal) -> list[str]:
    """At most 5 short steps (the last ones of the full chain, which end with the goal itself)."""
    a, s = goal.arguments, goal.scenario
    seen: list[str] = []
    if s == Scenario.ACHIEVEMENTS:
        for name in a["required"]:
            _chain(name, seen)
        steps = [_words(x) for x in seen]
        if a["forbidden"]:
            steps.insert(0, f"never {_words(a['forbidden'])}")
    elif s == Scenario.EXPLORE:
        steps = ["explore the map", f"find {_words(a['block'])}"]
    elif s in (Scenario.BUILD_LINE, Scenario.BUILD_SQUARE, Scenario.BUILD_CROSS):
        shape = {
            Scenario.BUILD_LINE: f"line of {a.get('size')}",
            Scenario.BUILD_SQUARE: f"{a.get('size')}x{a.get('size')} square",
            Scenario.BUILD_CROSS: f"cross with arms {a.get('arm')}",
        }[s]
        steps = [_words(x) for x in _material(a["block"], seen)] + [f"place {_words(a['block'])} {shape}"]
    elif s == Scenario.PLACE_RELATIVE:
        steps = [_words(x) for x in _material(a["obj"], seen)] + [
            f"find {_words(a['target'])}",
            f"place {_words(a['obj'])} {a['side']} of {_words(a['target'])}",
        ]
    elif s in (Scenario.COLLECT_THEN_PLACE, Scenario.PLACE_THEN_COLLECT):
        collect = [f"collect {a['count']} {_words(a['item'])}"]
        place = [_words(x) for x in _material(a["obj"], [])] + [f"place {a['place_count']} {_words(a['obj'])}"]
        steps = (collect + place) if s == Scenario.COLLECT_THEN_PLACE else (place + collect)
    elif s == Scenario.CRAFT_ORDER:
        craft = [_words(x) for x in _chain(a["craft"], [])]
        steps = craft + [f"then collect {_words(a['item'])}"] if a["before"] else [f"collect {_words(a['item'])}"] + craft
    elif s in (Scenario.LINE_AND_PLACE, Scenario.COLLECT_THEN_LINE, Scenario.COLLECT_AND_SQUARE):
        steps = [f"collect {a['count']} {_words(a['item'])}"] if "item" in a else []
        steps += [_words(x) for x in _material(a["block"], [])]
        steps.append(f"place {_words(a['block'])} {'square' if s == Scenario.COLLECT_AND_SQUARE else 'line'} of {a['size']}")
        if s == Scenario.LINE_AND_PLACE:
            steps.append(f"place {_words(a['obj'])} {a['side']} of {_words(a['target'])}")
    else:  # TIME_PLACE
        steps = [_words(x) for x in _material(a["obj"], [])] + [f"wait for {'night' if a['night'] else 'day'}", f"place {_words(a['obj'])}"]
    return steps[-MAX_STEPS:]


class RetrievalPlanner:
    """Plans from the instruction text alone: the plan of the nearest training instruction.

    texts: the training instructions; plans: their plans (steps); embed: texts -> (N, E) frozen
    embeddings (e.g. ``functools.partial(text_encoders.embed, encoder)``)."""

    def __init__(self, texts: Sequence[str], plans: Sequence[list[str]], embed):
        if len(texts) != len(plans) or not texts:
            raise ValueError(f"RetrievalPlanner needs one plan per training text, got {len(texts)} texts and {len(plans)} plans")
        self.embed, self.plans = embed, list(plans)
        self.keys = self._unit(embed(list(texts)))

    @staticmethod
    def _unit(table: np.ndarray) -> np.ndarray:
        table = np.asarray(table, np.float32)
        return table / np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1e-12)

    def nearest(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts),) index of the nearest training text of each."""
        return (self._unit(self.embed(list(texts))) @ self.keys.T).argmax(1)

    def plan_all(self, texts: Sequence[str]) -> list[list[str]]:
        return [self.plans[i] for i in self.nearest(texts)]

    def __call__(self, instruction: str) -> list[str]:
        return self.plan_all([instruction])[0]


def plan_text(steps: list[str]) -> str:
    """'1. collect wood. 2. place table.'"""
    return " ".join(f"{i}. {step}." for i, step in enumerate(steps, 1))


PROMPT = """Craftax is a virtual environment designed for exploration, crafting, and task completion. The procedurally generated world includes resources (trees, stones, coal, iron), interactive objects (crafting tables, furnaces, chests), and diverse terrains (water, grass, sand). The agent operates in this dynamic environment, performing actions such as moving, collecting resources, crafting, placing objects, and interacting with surroundings. Completing tasks often involves gathering resources, crafting items, and strategically placing objects.

The agent has a fixed set of discrete actions:
- Movement: Navigate the map (up, down, left, right).
- Resource Collection: Chop trees, mine stones, or gather coal.
- Crafting: Create tools (e.g., pickaxes) or structures (e.g., furnaces).
- Object Interaction: Use objects (e.g., cook food in a furnace).
- Placement: Place crafted objects in specific locations.

Task: Create a step-by-step action plan (maximum 5 steps) for the agent in Craftax to achieve the following instruction:

"{instruction}"

Response Format:
1. Using only object names existing in the Craftax environment, provide the plan as a numbered list.
2. Each step should outline a specific action or logical task for the agent, such as resource collection, crafting, or object placement.
3. Keep steps clear, concise, and implementable in Craftax, with a maximum of 5 words per step.

Check yourself!
!ATTENTION! Ensure the plan uses only object names and actions existing in Craftax. Replace any incorrect terms in the instruction with their correct Craftax equivalents."""  # noqa: E501 (the paper's prompt, verbatim)
_NUMBERED = re.compile(r"^\s*\d+[.)]\s*(.+?)\s*$")


class PlannerError(RuntimeError):
    """The chat endpoint gave no usable plan."""


class ChatPlanner:
    """Plans from an OpenAI-compatible chat endpoint (``base_url`` ends before ``/chat/completions``),
    through ``baselines.chat.ChatClient`` and its rules: https unless the host is the loopback (a
    local server) or ``allow_insecure_http``, redirects refused. Raises ``ValueError`` at
    construction for any other URL."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        temperature: float = 0.0,
        max_retries: int = 0,
        allow_insecure_http: bool = False,
    ):
        from baselines.chat import ChatClient

        try:
            self.client = ChatClient(
                base_url,
                model,
                api_key_env=None,
                api_key=api_key,
                timeout_s=timeout,
                max_retries=max_retries,
                temperature=temperature,
                max_tokens=None,
                allow_insecure_http=allow_insecure_http,
            )
        except ValueError as error:
            raise ValueError(f"planner {error}") from None
        self.url = self.client.url

    def __call__(self, instruction: str) -> list[str]:
        from baselines.chat import ChatError

        try:
            content = self.client.chat([{"role": "user", "content": PROMPT.format(instruction=instruction)}])["text"]
        except ChatError as error:
            raise PlannerError(f"no usable plan for {instruction!r}: {error}") from None
        steps = [m.group(1).rstrip(".") for m in map(_NUMBERED.match, content.splitlines()) if m]
        if not steps:
            raise PlannerError(f"{self.url}: the reply has no numbered steps: {content[:200]!r}")
        return steps[:MAX_STEPS]
