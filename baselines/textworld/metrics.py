"""Scores of JerichoWorld's two tasks (next-state knowledge graph; valid actions) and of graph diffs.

JerichoWorld released no evaluation script, so its exact formulas are unknown; both readings of its
exact match (EM) are reported:
- ``em_jw``: the fraction of gold items predicted exactly (the paper's own example: "an EM of 20
  means that if there were 100 gold valid actions in an instance, the model predicted 20 of them");
- ``set_em``: 1 when the predicted set equals the gold set, else 0.
Per instance, with TP = |P ∩ G|: precision TP / |P|, recall TP / |G|, F1 2 TP / (|P| + |G|).
Empty sets: both empty scores 1 on every measure; exactly one empty scores 0. Scores are means over
instances (``aggregate``: per world, and overall over all instances, which is the paper's
size-weighted mean of the per-game means).

Levels: ``graph`` items are whole triples (all three parts must match); ``token`` items are the
multiset of whitespace tokens of every subject, relation and object (Counter intersection); actions
are whole strings. Text is normalised first (lower case, stripped, inner whitespace collapsed) and a
triple with an empty part is dropped (JerichoWorld's ``['', 'in', '']`` defect).

``graph_scores(pred, gold)`` is the same graph-level score on two id graphs inside jit (``env.kg``
arrays, K x K compare), for training losses and evaluation at scale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import jax.numpy as jnp
from jax import Array

MEASURES = ("precision", "recall", "f1", "em_jw", "set_em")
Triple = tuple[str, str, str]


def normalise(text: str) -> str:
    """Lower case, stripped, inner whitespace collapsed to one space."""
    return " ".join(str(text).lower().split())


def triple_set(triples: Iterable[Sequence[str]]) -> set[Triple]:
    """Normalised triples with no empty part, as a set."""
    out = set()
    for triple in triples:
        parts = tuple(normalise(x) for x in triple)
        if len(parts) == 3 and all(parts):
            out.add(parts)
    return out


def token_bag(triples: Iterable[Triple]) -> Counter:
    """Multiset of the whitespace tokens of every part of (normalised) triples."""
    return Counter(token for triple in triples for part in triple for token in part.split())


def set_scores(pred: set | Counter, gold: set | Counter) -> dict[str, float]:
    """``MEASURES`` of one instance; sets, or Counters (multisets)."""
    if isinstance(gold, Counter):
        tp, num_pred, num_gold = sum((pred & gold).values()), sum(pred.values()), sum(gold.values())
    else:
        tp, num_pred, num_gold = len(pred & gold), len(pred), len(gold)
    if num_pred == 0 and num_gold == 0:
        return dict.fromkeys(MEASURES, 1.0)
    if num_pred == 0 or num_gold == 0:
        return dict.fromkeys(MEASURES, 0.0)
    return {"precision": tp / num_pred, "recall": tp / num_gold, "f1": 2 * tp / (num_pred + num_gold),
            "em_jw": tp / num_gold, "set_em": float(pred == gold)}


def graph_instance(pred: Iterable[Sequence[str]], gold: Iterable[Sequence[str]]) -> dict[str, dict[str, float]]:
    """Graph-level and token-level scores of one predicted graph against its gold graph."""
    p, g = triple_set(pred), triple_set(gold)
    return {"graph": set_scores(p, g), "token": set_scores(token_bag(p), token_bag(g))}


def action_instance(pred: Iterable[str], gold: Iterable[str]) -> dict[str, float]:
    """Scores of one predicted valid-action set (whole normalised strings)."""
    return set_scores({normalise(a) for a in pred} - {""}, {normalise(a) for a in gold} - {""})


def diff(before: Iterable[Sequence[str]], after: Iterable[Sequence[str]]) -> dict[str, list[list[str]]]:
    """``{"add": after - before, "del": before - after}`` of two graphs, sorted triples."""
    b, a = triple_set(before), triple_set(after)
    return {"add": [list(t) for t in sorted(a - b)], "del": [list(t) for t in sorted(b - a)]}


def diff_instance(pred: dict, gold: dict) -> dict[str, dict[str, float]]:
    """Graph-level scores of a predicted diff's additions and deletions."""
    return {kind: set_scores(triple_set(pred.get(kind, [])), triple_set(gold.get(kind, []))) for kind in ("add", "del")}


def aggregate(rows: Iterable[tuple[str, dict]]) -> dict:
    """Means of nested score dicts per group and overall (all instances): ``{"overall": ...,
    "per_world": {group: ...}, "instances": n}``; rows are (group, scores)."""
    sums: dict[str, dict] = {}
    counts: Counter = Counter()

    def add(into: dict, scores: dict) -> None:
        for k, v in scores.items():
            if isinstance(v, dict):
                add(into.setdefault(k, {}), v)
            else:
                into[k] = into.get(k, 0.0) + v

    for group, scores in rows:
        for key in (group, "\0overall"):
            add(sums.setdefault(key, {}), scores)
            counts[key] += 1

    def mean(tree: dict, n: int) -> dict:
        return {k: mean(v, n) if isinstance(v, dict) else 100.0 * v / n for k, v in tree.items()}

    overall = sums.pop("\0overall", {})
    return {"overall": mean(overall, counts["\0overall"]) if overall else {}, "instances": counts["\0overall"],
            "per_world": {g: {**mean(s, counts[g]), "instances": counts[g]} for g, s in sorted(sums.items())}}


def graph_scores(pred: dict[str, Array], gold: dict[str, Array]) -> dict[str, Array]:
    """Graph-level ``MEASURES`` (fractions) of two id graphs of one schema (``env.kg`` arrays,
    unbatched; vmap for batches). Facts of one graph are distinct by construction."""
    def keys(g):
        return jnp.stack([g["subject"], g["relation"], g["object"]], -1)

    match = (keys(pred)[:, None, :] == keys(gold)[None, :, :]).all(-1) & pred["valid"][:, None] & gold["valid"][None, :]
    tp = match.any(1).sum()
    num_pred, num_gold = pred["valid"].sum(), gold["valid"].sum()
    both_empty, one_empty = (num_pred == 0) & (num_gold == 0), (num_pred == 0) ^ (num_gold == 0)
    scores = {"precision": tp / jnp.maximum(num_pred, 1), "recall": tp / jnp.maximum(num_gold, 1),
              "f1": 2 * tp / jnp.maximum(num_pred + num_gold, 1), "em_jw": tp / jnp.maximum(num_gold, 1),
              "set_em": ((tp == num_pred) & (tp == num_gold)).astype(jnp.float32)}
    return {k: jnp.where(both_empty, 1.0, jnp.where(one_empty, 0.0, v)) for k, v in scores.items()}
