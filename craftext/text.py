"""Text views of a Craftax state for language-model agents.

``describe(state)``: an English paragraph with the player's vitals, time of day, inventory,
achievements so far and, for every block type in the local view, how many there are and where
the nearest one is ("a tree 2 up and 1 left"). ``facts(state)``: (subject, relation, object)
triples of the same content (player at, faces, has item, achieved, block at relative position).
Positions are (row, column) on the map; up is row - 1, left is column - 1.
"""

from __future__ import annotations

import numpy as np

from craftext.world import frame, version

Fact = tuple[str, str, str]
_FACING = {1: "left", 2: "right", 3: "up", 4: "down"}


def _offset(dr: int, dc: int) -> str:
    parts = []
    if dr:
        parts.append(f"{abs(dr)} {'down' if dr > 0 else 'up'}")
    if dc:
        parts.append(f"{abs(dc)} {'right' if dc > 0 else 'left'}")
    return " and ".join(parts) if parts else "here"


def _view(state, classic: bool) -> tuple[dict[str, list[tuple[int, int]]], dict]:
    f = frame(state, classic)
    v = version(classic)
    names = {i: n for n, i in v.blocks.items()}
    floor_map, (r, c) = np.asarray(f.floor_map), np.asarray(f.position)
    rows, cols = v.view
    seen: dict[str, list[tuple[int, int]]] = {}
    for dr in range(-(rows // 2), rows // 2 + 1):
        for dc in range(-(cols // 2), cols // 2 + 1):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < floor_map.shape[0] and 0 <= cc < floor_map.shape[1]:
                seen.setdefault(names.get(int(floor_map[rr, cc]), "unknown"), []).append((dr, dc))
    for cells in seen.values():
        cells.sort(key=lambda d: (abs(d[0]) + abs(d[1]), d))
    inventory = {item: int(n) for item, n in zip(v.items, np.asarray(f.inventory)) if n > 0}
    achieved = [n for n, i in v.achievements.items() if i < len(f.achievements) and bool(f.achievements[i])]
    return seen, {"frame": f, "inventory": inventory, "achieved": achieved, "facing": _FACING.get(int(state.player_direction), "down")}


def describe(state, classic: bool = True) -> str:
    """English description of the player's surroundings, vitals and inventory."""
    seen, info = _view(state, classic)
    f = info["frame"]
    r, c = (int(x) for x in np.asarray(f.position))
    time = "night" if float(f.light) < 0.5 else "day"
    lines = [
        f"You stand at row {r}, column {c}" + ("" if classic else f" on floor {int(f.floor)}") + f", facing {info['facing']}. It is {time}.",
        f"Health {int(state.player_health)}, food {int(state.player_food)}, drink {int(state.player_drink)}, energy {int(state.player_energy)}.",
        "Inventory: " + (", ".join(f"{n} {item}" for item, n in info["inventory"].items()) or "empty") + ".",
        "Achievements so far: " + (", ".join(a.replace("_", " ") for a in info["achieved"]) or "none") + ".",
    ]
    around = [
        f"{len(cells)} {name.replace('_', ' ')} (nearest {_offset(*cells[0])})"
        for name, cells in sorted(seen.items(), key=lambda kv: -len(kv[1]))
    ]
    lines.append("Around you: " + "; ".join(around) + ".")
    return "\n".join(lines)


def facts(state, classic: bool = True) -> list[Fact]:
    """Knowledge-graph triples of the player's state and of every block in view."""
    seen, info = _view(state, classic)
    f = info["frame"]
    r, c = (int(x) for x in np.asarray(f.position))
    out: list[Fact] = [("player", "at", f"({r}, {c})"), ("player", "faces", info["facing"])]
    if not classic:
        out.append(("player", "on floor", str(int(f.floor))))
    out += [("player", "has", f"{n} {item}") for item, n in info["inventory"].items()]
    out += [("player", "achieved", a) for a in info["achieved"]]
    for name, cells in sorted(seen.items()):
        out += [(name, "at relative position", f"({dr}, {dc})") for dr, dc in cells]
    return out
