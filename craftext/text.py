"""Text views of a Craftax state for language-model agents, all read from its knowledge graph
(``craftext.kg``): one source of truth for every style.

Styles (``verbalise(graph, classic, style)``, host side, numpy only):
- ``summary``: position and facing, time, vitals, inventory, achievements, then every block and
  mob kind in sight with its nearest instance ("tree 2 steps east"), nearest first;
- ``grid``: the view window as aligned rows of names with an axis legend;
- ``triples``: one "subject | relation | object" line per fact.

``describe(world)`` and ``facts(world)`` are the summary and the triples of one Craftax state.
"""

from __future__ import annotations

import numpy as np

from craftext import kg as K

Fact = tuple[str, str, str]
STYLES = ("summary", "grid", "triples")


def triples(graph: dict, classic: bool = True) -> list[Fact]:
    """The valid facts of one graph (numpy or JAX arrays, unbatched) as name triples, in order."""
    names, relations = K.schema(classic)["entities"], K.RELATIONS
    valid = np.asarray(graph["valid"])
    return [
        (names[s], relations[r], names[o])
        for s, r, o in zip(*(np.asarray(graph[k])[valid].tolist() for k in ("subject", "relation", "object")))
    ]


def summary(graph: dict, classic: bool = True) -> str:
    """The summary style (module docstring) of one graph."""
    you: dict[str, list[str]] = {}
    about: dict[str, dict[str, str]] = {}
    for s, r, o in triples(graph, classic):
        if s == "you" and r not in ("nearest direction", "nearest distance", "amount"):
            you.setdefault(r, []).append(o)
        else:
            about.setdefault(s, {})[r] = o
    lines = [
        f"You stand at row {you['row'][0]}, column {you['column'][0]}"
        + (f" on floor {you['floor'][0]}" if "floor" in you else "")
        + f", facing {you['faces'][0]}"
        + (f" ({you['facing'][0]})" if "facing" in you else "")
        + f". It is {you['time'][0]}."
        + (" You are sleeping." if "is" in you else ""),
        ", ".join(f"{v.capitalize()} {you[v][0]}" for v in ("health", "food", "drink", "energy", "mana") if v in you) + ".",
        "Inventory: " + (", ".join(f"{about[i]['amount']} {i}" for i in you.get("has", [])) or "empty") + ".",
        "Achievements so far: " + (", ".join(you.get("achieved", [])) or "none") + ".",
    ]
    near = sorted(
        (int(facts["nearest distance"]), name, facts["nearest direction"]) for name, facts in about.items() if "nearest distance" in facts
    )
    lines.append("You see: " + ("; ".join(f"{name} {d} step{'s' * (d != 1)} {where}" for d, name, where in near) or "nothing") + ".")
    return "\n".join(lines)


def grid(graph: dict, classic: bool = True) -> str:
    """The grid style (module docstring) of one graph's view window."""
    s = K.schema(classic)
    names = s["entities"]
    labels = [names[i] for i in s["blocks"]] + [names[i] for i in s["mobs"]]
    cells = np.asarray(graph["grid"])
    rows, cols = cells.shape
    text = [["?" if v < 0 else labels[v] for v in row] for row in cells.tolist()]
    text[rows // 2][cols // 2] = "YOU"
    width = max(len(t) for row in text for t in row)
    legend = (
        f"Your view, {rows} rows x {cols} columns: top row is north, left column is west; you are YOU at the centre "
        f"(row {rows // 2 + 1}, column {cols // 2 + 1}); ? is unseen."
    )
    return "\n".join([legend, *(" ".join(t.ljust(width) for t in row).rstrip() for row in text)])


def verbalise(graph: dict, classic: bool = True, style: str = "summary") -> str:
    """One graph in one of ``STYLES``."""
    if style == "triples":
        return "\n".join(" | ".join(fact) for fact in triples(graph, classic))
    if style not in STYLES:
        raise ValueError(f"unknown text style {style!r}; use one of {', '.join(STYLES)}")
    return summary(graph, classic) if style == "summary" else grid(graph, classic)


def describe(world, classic: bool = True, scope: str = "observed") -> str:
    """The summary of a Craftax ``EnvState``."""
    return summary(K.graph(world, classic, scope), classic)


def facts(world, classic: bool = True, scope: str = "observed") -> list[Fact]:
    """The knowledge-graph triples of a Craftax ``EnvState``."""
    return triples(K.graph(world, classic, scope), classic)
