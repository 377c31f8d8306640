"""The arena's web app (FastAPI): the rater page, the leaderboard, and their JSON API.

Pages: ``GET /`` the rater page, ``GET /leaderboard``; static assets under ``/static`` (vendored,
nothing from a CDN). Everyone signs in with a token (``POST /api/login`` sets an HttpOnly cookie;
API clients may send ``Authorization: Bearer TOKEN`` instead). Rater routes:
``GET /api/match[?world=W]`` (the open match or a new one), ``GET /media/{match}/{side}.{webm|mp4}``
(only for the rater the match was served to; range requests for seeking),
``POST /api/judgement``, ``GET /api/leaderboard``, ``GET /api/plots/{ratings|wins}.png``. Admin
routes: ``GET /api/admin/export?format=json|csv``, ``POST /api/admin/raters``. Each signed-in
rater gets ``rate_limit`` API requests a minute (429 with Retry-After beyond), failed sign-ins are
limited per client address. Every page is served with a Content-Security-Policy that allows
only this origin's scripts, styles and media.
"""

from __future__ import annotations

import collections
import random
import string
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from fastapi import Body, Depends, FastAPI, HTTPException, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from baselines.arena import plots
from baselines.arena.questions import questions_for, questions_json
from baselines.arena.ratings import direct_rates, leaderboard, win_matrix
from baselines.arena.store import Rater, Rejected, Rules, Store, export_csv

STATIC = Path(__file__).with_name("static")
PAGES = {"/": ("comparison", "rate", "Rate"), "/leaderboard": ("leaderboard", "leaderboard", "Leaderboard")}
"""Path -> (title, name of its content ``static/<name>.html`` and script ``static/<name>.js``, link text)."""
COOKIE = "arena_token"
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; media-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def page(path: str) -> str:
    """The HTML of a page: its content inside ``static/shell.html`` (head, navigation, sign-in)."""
    title, name, _ = PAGES[path]
    links = "".join(f'<a href="{href}"{" aria-current=page" if href == path else ""}>{text}</a>' for href, (_, _, text) in PAGES.items())
    return string.Template((STATIC / "shell.html").read_text()).substitute(
        title=title, script=f"{name}.js", links=links, content=(STATIC / f"{name}.html").read_text()
    )


