"""BAP items -> the arrays the Builder models train and decode on, and the training sets of BAP v2.

``Examples`` holds N items as numpy arrays. Gold actions are in ``blocksworld.replay``'s executable
order (reordered within a snapshot's diff only) and capped at ``max_actions``: an item with more
actions keeps its first ``max_actions`` and no STOP target (so a cut sequence never teaches an early
STOP); a shorter one ends with STOP. Cell ages (actions since the cell last changed) come from the
game's earlier items, which ``examples`` finds by game id and sample id.

Training sets (``training_items``): the corpus train split with the paper's 4x augmentation (the
originals + 3 augmented copies, ``blocksworld.augment``), optionally joined with the train splits
of the three simulators (``blocksworld.synthetic``; Table 3 sizes by default); without a corpus
folder, the simulators alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields

import numpy as np

from baselines.builder.model import RECENCY_SPAN
from blocksworld import augment, synthetic
from blocksworld.grid import PICK, SHAPE, STOP, encode_action, to_grid, to_index
from blocksworld.item import BapItem
from blocksworld.replay import executable_order
from blocksworld.tokenizer import Vocabulary, dialogue_window

SIMULATED = ("random", "blocks", "shapes")
TABLE3_TRAIN_ITEMS = {"random": 11_969, "blocks": 9_789, "shapes": 15_825}
"""Synthetic training items per simulator in BAP v2's Table 3 (the corpus adds 14,836)."""
SYNTHETIC_EVAL_ITEMS = {"dev": 300, "test": 1_000}
"""Items drawn from each simulator's dev split (early stopping; decoded every epoch) and test split."""
CORPUS_COPIES = 3
"""Augmented copies added to the corpus train split: 4x the data, as in the paper."""


@dataclass
class Examples:
    """N items as arrays: tokens (N, L) int32 dialogue-window ids; texts: the windows as text (for
    a frozen text encoder); starts / ends / ages (N, 11, 9, 11) int8; poses (N, 5) float32;
    targets (N, T) int32 gold action codes then STOP, -1 padded (T = max_actions + 1); lengths (N,)
    int32 target steps; last_action (N,) int32 the game's previous action (-1: none)."""

    tokens: np.ndarray
    texts: list[str]
    starts: np.ndarray
    ends: np.ndarray
    ages: np.ndarray
    poses: np.ndarray
    targets: np.ndarray
    lengths: np.ndarray
    last_action: np.ndarray
    empty_board: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    def take(self, index: np.ndarray) -> Examples:
        return Examples(**{f.name: _take(getattr(self, f.name), index) for f in fields(self)})


def _take(value, index: np.ndarray):
    return [value[i] for i in index] if isinstance(value, list) else value[index]


def window_text(tokens: Sequence[str]) -> str:
    """A dialogue window as plain text for a pretrained text encoder ("architect: ... builder: ...")."""
    out = []
    for token in tokens:
        if token in ("<architect>", "<builder>"):
            out.append(token[1:-1] + ":")
        elif token.startswith("<builder_"):
            _, kind, colour = token[1:-1].split("_")
            out.append(f"[builder {'removes' if kind == PICK else 'places'} {colour}]")
        elif not token.startswith("</") and token != "<dialogue>":
            out.append(token)
    return " ".join(out)


def _game_orders(items: Sequence[BapItem]) -> dict[tuple[str, int], tuple]:
    """Executable action order of every item, keyed by (game id, sample id); an item given twice
    (a selection and its context) is ordered once."""
    unique = {(i.game_id, i.sample_id): i for i in items}
    return {key: executable_order(item) for key, item in unique.items()}


def tokens(items: Sequence[BapItem], vocabulary: Vocabulary, max_tokens: int = 100) -> np.ndarray:
    """(N, max_tokens) int32 ids of the items' dialogue windows in ``vocabulary``."""
    return np.array([vocabulary.encode(dialogue_window(item.history), max_tokens) for item in items], np.int32).reshape(
        len(items), max_tokens
    )


