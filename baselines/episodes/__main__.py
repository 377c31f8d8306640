"""Command line of ``baselines.episodes`` (see the package docstring)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from baselines.tasks import WORLD_SPEC


def _world_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", required=True, help="a registered world id, e.g. CrafText-Classic-Symbolic-v1, Hexagons-Paint-v1, BlocksWorld-BAP-v1")
    p.add_argument("--split", default="train", help="the split to play (default train)")
    for name, default in WORLD_SPEC.items():
        if name != "env":
            p.add_argument("--" + name.replace("_", "-"), type=type(default), default=default, help=f"world setting (default {default!r})")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m baselines.episodes", description=__doc__)
    commands = p.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="replay and render a folder of episode files to videos")
    render.add_argument("folder", type=Path)
    render.add_argument("--out", type=Path, required=True, help="folder for the videos (same relative names as the episodes)")
    render.add_argument("--formats", default="mp4", help="comma-separated: mp4, webm, gif (default mp4)")
    render.add_argument("--fps", type=float, default=8.0)
    play = commands.add_parser("play", help="play a world in the browser; every step is recorded")
    _world_arguments(play)
    play.add_argument("--out", type=Path, default=Path("episodes"), help="folder of the recorded episodes (default ./episodes)")
    play.add_argument("--player", default="anonymous", help="recorded as source human:<player>")
    play.add_argument("--text", type=int, help="always this instruction id (default: the split's goals in turn, each goal's phrasings in turn)")
    play.add_argument("--host", default="127.0.0.1")
    play.add_argument("--port", type=int, default=8000)
    rec = commands.add_parser("record", help="record episodes of a scripted policy (random, or the world's expert)")
    _world_arguments(rec)
    rec.add_argument("--policy", choices=("random", "expert", "agent"), default="random",
                     help="random, the world's scripted expert, or a trained agent (--run)")
    rec.add_argument("--run", type=Path, help="with --policy agent: a run folder of python -m baselines.bc, python -m baselines or python -m baselines.painter")
    rec.add_argument("--greedy", action="store_true", help="with --policy agent: the most likely action instead of sampling")
    rec.add_argument("--episodes", type=int, default=4, help="episodes: the split's goals in turn, each goal's phrasings in turn (default 4)")
    rec.add_argument("--seed", type=int, default=0, help="seed of the first episode (the next ones count up)")
    rec.add_argument("--out", type=Path, required=True)
    check = commands.add_parser("replay", help="replay episode files and check them against their recording")
    check.add_argument("files", type=Path, nargs="+")
    index = commands.add_parser("index", help="write FOLDER/index.jsonl over the episode files in a folder")
    index.add_argument("folder", type=Path)
    args = p.parse_args(argv)

    from baselines.episodes.episode import EpisodeError

    try:
        _run(args)
    except (EpisodeError, ValueError) as error:
        sys.exit(f"error: {error}")


def _run(args: argparse.Namespace) -> None:
    from baselines.episodes import episode

    if args.command == "render":
        from baselines.episodes.video import FORMATS, render_folder

        formats = tuple(f.strip() for f in args.formats.split(",") if f.strip())
        unknown = [f for f in formats if f not in FORMATS]
        if unknown or not formats:
            raise ValueError(f"--formats {args.formats!r}: use some of {', '.join(FORMATS)}")
        written = render_folder(args.folder, args.out, formats, args.fps)
        print(f"{len(written)} files in {args.out}")
    elif args.command == "play":
        from baselines.episodes.play import PlaySession, serve
        from baselines.episodes.replay import World

        print(f"compiling {args.env} ...", flush=True)
        world = World({name: getattr(args, name) for name in WORLD_SPEC}, args.split)
        serve(PlaySession(world, args.out, args.player, args.text), args.host, args.port)
    elif args.command == "record":
        from baselines.episodes.replay import World, record

        world = World({name: getattr(args, name) for name in WORLD_SPEC}, args.split)
        policy = args.policy
        if policy == "agent":
            from baselines.episodes.agent import load_agent

            if args.run is None:
                raise ValueError("--policy agent needs --run RUN (a trained run folder)")
            policy = load_agent(args.run, world, greedy=args.greedy)
        for i in range(args.episodes):
            path = record(world, policy, world.schedule(i), args.seed + i, args.out / f"{args.env}-{args.policy}-{i:04d}")
            meta = episode.load(path).meta
            print(f"{path}: {meta['length']} steps, return {meta['return']:.2f}, success {meta['success']}", flush=True)
    elif args.command == "replay":
        from baselines.episodes.replay import replay

        for path in args.files:
            loaded = episode.load(path)
            replayed = replay(loaded)
            print(f"{path}: {len(loaded)} steps replay exactly (return {loaded.meta.get('return')}, success {replayed.success})")
    else:
        print(f"wrote {episode.write_index(args.folder)}")


if __name__ == "__main__":
    main()
