"""Text and knowledge-graph records of the worlds: generation, statistics, scores and the JerichoWorld import.

generate --env ID --policy random|expert|mixed|jericho --episodes N --out DIR   records of a world
stats DIR                                                   what a dataset holds
score PRED GOLD [--task graph|actions|diff]                 scores, beside the copy and empty floors
import-jericho FILE --out DIR                               JerichoWorld JSON -> records
predict RECORDS --base-url URL --model NAME --out FILE      a language model's next graphs
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path

TASKS = {"graph": "next_graph", "actions": "valid_actions", "diff": "graph_diff"}
"""The field each task predicts (``actions``: ``valid_action_ids`` where the gold records hold ids)."""
FLOORS = {
    "copy": "the current graph as the next one (graph, diff: no change); the previous step's valid actions (actions)",
    "empty": "an empty prediction",
}


def episode_key(row: dict) -> tuple:
    """What identifies a row's trajectory: run, seed, episode and part (absent fields: None)."""
    return tuple(row.get(k) for k in ("world", "split", "run", "seed", "episode", "part"))


def check_unique(rows: list[dict], what: str) -> None:
    """ValueError naming the first id that two rows of ``rows`` share."""
    seen: set = set()
    for n, row in enumerate(rows, 1):
        if row.get("id") in seen:
            raise ValueError(f"{what}: row {n}: id {row.get('id')!r} is used twice (two runs in one folder?)")
        seen.add(row.get("id"))


def stats(rows: list[dict]) -> dict:
    """Per world: records, runs, trajectories (episodes and their parts), triples per graph, empty
    graphs, valid actions, text words, bytes per record."""
    check_unique(rows, "records")
    by = defaultdict(list)
    for r in rows:
        by[r["world"]].append(r)
    out = {}
    for world, rs in sorted(by.items()):
        sizes = [len(r["graph"]) for r in rs]
        valid = [r.get("valid_action_ids", r.get("valid_actions")) for r in rs]
        out[world] = {
            "records": len(rs),
            "runs": sorted({str(r.get("run")) for r in rs}),
            "episodes": len({episode_key(r)[:-1] for r in rs}),
            "trajectories": len({episode_key(r) for r in rs}),
            "splits": dict(Counter(r["split"] for r in rs)),
            "triples_per_graph": round(statistics.fmean(sizes), 2),
            "empty_graphs": sum(s == 0 for s in sizes),
            "valid_actions_per_state": round(statistics.fmean(len(v) for v in valid), 2) if all(v is not None for v in valid) else None,
            "observation_words": round(statistics.fmean(len(r["observation"].split()) for r in rs), 1),
            "entities_used": len({x for r in rs for t in r["graph"] for x in (t[0], t[2])}),
            "relations_used": len({t[1] for r in rs for t in r["graph"]}),
            "graph_changes_per_step": round(statistics.fmean(len(r["graph_diff"]["add"]) + len(r["graph_diff"]["del"]) for r in rs), 2),
            "bytes_per_record": round(statistics.fmean(len(json.dumps(r)) + 1 for r in rs)),
        }
    return out


