"""Training and evaluating the painter.

Training: cross entropy per tile with the changed tiles weighted ``paint_weight`` times (most
tiles of a step are left alone), AdamW with warm-up and gradient clipping, minibatches of steps
drawn from the released train split plus ``synthetic`` generated procedures
(``hexagons.abstractions``); the gold board before each step is the input (teacher forcing). After
every epoch the dev split is scored (oracle board, action F1) and the best params are kept; training
stops after ``minutes`` or ``epochs``.

Evaluation, the paper's settings (sec. 6): the board the painter sees is the gold board before the
step (``oracle``) or its own board from the previous steps (``predicted``); the context is fixed
by the model's ``history``. Action- and board-based P / R / F1 / EM (``hexagons.metrics``, macro
over steps, in percent, empty-empty steps scored 1), overall and per group (the mechanism of a
synthetic step, the procedure's category for the released data).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

from baselines.painter.data import TEXTS, Examples, Layout, WordPieces, apply, examples, hints, number_table
from baselines.painter.model import PainterNet
from baselines.text_encoders import minilm_bert, minilm_weights
from baselines.worlds.checkpoints import RunFolder, restore_params, save_params
from baselines.worlds.cli import progress
from hexagons.geometry import NUM_TILES
from hexagons.metrics import action_scores, board_scores, mean_scores
from hexagons.procedure import Procedure
from hexagons.tokenizer import Vocabulary

BATCH_EVAL = 256


@dataclass(frozen=True)
class Config:
    """Network, token layout and optimisation settings of a run."""

    width: int = 96
    heads: int = 4
    text_layers: int = 1
    tile_layers: int = 2
    layout: Layout = field(default_factory=Layout)
    batch: int = 32
    lr: float = 1e-3
    warmup: int = 300
    decay: bool = False
    paint_weight: float = 5.0
    epochs: int = 200
    minutes: float = 45.0
    synthetic: int = 0
    hints: bool = False
    text: str = "learned"
    text_lr: float = 1e-4
    seed: int = 0

    def __post_init__(self):
        for name, ok, need in (
            ("minutes", self.minutes > 0, "> 0"),
            ("epochs", self.epochs >= 1, ">= 1"),
            ("batch", self.batch >= 1, ">= 1"),
            ("synthetic", self.synthetic >= 0, ">= 0"),
            ("width", self.width % self.heads == 0 and self.width > 0, f"a positive multiple of heads ({self.heads})"),
            ("text", self.text in TEXTS, f"one of {', '.join(TEXTS)}"),
            ("text_layers", self.text_layers >= 0 if self.text == "learned" else 0 < self.text_layers <= 6, ">= 0, 1..6 for minilm"),
        ):
            if not ok:
                raise ValueError(f"{name} must be {need}, got {getattr(self, name)}")

    def model(self, vocabulary_size: int) -> PainterNet:
        return PainterNet(
            vocabulary_size, self.layout.tokens, self.width, self.heads, self.text_layers, self.tile_layers, self.hints, self.text
        )

    def vocabulary(self, run: Path) -> Vocabulary | WordPieces:
        """The token ids of a run saved with this config: MiniLM's word pieces, or ``run/vocabulary.json``."""
        return WordPieces() if self.text == "minilm" else Vocabulary.load(run / "vocabulary.json")

    def optimizer(self, total_steps: int = 0) -> optax.GradientTransformation:
        """AdamW with linear warm-up and gradient clipping, then a constant rate or (``decay``) a
        linear decay to 0 at ``total_steps``; the pretrained MiniLM layers at ``text_lr``."""

        def adamw(lr: float) -> optax.GradientTransformation:
            warmup = optax.linear_schedule(0.0, lr, self.warmup)
            after = optax.linear_schedule(lr, 0.0, max(1, total_steps - self.warmup)) if self.decay else optax.constant_schedule(lr)
            return optax.adamw(optax.join_schedules([warmup, after], [self.warmup]), weight_decay=0.01)

        def labels(params):
            return jax.tree_util.tree_map_with_path(lambda path, _: "text" if "minilm" in jax.tree_util.keystr(path) else "rest", params)

        rates = {"rest": adamw(self.lr), "text": adamw(self.text_lr)}
        return optax.chain(optax.clip_by_global_norm(1.0), optax.multi_transform(rates, labels))

    def initial_variables(self, vocabulary_size: int) -> tuple[dict, dict]:
        """(params, constants): fresh ``{"params": ...}`` (the MiniLM layers pretrained) and the
        frozen collections (``{"pretrained": ...}``, MiniLM's word-piece table; else empty)."""
        variables = dict(self.model(vocabulary_size).init(jax.random.key(self.seed), *_dummy(self)))
        params = {"params": variables.pop("params")}
        if self.text == "minilm":
            bert = minilm_bert(self.text_layers, self.layout.tokens, pooled=False, frozen_words=True)
            weights = minilm_weights(bert)
            params["params"]["minilm"] = weights["params"]
            variables = {"pretrained": {"minilm": weights["pretrained"]}}
        return params, variables

    def to_json(self) -> dict:
        """What a run's ``config.json`` holds: the settings and the run's ``kind``."""
        return {"kind": "painter", **asdict(self)}

    @classmethod
    def from_json(cls, data: dict) -> Config:
        """The config saved in a run's ``config.json`` (its ``kind`` and an ``export`` record beside it are skipped)."""
        return cls(**{**{k: v for k, v in data.items() if k not in ("kind", "export")}, "layout": Layout(**data["layout"])})


