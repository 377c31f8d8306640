"""Builder Action Prediction (BAP) items from the Minecraft Dialogue Corpus game logs.

Input: the corpus's ``data`` folder, holding ``logs/splits.json`` (target-structure ids per split:
``train``, ``val``, ``test``), ``logs/data-*/logs/<GAME>/postprocessed-observations.json`` (one
game each) and ``gold-configurations/C<k>.xml``. Items are derived as the reference code of
Jayannavar et al. (2020) derives them:

1. world states without a Builder position are dropped (glitch snapshots with an empty grid);
2. an event stream is built from consecutive states ``s_{i-1} -> s_i`` (i >= 2): placements (blocks
   in s_i, not in s_{i-1}), then removals, each sorted by (x, y, z, colour name), then the new chat
   lines of s_i. State s_1 is special: for each of its chat lines, every block of s_1 is emitted as
   a placement from an empty board, then the line;
3. an item is a maximal run of consecutive actions; any chat line ends a run;
4. an item is dropped if any board it touches has a block outside the build region.

Malformed logs raise ``MdcDataError`` naming the game (and file), the (unfiltered) state index and
the field: a game folder of a split without its log file (unless ``skip_missing``, which warns with
the count), a missing, corrupt or mistyped ``splits.json``, non-UTF-8 or invalid JSON, non-finite
or fractional coordinates.

Usage: ``python -m blocksworld.data DIR [--export OUT.jsonl] [--replay]`` prints per split the games,
BAP items, empty-board items and raw / net action-sequence lengths (``--replay``: the gold-replay
check of ``blocksworld.replay``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np

from blocksworld.grid import COLOURS, PICK, PLACE, Block, colour_code, in_region
from blocksworld.item import ARCHITECT, BUILDER, BapItem

SPLIT_NAMES = {"train": "train", "val": "dev", "test": "test"}
_GAME_STRUCTURE = re.compile(r"^B\d+-A\d+-([A-Z]+\d+(?:_\d+)?)-\d{7,}$")
_XML_BLOCK = re.compile(r'<DrawBlock\s+type="([^"]+)"\s+x="(-?\d+)"\s+y="(-?\d+)"\s+z="(-?\d+)"\s*/>')


class MdcDataError(ValueError):
    """A game log (or gold configuration) does not follow the corpus format."""

    def __init__(self, game: str, state: int | None, field: str, problem: str):
        where = f"game {game}" + (f", state {state}" if state is not None else "")
        super().__init__(f"{where}, field '{field}': {problem}")
        self.game, self.state, self.field = game, state, field


def structure_id(game_id: str) -> str:
    """Target structure of a game directory name, e.g. ``B1-A3-C1-1522435497386`` -> ``C1`` (the
    simulators' games use ids such as ``SHP0_17``)."""
    match = _GAME_STRUCTURE.match(game_id)
    if match is None:
        raise MdcDataError(game_id, None, "<directory name>", "expected B<n>-A<n>-<structure id>-<timestamp>")
    return match.group(1)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _parse_state(game: str, index: int, state: object) -> tuple[tuple[float, ...] | None, list[str], set[Block]]:
    """(pose or None, chat lines, blocks) of one world state, validated."""

    def fail(field: str, problem: str) -> MdcDataError:
        return MdcDataError(game, index, field, problem)

    if not isinstance(state, dict):
        raise fail("<state>", "expected an object")
    for key in ("BuilderPosition", "ChatHistory", "BlocksInGrid"):
        if key not in state:
            raise fail(key, "missing")
    position = state["BuilderPosition"]
    pose = None
    if position is not None:
        if not isinstance(position, dict) or any(not _number(position.get(k)) for k in ("X", "Y", "Z", "Yaw", "Pitch")):
            raise fail("BuilderPosition", "expected {X, Y, Z, Yaw, Pitch} finite numbers or null")
        pose = tuple(float(position[k]) for k in ("X", "Y", "Z", "Yaw", "Pitch"))
    chat = state["ChatHistory"]
    if not isinstance(chat, list) or any(not isinstance(line, str) for line in chat):
        raise fail("ChatHistory", "expected a list of strings")
    grid = state["BlocksInGrid"]
    if not isinstance(grid, list):
        raise fail("BlocksInGrid", "expected a list")
    blocks = set()
    for j, block in enumerate(grid):
        coords = block.get("AbsoluteCoordinates") if isinstance(block, dict) else None
        if not isinstance(coords, dict) or any(not _number(coords.get(k)) for k in "XYZ"):
            raise fail(f"BlocksInGrid[{j}].AbsoluteCoordinates", "expected {X, Y, Z} finite numbers")
        if any(float(coords[k]) != int(coords[k]) for k in "XYZ"):
            raise fail(f"BlocksInGrid[{j}].AbsoluteCoordinates", "coordinates must be whole numbers")
        try:
            colour = colour_code(str(block.get("Type", "")))
        except ValueError as e:
            raise fail(f"BlocksInGrid[{j}].Type", str(e)) from None
        blocks.add((int(coords["X"]), int(coords["Y"]), int(coords["Z"]), colour))
    return pose, chat, blocks


def _speaker_line(line: str) -> tuple[str, str]:
    """(speaker, text) of a chat line such as ``<Architect> put a red block``."""
    line = line.strip()
    first = line.split(maxsplit=1)[0] if line else ""
    speaker = ARCHITECT if ARCHITECT in first else BUILDER
    prefix = f"<{speaker}> "
    return speaker, line[len(prefix) :] if line.startswith(prefix) else line[len(first) :].strip()


def _sort_key(block: Block) -> tuple:
    x, y, z, colour = block
    return x, y, z, COLOURS[colour - 1]


def game_items(game_id: str, log: object, split: str) -> list[BapItem]:
    """BAP items of one game's ``postprocessed-observations.json`` content."""
    if not isinstance(log, dict) or not isinstance(log.get("WorldStates"), list):
        raise MdcDataError(game_id, None, "WorldStates", "expected an object with a WorldStates list")
    states = []
    for index, raw in enumerate(log["WorldStates"]):
        pose, chat, blocks = _parse_state(game_id, index, raw)
        if pose is not None:
            states.append((pose, chat, blocks))

    # Event stream: ("chat", (speaker, text)) or ("act", action, state index, prev blocks, blocks).
    events: list[tuple] = []
    for i in range(1, len(states)):
        _, chat, blocks = states[i]
        if i == 1:
            for line in chat:
                for block in sorted(blocks, key=_sort_key):
                    events.append(("act", (PLACE, *block), i, frozenset(), frozenset(blocks)))
                events.append(("chat", _speaker_line(line)))
            continue
        _, prev_chat, prev_blocks = states[i - 1]
        for kind, changed in ((PLACE, blocks - prev_blocks), (PICK, prev_blocks - blocks)):
            for block in sorted(changed, key=_sort_key):
                events.append(("act", (kind, *block), i, frozenset(prev_blocks), frozenset(blocks)))
        for line in chat[len(prev_chat) :]:
            events.append(("chat", _speaker_line(line)))

    items = []
    history: list[tuple[str, str]] = []
    for e, event in enumerate(events):
        if event[0] == "act" and (e == 0 or events[e - 1][0] == "chat"):
            run = []
            for later in events[e:]:
                if later[0] == "chat":
                    break
                run.append(later)
            inside = all(in_region(*b[:3]) for act in run for board in act[3:] for b in board)
            if inside:
                first_state = run[0][2]
                items.append(
                    BapItem(
                        game_id=game_id,
                        structure_id=structure_id(game_id),
                        split=split,
                        sample_id=first_state,
                        start=tuple(sorted(run[0][3])),
                        end=tuple(sorted(run[-1][4])),
                        actions=tuple(act[1] for act in run),
                        action_states=tuple(act[2] for act in run),
                        history=tuple(history),
                        builder_pose=states[first_state - 1][0],
                    )
                )
        if event[0] == "chat":
            history.append(event[1])
        else:
            history.append((event[1][0], COLOURS[event[1][4] - 1]))
    return items


def load_gold_configuration(path: str | Path) -> list[Block]:
    """Blocks of a target structure ``C<k>.xml`` (one ``<DrawBlock .../>`` per line, x and z offset
    by +100 in the file)."""
    path = Path(path)
    blocks = []
    for line_no, line in enumerate(_read_text(path, path.stem).splitlines(), start=1):
        if not line.strip():
            continue
        match = _XML_BLOCK.search(line)
        if match is None:
            raise MdcDataError(path.stem, None, f"line {line_no}", f"expected <DrawBlock type=.. x=.. y=.. z=../> in {path}")
        kind, x, y, z = match.groups()
        blocks.append((int(x) - 100, int(y), int(z) - 100, colour_code(kind)))
    return blocks


def _read_text(path: Path, game: str) -> str:
    """The UTF-8 text of a corpus file; ``MdcDataError`` naming it if it is missing or not UTF-8."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise MdcDataError(game, None, "<file>", f"{path} is missing") from None
    except UnicodeDecodeError as e:
        raise MdcDataError(game, None, "<file>", f"{path} is not UTF-8 text ({e.reason} at byte {e.start})") from None


def _read_json(path: Path, game: str) -> object:
    """The JSON content of a corpus file; ``MdcDataError`` naming it if it cannot be read."""
    text = _read_text(path, game)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise MdcDataError(game, None, "<json>", f"{path}: {e}") from None
    except RecursionError:
        raise MdcDataError(game, None, "<json>", f"{path}: nested too deeply") from None


LOG_FILE = "postprocessed-observations.json"


def find_games(directory: str | Path) -> dict[str, Path]:
    """Game id -> the path of its log file (which may be missing), for every game folder under
    ``DIR/logs/*/logs/``."""
    folders = sorted(p for p in Path(directory, "logs").glob("*/logs/*") if p.is_dir())
    return {p.name: p / LOG_FILE for p in folders}


def load_splits(directory: str | Path) -> dict[str, set[str]]:
    """Our split name (train / dev / test) -> target-structure ids, from ``DIR/logs/splits.json``."""
    path = Path(directory, "logs", "splits.json")
    splits = _read_json(path, str(path))
    if not isinstance(splits, dict):
        raise MdcDataError(str(path), None, "<file>", f"expected an object with {', '.join(SPLIT_NAMES)}")
    for key in SPLIT_NAMES:
        if key not in splits:
            raise MdcDataError(str(path), None, key, "split missing from splits.json")
        if not isinstance(splits[key], list) or not all(isinstance(x, str) for x in splits[key]):
            raise MdcDataError(str(path), None, key, f"expected a list of structure ids, got {type(splits[key]).__name__}")
    return {ours: set(splits[theirs]) for theirs, ours in SPLIT_NAMES.items()}


def load_items(
    directory: str | Path, splits: tuple[str, ...] = ("train", "dev", "test"), skip_missing: bool = False
) -> dict[str, list[BapItem]]:
    """BAP items per split of the corpus ``data`` folder (games in sorted directory order).

    A game folder of a wanted split without its log file raises ``MdcDataError``, or with
    ``skip_missing`` is skipped with a warning giving the count. Games whose structure is in no
    split (the corpus's warm-up games) are not read."""
    structures = load_splits(directory)
    games = find_games(directory)
    if not games:
        raise MdcDataError(str(Path(directory, "logs")), None, "<folder>", "no game folders under logs/*/logs/")
    out: dict[str, list[BapItem]] = {s: [] for s in splits}
    missing = []
    for game_id, path in games.items():
        split = next((s for s in splits if structure_id(game_id) in structures[s]), None)
        if split is None:
            continue
        if skip_missing and not path.is_file():
            missing.append(game_id)
            continue
        out[split].extend(game_items(game_id, _read_json(path, game_id), split))
    if missing:
        warnings.warn(f"skipped {len(missing)} game folder(s) without {LOG_FILE}: {', '.join(missing[:5])}", stacklevel=2)
    return out


def net_length(item: BapItem) -> int:
    return len(set(item.start) ^ set(item.end))


def split_statistics(items: list[BapItem]) -> dict[str, float]:
    """Games, items, empty-board items, raw / net action-sequence length mean and std (0 without items)."""
    raw = np.array([len(i.actions) for i in items] or [0])
    net = np.array([net_length(i) for i in items] or [0])
    return {
        "games": len({i.game_id for i in items}),
        "items": len(items),
        "empty_board_items": sum(i.empty_board for i in items),
        "raw_mean": float(raw.mean()),
        "raw_std": float(raw.std()),
        "net_mean": float(net.mean()),
        "net_std": float(net.std()),
    }


def write_jsonl(items: list[BapItem], path: str | Path) -> None:
    """One JSON line per item (``BapItem.to_json``); the file's folder is created if missing."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        for item in items:
            f.write(json.dumps(item.to_json()) + "\n")


def read_jsonl(path: str | Path) -> list[BapItem]:
    with open(path) as f:
        return [BapItem.from_json(json.loads(line)) for line in f if line.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m blocksworld.data", description=__doc__.split("\n\n")[0])
    p.add_argument("directory", help="the corpus's data folder (logs/ with splits.json, gold-configurations/)")
    p.add_argument("--out", type=Path, help="write every item as JSONL to this file")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    p.add_argument("--replay", action="store_true", help="replay every item's gold actions in the env")
    p.add_argument("--skip-missing", action="store_true", help="skip game folders without a log file (reports the count)")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.out and args.out.exists() and not args.overwrite:
        raise SystemExit(f"error: {args.out} already exists; replace it with --overwrite or choose another --out")
    try:
        items = load_items(args.directory, skip_missing=args.skip_missing)
    except MdcDataError as e:
        raise SystemExit(f"error: {e}") from None
    print(f"{'split':<6} {'games':>5} {'items':>6} {'EB':>5} {'raw len':>13} {'net len':>13}")
    for split, split_items in items.items():
        s = split_statistics(split_items)
        print(
            f"{split:<6} {s['games']:>5} {s['items']:>6} {s['empty_board_items']:>5} "
            f"{s['raw_mean']:>6.2f} ± {s['raw_std']:<4.2f} {s['net_mean']:>6.2f} ± {s['net_std']:<4.2f}"
        )
    if args.out:
        write_jsonl([i for split_items in items.values() for i in split_items], args.out)
        print(f"wrote {sum(map(len, items.values()))} items to {args.out}")
    if args.replay:
        import blocksworld
        from blocksworld.replay import replay_report

        for split, split_items in items.items():
            env, params = blocksworld.make("BlocksWorld-BAP-v1", split_items)
            print(split, ", ".join(f"{k} {v}" for k, v in replay_report(env, params, split_items).items()))


if __name__ == "__main__":
    main()
