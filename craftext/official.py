"""Importer for the official CrafText dataset (the ``craftext`` 0.2.2 package's data files).

Reads ``dataset/scenarious/jax_<scenario>/{instructions,test}.py`` from a downloaded wheel, an
unpacked folder or an installed copy **without importing its code**: each module is parsed with
``ast`` and its top-level dict literals are read with Python's dict semantics (a repeated key keeps
the last record; the earlier ones are reported). Records map to ``craftext.Goal``:

| official scenario | our goal |
|---|---|
| build_line (block, size, is_diagonal) | ``Goal.line(block, size, "diagonal" / "straight")`` |
| build_square (block, size) | ``Goal.square(block, size)`` |
| build_star (block, size, cross_type) | ``Goal.cross(block, arm=(size - 1) // 2, "plus" / "x" / "either")`` |
| localization_place (object, target, side, distance) | ``Goal.place_relative`` (side 0 right, 1 left, 2 up, 3 down) |
| conditional_placing (item, object, count, count_to_stand) | ``Goal.collect_then_place`` |
| conditional_achievements, explore (required, forbidden) | ``Goal.achievements`` (unordered, as the official checker) |

Dict names give level and split: ``easy`` / ``medium`` / ``hard`` are training data,
``*_test_paraphrased`` is ``test_paraphrased``, ``*_test_other_paramets`` is ``test_new_objects``.
Dropped records are reported with their reason: duplicate keys, string ``arguments``, names absent
from the Craftax version, no instruction text, values out of our ranges; test phrasings that
also appear in training are counted as leaks.

Usage: ``python -m craftext.dataset import-official PATH [--out FILE]`` (a ``.whl``, a folder
holding the ``craftext`` package, or an installed copy's site-packages): prints the report and,
with ``--out``, writes the imported goals as a goal file (``craftext.goalfile``, JSON lines) that
every command reads with ``--goals-file FILE``.
"""

from __future__ import annotations

import ast
import json
import os
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from craftext.goals import Goal, GoalError

SPLIT_SUFFIXES = (("_test_paraphrased", "test_paraphrased"), ("_test_other_paramets", "test_new_objects"), ("", "train"))
LEVEL_NAMES = ("easy", "medium", "hard")
SIDES = ("right", "left", "up", "down")
CROSS = {"STRAIGHT": "plus", "DIAGONAL": "x"}


@dataclass
class Record:
    """One official record: where it is, its texts and its raw ``arguments`` expression."""

    source: str
    scenario: str
    level: str
    split: str
    key: str
    texts: tuple[str, ...]
    arguments: ast.expr | None


@dataclass
class ImportReport:
    """Records found (after dict semantics), imported goals and what was dropped, with reasons."""

    records: list[Record] = field(default_factory=list)
    duplicate_keys: list[str] = field(default_factory=list)
    imported: list[tuple[Record, Goal]] = field(default_factory=list)
    dropped: list[tuple[Record, str]] = field(default_factory=list)
    leaks: int = 0
    new_object_leaks: int = 0

    @property
    def phrasings(self) -> int:
        return sum(len(r.texts) for r in self.records)


class OfficialDataError(ValueError):
    """The official data at the given path cannot be read (not a wheel, not Python, not UTF-8)."""


def _sources(path: Path) -> dict[str, str]:
    """Relative path -> text of every scenario data module under ``path``."""
    wanted = lambda name: "/dataset/scenarious/jax_" in name and name.endswith(("/instructions.py", "/test.py"))  # noqa: E731
    if not path.exists():
        raise OfficialDataError(f"{path}: no such file or folder")
    try:
        if path.suffix == ".whl":
            with zipfile.ZipFile(path) as wheel:
                return {n: wheel.read(n).decode() for n in sorted(wheel.namelist()) if wanted(n)}
        files = sorted(p for p in path.rglob("*.py") if wanted(p.as_posix()))
        return {p.relative_to(path).as_posix(): p.read_bytes().decode() for p in files}
    except zipfile.BadZipFile as e:
        raise OfficialDataError(f"{path}: not a wheel (zip) file: {e}") from None
    except UnicodeDecodeError as e:
        raise OfficialDataError(f"{path}: a data module is not UTF-8 text: {e}") from None


