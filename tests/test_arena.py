"""The arena: ratings (TrueSkill, Bradley-Terry), the scheduler, the store's rules, BASALT's
judgements, the CLI, a rater in a real headless browser, and 50 raters at once."""

from __future__ import annotations

import json
import math
import random
import shutil
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from baselines.arena import scheduler
from baselines.arena.__main__ import main as cli
from baselines.arena.ingest import BASALT_WORLD, add_episodes, import_basalt, read_basalt
from baselines.arena.ratings import (
    MIN_RANKED,
    Outcome,
    TrueSkillReplay,
    bradley_terry,
    environment,
    leaderboard,
    trueskill_ratings,
    win_matrix,
)
from baselines.arena.store import SESSION_S, Rater, Rejected, Rules, Store
from baselines.worlds.episode import load
from tests import servers

HOSTS = ("testserver",)
"""The Host header of FastAPI's TestClient, which the apps under test answer."""

HEXAGONS = {"env": "Hexagons-Paint-v1", "data": "tiles", "max_episode_steps": 6, "data_size": 8}
UNITS = 3
"""Units (instruction, seed) both recorded agents play."""


# ----------------------------------------------------------------------------- ratings
def test_trueskill_numbers_of_one_game():
    won = trueskill_ratings([Outcome((0, 0, "m"), "W", "t", "A", "B", "left")])
    assert (round(won["A"].mu, 3), round(won["B"].mu, 3), round(won["A"].sigma, 3), round(won["B"].sigma, 3)) == (
        29.396,
        20.604,
        7.171,
        7.171,
    )
    lost = trueskill_ratings([Outcome((0, 0, "m"), "W", "t", "A", "B", "right")])
    assert (round(lost["B"].mu, 3), round(lost["A"].mu, 3)) == (29.396, 20.604)
    drawn = trueskill_ratings([Outcome((0, 0, "m"), "W", "t", "A", "B", "draw")])
    assert (round(drawn["A"].mu, 3), round(drawn["A"].sigma, 3)) == (25.0, 6.458)


def _random_outcomes(n: int, agents: list[str], strength: dict[str, float], seed: int) -> list[Outcome]:
    rng = np.random.default_rng(seed)
    outcomes = []
    for i in range(n):
        a, b = rng.choice(len(agents), 2, replace=False)
        p = 1 / (1 + 10 ** ((strength[agents[b]] - strength[agents[a]]) / 400))
        u = rng.random()
        verdict = "draw" if abs(u - p) < 0.05 else ("left" if u < p else "right")
        outcomes.append(
            Outcome((float(i), 0, f"m{i}"), "W", f"t{i % 3}", agents[a], agents[b], verdict, {"progress": verdict if i % 4 else "na"})
        )
    return outcomes


def test_incremental_trueskill_equals_one_replay_in_canonical_order():
    outcomes = _random_outcomes(60, ["A", "B", "C"], {"A": 1200, "B": 1000, "C": 800}, seed=1)
    whole = trueskill_ratings(outcomes)
    shuffled = list(outcomes)
    random.Random(0).shuffle(shuffled)
    replay = TrueSkillReplay()
    for chunk in range(0, 60, 7):  # chunks out of order force replays from the start
        replay.extend(shuffled[chunk : chunk + 7])
    assert replay.ratings == whole
    assert trueskill_ratings(outcomes[::-1]) == whole  # the order is the record's, not the list's


def test_bradley_terry_recovers_a_planted_order_and_separates_ranks():
    planted = {"A": 1300, "B": 1150, "C": 1000, "D": 850, "E": 700}
    outcomes = _random_outcomes(1500, list(planted), planted, seed=2)
    fitted = bradley_terry(outcomes, list(planted), rounds=100)
    assert sorted(planted, key=lambda a: -fitted[a]["score"]) == list(planted)
    assert [fitted[a]["rank"] for a in planted] == [1, 2, 3, 4, 5]  # 150 Elo apart over 1500 games: intervals apart
    differences = [fitted[a]["score"] - fitted[b]["score"] for a, b in zip(planted, list(planted)[1:])]
    assert all(100 < d < 200 for d in differences), differences
    assert all(fitted[a]["low"] < fitted[a]["score"] < fitted[a]["high"] for a in planted)
    close = bradley_terry(_random_outcomes(40, ["X", "Y"], {"X": 1010, "Y": 1000}, seed=3), ["X", "Y"], rounds=100)
    assert close["X"]["rank"] == close["Y"]["rank"] == 1  # overlapping intervals share a rank
    undefeated = bradley_terry([Outcome((i, 0, str(i)), "W", "t", "X", "Y", "left") for i in range(5)], ["X", "Y"], rounds=20)
    assert math.isfinite(undefeated["X"]["score"]) and undefeated["X"]["score"] > undefeated["Y"]["score"]


def test_no_rank_or_interval_from_too_few_judgements():
    few = [Outcome((i, 0, str(i)), "W", "t", "X", "Y", "left") for i in range(MIN_RANKED - 1)]
    fitted = bradley_terry(few, ["X", "Y"], rounds=20)
    assert all(fitted[a]["rank"] is None and fitted[a]["low"] is None and fitted[a]["high"] is None for a in ("X", "Y"))
    rows = leaderboard(few, ("world",), rounds=20)
    assert [r["rank"] for r in rows] == [None, None]
    enough = few + [Outcome((MIN_RANKED + i, 0, f"e{i}"), "W", "t", "X", "Y", "left") for i in range(MIN_RANKED)]
    newcomer = [Outcome((100, 0, "n"), "W", "t", "X", "N", "right")]
    fitted = bradley_terry(enough + newcomer, ["N", "X", "Y"], rounds=50)
    assert fitted["N"]["rank"] is None and fitted["X"]["rank"] == 1 and fitted["Y"]["rank"] == 2  # N beat X once: not ranked above it


def test_leaderboard_per_question_and_win_matrix():
    outcomes = _random_outcomes(90, ["A", "B", "C"], {"A": 1200, "B": 1000, "C": 800}, seed=4)
    rows = leaderboard(outcomes, ("world",), rounds=20)
    assert [r["agent"] for r in rows] == ["A", "B", "C"] and sum(r["judgements"] for r in rows) == 2 * 90
    assert all(r["wins"] + r["draws"] + r["losses"] == r["judgements"] for r in rows)
    per_question = leaderboard(outcomes, ("world",), question="progress", rounds=20)
    assert sum(r["judgements"] for r in per_question) == 2 * sum(o.comparisons["progress"] != "na" for o in outcomes)
    per_task = leaderboard(outcomes, ("world", "task"), rounds=0)
    assert {r["task"] for r in per_task} == {"t0", "t1", "t2"}
    assert all(r["bt_low"] == r["bt"] == r["bt_high"] for r in per_task)  # no resamples: the point estimate
    agents, wins, games = win_matrix(outcomes)
    assert agents == ["A", "B", "C"] and np.allclose(wins + wins.T, games) and games.sum() == 2 * 90


# ----------------------------------------------------------------------------- the scheduler
def test_win_probability_uses_two_beta_squared():
    env = environment()
    a, b = env.create_rating(mu=25 + env.beta, sigma=1e-9), env.create_rating(mu=25, sigma=1e-9)
    assert scheduler.win_probability(a, b) == pytest.approx(0.5 * (1 + math.erf(0.5)))  # Phi(beta / sqrt(2 beta^2))
    new, settled = env.create_rating(), env.create_rating(mu=25, sigma=1.0)
    assert (
        scheduler.expected_variance_drop(new, new)
        > scheduler.expected_variance_drop(new, settled)
        > scheduler.expected_variance_drop(settled, settled)
    )


def _unit_store(path: Path, agents: list[str], seeds: list[int]) -> Store:
    """A store with one episode of every agent on every seed of one task (video names, no files)."""
    store = Store(path)
    ids = {a: store.add_agent(a) for a in agents}
    for seed in seeds:
        task = store.task_id("Hexagons-Paint-v1", "{}", "goal", "paint it", seed)
        for agent in agents:
            store.add_episode(ids[agent], task, None, [f"episodes/{ids[agent]}/{task}.webm"], {"seed": seed})
    return store


