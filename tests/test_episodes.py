"""Episode files, exact replay, videos, and playing every world through a real headless browser."""

from __future__ import annotations

import json
import threading
import time

import jax
import numpy as np
import pytest

from baselines.episodes.video import compose, episode_frames, write
from baselines.worlds import World
from baselines.worlds import episode as episodes
from baselines.worlds.episode import Episode, EpisodeError, Journal, load, state_digest
from baselines.worlds.replay import ReplayMismatch, record, replay
from tests import servers

WORLDS = {
    "Hexagons-Paint-v1": {"env": "Hexagons-Paint-v1", "data": "tiles", "max_episode_steps": 6, "data_size": 8},
    "BlocksWorld-BAP-v1": {"env": "BlocksWorld-BAP-v1", "data": "explicit", "max_episode_steps": 4, "data_size": 8},
    "CrafText-Classic-Symbolic-v1": {"env": "CrafText-Classic-Symbolic-v1", "max_episode_steps": 12},
}


@pytest.fixture(scope="module")
def worlds():
    """World per id, built lazily and shared by the module's tests (one compilation each)."""
    cache: dict[str, World] = {}

    def get(env_id: str) -> World:
        if env_id not in cache:
            cache[env_id] = World(WORLDS[env_id], "train")
        return cache[env_id]

    return get


def test_episode_file_round_trip_and_clear_errors(tmp_path):
    meta = {"schema": 1, "env": "X-v1", "world": {}, "text": 0, "seed": 3, "source": "agent:x", "length": 2, "final_state_sha256": "0"}
    saved = Episode([1, 2], [0.0, 1.0], [False, True], [False, False], [0, 5], meta).save(tmp_path / "a.npz")
    back = load(saved)
    assert back.actions.dtype == np.int32 and back.t_ms.dtype == np.int64 and back.rewards.tolist() == [0.0, 1.0] and back.meta == meta
    assert not list(tmp_path.glob("*.partial"))
    Episode([1], [0.0], [False], [False], [0], {**meta, "length": 1, "schema": 99}).save(tmp_path / "b.npz")
    with pytest.raises(EpisodeError, match=r"b\.npz: schema 99"):
        load(tmp_path / "b.npz")
    np.savez_compressed(tmp_path / "c.npz", actions=np.zeros(1, np.int32), meta=np.asarray(json.dumps(meta)))
    with pytest.raises(EpisodeError, match=r"c\.npz: missing field\(s\) rewards, terminated, truncated, t_ms"):
        load(tmp_path / "c.npz")
    with pytest.raises(EpisodeError, match="differ in length"):
        Episode([1, 2], [0.0], [False], [False], [0], meta)
    (tmp_path / "d.npz").write_text("not a zip")
    with pytest.raises(EpisodeError, match=r"d\.npz: not an episode file"):
        load(tmp_path / "d.npz")