def _split_of(name: str) -> tuple[str, str] | None:
    for suffix, split in SPLIT_SUFFIXES:
        if name.endswith(suffix) and name[: len(name) - len(suffix)] in LEVEL_NAMES:
            return name[: len(name) - len(suffix)], split
    return None


def _text(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def read_records(path: str | Path) -> ImportReport:
    """Every record of the official data at ``path`` (dict semantics applied)."""
    report = ImportReport()
    sources = _sources(Path(path))
    if not sources:
        raise FileNotFoundError(f"no dataset/scenarious/jax_*/{{instructions,test}}.py under {path}")
    for name, text in sources.items():
        scenario = name.split("/jax_")[1].split("/")[0]
        try:
            module = ast.parse(text, filename=name)
        except (SyntaxError, ValueError, RecursionError) as e:
            raise OfficialDataError(f"{path}: {name} is not valid Python: {e}") from None
        for statement in module.body:
            if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Dict) and len(statement.targets) == 1):
                continue
            target = statement.targets[0]
            where = _split_of(target.id) if isinstance(target, ast.Name) else None
            if where is None:
                continue
            records: dict[str, Record] = {}
            for key_node, value in zip(statement.value.keys, statement.value.values):
                key = _text(key_node)
                if key is None or not isinstance(value, ast.Dict):
                    continue
                fields = {_text(k): v for k, v in zip(value.keys, value.values)}
                main = _text(fields.get("instruction", fields.get("Instruction")))
                others = fields.get("instruction_paraphrases", fields.get("Instruction_paraphrases"))
                paraphrases = [_text(e) for e in others.elts] if isinstance(others, ast.List) else []
                texts = tuple(t for t in [main, *paraphrases] if t is not None)
                if key in records:
                    report.duplicate_keys.append(f"{name}:{target.id}[{key!r}] (line {key_node.lineno})")
                records[key] = Record(name, scenario, *where, key, texts, fields.get("arguments"))
            report.records.extend(records.values())
    return report


def _arguments(call: ast.expr) -> tuple[list, dict]:
    """Positional and keyword values of a ``create_target_state(...)`` call: enum members become
    their lower-case names, lists become lists."""

    def value(node):
        if isinstance(node, ast.Attribute):
            return node.attr.lower()
        if isinstance(node, ast.List):
            return [value(e) for e in node.elts]
        if isinstance(node, ast.Constant):
            return node.value
        raise ValueError(f"unsupported argument {ast.dump(node)[:60]}")

    return [value(a) for a in call.args], {k.arg: value(k.value) for k in call.keywords}


def to_goal(record: Record, classic: bool = True) -> Goal:
    """Our goal for an official record; raises ValueError / GoalError with the reason."""
    if not isinstance(record.arguments, ast.Call):
        raise ValueError("arguments is not a create_target_state(...) call" + (" (a string)" if _text(record.arguments) else ""))
    args, kw = _arguments(record.arguments)

    def arg(index: int, name: str, default=None):
        return args[index] if len(args) > index else kw.get(name, default)

    s = record.scenario
    if s == "build_line":
        variant = "diagonal" if arg(2, "is_diagonal", False) else "straight"
        return Goal.line(arg(0, "block_type"), arg(1, "size"), variant, classic=classic)
    if s == "build_square":
        return Goal.square(arg(0, "block_type"), arg(1, "size"), classic=classic)
    if s == "build_star":
        size = arg(1, "size")
        arm = (size - 1) // 2 if isinstance(size, int) else size
        return Goal.cross(arg(0, "block_type"), arm, CROSS.get(str(arg(2, "cross_type")).upper(), "either"), classic=classic)
    if s == "localization_place":
        obj, target, side, distance = args
        return Goal.place_relative(obj, target, SIDES[side], distance, classic=classic)
    if s == "conditional_placing":
        item, obj, count, place_count = args
        return Goal.collect_then_place(item, count, obj, place_count, classic=classic)
    if s in ("conditional_achievements", "explore"):
        forbidden = kw.get("forbidden") or []
        if len(forbidden) > 1:
            raise ValueError("more than one forbidden achievement")
        return Goal.achievements(kw["required"], forbidden[0] if forbidden else None, classic=classic)
    raise ValueError(f"unknown scenario {s}")


