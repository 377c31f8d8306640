"""BAP v2 metrics (Jayannavar et al., sec. 2.4 and 4), vectorised in JAX over items.

Structures are int8 grids (..., 11, 9, 11) (``blocksworld.grid``). An item is scored from its start
structure, the predicted end structure (the prediction replayed on the start, infeasible actions
as no-ops) and the reference end structure. Only **net actions** count: placements
``(place, colour, cell)`` for blocks in end but not in start, removals ``(remove, colour, cell)``
for blocks in start but not in end (a recolour is one of each); a place and its inverse cancel.

Metrics, each as (matched, predicted, reference) counts per item:

* ``strict``: net actions equal in type, colour and cell.
* ``fairer``: strict, after aligning the predicted structure of an **empty-board item** to the
  reference by the horizontal translation and rotation by a multiple of 90 degrees about the
  vertical axis that keeps it inside the build region and minimises the net-action distance
  (ties keep the prediction as it is). Other items are scored strictly.
* ``type``, ``colour``, ``location``: multiset overlap of the (fairer-aligned) net actions' types,
  (type, colour) pairs and cells.
* ``shape``: strict, after aligning the predicted net actions to the reference net actions by any
  3D translation and rotation by a multiple of 90 degrees about the vertical axis, for every item.

``summarize`` gives micro (counts summed over items) and macro (mean of per-item scores)
precision / recall / F1 for all items and the empty-board (EB) / non-empty-board (NEB) subsets.
An item whose predicted and reference net-action sets are both empty scores 1.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array
from jax.typing import ArrayLike

from blocksworld.grid import NUM_COLOURS, SHAPE, Action, apply_action, to_grid

METRICS = ("strict", "fairer", "type", "colour", "location", "shape")
_XZ = (-3, -1)  # grid axes of x and z


def net_channels(start: Array, end: Array) -> Array:
    """(..., 12, 11, 9, 11) bool: channels 0-5 place colour 1-6, channels 6-11 remove colour 1-6."""
    colours = jnp.arange(1, NUM_COLOURS + 1, dtype=jnp.int8).reshape((NUM_COLOURS, 1, 1, 1))
    start, end = start[..., None, :, :, :], end[..., None, :, :, :]
    place = (end == colours) & (start != end)
    remove = (start == colours) & (start != end)
    return jnp.concatenate([place, remove], axis=-4)


def _overlap(pred: Array, gold: Array, axes: tuple[int, ...]) -> Array:
    """(matched, predicted, reference) of count arrays: matched = sum of elementwise minima."""
    return jnp.stack([jnp.minimum(pred, gold).sum(axes), pred.sum(axes), gold.sum(axes)], -1)


def _correlate(a: Array, b: Array, sizes: tuple[int, ...]) -> Array:
    """Cross-correlation ``c[s] = sum_i a[i - s] * b[i]`` over the last len(sizes) axes, summed over
    the others; shift s = k for k < n, k - size for larger indices."""
    axes = tuple(range(-len(sizes), 0))
    fa = jnp.fft.rfftn(a.astype(jnp.float32), s=sizes, axes=axes)
    fb = jnp.fft.rfftn(b.astype(jnp.float32), s=sizes, axes=axes)
    corr = jnp.fft.irfftn(jnp.conj(fa) * fb, s=sizes, axes=axes)
    return jnp.round(corr.sum(tuple(range(corr.ndim - len(sizes))))).astype(jnp.int32)


def _rotations(grid: Array) -> Array:
    """(4, ...) the grid rotated by 0, 90, 180, 270 degrees about the vertical axis."""
    return jnp.stack([jnp.rot90(grid, k, axes=_XZ) for k in range(4)])


def align_structure(pred: Array, gold: Array) -> Array:
    """``pred`` (11, 9, 11) moved by the best in-region horizontal translation and quarter rotation
    onto ``gold`` (most blocks of equal colour in equal cells; the identity wins ties)."""
    nx, _, nz = SHAPE
    sizes = (2 * nx - 1, 2 * nz - 1)
    colours = jnp.arange(1, NUM_COLOURS + 1, dtype=jnp.int8)[:, None, None, None]
    rotated = _rotations(pred)  # (4, 11, 9, 11)
    onehot_pred = (rotated[:, None] == colours).transpose(0, 1, 3, 2, 4)  # (4, 6, 9, 11x, 11z)
    onehot_gold = (gold[None] == colours).transpose(0, 2, 1, 3)  # (6, 9, 11x, 11z)
    corr = jax.vmap(lambda a: _correlate(a, onehot_gold, sizes))(onehot_pred)  # (4, 21, 21)

    shifts_x = jnp.where(jnp.arange(sizes[0]) < nx, jnp.arange(sizes[0]), jnp.arange(sizes[0]) - sizes[0])
    shifts_z = jnp.where(jnp.arange(sizes[1]) < nz, jnp.arange(sizes[1]), jnp.arange(sizes[1]) - sizes[1])
    occupied = rotated != 0
    has_x = occupied.any((2, 3))  # (4, 11)
    has_z = occupied.any((1, 2))
    idx_x, idx_z = jnp.arange(nx), jnp.arange(nz)
    lo_x = jnp.where(has_x, idx_x, nx).min(-1)
    hi_x = jnp.where(has_x, idx_x, -1).max(-1)
    lo_z = jnp.where(has_z, idx_z, nz).min(-1)
    hi_z = jnp.where(has_z, idx_z, -1).max(-1)
    ok_x = (lo_x[:, None] + shifts_x[None] >= 0) & (hi_x[:, None] + shifts_x[None] < nx)
    ok_z = (lo_z[:, None] + shifts_z[None] >= 0) & (hi_z[:, None] + shifts_z[None] < nz)
    score = jnp.where(ok_x[:, :, None] & ok_z[:, None, :], corr * 2, -1)
    score = score.at[0, 0, 0].add(1)  # the identity wins ties
    best = jnp.argmax(score.reshape(-1))
    r, kx, kz = jnp.unravel_index(best, score.shape)
    return jnp.roll(rotated[r], jnp.stack([shifts_x[kx], shifts_z[kz]]), axis=(0, 2))


def shape_matches(pred_net: Array, gold_net: Array, capacity: int) -> Array:
    """Most net actions (12, 11, 9, 11) that agree after a 3D translation and quarter rotation.

    Every pair of a predicted and a reference action of the same channel votes for the translation
    that maps one onto the other; the best rotation's most-voted translation wins. ``capacity`` bounds
    the net actions per side (``net_capacity``): the cost is O(capacity^2) per rotation."""
    nx, ny, nz = SHAPE

    def actions(net):
        c, x, y, z = jnp.nonzero(net, size=capacity, fill_value=-1)
        return c, x - nx // 2, y, z - nz // 2, c >= 0

    pc, px, py, pz, pvalid = actions(pred_net)
    gc, gx, gy, gz, gvalid = actions(gold_net)
    valid = (pc[:, None] == gc[None, :]) & pvalid[:, None] & gvalid[None, :]
    span = (2 * nx - 1, 2 * ny - 1, 2 * nz - 1)
    votes = jnp.zeros((4, span[0] * span[1] * span[2]), jnp.int32)
    for k in range(4):  # quarter rotations (x, z) -> (z, -x) about the region's vertical axis
        dx = gx[None, :] - px[:, None]
        dy = gy[None, :] - py[:, None]
        dz = gz[None, :] - pz[:, None]
        key = ((dx + nx - 1) * span[1] + dy + ny - 1) * span[2] + dz + nz - 1
        votes = votes.at[k, jnp.where(valid, key, 0)].add(valid.astype(jnp.int32))
        px, pz = pz, -px
    return votes.max()


def net_capacity(start: np.ndarray, *ends: np.ndarray) -> int:
    """Smallest power of two (>= 8) holding every item's net actions (recolours count twice)."""
    most = 0
    for end in ends:
        changed = start != end
        counts = (changed & (start != 0)).sum((1, 2, 3)) + (changed & (end != 0)).sum((1, 2, 3))
        most = max(most, int(counts.max()) if len(counts) else 0)
    return max(8, 1 << max(most - 1, 0).bit_length())