def test_scheduler_never_crosses_seeds_and_prefers_uncertain_pairs(tmp_path):
    store = _unit_store(tmp_path / "a.sqlite", ["A", "B", "C"], [1, 2, 3, 4])
    store.add_rater("r")
    rater = Rater(1, "r", "rater")
    rng = random.Random(0)
    rules = Rules(min_watch_s=0, min_justification=0, exploration=0.3)
    for _ in range(40):
        view = store.next_match(rater, rules, rng)
        store.submit(
            rater,
            view["uuid"],
            {
                "verdict": "left",
                "direct": {"board_matches": {"left": "yes", "right": "no"}},
                "comparisons": dict.fromkeys(["pattern", "wrong_tiles", "efficiency", "human_like"], "na"),
                "justification": "",
            },
            rules,
        )
    crossed = store.db.execute(
        "SELECT COUNT(*) FROM matches m JOIN episodes l ON l.id = m.left_episode_id JOIN episodes r "
        "ON r.id = m.right_episode_id WHERE l.task_id != r.task_id OR l.task_id != m.task_id"
    ).fetchone()[0]
    assert crossed == 0
    explored = store.db.execute("SELECT SUM(explored) FROM matches").fetchone()[0]
    assert 0 < explored < 40
    env = environment()
    settled = {"Hexagons-Paint-v1": {"A": env.create_rating(mu=30, sigma=0.8), "B": env.create_rating(mu=20, sigma=0.8)}}
    fresh = [scheduler.Candidate(1, "Hexagons-Paint-v1", 1, a, 2, b) for a, b in (("A", "B"), ("A", "C"), ("B", "C"))]
    picks = [scheduler.choose(fresh, settled, random.Random(i), exploration=0.0)[0] for i in range(20)]
    assert all("C" in (c.agent_a, c.agent_b) for c in picks)  # the new agent's pairs reduce uncertainty most


def test_scheduler_serves_a_rater_every_pair_and_unit_before_repeating_one(tmp_path):
    store = _unit_store(tmp_path / "a.sqlite", ["A", "B", "C"], [1, 2])
    store.add_rater("r")
    rater = Rater(1, "r", "rater")
    rules = Rules(min_watch_s=0, min_justification=0, exploration=0.2)
    served = []
    for i in range(12):
        view = store.next_match(rater, rules, random.Random(i))
        store.submit(rater, view["uuid"], {**ANSWER, "justification": ""}, rules)
        served.append(
            store.db.execute(
                "SELECT task_id, MIN(left_episode_id, right_episode_id), MAX(left_episode_id, right_episode_id) "
                "FROM matches WHERE uuid = ?",
                (view["uuid"],),
            ).fetchone()
        )
    assert len(set(served[:6])) == 6 and len(set(served[6:])) == 6  # 3 agent pairs x 2 units, each once, then again
    pairs = [store.db.execute("SELECT GROUP_CONCAT(agent_id) FROM episodes WHERE id IN (?, ?)", (a, b)).fetchone()[0] for _, a, b in served]
    assert len(set(pairs[:3])) == 3  # every agent pair before one is repeated on another unit


def test_two_stores_on_one_database_fold_each_judgement_once(tmp_path):
    """The scheduler's in-memory ratings of one server process stay equal to a full replay when
    another process writes judgements in between its reads."""
    path = tmp_path / "a.sqlite"
    setup = _unit_store(path, ["A", "B", "C"], [1, 2, 3])
    setup.add_rater("r")
    setup.close()
    first, second = Store(path), Store(path)
    rater = Rater(1, "r", "rater")
    rules = Rules(min_watch_s=0, min_justification=0)

    def judge(store, verdict):
        view = store.next_match(rater, rules, random.Random(len(store.outcomes())))
        store.submit(rater, view["uuid"], {**ANSWER, "verdict": verdict, "justification": ""}, rules)

    class Racing:  # the other process judges right before this one reads the new judgements
        def __init__(self, db):
            self.db = db

        def execute(self, sql, *args):
            if "FROM judgements j JOIN matches m" in sql:
                judge(second, "right")
            return self.db.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.db, name)

    judge(first, "left")
    first.world_ratings()
    real, first.db = first.db, Racing(first.db)
    first.world_ratings()
    first.db = real
    judge(first, "draw")
    assert first.world_ratings() == {"Hexagons-Paint-v1": trueskill_ratings(first.outcomes())}


# ----------------------------------------------------------------------------- episodes, CLI
@pytest.fixture(scope="module")
def arena_template(tmp_path_factory) -> Path:
    """An arena database with two agents (Hexagons expert and random) on the same UNITS units,
    videos rendered by ``add-episodes``, made through the CLI; tests copy it."""
    from baselines.worlds import World
    from baselines.worlds.replay import record

    root = tmp_path_factory.mktemp("arena")
    world = World(HEXAGONS, "train")
    for policy in ("expert", "random"):
        for unit in range(UNITS):
            record(world, policy, world.schedule(unit), 100 + unit, root / "episodes" / policy / f"unit{unit}")
    db = root / "arena.sqlite"
    for policy in ("expert", "random"):
        cli(["add-agent", policy, "--db", str(db)])
        cli(["add-episodes", str(root / "episodes" / policy), "--agent", policy, "--db", str(db)])
    return db


def copy_arena(template: Path, folder: Path) -> Store:
    folder.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(template) as source, sqlite3.connect(folder / template.name) as copy:
        source.backup(copy)
    shutil.copytree(template.with_name(template.stem + "-media"), folder / (template.stem + "-media"))
    return Store(folder / template.name)


def test_add_episodes_pairs_units_and_refuses_bad_input(arena_template, tmp_path, capsys):
    store = copy_arena(arena_template, tmp_path)
    assert store.counts()["episodes"] == 2 * UNITS and store.counts()["tasks"] == UNITS
    for row in store.db.execute("SELECT file, videos FROM episodes"):
        assert (store.media / row["file"]).is_file()
        assert sorted(Path(v).suffix for v in json.loads(row["videos"])) == [".mp4", ".webm"]
        assert all((store.media / v).stat().st_size > 1000 for v in json.loads(row["videos"]))
    source = arena_template.parent / "episodes" / "expert"
    assert add_episodes(store, source, "expert", quiet=True) == {"added": 0, "skipped": UNITS, "rendered": 0}
    with pytest.raises(ValueError, match="no agent named 'nobody'"):
        add_episodes(store, source, "nobody")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bad.npz").write_bytes(b"not an episode")
    with pytest.raises(ValueError, match="bad.npz"):
        add_episodes(store, broken, "expert")
    with pytest.raises(SystemExit, match="error: .*exists already"):
        cli(["add-agent", "expert", "--db", str(store.path)])
    for name in ("../../x", "/tmp/x", "tab\there", " padded"):
        with pytest.raises(SystemExit, match="agent name .*no slashes, control characters"):
            cli(["add-agent", name, "--db", str(store.path)])
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "one.npz").symlink_to(next(source.rglob("*.npz")))
    with pytest.raises(ValueError, match="one.npz: a symbolic link"):
        add_episodes(store, linked, "expert")
    assert store.counts()["episodes"] == 2 * UNITS  # nothing lost or added by the refusals
    files = [row["file"] for row in store.db.execute("SELECT file FROM episodes")]
    assert all(Path(f).parts[0] == "episodes" and Path(f).parts[1].isdigit() for f in files)  # ids, never names, in paths


def _decoded(data: bytes, folder: Path, shape: tuple[int, ...]) -> np.ndarray:
    """(T, H, W, 3) uint8 frames of a served video of frames of ``shape`` (ffmpeg spawned without
    a preexec_fn, as ``video.write`` does, so this JAX process is not forked)."""
    import imageio_ffmpeg

    path = folder / "served.webm"
    path.write_bytes(data)
    raw = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
        capture_output=True,
        check=True,
    ).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, *shape)


