"""Evaluation of Builder runs in the layout of BAP v2's tables, beside two floors.

Test sets: the corpus split (``MDC``; the legacy test set, or with ``--annotations`` the v2 clean
test set, ``blocksworld.annotations``) and each simulator's test split (``RND``, ``BLK``, ``SHP``;
``data.SYNTHETIC_EVAL_ITEMS``). Each is scored for the run's best model (greedy decoding in the env),
the same model reading another item's dialogue in the item's own world (``BLIND``, a blind control:
what the model builds from the world alone; ``another_items_text``) and two floors: ``empty``
(predict STOP at once) and ``copy last action`` (repeat the game's previous action: same kind and
colour, in the feasible cell nearest to it; STOP when the game has none).

Several runs are scored as an ensemble (``Decoder``: each step's argmax of the members' mean
log-probabilities); each member reads the dialogue with its own vocabulary. Greedy decoding may add
a bias to the STOP log-probability (``stop_bias``; below 0 the model emits more actions).
``tune_stop_bias`` chooses it on the dev split, the corpus's dev items when the run has the corpus,
from ``STOP_BIASES``; model and blind control are then decoded with it.

Test-time views (``views``): each item is also decoded as ``views - 1`` colour-permuted copies of it
(``colour_permutation``, ``blocksworld.augment.permute_colours``: blocks, history and the chat's
colour words), and every step takes the argmax of the mean log-probability over members and views,
each view's actions read back in the item's own colours.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from baselines import plots
from baselines.builder import data as builder_data
from baselines.builder.model import advance
from baselines.builder.train import Builder, Decoder, TrainConfig, View, dev_f1, load_params, score, text_inputs
from baselines.worlds.cli import write_atomic
from blocksworld import annotations as v2
from blocksworld import augment
from blocksworld.data import load_items
from blocksworld.env import feasible_actions, inventory_of
from blocksworld.grid import ACTIONS_PER_CELL, NUM_CELLS, NUM_COLOURS, SHAPE, STOP
from blocksworld.tokenizer import Vocabulary

SIMULATOR_TEST_SETS = {"random": "RND", "blocks": "BLK", "shapes": "SHP"}
BLIND = "another item's dialogue"
POLICIES = ("model", BLIND, "empty", "copy last action")
COLUMNS = (
    ("type", "Type"),
    ("colour", "Colour"),
    ("location", "Location"),
    ("shape", "Shape"),
    ("fairer", "Fairer F1"),
    ("strict", "Strict F1"),
)
STOP_BIASES = tuple(np.arange(-3.0, 1.01, 0.5).round(1).tolist())
"""STOP log-probability biases that ``tune_stop_bias`` tries (0: plain greedy decoding)."""


@jax.jit
@jax.vmap
def copy_last_action(start: jax.Array, last: jax.Array) -> jax.Array:
    """End grid (11, 9, 11) of the copy-last-action floor for a start grid and the game's previous
    action code (-1: none)."""
    cell, k = jnp.divmod(jnp.maximum(last, 0), ACTIONS_PER_CELL)
    feasible = feasible_actions(start, inventory_of(start))[:-1].reshape(NUM_CELLS, ACTIONS_PER_CELL)[:, k]
    cells = jnp.stack(jnp.unravel_index(jnp.arange(NUM_CELLS), SHAPE), -1)
    distance = ((cells - jnp.stack(jnp.unravel_index(cell, SHAPE))) ** 2).sum(-1)
    choice = jnp.argmin(jnp.where(feasible, distance, jnp.iinfo(jnp.int32).max))
    code = jnp.where((last >= 0) & feasible.any(), choice * ACTIONS_PER_CELL + k, -1)
    return advance(start, jnp.zeros(SHAPE, jnp.int32), code)[0]


def another_items_text(text: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each item's text inputs (leading axis: items) replaced by those of the item half the set
    away: another game's in the corpus, whose items follow game order."""
    return {name: np.roll(value, len(value) // 2, axis=0) for name, value in text.items()}


def colour_permutation(view: int) -> list[int]:
    """The colour permutation of test-time view ``view`` (``augment.permute_colours``): the identity for
    view 0, else a shuffle seeded by ``view``."""
    permutation = list(range(1, NUM_COLOURS + 1))
    if view:
        random.Random(view).shuffle(permutation)
    return permutation


def _blind(view: View) -> View:
    return replace(view, text=tuple(another_items_text(t) for t in view.text))


def _summaries(examples: builder_data.Examples, predicted: np.ndarray, blind: np.ndarray, align: np.ndarray | None) -> dict:
    floors = {"empty": examples.starts, "copy last action": np.asarray(copy_last_action(examples.starts, examples.last_action))}
    grids = {"model": predicted, BLIND: blind, **floors}
    return {policy: score(examples, grids[policy], align) for policy in POLICIES}


@dataclass(frozen=True)
class Member:
    """A trained run as evaluation reads it: its saved record (``config.json``), settings,
    vocabulary, model and frozen text encoder (transformer runs)."""

    run: Path
    record: dict
    config: TrainConfig
    vocabulary: Vocabulary
    builder: Builder
    encoder: object | None

    @classmethod
    def load(cls, run: Path) -> Member:
        record = json.loads((run / "config.json").read_text())
        config = TrainConfig.from_saved(record["config"])
        vocabulary = Vocabulary.load(run / "vocabulary.json")
        encoder = None
        if config.model == "transformer":
            from baselines.text_encoders import MiniLM

            encoder = MiniLM()
        return cls(run, record, config, vocabulary, Builder(config, len(vocabulary)), encoder)

    def model_inputs(self, items: list, examples: builder_data.Examples) -> dict[str, np.ndarray]:
        """What this run's model reads of the items (``examples``: theirs): word ids in its own vocabulary,
        or frozen token states."""
        own = replace(examples, tokens=builder_data.tokens(items, self.vocabulary, self.config.max_tokens))
        return text_inputs(self.config, own, self.encoder)


def test_items(
    data: str | None, split: str, annotations: Path | None, log: Callable[[str], None], synthetic_items: int | None = None
) -> dict[str, tuple[list, list, np.ndarray | None]]:
    """Per test set its items, the items of the same games its earlier actions are looked up in, and
    the fairer metric's alignment mask (None: empty-board items); ``synthetic_items`` per simulator
    (default ``data.SYNTHETIC_EVAL_ITEMS[split]``), the same for every run."""
    out = {}
    notes = v2.read_annotations(annotations) if annotations is not None else None  # a malformed file fails first
    if data:
        items = load_items(data, (split,))[split]
        context = items
        align = None
        name = f"MDC {split}"
        if notes is not None:
            clean = v2.clean_test_set(items, notes)
            log(
                f"BAP v2 clean {split} set: {len(clean.items)} of {len(items)} items ({clean.dropped_unclear} unclear and "
                f"{clean.dropped_incorrect} unfixable dropped, {clean.fixed} fixed)"
            )
            items, align, name = clean.items, np.asarray(clean.multiple, bool), f"MDC v2 {split}"
        out[name] = (items, context, align)
    for simulator, short in SIMULATOR_TEST_SETS.items():
        out[short] = (builder_data.synthetic_items(simulator, split, synthetic_items or builder_data.SYNTHETIC_EVAL_ITEMS[split]), [], None)
    return out


def tuning_items(data: str | None) -> list:
    """The dev items a STOP bias is chosen on: the corpus's (``data``), else the simulators'."""
    return load_items(data, ("dev",))["dev"] if data else builder_data.simulated_dev_items(list(SIMULATOR_TEST_SETS))


def tune_stop_bias(
    decoder: Decoder, params: list, text: list[dict], examples: builder_data.Examples, metric: str, views: Sequence[View] = ()
) -> dict:
    """Greedy decoding of ``examples`` (and their ``views``) at each of ``STOP_BIASES`` (``params`` and
    ``text``: each member's); per bias the strict and fairer micro F1 (%) and the mean number of actions emitted;
    ``value``: the bias of the best ``metric`` (``strict`` or ``fairer``), the one nearest 0 among ties."""
    sweep = []
    for bias in STOP_BIASES:
        grids, codes = decoder(params, text, examples, bias, views)
        f1 = dev_f1(examples, grids)
        actions = float((codes != STOP).sum(1).mean())
        sweep.append({"bias": bias, "strict": f1["dev_strict_f1"], "fairer": f1["dev_fairer_f1"], "actions": actions})
    best = max(sweep, key=lambda row: (row[metric], -abs(row["bias"])))
    return {"metric": metric, "items": len(examples), "value": best["bias"], "sweep": sweep}


def evaluate_run(
    runs: Sequence[Path],
    data: Path | None,
    split: str,
    annotations: Path | None,
    out: Path,
    log: Callable[[str], None] = print,
    synthetic_items: int | None = None,
    stop_bias: float = 0.0,
    tune: str | None = None,
    views: int = 1,
    checkpoint: str | Sequence[str] = "best",
) -> dict:
    """Score a run's model (``runs``: one run folder), or the ensemble of several runs' models (``Decoder``), and
    the floors on every test set (``synthetic_items``: see ``test_items``), decoding with
    ``stop_bias``, or with the bias ``tune_stop_bias`` chooses on the dev split by ``tune`` (``strict``
    or ``fairer``), each item in ``views`` test-time views; each run's params of its best or latest
    epoch (``checkpoint``: one for every run, alone or in a sequence, or one per run; ``train.load_params``); writes
    ``evaluation.json`` (with each run's ``checkpoint`` and ``epoch``) and ``evaluation.png`` into
    ``out`` (a folder)."""
    checkpoints = [checkpoint] if isinstance(checkpoint, str) else list(checkpoint)
    checkpoints *= len(runs) if len(checkpoints) == 1 else 1
    if len(checkpoints) != len(runs):
        raise ValueError(f"{len(checkpoints)} checkpoints for {len(runs)} runs: give one for every run or one per run")
    members = [Member.load(Path(run)) for run in runs]
    data = str(data) if data else next((m.record["data"] for m in members if m.record["data"]), None)
    decoder = Decoder([m.builder for m in members], max(m.config.max_actions for m in members))
    sets = test_items(data, split, annotations, log, synthetic_items)
    if len(members) == 1:
        result = {"run": str(members[0].run), "config": members[0].record}
    else:
        result = {"run": ensemble_name([m.run for m in members]), "ensemble": [{"run": str(m.run), "config": m.record} for m in members]}
    result |= {"split": split, "stop_bias": stop_bias, "views": views, "test_sets": {}}

    def read(items: list, context: list = ()) -> tuple[builder_data.Examples, list[dict], list[View]]:
        """The items' examples (grids, in the first member's shapes), every member's text inputs and
        the items' further test-time views."""
        first = members[0].config

        def view(items: list, context: list) -> tuple[builder_data.Examples, list[dict]]:
            examples = builder_data.examples(items, members[0].vocabulary, first.max_actions, first.max_tokens, context=context)
            return examples, [m.model_inputs(items, examples) for m in members]

        more = []
        for number in range(1, views):
            permutation = colour_permutation(number)
            examples, text = view(*([augment.permute_colours(i, permutation) for i in part] for part in (items, context)))
            more.append(View(examples, tuple(text), augment.action_codes(permutation, 0)))
        return (*view(items, context), more)

    inputs = {name: (*read(items, context), align) for name, (items, context, align) in sets.items()}
    examples, text, _, _ = next(iter(inputs.values()))
    params, epochs = zip(*(load_params(m.builder, m.run, t, examples, c) for m, t, c in zip(members, text, checkpoints)))
    for entry, which, epoch in zip(result.get("ensemble", [result]), checkpoints, epochs):
        entry |= {"checkpoint": which, "epoch": epoch}
    if tune:
        examples, text, more = read(tuning_items(data))
        result["stop_bias_tuning"] = tuning = tune_stop_bias(decoder, params, text, examples, tune, more)
        result["stop_bias"] = stop_bias = tuning["value"]
        log(f"STOP bias {stop_bias:+g}: the best dev {tune} F1 of {len(STOP_BIASES)} biases on {len(examples)} dev items")
    for name, (examples, text, more, align) in inputs.items():
        predicted, _ = decoder(params, text, examples, stop_bias, more)
        blind, _ = decoder(params, [another_items_text(t) for t in text], examples, stop_bias, [_blind(v) for v in more])
        result["test_sets"][name] = {"items": len(examples), **_summaries(examples, predicted, blind, align)}
        log(f"{name}: {len(examples)} items, fairer F1 {result['test_sets'][name]['model']['all']['fairer']['micro_f1']:.1f}")
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "evaluation.json", json.dumps(result, indent=1))
    plot_evaluation(out, result)
    return result


def ensemble_name(runs: Sequence[Path]) -> str:
    """The name of an ensemble of run folders: their folder names joined by ``+`` (one run: its folder name)."""
    return "+".join(Path(run).resolve().name for run in runs)


def format_tables(result: dict) -> str:
    """Markdown tables: per test set, micro and macro F1 by EB / NEB / all (BAP v2 Tables 1-2,
    with the floors), then fairer micro F1 per test set (Table 4); first the STOP bias sweep, if tuned."""
    lines = []
    tuning = result.get("stop_bias_tuning")
    if tuning:
        lines += [
            f"\nSTOP bias chosen by dev {tuning['metric']} F1 ({tuning['items']} dev items): {tuning['value']:+g}\n",
            "| STOP bias | strict F1 | fairer F1 | actions per item |",
            "|---:|---:|---:|---:|",
            *(f"| {r['bias']:+g} | {r['strict']:.1f} | {r['fairer']:.1f} | {r['actions']:.2f} |" for r in tuning["sweep"]),
        ]
    for name, scores in result["test_sets"].items():
        for average in ("micro", "macro"):
            lines += [
                f"\n{name} ({scores['items']} items), {average} F1 (%)\n",
                "| subset | policy | " + " | ".join(title for _, title in COLUMNS) + " |",
                "|---|---|" + "---:|" * len(COLUMNS),
            ]
            for subset in ("EB", "NEB", "all"):
                for policy in POLICIES:
                    row = scores[policy][subset]
                    lines.append(
                        f"| {subset} ({row['fairer']['items']}) | {policy} | "
                        + " | ".join(f"{row[m][average + '_f1']:.1f}" for m, _ in COLUMNS)
                        + " |"
                    )
    names = list(result["test_sets"])
    lines += ["\nFairer micro F1 (%) per test set\n", "| policy | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for policy in POLICIES:
        lines.append(
            f"| {policy} | " + " | ".join(f"{result['test_sets'][n][policy]['all']['fairer']['micro_f1']:.1f}" for n in names) + " |"
        )
    return "\n".join(lines)


def plot_evaluation(out: Path, result: dict) -> Path:
    """``out/evaluation.png``: fairer and strict micro F1 of the model, its blind control and the
    floors per test set."""
    plt = plots.pyplot()
    names = list(result["test_sets"])
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=True)
    width = 0.8 / len(POLICIES)
    for ax, metric in zip(axes, ("fairer", "strict")):
        for k, policy in enumerate(POLICIES):
            values = [result["test_sets"][n][policy]["all"][metric]["micro_f1"] for n in names]
            ax.bar(np.arange(len(names)) + (k - (len(POLICIES) - 1) / 2) * width, values, width, label=policy)
        ax.set_xticks(np.arange(len(names)), names)
        ax.set(title=f"{metric} micro F1 (%)")
    axes[0].legend()
    return plots.save(fig, out / "evaluation.png", Path(result["run"]).name)


def plot_learning_curve(run: Path) -> Path:
    """``learning_curve.png`` from ``metrics.jsonl``: train / dev loss (and the online params' dev loss with
    ``--ema``) and dev F1 per epoch."""
    plt = plots.pyplot()
    rows = plots.metrics_rows(run)
    epochs = [r["epoch"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
    left.plot(epochs, [r["train_loss"] for r in rows], label="train")
    averaged = "online_dev_loss" in rows[-1]  # train --ema: the params the optimiser moves, beside their average
    left.plot(epochs, [r["dev_loss"] for r in rows], label="dev (averaged params)" if averaged else "dev")
    if averaged:
        left.plot(epochs, [r["online_dev_loss"] for r in rows], label="dev (online params)", linestyle=":")
    left.set(xlabel="epoch", ylabel="cross entropy per action", title="loss")
    left.legend()
    right.plot(epochs, [r["dev_strict_f1"] for r in rows], label="strict")
    right.plot(epochs, [r["dev_fairer_f1"] for r in rows], label="fairer")
    right.set(xlabel="epoch", ylabel="micro F1 (%)", title="dev F1 (greedy decoding)")
    right.legend()
    return plots.save(fig, run / "learning_curve.png", run.name)


def plot_comparison(runs: list[Path], out: Path) -> Path:
    """A PNG at ``out`` of several runs' dev loss and dev strict / fairer F1 (``metrics.jsonl``)
    against the training minutes each had: runs compared at equal time on one machine."""
    return plots.comparison(
        runs,
        out,
        lambda row: row["seconds"] / 60,
        [
            ("dev loss", "dev cross entropy per action", [("dev_loss", "")]),
            ("dev F1 (greedy decoding)", "micro F1 (%)", [("dev_strict_f1", " strict"), ("dev_fairer_f1", " fairer")]),
        ],
    )
