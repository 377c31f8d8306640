"""Bringing episodes and earlier judgements into an arena.

``add_episodes`` reads a folder of episode files (``baselines.episodes``) of one agent: each file
is copied into the media folder and its clean, paced videos are rendered there by replay. ``import_basalt`` reads BASALT's released
judgements (``updated_human_answers.json``) so that BEDD's ratings can be recomputed here.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from baselines.arena.questions import VERDICTS
from baselines.arena.store import Store, check_name

VIDEO_FORMATS = ("webm", "mp4")
"""What the rater page offers, in this order (webm plays in every Chromium build, H.264 in most)."""
BASALT_WORLD = "MineRL-BASALT"
MIN_VIDEO_S, HOLD_S = 6.0, 2.0
"""Arena videos last at least this long (seconds) and hold their last frame this long."""


def _unit(meta: dict) -> tuple[str, str, str, str, int]:
    """(world, settings, task, instruction, seed) of an episode: the unit it can be compared on."""
    world = meta["env"]
    return (
        world,
        json.dumps(meta["world"], sort_keys=True),
        str(meta.get("goal", meta["text"])),
        str(meta.get("instruction", "")),
        int(meta["seed"]),
    )


def episode_files(folder: Path) -> list[Path]:
    """The episode files (``*.npz``) under ``folder``, sorted; a symbolic link anywhere below it is
    refused (ValueError naming it): the arena copies only files that are really in the folder. A
    name that is not a regular file (a FIFO, a device) is skipped with a line on stderr: reading it
    would block or never end."""
    found = []
    for root, dirs, files in os.walk(folder):
        for name in sorted(dirs + files):
            if (Path(root) / name).is_symlink():
                raise ValueError(f"{Path(root) / name}: a symbolic link; the arena ingests only regular files")
        for path in (Path(root) / name for name in files if name.endswith(".npz")):
            if path.is_file():
                found.append(path)
            else:
                print(f"skipped {path}: not a regular file", file=sys.stderr)
    return sorted(found)


def add_episodes(
    store: Store, folder: str | Path, agent: str, formats: tuple[str, ...] = VIDEO_FORMATS, fps: float = 8.0, quiet: bool = False
) -> dict[str, int]:
    """Add the episode files under ``folder`` as ``agent``'s (registered with ``add-agent``).
    Every file is read first (a malformed one or a symbolic link raises a ValueError naming it,
    before anything is added); an episode of a unit the agent already has is skipped when it is the
    same episode and refused otherwise. Each episode is copied to ``episodes/<agent id>/<unit
    id>.npz`` in the media folder (names never become paths) and its videos are rendered there by
    replay, clean (no step, action, return or agent on the frames: ``video.episode_frames(overlay=False)``)
    and paced to at least ``MIN_VIDEO_S`` with the last frame held ``HOLD_S``; videos found beside
    the files are ignored. The unit's instructions in order, all of them however far the agent got
    (``meta["instructions"]``, ``World.procedure``; a Hexagons procedure has several), go to the
    rater page. A progress bar unless ``quiet``. Returns counts: added, skipped, rendered videos."""
    from baselines.episodes.video import episode_frames, paced, write
    from baselines.worlds.cli import progress
    from baselines.worlds.episode import EpisodeError, load
    from baselines.worlds.replay import replay, world_of

    folder = Path(folder)
    unknown = [f for f in formats if f not in VIDEO_FORMATS]
    if unknown or not formats:
        raise ValueError(f"formats {formats}: use some of {', '.join(VIDEO_FORMATS)}")
    agent_id = store.agent_id(agent)
    files = episode_files(folder)
    if not files:
        raise ValueError(f"{folder}: no episode files (*.npz)")
    episodes = [(path, load(path)) for path in files]
    added = skipped = rendered = 0
    for path, episode in progress(episodes, desc=f"add {agent}", unit="episode", silent=quiet):
        unit = _unit(episode.meta)
        task_id = store.task_id(*unit)
        existing = store.episode_on(agent_id, task_id)
        if existing is not None:
            if json.loads(existing["meta"]).get("final_state_sha256") != episode.meta["final_state_sha256"]:
                raise EpisodeError(f"{path}: agent {agent!r} already has a different episode of {unit[0]} {unit[2]!r} seed {unit[4]}")
            skipped += 1
            continue
        relative = Path("episodes") / str(agent_id) / f"{task_id}.npz"
        (store.media / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, store.media / relative)
        replayed = replay(episode, keep_states=True)
        frames = paced(episode_frames(episode, replayed, overlay=False), fps, MIN_VIDEO_S, HOLD_S)
        world = world_of(episode.meta)
        instructions = world.procedure(int(episode.meta["text"]))  # the unit's whole procedure, not what this agent reached
        videos = []
        for kind in formats:
            videos.append(str(write(frames, store.media / relative.with_suffix("." + kind), fps).relative_to(store.media)))
            rendered += 1
        store.add_episode(agent_id, task_id, str(relative), videos, {**episode.meta, "instructions": instructions})
        added += 1
    return {"added": added, "skipped": skipped, "rendered": rendered}


def _seconds(value: Any) -> float | None:
    """A BASALT timestamp (epoch milliseconds or seconds, or ISO 8601 text) in epoch seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) / (1000.0 if value > 1e11 else 1.0)
    if isinstance(value, str) and value:
        try:
            parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)).timestamp()
    return None


