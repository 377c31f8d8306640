"""Board-based and action-based metrics of the Hexagons paper (Lachmy et al., TACL 2022, sec. 5).

A board is an int array (..., 180) of colour codes 0..7 (0 = white / blank). Two sets of
``(tile, colour)`` pairs are compared per drawing step:

* board-based: ``{(i, b[i]) : b[i] != 0}`` of the gold board after the step vs the predicted board
  after the step;
* action-based: ``{(i, after[i]) : after[i] != before[i]}``, the step's changes (erasures kept as
  ``(i, 0)``), gold ``before``/``after`` vs the predicted ``before``/``after``.

Per step: ``P = |G & H| / |H|``, ``R = |G & H| / |G|``, ``F1 = 2PR / (P + R)``, ``EM = [G == H]``; when
exactly one set is empty, P = R = F1 = EM = 0.

**Both sets empty** (the paper gives no rule): the step scores 1 on P, R, F1 and EM. This is the
``"one"`` convention and the default; ``mean_scores(..., convention="exclude")`` instead drops those
steps from every average. A do-nothing predictor gets 0 under ``"exclude"`` and the fraction of
empty-gold steps (0.7-2.5% of a split) under ``"one"``.

Every function takes NumPy or JAX arrays with any leading batch shape and returns JAX arrays.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
from jax import Array
from jax.typing import ArrayLike


class StepScores(NamedTuple):
    """Per-step scores, each shaped like the batch; ``both_empty`` marks steps scored by convention."""

    precision: Array
    recall: Array
    f1: Array
    exact_match: Array
    both_empty: Array


def scores_from_counts(matched: ArrayLike, num_gold: ArrayLike, num_pred: ArrayLike) -> StepScores:
    """Scores from set sizes: ``matched = |G & H|``, ``num_gold = |G|``, ``num_pred = |H|``."""
    matched = jnp.asarray(matched, jnp.float32)
    num_gold = jnp.asarray(num_gold, jnp.float32)
    num_pred = jnp.asarray(num_pred, jnp.float32)
    both_empty = (num_gold == 0) & (num_pred == 0)
    precision = jnp.where(num_pred > 0, matched / jnp.maximum(num_pred, 1.0), 0.0)
    recall = jnp.where(num_gold > 0, matched / jnp.maximum(num_gold, 1.0), 0.0)
    f1 = jnp.where(matched > 0, 2.0 * matched / jnp.maximum(num_gold + num_pred, 1.0), 0.0)
    exact = (matched == num_gold) & (matched == num_pred)
    one = jnp.float32(1.0)
    return StepScores(
        precision=jnp.where(both_empty, one, precision),
        recall=jnp.where(both_empty, one, recall),
        f1=jnp.where(both_empty, one, f1),
        exact_match=jnp.where(both_empty, one, exact.astype(jnp.float32)),
        both_empty=both_empty,
    )


def _compare(gold_in: Array, gold_colour: Array, pred_in: Array, pred_colour: Array) -> StepScores:
    matched = gold_in & pred_in & (gold_colour == pred_colour)
    return scores_from_counts(matched.sum(-1), gold_in.sum(-1), pred_in.sum(-1))


def board_scores(gold_board: ArrayLike, pred_board: ArrayLike) -> StepScores:
    """Board-based scores of boards (..., 180) after the step."""
    gold, pred = jnp.asarray(gold_board), jnp.asarray(pred_board)
    return _compare(gold != 0, gold, pred != 0, pred)


def action_scores(gold_before: ArrayLike, gold_after: ArrayLike, pred_before: ArrayLike, pred_after: ArrayLike) -> StepScores:
    """Action-based scores of the changes ``before -> after`` (boards (..., 180))."""
    gold_before, gold_after = jnp.asarray(gold_before), jnp.asarray(gold_after)
    pred_before, pred_after = jnp.asarray(pred_before), jnp.asarray(pred_after)
    return _compare(gold_after != gold_before, gold_after, pred_after != pred_before, pred_after)


def mean_scores(scores: StepScores, convention: str = "one") -> dict[str, float]:
    """Macro average over all steps, in percent, as the paper reports.

    ``convention="one"`` keeps empty/empty steps (scored 1); ``"exclude"`` drops them.
    """
    if convention not in ("one", "exclude"):
        raise ValueError(f"unknown convention {convention!r}: use 'one' or 'exclude'")
    weight = jnp.ones_like(scores.f1)
    if convention == "exclude":
        weight = jnp.where(scores.both_empty, 0.0, 1.0)
    total = jnp.maximum(weight.sum(), 1.0)
    return {
        name: float(100.0 * (getattr(scores, name) * weight).sum() / total) for name in ("precision", "recall", "f1", "exact_match")
    } | {"steps": int(weight.sum())}
