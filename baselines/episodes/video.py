"""Episodes as pictures: frames with the instruction as a caption, mp4 (H.264), webm (VP9), GIF.

A frame is the world's own picture (``env.render``: Craftax's pixel renderer for CrafText, the
grid worlds' renderers), beside it the target where the world has one (``env.render_target``:
the reference structure, the gold board of the current instruction), above them a status line
and below them the instruction (the last lines of a long dialogue). Frames of one episode share one
size, a multiple of 16 in both directions (what H.264 and VP9 encoders want). Worlds whose
``render`` is traceable (``baselines.worlds.base.TracedRender``) render a whole episode in one
jitted vmap.

The status line is a rendering option (``episode_frames(overlay=...)``): the overlay names the
step, the action id, the return so far and the episode's source (the agent or player); a clean
render (``overlay=False``, what the arena shows raters) names only which instruction of the
episode's whole procedure is current ("instruction 2 of 7, new" on the step it changes), the same
count for every player of the unit however far each got. ``paced`` stretches an
episode to a minimum duration and holds its last frame, so that short episodes can be judged.
"""

from __future__ import annotations

import contextlib
import functools
import math
import subprocess
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from baselines.worlds.base import TargetHooks, TracedRender
from baselines.worlds.episode import Episode, load
from baselines.worlds.replay import Replayed, replay, world_of
from baselines.worlds.session import World

MIN_WIDTH = 432
"""Pictures narrower than this are enlarged by a whole factor (nearest neighbour)."""
CAPTION_LINES = 6
CHARS_PER_LINE = 48
"""The caption's font is 1/24 of the frame's width (15 px at least), about 53 characters a line:
shown in a 390 px phone's column (about 350 px wide) it is still 14 px."""
BACKGROUND = (250, 250, 250)
FORMATS = ("mp4", "webm", "gif")
CODECS = {"mp4": ("libx264", ["-crf", "23"]), "webm": ("libvpx-vp9", ["-crf", "32", "-b:v", "0"])}


