"""Play any registered world in a browser; every step is recorded as it happens.

``python -m baselines.episodes play --env ID`` serves a page (FastAPI + uvicorn, 127.0.0.1 by
default) backed by the real jitted env of a ``World`` (compiled at startup): the page shows the
frame of ``video.world_frame`` (the world, its target, the instruction), and sends actions. Controls
come from the world: CrafText's ``env.keys`` (Craftax's key map; each action is also a button, for
touch screens; Tab is left to the browser), the grid worlds' factored action layout
(``Task.action_factors``, ``env.action_axes``, ``env.tools``): pick a tool (a colour, remove; the
page starts on the first tool that has a feasible cell), then click a cell; with three axes (the
blocks world: x, y, z) the middle one is a layer selector, rows run along the last axis and columns
along the first. Only feasible actions are offered (``Task.observe(obs).mask``); STOP is a button.

Every browser is its own player: the page hands out a random session id (an HttpOnly,
SameSite=Strict cookie) and a CSRF token that every state change must send back
(``X-CSRF-Token``); requests whose Host header is not the server's are refused (DNS rebinding).
Each session has its own episodes (``PlaySession``), named ``<env>-<UTC time>-<random id>`` and
never overwritten. From the first action on, each step is appended to ``<out>/<episode>.jsonl``
(fsynced) before the page is answered (a ``Recording`` and its ``Journal``): loading the page
writes nothing. The episode file ``.npz`` is written when the episode ends (terminated, truncated,
or the player ends it; an episode ended before its first action leaves no file). A server started
on a folder holding unfinished journals of the same world continues each (its actions replayed and
checked) for the browser that played it (the journal keeps a hash of its session id), so the
command restarted after Ctrl-C or a crash gives every player their episode back; a journal that
cannot be replayed is left as it is, with a warning.
"""

from __future__ import annotations

import base64
import hashlib
import io
import secrets
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import Body, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse
from PIL import Image

from baselines.episodes.video import world_frame, world_pictures
from baselines.worlds.base import GridHooks, KeyboardHooks
from baselines.worlds.cli import LOOPBACK_HOSTS, TrustedHosts, plain_validation_errors, served_hosts
from baselines.worlds.episode import EpisodeError, Journal, now_utc
from baselines.worlds.replay import Recording
from baselines.worlds.session import World

PAGE = Path(__file__).with_name("play.html")
COOKIE = "play_session"


def client_tag(session_id: str) -> str:
    """What a journal keeps of the session id that played it: 16 hex digits of its sha256."""
    return hashlib.sha256(session_id.encode()).hexdigest()[:16]


def unfinished(world: World, out: Path) -> list[Path]:
    """The journals in ``out`` of unfinished episodes of ``world`` (oldest first)."""

    def same_world(path: Path) -> bool:
        try:
            meta = Journal.open(path).meta
        except EpisodeError:
            return False
        return meta.get("env") == world.env_id and meta.get("world") == world.identity

    return [j for j in sorted(out.glob("*.jsonl"), key=lambda p: p.stat().st_mtime) if same_world(j)]