class Painter:
    """A trained painter: its config, vocabulary, params and frozen ``constants`` (MiniLM's word-piece
    table, loaded from its package; not saved); ``classes`` predicts per tile."""

    def __init__(self, config: Config, vocabulary: Vocabulary | WordPieces, params, constants: dict):
        self.config, self.vocabulary, self.params, self.constants = config, vocabulary, params, constants
        self.model = config.model(len(vocabulary))
        inputs = network_inputs(config, vocabulary)
        self._forward = jax.jit(
            lambda params, tokens, board, hint: jnp.argmax(self.model.apply({**params, **constants}, *inputs(tokens), board, hint), -1)
        )

    def classes(self, tokens: np.ndarray, before: np.ndarray, rule: np.ndarray) -> np.ndarray:
        """(N, 180) predicted classes for token rows (N, T), boards (N, 180) and the rule
        baseline's paints (N, 180), in batches of ``BATCH_EVAL`` (a smaller rest padded to a power
        of two from 16: a few compilations, little padding)."""
        out = []
        hint = hints(rule, before)
        for s in range(0, len(tokens), BATCH_EVAL):
            t, b, h = tokens[s : s + BATCH_EVAL], before[s : s + BATCH_EVAL], hint[s : s + BATCH_EVAL]
            pad = min(BATCH_EVAL, max(16, 1 << (len(t) - 1).bit_length())) - len(t)
            t, b, h = (np.concatenate([x, np.zeros((pad, x.shape[1]), x.dtype)]) for x in (t, b, h))
            out.append(np.asarray(self._forward(self.params, jnp.asarray(t), jnp.asarray(b, jnp.int32), jnp.asarray(h)))[: len(t) - pad])
        return np.concatenate(out) if out else np.zeros((0, before.shape[1]), np.int32)

    def save(self, run: Path) -> None:
        """``vocabulary.json`` (a learned vocabulary) and the params (``params/``, orbax) in ``run``,
        beside the ``config.json`` (``Config.to_json``) its ``RunFolder`` wrote."""
        if isinstance(self.vocabulary, Vocabulary):
            self.vocabulary.save(run / "vocabulary.json")
        save_params(run, self.params)

    @classmethod
    def load(cls, run: Path) -> Painter:
        """The painter saved in ``run``."""
        run = Path(run)
        if not (run / "config.json").is_file():
            raise ValueError(f"{run}: not a painter run (no config.json)")
        config = Config.from_json(json.loads((run / "config.json").read_text()))
        vocabulary = config.vocabulary(run)
        template, constants = config.initial_variables(len(vocabulary))
        return cls(config, vocabulary, restore_params(run, template), constants)


def network_inputs(config: Config, vocabulary: Vocabulary | WordPieces):
    """tokens (B, T) -> (tokens, numbers, segments), the network's text inputs (traceable)."""
    numbers, segments = jnp.asarray(number_table(vocabulary)), jnp.asarray(config.layout.segments())
    return lambda tokens: (tokens, numbers[tokens], jnp.broadcast_to(segments, tokens.shape))


def _dummy(config: Config) -> tuple:
    tokens, board = jnp.zeros((1, config.layout.tokens), jnp.int32), jnp.zeros((1, NUM_TILES), jnp.int32)
    return tokens, tokens, tokens, board, board


def scores(
    gold_before: np.ndarray, gold_after: np.ndarray, pred_before: np.ndarray, pred_after: np.ndarray, group: np.ndarray | None = None
) -> dict:
    """Action- and board-based scores (percent), overall and per group."""

    def both(index):
        action = mean_scores(action_scores(gold_before[index], gold_after[index], pred_before[index], pred_after[index]))
        board = mean_scores(board_scores(gold_after[index], pred_after[index]))
        return {"action": action, "board": board}

    out = {"all": both(np.arange(len(gold_before)))}
    if group is not None:
        for name in sorted(set(group.tolist())):
            out[name] = both(np.flatnonzero(group == name))
    return out


