"""BAP v2 test-set annotations and the clean test set they give (Jayannavar et al., sec. 3).

The human annotations of the v2 test set are not public; this module defines a file format for
them and applies the paper's procedure, so that whoever holds them gets the v2 test set.

Format: JSONL, one object per BAP item of the corpus test split::

    {"game_id": "B1-A3-C5-1522435497386", "sample_id": 12, "context": "clear",
     "interpretation": "unique", "structure": "correct"}

* ``context``: ``clear`` or ``unclear`` (it is unclear what the Builder should do next);
* ``interpretation`` (clear items only): ``unique``, or ``multiple`` (the structure is clear but its
  placement or orientation is not; empty-board items only);
* ``structure`` (clear items only): ``correct`` or ``incorrect`` (the Builder did not build what
  the context asks for).

Procedure (sec. 3.2), per game in item order: unclear items are dropped; a run of one or more
incorrect items immediately followed by a correct item takes that item's built structure as its
reference end; incorrect items not so followed are dropped. The fairer metric aligns only the
items annotated ``multiple`` (``blocksworld.metrics.item_counts(..., align=...)``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from blocksworld.item import BapItem

CONTEXTS = ("clear", "unclear")
INTERPRETATIONS = ("unique", "multiple")
STRUCTURES = ("correct", "incorrect")


class AnnotationError(ValueError):
    """An annotation file does not follow the format; names the file, line and field."""


@dataclass(frozen=True)
class Annotation:
    game_id: str
    sample_id: int
    context: str
    interpretation: str | None = None
    structure: str | None = None


@dataclass
class CleanTestSet:
    """items: the kept items (references fixed); multiple: (per kept item) annotated as having
    multiple interpretations; counts of what the procedure did."""

    items: list[BapItem]
    multiple: list[bool]
    dropped_unclear: int
    fixed: int
    dropped_incorrect: int


def read_annotations(path: str | Path) -> dict[tuple[str, int], Annotation]:
    """Annotations by (game id, sample id); raises ``AnnotationError`` naming file, line and field."""
    path = Path(path)
    out: dict[tuple[str, int], Annotation] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue

        def fail(field: str, problem: str) -> AnnotationError:
            return AnnotationError(f"{path}, line {number}, field '{field}': {problem}")

        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise fail("<line>", f"invalid JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise fail("<line>", "expected an object")
        unknown = set(row) - {"game_id", "sample_id", "context", "interpretation", "structure"}
        if unknown:
            raise fail(sorted(unknown)[0], "unknown field")
        if not isinstance(row.get("game_id"), str) or not row["game_id"]:
            raise fail("game_id", "missing or not a string")
        if isinstance(row.get("sample_id"), bool) or not isinstance(row.get("sample_id"), int):
            raise fail("sample_id", "missing or not an integer")
        if row.get("context") not in CONTEXTS:
            raise fail("context", f"{row.get('context')!r}: use {' or '.join(CONTEXTS)}")
        for field, allowed in (("interpretation", INTERPRETATIONS), ("structure", STRUCTURES)):
            value = row.get(field)
            if row["context"] == "clear" and value not in allowed:
                raise fail(field, f"{value!r}: a clear item needs {' or '.join(allowed)}")
            if row["context"] == "unclear" and value is not None:
                raise fail(field, "an unclear item has no " + field)
        key = (row["game_id"], row["sample_id"])
        if key in out:
            raise fail("sample_id", f"item {key[0]}:{key[1]} is annotated twice")
        out[key] = Annotation(**row)
    return out


def clean_test_set(items: Sequence[BapItem], annotations: dict[tuple[str, int], Annotation]) -> CleanTestSet:
    """The v2 test set of ``items`` (the corpus test split) under ``annotations`` (every item needs
    one; ``multiple`` only on empty-board items)."""
    for item in items:
        note = annotations.get((item.game_id, item.sample_id))
        if note is None:
            raise AnnotationError(f"item {item.game_id}:{item.sample_id} has no annotation")
        if note.interpretation == "multiple" and not item.empty_board:
            raise AnnotationError(f"item {item.game_id}:{item.sample_id}: 'multiple' interpretations on a non-empty board")
    games: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        games[item.game_id].append(index)
    keep: dict[int, BapItem] = {}
    dropped_unclear = fixed = dropped_incorrect = 0
    for indices in games.values():
        pending: list[int] = []
        for index in sorted(indices, key=lambda i: items[i].sample_id):
            item = items[index]
            note = annotations[(item.game_id, item.sample_id)]
            if note.context == "unclear":
                dropped_unclear += 1
                dropped_incorrect += len(pending)
                pending = []
            elif note.structure == "incorrect":
                pending.append(index)
            else:
                for wrong in pending:
                    keep[wrong] = replace(items[wrong], end=item.end)
                fixed += len(pending)
                pending = []
                keep[index] = item
        dropped_incorrect += len(pending)
    order = sorted(keep)
    multiple = [annotations[(items[i].game_id, items[i].sample_id)].interpretation == "multiple" for i in order]
    return CleanTestSet([keep[i] for i in order], multiple, dropped_unclear, fixed, dropped_incorrect)