def test_hostile_episode_files_are_refused_in_one_line(tmp_path):
    """A zip bomb is refused before it is inflated, a FIFO is not opened (it would block), a
    corrupt zip and deeply nested meta raise EpisodeError, never another exception."""
    import os
    import zipfile

    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("actions.npy", b"\0" * (episodes.MAX_EPISODE_BYTES + 1))
    assert bomb.stat().st_size < 2**20
    with pytest.raises(EpisodeError, match=r"bomb\.npz: its arrays take 64 MiB inflated, over the 64 MiB read"):
        load(bomb)
    os.mkfifo(tmp_path / "fifo.npz")
    with pytest.raises(EpisodeError, match=r"fifo\.npz: not a regular file"):
        load(tmp_path / "fifo.npz")
    from baselines.arena.ingest import episode_files

    assert tmp_path / "fifo.npz" not in episode_files(tmp_path)  # add-episodes skips it with a line
    meta = {"schema": 1, "env": "X-v1", "world": {}, "text": 0, "seed": 3, "source": "x", "length": 1, "final_state_sha256": "0"}
    good = Episode([1], [0.0], [False], [False], [0], meta).save(tmp_path / "good.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(good[: len(good) // 2] + good[len(good) // 2 + 40 :])  # corrupt inside the zip
    with pytest.raises(EpisodeError, match=r"cut\.npz: not an episode file"):
        load(tmp_path / "cut.npz")
    arrays = {name: np.zeros(1, dtype) for name, dtype in episodes.ARRAYS.items()}
    np.savez(tmp_path / "deep.npz", meta=np.asarray("[" * 100_000 + "]" * 100_000), **arrays)
    with pytest.raises(EpisodeError, match=r"deep\.npz: field meta is not JSON"):
        load(tmp_path / "deep.npz")


def test_key_rule_is_fixed():
    root = jax.random.key(7)
    assert (jax.random.key_data(episodes.reset_key(7)) == jax.random.key_data(jax.random.fold_in(root, 0))).all()
    assert (jax.random.key_data(episodes.step_key(7, 4)) == jax.random.key_data(jax.random.fold_in(jax.random.fold_in(root, 1), 4))).all()


def test_recorded_episode_replays_exactly_and_tampering_is_caught(worlds, tmp_path):
    world = worlds("Hexagons-Paint-v1")
    path = record(world, "random", 2, 11, tmp_path / "episode")
    loaded = load(path)
    assert loaded.meta["source"] == "agent:random" and loaded.meta["world"]["split"] == "train" and loaded.meta["length"] == len(loaded)
    replayed = replay(loaded, keep_states=True)
    assert replayed.digest == loaded.meta["final_state_sha256"] and len(replayed.states) == len(loaded) + 1
    other = loaded.actions.copy()
    other[-1] = 0 if other[-1] != 0 else 1  # another paint (or the same tile in another colour) last
    with pytest.raises(ReplayMismatch, match="final state sha256|step"):
        replay(Episode(other, loaded.rewards, loaded.terminated, loaded.truncated, loaded.t_ms, loaded.meta))
    wrong_reward = Episode(loaded.actions, loaded.rewards + 1.0, loaded.terminated, loaded.truncated, loaded.t_ms, loaded.meta)
    with pytest.raises(ReplayMismatch, match="step 0: recorded"):
        replay(wrong_reward)
    rows = episodes.read_index(tmp_path)
    assert [r["file"] for r in rows] == [path.name] and rows[0]["seed"] == 11


def test_journal_survives_a_crash_mid_write(worlds, tmp_path):
    world = worlds("Hexagons-Paint-v1")
    obs, state = world.start(0, 5)
    journal = Journal.begin(tmp_path / "live", world.meta(0, 5, "human:t"))
    action = int(np.flatnonzero(world.mask(obs))[0])
    out = world.step(state, action, 5, 0)
    journal.append(action, out.reward, out.terminated, out.truncated)
    with journal.path.open("a") as handle:
        handle.write('{"action": 3, "rew')  # the server died while writing step 1
    reopened = Journal.open(journal.path)
    assert [s["action"] for s in reopened.steps] == [action] and reopened.meta["seed"] == 5
    journal.path.write_text(journal.path.read_text().replace('{"action": 3, "rew', '{"action": 3}\n{"action": 1}'))
    with pytest.raises(EpisodeError, match=r"live\.jsonl: line 3 lacks field 'reward'"):
        Journal.open(journal.path)


@pytest.mark.filterwarnings(
    "error:os.fork:RuntimeWarning", "error::pytest.PytestUnraisableExceptionWarning"
)  # ffmpeg is spawned, not forked
def test_frames_and_videos(worlds, tmp_path):
    world = worlds("BlocksWorld-BAP-v1")
    loaded = load(record(world, "random", 1, 2, tmp_path / "episode", max_steps=3))
    frames = episode_frames(loaded)
    assert len(frames) == len(loaded) + 1 and all(f.shape == frames[0].shape for f in frames)
    assert frames[0].shape[0] % 16 == 0 and frames[0].shape[1] % 16 == 0 and frames[0].dtype == np.uint8
    magic = {"mp4": b"ftyp", "webm": b"\x1a\x45\xdf\xa3", "gif": b"GIF8"}
    for kind, start in magic.items():
        data = write(frames, tmp_path / f"v.{kind}").read_bytes()
        assert start in data[:12] and len(data) > 1000
    with pytest.raises(ValueError, match="multiples of 16"):
        write([frames[0][:-1]], tmp_path / "bad.gif")
    assert compose(np.zeros((10, 10, 3), np.uint8), None, "a " * 400, "s").shape[1] % 16 == 0


def test_cli_render_replay_index(worlds, tmp_path):
    from baselines.episodes.__main__ import main

    world = worlds("Hexagons-Paint-v1")
    record(world, "expert", 0, 1, tmp_path / "eps" / "one")
    main(["render", str(tmp_path / "eps"), "--out", str(tmp_path / "videos"), "--formats", "gif"])
    assert (tmp_path / "videos" / "one.gif").stat().st_size > 0
    main(["replay", str(tmp_path / "eps" / "one.npz")])
    main(["index", str(tmp_path / "eps")])
    assert json.loads((tmp_path / "eps" / "index.jsonl").read_text())["file"] == "one.npz"
    with pytest.raises(SystemExit, match="--formats 'avi'"):
        main(["render", str(tmp_path / "eps"), "--out", str(tmp_path / "v2"), "--formats", "avi"])


def test_session_resumes_an_unfinished_journal(worlds, tmp_path):
    from baselines.episodes.play import PlayServer, client_tag

    world = worlds("Hexagons-Paint-v1")
    first = PlayServer(world, tmp_path, "p", text=3)
    session_id, session, _ = first.open(None)
    first.open(None)  # another visitor who never acts
    feasible = session.view()["feasible"]
    assert not list(tmp_path.iterdir()) and session.view()["journal"] is None  # loading the page writes nothing
    session.act(feasible[0])
    with pytest.raises(ValueError, match="not feasible"):
        session.act(world.task.num_actions + 5)
    with pytest.raises(ValueError, match="text id 100000 outside"):
        session.new_episode(text=100_000)
    with pytest.raises(ValueError, match="seed -1 is not a uint32"):
        session.new_episode(seed=-1)
    assert not session.current.ended and session.view()["step"] == 1 and len(list(tmp_path.glob("*.jsonl"))) == 1  # nothing was lost
    (tmp_path / "broken.jsonl").write_text('{"env": "Hexagons-Paint-v1"}\n')  # not this world's: ignored, kept
    again = PlayServer(world, tmp_path, "p")  # the server restarted mid-episode, without flags
    assert (tmp_path / "broken.jsonl").exists() and again.resumed == [str(session.current.journal.path)]
    resumed = again.sessions[client_tag(session_id)]
    assert resumed.resumed and resumed.view()["step"] == 1 and state_digest(resumed.current.state) == state_digest(session.current.state)
    assert again.open(session_id)[1] is resumed  # the same browser gets its episode back
    resumed.end()
    assert load(resumed.last_file).actions.tolist() == [feasible[0]] and replay(load(resumed.last_file)).digest
    resumed.new_episode()
    resumed.end()  # ended before its first action: no file
    assert resumed.current.ended and sorted(p.suffix for p in tmp_path.iterdir()) == [".jsonl", ".npz"]


def test_play_server_sessions_csrf_host_and_strict_actions(worlds, tmp_path):
    """Every browser is its own player; state changes need the page's CSRF token; foreign Host
    headers are refused; actions are JSON integers; episode files are never overwritten."""
    import re

    from fastapi.testclient import TestClient

    from baselines.episodes.play import PlayServer, create_app

    server = PlayServer(worlds("Hexagons-Paint-v1"), tmp_path, "p", text=0)
    app = create_app(server, hosts=("testserver",))
    alice, bob = TestClient(app), TestClient(app)
    token = {}
    for name, client in (("alice", alice), ("bob", bob)):
        page = client.get("/")
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page.text
        token[name] = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)
    post = lambda client, name, path, body: client.post(path, json=body, headers={"X-CSRF-Token": token[name]})  # noqa: E731
    action = alice.get("/api/view").json()["feasible"][0]
    assert alice.post("/api/act", json={"action": action}).status_code == 403  # no CSRF token: what a page on another origin sends
    assert post(alice, "bob", "/api/act", {"action": action}).status_code == 403  # another session's token
    assert TestClient(app).post("/api/act", json={"action": action}, headers={"X-CSRF-Token": token["alice"]}).status_code == 403
    assert TestClient(app, base_url="http://evil.example").get("/").status_code == 400  # DNS rebinding
    for bad in ("7", True, 1.0, None):
        assert post(alice, "alice", "/api/act", {"action": bad}).status_code in (400, 422)
    assert post(alice, "alice", "/api/act", {"action": action}).json()["step"] == 1
    assert bob.get("/api/view").json()["step"] == 0  # bob's episode is his own
    for _ in range(2):  # same seed, same second: two files
        assert post(bob, "bob", "/api/new", {"seed": 5}).status_code == 200
        assert post(bob, "bob", "/api/act", {"action": action}).json()["step"] == 1
    assert post(bob, "bob", "/api/new", {"seed": "5"}).status_code == 400
    assert post(bob, "bob", "/api/new", {}).status_code == 200  # ends bob's second episode
    assert alice.get("/api/view").json()["step"] == 1 and not alice.get("/api/view").json()["ended"]
    assert len(list(tmp_path.glob("*.npz"))) == 2 and len(list(tmp_path.glob("*.jsonl"))) == 1  # bob's two kept; his third unplayed
    saved = bob.get("/api/view").json()["saved"]
    assert saved and "/" not in saved and str(tmp_path) not in alice.get("/api/view").text  # file names, never server paths
    assert TestClient(app, base_url="http://[::1]:8000").get("/").status_code == 400  # not served under this name here
    ipv6 = create_app(server, hosts=("::1",))
    assert TestClient(ipv6, base_url="http://[::1]:8000").get("/").status_code == 200  # an IPv6 Host header, port and all