def test_arena_videos_are_blind_paced_and_carry_the_instruction(arena_template, tmp_path):
    """What a rater is served decodes to the clean render (no step, action, return or agent),
    lasts at least MIN_VIDEO_S and holds its last frame."""
    from fastapi.testclient import TestClient

    from baselines.arena.ingest import HOLD_S, MIN_VIDEO_S
    from baselines.arena.server import create_app
    from baselines.episodes.video import episode_frames

    store = copy_arena(arena_template, tmp_path)
    token = store.add_rater("viewer")
    client = TestClient(create_app(store, rounds=0, seed=0, hosts=HOSTS))
    view = client.get("/api/match", headers={"Authorization": f"Bearer {token}"}).json()
    assert view["instructions"] and all("agent" not in text for text in view["instructions"])
    served = client.get(view["videos"]["left"][0]["src"], headers={"Authorization": f"Bearer {token}"})
    match = store.db.execute("SELECT left_episode_id FROM matches WHERE uuid = ?", (view["uuid"],)).fetchone()[0]
    episode = load(store.media / store.db.execute("SELECT file FROM episodes WHERE id = ?", (match,)).fetchone()[0])
    clean, marked = episode_frames(episode, overlay=False)[0], episode_frames(episode, overlay=True)[0]
    frames = _decoded(served.content, tmp_path, clean.shape)
    assert len(frames) >= 8 * MIN_VIDEO_S and np.abs(frames[-1].astype(int) - frames[-int(8 * HOLD_S)]).mean() < 1.0
    rows = np.any(clean != marked, axis=(1, 2))
    assert rows.any()  # the overlay writes something: the check below can fail
    first = frames[0].astype(int)
    assert np.abs(first[rows] - clean[rows]).mean() < 0.5 * np.abs(first[rows] - marked[rows]).mean()
    assert np.abs(first - clean).mean() < 4.0  # the whole frame is the clean render, up to the codec


# ----------------------------------------------------------------------------- the rules, over HTTP

ANSWER = {
    "verdict": "left",
    "direct": {"board_matches": {"left": "yes", "right": "unsure"}},
    "comparisons": {"pattern": "left", "wrong_tiles": "draw", "efficiency": "na", "human_like": "right"},
    "justification": "The left board has the red tile the instruction asks for; the right one does not.",
}


def test_media_answers_conditional_and_range_requests_and_never_500(arena_template, tmp_path):
    """``Range`` with ``If-Range`` (the video's strong ETag: the range; a date, a weak or another
    tag: the whole file), ``If-None-Match`` (304), ``If-Match`` (412 when it is another tag),
    ``If-Modified-Since`` (ignored: no date is sent), and 1,000 hostile combinations: never a 500,
    and what is sent is the same for both sides' videos but for their tags."""
    from fastapi.testclient import TestClient

    from baselines.arena.server import Limits, create_app, media_tag

    store = copy_arena(arena_template, tmp_path)
    token = store.add_rater("alice")
    client = TestClient(create_app(store, Rules(), Limits(rate_limit=10_000, media_rate_limit=10_000), seed=0, hosts=HOSTS))
    auth = {"Authorization": f"Bearer {token}"}
    view = client.get("/api/match", headers=auth).json()
    src, tag = view["videos"]["left"][0]["src"], media_tag(view["uuid"], "left", "webm")
    cases = [
        ({"Range": "bytes=0-9", "If-Range": tag}, 206),
        ({"Range": "bytes=0-9", "If-Range": "W/" + tag}, 200),
        ({"Range": "bytes=0-9", "If-Range": '"another"'}, 200),
        ({"Range": "bytes=0-9", "If-Range": "Wed, 21 Oct 2015 07:28:00 GMT"}, 200),
        ({"If-None-Match": tag}, 304),
        ({"If-None-Match": f'"x", W/{tag}'}, 304),
        ({"If-None-Match": '"x"'}, 200),
        ({"If-Match": '"x"'}, 412),
        ({"If-Match": tag, "Range": "bytes=5-"}, 206),
        ({"If-Modified-Since": "Wed, 21 Oct 2015 07:28:00 GMT"}, 200),
        ({"Range": "bytes=999999999-"}, 416),
        ({"Range": "bytes=oops"}, 400),
    ]
    for headers, status in cases:
        answer = client.get(src, headers={**auth, **headers})
        assert answer.status_code == status, (headers, answer.status_code)
        assert "last-modified" not in answer.headers
    rng = random.Random(0)
    values = {
        "Range": ["bytes=0-0", "bytes=-5", "bytes=0-1,4-9", "bytes=9-2", "bits=0-1", "bytes=", "bytes=0-" + "9" * 40, "bytes=a-b"],
        "If-Range": [tag, "W/" + tag, '"', "Mon, 01 Jan 2035 00:00:00 GMT", "x" * 300, ""],
        "If-None-Match": [tag, "*", '"a",', "W/", ""],
        "If-Match": [tag, "*", '"a"', ""],
        "If-Modified-Since": ["yesterday", "Mon, 01 Jan 1990 00:00:00 GMT", ""],
    }
    statuses = set()
    for _ in range(1000):
        headers = {name: rng.choice(options) for name, options in values.items() if rng.random() < 0.5}
        statuses.add(client.get(src, headers={**auth, **headers}).status_code)
    assert max(statuses) < 500, sorted(statuses)