def _basalt_answers(where: str, metadata: dict) -> tuple[dict, dict, str]:
    """(direct, comparisons, justification) of a BASALT ``eval_metadata`` in this arena's form:
    direct answers keyed by question text, yes / no per player (an unticked box reads as no);
    comparative answers p1 / p2 / draw / na as left / right / draw / na."""
    responses = metadata.get("responses") or {}
    if not isinstance(responses, dict):
        raise ValueError(f"{where}: field 'result.eval_metadata.responses' is not an object")
    side = {"p1": "left", "p2": "right", "draw": "draw", "na": "na"}
    direct, comparisons = {}, {}
    for item in responses.get("direct_question") or []:
        direct[str(item.get("question"))] = {
            s: "yes" if str(item.get(key)).lower() == "true" else "no" for s, key in (("left", "player_1"), ("right", "player_2"))
        }
    for item in responses.get("comparisons") or []:
        given = item.get("answer")
        answer = "na" if given in (None, "") else side.get(str(given).lower())  # unanswered: N/A
        if answer is None:
            raise ValueError(
                f"{where}: field 'result.eval_metadata.responses.comparisons' answer {item.get('answer')!r} is not one of p1, p2, draw, na"
            )
        comparisons[str(item.get("question"))] = answer
    return direct, comparisons, str(metadata.get("justificationText", ""))


def _basalt_record(record, where: str) -> dict:
    """One BASALT record in this arena's form (``read_basalt``); ValueError naming the field."""
    try:
        task, episodes, result, worker = record["task"], record["episodes"], record["result"], record["worker_id"]
    except (KeyError, TypeError) as error:
        raise ValueError(f"{where}: missing field {error}") from None
    if (
        not isinstance(episodes, list)
        or len(episodes) != 2
        or not all(isinstance(e, dict) and "agent_name" in e and "seed" in e for e in episodes)
    ):
        raise ValueError(f"{where}: field 'episodes' must be two objects with agent_name and seed")
    if str(episodes[0]["seed"]) != str(episodes[1]["seed"]):
        raise ValueError(f"{where}: field 'episodes' compares seeds {episodes[0]['seed']} and {episodes[1]['seed']}")
    if str(episodes[0]["agent_name"]) == str(episodes[1]["agent_name"]):
        raise ValueError(f"{where}: field 'episodes' has agent {episodes[0]['agent_name']!r} on both sides")
    try:
        seed = int(episodes[0]["seed"])
    except (TypeError, ValueError):
        raise ValueError(f"{where}: field 'episodes' seed {episodes[0]['seed']!r} is not an integer") from None
    metadata = result.get("eval_metadata") if isinstance(result, dict) else None
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            metadata = None
    if not isinstance(metadata, dict):
        raise ValueError(f"{where}: field 'result.eval_metadata' is not an object")
    win = metadata.get("win_player")
    verdict = "draw" if result.get("is_draw") or win == "draw" else {"p1": "left", "p2": "right"}.get(win)
    if verdict not in VERDICTS:
        raise ValueError(f"{where}: field 'result.eval_metadata.win_player' is {win!r}, expected p1, p2 or draw")
    direct, comparisons, justification = _basalt_answers(where, metadata)
    for name in (str(e["agent_name"]) for e in episodes):
        check_name(name, f"{where}: field 'episodes' agent")
    return {
        "task": str(task),
        "seed": seed,
        "agents": (str(episodes[0]["agent_name"]), str(episodes[1]["agent_name"])),
        "verdict": verdict,
        "direct": direct,
        "comparisons": comparisons,
        "justification": justification,
        "worker": str(worker),
        "reported_at": _seconds(metadata.get("end_time")) or _seconds(metadata.get("start_time")),
        "key": "basalt:" + hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8", "replace")).hexdigest(),
    }