def test_play_sessions_are_capped_and_expire(worlds, tmp_path, monkeypatch):
    """Page loads that never play are dropped first once the cap is reached; a server full of
    players refuses a new one (503); an idle session is dropped after SESSION_IDLE_S."""
    from fastapi.testclient import TestClient

    from baselines.episodes import play

    monkeypatch.setattr(play, "MAX_SESSIONS", 3)
    server = play.PlayServer(worlds("Hexagons-Paint-v1"), tmp_path, "p", text=0)
    t0 = time.monotonic()  # the clock a request's session check reads
    player_id, player, _ = server.open(None, now=t0)
    player.act(player.view()["feasible"][0])
    for i in range(40):  # 40 cookieless page loads
        server.open(None, now=t0 + 1.0 + i)
    assert len(server.sessions) == 3 and player in server.sessions.values() and len(list(tmp_path.glob("*.jsonl"))) == 1
    for _ in range(2):
        _, other, _ = server.open(None, now=t0 + 50.0)
        other.act(other.view()["feasible"][0])
    with pytest.raises(OverflowError, match="3 players"):
        server.open(None, now=t0 + 51.0)
    app = play.create_app(server, hosts=("testserver",))
    assert TestClient(app).get("/").status_code == 503
    server.open(None, now=t0 + 50.0 + play.SESSION_IDLE_S + 1)  # every player idle for too long: all dropped
    assert len(server.sessions) == 1 and player not in server.sessions.values()
    assert len(list(tmp_path.glob("*.jsonl"))) == 3  # their unfinished episodes stay in their journals