def evaluate(painter: Painter, procedures: list[Procedure], mechanisms: dict | None = None) -> dict:
    """The ``oracle`` and ``predicted`` board settings on ``procedures`` (``scores`` of each), and
    the blind control: the oracle setting with every step given another step's instruction."""
    data = examples(procedures, painter.vocabulary, painter.config.layout, mechanisms)
    oracle = apply(data.before, painter.classes(data.tokens, data.before, data.rule))
    results = {"oracle": scores(data.before, data.after, data.before, oracle, data.group)}
    other = np.roll(np.arange(len(data)), len(data) // 2)  # each step gets the instruction (and its context) of another
    shuffled = apply(data.before, painter.classes(data.tokens[other], data.before, data.rule[other]))
    results["oracle, another step's instruction"] = scores(data.before, data.after, data.before, shuffled, data.group)
    predicted_before, predicted_after = np.zeros_like(data.before), np.zeros_like(data.after)
    boards = np.zeros((len(procedures), data.before.shape[1]), np.int8)  # each procedure's board so far
    for step in range(1, int(data.step.max()) + 1):
        rows = np.flatnonzero(data.step == step)
        before = boards[data.procedure[rows]]
        after = apply(before, painter.classes(data.tokens[rows], before, data.rule[rows]))
        predicted_before[rows], predicted_after[rows] = before, after
        boards[data.procedure[rows]] = after
    results["predicted"] = scores(data.before, data.after, predicted_before, predicted_after, data.group)
    return results


def train(
    config: Config, vocabulary: Vocabulary | WordPieces, data: Examples, dev: Examples, folder: RunFolder, quiet: bool = False
) -> tuple[Painter, list[dict]]:
    """Train on ``data``, keep the params with the best dev action F1 (oracle board), write the
    folder's ``metrics.jsonl`` as it goes (a progress bar over the epochs unless ``quiet``); returns the
    painter and the per-epoch metrics."""
    if len(data) < config.batch:
        raise ValueError(f"{len(data)} training steps, fewer than one minibatch of {config.batch}")
    model = config.model(len(vocabulary))
    params, constants = config.initial_variables(len(vocabulary))
    optimizer = config.optimizer(config.epochs * (len(data) // config.batch))
    state = optimizer.init(params)
    inputs = network_inputs(config, vocabulary)

    @jax.jit
    def step(params, state, tokens, before, hint, targets):
        def loss_fn(params):
            logits = model.apply({**params, **constants}, *inputs(tokens), before, hint)
            weight = jnp.where(targets > 0, config.paint_weight, 1.0)
            losses = optax.softmax_cross_entropy_with_integer_labels(logits, targets)
            return jnp.sum(losses * weight) / jnp.sum(weight)

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    targets, hint = data.targets, hints(data.rule, data.before)
    rng = np.random.default_rng(config.seed)
    painter = Painter(config, vocabulary, params, constants)
    best, history = (-1.0, params), []
    started = time.monotonic()
    bar = progress(total=config.epochs, desc="painter", unit="epoch", silent=quiet)
    with folder.metrics() as write:
        for epoch in range(1, config.epochs + 1):
            order = rng.permutation(len(data))
            losses = []
            for s in range(0, len(order) - config.batch + 1, config.batch):
                index = order[s : s + config.batch]
                batch = (data.tokens[index], data.before[index].astype(np.int32), hint[index], targets[index])
                params, state, loss = step(params, state, *map(jnp.asarray, batch))
                losses.append(loss)
            painter.params = params
            predicted = apply(dev.before, painter.classes(dev.tokens, dev.before, dev.rule))
            dev_scores = scores(dev.before, dev.after, dev.before, predicted)["all"]["action"]
            minutes = (time.monotonic() - started) / 60
            row = {
                "epoch": epoch,
                "loss": float(np.mean(jax.device_get(losses))),
                "dev_action_f1": dev_scores["f1"],
                "dev_action_em": dev_scores["exact_match"],
                "minutes": round(minutes, 2),
            }
            history.append(row)
            write(row)
            if row["dev_action_f1"] > best[0]:
                best = (row["dev_action_f1"], params)
            bar.update()
            bar.set_postfix_str(
                f"loss {row['loss']:.4f}  dev action F1 {row['dev_action_f1']:.2f} EM {row['dev_action_em']:.2f}  "
                f"best {best[0]:.2f}  {minutes:.1f} of {config.minutes:g} min"
            )
            if minutes >= config.minutes:
                break
    bar.close()
    painter.params = best[1]
    return painter, history
