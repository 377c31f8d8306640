"""The arena's web app (FastAPI): the rater page, the leaderboard, and their JSON API.

Pages: ``GET /`` the rater page, ``GET /leaderboard``; static assets under ``/static`` (vendored,
nothing from a CDN). Everyone signs in with a token: ``POST /api/login`` hands out a random
session id as an HttpOnly, SameSite=Strict cookie (never the token; it lasts ``store.SESSION_S``,
8 hours, and ``POST /api/logout`` with the session's ``X-CSRF-Token`` revokes it); API clients may send ``Authorization: Bearer TOKEN``
instead. Rater routes:
``GET /api/match[?world=W]`` (the open match or a new one), ``GET /media/{match}/{side}.{webm|mp4}``
(only for the rater the match was served to; range requests for seeking),
``POST /api/judgement``. Results (``GET /api/leaderboard``, ``GET /api/plots/{ratings|wins}.png``)
are for admins while the study collects judgements (a rater comparing the board before and after
a judgement would learn which agents played) and public, read-only, once it is closed
(``python -m baselines.arena study closed``: matches and judgements then get 409); a stored
judgement the ratings cannot read is skipped and listed (``skipped``). Admin routes: ``GET
/api/admin/export?format=json|csv``, ``POST /api/admin/raters``. Each signed-in
rater gets ``rate_limit`` API requests and ``media_rate_limit`` video requests a minute (429 with
Retry-After beyond). Failed credentials (sign-in tokens, Bearer tokens, session cookies alike) are
limited per client address, which is the peer's address unless the server is told to trust a
proxy; only failures count, and a valid credential is let through whatever its address's
failures (someone else's wrong tokens never lock a rater out). Bad text (a lone surrogate in a
token, a name or a match id) is a 4xx like any bad input. A Host header other than the served
names gets 400 (``cli.TrustedHosts``). A request body is refused beyond
``max_body_bytes`` (413), and on every route but the sign-in its sender is authenticated before
any of the body is read (401). Every page is served with a Content-Security-Policy that allows
only this origin's scripts, styles and media; answers are strict JSON.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import random
import string
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from fastapi import Body, Depends, FastAPI, HTTPException, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from starlette.requests import HTTPConnection

from baselines.arena import plots
from baselines.arena.questions import questions_for, questions_json
from baselines.arena.ratings import direct_rates, leaderboard, win_matrix
from baselines.arena.store import SESSION_S, Rater, Rejected, Rules, Store, export_csv
from baselines.worlds.cli import LOOPBACK_HOSTS, TrustedHosts, plain_validation_errors, served_hosts, without_surrogates

STATIC = Path(__file__).with_name("static")
PAGES = {"/": ("comparison", "rate", "Rate"), "/leaderboard": ("leaderboard", "leaderboard", "Leaderboard")}
"""Path -> (title, name of its content ``static/<name>.html`` and script ``static/<name>.js``, link text)."""
COOKIE = "arena_session"
CACHED = 64
"""Leaderboard computations kept (least recently used dropped first)."""
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
    """API requests per rater per minute; video requests per rater per minute (range requests of
    seeking count one each); failed credentials per client address per minute; bytes of a request
    body."""

    rate_limit: int = 240
    media_rate_limit: int = 600
    login_failures: int = 10
    max_body_bytes: int = 1 << 20

    def __post_init__(self):
        for name in ("rate_limit", "media_rate_limit", "login_failures", "max_body_bytes"):
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
    """Leaderboard computations cached per state of the record (newest judgement id, bans), for
    known worlds and tasks only, at most ``CACHED`` of them (least recently used dropped)."""

    def __init__(self, store: Store, rounds: int):
        self.store, self.rounds = store, rounds
        self.cache: collections.OrderedDict = collections.OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple, compute, upto: int | None = None):
        """``compute(outcomes)`` of the judgements up to ``upto`` (None: all), cached under ``key``."""
        key, version = (*key, upto), (*self.store.version(), upto)
        with self.lock:
            if key in self.cache and self.cache[key][0] == version:
                self.cache.move_to_end(key)
                return self.cache[key][1]
        value = compute(self.store.outcomes(upto=upto))
        with self.lock:
            self.cache[key] = (version, value)
            self.cache.move_to_end(key)
            while len(self.cache) > CACHED:
                self.cache.popitem(last=False)
        return value

    def board(self, world: str | None, upto: int | None = None) -> dict:
        """The leaderboard of ``world`` (default: the first judged) over the judgements up to ``upto``."""
        judged = self.store.judged_units(upto)
        chosen = world if world in judged else (min(judged) if judged else None)

        def compute(outcomes):
            mine = [o for o in outcomes if o.world == chosen]
            questions = sorted({q for o in mine for q in o.comparisons})
            return {
                "worlds": sorted(judged),
                "world": chosen,
                "judgements": len(mine),
                "overall": leaderboard(mine, ("world",), rounds=self.rounds),
                "tasks": leaderboard(mine, ("world", "task"), rounds=self.rounds),
                "questions": {q: leaderboard(mine, ("world",), question=q, rounds=self.rounds) for q in questions},
                "direct": direct_rates(mine),
                "skipped": self.store.unreadable(),
            }

        return self.get(("board", chosen), compute, upto)

    def png(self, kind: str, world: str, task: str | None, upto: int | None = None) -> bytes:
        judged = self.store.judged_units(upto)
        if world not in judged or (task is not None and task not in judged[world]):
            raise HTTPException(404, "no judgements of this world" + (" and task" if task is not None else ""))

        def compute(outcomes):
            mine = [o for o in outcomes if o.world == world and (task is None or o.task == task)]
            title = world + (f" / {task}" if task else "")
            if kind == "ratings":
                return plots.ratings_png(leaderboard(mine, ("world",), rounds=self.rounds), f"{title}: {len(mine)} judgements")
            return plots.win_matrix_png(*win_matrix(mine), f"{title}: wins")

        return self.get(("png", kind, world, task), compute, upto)


class Guard:
    """ASGI middleware: a request body is refused beyond ``limit`` bytes (413, by its declared
    length before reading, or once it grows past it), and, on every route but ``open_paths``, its
    sender is authenticated (``identify``) before any of it is read; the rater goes to the
    request's state for the route. The body of a ``bodiless`` route is never read."""

    def __init__(self, app, limit: int, identify, open_paths: tuple[str, ...], bodiless: tuple[str, ...] = ()):
        self.app, self.limit, self.identify, self.open_paths, self.bodiless = app, limit, identify, open_paths, bodiless

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        if scope["path"] in self.bodiless:  # open to anyone, so nothing of what it is sent is read

            async def nothing():
                return {"type": "http.request", "body": b"", "more_body": False}

            return await self.app(scope, nothing, send)
        connection = HTTPConnection(scope)
        declared = connection.headers.get("content-length", "")
        if declared and (not declared.isdigit() or int(declared) > self.limit):
            return await _refuse(send, 413, f"request body over {self.limit} bytes")
        if scope["path"] not in self.open_paths:
            try:
                scope.setdefault("state", {})["rater"] = self.identify(connection)  # read by the route, not looked up again
            except HTTPException as error:
                return await _refuse(send, error.status_code, error.detail, error.headers)
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                return await _refuse(send, 413, f"request body over {self.limit} bytes")
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)


