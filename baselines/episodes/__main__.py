"""Record, replay, render and index episode files, and play any world in a browser.

See the package docstring (``baselines.episodes``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from baselines import worlds
from baselines.worlds import cli, deprecation


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m baselines.episodes", description=__doc__)
    commands = p.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="replay and render a folder of episode files to videos")
    render.add_argument("folder", type=Path)
    cli.add_out(render, "folder for the videos (same relative names as the episodes)", required=True)
    render.add_argument("--formats", default="mp4", help="comma-separated: mp4, webm, gif (default mp4)")
    render.add_argument("--fps", type=float, default=8.0)
    cli.add_run_options(render)
    play = commands.add_parser("play", help="play a world in the browser; every step is recorded")
    worlds.add_world_arguments(play, env_required=True)
    play.add_argument(
        "--out",
        type=Path,
        default=Path("episodes"),
        help="folder of the recorded episodes (default ./episodes); new episodes join it under new names",
    )
    play.add_argument("--resume", action="store_true", help=argparse.SUPPRESS)  # the default now; accepted for one release
    play.add_argument("--player", default="anonymous", help="recorded as source human:<player>")
    play.add_argument(
        "--text", type=int, help="always this instruction id (default: the split's goals in turn, each goal's phrasings in turn)"
    )
    cli.add_address(play)
    rec = commands.add_parser("record", help="record episodes of a scripted policy (random, or the world's expert) or a trained agent")
    worlds.add_world_arguments(rec, env_required=True)
    rec.add_argument(
        "--policy",
        choices=("random", "expert", "agent"),
        default="random",
        help="random, the world's scripted expert, or a trained agent (--run)",
    )
    rec.add_argument(
        "--run",
        type=Path,
        help="with --policy agent: a run folder of python -m baselines.bc, python -m baselines or python -m baselines.painter",
    )
    rec.add_argument("--greedy", action="store_true", help="with --policy agent: the most likely action instead of a sampled one")
    rec.add_argument(
        "--episodes", type=int, default=4, help="episodes: the split's goals in turn, each goal's phrasings in turn (default 4)"
    )
    rec.add_argument("--seed", type=int, default=0, help="seed of the first episode (the next ones count up)")
    cli.add_out(rec, "folder of the episode files", required=True)
    cli.add_run_options(rec)
    check = commands.add_parser("replay", help="replay episode files and check them against their recording")
    check.add_argument("files", type=Path, nargs="+")
    index = commands.add_parser("index", help="write FOLDER/index.jsonl over the episode files in a folder")
    index.add_argument("folder", type=Path)
    return p


def main(argv: list[str] | None = None) -> None:
    cli.run(parser(), _run, argv)  # EpisodeError and ReplayMismatch are ValueErrors


def _run(args: argparse.Namespace) -> None:
    from baselines.worlds import episode

    if args.command == "render":
        from baselines.episodes.video import FORMATS, render_folder

        formats = tuple(f.strip() for f in args.formats.split(",") if f.strip())
        unknown = [f for f in formats if f not in FORMATS]
        if unknown or not formats:
            raise ValueError(f"--formats {args.formats!r}: use some of {', '.join(FORMATS)}")
        out = cli.prepare_out(args.out, kind="episodes render", overwrite=args.overwrite)
        written = render_folder(args.folder, out, formats, args.fps, quiet=args.quiet)
        print(f"{len(written)} files in {cli.finish_out(out)}")
    elif args.command == "play":
        from baselines.episodes.play import PlayServer, serve
        from baselines.worlds.session import World

        if args.resume:
            print(f"warning: {deprecation.message('play --resume', 'play: it always continues unfinished episodes')}", file=sys.stderr)
        spec = worlds.spec_from_args(args)
        with cli.compiling(f"{spec['env']}'s start, step and renderer for the player"):
            server = PlayServer(World(spec, args.split), args.out, args.player, args.text)
        serve(server, args.host, args.port)
    elif args.command == "record":
        from baselines.worlds.replay import record
        from baselines.worlds.session import World

        cli.check_out(args.out, kind="episodes record", overwrite=args.overwrite)  # before the world is built: a refusal comes at once
        world = World(worlds.spec_from_args(args), args.split)
        policy = args.policy
        if policy == "agent":
            from baselines.worlds.agents import load_agent

            if args.run is None:
                raise ValueError("--policy agent needs --run RUN (a trained run folder)")
            policy = load_agent(args.run, world, greedy=args.greedy)
        out = cli.prepare_out(args.out, kind="episodes record", overwrite=args.overwrite)
        with cli.compiling(f"{world.env_id}'s start and step", args.quiet):
            world.compile()
        with cli.progress(total=args.episodes, desc="record", unit="episode", silent=args.quiet) as bar:
            for i in range(args.episodes):
                path = record(world, policy, world.schedule(i), args.seed + i, out / f"{world.env_id}-{args.policy}-{i:04d}")
                meta = episode.load(path).meta
                bar.write(f"{path.relative_to(out)}: {meta['length']} steps, return {meta['return']:.2f}, success {meta['success']}")
                bar.update()
        print(f"{args.episodes} episodes in {cli.finish_out(out)}")
    elif args.command == "replay":
        from baselines.worlds.replay import replay

        for path in args.files:
            loaded = episode.load(path)
            replayed = replay(loaded)
            print(f"{path}: {len(loaded)} steps replay exactly (return {loaded.meta.get('return')}, success {replayed.success})")
    else:
        print(f"wrote {episode.write_index(args.folder)}")


if __name__ == "__main__":
    main()
