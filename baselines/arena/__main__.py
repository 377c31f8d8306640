"""The human evaluation arena: agents, episodes, raters, the rating server, ratings and exports.

See the package docstring (``baselines.arena``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from baselines.worlds import cli

DEFAULT_DB = Path("arena.sqlite")


def parser() -> argparse.ArgumentParser:
    from baselines.arena.store import Rules

    p = argparse.ArgumentParser(prog="python -m baselines.arena", description=__doc__)
    commands = p.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help)
        sub.add_argument("--db", type=Path, default=DEFAULT_DB, help=f"the arena database (default {DEFAULT_DB}; media beside it)")
        return sub

    serve = command("serve", "serve the rater page and the leaderboard")
    cli.add_address(serve)
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name raters reach the server by (repeatable); other Host headers than these, the loopback names and --host get 400",
    )
    defaults = Rules()
    serve.add_argument(
        "--min-watch", type=float, default=defaults.min_watch_s, help="seconds a match is open before a judgement is accepted"
    )
    serve.add_argument("--min-justification", type=int, default=defaults.min_justification, help="characters of justification required")
    serve.add_argument("--expiry", type=float, default=defaults.expiry_s, help="seconds a served match stays open")
    serve.add_argument("--exploration", type=float, default=defaults.exploration, help="share of matches drawn uniformly")
    serve.add_argument("--rate-limit", type=int, default=240, help="API requests per rater per minute")
    serve.add_argument(
        "--trusted-proxy",
        default=None,
        help="address of a reverse proxy whose X-Forwarded-For the server believes (default: none; the client address is the peer's)",
    )
    serve.add_argument("--bootstrap", type=int, default=200, help="Bradley-Terry bootstrap rounds")
    agent = command("add-agent", "register an agent")
    agent.add_argument("name")
    agent.add_argument("--description", default="")
    episodes = command("add-episodes", "add a folder of an agent's episode files (clean videos rendered by replay)")
    episodes.add_argument("folder", type=Path)
    episodes.add_argument("--agent", required=True)
    episodes.add_argument("--formats", default="webm,mp4", help="videos to offer, comma-separated: webm, mp4 (default webm,mp4)")
    episodes.add_argument("--fps", type=float, default=8.0)
    cli.add_run_options(episodes)
    rater = command("add-rater", "register a rater (or an admin) and print its token")
    rater.add_argument("name")
    rater.add_argument("--admin", action="store_true")
    ban = command("ban-rater", "ban a rater: no more sign-ins, its judgements leave the ratings (not the record)")
    ban.add_argument("name")
    ban.add_argument("--reason", required=True)
    study = command("study", "open the study (raters judge; results for admins only) or close it (results public, read-only)")
    study.add_argument("state", choices=("open", "closed"))
    ratings = command("ratings", "print the ratings; with --out also write ratings.json and pictures")
    cli.add_out(ratings, "folder for ratings.json and the pictures")
    ratings.add_argument("--bootstrap", type=int, default=200)
    export = command("export", "write the raw judgements (JSON or CSV by the suffix of --out)")
    cli.add_out(export, "the file to write (.json or .csv)", required=True)
    basalt = command("import-basalt", "import BASALT's released judgements (updated_human_answers.json)")
    basalt.add_argument("file", type=Path)
    basalt.add_argument("--banned", type=Path, help="banned_workers.json: their judgements are left out")
    return p


def _table(rows: list[dict], by: tuple[str, ...]) -> str:
    lines = [" | ".join([*by, "agent", "mu", "sigma", "mu-3sigma", "BT", "BT 95%", "rank", "n", "W/D/L"])]
    for r in rows:
        lines.append(
            " | ".join(
                [
                    *(str(r[k]) for k in by),
                    r["agent"],
                    f"{r['mu']:.2f}",
                    f"{r['sigma']:.2f}",
                    f"{r['conservative']:.2f}",
                    f"{r['bt']:.0f}",
                    "-" if r["rank"] is None else f"{r['bt_low']:.0f}-{r['bt_high']:.0f}",
                    "too few" if r["rank"] is None else str(r["rank"]),
                    str(r["judgements"]),
                    f"{r['wins']}/{r['draws']}/{r['losses']}",
                ]
            )
        )
    return "\n".join(lines)


def _ratings(store, out: Path | None, rounds: int, overwrite: bool = False) -> None:
    from baselines.arena import plots
    from baselines.arena.ratings import direct_rates, leaderboard, win_matrix

    outcomes = store.outcomes()
    if not outcomes:
        print("no judgements yet")
        return
    overall = leaderboard(outcomes, ("world",), rounds=rounds)
    tasks = leaderboard(outcomes, ("world", "task"), rounds=rounds)
    questions = sorted({q for o in outcomes for q in o.comparisons})
    by_question = [row for q in questions for row in leaderboard(outcomes, ("world",), question=q, rounds=rounds)]
    print(
        f"{len(outcomes)} judgements\n\nOverall verdict, per world\n{_table(overall, ('world',))}"
        f"\n\nPer world and task\n{_table(tasks, ('world', 'task'))}"
    )
    if out is None:
        return
    out = cli.prepare_out(out, kind="arena ratings", overwrite=overwrite)
    out.mkdir(parents=True, exist_ok=True)
    cli.write_atomic(
        out / "ratings.json",
        json.dumps(
            {"judgements": len(outcomes), "overall": overall, "tasks": tasks, "questions": by_question, "direct": direct_rates(outcomes)},
            indent=1,
            allow_nan=False,
        ),
    )
    written = ["ratings.json"]
    for world in sorted({o.world for o in outcomes}):
        mine = [o for o in outcomes if o.world == world]
        safe = world.replace("/", "_")
        for name, png in (
            (f"ratings-{safe}.png", plots.ratings_png([r for r in overall if r["world"] == world], f"{world}: {len(mine)} judgements")),
            (f"wins-{safe}.png", plots.win_matrix_png(*win_matrix(mine), f"{world}: wins")),
        ):
            cli.write_atomic(out / name, png)
            written.append(name)
    out = cli.finish_out(out)
    print("wrote " + ", ".join(str(out / name) for name in written))


def _is_export(path: Path) -> bool:
    """Whether file ``path`` is one ``arena export`` writes: empty (no judgements), CSV under the
    record's header, or a JSON list of judgements (never the database, a run's file or another's)."""
    with path.open("rb") as f:
        head = f.read(64)
    if not head:
        return True
    if head.startswith(b"id,match,world,"):
        return True
    if not head.lstrip().startswith(b"["):
        return False
    try:
        rows = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(rows, list) and all(isinstance(r, dict) and {"match", "verdict", "rater"} <= r.keys() for r in rows)