def _font(size: int = 15) -> ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _enlarged(picture: np.ndarray) -> Image.Image:
    image = Image.fromarray(np.asarray(picture, np.uint8))
    factor = max(1, -(-MIN_WIDTH // image.width)) if image.width < MIN_WIDTH else 1
    return image.resize((image.width * factor, image.height * factor), Image.NEAREST) if factor > 1 else image


def world_pictures(world: World, states: list, chunk: int = 128) -> list[np.ndarray]:
    """(H, W, 3) uint8 ``env.render`` of each state (where the render is traceable: a jitted vmap
    over ``chunk`` states at a time, a shorter chunk padded to a power of two so that a few
    compilations serve every length)."""
    env, params = world.task.env, world.task.params
    if not (isinstance(env, TracedRender) and env.render_is_traceable):
        return [env.render(state, params) for state in states]
    render = _batched_render(env)
    pictures: list[np.ndarray] = []
    for s in range(0, len(states), chunk):
        part = states[s : s + chunk]
        part = part + [part[-1]] * (min(chunk, 1 << (len(part) - 1).bit_length()) - len(part))
        stacked = jax.tree.map(lambda *leaves: jnp.stack(leaves), *part)
        pictures += list(np.asarray(render(stacked, params)))
    return pictures[: len(states)]


@functools.lru_cache(maxsize=4)
def _batched_render(env):
    return jax.jit(jax.vmap(env.render, in_axes=(0, None)))


def compose(picture: np.ndarray, target: np.ndarray | None, instruction: str, status: str) -> np.ndarray:
    """One frame: the status line on top (where a player's controls never cover it), the picture
    (labelled ``world``), the target beside it (labelled ``target``) and the instruction below;
    (H, W, 3) uint8 with H and W multiples of 16."""
    panels = [("world", _enlarged(picture))] + ([("target", _enlarged(target))] if target is not None else [])
    width = sum(p.width for _, p in panels) + 8 * (len(panels) + 1)
    width += -width % 16
    size = max(15, round(width / (0.5 * CHARS_PER_LINE)))
    line_height = size + size // 3
    chars = max(20, int((width - 16) / (0.45 * size)))
    lines = textwrap.wrap(instruction, chars) or [""]
    lines = (["..."] + lines[-(CAPTION_LINES - 2) :]) if len(lines) > CAPTION_LINES - 1 else lines
    label = 2 * line_height  # the status line, then the panels' labels
    top = label + max(p.height for _, p in panels) + 8
    height = top + line_height * (CAPTION_LINES - 1) + 8
    height += -height % 16
    frame = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(frame)
    draw.text((8, 2), status, fill=(30, 90, 160), font=_font(size))
    x = 8
    for name, panel in panels:
        draw.text((x, line_height + 2), name, fill=(90, 90, 90), font=_font(size - 1))
        frame.paste(panel, (x, label))
        x += panel.width + 8
    for i, line in enumerate(lines):
        draw.text((8, top + line_height * i), line, fill=(20, 20, 20), font=_font(size))
    return np.asarray(frame)


def world_frame(world: World, state: Any, obs: Any, picture: np.ndarray, status: str) -> np.ndarray:
    """The frame of one state: its picture (``world_pictures``), the world's target where it has one
    (``env.render_target``), the instruction ``obs`` shows and ``status``."""
    env = world.task.env
    target = env.render_target(state, world.task.params) if isinstance(env, TargetHooks) else None
    return compose(picture, target, world.instruction(obs), status)


def episode_frames(episode: Episode, replayed: Replayed | None = None, overlay: bool = True) -> list[np.ndarray]:
    """T + 1 frames of an episode (the start, then after each action), replaying it if needed.
    ``overlay``: the status line names step, action id, return and source; without it, only which
    instruction is current (module docstring)."""
    world = world_of(episode.meta)
    replayed = replayed if replayed is not None and replayed.states else replay(episode, keep_states=True)
    pictures = world_pictures(world, replayed.states)
    instructions = [world.instruction(obs) for obs in replayed.observations]
    changes = [t for t in range(len(instructions)) if t == 0 or instructions[t] != instructions[t - 1]]
    steps = max(len(changes), len(world.procedure(int(episode.meta["text"]))))  # the whole procedure, reached or not
    frames, total = [], 0.0
    for t, (state, obs, picture) in enumerate(zip(replayed.states, replayed.observations, pictures)):
        total += float(episode.rewards[t - 1]) if t else 0.0
        if overlay:
            action = f"action {int(episode.actions[t - 1])}" if t else "start"
            status = f"step {t}/{len(episode)}  {action}  return {total:.2f}  {episode.meta['source']}"
        else:
            current = sum(c <= t for c in changes)
            status = f"instruction {current} of {steps}" + (", new" if t in changes[1:] else "") if steps > 1 else ""
        frames.append(world_frame(world, state, obs, picture, status))
    return frames


def paced(frames: list[np.ndarray], fps: float, min_seconds: float = 6.0, hold_seconds: float = 2.0) -> list[np.ndarray]:
    """Frames of a video that lasts at least ``min_seconds`` at ``fps``, however short the episode:
    each frame repeated a whole number of times (at most ``fps``, one second a frame), then the last
    held ``hold_seconds``, or longer where the video would otherwise end before ``min_seconds``."""
    least = math.ceil(min_seconds * fps)  # frames
    repeat = max(1, min(int(fps), -(-least // len(frames))))
    hold = max(round(hold_seconds * fps), least - repeat * len(frames))
    return [f for f in frames for _ in range(repeat)] + [frames[-1]] * hold


def write(frames: list[np.ndarray], path: str | Path, fps: float = 8.0) -> Path:
    """Write frames (equal sizes, multiples of 16) as ``.mp4`` (H.264), ``.webm`` (VP9) or ``.gif``."""
    path = Path(path)
    kind = path.suffix.lstrip(".")
    if kind not in FORMATS:
        raise ValueError(f"{path}: use one of {', '.join('.' + f for f in FORMATS)}")
    height, width = frames[0].shape[:2]
    if height % 16 or width % 16 or any(f.shape != frames[0].shape for f in frames):
        raise ValueError(f"frames must share one size with sides multiples of 16, got {frames[0].shape} first")
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "gif":
        images = [Image.fromarray(f) for f in frames]
        images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0, optimize=True)
        return path
    import imageio_ffmpeg

    codec, options = CODECS[kind]
    command = [
        imageio_ffmpeg.get_ffmpeg_exe(),
        "-y",
        "-v",
        "error",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
        "-s",
        f"{width}x{height}",
        "-r",
        f"{fps}",
        "-i",
        "-",
        "-an",
        "-c:v",
        codec,
        "-pix_fmt",
        "yuv420p",
        *options,
        str(path),
    ]
    # our own pipe, not imageio_ffmpeg.write_frames: that passes a preexec_fn, which makes Python fork
    # this multithreaded (JAX) process instead of spawning ffmpeg, a deadlock risk and JAX's warning
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: ffmpeg never blocks on its messages
        ffmpeg = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=errors)
        try:
            for frame in frames:  # streamed: a long episode is never one buffer
                ffmpeg.stdin.write(np.ascontiguousarray(frame, np.uint8).tobytes())
        except BrokenPipeError:  # ffmpeg stopped early: its exit status and message say why
            pass
        finally:
            with contextlib.suppress(BrokenPipeError):
                ffmpeg.stdin.close()
            ffmpeg.wait()
        if ffmpeg.returncode:
            errors.seek(0)
            raise RuntimeError(f"{path}: ffmpeg exited with {ffmpeg.returncode}: {errors.read().decode(errors='replace').strip()[-500:]}")
    return path


def render_folder(
    folder: str | Path, out: str | Path, formats: tuple[str, ...] = ("mp4",), fps: float = 8.0, quiet: bool = False
) -> list[Path]:
    """Replay and render every episode file under ``folder`` to ``out`` (same relative names, one
    file per format), with a progress bar unless ``quiet``; returns the written files."""
    from baselines.worlds.cli import progress

    folder, out = Path(folder), Path(out)
    written = []
    for path in progress(sorted(folder.rglob("*.npz")), desc="render", unit="episode", silent=quiet):
        frames = episode_frames(load(path))
        for kind in formats:
            written.append(write(frames, (out / path.relative_to(folder)).with_suffix(f".{kind}"), fps))
    return written