def test_auth_rate_limits_and_submission_rules(arena_template, tmp_path):
    from fastapi.testclient import TestClient

    from baselines.arena.server import Limits, create_app

    store = copy_arena(arena_template, tmp_path)
    alice, bob, admin = store.add_rater("alice"), store.add_rater("bob"), store.add_rater("boss", "admin")
    rules = Rules(min_watch_s=0.5, min_justification=40, expiry_s=60)
    client = TestClient(create_app(store, rules, Limits(rate_limit=20, login_failures=3), rounds=10, seed=0, hosts=HOSTS))
    auth = lambda token: {"Authorization": f"Bearer {token}"}  # noqa: E731
    assert client.get("/api/match").status_code == 401
    assert client.get("/api/match", headers=auth("forged")).status_code == 401
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400  # DNS rebinding
    view = client.get("/api/match", headers=auth(alice)).json()
    assert client.get("/api/match", headers=auth(alice)).json()["uuid"] == view["uuid"]  # the open match again
    assert [q["id"] for q in view["questions"]["direct"]] == ["board_matches"] and view["videos"]["left"][0]["type"] == "video/webm"
    src = view["videos"]["left"][0]["src"]
    ranged = client.get(src, headers={**auth(alice), "Range": "bytes=0-99"})
    assert ranged.status_code == 206 and len(ranged.content) == 100  # seeking works
    from baselines.arena.server import media_tag

    whole = client.get(src, headers=auth(alice))
    for served in (ranged, whole):  # neither the ingest time nor the episode in any header
        assert "last-modified" not in served.headers and served.headers["etag"] == media_tag(view["uuid"], "left", "webm")
    assert media_tag(view["uuid"], "left", "webm") != media_tag(view["uuid"], "right", "webm")
    assert client.get(src, headers=auth(bob)).status_code == 404  # another rater's match
    assert "default-src 'self'" in ranged.headers["content-security-policy"]

    submit = lambda token, **change: client.post("/api/judgement", headers=auth(token), json={**ANSWER, "match": view["uuid"], **change})  # noqa: E731
    assert submit(alice).status_code == 425  # before the minimum watch time
    time.sleep(0.6)
    assert submit(bob).status_code == 403
    assert submit(alice, justification="too short").status_code == 422
    assert submit(alice, verdict="both").status_code == 422
    assert submit(alice, comparisons={"pattern": "left"}).status_code == 422
    assert submit(alice, direct={"board_matches": {"left": "maybe", "right": "no"}}).status_code == 422
    assert client.post("/api/judgement", headers=auth(alice), json={"verdict": "left"}).status_code == 422
    assert store.counts()["judgements"] == 0
    assert submit(alice).status_code == 201
    assert submit(alice).status_code == 409  # one submission per match
    assert store.counts()["judgements"] == 1
    expired = store.next_match(Rater(1, "alice", "rater"), rules, random.Random(1))
    with pytest.raises(Rejected) as refused:
        store.submit(Rater(1, "alice", "rater"), expired["uuid"], ANSWER, rules, now=time.time() + 61)
    assert refused.value.status == 410

    assert client.get("/api/admin/export", headers=auth(alice)).status_code == 403
    exported = client.get("/api/admin/export", headers=auth(admin)).json()
    assert len(exported) == 1 and exported[0]["rater"] == "alice" and exported[0]["comparisons"]["pattern"] == "left"
    assert {exported[0]["left_agent"], exported[0]["right_agent"]} == {"expert", "random"}
    assert client.get("/api/admin/export?format=csv", headers=auth(admin)).text.count("\n") == 2
    made = client.post("/api/admin/raters", headers=auth(admin), json={"name": "carol"}).json()
    assert client.get("/api/me", headers=auth(made["token"])).json()["name"] == "carol"
    assert client.post("/api/admin/raters", headers=auth(alice), json={"name": "mallory"}).status_code == 403
    assert store.db.execute("SELECT COUNT(*) FROM raters WHERE token_hash = ?", (alice,)).fetchone()[0] == 0  # only hashes stored

    statuses = [client.get("/api/me", headers=auth(bob)).status_code for _ in range(25)]
    assert statuses.count(429) >= 4 and 500 not in statuses
    limited = client.get("/api/me", headers=auth(bob))
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    logins = [client.post("/api/login", json={"token": f"guess{i}"}).status_code for i in range(5)]
    assert logins[:2] == [401, 401] and logins[2:] == [429, 429, 429]  # the forged Bearer token above counted too

    with pytest.raises(ValueError, match="exploration must be in"):
        Rules(exploration=1.5)
    with pytest.raises(ValueError, match="rate_limit must be >= 1"):
        Limits(rate_limit=0)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.db.execute("UPDATE judgements SET verdict = 'right'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.db.execute("DELETE FROM matches")
    store.ban("alice", "test")
    assert store.authenticate(alice) is None and store.outcomes() == [] and len(store.judgements()) == 1


def test_server_hygiene(arena_template, tmp_path):
    """Bodies bounded and authenticated first, credential failures limited on every path, session
    cookies that are not tokens and die on sign-out, bounded caches, strict JSON, safe CSV."""
    import asyncio

    from fastapi.testclient import TestClient

    from baselines.arena.server import CACHED, COOKIE, Limits, create_app

    store = copy_arena(arena_template, tmp_path)
    alice, admin = store.add_rater("alice"), store.add_rater("boss", "admin")
    rules = Rules(min_watch_s=0, min_justification=20)
    app = create_app(store, rules, Limits(login_failures=3, max_body_bytes=10_000), rounds=0, seed=0, hosts=HOSTS)
    client = TestClient(app)
    auth = lambda token: {"Authorization": f"Bearer {token}"}  # noqa: E731

    # bodies: authentication before reading, a size limit before parsing
    assert client.post("/api/judgement", content=b"x" * 100, headers={"Content-Type": "application/json"}).status_code == 401
    assert client.post("/api/judgement", content=b"x" * 20_000, headers=auth(alice)).status_code == 413
    reads = []

    async def receive():
        reads.append(1)
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            reads.append(message["status"])

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/judgement",
        "headers": [(b"content-length", b"2")],
        "query_string": b"",
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "scheme": "http",
        "root_path": "",
        "http_version": "1.1",
    }
    asyncio.run(app(scope, receive, send))
    assert reads == [401]  # refused without reading a byte of the body

    # strict JSON in, strict JSON out
    view = client.get("/api/match", headers=auth(alice)).json()
    answer = {**ANSWER, "match": view["uuid"]}
    nan = json.dumps({**answer, "video_events": [{"t": float("nan")}]})
    assert client.post("/api/judgement", headers={**auth(alice), "Content-Type": "application/json"}, content=nan).status_code == 422
    body = json.dumps({**answer, "video_events": ["PLACEHOLDER"]}).replace("PLACEHOLDER", "\\ud800").encode()
    assert client.post("/api/judgement", headers={**auth(alice), "Content-Type": "application/json"}, content=body).status_code == 422
    formula = '=HYPERLINK("http://example.invalid", "click") because the left one painted the right tile'
    assert client.post("/api/judgement", headers=auth(alice), json={**answer, "justification": formula}).status_code == 201
    other = store.next_match(Rater(2, "boss", "admin"), rules, random.Random(3))
    match_id = store.db.execute("SELECT id FROM matches WHERE uuid = ?", (other["uuid"],)).fetchone()[0]
    store.db.execute(  # a record from before these checks: NaN and a lone surrogate in its events
        "INSERT INTO judgements (match_id, rater_id, verdict, direct, comparisons, justification, video_events, submitted_at) "
        "VALUES (?, 2, 'left', '{}', '{}', 'old', ?, 0)",
        (match_id, '[{"t": NaN, "x": "\\ud800"}]'),
    )
    exported = client.get("/api/admin/export", headers=auth(admin))
    assert exported.status_code == 200 and json.loads(exported.text, parse_constant=lambda c: pytest.fail(c))[1]["video_events"] == [
        {"t": None, "x": "\ufffd"}
    ]
    csv_text = client.get("/api/admin/export?format=csv", headers=auth(admin)).text
    assert "'=HYPERLINK" in csv_text and ",=HYPERLINK" not in csv_text
    cli(["export", "--db", str(store.path), "--out", str(tmp_path / "all.json")])
    json.loads((tmp_path / "all.json").read_text(), parse_constant=lambda c: pytest.fail(c))

    # bounded caches keyed by known worlds and tasks only
    for i in range(50):
        assert client.get(f"/api/leaderboard?world=w{i}", headers=auth(admin)).status_code == 200
        assert client.get(f"/api/plots/ratings.png?world=w{i}", headers=auth(admin)).status_code == 404
    assert len(app.state.ratings.cache) == 1 <= CACHED

    # sessions: a random id in the cookie (never the token), revoked on sign-out, with an expiry
    signed = client.post("/api/login", json={"token": alice})
    session = signed.cookies[COOKIE]
    assert session != alice and f"Max-Age={int(SESSION_S)}" in signed.headers["set-cookie"]
    assert client.get("/api/me").json()["name"] == "alice"
    assert store.session_rater(session, now=time.time() + SESSION_S + 1) is None
    assert client.post("/api/logout").status_code == 403  # another page (another port too) has no CSRF token
    assert client.post("/api/logout", headers={"X-CSRF-Token": "guessed"}).status_code == 403
    assert client.get("/api/me").json()["name"] == "alice"  # still signed in
    assert client.post("/api/logout", headers={"X-CSRF-Token": signed.json()["csrf"]}).status_code == 200
    client.cookies.set(COOKIE, session)
    assert client.get("/api/me").status_code == 401  # the old cookie is dead (and counts as a failed credential)
    client.cookies.clear()

    # credential failures count on every path: cookie (above), Bearer, sign-in; only failures count,
    # and a valid credential passes whatever its address's failures (no lock-out by someone else)
    assert [client.get("/api/me", headers=auth(f"guess{i}")).status_code for i in range(2)] == [401] * 2
    assert client.get("/api/me", headers=auth("guess")).status_code == 429
    assert client.post("/api/login", json={"token": "guess"}).status_code == 429
    assert client.get("/api/me", headers=auth(alice)).status_code == 200  # a signed-in rater at the same address
    assert client.post("/api/login", json={"token": alice}).status_code == 200  # and the right token
    assert client.get("/api/me").status_code == 200
    client.cookies.clear()
    client.cookies.set(COOKIE, "forged")
    assert client.get("/api/me").status_code == 429


