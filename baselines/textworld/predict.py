"""A language-model baseline for the next-graph task: the model reads a record's instruction,
observation, current graph and action, and writes the changes (``+ subject | relation | object``
for an added fact, ``- ...`` for a removed one). The predicted next graph is the current graph with
those changes; a line that is not a well-formed change counts as a wrong added fact (the scores
count malformed predictions as wrong). Reached through ``baselines.chat.ChatClient``.
Command line: ``python -m baselines.textworld predict RECORDS --base-url URL --model NAME --out FILE``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from baselines.chat import ChatClient
from baselines.textworld.metrics import normalise
from baselines.worlds.cli import open_atomic, progress

SYSTEM = (
    "You predict how a world's knowledge graph changes when an action is taken. The graph is a list of facts, "
    "one per line, written 'subject | relation | object'. Reply with the changes only, one per line: '+ subject | "
    "relation | object' for a fact that becomes true, '- subject | relation | object' for a fact that stops being "
    "true. Reply 'no change' when nothing changes."
)


def prompt(record: dict) -> list[dict[str, str]]:
    """The chat messages for one record."""
    facts = "\n".join(" | ".join(t) for t in record["graph"]) or "(no facts)"
    user = (
        f"Instruction: {record.get('instruction') or '(none)'}\nObservation: {record['observation']}\n"
        f"Graph:\n{facts}\nAction: {record['action']}\nChanges:"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def parse(reply: str) -> dict[str, list[list[str]]]:
    """``{"add", "del"}`` of a reply; a line that is neither a change nor 'no change' goes to
    ``add`` as its raw text (one part: a malformed, wrong item)."""
    changes: dict[str, list[list[str]]] = {"add": [], "del": []}
    for line in reply.splitlines():
        line = line.strip().lstrip("*").strip()
        if not line or line.lower().rstrip(".") in ("no change", "no changes", "none", "changes:"):
            continue
        sign, body = line[0], line[1:]
        parts = [p.strip() for p in body.split("|")]
        if sign in "+-" and len(parts) == 3 and all(parts):
            changes["add" if sign == "+" else "del"].append(parts)
        else:
            changes["add"].append([line])
    return changes


def apply(graph: list[list[str]], changes: dict[str, list[list[str]]]) -> list[list[str]]:
    """The graph with ``changes``: deleted facts removed (compared case- and space-blind), added ones appended."""

    def key(t):
        return tuple(map(normalise, t))

    gone = {key(t) for t in changes["del"]}
    kept = [t for t in graph if key(t) not in gone]
    have = {key(t) for t in kept}
    return kept + [t for t in changes["add"] if key(t) not in have]


def predict(client: ChatClient, records: Iterable[dict], out: str | Path, quiet: bool = False) -> dict:
    """Predict every record's changes into ``out`` (JSON lines ``{id, next_graph, graph_diff,
    reply}``, written beside it as they come and moved into place once all are in); returns counts
    of records, replies with a malformed line, and tokens."""
    records = list(records)
    counts = {"records": 0, "replies_with_malformed_lines": 0, "total_tokens": 0}
    with open_atomic(Path(out)) as file:  # the previous predictions stay whole until these are complete
        for record in progress(records, desc="predict", unit="record", silent=quiet):
            reply = client.chat(prompt(record))
            changes = parse(reply["text"])
            counts["records"] += 1
            counts["replies_with_malformed_lines"] += any(len(t) != 3 for t in changes["add"])
            counts["total_tokens"] += int(reply["usage"].get("total_tokens", 0) or 0)
            row = {"id": record["id"], "next_graph": apply(record["graph"], changes), "graph_diff": changes, "reply": reply["text"]}
            file.write(json.dumps(row) + "\n")
            file.flush()
    return counts
