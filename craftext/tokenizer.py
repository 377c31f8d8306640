"""Word-level tokenizer for instructions: lower-case words and numbers; unknown words map to id 1."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

PAD, UNK = "<pad>", "<unk>"
_WORD = re.compile(r"[a-z]+|\d+")


def words(text: str) -> list[str]:
    """Lower-case words and numbers of an instruction; punctuation is dropped."""
    return _WORD.findall(text.lower())


class Vocabulary:
    """Word <-> id; 0 pads, 1 is any word outside the vocabulary (user-written instructions); the
    other ids follow the order the words are given in (so appending words keeps every id)."""

    def __init__(self, vocabulary_words: Iterable[str]):
        self.words = [PAD, UNK] + [w for w in dict.fromkeys(vocabulary_words) if w not in (PAD, UNK)]
        self.ids = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Vocabulary:
        """The words of ``texts``, sorted."""
        return cls(sorted({w for text in texts for w in words(text)}))

    def __len__(self) -> int:
        return len(self.words)

    def encode(self, text: str, max_tokens: int) -> np.ndarray:
        """(max_tokens,) int32 ids, 0-padded; longer texts are cut at max_tokens."""
        ids = [self.ids.get(w, 1) for w in words(text)][:max_tokens]
        out = np.zeros(max_tokens, dtype=np.int32)
        out[: len(ids)] = ids
        return out

    def decode(self, ids: Iterable[int]) -> str:
        return " ".join(self.words[i] for i in ids if i)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.words[2:]))

    @classmethod
    def load(cls, path: str | Path) -> Vocabulary:
        return cls(json.loads(Path(path).read_text()))