def test_a_rater_learns_nothing_that_tells_the_agents_apart(arena_template, tmp_path):
    """Everything a browser receives while judging (the pages, every API answer, every header of
    both videos, the leaderboard before and after the judgement) names no agent and differs
    between the sides only where the videos do: the leaderboard is the admins' until the study
    closes, then public and read-only."""
    from fastapi.testclient import TestClient

    from baselines.arena.server import create_app

    store = copy_arena(arena_template, tmp_path)
    token, admin = store.add_rater("rater"), store.add_rater("boss", "admin")
    client = TestClient(create_app(store, Rules(min_watch_s=0, min_justification=10), rounds=5, seed=0, hosts=HOSTS))
    auth = {"Authorization": f"Bearer {token}"}
    received: list[str] = []

    def get(path: str, **headers) -> object:
        response = client.get(path, headers={**auth, **headers})
        received.append(json.dumps(dict(response.headers)) + (response.text if "video" not in response.headers["content-type"] else ""))
        return response

    for path in ("/", "/leaderboard", "/api/me"):
        assert get(path).status_code == 200
    before = get("/api/leaderboard")
    view = get("/api/match").json()
    videos = {side: get(view["videos"][side][0]["src"]) for side in ("left", "right")}
    ignored = {"etag", "content-length", "content-range", "date"}  # the etag names match and side, the length is the video's own
    assert {k: v for k, v in videos["left"].headers.items() if k not in ignored} == {
        k: v for k, v in videos["right"].headers.items() if k not in ignored
    }
    judged = client.post("/api/judgement", headers=auth, json={**ANSWER, "match": view["uuid"]})
    received.append(json.dumps(dict(judged.headers)) + judged.text)
    after = get("/api/leaderboard")
    assert before.status_code == after.status_code == 403 and before.json() == after.json()
    assert get("/api/plots/ratings.png?world=Hexagons-Paint-v1").status_code == 403
    for agent in ("expert", "random"):
        assert not [text for text in received if agent in text], agent
    assert client.get("/api/leaderboard", headers={"Authorization": f"Bearer {admin}"}).json()["judgements"] == 1

    cli(["study", "closed", "--db", str(store.path)])
    public = TestClient(create_app(Store(store.path), rounds=5, hosts=HOSTS))
    board = public.get("/api/leaderboard").json()  # no sign-in
    assert board["study"] == "closed" and {r["agent"] for r in board["overall"]} == {"expert", "random"}
    assert public.get("/api/plots/wins.png?world=Hexagons-Paint-v1").status_code == 200
    assert public.get("/api/match", headers=auth).status_code == 409  # read-only once closed


def test_a_reopened_study_publishes_again_only_with_enough_new_judgements(arena_template, tmp_path):
    """Close, reopen, judge one match, close: the public board is the first closing's, byte for
    byte, so diffing it tells nothing of the match; with PUBLISH_AFTER judgements more, a closing
    publishes them. Admins see every judgement throughout."""
    from fastapi.testclient import TestClient

    from baselines.arena.server import create_app
    from baselines.arena.store import PUBLISH_AFTER

    store = copy_arena(arena_template, tmp_path)
    raters = [Rater(store.authenticate(store.add_rater(f"r{i}")).id, f"r{i}", "rater") for i in range(PUBLISH_AFTER + 1)]
    admin = store.add_rater("boss", "admin")
    rules, rng = Rules(min_watch_s=0, min_justification=0), random.Random(0)

    def judge(rater):
        store.submit(rater, store.next_match(rater, rules, rng)["uuid"], ANSWER, rules)

    judge(raters[0])
    assert store.set_study("closed") and store.published_through() == 1
    public = TestClient(create_app(store, rounds=5, seed=0, hosts=HOSTS))
    first = public.get("/api/leaderboard").content
    store.set_study("open")
    judge(raters[1])
    assert not store.set_study("closed")  # one new judgement: not published
    assert public.get("/api/leaderboard").content == first
    assert public.get("/api/leaderboard", headers={"Authorization": f"Bearer {admin}"}).json()["judgements"] == 2
    store.set_study("open")
    for rater in raters[2:]:
        judge(rater)
    assert store.set_study("closed") and store.published_through() == PUBLISH_AFTER + 1
    assert json.loads(public.get("/api/leaderboard").content)["judgements"] == PUBLISH_AFTER + 1


def test_the_rater_sees_the_whole_procedure_however_far_an_agent_got(tmp_path):
    from baselines.worlds import World
    from baselines.worlds.replay import record

    world = World({"env": "Hexagons-Paint-v1", "data": "synthetic", "data_size": 8, "max_episode_steps": 2}, "train")
    text = next(t for t in range(0, len(world.task.texts)) if len(world.procedure(t)) >= 3)
    store = Store(tmp_path / "arena.sqlite")
    for agent in ("expert", "random"):
        record(world, agent, text, 7, tmp_path / agent / "unit")  # two steps: neither reaches the third instruction
        store.add_agent(agent)
        add_episodes(store, tmp_path / agent, agent, quiet=True)
    view = store.next_match(Rater(store.authenticate(store.add_rater("r")).id, "r", "rater"), Rules(), random.Random(0))
    assert view["instructions"] == world.procedure(text) and len(view["instructions"]) >= 3

    from baselines.episodes import video

    statuses = []
    real = video.world_frame
    video.world_frame = lambda world, state, obs, picture, status: statuses.append(status) or real(world, state, obs, picture, status)
    try:
        video.episode_frames(load(next((tmp_path / "random").rglob("*.npz"))), overlay=False)
    finally:
        video.world_frame = real
    assert statuses[0] == f"instruction 1 of {len(world.procedure(text))}"  # the whole procedure, not what this agent reached


def test_the_status_line_is_drawn_above_the_picture():
    """Where a video player's controls (at the bottom) never cover it."""
    from baselines.episodes.video import compose

    picture = np.full((64, 64, 3), 200, np.uint8)
    plain, marked = compose(picture, None, "paint it red", ""), compose(picture, None, "paint it red", "instruction 2 of 7, new")
    rows = np.flatnonzero(np.any(plain != marked, axis=(1, 2)))
    assert rows.size and rows.max() < plain.shape[0] // 4


def test_bad_text_and_unreadable_records_get_answers_not_500s(arena_template, tmp_path):
    """Lone surrogates in a match id, a sign-in token or a rater name are 4xx; a stored answer
    outside the vocabulary is skipped by the leaderboard and reported; answers are type-checked,
    justifications counted in visible characters, names told apart as people read them."""
    from fastapi.testclient import TestClient

    from baselines.arena.server import create_app

    store = copy_arena(arena_template, tmp_path)
    token, admin = store.add_rater("alice"), store.add_rater("boss", "admin")
    client = TestClient(
        create_app(store, Rules(min_watch_s=0, min_justification=20), rounds=5, seed=0, hosts=HOSTS), raise_server_exceptions=False
    )
    auth = lambda who: {"Authorization": f"Bearer {who}", "Content-Type": "application/json"}  # noqa: E731
    lone = "\\ud800"
    assert (
        client.post("/api/login", content=f'{{"token": "{lone}"}}'.encode(), headers={"Content-Type": "application/json"}).status_code
        == 422
    )
    view = client.get("/api/match", headers=auth(token)).json()
    body = json.dumps({**ANSWER, "match": "PLACEHOLDER"}).replace("PLACEHOLDER", lone).encode()
    assert client.post("/api/judgement", headers=auth(token), content=body).status_code == 422
    named = client.post("/api/admin/raters", headers=auth(admin), content=f'{{"name": "x{lone}"}}'.encode())
    assert named.status_code == 422
    submit = lambda **change: client.post("/api/judgement", headers=auth(token), json={**ANSWER, "match": view["uuid"], **change})  # noqa: E731
    assert submit(justification=["a list of words that is long enough"]).status_code == 422
    assert submit(justification=12345678901234567890).status_code == 422
    assert submit(justification="\u200b" * 100).status_code == 422  # zero-width spaces are not characters anyone reads
    assert submit(justification="e\u0301" * 10 + "x").status_code == 422  # 21 code points, 11 letters a reader sees
    for blank in ("\u3164", "\uffa0", "\u115f", "\u2800"):  # Hangul fillers and a Braille blank draw nothing
        assert submit(justification=blank * 100).status_code == 422
    assert store.counts()["judgements"] == 0
    look_alikes = (
        "Alice",
        "alice",
        "\u0430lice",
        "\u0251lice",
        "a\u04cfice",
        "\uff41lice",
    )  # case, Cyrillic, Latin alpha, palochka, full width
    look_alikes += tuple("alice" + c for c in ("\u034f", "\ufe00", "\U000e0100", "\u3164", "\u2800"))  # invisible tails
    for name in look_alikes:
        with pytest.raises(ValueError, match="exists already"):
            store.add_rater(name)
    store.add_rater("bob"), store.add_rater("erin")
    for name in ("b\u0585b", "er\u0131n"):  # Armenian o, dotless i
        with pytest.raises(ValueError, match="exists already"):
            store.add_rater(name)
    for name in ("Expert", "\uff45xpert", "\u0435\u0445\u0440\u0435rt"):  # agents are told apart the same way
        with pytest.raises(ValueError, match="agent .* exists already"):
            store.add_agent(name)  # beside the arena's agent expert
    store.add_rater("Caf\u00e9")
    with pytest.raises(ValueError, match="exists already"):
        store.add_rater("Cafe\u0301")  # the same name in NFD

    assert submit().status_code == 201
    match_id = store.db.execute("SELECT match_id FROM judgements").fetchone()[0]
    other = store.next_match(Rater(store.authenticate(admin).id, "boss", "admin"), Rules(), random.Random(3))
    other_id = store.db.execute("SELECT id FROM matches WHERE uuid = ?", (other["uuid"],)).fetchone()[0]
    store.db.execute(  # a stored answer outside the vocabulary
        "INSERT INTO judgements (match_id, rater_id, verdict, direct, comparisons, justification, video_events, submitted_at) "
        "VALUES (?, ?, 'left', '{}', '{\"pattern\": Infinity}', 'old', '[]', 0)",
        (other_id, store.authenticate(admin).id),
    )
    board = client.get("/api/leaderboard", headers=auth(admin))
    assert board.status_code == 200 and board.json()["judgements"] == 1 and [s["judgement"] for s in board.json()["skipped"]] == [2]
    assert match_id != other_id