def read_basalt(path: str | Path, banned: set[str] = frozenset()) -> tuple[list[dict], list[str]]:
    """(judgements, refused) of BASALT's ``updated_human_answers.json`` (a list, newest first).
    Judgements come oldest first (the order BASALT replays them in), without those of ``banned``
    workers: dicts with ``task``, ``seed``, ``agents`` (player 1, player 2), ``verdict`` (left =
    player 1), ``direct``, ``comparisons`` (an unanswered comparison is ``na``), ``justification``,
    ``worker``, ``reported_at`` (epoch seconds of the rater's ``end_time``, else ``start_time``,
    else None; kept, never used for ordering), ``order`` (position, oldest first) and ``key`` (the
    sha256 of the record's content: what makes a re-import a no-op). ``refused`` names each
    malformed record (file, record number, field), self-pairs included; a file that is not a JSON
    list raises ValueError."""
    path = Path(path)
    try:
        records = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not readable JSON ({error})") from None
    if not isinstance(records, list):
        raise ValueError(f"{path}: expected a list of judgement records, got {type(records).__name__}")
    judgements, refused = [], []
    for order, index in enumerate(range(len(records) - 1, -1, -1)):
        record, where = records[index], f"{path}: record {index}"
        if isinstance(record, dict) and record.get("worker_id") in banned:
            continue
        try:
            judgements.append({**_basalt_record(record, where), "order": order})
        except ValueError as error:
            refused.append(str(error))
    return judgements, refused


def import_basalt(store: Store, path: str | Path, banned_path: str | Path | None = None) -> dict:
    """Import BASALT's released judgements into the arena (world ``MineRL-BASALT``, agents by name,
    one unit per task and seed, raters by worker id with no token), all in one transaction.
    Records are keyed by their content, so a record already in the arena (from this file, a copy
    under another name, or an older version of it) is skipped and only new ones are added; they
    are ordered as BASALT replays them (oldest first in the file; an import comes after everything
    before it), never by the raters' clocks. Imported units have no videos and are never served to
    raters. Returns counts (``judgements`` added, ``skipped`` already there, ``agents``) and
    ``refused``: one message per malformed record (those are left out, the rest imported)."""
    banned = set()
    if banned_path is not None:
        try:
            banned = {str(row["workerId"]) for row in json.loads(Path(banned_path).read_text())}
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
            raise ValueError(f"{banned_path}: expected a JSON list of {{workerId}} records ({error})") from None
    judgements, refused = read_basalt(path, banned)
    source, at = f"basalt:{Path(path).name}", time.time()
    added, agents = 0, set()
    with store.transaction():
        for j in judgements:
            task_id = store.task_id(BASALT_WORLD, "{}", j["task"], j["task"], j["seed"])
            episodes = []
            for name in j["agents"]:
                agents.add(name)
                agent_id = store.agent_id(name, create=True)
                row = store.episode_on(agent_id, task_id)
                episodes.append(row["id"] if row else store.add_episode(agent_id, task_id, None, [], {"source": source}))
            added += store.insert_judged_match(
                task_id, *episodes, f"basalt:{j['worker']}", j, at, source, j["order"], key=j["key"], reported_at=j["reported_at"]
            )
    return {"judgements": added, "skipped": len(judgements) - added, "agents": len(agents), "refused": refused}
