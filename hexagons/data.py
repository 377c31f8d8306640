"""Loader for the released Hexagons data (``train.jsonl``, ``dev.jsonl``, ``test.jsonl``).

One JSON object per line, one drawing procedure per line, with exactly the keys of
``RECORD_KEYS``. ``drawing_procedure`` holds ``n + 1`` entries ``[step, text, board]``: step 0 is a
sentinel (text ``"NONE"``, blank board), and step ``t`` carries the t-th instruction and the
board (180 colour codes) after it. Every record is validated; a malformed one (bad JSON, non-UTF-8
bytes, absurd nesting, a wrong or missing field) raises ``HexagonsDataError`` naming the file, line
and field. Quirks of the release that are not errors are accepted: the string ``"None"`` in place
of the agreement lists (train procedures 617-619), an empty instruction text, stray whitespace
around texts, int/float mixtures in scores.

Usage: ``python -m hexagons.data DIR`` prints procedures and drawing steps per split, and the
dev and test steps whose instruction the train split has word for word (``in train``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from hexagons.geometry import NUM_COLOURS, NUM_TILES
from hexagons.procedure import Procedure

SPLITS = ("train", "dev", "test")
RECORD_KEYS = (
    "index",
    "annotation_round",
    "category",
    "image_id",
    "instructor_id",
    "number_of_drawing_steps",
    "agreement_tags",
    "agreement_scores",
    "drawing_procedure",
)
AGREEMENT_TAGS = ("A", "V1", "V2", "VV", "F")


class HexagonsDataError(ValueError):
    """A record of a Hexagons JSONL file does not follow the released format."""

    def __init__(self, source: str, line: int, field: str, problem: str):
        super().__init__(f"{source}, line {line}, field '{field}': {problem}")
        self.source, self.line, self.field = source, line, field


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_record(record: object, source: str = "<record>", line: int = 1) -> Procedure:
    """Validate one decoded JSON record and turn it into a ``Procedure``."""

    def fail(field: str, problem: str) -> HexagonsDataError:
        return HexagonsDataError(source, line, field, problem)

    if not isinstance(record, dict):
        raise fail("<record>", f"expected a JSON object, got {type(record).__name__}")
    missing = [k for k in RECORD_KEYS if k not in record]
    if missing:
        raise fail(missing[0], "missing")
    extra = sorted(set(record) - set(RECORD_KEYS))
    if extra:
        raise fail(extra[0], "unexpected key")
    for key in ("index", "annotation_round", "instructor_id", "number_of_drawing_steps"):
        if not _is_int(record[key]) or record[key] < 0:
            raise fail(key, f"expected a non-negative int, got {record[key]!r}")
    for key in ("category", "image_id"):
        if not isinstance(record[key], str) or not record[key]:
            raise fail(key, f"expected a non-empty string, got {record[key]!r}")
    n = record["number_of_drawing_steps"]
    if n < 1:
        raise fail("number_of_drawing_steps", "a procedure has at least one instruction")

    steps = record["drawing_procedure"]
    if not isinstance(steps, list) or len(steps) != n + 1:
        got = len(steps) if isinstance(steps, list) else type(steps).__name__
        raise fail("drawing_procedure", f"expected {n + 1} entries (number_of_drawing_steps + 1), got {got}")
    texts, boards = [], np.zeros((n + 1, NUM_TILES), dtype=np.int8)
    for t, entry in enumerate(steps):
        where = f"drawing_procedure[{t}]"
        if not isinstance(entry, list) or len(entry) != 3:
            raise fail(where, "expected [step, text, board]")
        step, text, board = entry
        if step != t or not _is_int(step):
            raise fail(f"{where}[0]", f"expected step {t}, got {step!r}")
        if not isinstance(text, str):
            raise fail(f"{where}[1]", f"expected a string, got {type(text).__name__}")
        if not isinstance(board, list) or len(board) != NUM_TILES:
            raise fail(f"{where}[2]", f"expected a list of {NUM_TILES} colour codes")
        bad = [c for c in board if not _is_int(c) or not 0 <= c < NUM_COLOURS]
        if bad:
            raise fail(f"{where}[2]", f"colour code {bad[0]!r} is not an int in 0..{NUM_COLOURS - 1}")
        boards[t] = board
        if t == 0:
            if text != "NONE" or any(board):
                raise fail(f"{where}", "step 0 must be the sentinel: text 'NONE' and a blank board")
        else:
            texts.append(text)

    tags, scores = record["agreement_tags"], record["agreement_scores"]
    if tags == "None" and scores == "None":
        tags = scores = None
    else:
        if not isinstance(tags, list) or len(tags) != n or any(t not in AGREEMENT_TAGS for t in tags):
            raise fail("agreement_tags", f"expected {n} tags from {AGREEMENT_TAGS} (or the string 'None')")
        if (
            not isinstance(scores, list)
            or len(scores) != n
            or any(not isinstance(s, list) or len(s) != 3 for s in scores)
            or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1 for s in scores for v in s)
        ):
            raise fail("agreement_scores", f"expected {n} triples of numbers in [0, 1] (or the string 'None')")
        tags, scores = tuple(tags), np.asarray(scores, dtype=np.float32)

    return Procedure(
        index=record["index"],
        annotation_round=record["annotation_round"],
        category=record["category"],
        image_id=record["image_id"],
        instructor_id=record["instructor_id"],
        texts=tuple(texts),
        boards=boards,
        agreement_tags=tags,
        agreement_scores=scores,
    )


def load_split(path: str | Path) -> list[Procedure]:
    """Load and validate every procedure of one JSONL file (blank lines are skipped)."""
    path = Path(path)
    procedures: list[Procedure] = []
    seen: dict[int, int] = {}
    with path.open("rb") as f:
        for line_no, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise HexagonsDataError(
                    str(path), line_no, "<encoding>", f"not UTF-8 text ({e.reason} at byte {e.start} of the line)"
                ) from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise HexagonsDataError(str(path), line_no, "<json>", str(e)) from None
            except RecursionError:
                raise HexagonsDataError(str(path), line_no, "<json>", "nested too deeply") from None
            proc = parse_record(record, str(path), line_no)
            if proc.index in seen:
                raise HexagonsDataError(str(path), line_no, "index", f"procedure {proc.index} already on line {seen[proc.index]}")
            seen[proc.index] = line_no
            procedures.append(proc)
    if not procedures:
        raise HexagonsDataError(str(path), 0, "<file>", "no records")
    return procedures


def load_dataset(directory: str | Path, splits: tuple[str, ...] = SPLITS) -> dict[str, list[Procedure]]:
    """Load ``{split}.jsonl`` for each split of a folder holding the release."""
    directory = Path(directory)
    missing = [s for s in splits if not (directory / f"{s}.jsonl").is_file()]
    if missing:
        raise FileNotFoundError(f"{directory} has no {', '.join(s + '.jsonl' for s in missing)}")
    return {s: load_split(directory / f"{s}.jsonl") for s in splits}


def split_statistics(procedures: list[Procedure], seen: set[str] | None = None) -> dict[str, float]:
    """Procedures, drawing steps, steps that change no tile, changed tiles per step and, given
    ``seen`` (the training split's instruction texts, stripped), the steps whose instruction is
    one of them word for word (``steps_in_train``)."""
    changed = [int((p.boards[t] != p.boards[t - 1]).sum()) for p in procedures for t in range(1, p.num_steps + 1)]
    in_train = {} if seen is None else {"steps_in_train": sum(t.strip() in seen for p in procedures for t in p.texts)}
    return {
        **in_train,
        "procedures": len(procedures),
        "steps": len(changed),
        "empty_steps": sum(c == 0 for c in changed),
        "mean_changed_tiles": float(np.mean(changed)),
        "max_changed_tiles": max(changed),
        "agreed_procedures": sum(p.agreed for p in procedures),
    }


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m hexagons.data", description=__doc__.split("\n\n")[0].replace("``", ""))
    p.add_argument("directory", help="folder holding train.jsonl, dev.jsonl and test.jsonl")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        dataset = load_dataset(args.directory)
    except (HexagonsDataError, FileNotFoundError) as e:
        raise SystemExit(f"error: {e}") from None
    header = f"{'split':<6} {'procedures':>10} {'steps':>6} {'empty':>6} {'tiles/step':>10} {'max':>4} {'agreed':>6} {'in train':>13}"
    print(header)
    seen = {t.strip() for p in dataset["train"] for t in p.texts}
    for split, procedures in dataset.items():
        s = split_statistics(procedures, None if split == "train" else seen)
        in_train = f"{s['steps_in_train']} ({100 * s['steps_in_train'] / s['steps']:.1f}%)" if "steps_in_train" in s else "-"
        print(
            f"{split:<6} {s['procedures']:>10} {s['steps']:>6} {s['empty_steps']:>6} "
            f"{s['mean_changed_tiles']:>10.2f} {s['max_changed_tiles']:>4} {s['agreed_procedures']:>6} {in_train:>13}"
        )


if __name__ == "__main__":
    main()