def not_text(value: str | None) -> bool:
    """Whether ``value`` holds a lone surrogate (which JSON's ``\\ud800`` escapes allow), so it
    cannot be UTF-8: a token, name or id no one could have been given."""
    return bool(value) and without_surrogates(value) != value


async def _refuse(send, status: int, detail: str, headers: dict | None = None) -> None:
    response = JSONResponse({"detail": detail}, status_code=status, headers={**SECURITY_HEADERS, **(headers or {})})
    await response({"type": "http"}, None, send)


CSRF_HEADER = "X-CSRF-Token"


def csrf_token(session: str) -> str:
    """The CSRF token of a session: what the page sends to sign out (readable by the page, never by
    another origin's)."""
    return hashlib.sha256(b"csrf:" + session.encode()).hexdigest()[:32]


def media_tag(match_uuid: str, side: str, kind: str) -> str:
    """The ETag of a match's video: of the match, side and format only, so the same episode served
    in two matches carries two tags and no tag says which episode or agent it is."""
    return '"' + hashlib.sha256(f"{match_uuid}/{side}/{kind}".encode()).hexdigest()[:32] + '"'


class BlindFileResponse(FileResponse):
    """A file served with neither time nor identity in its headers: no ``Last-Modified`` (a video's
    ingest time groups the videos of one agent) and the given ``etag`` instead of one made from the
    file's modification time and size (the same in every match of the episode)."""

    def __init__(self, path, etag: str, **kwargs):
        self.etag = etag
        super().__init__(path, **kwargs)

    def set_stat_headers(self, stat_result) -> None:
        self.headers.setdefault("content-length", str(stat_result.st_size))
        self.headers.setdefault("etag", self.etag)

    def _should_use_range(self, http_if_range: str) -> bool:
        """A range is served when ``If-Range`` is this video's strong ETag; a date (there is no
        ``Last-Modified`` to compare it with) or another tag asks for the whole file."""
        return http_if_range == self.etag