def examples(
    items: Sequence[BapItem], vocabulary: Vocabulary, max_actions: int, max_tokens: int = 100, context: Sequence[BapItem] = ()
) -> Examples:
    """Arrays of ``items``; earlier actions of a game are looked up among ``items`` and ``context``
    (items of the same games outside this selection)."""
    orders = _game_orders([*items, *context])
    by_game: dict[str, list[int]] = defaultdict(list)
    for game, sample in orders:
        by_game[game].append(sample)
    n, steps = len(items), max_actions + 1
    out = Examples(
        tokens=tokens(items, vocabulary, max_tokens),
        texts=[],
        starts=np.zeros((n, *SHAPE), np.int8),
        ends=np.zeros((n, *SHAPE), np.int8),
        ages=np.full((n, *SHAPE), RECENCY_SPAN, np.int8),
        poses=np.zeros((n, 5), np.float32),
        targets=np.full((n, steps), -1, np.int32),
        lengths=np.zeros(n, np.int32),
        last_action=np.full(n, -1, np.int32),
        empty_board=np.zeros(n, bool),
    )
    for row, item in enumerate(items):
        out.texts.append(window_text(dialogue_window(item.history)))
        out.starts[row], out.ends[row] = to_grid(item.start), to_grid(item.end)
        out.poses[row] = item.builder_pose
        out.empty_board[row] = not item.start
        codes = [encode_action(a) for a in orders[(item.game_id, item.sample_id)]]
        cut = codes[:max_actions] + ([STOP] if len(codes) <= max_actions else [])
        out.targets[row, : len(cut)] = cut
        out.lengths[row] = len(cut)
        earlier = [a for s in sorted(by_game[item.game_id]) if s < item.sample_id for a in orders[(item.game_id, s)]]
        for age, action in enumerate(reversed(earlier[-RECENCY_SPAN:])):
            index = to_index(*action[1:4])
            out.ages[row][index] = min(out.ages[row][index], age)
        if earlier:
            out.last_action[row] = encode_action(earlier[-1])
    return out


def step_buckets(max_actions: int) -> tuple[int, ...]:
    """Padded sequence lengths (target steps) of training batches: few shapes to compile, little
    padding for the mostly short gold sequences."""
    return tuple(sorted({b for b in (2, 4, 7, 11, 21) if b < max_actions + 1} | {max_actions + 1}))


def batches(
    lengths: np.ndarray, batch_size: int, buckets: Sequence[int], rng: np.random.Generator, order: np.ndarray | None = None
) -> Iterator[tuple[np.ndarray, int]]:
    """(item indices, padded steps) of batches: items grouped by the smallest bucket holding their
    length, shuffled (or in ``order``, e.g. a curriculum stage, kept within each bucket), every
    item exactly once (a bucket's last batch is smaller)."""
    order = rng.permutation(len(lengths)) if order is None else np.asarray(order)
    bucket_of = np.searchsorted(np.asarray(buckets), lengths[order])
    chunks = []
    for b, steps in enumerate(buckets):
        members = order[bucket_of == b]
        chunks += [(members[i : i + batch_size], steps) for i in range(0, len(members), batch_size)]
    for k in rng.permutation(len(chunks)):
        yield chunks[k]


def synthetic_items(simulator: str, split: str, num_items: int, seed: int = 0) -> list[BapItem]:
    """The first ``num_items`` items of the simulator's games of ``split`` (whole games; seed fixed,
    so every run sees the same data)."""
    out: list[BapItem] = []
    k = 0
    while len(out) < num_items:
        game = synthetic.simulate_game(simulator, k, seed)
        if game.split == split:
            out += game.items
        k += 1
    return out


def simulated_dev_items(simulators: Sequence[str]) -> list[BapItem]:
    """The dev items of each of ``simulators`` (``SYNTHETIC_EVAL_ITEMS["dev"]`` each, whole games),
    the same for every training seed."""
    return [i for simulator in simulators for i in synthetic_items(simulator, "dev", SYNTHETIC_EVAL_ITEMS["dev"])]


def training_items(
    corpus_train: Sequence[BapItem], simulated: dict[str, int], seed: int = 0, corpus_copies: int = CORPUS_COPIES
) -> list[BapItem]:
    """The corpus train items with ``corpus_copies`` augmented copies, plus ``simulated`` train
    items per simulator (each with ``CORPUS_COPIES``: 4x augmentation, as the paper's train sets)."""
    out = [*corpus_train, *augment.augment(corpus_train, corpus_copies, seed)]
    for simulator, count in simulated.items():
        base = synthetic_items(simulator, "train", max(1, count // (CORPUS_COPIES + 1)), seed)
        out += base + augment.augment(base, CORPUS_COPIES, seed)
    return out


def build_vocabulary(items: Sequence[BapItem]) -> Vocabulary:
    """Word ids of the training windows, plus every word the simulators can say."""
    return Vocabulary([*Vocabulary.build(dialogue_window(i.history) for i in items).words, *synthetic.vocabulary().words])