def test_videos_have_a_rate_limit_and_sign_out_reads_nothing(arena_template, tmp_path):
    import asyncio

    from fastapi.testclient import TestClient

    from baselines.arena.server import Limits, create_app

    store = copy_arena(arena_template, tmp_path)
    token = store.add_rater("alice")
    app = create_app(store, limits=Limits(media_rate_limit=3), rounds=0, seed=0, hosts=HOSTS)
    client = TestClient(app)
    auth = {"Authorization": f"Bearer {token}"}
    src = client.get("/api/match", headers=auth).json()["videos"]["left"][0]["src"]
    assert [client.get(src, headers={**auth, "Range": "bytes=0-9"}).status_code for _ in range(4)] == [206, 206, 206, 429]
    assert client.get("/api/me", headers=auth).status_code == 200  # the API budget is its own
    reads, statuses = [], []

    async def receive():
        reads.append(1)
        return {"type": "http.request", "body": b"x" * 1000, "more_body": True}

    async def send(message):
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    scope = {"type": "http", "method": "POST", "path": "/api/logout", "headers": [(b"host", b"testserver")], "query_string": b""}
    scope |= {"client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80), "scheme": "http", "root_path": "", "http_version": "1.1"}
    asyncio.run(app(scope, receive, send))
    assert statuses == [200] and not reads  # anyone may sign out, so nothing anyone sends it is read


def test_a_schema_1_database_is_migrated(tmp_path):
    store = _unit_store(tmp_path / "a.sqlite", ["A", "B"], [0])
    store.db.executescript("DROP TABLE sessions; ALTER TABLE judgements DROP COLUMN reported_at; UPDATE meta SET value = '1';")
    store.close()
    store = Store(tmp_path / "a.sqlite")
    assert store.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == "2"
    token = store.add_rater("r")
    assert store.session_rater(store.start_session(store.authenticate(token))).name == "r"
    store.db.execute("UPDATE meta SET value = '3'")
    with pytest.raises(ValueError, match="arena schema 3, this package reads schema 2 and older"):
        Store(tmp_path / "a.sqlite")


def test_markup_in_names_is_drawn_literally(tmp_path):
    from fastapi.testclient import TestClient

    from baselines.arena.server import create_app

    store = _unit_store(tmp_path / "a.sqlite", ["v$^$", "w$_{$ (beta)"], [0, 1])
    token = store.add_rater("r", "admin")  # results are for admins while the study collects judgements
    rows = store.db.execute("SELECT task_id, id FROM episodes ORDER BY task_id, agent_id").fetchall()
    for i in range(4):
        (task, a), (_, b) = rows[2 * (i % 2) : 2 * (i % 2) + 2]
        store.insert_judged_match(task, a, b, "rater", {**ANSWER, "verdict": "left"}, float(i), "test", i)
    client = TestClient(create_app(store, rounds=5, hosts=HOSTS))
    for kind in ("ratings", "wins"):
        response = client.get(f"/api/plots/{kind}.png?world=Hexagons-Paint-v1&task=goal", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 200 and response.content[:4] == b"\x89PNG"


def test_ratings_are_the_same_whatever_order_judgements_were_inserted_in(tmp_path):
    judged = []
    rng = random.Random(5)
    for i in range(30):
        verdict = rng.choice(["left", "right", "draw"])
        judged.append((i % 3, rng.random() < 0.5, verdict, 1_700_000_000.0 + i))
    boards = []
    for name, order in (("forward", judged), ("backward", judged[::-1]), ("shuffled", random.Random(1).sample(judged, len(judged)))):
        store = _unit_store(tmp_path / f"{name}.sqlite", ["A", "B"], [0, 1, 2])
        for seed, flip, verdict, at in order:
            (task, a), (_, b) = store.db.execute(
                "SELECT e.task_id, e.id FROM episodes e JOIN tasks t ON t.id = e.task_id WHERE t.seed = ? ORDER BY e.agent_id", (seed,)
            ).fetchall()
            left, right = (b, a) if flip else (a, b)
            store.insert_judged_match(task, left, right, "rater", {**ANSWER, "verdict": verdict}, at, "test", int(at))
        boards.append(leaderboard(store.outcomes(), ("world",), rounds=50))
        boards.append(store.world_ratings())
    assert boards[0] == boards[2] == boards[4] and boards[1] == boards[3] == boards[5]


# ----------------------------------------------------------------------------- BASALT's judgements
def _basalt_record(task, p1, p2, seed, win, worker, end, draw=False):
    return {
        "task": task,
        "episodes": [{"agent_name": p1, "seed": seed}, {"agent_name": p2, "seed": seed}],
        "result": {
            "is_draw": draw,
            "eval_metadata": {
                "start_time": end - 200_000,
                "end_time": end,
                "win_player": win,
                "justificationText": f"{win} was better at {task}",
                "responses": {
                    "direct_question": [{"question": "Did it find a cave?", "player_1": "true", "player_2": "false"}],
                    "comparisons": [{"question": "Which player seemed more human-like?", "answer": win}],
                },
            },
        },
        "worker_id": worker,
    }


def test_basalt_import(tmp_path):
    records = [  # newest first, as released
        _basalt_record("FindCave", "GoUp", "Random", 14, "p1", "W3", 1_670_000_400_000),
        _basalt_record("FindCave", "Human1", "GoUp", 14, "draw", "W2", 1_670_000_300_000, draw=True),
        _basalt_record("FindCave", "Human1", "Random", 15, "p2", "BANNED", 1_670_000_200_000),
        _basalt_record("MakeWaterfall", "Human1", "Random", 20, "p1", "W1", 1_670_000_100_000),
    ]
    path = tmp_path / "updated_human_answers.json"
    path.write_text(json.dumps(records))
    (tmp_path / "banned_workers.json").write_text(json.dumps([{"workerId": "BANNED"}]))
    judgements, refused = read_basalt(path, {"BANNED"})
    assert [j["task"] for j in judgements] == ["MakeWaterfall", "FindCave", "FindCave"] and refused == []  # oldest first
    assert [j["verdict"] for j in judgements] == ["left", "draw", "left"] and judgements[0]["reported_at"] == 1_670_000_100.0
    store = Store(tmp_path / "arena.sqlite")
    counts = import_basalt(store, path, tmp_path / "banned_workers.json")
    assert counts == {"judgements": 3, "skipped": 0, "agents": 3, "refused": []}
    assert import_basalt(store, path, tmp_path / "banned_workers.json")["skipped"] == 3
    assert store.counts()["judgements"] == 3
    outcomes = store.outcomes()
    assert {o.world for o in outcomes} == {BASALT_WORLD}
    assert outcomes[-1].comparisons == {"Which player seemed more human-like?": "left"}
    assert outcomes[-1].direct == {"Did it find a cave?": {"left": "yes", "right": "no"}}
    rows = {r["agent"]: r for r in leaderboard(outcomes, ("world",), rounds=10)}
    assert rows["Random"]["losses"] == 2 and rows["Human1"]["wins"] == 1 and rows["GoUp"]["draws"] == 1
    assert store.authenticate("") is None and store.db.execute("SELECT COUNT(*) FROM raters WHERE role = 'imported'").fetchone()[0] == 3
    assert store.judgements()[0]["reported_at"].startswith("2022-12-02")  # the rater's clock, kept beside the record
    bad = json.loads(json.dumps(records))
    bad[0]["result"]["eval_metadata"]["win_player"] = "p3"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert import_basalt(store, tmp_path / "bad.json")["refused"] == [
        f"{tmp_path / 'bad.json'}: record 0: field 'result.eval_metadata.win_player' is 'p3', expected p1, p2 or draw"
    ]
    del bad[0]["worker_id"]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert read_basalt(tmp_path / "bad.json")[1] == [f"{tmp_path / 'bad.json'}: record 0: missing field 'worker_id'"]
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match=r"bad.json: expected a list"):
        import_basalt(store, tmp_path / "bad.json")
    assert store.counts()["judgements"] == 4  # the banned worker's record, from the file imported without --banned


def test_basalt_imports_are_keyed_by_content_in_file_order_and_report_bad_records(tmp_path):
    records = [
        _basalt_record("FindCave", "A", "B", 1, ("p1", "p2", "draw")[i % 3], f"W{i}", 1_670_000_000_000 + 1000 * i) for i in range(9)
    ]
    records = records[::-1]  # newest first
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "answers.json").write_text(json.dumps(records[3:]))
    store = Store(tmp_path / "arena.sqlite")
    assert import_basalt(store, tmp_path / "one" / "answers.json")["judgements"] == 6
    (tmp_path / "copy.json").write_text(json.dumps(records[3:]))
    assert import_basalt(store, tmp_path / "copy.json")["judgements"] == 0  # the same records under another name
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "answers.json").write_text(json.dumps(records))  # an updated file, same name, another folder
    assert import_basalt(store, tmp_path / "two" / "answers.json") == {"judgements": 3, "skipped": 6, "agents": 2, "refused": []}
    assert store.counts()["judgements"] == 9

    shifted = json.loads(json.dumps(records))
    shifted[4]["result"]["eval_metadata"]["end_time"] += 86_400_000  # one rater's clock a day ahead
    other = Store(tmp_path / "other.sqlite")
    (tmp_path / "shifted.json").write_text(json.dumps(shifted))
    import_basalt(other, tmp_path / "shifted.json")
    single = Store(tmp_path / "single.sqlite")
    import_basalt(single, tmp_path / "two" / "answers.json")
    assert trueskill_ratings(other.outcomes()) == trueskill_ratings(single.outcomes())  # BASALT's order: the file's, not the clocks'

    broken = json.loads(json.dumps(records[:4]))
    broken[1]["episodes"][1]["agent_name"] = broken[1]["episodes"][0]["agent_name"]  # the same agent on both sides
    broken[2]["result"]["eval_metadata"]["responses"]["comparisons"][0]["answer"] = ""  # unanswered: N/A
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    fresh = Store(tmp_path / "fresh.sqlite")
    counts = import_basalt(fresh, tmp_path / "broken.json")
    assert (
        counts["judgements"] == 3
        and len(counts["refused"]) == 1
        and "record 1: field 'episodes' has agent 'A' on both sides" in counts["refused"][0]
    )
    assert any(o.comparisons == {"Which player seemed more human-like?": "na"} for o in fresh.outcomes())


