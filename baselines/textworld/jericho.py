"""Reader of JerichoWorld's released JSON (``train.json`` / ``test.json``) into this suite's records.

The release is a list of games, each a list of instances ``{"rom", "state", "next_state", "action",
"reward", "graph_diff"?}``; a state holds ``obs``, ``loc_desc``, ``inv_desc``, ``graph`` (a list of
[subject, relation, object]) and ``valid_acts`` ({world diff: action}). Its known defects are
counted, not hidden: triples with an empty part are dropped (``dropped_triples``) and empty graphs
are kept as empty (``empty_graphs``; ``repair=True`` refills one from the previous instance's next
graph of the same game, as ParlAI's loader does). A malformed instance raises ``ValueError`` naming
the file, game, instance and field.
"""

from __future__ import annotations

import json
from pathlib import Path

from baselines.textworld.metrics import diff, triple_set


def _field(value, name: str, kind, where: str):
    if not isinstance(value, kind):
        raise ValueError(
            f"{where}: field '{name}' must be {kind.__name__ if isinstance(kind, type) else 'a list or dict'}, got {type(value).__name__}"
        )
    return value


def _graph(state: dict, where: str, counts: dict) -> list[list[str]]:
    triples = _field(state.get("graph", []), "graph", list, where)
    for i, t in enumerate(triples):
        if not isinstance(t, list) or len(t) != 3 or not all(isinstance(x, str) for x in t):
            raise ValueError(f"{where}: field 'graph' item {i} must be [subject, relation, object] strings, got {t!r}")
    kept = sorted(map(list, triple_set(triples)))
    counts["dropped_triples"] += sum(1 for t in triples if not all(x.strip() for x in t))
    return kept


def _text(state: dict) -> str:
    return "\n".join(str(state.get(k, "")).strip() for k in ("loc_desc", "obs", "inv_desc") if str(state.get(k, "")).strip())


def load(path: str | Path, split: str | None = None, repair: bool = False) -> tuple[list[dict], dict]:
    """(records in ``baselines.textworld.dataset`` form, defect counts) of one released file."""
    path = Path(path)
    try:
        games = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    _field(games, "(top level)", list, str(path))
    split = split or path.stem
    counts = {"instances": 0, "dropped_triples": 0, "empty_graphs": 0, "repaired_graphs": 0}
    out = []
    for g, game in enumerate(games):
        previous_next = None
        for i, inst in enumerate(_field(game, f"game {g}", list, str(path))):
            where = f"{path}: game {g}: instance {i}"
            _field(inst, "(instance)", dict, where)
            for name in ("rom", "state", "next_state", "action"):
                if name not in inst:
                    raise ValueError(f"{where}: field '{name}' is missing")
            rom = _field(inst["rom"], "rom", str, where)
            state, nxt = _field(inst["state"], "state", dict, where), _field(inst["next_state"], "next_state", dict, where)
            graph, next_graph = _graph(state, where + ": state", counts), _graph(nxt, where + ": next_state", counts)
            if not graph:
                counts["empty_graphs"] += 1
                if repair and previous_next:
                    graph, counts["repaired_graphs"] = previous_next, counts["repaired_graphs"] + 1
            valid = _field(state.get("valid_acts", {}), "state.valid_acts", dict, where)
            counts["instances"] += 1
            out.append(
                {
                    "id": f"jericho:{rom}/{split}/{g}/{i}",
                    "world": f"jericho:{rom}",
                    "split": split,
                    "seed": g,
                    "episode": g,
                    "step": i,
                    "instruction": "",
                    "observation": _text(state),
                    "graph": graph,
                    "valid_actions": sorted(set(map(str, valid.values()))),
                    "action": str(inst["action"]),
                    "reward": float(inst.get("reward", 0.0) or 0.0),
                    "next_observation": _text(nxt),
                    "next_graph": next_graph,
                    "graph_diff": diff(graph, next_graph),
                    "done": False,
                    "schema_version": None,
                }
            )
            previous_next = next_graph
    return out, counts
