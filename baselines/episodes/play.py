"""Play any registered world in a browser; every step is recorded as it happens.

``python -m baselines.episodes play --env ID`` serves a page (FastAPI + uvicorn, 127.0.0.1 by
default) backed by the real jitted env of a ``World`` (compiled at startup): the page shows the
frame of ``video.world_frame`` (the world, its target, the instruction), and sends actions. Controls
come from the world: CrafText's ``env.keys`` (Craftax's key map), the grid worlds' factored action
layout (``Task.action_factors``, ``env.action_axes``, ``env.tools``): pick a tool (a colour,
remove), then click a cell; with three axes (the blocks world: x, y, z) the middle one is a layer
selector, rows run along the last axis and columns along the first. Only feasible actions are
offered (``Task.observe(obs).mask``); STOP is a button.

Each step is appended to ``<out>/<episode>.jsonl`` before the page is answered (a ``Recording``
and its ``Journal``); the episode file ``.npz`` is written when the episode ends (terminated, truncated, or the player ends
it). A server started with ``--resume`` on a folder holding an unfinished journal of the same world
resumes that episode (its actions replayed and checked); without it, such a folder is refused.
"""

from __future__ import annotations

import base64
import io
import secrets
import threading
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from baselines.episodes.episode import EpisodeError, Journal, now_utc
from baselines.episodes.replay import Recording
from baselines.episodes.video import world_frame, world_pictures
from baselines.worlds.base import GridHooks, KeyboardHooks
from baselines.worlds.session import World

PAGE = Path(__file__).with_name("play.html")


class PlaySession:
    """One player's episodes in one world (thread-safe: requests are served one at a time);
    ``current`` is the episode being played (or just ended), a ``Recording``."""

    def __init__(self, world: World, out: str | Path, player: str = "anonymous", text: int | None = None, resume: bool = False):
        self.world, self.out, self.player, self.fixed_text = world, Path(out), player, text
        self.out.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.episodes_started = 0
        self.last_file: Path | None = None
        self.current: Recording | None = None
        self.resumed: str | None = None
        world.compile()
        resumable = [j for j in sorted(self.out.glob("*.jsonl"), key=lambda p: p.stat().st_mtime) if self._same_world(j)]
        if resumable and not resume:
            raise ValueError(
                f"{self.out} holds the unfinished episode {resumable[-1]}: continue it with --resume (resume=True), "
                "or play into another --out"
            )
        if resumable:
            self.current, self.resumed = Recording.resume(world, resumable[-1]), str(resumable[-1])
        else:
            self.new_episode()
        self.view()  # compiles the renderer before the first page asks for a frame

    def _same_world(self, path: Path) -> bool:
        try:
            meta = Journal.open(path).meta
        except EpisodeError:
            return False
        return meta.get("env") == self.world.env_id and meta.get("world") == self.world.identity

    def new_episode(self, text: int | None = None, seed: int | None = None) -> None:
        """Close the current episode (if any) and start the next: ``text`` (default: the session's
        fixed text, else ``World.schedule``) with ``seed`` (default: a random uint32)."""
        text = text if text is not None else self.fixed_text if self.fixed_text is not None else self.world.schedule(self.episodes_started)
        seed = seed if seed is not None else secrets.randbits(32)
        name = f"{self.world.env_id}-{now_utc().replace(':', '')}-{seed:08x}"
        following = Recording.begin(
            self.world, int(text), int(seed), self.out / name, f"human:{self.player}"
        )  # a bad text / seed stops here
        if self.current is not None:
            self.end()
        self.current, self.resumed = following, None
        self.episodes_started += 1

    def act(self, action: int) -> None:
        """Step the env with ``action`` (refused unless feasible) and record it; the episode file is
        written when the episode ends."""
        self.current.act(action)
        self.last_file = self.current.file or self.last_file

    def end(self) -> None:
        """End the episode now (the player gives up or is done); it is saved as played."""
        if not self.current.ended:
            self.last_file = self.current.close()

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
            "journal": None if current.ended else str(current.journal.path),
            "saved": str(self.last_file) if self.last_file else None,
            "resumed": self.resumed,
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


def create_app(session: PlaySession):
    """The FastAPI app of a session: ``GET /`` the page, ``GET /api/view``, ``GET /api/controls``,
    ``POST /api/act`` ``{"action": int}``, ``POST /api/new`` ``{"text"?: int, "seed"?: int}``,
    ``POST /api/end``; errors are HTTP 400 with ``{"detail": message}``."""
    from fastapi import Body, FastAPI, HTTPException
    from fastapi.responses import HTMLResponse

    app = FastAPI(title="instructworlds play")

    def guarded(call):
        with session.lock:
            try:
                call()
            except ValueError as error:
                raise HTTPException(400, str(error)) from None
            return session.view()

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return PAGE.read_text()

    @app.get("/api/controls")
    def controls() -> dict:
        return session.controls()

    @app.get("/api/view")
    def view() -> dict:
        return guarded(lambda: None)

    @app.post("/api/act")
    def act(action: int = Body(..., embed=True)) -> dict:
        return guarded(lambda: session.act(action))

    @app.post("/api/new")
    def new(text: int | None = Body(None, embed=True), seed: int | None = Body(None, embed=True)) -> dict:
        return guarded(lambda: session.new_episode(text, seed))

    @app.post("/api/end")
    def end() -> dict:
        return guarded(session.end)

    return app


def serve(session: PlaySession, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn until interrupted (the open episode stays in its journal)."""
    import uvicorn

    print(
        f"playing {session.world.env_id} ({session.world.split} split, {len(session.world.task.texts)} instructions) "
        f"at http://{host}:{port}; episodes go to {session.out}" + (f"; resumed {session.resumed}" if session.resumed else ""),
        flush=True,
    )
    uvicorn.run(create_app(session), host=host, port=port, log_level="warning")