def _run(args: argparse.Namespace) -> None:
    from baselines.arena.store import Store

    store = Store(args.db)
    try:
        _command(store, args)
    finally:
        store.close()


def _command(store, args: argparse.Namespace) -> None:
    from baselines.arena.store import PUBLISH_AFTER, export_csv

    if args.command == "serve":
        from baselines.arena.server import Limits, serve
        from baselines.arena.store import Rules

        rules = Rules(args.min_watch, args.min_justification, args.expiry, args.exploration)
        serve(
            store,
            args.host,
            args.port,
            args.trusted_proxy,
            tuple(args.allowed_host),
            rules=rules,
            limits=Limits(rate_limit=args.rate_limit),
            rounds=args.bootstrap,
        )
    elif args.command == "add-agent":
        print(f"agent {args.name} (id {store.add_agent(args.name, args.description)})")
    elif args.command == "add-episodes":
        from baselines.arena.ingest import add_episodes

        formats = tuple(f.strip() for f in args.formats.split(",") if f.strip())
        counts = add_episodes(store, args.folder, args.agent, formats, args.fps, quiet=args.quiet)
        print(f"{args.agent}: {counts['added']} episodes added, {counts['skipped']} already there, {counts['rendered']} videos rendered")
    elif args.command == "add-rater":
        token = store.add_rater(args.name, "admin" if args.admin else "rater")
        print(f"{'admin' if args.admin else 'rater'} {args.name}; token (shown once, keep it):\n{token}")
    elif args.command == "ban-rater":
        store.ban(args.name, args.reason)
        print(f"banned {args.name}")
    elif args.command == "study":
        published = store.set_study(args.state)
        if args.state == "open":
            print(f"the study of {store.path} is open")
        elif published:
            print(f"the study of {store.path} is closed; its leaderboard is public, through judgement {store.published_through()}")
        else:
            print(
                f"the study of {store.path} is closed; its public leaderboard stays as published (through judgement "
                f"{store.published_through()}): a closing publishes again only with {PUBLISH_AFTER} judgements more"
            )
    elif args.command == "ratings":
        _ratings(store, args.out, args.bootstrap, args.overwrite)
    elif args.command == "export":
        rows = store.judgements()
        out = cli.prepare_out(args.out, kind="arena export", overwrite=args.overwrite, file=True, own=_is_export)
        out.parent.mkdir(parents=True, exist_ok=True)
        cli.write_atomic(
            out, export_csv(rows) if args.out.suffix == ".csv" else json.dumps(rows, indent=1, allow_nan=False, ensure_ascii=False)
        )
        print(f"{len(rows)} judgements -> {out}")
    else:
        from baselines.arena.ingest import import_basalt

        counts = import_basalt(store, args.file, args.banned)
        for message in counts["refused"]:
            print(f"refused {message}", file=sys.stderr)
        print(
            f"{args.file}: {counts['judgements']} judgements of {counts['agents']} agents imported, "
            f"{counts['skipped']} already in the arena, {len(counts['refused'])} malformed records refused"
        )


def main(argv: list[str] | None = None) -> None:
    cli.run(parser(), _run, argv)  # EpisodeError and the store's refusals are ValueErrors naming what was wrong


if __name__ == "__main__":
    main()
