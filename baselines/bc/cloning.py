"""Behavioural cloning: the PPO baselines' policies trained on demonstrations (see ``baselines.bc``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from jax import Array

from baselines.bc.config import BCConfig
from baselines.networks import task_network
from baselines.worlds import cli
from baselines.worlds.task import Task


@struct.dataclass
class Demos:
    """Replayed demonstrations, time-major: world (T, N, *F) float32 features, text (T, N) int32
    instruction ids, mask (T, N, A) bool feasible actions, action (T, N) int32 demonstrated actions,
    valid (T, N) bool (False past each episode's end)."""

    world: Array
    text: Array
    mask: Array
    action: Array
    valid: Array

    @property
    def episodes(self) -> int:
        return self.action.shape[1]

    def take(self, ids: Array) -> Demos:
        """The episodes ``ids`` (K,)."""
        return jax.tree.map(lambda x: x[:, ids], self)


def load_demos(folder: str | Path) -> tuple[list[Path], list]:
    """(paths, episodes) of every episode file under ``folder``, sorted; raises ``EpisodeError``
    naming the file for an unreadable one or one of another world or split than the first."""
    from baselines.worlds.episode import EpisodeError, load

    paths = sorted(Path(folder).rglob("*.npz"))
    if not paths:
        raise EpisodeError(f"{folder}: no episode files (*.npz) to learn from")
    episodes = [load(p) for p in paths]
    first = episodes[0].meta["world"]
    for path, episode in zip(paths, episodes):
        if episode.meta["world"] != first:
            raise EpisodeError(
                f"{path}: field world {episode.meta['world']} differs from {paths[0]}'s {first}; clone one world and split at a time"
            )
        if len(episode) == 0:
            raise EpisodeError(f"{path}: field actions is empty")
    return paths, episodes


def length_buckets(lengths: list[int], shortest: int = 8) -> dict[int, list[int]]:
    """Padded length -> ids of the episodes padded to it: the next power of two of each length (at
    least ``shortest``), so padding at most doubles the work and only a few shapes compile."""
    buckets: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        buckets.setdefault(max(shortest, 1 << (n - 1).bit_length()), []).append(i)
    return dict(sorted(buckets.items()))


def replay_demos(task: Task, paths: list[Path], episodes: list) -> list[Demos]:
    """The observations of ``episodes`` (recorded in ``task``'s world), one ``Demos`` per
    ``length_buckets`` bucket, by exact replay (``baselines.worlds.replay``: the recording's own
    compiled step, one episode at a time, since a batched replay is not bitwise the same
    computation); raises ``ReplayMismatch`` naming the file where a reward, a flag or the final
    state differs from the recording."""
    from baselines.worlds.replay import ReplayMismatch, replay

    observe = jax.jit(jax.vmap(jax.vmap(task.observe)))
    observed = []
    for path, e in zip(paths, episodes):
        try:
            observed.append(replay(e, keep_states=True).observations[:-1])
        except ReplayMismatch as error:
            raise ReplayMismatch(f"{path}: {error}") from None
    demos = []
    for length, ids in length_buckets([len(e) for e in episodes]).items():
        padded = [observed[i] + observed[i][-1:] * (length - len(observed[i])) for i in ids]
        seen = observe(
            jax.tree.map(
                lambda *x: np.stack(x).reshape(len(ids), length, *x[0].shape).swapaxes(0, 1),
                *[obs for episode in padded for obs in episode],
            )
        )
        actions = np.zeros((length, len(ids)), np.int32)
        for j, i in enumerate(ids):
            actions[: len(episodes[i]), j] = episodes[i].actions
        valid = np.arange(length)[:, None] < np.asarray([len(episodes[i]) for i in ids])[None]
        demos.append(Demos(seen.world.astype(jnp.float32), seen.text, seen.mask, jnp.asarray(actions), jnp.asarray(valid)))
    return demos


class BehaviouralCloning:
    """A policy of ``baselines.networks`` cloned from ``Demos`` of ``task``'s world."""

    def __init__(self, config: BCConfig, task: Task, instruction_table: np.ndarray, progress: bool = False):
        config.validate()
        self.config, self.task, self.progress = config, task, progress
        self.bar = cli.Bar(config.epochs, "epoch", "BC")
        self.instructions = jnp.asarray(instruction_table, jnp.float32)
        self.network = task_network(config.network, task)
        self.optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.lr))

    def init(self, key: Array, demos: Demos) -> tuple[Any, Any]:
        """(params, optimizer state) for a network that reads ``demos``."""
        one = demos.take(jnp.arange(1))
        params = self.network.init(key, self.network.initial_hidden(1), *self._inputs(one))
        return params, self.optimizer.init(params)

    def _inputs(self, demos: Demos) -> tuple:
        reset = jnp.zeros(demos.action.shape, bool).at[0].set(True)
        return demos.world, self.instructions[demos.text], None, reset, demos.mask

    def sums(self, params, demos: Demos) -> tuple[Array, Array, Array]:
        """Over the valid steps of ``demos``: (summed negative log-likelihood of the demonstrated
        actions, how many of them are the most likely action, how many steps)."""
        _, pi, _ = self.network.apply(params, self.network.initial_hidden(demos.episodes), *self._inputs(demos))
        weight = demos.valid.astype(jnp.float32)
        return -(pi.log_prob(demos.action) * weight).sum(), ((pi.logits.argmax(-1) == demos.action) * weight).sum(), weight.sum()

    def loss(self, params, demos: Demos) -> tuple[Array, Array]:
        """(mean negative log-likelihood, accuracy) per valid step of ``demos``."""
        nll, correct, steps = self.sums(params, demos)
        return nll / jnp.maximum(steps, 1.0), correct / jnp.maximum(steps, 1.0)

    def score(self, params, buckets: list[Demos]) -> tuple[Array, Array]:
        """``loss`` over every valid step of several buckets."""
        nll, correct, steps = (sum(parts) for parts in zip(*(self.sums(params, d) for d in buckets)))
        return nll / jnp.maximum(steps, 1.0), correct / jnp.maximum(steps, 1.0)

    def train(self, params, opt_state, key: Array, train: list[Demos], held_out: list[Demos]) -> tuple[Any, Any, dict]:
        """``config.epochs`` epochs (one ``lax.scan``; jit it): each goes through the buckets of
        ``train`` in turn, the episodes of each in a random order, in minibatches of at most
        ``batch_episodes`` (the remainder of the order is left out that epoch). Returns params,
        optimizer state and per-epoch metrics (epochs,): loss and accuracy (mean over the epoch's
        minibatches) and, with ``held_out`` buckets, val_loss and val_accuracy."""
        grad = jax.value_and_grad(self.loss, has_aux=True)

        def minibatches(carry, demos: Demos, key: Array):
            size = min(self.config.batch_episodes, demos.episodes)
            order = jax.random.permutation(key, demos.episodes)[: demos.episodes // size * size].reshape(-1, size)

            def minibatch(carry, ids):
                params, opt_state = carry
                (nll, accuracy), grads = grad(params, demos.take(ids))
                updates, opt_state = self.optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), (nll, accuracy)

            return jax.lax.scan(minibatch, carry, order)

        def epoch(carry, inputs):
            index, key = inputs
            train_carry, best = carry
            nll, accuracy = [], []
            for b, demos in enumerate(train):
                train_carry, (bucket_nll, bucket_accuracy) = minibatches(train_carry, demos, jax.random.fold_in(key, b))
                nll.append(bucket_nll)
                accuracy.append(bucket_accuracy)
            params = train_carry[0]
            metrics = {"epoch": index + 1, "loss": jnp.concatenate(nll).mean(), "accuracy": jnp.concatenate(accuracy).mean()}
            if held_out:
                metrics["val_loss"], metrics["val_accuracy"] = self.score(params, held_out)
                better = metrics["val_loss"] < best[1]
                best = jax.tree.map(lambda new, old: jnp.where(better, new, old), (params, metrics["val_loss"], index + 1), best)
            else:
                best = (params, best[1], index + 1)
            if self.progress:
                jax.debug.callback(self._report, metrics)
            return (train_carry, best), metrics

        keys = jax.random.split(key, self.config.epochs)
        start = ((params, opt_state), (params, jnp.float32(jnp.inf), jnp.int32(0)))
        ((_, opt_state), (best, _, best_epoch)), metrics = jax.lax.scan(epoch, start, (jnp.arange(self.config.epochs), keys))
        return best, opt_state, {**metrics, "best_epoch": best_epoch}

    def _report(self, metrics: dict) -> None:
        m = {k: float(v) for k, v in metrics.items()}
        held = f"  validation loss {m['val_loss']:.4f} accuracy {m['val_accuracy']:.3f}" if "val_loss" in m else ""
        self.bar.advance(int(m["epoch"]), f"loss {m['loss']:.4f}  accuracy {m['accuracy']:.3f}{held}")


def split_held_out(episodes: int, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(training ids, held-out ids) of ``episodes`` demonstrations: a seeded random ``fraction``
    held out (at least one when the fraction is > 0 and there are two or more episodes)."""
    order = np.random.default_rng(seed).permutation(episodes)
    held = 0 if fraction == 0 or episodes < 2 else max(1, int(round(fraction * episodes)))
    return np.sort(order[held:]), np.sort(order[:held])