def task_field(task: str, gold_rows: list[dict]) -> str:
    """The field of ``task`` in these gold records (``TASKS``)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")
    if task == "actions" and gold_rows and "valid_action_ids" in gold_rows[0]:
        return "valid_action_ids"
    if gold_rows and TASKS[task] not in gold_rows[0]:
        raise ValueError(f"the gold records hold no {TASKS[task]!r} (generated with --valid-actions none?)")
    return TASKS[task]


def _items(value, field: str):
    """A prediction or gold value as ``metrics.batch_scores`` reads it (ids as strings)."""
    if field == "valid_action_ids":  # a non-integer id matches nothing
        return [str(x) if isinstance(x, int) and not isinstance(x, bool) else f"\0{x!r}" for x in value]
    return value


def floors(task: str, field: str, gold_rows: list[dict]) -> dict[str, list]:
    """The predictions of each ``FLOORS`` baseline for the gold records."""
    if task == "diff":
        nothing = [{"add": [], "del": []}] * len(gold_rows)
        return {"copy": nothing, "empty": nothing}
    if task == "graph":
        return {"copy": [r["graph"] for r in gold_rows], "empty": [[]] * len(gold_rows)}
    at = {(episode_key(r), r.get("step")): r[field] for r in gold_rows}
    previous = [at.get((episode_key(r), (r.get("step") or 0) - 1), []) for r in gold_rows]
    return {"copy": previous, "empty": [[]] * len(gold_rows)}


def score(
    pred_rows: list[dict], gold_rows: list[dict], task: str, *, missing: str = "error", empty_gold: str = "skip", with_floors: bool = True
) -> dict:
    """Scores of predictions (rows with ``id`` and the task's field) against gold records, with
    the ``FLOORS`` baselines' scores beside them (``floors``, and what each is:
    ``floor_definitions``). A gold record without a prediction
    is an error unless ``missing`` is ``empty`` (scored as an empty prediction, and counted) or
    ``skip`` (left out: the scores and floors cover the predicted records only). Gold
    records whose set is empty are left out of the means unless ``empty_gold="one"``
    (``metrics.EMPTY_GOLD``). ``with_floors=False`` leaves the floors out (timing the scores
    alone). Raises ValueError naming the id and field of a bad prediction."""
    from baselines.textworld import metrics

    check_unique(gold_rows, "gold records")
    check_unique(pred_rows, "predictions")
    field = task_field(task, gold_rows)
    pred = {}
    for r in pred_rows:
        value = r.get(field)
        if task == "diff":
            shaped = isinstance(value, dict) and all(isinstance(value.get(k, []), list) for k in ("add", "del"))
            expected = "{add, del} lists"
        else:
            shaped, expected = isinstance(value, list), "a list"
        if not shaped:
            raise ValueError(f"prediction {r.get('id')!r}: field {field!r} must be {expected}, got {value!r}")
        pred[r["id"]] = _items(value, field)
    unknown = sorted(set(pred) - {r["id"] for r in gold_rows})
    if unknown:
        raise ValueError(f"{len(unknown)} prediction id(s) are not in the gold records, e.g. {unknown[0]!r}")
    absent = [r["id"] for r in gold_rows if r["id"] not in pred]
    if absent and missing == "error":
        raise ValueError(
            f"{len(absent)} gold record(s) have no prediction, e.g. {absent[0]!r}; "
            "--missing empty scores them as empty predictions, --missing skip scores only the predicted records"
        )
    if missing == "skip":
        gold_rows = [r for r in gold_rows if r["id"] in pred]
    empty = {"add": [], "del": []} if task == "diff" else []
    golds, groups = [_items(r[field], field) for r in gold_rows], [r["world"] for r in gold_rows]
    scores = metrics.batch_scores(task, [pred.get(r["id"], empty) for r in gold_rows], golds, empty_gold)
    baselines = {
        name: metrics.aggregate(groups, metrics.batch_scores(task, [_items(p, field) for p in preds], golds, empty_gold))["overall"]
        for name, preds in (floors(task, field, gold_rows) if with_floors else {}).items()
    }
    result = metrics.aggregate(groups, scores)
    return {
        "task": task,
        "field": field,
        "empty_gold": empty_gold,
        "missing_predictions": len(absent),
        **result,
        "floors": baselines,
        "floor_definitions": {name: FLOORS[name] for name in baselines},
    }


def _rows(path: Path) -> list[dict]:
    from baselines.textworld.dataset import read, read_lines

    return read(path) if path.is_dir() else read_lines(path)


def parser() -> argparse.ArgumentParser:
    from baselines import worlds
    from baselines.worlds import cli

    p = argparse.ArgumentParser(
        prog="python -m baselines.textworld", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = p.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="records of a world (observation, graph, valid actions, action, next graph, diff)")
    worlds.add_world_arguments(gen, env_required=True)
    gen.add_argument(
        "--policy",
        choices=("random", "expert", "mixed", "jericho"),
        default="mixed",
        help="random valid actions; the expert; mixed: the expert, each step replaced by a random valid action with probability "
        "--epsilon; jericho: JerichoWorld's sampling (the first third of the expert's trajectory, a 2-step random excursion from "
        "each of its states, a --walk-steps random walk). Default mixed",
    )
    gen.add_argument("--episodes", type=int, default=64, help="episodes to play (default 64)")
    gen.add_argument("--max-steps", type=int, default=64, help="steps per episode at most (default 64)")
    gen.add_argument("--seed", type=int, default=0, help="seed of the first episode; use disjoint ranges to split by world seed")
    gen.add_argument("--epsilon", type=float, default=0.25, help="--policy mixed: chance of a random valid action per step (default 0.25)")
    gen.add_argument("--walk-steps", type=int, default=100, help="--policy jericho: steps of the random walk per episode (default 100)")
    gen.add_argument(
        "--valid-actions",
        choices=("ids", "names", "none"),
        default="ids",
        help="what a record holds of its valid actions: ids (names in the vocabulary file; default), ids and names, or nothing",
    )
    gen.add_argument("--append", action="store_true", help="add this run's records to a folder holding other runs")
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
    sc.add_argument(
        "--missing",
        choices=("error", "empty", "skip"),
        default="error",
        help="a gold record without a prediction: an error (default), scored as empty, or left out (scores cover the predicted records)",
    )
    sc.add_argument(
        "--empty-gold",
        choices=("skip", "one"),
        default="skip",
        help="records whose gold set is empty: left out of the means (default), or scored 1 when the prediction is empty too",
    )
    cli.add_out(sc, "also write the scores (JSON) to this file")
    pr = commands.add_parser("predict", help="a language model's next graphs for records (baselines.chat client)")
    pr.add_argument("records", type=Path, help="a folder or file of records")
    pr.add_argument("--base-url", required=True, help="OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1")
    pr.add_argument("--model", required=True)
    pr.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the key (default OPENAI_API_KEY)")
    pr.add_argument("--allow-insecure-http", action="store_true", help="let --base-url be plain http to a host off the loopback")
    pr.add_argument("--limit", type=int, help="predict only the first N records")
    pr.add_argument("--timeout", type=float, default=60.0)
    cli.add_out(pr, "JSON lines of {id, next_graph, graph_diff, reply}", required=True)
    cli.add_run_options(pr)
    imp = commands.add_parser("import-jericho", help="JerichoWorld's train.json / test.json as records")
    imp.add_argument("file", type=Path)
    cli.add_out(imp, "folder of the records", required=True)
    return p


"""Old spellings accepted for one release."""


def main(argv: list[str] | None = None) -> None:
    from baselines.chat import ChatError
    from baselines.worlds import cli

    cli.run(parser(), _run, argv, errors=(ValueError, OSError, ChatError))


def _run(args: argparse.Namespace) -> None:
    from baselines import worlds
    from baselines.worlds import cli

    if args.command == "generate":
        from baselines.textworld import dataset
        from baselines.worlds.session import World

        world = World(worlds.spec_from_args(args), args.split)
        out = cli.prepare_out(args.out, kind="textworld generate", overwrite=args.overwrite, resume=args.append and args.out.exists())
        summary = dataset.generate(
            world,
            args.policy,
            args.episodes,
            out,
            seed=args.seed,
            steps=args.max_steps,
            batch_size=args.batch_size,
            epsilon=args.epsilon,
            walk_steps=args.walk_steps,
            scope=args.scope,
            valid_actions=args.valid_actions,
            append=args.append,
            shard_size=args.shard_size,
            parquet=args.parquet,
            quiet=args.quiet,
        )
        cli.finish_out(out)
        print(json.dumps(summary, indent=1))
    elif args.command == "stats":
        print(json.dumps(stats(_rows(args.folder)), indent=1))
    elif args.command == "score":
        own = cli.reads_as(("task", "field", "empty_gold", "floors"))
        out = cli.prepare_out(args.out, kind="textworld score", overwrite=args.overwrite, file=True, own=own) if args.out else None
        tick = time.perf_counter()
        result = score(_rows(args.pred), _rows(args.gold), args.task, missing=args.missing, empty_gold=args.empty_gold)
        result["seconds"] = round(time.perf_counter() - tick, 3)
        text = json.dumps(result, indent=1)
        if out:
            cli.write_atomic(out, text)
        print(text)
    elif args.command == "predict":
        from baselines.chat import ChatClient
        from baselines.textworld.predict import predict

        client = ChatClient(
            args.base_url, args.model, api_key_env=args.api_key_env, timeout_s=args.timeout, allow_insecure_http=args.allow_insecure_http
        )
        rows = _rows(args.records)[: args.limit]
        own = cli.reads_as(("id", "next_graph", "graph_diff", "reply"), lines=True)
        out = cli.prepare_out(args.out, kind="textworld predict", overwrite=args.overwrite, file=True, own=own)
        print(json.dumps(predict(client, rows, out, quiet=args.quiet), indent=1))
    elif args.command == "import-jericho":
        from baselines.textworld import jericho

        rows, counts = jericho.load(args.file)
        out = cli.prepare_out(args.out, kind="textworld import-jericho", overwrite=args.overwrite)
        out.mkdir(parents=True, exist_ok=True)
        cli.write_atomic(out / f"{args.file.stem}.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
        cli.finish_out(out)
        print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