def matches(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` / ``If-Match`` header names ``etag`` (or ``*``; weak tags
    compare by their opaque part)."""
    if header is None:
        return False
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return "*" in tags or etag in tags


def create_app(
    store: Store,
    rules: Rules = Rules(),
    limits: Limits = Limits(),
    rounds: int = 200,
    seed: int | None = None,
    hosts: tuple[str, ...] = LOOPBACK_HOSTS,
):
    """The arena app over ``store`` with the server's ``rules`` and ``limits``; ``rounds`` bootstrap
    resamples for Bradley-Terry intervals; ``seed`` fixes the scheduler's draws (tests); a request
    whose Host header is not one of ``hosts`` gets 400 (``cli.served_hosts``)."""
    app = FastAPI(title="instructworlds arena", docs_url=None, redoc_url=None)
    app.add_middleware(TrustedHosts, hosts=hosts)
    plain_validation_errors(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    rng = random.Random(seed)
    rng_lock = threading.Lock()
    requests, failures, media_requests = Window(limits.rate_limit), Window(limits.login_failures), Window(limits.media_rate_limit)
    ratings = Ratings(store, rounds)
    app.state.ratings = ratings

    @app.middleware("http")
    async def security_headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    @app.exception_handler(Rejected)
    async def rejected(request: Request, error: Rejected):
        return JSONResponse({"detail": str(error)}, status_code=error.status)

    def client_of(connection: HTTPConnection) -> str:
        return connection.client.host if connection.client else "?"

    def not_throttled(client: str, now: float) -> None:
        wait = failures.full(client, now)
        if wait:
            raise HTTPException(429, "too many failed sign-ins from this address", headers={"Retry-After": str(int(wait) + 1)})

    def checked(client: str, rater: Rater | None, what: str) -> Rater:
        """``rater`` if the credential was valid (whatever the address's failures: another
        client's wrong tokens never lock a rater out); else a failure counted against the
        client's address: 401, or 429 once it has too many."""
        if rater is not None:
            return rater
        now = time.monotonic()
        not_throttled(client, now)
        failures.add(client, now)
        raise HTTPException(401, what)

    def identify(connection: HTTPConnection) -> Rater:
        """The rater of a Bearer token or a session cookie (``checked``)."""
        header = connection.headers.get("authorization", "")
        bearer = header[7:].strip() if header.lower().startswith("bearer ") else None
        session = connection.cookies.get(COOKIE)
        if not bearer and not session:
            raise HTTPException(401, "sign in with your rater token")
        if not_text(bearer) or not_text(session):
            return checked(client_of(connection), None, "a credential is not valid text")
        rater = store.authenticate(bearer) if bearer else store.session_rater(session)
        return checked(client_of(connection), rater, "unknown token or expired session: sign in again")

    def signed_in(request: Request) -> Rater:
        """The rater ``Guard`` identified (posts), else identified now."""
        return getattr(request.state, "rater", None) or identify(request)

    app.add_middleware(Guard, limit=limits.max_body_bytes, identify=identify, open_paths=("/api/login",), bodiless=("/api/logout",))

    def within(window: Window, who: Rater, what: str) -> Rater:
        now = time.monotonic()
        wait = window.full(who.id, now)
        if wait:
            raise HTTPException(429, f"more than {window.limit} {what} a minute", headers={"Retry-After": str(int(wait) + 1)})
        window.add(who.id, now)
        return who

    def rater(request: Request, who: Rater = Depends(signed_in)) -> Rater:
        """A signed-in rater within its request budget."""
        return within(requests, who, "requests")

    def viewer(request: Request, who: Rater = Depends(signed_in)) -> Rater:
        """A signed-in rater within its video budget."""
        return within(media_requests, who, "video requests")

    def admin(who: Rater = Depends(rater)) -> Rater:
        if not who.admin:
            raise HTTPException(403, "this needs an admin token")
        return who

    def results_reader(request: Request) -> Rater | None:
        """Who may read the ratings: anyone once the study is closed (None, or the admin signed in,
        who sees every judgement); while it collects judgements, admins only (a rater comparing
        the board before and after a judgement would learn which agents played)."""
        if store.study_closed():
            try:
                who = signed_in(request)
            except HTTPException:
                return None
            return who if who.admin else None
        who = rater(request, signed_in(request))
        if not who.admin:
            raise HTTPException(403, "the leaderboard opens when the study closes; until then only admins see it")
        return who

    def collecting(who: Rater = Depends(rater)) -> Rater:
        """A rater, while the study collects judgements (409 once it is closed)."""
        if store.study_closed():
            raise HTTPException(409, "the study is closed: no more matches; its leaderboard is public")
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
        who = checked(client_of(request), None if not_text(token) else store.authenticate(token), "unknown token")
        session = store.start_session(who)
        response.set_cookie(COOKIE, session, httponly=True, samesite="strict", secure=request.url.scheme == "https", max_age=int(SESSION_S))
        return {"name": who.name, "role": who.role, "csrf": csrf_token(session)}

    @app.post("/api/logout")
    def logout(request: Request, response: Response) -> dict:
        """End the session of the cookie, given its CSRF token (``X-CSRF-Token``, which sign-in and
        ``/api/me`` give the page): another page, even of another port of this host, cannot sign a
        rater out. Without a session there is nothing to end."""
        session = request.cookies.get(COOKIE)
        if session and not_text(session):
            raise HTTPException(422, "the session cookie is not valid text")
        if session:
            if not hmac.compare_digest(request.headers.get(CSRF_HEADER, ""), csrf_token(session)):
                raise HTTPException(403, f"signing out needs the page's CSRF token ({CSRF_HEADER})")
            store.end_session(session)
        response.delete_cookie(COOKIE)
        return {}

    @app.get("/api/me")
    def me(request: Request, who: Rater = Depends(rater)) -> dict:
        session = request.cookies.get(COOKIE)
        return {
            "name": who.name,
            "role": who.role,
            "rules": rules.__dict__,
            "study": "closed" if store.study_closed() else "open",
            **({"csrf": csrf_token(session)} if session and not not_text(session) else {}),
        }

    @app.get("/api/match")
    def match(world: str | None = None, who: Rater = Depends(collecting)) -> dict:
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
    def media(match_uuid: str, name: str, request: Request, who: Rater = Depends(viewer)):
        """A match's video. Conditional requests: ``If-None-Match`` naming its tag gets 304,
        ``If-Match`` not naming it 412, ``If-Range`` with its strong tag the range asked for (any
        other ``If-Range``, and ``If-Modified-Since``, the whole file: no date is ever sent)."""
        side, _, kind = name.partition(".")
        if kind not in ("webm", "mp4"):
            raise HTTPException(404, "not a video")
        path, tag = store.match_video(who, match_uuid, side, kind), media_tag(match_uuid, side, kind)
        if "if-match" in request.headers and not matches(request.headers["if-match"], tag):
            raise HTTPException(412, "If-Match: not this video's ETag")
        if matches(request.headers.get("if-none-match"), tag):
            return Response(status_code=304, headers={"ETag": tag, "Cache-Control": "private"})
        return BlindFileResponse(path, tag, media_type=f"video/{kind}", headers={"Cache-Control": "private"})

    @app.post("/api/judgement", status_code=201)
    def judgement(payload: dict = Body(...), who: Rater = Depends(collecting)) -> dict:
        match_uuid = payload.get("match")
        if not isinstance(match_uuid, str) or not_text(match_uuid):
            raise HTTPException(422, "match: the uuid of the match judged")
        return {"judgement": store.submit(who, match_uuid, payload, rules)}

    def shown_upto(who: Rater | None) -> int | None:
        """The judgements a reader sees: an admin all of them, anyone else the published record."""
        return None if who is not None and who.admin else (store.published_through() or 0)

    @app.get("/api/leaderboard")
    def board(world: str | None = None, who: Rater | None = Depends(results_reader)) -> dict:
        return {**ratings.board(world, shown_upto(who)), "study": "closed" if store.study_closed() else "open"}

    @app.get("/api/plots/{kind}.png", include_in_schema=False)
    def plot(kind: str, world: str, task: str | None = None, who: Rater | None = Depends(results_reader)):
        if kind not in ("ratings", "wins"):
            raise HTTPException(404, "plots: ratings or wins")
        return Response(ratings.png(kind, world, task, shown_upto(who)), media_type="image/png")

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
        if not_text(name) or not_text(role):
            raise HTTPException(422, "name and role: text without lone surrogates")
        try:
            return {"name": name, "role": role, "token": store.add_rater(name, role)}
        except ValueError as error:
            raise HTTPException(422, str(error)) from None

    return app


def serve(
    store: Store,
    host: str = "127.0.0.1",
    port: int = 8000,
    trusted_proxy: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
    **options,
) -> None:
    """Run the app with uvicorn until interrupted. Forwarding headers (X-Forwarded-For) are
    believed only from ``trusted_proxy``; otherwise a client's address is its connection's. Host
    headers other than the loopback names, ``host`` and ``allowed_hosts`` get 400."""
    import uvicorn

    counts = store.counts()
    print(
        f"arena {store.path}: {counts['agents']} agents, {counts['episodes']} episodes, {counts['judgements']} judgements; "
        f"http://{host}:{port}/ (raters) and http://{host}:{port}/leaderboard",
        flush=True,
    )
    uvicorn.run(
        create_app(store, hosts=served_hosts(host, allowed_hosts), **options),
        host=host,
        port=port,
        log_level="warning",
        proxy_headers=trusted_proxy is not None,
        forwarded_allow_ips=trusted_proxy,
    )