class PlaySession:
    """One player's episodes in one world (thread-safe: its requests are served one at a time);
    ``current`` is the episode being played (or just ended), a ``Recording``. ``client``: the tag
    (``client_tag``) of the browser session playing, kept in each journal's metadata; ``resume``:
    a journal to continue instead of starting a new episode."""

    def __init__(
        self,
        world: World,
        out: str | Path,
        player: str = "anonymous",
        text: int | None = None,
        client: str = "local",
        resume: Path | None = None,
    ):
        self.world, self.out, self.player, self.fixed_text, self.client = world, Path(out), player, text, client
        self.out.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.episodes_started = 0
        self.last_file: Path | None = None
        self.current: Recording | None = None
        self.resumed: str | None = None
        if resume is not None:
            self.current, self.resumed = Recording.resume(world, resume), str(resume)
        else:
            self.new_episode()

    def new_episode(self, text: int | None = None, seed: int | None = None) -> None:
        """Close the current episode (if any) and start the next: ``text`` (default: the session's
        fixed text, else ``World.schedule``) with ``seed`` (default: a random uint32)."""
        text = text if text is not None else self.fixed_text if self.fixed_text is not None else self.world.schedule(self.episodes_started)
        seed = seed if seed is not None else secrets.randbits(32)
        name = f"{self.world.env_id}-{now_utc().replace(':', '')}-{secrets.token_hex(6)}"
        if any((self.out / name).with_suffix(kind).exists() for kind in (".jsonl", ".npz")):
            raise ValueError(f"{self.out / name}: exists already (never overwritten)")
        following = Recording.begin(
            self.world, int(text), int(seed), self.out / name, f"human:{self.player}", {"client": self.client}, lazy=True
        )  # a bad text / seed stops here
        if self.current is not None:
            self.end()
        self.current, self.resumed = following, None
        self.episodes_started += 1

    @property
    def playing(self) -> bool:
        """Whether an episode of this session has begun (a first action) and not ended."""
        return self.current is not None and self.current.journal.written and not self.current.ended

    def act(self, action: int) -> None:
        """Step the env with ``action`` (refused unless feasible) and record it; the episode file is
        written when the episode ends."""
        self.current.act(action)
        self.last_file = self.current.file or self.last_file

    def end(self) -> None:
        """End the episode now (the player gives up or is done); it is saved as played."""
        if self.current.ended:
            return
        if self.current.journal.steps:
            self.last_file = self.current.close()
        else:
            self.current.discard()

    def view(self) -> dict[str, Any]:
        """What the page shows: the frame (PNG data URL), the instruction, the feasible actions,
        the step, the return so far, whether the episode ended and the files written."""
        world, current = self.world, self.current
        steps = current.journal.steps
        total = float(np.sum([s["reward"] for s in steps], dtype=np.float32))
        status = f"step {len(steps)}  return {total:.2f}" + ("  (episode over)" if current.ended else "")
        frame = world_frame(world, current.state, current.obs, world_pictures(world, [current.state])[0], status)
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, format="PNG")
        return {
            "env": world.env_id,
            "frame": "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode(),
            "instruction": world.instruction(current.obs),
            "feasible": [] if current.ended else np.flatnonzero(world.mask(current.obs)).tolist(),
            "step": len(steps),
            "return": total,
            "success": current.success,
            "ended": current.ended,
            "journal": current.journal.path.name if current.journal.written and not current.ended else None,
            "saved": self.last_file.name if self.last_file else None,
            "resumed": Path(self.resumed).name if self.resumed else None,
        }

    def controls(self) -> dict[str, Any]:
        """The page's controls: ``keys`` (key -> [action, name]) for keyboard worlds, else the
        factored layout: ``factors``, ``axes``, ``origins`` (what the world's text calls index 0 of each
        axis: cells are labelled as instructions name them), ``tools``; and ``stop``, the STOP action
        (or None)."""
        task, env = self.world.task, self.world.task.env
        if isinstance(env, KeyboardHooks):
            return {"keys": {k: list(v) for k, v in env.keys.items()}, "stop": None}
        if not isinstance(env, GridHooks):
            raise ValueError(f"{self.world.env_id} declares neither keys (KeyboardHooks) nor a grid layout (GridHooks) for the player")
        factors = list(task.action_factors)
        has_stop = task.num_actions == int(np.prod(factors)) + 1
        return {
            "factors": factors,
            "axes": list(env.action_axes),
            "origins": list(env.axis_origins),
            "tools": list(env.tools),
            "stop": task.num_actions - 1 if has_stop else None,
        }


MAX_SESSIONS = 256
"""Browser sessions kept at once; a new one first drops the longest idle session that is not in
the middle of an episode (a page load that never played), and is refused (503) when all are."""
SESSION_IDLE_S = 8 * 3600.0
"""A session idle this long is dropped; an episode it left unfinished stays in its journal and is
continued at the next start."""


class PlayServer:
    """The player's server state: one compiled ``world``, its episodes folder ``out``, and one
    ``PlaySession`` per browser session (created on its first page load). Every unfinished journal
    of this world in ``out`` is continued for the browser that played it; one that cannot be
    replayed is left untouched, with a warning on stderr."""

    def __init__(self, world: World, out: str | Path, player: str = "anonymous", text: int | None = None):
        self.world, self.out, self.player, self.text = world, Path(out), player, text
        self.out.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        world.compile()
        self.sessions: dict[str, PlaySession] = {}
        """client tag -> its session."""
        self.csrf: dict[str, str] = {}
        """client tag -> its CSRF token."""
        self.used: dict[str, float] = {}
        """client tag -> when its session was last used (``time.monotonic``)."""
        self.resumed: list[str] = []
        for journal in unfinished(world, self.out):
            try:
                tag = str(Journal.open(journal).meta.get("client", "local"))
                self.sessions[tag] = PlaySession(world, self.out, player, text, tag, resume=journal)
            except EpisodeError as error:
                print(f"warning: {journal} is not continued and stays as it is: {error}", file=sys.stderr, flush=True)
                continue
            self.resumed.append(str(journal))
        obs, state = world.start(world.schedule(0), 0)
        world_frame(world, state, obs, world_pictures(world, [state])[0], "")  # compiles the renderer before the first page

    def open(self, session_id: str | None, now: float | None = None) -> tuple[str, PlaySession, str]:
        """(session id, its ``PlaySession``, its CSRF token): the browser's own, or a new one
        (``MAX_SESSIONS``, ``SESSION_IDLE_S``; OverflowError when every kept session is playing)."""
        now = time.monotonic() if now is None else now
        with self.lock:
            self._drop_idle(now)
            if not session_id or client_tag(session_id) not in self.sessions:
                if len(self.sessions) >= MAX_SESSIONS:
                    idle = [tag for tag in sorted(self.sessions, key=lambda t: self.used.get(t, 0.0)) if not self.sessions[tag].playing]
                    if not idle:
                        raise OverflowError(f"{MAX_SESSIONS} players are in the middle of an episode: try again later")
                    self._drop(idle[0])
                session_id = secrets.token_urlsafe(32)
                tag = client_tag(session_id)
                self.sessions[tag] = PlaySession(self.world, self.out, self.player, self.text, tag)
            tag = client_tag(session_id)
            self.used[tag] = now
            token = self.csrf.setdefault(tag, secrets.token_urlsafe(32))
            return session_id, self.sessions[tag], token

    def _drop_idle(self, now: float) -> None:
        for tag in [t for t in self.sessions if now - self.used.get(t, now) > SESSION_IDLE_S]:
            self._drop(tag)

    def _drop(self, tag: str) -> None:
        for table in (self.sessions, self.csrf, self.used):
            table.pop(tag, None)

    def session(self, session_id: str | None, csrf: str | None = None, check_csrf: bool = False) -> PlaySession:
        """The ``PlaySession`` of a known session id (PermissionError otherwise, or when
        ``check_csrf`` and ``csrf`` is not its token)."""
        with self.lock:
            tag = client_tag(session_id) if session_id else None
            if tag not in self.sessions:
                raise PermissionError("no session: load the page first")
            if check_csrf and not (csrf and secrets.compare_digest(csrf, self.csrf.get(tag, ""))):
                raise PermissionError("missing or wrong CSRF token: reload the page")
            self.used[tag] = time.monotonic()
            return self.sessions[tag]