@dataclass(frozen=True)
class Limits:
    """API requests per rater per minute; failed sign-ins per client address per minute."""

    rate_limit: int = 240
    login_failures: int = 10

    def __post_init__(self):
        for name in ("rate_limit", "login_failures"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")


class Window:
    """Sliding one-minute windows of event times per key (thread-safe)."""

    def __init__(self, limit: int, seconds: float = 60.0):
        self.limit, self.seconds = limit, seconds
        self.events: dict = collections.defaultdict(collections.deque)
        self.lock = threading.Lock()

    def full(self, key, now: float) -> float:
        """Seconds until ``key`` may act again (0 when it may now)."""
        with self.lock:
            events = self.events[key]
            while events and events[0] <= now - self.seconds:
                events.popleft()
            return 0.0 if len(events) < self.limit else events[0] + self.seconds - now

    def add(self, key, now: float) -> None:
        with self.lock:
            self.events[key].append(now)


class Ratings:
    """Leaderboard computations cached per state of the record (newest judgement id, bans)."""

    def __init__(self, store: Store, rounds: int):
        self.store, self.rounds = store, rounds
        self.cache: dict = {}
        self.lock = threading.Lock()

    def get(self, key: tuple, compute):
        version = self.store.version()
        with self.lock:
            if key in self.cache and self.cache[key][0] == version:
                return self.cache[key][1]
        value = compute(self.store.outcomes())
        with self.lock:
            self.cache[key] = (version, value)
        return value

    def board(self, world: str | None) -> dict:
        def compute(outcomes):
            worlds = sorted({o.world for o in outcomes})
            chosen = world if world in worlds else (worlds[0] if worlds else None)
            mine = [o for o in outcomes if o.world == chosen]
            questions = sorted({q for o in mine for q in o.comparisons})
            return {
                "worlds": worlds,
                "world": chosen,
                "judgements": len(mine),
                "overall": leaderboard(mine, ("world",), rounds=self.rounds),
                "tasks": leaderboard(mine, ("world", "task"), rounds=self.rounds),
                "questions": {q: leaderboard(mine, ("world",), question=q, rounds=self.rounds) for q in questions},
                "direct": direct_rates(mine),
            }

        return self.get(("board", world), compute)

    def png(self, kind: str, world: str, task: str | None) -> bytes:
        def compute(outcomes):
            mine = [o for o in outcomes if o.world == world and (task is None or o.task == task)]
            title = world + (f" / {task}" if task else "")
            if kind == "ratings":
                return plots.ratings_png(leaderboard(mine, ("world",), rounds=self.rounds), f"{title}: {len(mine)} judgements")
            return plots.win_matrix_png(*win_matrix(mine), f"{title}: wins")

        return self.get(("png", kind, world, task), compute)


def create_app(store: Store, rules: Rules = Rules(), limits: Limits = Limits(), rounds: int = 200, seed: int | None = None):
    """The arena app over ``store`` with the server's ``rules`` and ``limits``; ``rounds`` bootstrap
    resamples for Bradley-Terry intervals; ``seed`` fixes the scheduler's draws (tests)."""
    app = FastAPI(title="instructworlds arena", docs_url=None, redoc_url=None)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    rng = random.Random(seed)
    rng_lock = threading.Lock()
    requests, failures = Window(limits.rate_limit), Window(limits.login_failures)
    ratings = Ratings(store, rounds)

    @app.middleware("http")
    async def security_headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    @app.exception_handler(Rejected)
    async def rejected(request: Request, error: Rejected):
        return JSONResponse({"detail": str(error)}, status_code=error.status)

    def token_of(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        return header[7:].strip() if header.lower().startswith("bearer ") else request.cookies.get(COOKIE)

    def signed_in(request: Request) -> Rater:
        rater = store.authenticate(token_of(request))
        if rater is None:
            raise HTTPException(401, "sign in with your rater token")
        return rater

    def rater(request: Request, who: Rater = Depends(signed_in)) -> Rater:
        """A signed-in rater within its request budget."""
        now = time.monotonic()
        wait = requests.full(who.id, now)
        if wait:
            raise HTTPException(429, f"more than {limits.rate_limit} requests a minute", headers={"Retry-After": str(int(wait) + 1)})
        requests.add(who.id, now)
        return who

    def admin(who: Rater = Depends(rater)) -> Rater:
        if not who.admin:
            raise HTTPException(403, "this needs an admin token")
        return who

    pages = {path: page(path) for path in PAGES}

    @app.get("/", include_in_schema=False, response_class=HTMLResponse)
    def rate_page() -> str:
        return pages["/"]

    @app.get("/leaderboard", include_in_schema=False, response_class=HTMLResponse)
    def leaderboard_page() -> str:
        return pages["/leaderboard"]

    @app.post("/api/login")
    def login(request: Request, response: Response, token: str = Body(..., embed=True, max_length=200)) -> dict:
        client = request.client.host if request.client else "?"
        now = time.monotonic()
        wait = failures.full(client, now)
        if wait:
            raise HTTPException(429, "too many failed sign-ins", headers={"Retry-After": str(int(wait) + 1)})
        who = store.authenticate(token)
        if who is None:
            failures.add(client, now)
            raise HTTPException(401, "unknown token")
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https", max_age=7 * 86400)
        return {"name": who.name, "role": who.role}

    @app.post("/api/logout")
    def logout(response: Response) -> dict:
        response.delete_cookie(COOKIE)
        return {}

    @app.get("/api/me")
    def me(who: Rater = Depends(rater)) -> dict:
        return {"name": who.name, "role": who.role, "rules": rules.__dict__}

    @app.get("/api/match")
    def match(world: str | None = None, who: Rater = Depends(rater)) -> dict:
        with rng_lock:
            draw = random.Random(rng.getrandbits(64))
        view = store.next_match(who, rules, draw, world)
        if view is None:
            raise HTTPException(404, "no match: the arena has no task with two agents' episodes" + (f" in {world}" if world else ""))
        formats = store.match_formats(view["uuid"])
        return {
            **view,
            "questions": questions_json(questions_for(view["world"])),
            "min_watch_s": rules.min_watch_s,
            "min_justification": rules.min_justification,
            "server_time": time.time(),
            "videos": {
                side: [{"src": f"/media/{view['uuid']}/{side}.{kind}", "type": f"video/{kind}"} for kind in formats]
                for side in ("left", "right")
            },
        }

    @app.get("/media/{match_uuid}/{name}", include_in_schema=False)
    def media(match_uuid: str, name: str, who: Rater = Depends(signed_in)):
        side, _, kind = name.partition(".")
        if kind not in ("webm", "mp4"):
            raise HTTPException(404, "not a video")
        return FileResponse(
            store.match_video(who, match_uuid, side, kind), media_type=f"video/{kind}", headers={"Cache-Control": "private"}
        )

    @app.post("/api/judgement", status_code=201)
    def judgement(payload: dict = Body(...), who: Rater = Depends(rater)) -> dict:
        match_uuid = payload.get("match")
        if not isinstance(match_uuid, str):
            raise HTTPException(422, "match: the uuid of the match judged")
        return {"judgement": store.submit(who, match_uuid, payload, rules)}

    @app.get("/api/leaderboard")
    def board(world: str | None = None, who: Rater = Depends(rater)) -> dict:
        return ratings.board(world)

    @app.get("/api/plots/{kind}.png", include_in_schema=False)
    def plot(kind: str, world: str, task: str | None = None, who: Rater = Depends(rater)):
        if kind not in ("ratings", "wins"):
            raise HTTPException(404, "plots: ratings or wins")
        return Response(ratings.png(kind, world, task), media_type="image/png")

    @app.get("/api/admin/export")
    def export(format: str = "json", who: Rater = Depends(admin)):
        rows = store.judgements()
        if format == "csv":
            return PlainTextResponse(export_csv(rows), media_type="text/csv")
        if format != "json":
            raise HTTPException(422, "format: json or csv")
        return rows

    @app.post("/api/admin/raters", status_code=201)
    def new_rater(
        name: str = Body(..., embed=True, max_length=100), role: str = Body("rater", embed=True), who: Rater = Depends(admin)
    ) -> dict:
        try:
            return {"name": name, "role": role, "token": store.add_rater(name, role)}
        except ValueError as error:
            raise HTTPException(422, str(error)) from None

    return app


def serve(store: Store, host: str = "127.0.0.1", port: int = 8000, **options) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    counts = store.counts()
    print(
        f"arena {store.path}: {counts['agents']} agents, {counts['episodes']} episodes, {counts['judgements']} judgements; "
        f"http://{host}:{port}/ (raters) and http://{host}:{port}/leaderboard",
        flush=True,
    )
    uvicorn.run(create_app(store, **options), host=host, port=port, log_level="warning")
