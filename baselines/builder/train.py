"""Teacher-forced training, greedy decoding in the JAX blocks world, and the training loop.

Loss: cross entropy of every gold action (and the final STOP) over the actions feasible in the
world at that step (``blocksworld.env.feasible_actions``, the gold action always kept: decoding
masks infeasible actions too, so the model need not learn them), averaged over target steps.
The world features of step t come from the start grid with the first t gold actions applied.

Greedy decoding (``Decoder``) starts the blocks-world env (``blocksworld.env``) at each item, and at
every step re-encodes the env's grid, masks infeasible actions with ``env.action_mask``, takes the
argmax and steps the env, for at most ``max_actions`` actions (the env is absorbing after STOP).
What is scored is the env's final grid: what a Builder executing the actions would build.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training import train_state
from jax import Array

from baselines.builder import CHECKPOINTS, EMBEDDINGS, MODELS, SELECT, WORLDS
from baselines.builder.data import CORPUS_COPIES, Examples, batches, step_buckets
from baselines.builder.model import BuilderModel, advance, world_features
from baselines.worlds.checkpoints import Checkpoints, RunFolder
from blocksworld import curriculum as curricula
from blocksworld import metrics
from blocksworld.env import BlocksWorld, feasible_actions, inventory_of, stack_params
from blocksworld.grid import STOP
from blocksworld.tokenizer import SPECIAL, Vocabulary

CURRICULUM_KEYS = {"dataset": curricula.dataset_rank, "actions": curricula.action_length, "input": curricula.input_length}
"""Difficulty keys of BAP v2 sec. 6.2 (a curriculum key is one of these or a comma-separated tuple)."""


@dataclass
class TrainConfig:
    """Settings of a training run (saved as ``config.json``). ``max_actions``: decoding cap (10 on
    the corpus alone, 20 with synthetic data, as in the paper); ``minutes``: wall-clock budget
    (the run stops after the epoch that passes it); ``patience``: early stopping after this many
    epochs without a better ``select`` metric (one of ``SELECT``, which also chooses the best params);
    ``plateau_decay``: the learning rate is multiplied by this after every epoch of the final phase
    without a better dev loss of the online params (1: constant); ``text_tokens``: word pieces of the frozen encoder
    (transformer); ``num_buckets``: curriculum buckets; ``world_encoder``: the world encoder (``set`` or
    ``cnn``, ``baselines.builder.model``); ``text_attention``: the GRU decoder attends over the dialogue
    encoder's token states at every step; ``builder_frame``: the set encoder also reads each cell's neighbours
    in the Builder's frame (``baselines.builder.model.builder_frame_neighbours``); ``corpus_copies``: augmented
    copies of each corpus train item (3: the paper's 4x data); ``dropout``: the rate of word dropout and of
    dropout on the decoder states and world cells in training (``BuilderModel``; 0: none); ``ema``: the
    decay per step of an exponential moving average of the params (``AveragedState.average``), which the
    dev metrics score, ``select`` chooses and ``best/`` keeps (0: the params themselves)."""

    model: str = "gru"
    world_encoder: str = "set"
    synthetic: bool = False
    curriculum: str = ""
    num_buckets: int = 5
    max_actions: int = 10
    batch_size: int = 32
    lr: float = 1e-3
    plateau_decay: float = 1.0
    weight_decay: float = 0.1
    max_epochs: int = 100
    patience: int = 10
    select: str = "dev_loss"
    minutes: float = 50.0
    max_tokens: int = 100
    text_tokens: int = 128
    seed: int = 0
    embeddings: str = field(default="minilm")
    text_attention: bool = False
    builder_frame: bool = False
    corpus_copies: int = CORPUS_COPIES
    dropout: float = 0.0
    ema: float = 0.0

    @classmethod
    def from_saved(cls, saved: dict) -> TrainConfig:
        """The settings of a run's ``config.json``; runs saved before ``world_encoder`` existed used the CNN."""
        return cls(**{"world_encoder": "cnn", **saved})

    def validate(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model={self.model!r}: use one of {', '.join(MODELS)}")
        if self.world_encoder not in WORLDS:
            raise ValueError(f"world_encoder={self.world_encoder!r}: use one of {', '.join(WORLDS)}")
        for name in ("num_buckets", "max_actions", "batch_size", "max_epochs", "patience", "max_tokens", "text_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if isinstance(self.corpus_copies, bool) or not isinstance(self.corpus_copies, int) or self.corpus_copies < 0:
            raise ValueError(f"corpus_copies must be an int >= 0, got {self.corpus_copies!r}")
        for name in ("lr", "minutes"):
            value = getattr(self, name)
            if not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        if self.select not in SELECT:
            raise ValueError(f"select={self.select!r}: use one of {', '.join(SELECT)}")
        if not 0 < self.plateau_decay <= 1:
            raise ValueError(f"plateau_decay must be in (0, 1], got {self.plateau_decay!r}")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout!r}")
        if not 0 <= self.ema < 1:
            raise ValueError(f"ema must be in [0, 1), got {self.ema!r}")
        if not math.isfinite(self.weight_decay) or self.weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay!r}")
        if self.curriculum:
            curriculum_key(self.curriculum)
        if self.text_attention and self.model != "gru":
            raise ValueError(f"text_attention is a GRU decoder option; model={self.model!r} attends to the text already")
        if self.builder_frame and self.world_encoder != "set":
            raise ValueError(f"builder_frame is a set encoder option; world_encoder={self.world_encoder!r}")
        if self.embeddings not in EMBEDDINGS:
            raise ValueError(f"embeddings={self.embeddings!r}: use one of {', '.join(EMBEDDINGS)}")


def curriculum_key(name: str) -> Callable:
    """The difficulty key of ``dataset``, ``actions``, ``input`` or a comma-separated tuple of them."""
    parts = [p.strip() for p in name.split(",")]
    unknown = [p for p in parts if p not in CURRICULUM_KEYS]
    if unknown or not parts:
        raise ValueError(f"curriculum key {name!r}: use {', '.join(CURRICULUM_KEYS)} or a comma-separated tuple of them")
    keys = [CURRICULUM_KEYS[p] for p in parts]
    return keys[0] if len(keys) == 1 else (lambda item: tuple(k(item) for k in keys))


# ----------------------------------------------------------------------------- inputs
def text_inputs(config: TrainConfig, examples: Examples, encoder=None) -> dict[str, np.ndarray]:
    """What the model reads of the dialogue: word ids (gru) or frozen token states (transformer)."""
    if config.model == "gru":
        return {"tokens": examples.tokens}
    states, mask = encoder.token_states(examples.texts, config.text_tokens)
    return {"states": states, "mask": mask}


def word_vectors(vocabulary: Vocabulary, seed: int) -> np.ndarray | None:
    """(V, 384) word embeddings: MiniLM's word-piece embeddings averaged per word (GloVe's
    stand-in), random for the special tokens; None when the MiniLM weights are not installed.
    ``Builder.init`` starts the GRU's embedding table from their first columns."""
    from baselines.text_encoders import MiniLM

    try:
        encoder = MiniLM()
    except ImportError:
        return None
    vectors = encoder.word_vectors(vocabulary.words)
    rng = np.random.default_rng(seed)
    special = len(SPECIAL)
    vectors[:special] = rng.normal(0, vectors[special:].std(), (special, vectors.shape[1]))
    vectors[0] = 0.0
    return vectors


def _world_steps(starts: Array, ages: Array, poses: Array, targets: Array, steps: int) -> tuple[Array, Array]:
    """World features (B, T, 11, 9, 11, 11) and feasibility (B, T, 7624) after each gold prefix."""

    def one(start, age, pose, codes):
        def body(carry, code):
            grid, age = carry
            feats = world_features(grid, age, pose)
            feasible = feasible_actions(grid, inventory_of(grid))
            return advance(grid, age, code), (feats, feasible)

        _, out = jax.lax.scan(body, (start, age.astype(jnp.int32)), codes[:steps])
        return out

    return jax.vmap(one)(starts, ages, poses, targets)


# ----------------------------------------------------------------------------- the model state
class AveragedState(train_state.TrainState):
    """Flax's train state plus ``average``: the exponential moving average of the params
    (``TrainConfig.ema``; without it the state is Flax's, as in runs saved before it existed)."""

    average: Any


def evaluated_params(state: train_state.TrainState) -> Any:
    """The params the dev metrics score and ``best/`` keeps: the average if the run keeps one."""
    return state.average if isinstance(state, AveragedState) else state.params


class Builder:
    """A model and its jitted training step, loss and decoder (shared compiled functions)."""

    def __init__(self, config: TrainConfig, vocab_size: int):
        config.validate()
        self.config = config
        self.model = BuilderModel(
            config.model,
            vocab_size=vocab_size,
            max_steps=max(32, config.max_actions + 1),
            world_encoder=config.world_encoder,
            text_attention=config.text_attention,
            builder_frame=config.builder_frame,
            dropout=config.dropout,
        )
        self.optimizer = optax.chain(optax.clip_by_global_norm(5.0), optax.adamw(config.lr, weight_decay=config.weight_decay))
        self._train_step = jax.jit(self._step, static_argnums=2)
        self._eval_loss = jax.jit(self._loss, static_argnums=2)

    def init(self, text: dict[str, np.ndarray], examples: Examples, embeddings: np.ndarray | None = None) -> train_state.TrainState:
        batch = self._batch(text, examples, np.arange(min(2, len(examples))))
        features, _ = _world_steps(batch["starts"], batch["ages"], batch["poses"], batch["targets"], 2)
        previous = jnp.full((features.shape[0], 2), -1)
        params = self.model.init(jax.random.key(self.config.seed), batch["text"], previous, features)
        if embeddings is not None:
            table = params["params"]["decoder"]["embed"]["embedding"]
            params["params"]["decoder"]["embed"]["embedding"] = jnp.asarray(embeddings[:, : table.shape[1]], table.dtype)
        if self.config.ema:
            return AveragedState.create(apply_fn=self.model.apply, params=params, tx=self.optimizer, average=params)
        return train_state.TrainState.create(apply_fn=self.model.apply, params=params, tx=self.optimizer)

    @staticmethod
    def _batch(text: dict[str, np.ndarray], examples: Examples, index: np.ndarray) -> dict:
        return {
            "text": {k: jnp.asarray(v[index]) for k, v in text.items()},
            "starts": jnp.asarray(examples.starts[index]),
            "ages": jnp.asarray(examples.ages[index]),
            "poses": jnp.asarray(examples.poses[index]),
            "targets": jnp.asarray(examples.targets[index]),
            "lengths": jnp.asarray(examples.lengths[index]),
        }

    def _loss(self, params, batch: dict, steps: int, dropout_key: Array | None = None) -> tuple[Array, Array]:
        """(mean cross entropy per target step, number of target steps) of a batch padded to ``steps``;
        with a ``dropout_key`` the model runs in training mode (``TrainConfig.dropout``)."""
        targets = batch["targets"][:, :steps]
        features, feasible = _world_steps(batch["starts"], batch["ages"], batch["poses"], targets, steps)
        previous = jnp.concatenate([jnp.full((targets.shape[0], 1), -1), targets[:, :-1]], 1)
        train = dropout_key is not None
        logits = self.model.apply(params, batch["text"], previous, features, train, rngs={"dropout": dropout_key} if train else {})
        gold = jnp.maximum(targets, 0)
        allowed = feasible | jax.nn.one_hot(gold, logits.shape[-1], dtype=bool)
        logits = jnp.where(allowed, logits, -1e9)
        nll = -jnp.take_along_axis(jax.nn.log_softmax(logits), gold[..., None], -1)[..., 0]
        valid = jnp.arange(steps)[None] < batch["lengths"][:, None]
        count = valid.sum()
        return (nll * valid).sum() / jnp.maximum(count, 1), count

    def _step(self, state: train_state.TrainState, batch: dict, steps: int, lr_scale: Array):
        dropout_key = jax.random.fold_in(jax.random.key(self.config.seed), state.step)  # a resumed run draws the same masks
        (loss, count), grads = jax.value_and_grad(self._loss, has_aux=True)(state.params, batch, steps, dropout_key)
        updates, opt_state = self.optimizer.update(grads, state.opt_state, state.params)
        params = optax.apply_updates(state.params, jax.tree.map(lambda u: lr_scale * u, updates))  # AdamW's step, decay included
        if isinstance(state, AveragedState):  # the decay warms up as (1 + t) / (10 + t): early params do not linger
            decay = jnp.minimum(self.config.ema, (1.0 + state.step) / (10.0 + state.step))
            state = state.replace(average=jax.tree.map(lambda a, p: decay * a + (1 - decay) * p, state.average, params))
        return state.replace(step=state.step + 1, params=params, opt_state=opt_state), loss, count

    def train_step(self, state, text, examples: Examples, index: np.ndarray, steps: int, lr_scale: float = 1.0):
        """One AdamW step on the items ``index`` padded to ``steps`` target steps, at ``lr_scale`` x ``lr``."""
        return self._train_step(state, self._batch(text, examples, index), steps, jnp.float32(lr_scale))

    def loss(self, params, text, examples: Examples, batch_size: int = 64) -> float:
        """Mean cross entropy per target step over ``examples`` (dev loss)."""
        total, count = 0.0, 0
        buckets = step_buckets(self.config.max_actions)
        for index, steps in batches(examples.lengths, batch_size, buckets, np.random.default_rng(0)):
            batch = self._batch(text, examples, np.resize(index, batch_size))  # one shape per bucket
            batch["lengths"] = jnp.where(jnp.arange(batch_size) < len(index), batch["lengths"], 0)  # repeats count nothing
            value, n = self._eval_loss(params, batch, steps)
            total += float(value) * float(n)
            count += float(n)
        return total / max(count, 1.0)


# ----------------------------------------------------------------------------- greedy decoding
@dataclass(frozen=True)
class View:
    """The items of a decoding as a transformed copy of them (``blocksworld.augment``) presents
    them: their examples, each model's text inputs, and ``codes`` (7624,) int32, per action code
    the code of the same action in the copy (``augment.action_codes``)."""

    examples: Examples
    text: tuple[dict, ...]
    codes: np.ndarray


class Decoder:
    """Greedy decoding through the blocks-world env of a Builder model, or of an ensemble of them,
    optionally over several views of each item (each step's argmax of the mean log-probability
    over members and views of the feasible actions), in fixed-size jitted batches; a batch stops
    once each of its items has stopped (most emit 1 or 2 of up to ``max_actions``)."""

    def __init__(self, builders: Builder | Sequence[Builder], max_actions: int, batch_size: int = 128):
        self.ensemble = not isinstance(builders, Builder)
        self.builders = tuple(builders) if self.ensemble else (builders,)
        self.max_actions, self.batch_size = max_actions, batch_size
        max_tokens = self.builders[0].config.max_tokens  # token ids come with the items; the env only steps the grid
        self.env = BlocksWorld(Vocabulary([]), max_tokens=max_tokens)
        self._run = jax.jit(self._decode)

    def _decode(self, params: tuple, text: tuple, env_params: tuple, ages: tuple, stop_bias: Array, codes: Array) -> tuple[Array, Array]:
        """``text``, ``env_params`` and ``ages``: per view (the first: the items themselves);
        ``codes`` (V, 7624): each view's code of every action code."""
        env = self.env
        n = ages[0].shape[0]
        states = tuple(jax.vmap(env.reset_to_item, in_axes=(0, None))(jnp.arange(n), p)[1] for p in env_params)
        contexts = [[b.model.apply(p, t, method=b.model.context) for b, p, t in zip(self.builders, params, view)] for view in text]
        previous = jnp.full((len(states), n, self.max_actions + 1), -1)

        def running(carry) -> Array:
            t, states, _, _ = carry
            return (t < self.max_actions) & ~states[0].done.all()

        def body(carry):
            t, states, ages, previous = carry
            masks, scores = [], []
            for v, (state, age, view_contexts) in enumerate(zip(states, ages, contexts)):
                features = jax.vmap(world_features)(state.grid, age, state.pose)
                masks.append(jax.vmap(env.action_mask, in_axes=(0, None))(state, env_params[v]))
                for b, p, c in zip(self.builders, params, view_contexts):
                    logits = b.model.apply(p, c, previous[v], t, features, method=b.model.step_logits)
                    scores.append(jax.nn.log_softmax(jnp.where(masks[v], logits, -1e9))[:, codes[v]])
            mean = sum(scores[1:], scores[0]) / len(scores)
            mean = mean.at[:, STOP].add(stop_bias)
            action = jnp.where(states[0].done, STOP, jnp.argmax(jnp.where(masks[0], mean, -jnp.inf), -1))
            keys = jax.random.split(jax.random.key(0), n)
            stepped, aged = [], []
            for v, (state, age) in enumerate(zip(states, ages)):
                view_action = codes[v][action]
                stepped.append(jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(keys, state, view_action, env_params[v])[1])
                aged.append(jax.vmap(advance)(stepped[-1].grid, age, view_action)[1])
                previous = previous.at[v, :, t + 1].set(view_action)
            return t + 1, tuple(stepped), tuple(aged), previous

        carry = (jnp.int32(0), states, tuple(a.astype(jnp.int32) for a in ages), previous)
        _, states, _, previous = jax.lax.while_loop(running, body, carry)
        return states[0].grid, jnp.where(previous[0, :, 1:] < 0, STOP, previous[0, :, 1:])  # steps not taken: every item had stopped

    def __call__(
        self,
        params,
        text: dict[str, np.ndarray] | Sequence[dict],
        examples: Examples,
        stop_bias: float = 0.0,
        views: Sequence[View] = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """Predicted end grids (N, 11, 9, 11) int8 and action codes (N, max_actions) (STOP after the end).
        ``params`` and ``text``: the model's, or when the decoder was made from a sequence of models,
        sequences of the members' in that order (each reads the items with its own vocabulary); ``stop_bias`` is added to the STOP
        log-probability at every step (below 0: longer action sequences); ``views``: more views of
        the same N items, each with its members' text in the same order."""
        params, text = (tuple(params), tuple(text)) if self.ensemble else ((params,), (text,))
        views = (View(examples, text, np.arange(STOP + 1, dtype=np.int32)), *views)
        if len(params) != len(self.builders) or any(len(view.text) != len(self.builders) for view in views):
            raise ValueError(f"a decoder of {len(self.builders)} models takes that many params and text inputs (in every view)")
        if any(len(view.examples) != len(examples) for view in views):
            raise ValueError(f"every view holds the same {len(examples)} items")
        codes = jnp.asarray(np.stack([view.codes for view in views]))
        grids, actions = [], []
        for start in range(0, len(examples), self.batch_size):
            index = np.resize(np.arange(start, min(start + self.batch_size, len(examples))), self.batch_size)
            parts = [view.examples.take(index) for view in views]
            env_params = tuple(stack_params(p.starts, p.ends, p.poses, p.tokens, max_steps_in_episode=self.max_actions + 1) for p in parts)
            batch_text = tuple(tuple({k: jnp.asarray(v[index]) for k, v in member.items()} for member in view.text) for view in views)
            ages = tuple(jnp.asarray(p.ages) for p in parts)
            grid, code = self._run(params, batch_text, env_params, ages, jnp.float32(stop_bias), codes)
            keep = min(self.batch_size, len(examples) - start)
            grids.append(np.asarray(grid)[:keep])
            actions.append(np.asarray(code)[:keep])
        return np.concatenate(grids), np.concatenate(actions)


def score(examples: Examples, predicted: np.ndarray, align: np.ndarray | None = None) -> dict:
    """``blocksworld.metrics.summarize`` of predicted end grids against the examples' references."""
    counts = metrics.item_counts(examples.starts, predicted, examples.ends, align=align)
    return metrics.summarize(counts, examples.empty_board)


def dev_f1(examples: Examples, predicted: np.ndarray, corpus_items: int = 0) -> dict[str, float]:
    """Strict and fairer micro F1 (%) of the predicted end grids (N, 11, 9, 11) over all dev items
    (``dev_strict_f1``, ``dev_fairer_f1``) and, when ``corpus_items`` > 0, over the first
    ``corpus_items``, the corpus's (``dev_corpus_strict_f1``, ``dev_corpus_fairer_f1``)."""
    parts = {"dev": len(examples)} | ({"dev_corpus": corpus_items} if corpus_items else {})
    summaries: dict[int, dict] = {}  # a corpus-only dev set is scored once
    f1 = {}
    for name, count in parts.items():
        if count not in summaries:
            summaries[count] = score(examples.take(np.arange(count)), predicted[:count])["all"]
        f1 |= {f"{name}_strict_f1": summaries[count]["strict"]["micro_f1"], f"{name}_fairer_f1": summaries[count]["fairer"]["micro_f1"]}
    return f1


# ----------------------------------------------------------------------------- the training loop
def _stages(config: TrainConfig, items: list, seed: int) -> list[np.ndarray]:
    """Item orders of the curriculum stages (one epoch each; empty without a curriculum)."""
    if not config.curriculum:
        return []
    key = curriculum_key(config.curriculum)
    return [np.asarray(s) for s in curricula.curriculum(range(len(items)), lambda i: key(items[i]), config.num_buckets, seed)[:-1]]


def _progress(
    epoch: int, best_loss: float, bad_epochs: int, seconds: float, lr_scale: float = 1.0, select: int = 0, best: float | None = None
) -> dict[str, np.ndarray]:
    """The loop's own state, saved with the train state: epochs done, best dev loss, epochs since
    the selection metric improved (final phase), training seconds so far, the learning rate's
    factor (``plateau_decay``), the selection metric (index in ``SELECT``) and its best value so far
    (lower is better: F1 negated; the best dev loss when it selects by dev loss). With ``ema`` the
    best dev loss (``plateau_decay``'s) is the online params', the selection metric the average's."""
    return {
        "epoch": np.asarray(epoch, np.int32),
        "best_loss": np.asarray(best_loss, np.float32),
        "bad_epochs": np.asarray(bad_epochs, np.int32),
        "seconds": np.asarray(seconds, np.float64),
        "lr_scale": np.asarray(lr_scale, np.float32),
        "select": np.asarray(select, np.int32),
        "best": np.asarray(best_loss if best is None else best, np.float32),
    }


def _restore(
    checkpoints: Checkpoints, state: train_state.TrainState, progress: dict, set_aside: bool = True
) -> tuple[train_state.TrainState, dict] | None:
    """(train state, progress) of the latest readable checkpoint (``Checkpoints.latest``), None
    without one; a step saved before ``plateau_decay`` and ``select`` existed has a constant rate and
    selects by dev loss."""
    earlier = {k: progress[k] for k in ("epoch", "best_loss", "bad_epochs", "seconds")}
    found = checkpoints.latest({"state": state, "progress": progress}, {"state": state, "progress": earlier}, set_aside=set_aside)
    if found is None:
        return None
    _, form, restored = found
    p = restored["progress"]
    if form == 1:
        p = _progress(int(p["epoch"]), float(p["best_loss"]), int(p["bad_epochs"]), float(p["seconds"]))
    return restored["state"], p


def fit(
    builder: Builder,
    folder: RunFolder,
    train: tuple[list, Examples, dict],
    dev: tuple[Examples, dict],
    embeddings: np.ndarray | None = None,
    log: Callable[[str], None] = print,
    quiet: bool = False,
    corpus_dev_items: int = 0,
) -> dict:
    """Train until early stopping, ``max_epochs`` or the time budget, checkpointing every epoch
    under ``checkpoints/`` of the run's folder (resumes from there) and the best params by
    ``config.select`` under ``best/`` (a resumed run with another ``select`` chooses afresh from
    its next epoch); appends a row per epoch to ``metrics.jsonl`` (``lr``: the epoch's learning
    rate; ``seconds``: wall-clock seconds of the run so far; ``cpu_seconds``: CPU seconds of the
    epoch, all threads; ``online_dev_loss``: with ``ema``, the online params' dev loss beside the
    average's ``dev_loss``) and logs it; a progress bar over each epoch's batches unless ``quiet``.
    The first ``corpus_dev_items`` dev items are the corpus's (``dev_f1``). Returns the last row."""
    config = builder.config
    if config.select.startswith("dev_corpus_") and not corpus_dev_items:
        raise ValueError(f"select={config.select!r} needs the corpus's dev items; the run has none")
    items, examples, text = train
    dev_examples, dev_text = dev
    state = builder.init(text, examples, embeddings)
    select = SELECT.index(config.select)
    progress = _progress(0, np.inf, 0, 0.0, select=select)
    checkpoints, best = folder.checkpoints(keep=2), folder.checkpoints(keep=1, name="best")
    resumed = _restore(checkpoints, state, progress)
    if resumed is not None:
        state, progress = resumed
        log(f"resumed from {checkpoints.folder} after epoch {int(progress['epoch'])}")
        if int(progress["select"]) != select:
            log(f"the best params are chosen by {config.select} from the next epoch on")
            afresh = {"select": np.asarray(select, np.int32), "best": np.asarray(np.inf, np.float32), "bad_epochs": np.asarray(0, np.int32)}
            progress = {**progress, **afresh}
    epochs = _Epochs(builder, text, examples, _stages(config, items, config.seed), quiet)
    decoder = Decoder(builder, config.max_actions)
    row: dict = {}
    with folder.metrics("epoch", int(progress["epoch"]) if folder.resumed else None) as write:  # rows past the checkpoint go
        while int(progress["epoch"]) < config.max_epochs and float(progress["seconds"]) < 60 * config.minutes:
            epoch, clock, cpu_clock = int(progress["epoch"]), time.perf_counter(), time.process_time()
            state, losses, trained = epochs.train(state, epoch, float(progress["lr_scale"]))
            train_seconds = time.perf_counter() - clock
            evaluated = evaluated_params(state)
            dev_loss = builder.loss(evaluated, dev_text, dev_examples)
            predicted, _ = decoder(evaluated, dev_text, dev_examples)
            scores = {"dev_loss": dev_loss, **dev_f1(dev_examples, predicted, corpus_dev_items)}
            if isinstance(state, AveragedState):  # the rate follows the online params: averaging leaves their path as it was
                scores["online_dev_loss"] = builder.loss(state.params, dev_text, dev_examples)
            lr_scale = float(progress["lr_scale"])
            progress, improved = _next_progress(config, progress, scores, epoch >= len(epochs.stages), time.perf_counter() - clock)
            row = {
                "epoch": epoch + 1,
                "lr": config.lr * lr_scale,
                "train_loss": float(np.mean(losses)),
                **scores,
                "items_per_second": trained / train_seconds,
                "seconds": float(progress["seconds"]),
                "cpu_seconds": time.process_time() - cpu_clock,
                "stage": min(epoch + 1, len(epochs.stages) + 1) if epochs.stages else 0,
            }
            write(row)
            log(
                f"epoch {epoch + 1}: train loss {row['train_loss']:.3f}, dev loss {dev_loss:.3f}, dev F1 strict "
                f"{row['dev_strict_f1']:.1f} / fairer {row['dev_fairer_f1']:.1f}, {row['seconds'] / 60:.1f} min in all"
                + (f" (best {config.select.replace('_', ' ')} so far)" if improved else "")
            )
            if improved:
                best.save(epoch + 1, evaluated)
            checkpoints.save(epoch + 1, {"state": state, "progress": progress})
            if int(progress["bad_epochs"]) >= config.patience:
                log(f"early stop: {config.select.replace('_', ' ')} has not improved for {config.patience} epochs")
                break
    checkpoints.close()
    best.close()
    return row


class _Epochs:
    """The training epochs of ``fit``: each a pass over the training items in length buckets, in the
    order of its curriculum stage (``stages``; the whole set shuffled after them), with a progress bar
    over the batches unless ``quiet``."""

    def __init__(self, builder: Builder, text: dict, examples: Examples, stages: list, quiet: bool):
        self.builder, self.text, self.examples, self.stages, self.quiet = builder, text, examples, stages, quiet
        self.buckets = step_buckets(builder.config.max_actions)
        self.shapes_seen: set[int] = set()

    def train(self, state: Any, epoch: int, lr_scale: float) -> tuple[Any, list[float], int]:
        """(state, the batches' losses, items trained on) after epoch ``epoch`` (from 0)."""
        from baselines.worlds.cli import progress as progress_bar

        rng = np.random.default_rng(self.builder.config.seed + epoch)
        order = self.stages[epoch] if epoch < len(self.stages) else None
        chunks = list(batches(self.examples.lengths, self.builder.config.batch_size, self.buckets, rng, order))
        losses, seen, clock = [], 0, time.perf_counter()
        with progress_bar(total=len(chunks), desc=f"epoch {epoch + 1}", unit="batch", silent=self.quiet) as bar:
            for k, (index, steps) in enumerate(chunks):
                if steps not in self.shapes_seen:  # a new batch shape compiles first (a minute or more on a CPU)
                    bar.set_postfix_str(f"compiling the training step for batches of {steps} steps", refresh=True)
                    self.shapes_seen.add(steps)
                state, loss, _ = self.builder.train_step(state, self.text, self.examples, index, steps, lr_scale)
                losses.append(float(loss))
                seen += len(index)
                bar.update()
                if (k + 1) % 50 == 0 or k + 1 == len(chunks):
                    bar.set_postfix_str(f"{seen / (time.perf_counter() - clock):.0f} items/s  loss {np.mean(losses[-50:]):.3f}")
        return state, losses, len(self.examples if order is None else order)


def _next_progress(config: TrainConfig, progress: dict, scores: dict, final_phase: bool, seconds: float) -> tuple[dict, bool]:
    """(the loop's state after an epoch with dev ``scores`` that took ``seconds``, whether the
    selection metric improved). In the final phase (after the curriculum's stages) an epoch whose
    selection metric does not improve counts towards ``patience``, and one whose online dev loss
    does not improve multiplies the rate by ``plateau_decay``."""
    select = int(progress["select"])
    value = scores[config.select] if config.select == "dev_loss" else -scores[config.select]  # lower is better
    improved = value < float(progress["best"])
    online_loss = scores.get("online_dev_loss", scores["dev_loss"])
    loss_improved = online_loss < float(progress["best_loss"])
    lr_scale = float(progress["lr_scale"])
    return _progress(
        int(progress["epoch"]) + 1,
        min(online_loss, float(progress["best_loss"])),
        0 if improved or not final_phase else int(progress["bad_epochs"]) + 1,
        float(progress["seconds"]) + seconds,
        lr_scale if loss_improved or not final_phase else lr_scale * config.plateau_decay,
        select,
        min(value, float(progress["best"])),
    ), improved


def load_params(builder: Builder, out: Path, text: dict, examples: Examples, checkpoint: str = "best") -> tuple[Any, int]:
    """The params of the run in ``out`` and their epoch: those of the best epoch by the run's ``select``
    metric (``checkpoint="best"``), or those the dev metrics scored at its latest epoch (``"latest"``: the
    average with ``ema``), from ``checkpoints/``, which a committed model folder does not keep."""
    if checkpoint not in CHECKPOINTS:
        raise ValueError(f"checkpoint={checkpoint!r}: expected one of {CHECKPOINTS}")
    saved = Checkpoints(out, name="best" if checkpoint == "best" else "checkpoints", create=False)  # a model folder is left as it is
    if not saved.steps():
        raise SystemExit(
            f"error: no trained model in {saved.folder}; train first"
            if checkpoint == "best"
            else f"error: no checkpoints in {saved.folder}: a committed model keeps best/ alone; evaluate it with --checkpoint best"
        )
    state = jax.eval_shape(lambda: builder.init(text, examples))  # the structure to restore into, nothing computed
    if checkpoint == "best":
        epoch, _, params = saved.latest(state.params, set_aside=False)
        return params, epoch
    state, progress = _restore(saved, state, _progress(0, np.inf, 0, 0.0), set_aside=False)
    return evaluated_params(state), int(progress["epoch"])