def _integer(payload: dict, key: str, required: bool) -> int | None:
    """``payload[key]`` when it is a JSON integer (not a string, boolean or float); ValueError otherwise."""
    value = payload.get(key)
    if value is None and not required:
        return None
    if type(value) is not int:
        raise ValueError(f"{key}: expected an integer, got {value!r}")
    return value


def create_app(server: PlayServer, hosts: tuple[str, ...] = LOOPBACK_HOSTS):
    """The FastAPI app of a ``PlayServer``: ``GET /`` the page (sets the session cookie, carries the
    CSRF token), ``GET /api/view``, ``GET /api/controls``, ``POST /api/act`` ``{"action": int}``,
    ``POST /api/new`` ``{"text"?: int, "seed"?: int}``, ``POST /api/end``. Posts need the header
    ``X-CSRF-Token``; requests with a Host header not in ``hosts`` are refused (400). Errors are
    ``{"detail": message}``: 400 bad input, 403 no session or CSRF token."""
    app = FastAPI(title="instructworlds play", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(TrustedHosts, hosts=hosts)
    plain_validation_errors(app)
    page_text = PAGE.read_text()

    def player(request: Request, post: bool) -> PlaySession:
        try:
            return server.session(request.cookies.get(COOKIE), request.headers.get("x-csrf-token"), check_csrf=post)
        except PermissionError as error:
            raise HTTPException(403, str(error)) from None

    def guarded(session: PlaySession, call) -> dict:
        with session.lock:
            try:
                call()
            except ValueError as error:
                raise HTTPException(400, str(error)) from None
            return session.view()

    @app.get("/", response_class=HTMLResponse)
    def page(request: Request) -> HTMLResponse:
        try:
            session_id, _, token = server.open(request.cookies.get(COOKIE))
        except OverflowError as error:
            raise HTTPException(503, str(error), headers={"Retry-After": "60"}) from None
        response = HTMLResponse(page_text.replace("{{csrf}}", token), headers={"Cache-Control": "no-store"})
        response.set_cookie(COOKIE, session_id, httponly=True, samesite="strict", secure=request.url.scheme == "https")
        return response

    @app.get("/api/controls")
    def controls(request: Request) -> dict:
        return player(request, post=False).controls()

    @app.get("/api/view")
    def view(request: Request) -> dict:
        session = player(request, post=False)
        return guarded(session, lambda: None)

    @app.post("/api/act")
    def act(request: Request, payload: dict = Body(...)) -> dict:
        session = player(request, post=True)
        return guarded(session, lambda: session.act(_integer(payload, "action", required=True)))

    @app.post("/api/new")
    def new(request: Request, payload: dict = Body(default_factory=dict)) -> dict:
        session = player(request, post=True)
        return guarded(session, lambda: session.new_episode(_integer(payload, "text", False), _integer(payload, "seed", False)))

    @app.post("/api/end")
    def end(request: Request) -> dict:
        session = player(request, post=True)
        return guarded(session, session.end)

    return app


def serve(server: PlayServer, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn until interrupted (open episodes stay in their journals)."""
    import uvicorn

    world = server.world
    print(
        f"playing {world.env_id} ({world.split} split, {len(world.task.texts)} instructions) "
        f"at http://{host}:{port}; episodes go to {server.out}" + (f"; resumed {', '.join(server.resumed)}" if server.resumed else ""),
        flush=True,
    )
    hosts = served_hosts(host)
    uvicorn.run(create_app(server, hosts), host=host, port=port, log_level="warning", proxy_headers=False)