def _item_counts(start: Array, pred: Array, aligned: Array, gold: Array, capacity: int) -> Array:
    """(6, 3) int32 (matched, predicted, reference) for ``METRICS`` of one item."""
    gold_net = net_channels(start, gold)
    strict_net = net_channels(start, pred)
    pred_net = net_channels(start, aligned)
    types = lambda net: net.reshape(2, NUM_COLOURS, -1).sum((1, 2))  # noqa: E731
    rows = [
        _overlap(strict_net, gold_net, (0, 1, 2, 3)),
        _overlap(pred_net, gold_net, (0, 1, 2, 3)),
        _overlap(types(pred_net), types(gold_net), (0,)),
        _overlap(pred_net.sum((1, 2, 3)), gold_net.sum((1, 2, 3)), (0,)),
        _overlap(pred_net.sum(0), gold_net.sum(0), (0, 1, 2)),
        jnp.stack([shape_matches(strict_net, gold_net, capacity), strict_net.sum(), gold_net.sum()]),
    ]
    return jnp.stack(rows).astype(jnp.int32)


@functools.partial(jax.jit, static_argnames="capacity")
def _batch_counts(start: Array, pred: Array, aligned: Array, gold: Array, capacity: int) -> Array:
    return jax.vmap(_item_counts, in_axes=(0, 0, 0, 0, None))(start, pred, aligned, gold, capacity)


