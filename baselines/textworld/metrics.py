"""Scores of JerichoWorld's two tasks (next-state knowledge graph; valid actions) and of graph diffs.

JerichoWorld released no evaluation script, so its exact formulas are unknown. Its paper's own
reading of exact match ("an EM of 20 means that if there were 100 gold valid actions in an
instance, the model predicted 20 of them") is the fraction of gold items predicted exactly: that is
recall, reported as ``recall``. The strict reading is ``set_em``: 1 when the predicted set equals
the gold set, else 0. Per instance, with TP = |P ∩ G|: precision TP / |P| (0 for an empty
prediction), recall TP / |G|, F1 2 TP / (|P| + |G|).

Empty gold: an instance whose gold set is empty has no recall, and rewarding an empty prediction
there is what let submitting nothing score high (deletions are empty on most steps). By default
(``empty_gold="skip"``) such instances are left out of the means, and ``aggregate`` reports how
many instances each mean covers (``scored``); ``empty_gold="one"`` scores them 1 when the
prediction is empty too and 0 otherwise (the convention of earlier releases).

Malformed predictions count as wrong: a predicted item that is not a [subject, relation, object]
triple of non-empty strings (or, for actions, a non-empty string) enlarges |P| and matches nothing.
In gold sets (imported data) such items are dropped, as JerichoWorld's ``['', 'in', '']`` defect
asks. Scores are means over instances (``aggregate``: per world, and overall over all instances,
which is the paper's size-weighted mean of the per-game means).

Levels: ``graph`` items are whole triples (all three parts must match); ``token`` items are the
multiset of whitespace tokens of every subject, relation and object (multiset intersection);
actions are whole strings. Text is normalised first (lower case, stripped, inner whitespace collapsed).

``batch_scores(task, preds, golds)`` scores a whole batch at once (items and tokens are coded once,
sets become sorted integer keys); the per-instance functions are batches of one.
``graph_scores(pred, gold)`` is the same graph-level score on two id graphs inside jit (``env.kg``
arrays, a binary search over their canonical order), for training losses and evaluation at scale.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import jax.numpy as jnp
import numpy as np
from jax import Array

CHUNK_CELLS = 2**24
"""Instances x token vocabulary counted at once by the token-level scores (memory bound)."""
MEASURES = ("precision", "recall", "f1", "set_em")
EMPTY_GOLD = ("skip", "one")
"""Instances with an empty gold set: left out of the means, or scored 1 when the prediction is empty too."""
Triple = tuple[str, str, str]


def normalise(text: str) -> str:
    """Lower case, stripped, inner whitespace collapsed to one space."""
    return " ".join(str(text).lower().split())


def clean(item: Sequence[str] | str, triples: bool = True) -> Triple | tuple[str] | None:
    """The normalised parts of a triple (or of an action string), None when a part is empty."""
    parts = tuple(normalise(x) for x in item) if triples else (normalise(item),)
    return parts if all(parts) and len(parts) == (3 if triples else 1) else None


def triple_set(triples: Iterable[Sequence[str]]) -> set[Triple]:
    """Normalised triples with no empty part, as a set."""
    return {parts for parts in map(clean, triples) if parts}


class _Codes:
    """Integer codes of normalised items (triples, or action strings) and of their tokens, shared
    by the predictions and the gold of one scoring run; -1 for a malformed gold item (dropped); a
    malformed predicted item gets a code of its own, which no gold item has."""

    def __init__(self, triples: bool):
        self.triples = triples
        self.seen: dict = {}
        self.items: dict = {}
        self.tokens: dict[str, int] = {}
        self.item_tokens: list[list[int]] = []

    def _register(self, key, words: list[str]) -> int:
        code = self.items.get(key)
        if code is None:
            code = self.items[key] = len(self.items)
            self.item_tokens.append([self.tokens.setdefault(w, len(self.tokens)) for w in words])
        return code

    def code(self, raw, predicted: bool = False) -> int:
        key = _hashable(raw)
        code = self.seen.get(key)
        if code is None:
            shaped = isinstance(key, str) if not self.triples else isinstance(key, tuple) and all(isinstance(x, str) for x in key)
            if not shaped and not predicted:
                raise ValueError(f"expected {'a [subject, relation, object] triple' if self.triples else 'an action string'}, got {raw!r}")
            parts = clean(key, self.triples) if shaped else None
            code = -1 if parts is None else self._register(parts, [w for part in parts for w in part.split()])
            self.seen[key] = code
        if code == -1 and predicted:  # wrong, never dropped
            parts = key if isinstance(key, tuple) else (key,)
            return self._register(("\0malformed", key), [w for part in parts for w in normalise(part).split()])
        return code

    def sets(self, lists: Sequence[Sequence], predicted: bool = False) -> np.ndarray:
        """Sorted unique (instance, item code) pairs of a batch, as instance * 2**32 + code."""
        lengths = np.fromiter((len(items) for items in lists), np.int64, len(lists))
        known, code, floor = self.seen.get, self.code, 0 if predicted else -1  # a predicted malformed item gets its own code
        try:  # one pass; a JSON triple is a list, hashed as a tuple
            codes = np.array(
                [
                    c if (c := known(k := tuple(x) if isinstance(x, list) else x)) is not None and c >= floor else code(k, predicted)
                    for items in lists
                    for x in items
                ],
                np.int64,
            )
        except TypeError:  # an unhashable part (a nested list, a dict): item by item
            codes = np.array([code(x, predicted) for items in lists for x in items], np.int64)
        instance = np.repeat(np.arange(len(lists), dtype=np.int64), lengths)
        keep = codes >= 0
        keys = np.sort(instance[keep] * 2**32 + codes[keep])
        return keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys

    def token_measures(self, pred: np.ndarray, gold: np.ndarray, n: int, empty_gold: str = "skip") -> dict[str, np.ndarray]:
        """Token-level measures of per-instance item sets (``sets`` keys): each set's multiset of
        tokens, intersected by per-instance token counts (in chunks of instances, bounded memory)."""
        lengths = np.array([len(t) for t in self.item_tokens], np.int64)
        flat = np.fromiter((w for t in self.item_tokens for w in t), np.int64, int(lengths.sum()))
        starts = np.cumsum(lengths) - lengths

        def expand(sets):
            codes = sets % 2**32
            k = lengths[codes]
            return np.repeat(sets // 2**32, k), flat[np.repeat(starts[codes], k) + np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)]

        (pi, pt), (gi, gt) = expand(pred), expand(gold)
        vocab = max(len(self.tokens), 1)
        chunk = max(1, CHUNK_CELLS // vocab)
        tp = np.zeros(n)
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            a, b = slice(*np.searchsorted(pi, [lo, hi])), slice(*np.searchsorted(gi, [lo, hi]))
            counts_p = np.bincount((pi[a] - lo) * vocab + pt[a], minlength=(hi - lo) * vocab).reshape(-1, vocab)
            counts_g = np.bincount((gi[b] - lo) * vocab + gt[b], minlength=(hi - lo) * vocab).reshape(-1, vocab)
            tp[lo:hi] = np.minimum(counts_p, counts_g).sum(1)
        return _measures(tp, np.bincount(pi, minlength=n), np.bincount(gi, minlength=n), empty_gold)


def _hashable(raw):
    """A dict key for an item: a string, a tuple for a list, JSON text for anything unhashable."""
    if isinstance(raw, list | tuple):
        raw = tuple(raw)
    try:
        hash(raw)
        return raw
    except TypeError:
        return json.dumps(raw, sort_keys=True, default=str)


def _measures(tp: np.ndarray, num_pred: np.ndarray, num_gold: np.ndarray, empty_gold: str = "skip") -> dict[str, np.ndarray]:
    """``MEASURES`` per instance (fractions) from true positives and set sizes; NaN where the
    gold set is empty and ``empty_gold`` is ``skip``."""
    if empty_gold not in EMPTY_GOLD:
        raise ValueError(f"unknown empty_gold {empty_gold!r}; use one of {', '.join(EMPTY_GOLD)}")
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = {
            "precision": np.where(num_pred > 0, tp / np.maximum(num_pred, 1), 0.0),
            "recall": tp / num_gold,
            "f1": 2 * tp / (num_pred + num_gold),
            "set_em": ((tp == num_pred) & (tp == num_gold)).astype(float),
        }
    on_empty = np.nan if empty_gold == "skip" else (num_pred == 0).astype(float)
    return {k: np.where(num_gold == 0, on_empty, v) for k, v in scores.items()}


def _set_measures(pred: np.ndarray, gold: np.ndarray, n: int, empty_gold: str = "skip") -> dict[str, np.ndarray]:
    """Measures of per-instance sets given as sorted unique instance * 2**32 + code keys."""
    tp = np.bincount(np.intersect1d(pred, gold, assume_unique=True) // 2**32, minlength=n)
    return _measures(tp, np.bincount(pred // 2**32, minlength=n), np.bincount(gold // 2**32, minlength=n), empty_gold)


def batch_scores(task: str, preds: Sequence, golds: Sequence, empty_gold: str = "skip") -> dict:
    """Scores of every instance of a batch, as arrays (fractions; NaN: not scored, see
    ``EMPTY_GOLD``): ``graph`` -> {"graph", "token"} (items: lists of triples); ``actions`` ->
    measures (items: lists of strings); ``diff`` -> {"add", "del"} (items: ``{"add": triples,
    "del": triples}``)."""
    if len(preds) != len(golds):
        raise ValueError(f"{len(preds)} predictions for {len(golds)} gold instances")
    n = len(golds)
    if task == "diff":
        codes = _Codes(triples=True)
        return {
            kind: _set_measures(
                codes.sets([p.get(kind, []) for p in preds], predicted=True), codes.sets([g.get(kind, []) for g in golds]), n, empty_gold
            )
            for kind in ("add", "del")
        }
    if task not in ("graph", "actions"):
        raise ValueError(f"unknown task {task!r}; use graph, actions or diff")
    codes = _Codes(triples=task == "graph")
    pred, gold = codes.sets(preds, predicted=True), codes.sets(golds)
    if task == "actions":
        return _set_measures(pred, gold, n, empty_gold)
    return {"graph": _set_measures(pred, gold, n, empty_gold), "token": codes.token_measures(pred, gold, n, empty_gold)}


def _one(tree) -> dict:
    return {k: _one(v) if isinstance(v, dict) else float(v[0]) for k, v in tree.items()}


def graph_instance(pred: Iterable[Sequence[str]], gold: Iterable[Sequence[str]], empty_gold: str = "skip") -> dict[str, dict[str, float]]:
    """Graph-level and token-level scores of one predicted graph against its gold graph."""
    return _one(batch_scores("graph", [list(pred)], [list(gold)], empty_gold))


def action_instance(pred: Iterable[str], gold: Iterable[str], empty_gold: str = "skip") -> dict[str, float]:
    """Scores of one predicted valid-action set (whole normalised strings)."""
    return _one(batch_scores("actions", [list(pred)], [list(gold)], empty_gold))


def diff(before: Iterable[Sequence[str]], after: Iterable[Sequence[str]]) -> dict[str, list[list[str]]]:
    """``{"add": after - before, "del": before - after}`` of two graphs, sorted triples."""
    b, a = triple_set(before), triple_set(after)
    return {"add": [list(t) for t in sorted(a - b)], "del": [list(t) for t in sorted(b - a)]}


def diff_instance(pred: dict, gold: dict, empty_gold: str = "skip") -> dict[str, dict[str, float]]:
    """Graph-level scores of a predicted diff's additions and deletions."""
    return _one(batch_scores("diff", [pred], [gold], empty_gold))


