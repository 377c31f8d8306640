"""Train and evaluate the Hexagons painter.

See the package docstring (``baselines.painter``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from baselines.painter.data import CONTEXTS, TEXTS
from baselines.worlds import cli


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m baselines.painter", description=__doc__)
    commands = p.add_subparsers(dest="command", required=True)
    train = commands.add_parser("train", help="train a painter on the released train split (plus synthetic procedures)")
    train.add_argument("--data", type=Path, required=True, help="the release's data/ folder (train.jsonl, dev.jsonl, test.jsonl)")
    cli.add_out(train, "the run folder", required=True)
    train.add_argument(
        "--synthetic-procedures",
        type=int,
        default=0,
        metavar="N",
        help="generated procedures added to the training set (hexagons.abstractions; default 0)",
    )
    train.add_argument(
        "--history", choices=CONTEXTS, default="full", help="context: no earlier instruction, the previous one, all (default)"
    )
    train.add_argument("--rule-hints", action="store_true", help="give the network the rule baseline's paints per tile as an input")
    train.add_argument(
        "--encoder",
        choices=TEXTS,
        default="learned",
        help="text encoder: word embeddings and transformer layers learned from scratch (default), or the pretrained MiniLM "
        "(the [minilm] extra) fine-tuned end to end",
    )
    train.add_argument("--text-layers", type=int, help="text transformer layers (default 1 learned; minilm: its first N of 6, default 6)")
    train.add_argument("--text-lr", type=float, default=1e-4, help="learning rate of the MiniLM layers (default 1e-4; the rest 1e-3)")
    train.add_argument("--minutes", type=float, default=45.0, help="training time budget (the best dev epoch is kept)")
    train.add_argument("--epochs", type=int, default=200)
    train.add_argument("--lr-decay", action="store_true", help="decay the learning rates linearly to 0 at the last of --epochs")
    train.add_argument("--width", type=int, default=96)
    train.add_argument("--tile-layers", type=int, default=2)
    train.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    cli.add_run_options(train)
    evaluate = commands.add_parser("evaluate", help="score a trained painter on a split (oracle and predicted boards)")
    evaluate.add_argument("run", type=Path)
    evaluate.add_argument("--data", type=Path, required=True)
    evaluate.add_argument("--split", default="test", choices=("train", "dev", "test"))
    cli.add_out(evaluate, "folder for evaluation-<split>.json and .md (default runs/evaluations/<run folder name>)")
    cli.add_run_options(evaluate)
    compare = commands.add_parser("compare", help="draw several runs' loss and dev action F1 / EM against training minutes in one PNG")
    compare.add_argument("runs", type=Path, nargs="+", metavar="RUN")
    cli.add_out(compare, "the PNG to write", required=True)
    return p


def _table(results: dict, split: str) -> str:
    lines = [
        f"| {split} | board | action P | action R | action F1 | action EM | board F1 | board EM | steps |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for setting, groups in results.items():
        for group, s in groups.items():
            a, b = s["action"], s["board"]
            lines.append(
                f"| {group} | {setting} | {a['precision']:.2f} | {a['recall']:.2f} | {a['f1']:.2f} | {a['exact_match']:.2f} | "
                f"{b['f1']:.2f} | {b['exact_match']:.2f} | {a['steps']} |"
            )
    return "\n".join(lines)


"""Old spellings accepted for one release."""


def main(argv: list[str] | None = None) -> None:
    cli.run(parser(), _run, argv)  # HexagonsDataError is a ValueError


def _run(args: argparse.Namespace) -> None:
    if args.command == "compare":
        from baselines.plots import comparison

        cli.comparison_out(args.runs, args.out, args.overwrite, "painter")
        panels = [
            ("training loss", "weighted cross entropy per tile", [("loss", "")]),
            ("dev split, oracle board", "action F1 / EM (%)", [("dev_action_f1", " F1"), ("dev_action_em", " EM")]),
        ]
        print(f"wrote {comparison(args.runs, args.out, lambda row: row['minutes'], panels)}")
        return

    from baselines.painter.train import Config, Painter, evaluate, train
    from hexagons.data import load_split

    if args.command == "evaluate":
        files = (f"evaluation-{args.split}.json", f"evaluation-{args.split}.md")
        out = cli.evaluation_folder(args.out, args.run, files, args.overwrite)
        painter = Painter.load(args.run)
        results = evaluate(painter, load_split(args.data / f"{args.split}.jsonl"))
        out.mkdir(parents=True, exist_ok=True)
        cli.write_atomic(out / files[0], json.dumps(results, indent=1))
        cli.write_atomic(out / files[1], _table(results, args.split) + "\n")
        print(_table(results, args.split))
        print(f"wrote {out / files[0]} and {out / files[1]}")
        return

    from baselines.painter.data import Examples, Layout, examples, text_vocabulary
    from baselines.worlds.checkpoints import RunFolder
    from hexagons import abstractions

    real = load_split(args.data / "train.jsonl")
    dev = load_split(args.data / "dev.jsonl")
    config = Config(
        width=args.width,
        tile_layers=args.tile_layers,
        text_layers=args.text_layers if args.text_layers is not None else 6 if args.encoder == "minilm" else 1,
        layout=Layout(history=args.history) if args.encoder == "learned" else Layout(0 if args.history == "none" else 32, 56, args.history),
        text=args.encoder,
        text_lr=args.text_lr,
        minutes=args.minutes,
        epochs=args.epochs,
        decay=args.lr_decay,
        synthetic=args.synthetic_procedures,
        hints=args.rule_hints,
        seed=args.seed,
    )
    folder = RunFolder.open(args.out, kind="painter", overwrite=args.overwrite)
    folder.write_config(config.to_json())
    started = time.perf_counter()
    synthetic = abstractions.generate(args.synthetic_procedures, seed=args.seed) if args.synthetic_procedures else []
    procedures = real + [s.procedure for s in synthetic]
    vocabulary = text_vocabulary(args.encoder, [text for p in procedures for text in p.texts])
    mechanisms = {s.procedure.index: s.mechanisms for s in synthetic}
    data = Examples.concatenate(
        [examples(real, vocabulary, config.layout), examples([s.procedure for s in synthetic], vocabulary, config.layout, mechanisms)]
    )
    print(
        f"{len(real)} released + {len(synthetic)} synthetic procedures: {len(data)} steps, vocabulary {len(vocabulary)}, "
        f"prepared in {time.perf_counter() - started:.1f} s; training for at most {args.minutes:g} min",
        flush=True,
    )
    painter, _ = train(config, vocabulary, data, examples(dev, vocabulary, config.layout), folder, quiet=args.quiet)
    painter.save(folder.path)
    from baselines.plots import painter_curve

    curve = painter_curve(folder.path)
    print(f"saved {folder.finish()} ({curve.name})")


if __name__ == "__main__":
    main()
