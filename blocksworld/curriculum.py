"""Curriculum arrangement of training items (Xu et al. 2020, as BAP v2 uses it in appendix 12.1).

Sort the items by a difficulty key, cut them into N equal buckets (easiest first) and each bucket
into N equal shards. Stage i (1..N) holds shard i of every bucket 1..i, shuffled, so harder
buckets enter stage by stage and no item appears in two of these stages; stage N + 1 is the whole
data set, shuffled (train on it until convergence). Difficulty keys of the paper: the data set
(``dataset_rank``: random < blocks-based < shape-based < corpus, the order of Table 4), the
gold action-sequence length and the input length in tokens, alone or as tuples.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from blocksworld.item import BapItem
from blocksworld.tokenizer import dialogue_window

T = TypeVar("T")

DATASET_ORDER = ("RND", "BLK", "SHP")
"""Structure-id prefixes of the simulators, easiest first; any other item is from the corpus."""


def dataset_rank(item: BapItem) -> int:
    """0 random, 1 blocks-based, 2 shape-based dialogues, 3 corpus."""
    return next((r for r, prefix in enumerate(DATASET_ORDER) if item.structure_id.startswith(prefix)), len(DATASET_ORDER))


def action_length(item: BapItem) -> int:
    return len(item.actions)


def input_length(item: BapItem) -> int:
    return len(dialogue_window(item.history))


def curriculum(items: Sequence[T], key: Callable[[T], Any], num_buckets: int, seed: int = 0) -> list[list[T]]:
    """``num_buckets + 1`` stages of ``items`` (see the module docstring); ties keep input order."""
    if num_buckets < 1 or num_buckets > len(items):
        raise ValueError(f"num_buckets={num_buckets}: use 1..{len(items)} (the number of items)")
    rng = random.Random(seed)
    ranked = sorted(items, key=key)
    bounds = [round(b * len(ranked) / num_buckets) for b in range(num_buckets + 1)]
    buckets = [ranked[lo:hi] for lo, hi in zip(bounds, bounds[1:])]
    for bucket in buckets:
        rng.shuffle(bucket)
    stages = []
    for stage in range(num_buckets):
        chosen = []
        for bucket in buckets[: stage + 1]:
            cuts = [round(s * len(bucket) / num_buckets) for s in range(num_buckets + 1)]
            chosen += bucket[cuts[stage] : cuts[stage + 1]]
        rng.shuffle(chosen)
        stages.append(chosen)
    everything = list(items)
    rng.shuffle(everything)
    return stages + [everything]
