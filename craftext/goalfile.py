"""User goal sets: goals and their phrasings in a file (format version 1), JSON lines or YAML.

One record per goal:

* ``scenario``: a ``Scenario`` name (``ACHIEVEMENTS``, ``BUILD_LINE``, ...);
* ``args``: the arguments of that scenario, by the names the ``Goal`` constructors use
  (``goals.ARGUMENTS``), e.g. ``{"required": ["collect_wood"], "forbidden": null, "ordered": false}``;
* ``phrasings``: a non-empty list of instruction texts;
* optional: ``classic`` (bool, default: the loader's ``classic``), ``split`` (``train``,
  ``test_paraphrased``, ``test_new_objects``; default ``train``), ``level`` (``easy`` / ``medium``
  / ``hard``; default: the generator's level of the goal), ``category`` and ``key`` (when given,
  they must be the goal's own; the shipped release carries both, so it is an instance of this format).

JSON lines: one record per line (a ``.gz`` file is read compressed); a first line
``{"format": "craftext-goals", "version": 1}`` is optional. YAML (``.yaml`` / ``.yml``): a list of
records, or a mapping ``{goals: [...]}`` with the optional ``format: craftext-goals, version: 1``.

``load_goals`` checks every record and raises one ``GoalFileError`` listing every problem, each with
the file, the line and the field.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from craftext.dataset import Dataset, Entry
from craftext.generator import LEVELS, SPLITS, level
from craftext.goals import Goal, GoalError

FORMAT, VERSION = "craftext-goals", 1
FIELDS = ("scenario", "args", "phrasings", "classic", "split", "level", "category", "key")


class GoalFileError(ValueError):
    """Problems of a goal file: ``problems`` lists each as ``file:line: field ...: message``."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s):\n" + "\n".join(problems))


def _records(path: Path) -> list[tuple[int, object]]:
    """(line, record) pairs of a JSON-lines or YAML file; unreadable syntax raises GoalFileError."""
    if path.suffix in (".yaml", ".yml"):
        import yaml  # type: ignore[import-untyped]  # PyYAML ships no types; its stub package is not a dependency

        try:
            root = yaml.compose(path.read_text())
        except yaml.YAMLError as error:
            raise GoalFileError([f"{path}: not YAML ({error})"]) from None
        if isinstance(root, yaml.MappingNode):
            top = {k.value: v for k, v in root.value}
            if "goals" not in top:
                raise GoalFileError([f"{path}:{root.start_mark.line + 1}: field 'goals': missing (a list of goal records)"])
            header = yaml.safe_load(path.read_text())
            if "format" in header or "version" in header:
                _check_version(path, root.start_mark.line + 1, header)
            root = top["goals"]
        if not isinstance(root, yaml.SequenceNode):
            raise GoalFileError([f"{path}: expected a list of goal records"])
        return [(node.start_mark.line + 1, yaml.safe_load(yaml.serialize(node))) for node in root.value]
    opener = gzip.open if path.suffix == ".gz" else open
    records, problems = [], []
    with opener(path, "rt") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                records.append((number, json.loads(line)))
            except json.JSONDecodeError as error:
                problems.append(f"{path}:{number}: not JSON ({error.msg} at column {error.colno})")
    if problems:
        raise GoalFileError(problems)
    if records and isinstance(records[0][1], dict) and "format" in records[0][1]:
        _check_version(path, records[0][0], records[0][1])
        records = records[1:]
    return records


def _check_version(path: Path, line: int, header: dict) -> None:
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise GoalFileError(
            [
                f"{path}:{line}: field 'format' / 'version': expected {FORMAT!r} version {VERSION}, "
                f"got {header.get('format')!r} version {header.get('version')!r}"
            ]
        )


def _entry(record: object, classic: bool) -> tuple[Entry | None, list[str]]:
    """One record as an ``Entry``, or None and every problem found in it (each naming its field)."""
    if not isinstance(record, dict):
        return None, [f"expected a record (a mapping), got {type(record).__name__}"]
    problems = []
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        problems.append(f"field(s) {', '.join(map(repr, unknown))}: unknown; a record has {', '.join(FIELDS)}")
    problems += [f"field '{name}': missing" for name in ("scenario", "args", "phrasings") if name not in record]
    phrasings = record.get("phrasings", ["-"])
    if (
        isinstance(phrasings, str)
        or not isinstance(phrasings, list)
        or not phrasings
        or not all(isinstance(p, str) and p.strip() for p in phrasings)
    ):
        problems.append(f"field 'phrasings': expected a non-empty list of non-empty strings, got {phrasings!r}")
    if record.get("classic", classic) != classic:
        problems.append(f"field 'classic': {record['classic']!r} in a file loaded for {'Classic' if classic else 'full'} Craftax")
    split = record.get("split", "train")
    if split not in SPLITS:
        problems.append(f"field 'split': {split!r}; use one of {', '.join(SPLITS)}")
    if record.get("level", LEVELS[0]) not in LEVELS:
        problems.append(f"field 'level': {record['level']!r}; use one of {', '.join(LEVELS)}")
    goal = None
    if "scenario" in record and "args" in record:
        try:
            goal = Goal(record["scenario"], record["args"], classic)
        except GoalError as error:
            message = str(error)
            problems.append(message if message.startswith("field ") else f"field 'args': {message}")
    if goal is not None:
        problems += [
            f"field '{name}': {record[name]!r}, but the goal's is {own!r}"
            for name, own in (("category", goal.category), ("key", goal.key()))
            if name in record and record[name] != own
        ]
    if problems or goal is None:
        return None, problems
    return Entry(goal, record.get("level", level(goal)), split, tuple(phrasings)), []


def load_goals(path: str | Path, classic: bool = True) -> Dataset:
    """The goals of a user file (module docstring) for Classic or full Craftax; raises
    ``GoalFileError`` listing every problem of the file (file, line, field) at once."""
    path = Path(path)
    if not path.is_file():
        raise GoalFileError([f"{path}: no such file"])
    entries, problems = [], []
    for line, record in _records(path):
        entry, found = _entry(record, classic)
        entries += [entry] if entry else []
        problems += [f"{path}:{line}: {problem}" for problem in found]
    if not entries and not problems:
        problems.append(f"{path}: no goal records")
    if problems:
        raise GoalFileError(problems)
    return Dataset(entries)


def split_pairs(path: str | Path, classic: bool, split: str) -> list:
    """``(Goal, phrasings)`` pairs of one split of a goal file (``load_goals``); ``ValueError`` if it has none."""
    pairs = load_goals(path, classic).select(split=split).pairs()
    if not pairs:
        raise ValueError(f"{path}: no goals in split {split!r}")
    return pairs
