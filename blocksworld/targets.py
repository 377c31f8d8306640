"""User target structures for the Build task: a JSON lines file, one structure per line.

    {"name": "red arch", "blocks": [[-1, 1, 0, "red"], [1, 1, 0, "red"], [-1, 2, 0, "red"], ...],
     "instruction": "build a small red arch", "split": "train", "pose": [0, 1, -5, 0, 45]}

``blocks``: the structure, ``[x, y, z, colour]`` in world coordinates (x, z in -5..5, y in 1..9,
``blocksworld.grid``), colour one of ``COLOURS``; at most 20 blocks of a colour (the Builder's
inventory), no cell twice. ``name`` (unique) is required; ``instruction`` (default empty: the
target grid alone conditions the Builder), ``split`` (``train`` / ``dev`` / ``test``, default
``train``) and the Builder's starting ``pose`` (x, y, z, yaw, pitch; default ``DEFAULT_POSE``) are
optional. Floating blocks are allowed: the Build expert raises temporary supports.

``load_targets`` reports every problem of a file at once (``TargetFileError.problems``, each
``file:line: field 'name': message``) and returns Build items (``BapItem`` with an empty start),
which ``blocksworld.make("BlocksWorld-Build-v1", items)`` and ``python -m baselines --env
BlocksWorld-Build-v1 --data FILE`` accept.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from blocksworld.grid import COLOURS, in_region
from blocksworld.item import ARCHITECT, BapItem

SPLITS = ("train", "dev", "test")
FIELDS = ("name", "blocks", "instruction", "split", "pose")
INVENTORY = 20  # blocks of each colour the Builder starts with
DEFAULT_POSE = (0.0, 1.0, -5.0, 0.0, 45.0)


class TargetFileError(ValueError):
    """A target file with problems: ``problems`` lists each as ``file:line: field 'f': message``."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _target(record: object, where: str) -> tuple[BapItem | None, list[str]]:
    """The Build item of one record and the problems found (all of them)."""
    if not isinstance(record, dict):
        return None, [f"{where}: expected a JSON object, got {type(record).__name__}"]
    problems = [f"{where}: field '{k}': unknown; a target has {', '.join(FIELDS)}" for k in record if k not in FIELDS]
    name = record.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(f"{where}: field 'name': required, a non-empty string")
    blocks, cells = [], Counter()
    raw = record.get("blocks")
    if not isinstance(raw, list) or not raw:
        problems.append(f"{where}: field 'blocks': required, a non-empty list of [x, y, z, colour]")
        raw = []
    for j, block in enumerate(raw):
        if not (isinstance(block, list) and len(block) == 4 and all(isinstance(v, int) and not isinstance(v, bool) for v in block[:3])):
            problems.append(f"{where}: field 'blocks[{j}]': expected [x, y, z, colour] with integer x, y, z, got {block!r}")
            continue
        x, y, z, colour = block
        if not in_region(x, y, z):
            problems.append(f"{where}: field 'blocks[{j}]': ({x}, {y}, {z}) is outside the build region (x, z in -5..5, y in 1..9)")
        elif colour not in COLOURS:
            problems.append(f"{where}: field 'blocks[{j}]': colour {colour!r}; use one of {', '.join(COLOURS)}")
        else:
            cells[x, y, z] += 1
            blocks.append((x, y, z, COLOURS.index(colour) + 1))
    problems += [f"{where}: field 'blocks': cell {cell} appears {n} times" for cell, n in cells.items() if n > 1]
    for colour, n in Counter(b[3] for b in blocks).items():
        if n > INVENTORY:
            problems.append(f"{where}: field 'blocks': {n} {COLOURS[colour - 1]} blocks, the Builder has {INVENTORY}")
    instruction = record.get("instruction", "")
    if not isinstance(instruction, str):
        problems.append(f"{where}: field 'instruction': expected a string, got {instruction!r}")
    split = record.get("split", "train")
    if split not in SPLITS:
        problems.append(f"{where}: field 'split': {split!r}; use one of {', '.join(SPLITS)}")
    pose = record.get("pose", DEFAULT_POSE)
    if not (isinstance(pose, (list, tuple)) and len(pose) == 5 and all(_number(v) for v in pose)):
        problems.append(f"{where}: field 'pose': expected [x, y, z, yaw, pitch] numbers, got {pose!r}")
    if problems:
        return None, problems
    history = ((ARCHITECT, instruction),) if instruction.strip() else ()
    item = BapItem(
        game_id=name,
        structure_id=name,
        split=split,
        sample_id=0,
        start=(),
        end=tuple(sorted(blocks)),
        actions=(),
        action_states=(),
        history=history,
        builder_pose=tuple(float(v) for v in pose),
    )
    return item, []


def load_targets(path: str | Path, split: str | None = None) -> list[BapItem]:
    """The Build items of a target file (module docstring), only those of ``split`` if given;
    ``TargetFileError`` with every problem of the file; ``ValueError`` if ``split`` has none."""
    path = Path(path)
    items, problems, names = [], [], {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise TargetFileError([f"{path}: cannot read: {error}"]) from None
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{line_no}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{where}: not JSON: {error.msg} at column {error.colno}")
            continue
        item, found = _target(record, where)
        problems += found
        if item is not None:
            if item.game_id in names:
                problems.append(f"{where}: field 'name': {item.game_id!r} already on line {names[item.game_id]}")
            names[item.game_id] = line_no
            items.append(item)
    if not items and not problems:
        problems.append(f"{path}: no targets")
    if problems:
        raise TargetFileError(problems)
    if split is not None:
        items = [i for i in items if i.split == split]
        if not items:
            raise ValueError(f"{path} has no targets in split {split!r}")
    return items