def test_csv_cells_a_spreadsheet_would_run_are_escaped():
    """Formula characters after blanks, line breaks or invisible characters, their full-width
    forms, and bidirectional controls; plain text, numbers and inner dashes stay as they are."""
    from baselines.arena.store import csv_cell

    for cell in ("=1+1", "\uff1dSUM(A1)", "\uff0d1", "\xa0=1", "\n=cmd", "  +1", "\u200b@x", "\tx", "\r-1"):
        assert csv_cell(cell) == "'" + cell, cell
    assert csv_cell("left \u202eright") == "left <U+202E>right" and csv_cell("\u2067=1") == "<U+2067>=1"
    assert [csv_cell(v) for v in ("a-b", "fine", 3, {"a": 1})] == ["a-b", "fine", 3, '{"a": 1}']


def test_cli_ratings_and_export(tmp_path, capsys):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps([_basalt_record("FindCave", "A", "B", 1, "p1", f"W{i}", 1_670_000_000_000 + i) for i in range(4)]))
    db = str(tmp_path / "a.sqlite")
    cli(["import-basalt", str(path), "--db", db])
    cli(["ratings", "--db", db, "--out", str(tmp_path / "ratings"), "--bootstrap", "10"])
    cli(["export", "--db", db, "--out", str(tmp_path / "judgements.csv")])
    printed = capsys.readouterr().out
    assert (
        "4 judgements of 2 agents imported, 0 already in the arena, 0 malformed records refused" in printed
        and "MineRL-BASALT | A | 3" in printed.replace("\n", "\n")
    )
    saved = json.loads((tmp_path / "ratings" / "ratings.json").read_text())
    assert saved["overall"][0]["agent"] == "A" and saved["overall"][0]["wins"] == 4
    assert (tmp_path / "ratings" / f"ratings-{BASALT_WORLD}.png").stat().st_size > 5000
    assert (tmp_path / "judgements.csv").read_text().count("\n") == 5
    token = None
    cli(["add-rater", "r", "--db", db])
    token = capsys.readouterr().out.strip().splitlines()[-1]
    assert Store(db).authenticate(token).name == "r"