def aggregate(groups: Sequence[str], scores: dict) -> dict:
    """Means (in %) of ``batch_scores`` arrays per group and overall (all instances), over the
    instances each measure scores (not NaN), with their count ``scored`` beside each set of
    measures: ``{"overall": ..., "instances": n, "per_world": {group: {..., "instances": n}}}``."""
    names, index = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
    counts = np.bincount(index, minlength=len(names))

    def mean(tree: dict, rows: np.ndarray) -> dict:
        out: dict = {}
        scored = None
        for k, v in tree.items():
            if isinstance(v, dict):
                out[k] = mean(v, rows)
                continue
            values = np.asarray(v, float)[rows]
            kept = values[~np.isnan(values)]
            out[k], scored = (100.0 * float(kept.mean()) if len(kept) else None), len(kept)
        return out if scored is None else {**out, "scored": scored}

    return {
        "overall": mean(scores, np.arange(len(index))) if len(index) else {},
        "instances": int(len(index)),
        "per_world": {str(g): {**mean(scores, np.flatnonzero(index == i)), "instances": int(counts[i])} for i, g in enumerate(names)},
    }


def graph_scores(pred: dict[str, Array], gold: dict[str, Array], empty_gold: str = "skip") -> dict[str, Array]:
    """Graph-level ``MEASURES`` (fractions) of two id graphs of one schema (``env.kg`` arrays,
    unbatched; vmap for batches), with ``batch_scores``'s conventions (NaN for an empty gold graph
    with ``empty_gold="skip"``). Both are canonical (valid facts first, sorted, distinct), so
    membership is a binary search of each predicted fact among the gold ones."""
    radix = (
        jnp.maximum(jnp.maximum(pred["subject"].max(), pred["object"].max()), jnp.maximum(gold["subject"].max(), gold["object"].max())) + 1
    )
    relations = jnp.maximum(pred["relation"].max(), gold["relation"].max()) + 1

    def keys(g):
        return jnp.where(g["valid"], (g["subject"] * relations + g["relation"]) * radix + g["object"], jnp.iinfo(jnp.int32).max)

    pred_keys, gold_keys = keys(pred), keys(gold)
    found = gold_keys[jnp.clip(jnp.searchsorted(gold_keys, pred_keys), 0, gold_keys.shape[0] - 1)] == pred_keys
    tp = (found & pred["valid"]).sum()
    num_pred, num_gold = pred["valid"].sum(), gold["valid"].sum()
    scores = {
        "precision": tp / jnp.maximum(num_pred, 1),
        "recall": tp / jnp.maximum(num_gold, 1),
        "f1": 2 * tp / jnp.maximum(num_pred + num_gold, 1),
        "set_em": ((tp == num_pred) & (tp == num_gold)).astype(jnp.float32),
    }
    on_empty = jnp.nan if empty_gold == "skip" else (num_pred == 0).astype(jnp.float32)
    return {k: jnp.where(num_gold == 0, on_empty, v) for k, v in scores.items()}
