"""Word-level tokenizer for Hexagons instructions: lower-cased words, numbers and punctuation."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

PAD, UNK = "<pad>", "<unk>"
PAD_ID, UNK_ID = 0, 1
_TOKEN = re.compile(r"[a-z]+|\d+(?:st|nd|rd|th)?|[^\sa-z\d]")


def tokenize(text: str) -> list[str]:
    """Split an instruction into lower-case tokens ("5th" and "18" stay whole)."""
    return _TOKEN.findall(text.lower())


class Vocabulary:
    """Token <-> id map; id 0 pads, id 1 stands for any word the vocabulary does not know."""

    def __init__(self, words: Iterable[str]):
        self.words: list[str] = [PAD, UNK] + [w for w in words if w not in (PAD, UNK)]
        self.ids: dict[str, int] = {w: i for i, w in enumerate(self.words)}
        if len(self.ids) != len(self.words):
            raise ValueError("vocabulary words must be unique")

    @classmethod
    def build(cls, texts: Iterable[str], min_count: int = 1) -> Vocabulary:
        """Vocabulary of every token seen at least ``min_count`` times, most frequent first."""
        counts = Counter(tok for text in texts for tok in tokenize(text))
        return cls(w for w, c in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0])) if c >= min_count)

    def __len__(self) -> int:
        return len(self.words)

    def token_ids(self, text: str) -> list[int]:
        """The id of every token of ``text`` (unknown words: ``UNK_ID``)."""
        return [self.ids.get(tok, UNK_ID) for tok in tokenize(text)]

    def encode(self, text: str, max_tokens: int) -> tuple[np.ndarray, bool]:
        """(max_tokens,) int32 ids padded with 0, and whether the text had to be truncated."""
        ids = self.token_ids(text)
        out = np.zeros(max_tokens, dtype=np.int32)
        out[: min(len(ids), max_tokens)] = ids[:max_tokens]
        return out, len(ids) > max_tokens

    def decode(self, ids: Iterable[int]) -> str:
        """Text of the non-padding ids."""
        return " ".join(self.words[i] for i in ids if i != PAD_ID)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.words[2:], indent=0))

    @classmethod
    def load(cls, path: str | Path) -> Vocabulary:
        return cls(json.loads(Path(path).read_text()))