# ----------------------------------------------------------------------------- a rater in a browser
def wait_until(page, expression: str, timeout: float = 120.0) -> None:
    """Poll a JavaScript expression until it is true (``page.wait_for_function`` evaluates strings
    in the page, which the arena's Content-Security-Policy forbids; ``evaluate`` goes through the
    debugging protocol)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        time.sleep(0.1)


@pytest.mark.slow
def test_rater_page_in_a_real_browser(arena_template, tmp_path):
    executable = servers.chromium()
    if executable is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium with apt-get)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    import uvicorn

    from baselines.arena.server import create_app

    store = copy_arena(arena_template, tmp_path / "arena")
    token = store.add_rater("browser")
    port = servers.free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(store, Rules(min_watch_s=3, min_justification=30), rounds=20, seed=0),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}"
    try:
        with playwright_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=executable, headless=True, args=["--autoplay-policy=no-user-gesture-required"]
            )
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.set_default_timeout(120_000)
            page.goto(url + "/")
            page.wait_for_selector("body[data-state=signin]")
            page.fill("#token", token)
            page.press("#token", "Enter")
            page.wait_for_selector("body[data-state=ready]")
            focus_box = page.evaluate(
                "(() => { const e = document.activeElement; return e !== document.body && getComputedStyle(e).outlineStyle !== 'none'; })()"
            )
            first = page.get_attribute("body", "data-match")
            wait_until(
                page,
                "['left', 'right'].every(s => { const v = document.getElementById('video-' + s);"
                " return v.readyState >= 2 && v.videoWidth > 0; })",
            )
            page.click("#play-both")
            wait_until(page, "['left', 'right'].every(s => document.getElementById('video-' + s).currentTime > 0)")
            # paused first: a playing video moves on from 0.25 s before a slow machine polls it
            page.evaluate("(() => { const v = document.getElementById('video-left'); v.pause(); v.currentTime = 0.25; })()")
            wait_until(page, "(v => !v.seeking && Math.abs(v.currentTime - 0.25) < 0.05)(document.getElementById('video-left'))")
            durations = page.evaluate("['left', 'right'].map(s => document.getElementById('video-' + s).duration)")
            page.check("input[name='direct.board_matches.left'][value=yes]")
            page.check("input[name='direct.board_matches.right'][value=no]")
            page.check("input[name='comparisons.pattern'][value=left]")
            page.check("input[name=verdict][value=left]")
            page.fill("#justification", "Left painted the tile the instruction names; right painted elsewhere.")
            page.wait_for_selector("#submit:not([disabled])")
            overflow = {}
            for width, height in ((1280, 1500), (390, 844)):
                page.set_viewport_size({"width": width, "height": height})
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(tmp_path / f"rate-{width}.png"), full_page=True)
                overflow[width] = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            page.click("#submit")
            wait_until(page, f"document.body.dataset.match !== '{first}' && document.body.dataset.state === 'ready'")
            saved_visible = page.evaluate(
                "(() => { const r = document.getElementById('saved').getBoundingClientRect();"
                " return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; })()"
            )
            saved_text = page.inner_text("#saved")
            page.screenshot(path=str(tmp_path / "rate-saved-390.png"))
            page.set_viewport_size({"width": 1280, "height": 1500})
            page.goto(url + "/leaderboard")  # while the study collects, a rater sees no results
            page.wait_for_selector("body[data-state=withheld]")
            withheld = page.inner_text("body")
            store.set_study("closed")
            public = browser.new_page(viewport={"width": 1280, "height": 1500})  # once closed: public, no sign-in
            public.goto(url + "/leaderboard")
            public.wait_for_selector("body[data-judgements='1']")
            wait_until(public, "['ratings-plot', 'wins-plot'].every(id => document.getElementById(id).naturalWidth > 0)")
            heights = {}
            for width, height in ((1280, 1500), (390, 844)):
                public.set_viewport_size({"width": width, "height": height})
                public.screenshot(path=str(tmp_path / f"leaderboard-{width}.png"), full_page=True)
                overflow[f"leaderboard-{width}"] = public.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                heights[width] = public.evaluate("document.documentElement.scrollHeight")
            assert "expert" in public.inner_text("#overall") and "too few" in public.inner_text("#overall")
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    print(f"screenshots in {tmp_path}")
    assert not focus_box and saved_visible and "saved" in saved_text
    assert "opens when the study closes" in withheld and "expert" not in withheld
    assert heights[390] < 4 * 844, heights  # the per-question and per-task tables fold away on a phone
    assert all(d >= 6.0 for d in durations), durations  # paced: judgeable however short the episode
    assert all(v <= 0 for v in overflow.values()), overflow  # nothing wider than the window, phone or desktop
    (row,) = store.judgements()
    assert row["verdict"] == "left" and row["rater"] == "browser" and row["comparisons"]["pattern"] == "left"
    assert row["direct"] == {"board_matches": {"left": "yes", "right": "no"}}
    assert {(e["side"], e["type"]) for e in row["video_events"]} >= {("left", "play"), ("right", "play"), ("left", "seeked")}
    assert store.counts()["matches"] == 2  # the next match was served
    assert all(
        (tmp_path / f"{name}.png").stat().st_size > 20_000 for name in ("rate-1280", "rate-390", "leaderboard-1280", "leaderboard-390")
    )


# ----------------------------------------------------------------------------- 50 raters at once
LOAD_RATERS, LOAD_SECONDS, LOAD_JUDGEMENTS = 50, 60.0, 1_000
"""The load test: 50 raters judge at once until each has been served and 1,000 judgements are
acknowledged (twice what it asserts), for at most 60 s."""


def _start_server(db: Path, *options: str) -> tuple[subprocess.Popen, str]:
    """``python -m baselines.arena serve`` on a free port, once it answers: (process, base URL)."""
    return servers.start(lambda port: ["baselines.arena", "serve", "--db", str(db), "--port", str(port), *options])


class Load:
    """Raters judging matches at once, one thread each, until ``stop`` is set, ``deadline`` passes
    or their server dies: the judgements acknowledged (with who made them) and every status."""

    def __init__(self, url: str, tokens: list[str], seconds: float):
        self.acknowledged: list[int] = []
        self.raters: set[str] = set()
        self.statuses: list[int] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.deadline = time.monotonic() + seconds
        self.threads = [threading.Thread(target=self._rate, args=(url, token)) for token in tokens]
        for thread in self.threads:
            thread.start()

    def _rate(self, url: str, token: str) -> None:
        import httpx

        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
            while not self.stop.is_set() and time.monotonic() < self.deadline:
                try:
                    response = client.get("/api/match")
                    if response.status_code == 200:
                        response = client.post("/api/judgement", json={**ANSWER, "match": response.json()["uuid"]})
                        if response.status_code == 201:
                            with self.lock:
                                self.acknowledged.append(response.json()["judgement"])
                                self.raters.add(token)
                except httpx.TransportError:
                    return  # the server was killed
                with self.lock:
                    self.statuses.append(response.status_code)
                if response.status_code == 429:
                    self.stop.wait(min(float(response.headers["retry-after"]), max(0.0, self.deadline - time.monotonic())))

    def until(self, done) -> None:
        """Wait until ``done(self)`` holds or the deadline passes, then stop every rater."""
        while time.monotonic() < self.deadline and not done(self):
            time.sleep(0.2)
        self.finish()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)


@pytest.mark.slow
def test_fifty_concurrent_raters_lose_no_judgement(arena_template, tmp_path):
    store = copy_arena(arena_template, tmp_path / "arena")
    tokens = [store.add_rater(f"load{i}") for i in range(LOAD_RATERS)]
    store.close()
    server, url = _start_server(store.path, "--min-watch", "0", "--min-justification", "10")
    started = time.monotonic()
    try:
        raters = Load(url, tokens, LOAD_SECONDS)
        raters.until(lambda it: len(it.raters) == LOAD_RATERS and len(it.acknowledged) >= LOAD_JUDGEMENTS)
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    statuses, acknowledged = raters.statuses, raters.acknowledged
    assert not any(status >= 500 for status in statuses), output[-2000:]
    assert set(statuses) <= {201, 429}, sorted(set(statuses))
    store = Store(store.path)
    stored = [row["id"] for row in store.judgements()]
    assert len(acknowledged) > 10 * LOAD_RATERS and sorted(acknowledged) == stored  # every acknowledged judgement, nothing else
    assert store.db.execute("SELECT COUNT(DISTINCT rater_id) FROM judgements").fetchone()[0] == LOAD_RATERS
    took = time.monotonic() - started
    print(f"{len(acknowledged)} judgements from {LOAD_RATERS} raters in {took:.0f} s, {statuses.count(429)} rate-limited requests")


@pytest.mark.slow
def test_two_servers_on_one_database_survive_kill_9(arena_template, tmp_path):
    """Two server processes share one database; both are killed with SIGKILL mid-load: every
    acknowledged judgement is stored, and nothing else but the few in flight. A restarted server
    serves on. Forwarding headers from a client do not reset its failed sign-in count."""
    import httpx

    store = copy_arena(arena_template, tmp_path / "arena")
    tokens = [store.add_rater(f"r{i}") for i in range(12)]
    admin = store.add_rater("boss", "admin")  # the results are the admins' while the study collects judgements
    store.close()
    running, loads = [], []
    try:
        for i in range(2):
            running.append(_start_server(store.path, "--min-watch", "0", "--min-justification", "10"))
            loads.append(Load(running[-1][1], tokens[i::2], 60.0))
        time.sleep(8)
    finally:
        for server, _ in running:
            server.kill()  # SIGKILL, mid-request
            server.wait(timeout=30)
    for each in loads:
        each.finish()
    acknowledged = [j for each in loads for j in each.acknowledged]
    statuses = [s for each in loads for s in each.statuses]
    stored = {row["id"] for row in Store(store.path).judgements()}
    assert len(acknowledged) > 20 and set(acknowledged) <= stored and len(stored - set(acknowledged)) <= len(tokens)
    assert not any(status >= 500 for status in statuses)

    server, url = _start_server(store.path, "--min-watch", "0")
    try:
        board = httpx.get(f"{url}/api/leaderboard", headers={"Authorization": f"Bearer {admin}"})
        logins = [
            httpx.post(f"{url}/api/login", json={"token": f"guess{i}"}, headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code
            for i in range(12)
        ]
    finally:
        server.terminate()
        server.communicate(timeout=30)
    assert logins[:10] == [401] * 10 and logins[10:] == [429, 429]  # the peer address counts, not the header
    assert board.json()["judgements"] == len(stored)