def import_official(path: str | Path, classic: bool = True) -> ImportReport:
    """Read, map and validate the official data; see ``ImportReport``."""
    report = read_records(path)
    for record in report.records:
        if not record.texts or record.texts[0] in ("", "None"):
            report.dropped.append((record, "no instruction text"))
            continue
        try:
            report.imported.append((record, to_goal(record, classic)))
        except (GoalError, ValueError, KeyError, IndexError, TypeError) as e:
            report.dropped.append((record, f"{type(e).__name__}: {e}"))
    train_texts = {t for r, _ in report.imported if r.split == "train" for t in r.texts}
    report.leaks = sum(t in train_texts for r, _ in report.imported if r.split != "train" for t in r.texts)
    train_goals = {g for r, g in report.imported if r.split == "train"}
    report.new_object_leaks = sum(g in train_goals for r, g in report.imported if r.split == "test_new_objects")
    return report


def goal_file_lines(report: ImportReport) -> str:
    """The imported goals as a goal file (``craftext.goalfile``, JSON lines): one record per goal
    and split, the phrasings of records that map to the same goal merged."""
    merged: dict[tuple[str, str], dict] = {}
    for record, goal in report.imported:
        row = merged.setdefault(
            (goal.key(), record.split), {**goal.to_json(), "level": record.level, "split": record.split, "phrasings": []}
        )
        row["phrasings"] = list(dict.fromkeys(row["phrasings"] + list(record.texts)))
    return "".join(json.dumps(row, sort_keys=True) + "\n" for row in merged.values())


def write_goal_file(report: ImportReport, out: Path, overwrite: bool = False) -> Path:
    """Write ``goal_file_lines`` to ``out`` (refused if it exists, unless ``overwrite``); written
    beside it first and moved into place, so an interrupted write leaves any earlier file whole."""
    out = Path(out)
    _refuse_existing(out, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(goal_file_lines(report))
    os.replace(partial, out)
    return out


def _refuse_existing(out: Path, overwrite: bool) -> None:
    if out.exists() and not overwrite:
        raise OfficialDataError(f"{out} already exists; replace it with --overwrite or choose another --out")


def main(path: str, classic: bool = True, out: Path | None = None, overwrite: bool = False) -> None:
    """The report of ``import_official`` on stdout; with ``out``, the goal file too."""
    try:
        if out is not None:
            _refuse_existing(Path(out), overwrite)  # before reading anything
        report = import_official(path, classic)
    except (OfficialDataError, FileNotFoundError) as e:
        raise SystemExit(f"error: {e}") from None
    print(f"official data at {path}: {len(report.records)} goals, {report.phrasings} phrasings (Python dict semantics)")
    print(f"duplicate keys overwritten: {len(report.duplicate_keys)}")
    print(f"imported: {len(report.imported)} goals, {sum(len(r.texts) for r, _ in report.imported)} phrasings")
    reasons = Counter(
        reason.split(":")[0] + (": " + reason.split(": ", 1)[1][:70] if ": " in reason else "") for _, reason in report.dropped
    )
    print(f"dropped: {len(report.dropped)}")
    for reason, n in reasons.most_common():
        print(f"  {n:>4}  {reason}")
    print(f"test phrasings identical to a training phrasing (leaks): {report.leaks}")
    print(f"test_new_objects goals that are training goals (leaks): {report.new_object_leaks}")
    per = Counter((r.level, r.split) for r, _ in report.imported)
    for (level, split), n in sorted(per.items()):
        print(f"  {level:<6} {split:<17} {n:>4} goals")
    if out is None:
        print("\nadd --out FILE to write these goals as a goal file; every command then reads it with --goals-file FILE")
        return
    write_goal_file(report, Path(out), overwrite)
    print(f"\nwrote {out}: check it with python -m craftext.validate {out}, train on it with python -m baselines --goals-file {out}")
