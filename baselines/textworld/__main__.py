"""Text and knowledge-graph records of the worlds: generation, statistics, scores and the JerichoWorld import.

generate --env ID --policy random|expert|mixed --episodes N --out DIR   records of a world
stats DIR                                                               what a dataset holds
score PRED GOLD [--task graph|actions|diff]                             JerichoWorld's scores
import-jericho FILE --out DIR                                           JerichoWorld JSON -> records
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path

TASKS = {"graph": "next_graph", "actions": "valid_actions", "diff": "graph_diff"}


def stats(rows: list[dict]) -> dict:
    """Per world: records, episodes, triples per graph, empty graphs, valid actions, text words."""
    by = defaultdict(list)
    for r in rows:
        by[r["world"]].append(r)
    out = {}
    for world, rs in sorted(by.items()):
        sizes = [len(r["graph"]) for r in rs]
        out[world] = {
            "records": len(rs),
            "episodes": len({(r["split"], r["seed"], r["episode"]) for r in rs}),
            "splits": dict(Counter(r["split"] for r in rs)),
            "triples_per_graph": round(statistics.fmean(sizes), 2),
            "empty_graphs": sum(s == 0 for s in sizes),
            "valid_actions_per_state": round(statistics.fmean(len(r["valid_actions"]) for r in rs), 2),
            "observation_words": round(statistics.fmean(len(r["observation"].split()) for r in rs), 1),
            "entities_used": len({x for r in rs for t in r["graph"] for x in (t[0], t[2])}),
            "relations_used": len({t[1] for r in rs for t in r["graph"]}),
            "graph_changes_per_step": round(statistics.fmean(len(r["graph_diff"]["add"]) + len(r["graph_diff"]["del"]) for r in rs), 2),
        }
    return out


def score(pred_rows: list[dict], gold_rows: list[dict], task: str) -> dict:
    """Scores of predictions (rows with ``id`` and the task's field) against gold records; a gold
    record without a prediction scores as an empty prediction."""
    from baselines.textworld import metrics

    field = TASKS[task]
    pred = {r["id"]: r.get(field) for r in pred_rows}
    unknown = sorted(set(pred) - {r["id"] for r in gold_rows})
    if unknown:
        raise ValueError(f"{len(unknown)} prediction id(s) are not in the gold records, e.g. {unknown[0]!r}")
    empty = {"add": [], "del": []} if task == "diff" else []
    scores = metrics.batch_scores(task, [pred.get(r["id"]) or empty for r in gold_rows], [r[field] for r in gold_rows])
    result = metrics.aggregate([r["world"] for r in gold_rows], scores)
    return {"task": task, "missing_predictions": sum(r["id"] not in pred for r in gold_rows), **result}


def _rows(path: Path) -> list[dict]:
    from baselines.textworld.dataset import read

    if path.is_dir():
        return read(path)
    rows = []
    for n, line in enumerate(path.open(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}: line {n}: not JSON ({error.msg})") from None
    return rows


def parser() -> argparse.ArgumentParser:
    from baselines import cli, worlds

    p = argparse.ArgumentParser(
        prog="python -m baselines.textworld", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = p.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="records of a world (observation, graph, valid actions, action, next graph, diff)")
    worlds.add_world_arguments(gen, env_required=True)
    gen.add_argument("--policy", choices=("random", "expert", "mixed"), default="mixed")
    gen.add_argument("--episodes", type=int, default=64, help="episodes to play (default 64)")
    gen.add_argument("--max-steps", type=int, default=64, help="steps per episode at most (default 64)")
    gen.add_argument("--seed", type=int, default=0, help="seed of the first episode; use disjoint ranges to split by world seed")
    gen.add_argument("--epsilon", type=float, default=0.25, help="--policy mixed: share of random valid excursions (default 0.25)")
    gen.add_argument("--batch-size", type=int, default=64, help="episodes played at once on the device (slots)")
    gen.add_argument("--scope", choices=("observed", "true"), default="observed")
    gen.add_argument("--shard-size", type=int, default=50_000)
    gen.add_argument("--parquet", action="store_true", help="also write each shard as Parquet (needs pyarrow)")
    cli.add_out(gen, "folder of the records", required=True)
    cli.add_run_options(gen)
    st = commands.add_parser("stats", help="what a folder of records holds, per world")
    st.add_argument("folder", type=Path)
    sc = commands.add_parser("score", help="score predictions against gold records")
    sc.add_argument("pred", type=Path, help="JSON lines (or a folder) of {id, next_graph | valid_actions | graph_diff}")
    sc.add_argument("gold", type=Path, help="a folder or file of records")
    sc.add_argument("--task", choices=tuple(TASKS), default="graph")
    cli.add_out(sc, "also write the scores (JSON) to this file")
    imp = commands.add_parser("import-jericho", help="JerichoWorld's train.json / test.json as records")
    imp.add_argument("file", type=Path)
    cli.add_out(imp, "folder of the records", required=True)
    imp.add_argument("--repair", action="store_true", help="refill an empty graph from the previous instance's next graph")
    return p


RENAMED = {"--world": "--env", "--steps": "--max-steps"}
"""Old spellings accepted for one release."""


def main(argv: list[str] | None = None) -> None:
    from baselines import cli

    cli.run(parser(), _run, argv, RENAMED)


def _run(args: argparse.Namespace) -> None:
    from baselines import cli, worlds

    if args.command == "generate":
        from baselines.textworld import dataset
        from baselines.worlds.session import World

        world = World(worlds.spec_from_args(args), args.split)
        out = cli.prepare_out(args.out, overwrite=args.overwrite)
        summary = dataset.generate(
            world,
            args.policy,
            args.episodes,
            out,
            seed=args.seed,
            steps=args.max_steps,
            batch_size=args.batch_size,
            epsilon=args.epsilon,
            scope=args.scope,
            shard_size=args.shard_size,
            parquet=args.parquet,
            quiet=args.quiet,
        )
        print(json.dumps(summary, indent=1))
    elif args.command == "stats":
        print(json.dumps(stats(_rows(args.folder)), indent=1))
    elif args.command == "score":
        tick = time.perf_counter()
        result = score(_rows(args.pred), _rows(args.gold), args.task)
        result["seconds"] = round(time.perf_counter() - tick, 3)
        text = json.dumps(result, indent=1)
        if args.out:
            cli.prepare_out(args.out, overwrite=args.overwrite).write_text(text)
        print(text)
    elif args.command == "import-jericho":
        from baselines.textworld import jericho

        rows, counts = jericho.load(args.file, repair=args.repair)
        out = cli.prepare_out(args.out, overwrite=args.overwrite)
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{args.file.stem}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
