"""Bringing episodes and earlier judgements into an arena.

``add_episodes`` reads a folder of episode files (``baselines.episodes``) of one agent: each file
is copied into the media folder and its videos are taken from beside it (``<name>.webm`` /
``<name>.mp4``) or rendered by replay when missing. ``import_basalt`` reads BASALT's released
judgements (``updated_human_answers.json``) so that BEDD's ratings can be recomputed here.
"""

from __future__ import annotations

import datetime
import json
import shutil
from pathlib import Path
from typing import Any

from baselines.arena.questions import VERDICTS
from baselines.arena.store import Store

VIDEO_FORMATS = ("webm", "mp4")
"""What the rater page offers, in this order (webm plays in every Chromium build, H.264 in most)."""
BASALT_WORLD = "MineRL-BASALT"


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


def add_episodes(
    store: Store, folder: str | Path, agent: str, formats: tuple[str, ...] = VIDEO_FORMATS, fps: float = 8.0, quiet: bool = False
) -> dict[str, int]:
    """Add the episode files under ``folder`` as ``agent``'s (registered with ``add-agent``).
    Every file is read first (a malformed one raises ``EpisodeError`` naming it, before anything is
    added); an episode of a unit the agent already has is skipped when it is the same episode and
    refused otherwise; a progress bar unless ``quiet``. Returns counts: added, skipped, rendered
    videos."""
    from baselines.cli import progress
    from baselines.episodes.episode import EpisodeError, load

    folder = Path(folder)
    unknown = [f for f in formats if f not in VIDEO_FORMATS]
    if unknown or not formats:
        raise ValueError(f"formats {formats}: use some of {', '.join(VIDEO_FORMATS)}")
    agent_id = store.agent_id(agent)
    files = sorted(folder.rglob("*.npz"))
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
        relative = Path("episodes") / agent / path.relative_to(folder)
        (store.media / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, store.media / relative)
        videos, frames = [], None
        for kind in formats:
            target = relative.with_suffix("." + kind)
            beside = path.with_suffix("." + kind)
            if beside.is_file():
                shutil.copyfile(beside, store.media / target)
            else:
                from baselines.episodes.video import episode_frames, write

                frames = frames if frames is not None else episode_frames(episode)
                write(frames, store.media / target, fps)
                rendered += 1
            videos.append(str(target))
        store.add_episode(agent_id, task_id, str(relative), videos, episode.meta)
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
        answer = side.get(str(item.get("answer")).lower())
        if answer is None:
            raise ValueError(
                f"{where}: field 'result.eval_metadata.responses.comparisons' answer {item.get('answer')!r} is not one of p1, p2, draw, na"
            )
        comparisons[str(item.get("question"))] = answer
    return direct, comparisons, str(metadata.get("justificationText", ""))


def read_basalt(path: str | Path, banned: set[str] = frozenset()) -> list[dict]:
    """The judgements of BASALT's ``updated_human_answers.json`` (a list, newest first), oldest
    first, without those of ``banned`` workers: dicts with ``task``, ``seed``, ``agents`` (player 1,
    player 2), ``verdict`` (left = player 1), ``direct``, ``comparisons``, ``justification``,
    ``worker``, ``submitted_at`` (epoch seconds: ``eval_metadata.end_time``, else ``start_time``,
    else None) and ``order`` (position, oldest first). A malformed record raises ValueError naming
    the file, the record and the field, before anything is imported."""
    path = Path(path)
    try:
        records = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not readable JSON ({error})") from None
    if not isinstance(records, list):
        raise ValueError(f"{path}: expected a list of judgement records, got {type(records).__name__}")
    judgements = []
    for order, index in enumerate(range(len(records) - 1, -1, -1)):
        record, where = records[index], f"{path}: record {index}"
        try:
            task, episodes, result, worker = record["task"], record["episodes"], record["result"], record["worker_id"]
        except (KeyError, TypeError) as error:
            raise ValueError(f"{where}: missing field {error}") from None
        if worker in banned:
            continue
        if (
            not isinstance(episodes, list)
            or len(episodes) != 2
            or not all(isinstance(e, dict) and "agent_name" in e and "seed" in e for e in episodes)
        ):
            raise ValueError(f"{where}: field 'episodes' must be two objects with agent_name and seed")
        if str(episodes[0]["seed"]) != str(episodes[1]["seed"]):
            raise ValueError(f"{where}: field 'episodes' compares seeds {episodes[0]['seed']} and {episodes[1]['seed']}")
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
        judgements.append(
            {
                "task": str(task),
                "seed": int(episodes[0]["seed"]),
                "agents": (str(episodes[0]["agent_name"]), str(episodes[1]["agent_name"])),
                "verdict": verdict,
                "direct": direct,
                "comparisons": comparisons,
                "justification": justification,
                "worker": str(worker),
                "submitted_at": _seconds(metadata.get("end_time")) or _seconds(metadata.get("start_time")),
                "order": order,
            }
        )
    return judgements


def import_basalt(store: Store, path: str | Path, banned_path: str | Path | None = None) -> dict[str, int]:
    """Import BASALT's released judgements into the arena (world ``MineRL-BASALT``, agents by name,
    one unit per task and seed, raters by worker id with no token), all in one transaction.
    Re-importing the same file adds nothing. Returns counts: judgements, agents, banned workers skipped."""
    banned = set()
    if banned_path is not None:
        try:
            banned = {str(row["workerId"]) for row in json.loads(Path(banned_path).read_text())}
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
            raise ValueError(f"{banned_path}: expected a JSON list of {{workerId}} records ({error})") from None
    judgements = read_basalt(path, banned)
    source = f"basalt:{Path(path).name}"
    with store.transaction():
        if store.imported(source):
            return {"judgements": 0, "agents": 0, "already_imported": 1}
        agents = set()
        for j in judgements:
            task_id = store.task_id(BASALT_WORLD, "{}", j["task"], j["task"], j["seed"])
            episodes = []
            for name in j["agents"]:
                agents.add(name)
                agent_id = store.agent_id(name, create=True)
                row = store.episode_on(agent_id, task_id)
                episodes.append(row["id"] if row else store.add_episode(agent_id, task_id, None, [], {"source": source}))
            store.insert_judged_match(task_id, *episodes, f"basalt:{j['worker']}", j, j["submitted_at"] or 0.0, source, j["order"])
    return {"judgements": len(judgements), "agents": len(agents), "already_imported": 0}