@pytest.mark.slow
def test_play_server_resumes_acknowledged_steps_after_kill_9(tmp_path):
    import re
    import subprocess

    import httpx

    spec = WORLDS["Hexagons-Paint-v1"]

    def start() -> tuple[subprocess.Popen, str]:
        return servers.start(
            lambda port: (
                ["baselines.episodes", "play", "--env", spec["env"], "--data", spec["data"], "--data-size", "8"]
                + ["--max-episode-steps", "6", "--out", str(tmp_path), "--port", str(port)]
            ),
            probe="/api/view",
            timeout=300,
        )

    process, url = start()
    try:
        client = httpx.Client(base_url=url, timeout=60)
        token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").text).group(1)
        acknowledged = []
        for _ in range(3):
            view = client.get("/api/view").json()
            reply = client.post("/api/act", json={"action": view["feasible"][0]}, headers={"X-CSRF-Token": token})
            assert reply.status_code == 200
            acknowledged.append(view["feasible"][0])
    finally:
        process.kill()  # SIGKILL: no chance to write anything more
        process.wait(timeout=30)
    process, url = start()
    try:
        client = httpx.Client(base_url=url, timeout=60, cookies=client.cookies)
        client.get("/")
        view = client.get("/api/view").json()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert view["step"] == 3 and view["resumed"]
    (journal,) = tmp_path.glob("*.jsonl")
    assert Journal.open(journal).arrays()["actions"] == acknowledged