_align_batch = jax.jit(jax.vmap(align_structure))


def _bucket(n: int) -> int:
    """Batch sizes rounded up to a power of two (>= 8), so few distinct shapes get compiled."""
    return max(8, 1 << max(n - 1, 0).bit_length())


def fairer_alignment(start: ArrayLike, pred_end: ArrayLike, gold_end: ArrayLike, align: ArrayLike | None = None) -> np.ndarray:
    """Predicted end structures (N, 11, 9, 11) with every item of ``align`` (N,) bool (default: the
    empty-board items; BAP v2's clean test set: the items annotated as having multiple
    interpretations) aligned to its reference (``align_structure``); other items unchanged."""
    start, pred, gold = (np.asarray(a, np.int8) for a in (start, pred_end, gold_end))
    aligned = pred.copy()
    if align is None:
        align = ~start.reshape(len(start), -1).any(1)
    empty = np.flatnonzero(np.asarray(align, bool))
    if empty.size:
        idx = np.resize(empty, _bucket(empty.size))
        aligned[empty] = np.asarray(_align_batch(pred[idx], gold[idx]))[: empty.size]
    return aligned


def item_counts(start: ArrayLike, pred_end: ArrayLike, gold_end: ArrayLike, align: ArrayLike | None = None) -> np.ndarray:
    """(N, 6, 3) int32: (matched, predicted, reference) per item for each of ``METRICS``, from
    structures (N, 11, 9, 11); ``align``: the items the fairer metric aligns (``fairer_alignment``)."""
    start, pred, gold = (np.asarray(a, np.int8) for a in (start, pred_end, gold_end))
    n = len(start)
    aligned = fairer_alignment(start, pred, gold, align)
    idx = np.resize(np.arange(n), _bucket(n))
    counts = _batch_counts(start[idx], pred[idx], aligned[idx], gold[idx], net_capacity(start, pred, gold))
    return np.asarray(counts)[:n]


def prf(matched: ArrayLike, predicted: ArrayLike, reference: ArrayLike) -> tuple[Array, Array, Array]:
    """Precision, recall, F1 from counts; both sets empty scores 1."""
    m, p, r = (jnp.asarray(v, jnp.float32) for v in (matched, predicted, reference))
    both_empty = (p == 0) & (r == 0)
    precision = jnp.where(both_empty, 1.0, m / jnp.maximum(p, 1.0))
    recall = jnp.where(both_empty, 1.0, m / jnp.maximum(r, 1.0))
    f1 = jnp.where(both_empty, 1.0, 2 * m / jnp.maximum(p + r, 1.0))
    return precision, recall, f1


def summarize(counts: ArrayLike, empty_board: ArrayLike) -> dict[str, dict[str, dict[str, float]]]:
    """``{subset: {metric: {micro_p, micro_r, micro_f1, macro_p, macro_r, macro_f1, items}}}`` in
    percent, for subsets ``all``, ``EB``, ``NEB``."""
    counts, empty_board = np.asarray(counts), np.asarray(empty_board, bool)
    out = {}
    for subset, mask in (("all", np.ones_like(empty_board)), ("EB", empty_board), ("NEB", ~empty_board)):
        rows = {}
        for k, name in enumerate(METRICS):
            c = counts[mask, k]
            micro = prf(*c.sum(0)) if len(c) else (np.nan,) * 3
            macro = [np.asarray(v).mean() for v in prf(c[:, 0], c[:, 1], c[:, 2])] if len(c) else (np.nan,) * 3
            rows[name] = {
                "micro_p": 100 * float(micro[0]),
                "micro_r": 100 * float(micro[1]),
                "micro_f1": 100 * float(micro[2]),
                "macro_p": 100 * float(macro[0]),
                "macro_r": 100 * float(macro[1]),
                "macro_f1": 100 * float(macro[2]),
                "items": int(mask.sum()),
            }
        out[subset] = rows
    return out


def replay(start: np.ndarray, actions: Sequence[Action]) -> np.ndarray:
    """End structure of actions applied to a start grid; infeasible actions are no-ops."""
    grid = np.array(start)
    for action in actions:
        apply_action(grid, action)
    return grid


def score_items(starts: Sequence, predictions: Sequence[Sequence[Action]], references: Sequence) -> dict:
    """Score Python lists: start and reference end structures as block lists ``(x, y, z, colour)``,
    predictions as action lists replayed on the start. Returns ``summarize``'s dict."""
    start = np.stack([to_grid(s) for s in starts])
    pred = np.stack([replay(s, p) for s, p in zip(start, predictions, strict=True)])
    gold = np.stack([to_grid(r) for r in references])
    return summarize(item_counts(start, pred, gold), ~start.reshape(len(start), -1).any(1))
