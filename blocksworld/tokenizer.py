"""Dialogue tokens for BAP items: the history window the reference model reads, as word ids.

The window (``dialogue_window``) walks the history backwards and stops at the second place where an
action is directly followed by a chat line: it holds the chat since the previous action run, that
run's actions, and the chat before it. ``<dialogue>`` starts the window when it reaches the start
of the game; the system line "Mission has started." is skipped. Utterances are wrapped in
``<architect> ... </architect>`` / ``<builder> ... </builder>``; actions become single tokens
``<builder_putdown_red>`` / ``<builder_pickup_red>``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from blocksworld.grid import COLOURS, PICK, PLACE
from blocksworld.item import ARCHITECT, BUILDER

PAD, UNK, START = "<pad>", "<unk>", "<dialogue>"
SPECIAL = (PAD, UNK, START, "<architect>", "</architect>", "<builder>", "</builder>") + tuple(
    f"<builder_{kind}_{colour}>" for kind in (PLACE, PICK) for colour in COLOURS
)
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+|[^\sa-z\d]")
_SYSTEM_LINE = "mission has started."


def words(text: str) -> list[str]:
    """Lower-cased words, numbers and punctuation marks of an utterance."""
    return _WORD.findall(text.lower())


def dialogue_window(history: Sequence[tuple[str, str]]) -> list[str]:
    """Tokens of the window of ``history`` (entries ``(speaker or action kind, text or colour)``)."""
    entries: list[tuple[str, str]] = []
    boundaries = 0
    for j in range(len(history) - 1, -1, -1):
        kind = history[j][0]
        if kind in (PLACE, PICK) and j + 1 < len(history) and history[j + 1][0] not in (PLACE, PICK):
            boundaries += 1
            if boundaries == 2:
                break
        entries.append(history[j])
    else:
        entries.append((START, ""))
    tokens: list[str] = []
    for kind, text in reversed(entries):
        if kind == START:
            tokens.append(START)
        elif kind in (PLACE, PICK):
            tokens.append(f"<builder_{kind}_{text}>")
        elif text.strip().lower() != _SYSTEM_LINE or kind != BUILDER:
            tag = "architect" if kind == ARCHITECT else "builder"
            tokens += [f"<{tag}>", *words(text), f"</{tag}>"]
    return tokens


class Vocabulary:
    """Word <-> id; ids 0 and 1 are padding and unknown words, then the special tokens."""

    def __init__(self, vocabulary_words: Iterable[str]):
        self.words = list(SPECIAL) + [w for w in dict.fromkeys(vocabulary_words) if w not in SPECIAL]
        self.ids = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def build(cls, token_lists: Iterable[Sequence[str]], min_count: int = 1) -> Vocabulary:
        counts = Counter(t for tokens in token_lists for t in tokens)
        return cls(w for w, c in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0])) if c >= min_count)

    def __len__(self) -> int:
        return len(self.words)

    def encode(self, tokens: Sequence[str], max_tokens: int) -> np.ndarray:
        """(max_tokens,) int32: the **last** max_tokens tokens (the most recent dialogue), 0-padded."""
        ids = [self.ids.get(t, 1) for t in tokens][-max_tokens:]
        out = np.zeros(max_tokens, dtype=np.int32)
        out[: len(ids)] = ids
        return out

    def decode(self, ids: Iterable[int]) -> str:
        return " ".join(self.words[i] for i in ids if i)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.words[len(SPECIAL) :]))

    @classmethod
    def load(cls, path: str | Path) -> Vocabulary:
        return cls(json.loads(Path(path).read_text()))