# ----------------------------------------------------------------------------- the browser
def serve_in_thread(session):
    import uvicorn

    from baselines.episodes.play import create_app

    port = servers.free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(session), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the play server did not start"
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{port}/"


@pytest.mark.parametrize("env_id", list(WORLDS))
@pytest.mark.slow
def test_play_in_a_real_browser(env_id, worlds, browser, tmp_path):
    """Play a few steps with the default controls (CrafText: keys and a touch button; grids: a
    cell of the tool the page starts on), at desktop and phone widths: nothing wider than the
    window, Tab left to the browser; the saved episode replays to the state played."""
    from baselines.episodes.play import PlayServer

    server = PlayServer(worlds(env_id), tmp_path / "episodes", "browser-test", text=0)
    uvicorn_server, thread, url = serve_in_thread(server)
    overflow = {}
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(120_000)  # a loaded 2-core machine
        page.goto(url)
        page.wait_for_selector("body[data-ready=true]")
        if env_id.startswith("CrafText"):
            for step, key in enumerate(["d", "w"], start=1):
                page.keyboard.press(key)
                page.wait_for_selector(f"body[data-step='{step}']")
            page.keyboard.press("Tab")
            time.sleep(0.5)
            tabbed = page.get_attribute("body", "data-step")
            page.click("button.key:not([disabled]) >> nth=0")  # a touch button
            page.wait_for_selector("body[data-step='3']")
        else:
            tabbed = "0"
            page.click("button.cell:not([disabled]) >> nth=3")  # the tool the page starts on can paint
            page.wait_for_selector("body[data-step='1']")
        for width, height in ((1280, 1000), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(tmp_path / f"play-{width}.png"), full_page=True)
            overflow[width] = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        (session,) = server.sessions.values()
        final_digest = state_digest(session.current.state)
        page.click("#end")
        page.wait_for_selector("body[data-ended=true]")
    finally:
        uvicorn_server.should_exit = True
        thread.join(timeout=30)
    assert tabbed in ("0", "2") and all(v <= 0 for v in overflow.values()), (tabbed, overflow)
    saved = load(session.last_file)
    assert saved.meta["source"] == "human:browser-test" and len(saved) >= 1 and saved.t_ms[-1] >= 0
    assert replay(saved).digest == final_digest == saved.meta["final_state_sha256"]
    assert (tmp_path / "play-1280.png").stat().st_size > 10_000


def test_player_cells_are_named_as_the_instructions_name_them(worlds, tmp_path):
    """Hexagons instructions count rows and columns from 1; the blocks world speaks in world
    coordinates (x, z from -5, y from 1): the player's cell labels follow them."""
    from baselines.episodes.play import PlaySession

    controls = PlaySession(worlds("Hexagons-Paint-v1"), tmp_path / "h", "p").controls()
    assert controls["axes"] == ["row", "column"] and controls["origins"] == [1, 1]
    controls = PlaySession(worlds("BlocksWorld-BAP-v1"), tmp_path / "b", "p").controls()
    assert controls["axes"] == ["x", "y", "z"] and controls["origins"] == [-5, 1, -5]


def test_paced_videos_last_the_minimum_however_short_the_episode():
    """A one-step episode is as long a video as a six-second one: its length tells a rater nothing."""
    from baselines.episodes.video import paced

    frame = np.zeros((16, 16, 3), np.uint8)
    lengths = {n: len(paced([frame] * n, 8.0, min_seconds=6.0, hold_seconds=2.0)) / 8.0 for n in (1, 2, 3, 4, 10, 100)}
    assert lengths[1] == lengths[2] == lengths[3] == lengths[4] == 6.0 and lengths[10] > 6.0 and lengths[100] > lengths[10], lengths
