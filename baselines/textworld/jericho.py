"""Reader of JerichoWorld's released JSON (``train.json`` / ``test.json``) into this suite's records.

The release is a list of games, each a list of instances ``{"rom", "state", "next_state", "action",
"reward", "graph_diff"?}``; a state holds ``obs``, ``loc_desc``, ``inv_desc``, ``graph`` (a list of
[subject, relation, object]), ``valid_acts`` ({world diff: action}), ``walkthrough_act``,
``walkthrough_diff``, ``score``, ``location``, ``inv_objs``, ``inv_attrs``, ``surrounding_objs`` and
``surrounding_attrs``. Nothing is lost: each record carries the instance's own fields verbatim
under ``jericho`` (every key but ``rom``, ``action`` and ``reward``, which are record fields), and
its ``graph`` / ``next_graph`` keep the names' case (the scores normalise case themselves).

The release's known defects are counted, not hidden or patched: triples with an empty part are
left out of ``graph`` / ``next_graph`` (``dropped_triples``; they stay in ``jericho``), and empty
graphs stay empty (``empty_graphs``): the release starts every trajectory, including each short
excursion, from an empty graph, and a neighbouring record may belong to another branch, so no
graph is borrowed from one. A malformed instance raises ``ValueError`` naming the file, game,
instance and field.
"""

from __future__ import annotations

import json
from pathlib import Path

from baselines.textworld.metrics import clean

TEXT_FIELDS = ("loc_desc", "obs", "inv_desc")
"""The state texts joined (in this order) into a record's observation."""


def _field(value, name: str, kind, where: str):
    if not isinstance(value, kind):
        raise ValueError(f"{where}: field '{name}' must be {kind.__name__}, got {type(value).__name__}")
    return value


def _graph(state: dict, where: str, counts: dict) -> list[list[str]]:
    """The state's triples with no empty part, in release order, first of each normalised triple."""
    triples = _field(state.get("graph", []), "graph", list, where)
    kept, seen = [], set()
    for i, t in enumerate(triples):
        if not isinstance(t, list) or len(t) != 3 or not all(isinstance(x, str) for x in t):
            raise ValueError(f"{where}: field 'graph' item {i} must be [subject, relation, object] strings, got {t!r}")
        key = clean(t)
        if key is None:
            counts["dropped_triples"] += 1
        elif key not in seen:
            seen.add(key)
            kept.append(list(t))
    return kept


def _diff(before: list[list[str]], after: list[list[str]]) -> dict[str, list[list[str]]]:
    """``{"add": after - before, "del": before - after}``, compared normalised, names as given."""
    b, a = {clean(t) for t in before}, {clean(t) for t in after}
    return {"add": [t for t in after if clean(t) not in b], "del": [t for t in before if clean(t) not in a]}


def _text(state: dict) -> str:
    return "\n".join(str(state.get(k, "")).strip() for k in TEXT_FIELDS if str(state.get(k, "")).strip())


def load(path: str | Path, split: str | None = None) -> tuple[list[dict], dict]:
    """(records in ``baselines.textworld.dataset`` form plus ``jericho``, defect counts) of one
    released file."""
    path = Path(path)
    try:
        games = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    _field(games, "(top level)", list, str(path))
    split = split or path.stem
    counts = {"instances": 0, "dropped_triples": 0, "empty_graphs": 0}
    out = []
    for g, game in enumerate(games):
        for i, inst in enumerate(_field(game, f"game {g}", list, str(path))):
            where = f"{path}: game {g}: instance {i}"
            _field(inst, "(instance)", dict, where)
            for name in ("rom", "state", "next_state", "action"):
                if name not in inst:
                    raise ValueError(f"{where}: field '{name}' is missing")
            rom = _field(inst["rom"], "rom", str, where)
            state, nxt = _field(inst["state"], "state", dict, where), _field(inst["next_state"], "next_state", dict, where)
            graph, next_graph = _graph(state, where + ": state", counts), _graph(nxt, where + ": next_state", counts)
            counts["empty_graphs"] += not graph
            valid = _field(state.get("valid_acts", {}), "state.valid_acts", dict, where)
            try:
                reward = float(inst.get("reward", 0.0) or 0.0)
            except (TypeError, ValueError):
                raise ValueError(f"{where}: field 'reward' must be a number, got {inst['reward']!r}") from None
            counts["instances"] += 1
            out.append(
                {
                    "id": f"jericho:{rom}/{split}/{g}/{i}",
                    "world": f"jericho:{rom}",
                    "split": split,
                    "run": path.name,
                    "seed": g,
                    "episode": g,
                    "part": "game",
                    "step": i,
                    "instruction": "",
                    "observation": _text(state),
                    "graph": graph,
                    "valid_actions": sorted(set(map(str, valid.values()))),
                    "action": str(inst["action"]),
                    "reward": reward,
                    "next_observation": _text(nxt),
                    "next_graph": next_graph,
                    "graph_diff": _diff(graph, next_graph),
                    "done": False,
                    "schema_version": None,
                    "jericho": {k: v for k, v in inst.items() if k not in ("rom", "action", "reward")},
                }
            )
    return out, counts
