"""CrafText: the Craftax worlds with natural-language instructions and JIT-compiled checkers.

``make("CrafText-Classic-Symbolic-v1")`` gives ``(env, params)`` over the shipped medium training
set; ``craftext.Goal`` builds goals; ``craftext.start`` / ``craftext.check`` validate a goal against
Craftax states without the env.

Importing the package is cheap: the env (and with it JAX, gymnax and Craftax) loads on first use of
``make`` or of a name it exports.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from craftext.env import CrafText, EnvParams
    from craftext.goals import Goal
    from craftext.tokenizer import Vocabulary

__distribution__ = "instructworlds"
"""The distribution this package comes from (the official CrafText wheel has a ``craftext`` package too)."""
try:
    __version__ = importlib.metadata.version(__distribution__)
except importlib.metadata.PackageNotFoundError:  # a source tree on the path, not installed
    __version__ = "0+unknown"

REGISTERED_IDS = {
    "CrafText-Classic-Symbolic-v1": (True, False),
    "CrafText-Classic-Pixels-v1": (True, True),
    "CrafText-Symbolic-v1": (False, False),
    "CrafText-Pixels-v1": (False, True),
}

__getattr__, __dir__, _lazy = lazy_loader.attach(
    __name__,
    submodules=[
        "checkers",
        "dataset",
        "env",
        "expert",
        "generator",
        "goalfile",
        "goals",
        "kg",
        "lexicon",
        "official",
        "placed",
        "progress",
        "text",
        "tokenizer",
        "validate",
        "world",
    ],
    submod_attrs={
        "env": ["CrafText", "EnvParams", "EnvState", "Observation"],
        "goals": ["Goal", "GoalError", "Scenario"],
        "progress": ["Progress", "check", "start"],
        "tokenizer": ["Vocabulary"],
    },
)
__all__ = ["REGISTERED_IDS", "__version__", "make", *_lazy]


def make(
    env_id: str,
    goals: Sequence[tuple[Goal, Sequence[str]]] | str | os.PathLike | None = None,
    vocabulary: Vocabulary | None = None,
    *,
    level: str = "medium",
    split: str = "train",
    max_tokens: int = 72,
    **settings,
) -> tuple[CrafText, EnvParams]:
    """Build a registered CrafText env and its params.

    goals: ``(Goal, phrasings)`` pairs, or the path of a goal file (``craftext.goalfile``; its
        ``split`` goals), default: the shipped dataset's ``level`` / ``split`` for this Craftax
        version. vocabulary: token ids (default: the shipped vocabulary, which also covers
        every test split). settings: ``craftax_reward_scale``, ``max_steps_in_episode``.
    """
    if not isinstance(env_id, str) or env_id not in REGISTERED_IDS:
        close = difflib.get_close_matches(env_id, list(REGISTERED_IDS), n=3, cutoff=0.4) if isinstance(env_id, str) else []
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown CrafText env id {env_id!r}.{hint} Registered: {', '.join(REGISTERED_IDS)}")
    from craftext.env import CrafText

    classic, pixels = REGISTERED_IDS[env_id]
    if isinstance(goals, (str, os.PathLike)):
        from craftext.goalfile import split_pairs

        goals = split_pairs(goals, classic, split)
    if goals is None or vocabulary is None:
        from craftext import dataset

        if goals is None:
            goals = dataset.load(level, split, classic=classic).pairs()
        if vocabulary is None:
            vocabulary = dataset.vocabulary()
    env = CrafText(vocabulary, classic=classic, pixels=pixels, max_tokens=max_tokens)
    return env, env.make_params(goals, **settings)
