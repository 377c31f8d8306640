"""Blocks world: the Minecraft Collaborative Building Task grid (11 x 9 x 11, 6 colours) for Builder
Action Prediction (BAP v2) and for building target structures.

``make("BlocksWorld-BAP-v1")`` / ``make("BlocksWorld-Build-v1")`` give ``(env, params)`` over
simulated items (``blocksworld.synthetic``); pass ``items=`` (e.g. from
``blocksworld.data.load_items``) for the corpus.

Importing the package is cheap: the env (and with it JAX and gymnax) loads on first use of
``make`` or of a name it exports.
"""

from __future__ import annotations

import difflib
import importlib.metadata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from blocksworld.env import BlocksWorld, EnvParams
    from blocksworld.item import BapItem
    from blocksworld.tokenizer import Vocabulary

__distribution__ = "instructworlds"
"""The distribution this package comes from."""
try:
    __version__ = importlib.metadata.version(__distribution__)
except importlib.metadata.PackageNotFoundError:  # a source tree on the path, not installed
    __version__ = "0+unknown"

# ``from __future__ import annotations`` binds the name ``annotations``, which would hide the lazily
# imported submodule ``blocksworld.annotations``
del annotations

REGISTERED_IDS = {"BlocksWorld-BAP-v1": "bap", "BlocksWorld-Build-v1": "build"}

__getattr__, __dir__, _lazy = lazy_loader.attach(
    __name__,
    submodules=[
        "annotations",
        "augment",
        "curriculum",
        "data",
        "env",
        "grid",
        "item",
        "kg",
        "lexicon",
        "metrics",
        "render",
        "replay",
        "shapes",
        "simulators",
        "spatial",
        "synthetic",
        "targets",
        "text",
        "tokenizer",
    ],
    submod_attrs={
        "env": ["BlocksWorld", "EnvParams", "EnvState", "Observation"],
        "grid": ["STOP"],
        "item": ["BapItem"],
        "tokenizer": ["Vocabulary"],
    },
)
__all__ = ["REGISTERED_IDS", "__version__", "make", *_lazy]


def make(
    env_id: str,
    items: Sequence[BapItem] | str | Path | None = None,
    vocabulary: Vocabulary | None = None,
    *,
    simulator: str | None = None,
    num_items: int = 256,
    seed: int = 0,
    max_steps_in_episode: int = 64,
    **env_kwargs,
) -> tuple[BlocksWorld, EnvParams]:
    """Build a registered blocks-world env and its params.

    items: BAP items (BAP) or target items (Build; the reference end structure is the target), or
        for Build the path of a user target file (``blocksworld.targets``: all its splits).
        Default: ``num_items`` synthetic items / targets of ``simulator`` (``random``, ``blocks`` or
        ``shapes``; default ``random`` for BAP, ``blocks`` for Build) and ``seed``; draw fresh ones
        of the same shapes with ``blocksworld.synthetic.endless_params``.
    vocabulary: dialogue token ids (default: built from the items' dialogue windows; for simulated
        items, every word the simulators can say).
    env_kwargs: ``max_tokens``, ``observe_action_mask``.
    """
    if not isinstance(env_id, str) or env_id not in REGISTERED_IDS:
        close = difflib.get_close_matches(env_id, list(REGISTERED_IDS), n=3, cutoff=0.4) if isinstance(env_id, str) else []
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown blocks-world env id {env_id!r}.{hint} Registered: {', '.join(REGISTERED_IDS)}")
    from blocksworld.env import BlocksWorld
    from blocksworld.tokenizer import Vocabulary, dialogue_window

    task = REGISTERED_IDS[env_id]
    if isinstance(items, (str, Path)):
        if task != "build":
            raise ValueError(f"a target file is for BlocksWorld-Build-v1; {env_id} takes BAP items (blocksworld.data.load_items)")
        from blocksworld.targets import load_targets

        items = load_targets(items)
    if items is None:
        from blocksworld import synthetic

        simulator = simulator or ("random" if task == "bap" else "blocks")
        vocabulary = vocabulary or synthetic.vocabulary()
        env = BlocksWorld(vocabulary, task=task, **env_kwargs)
        return env, synthetic.episode_params(env, simulator, num_items, seed, max_steps_in_episode=max_steps_in_episode)
    if simulator is not None:
        raise ValueError("pass either items or simulator, not both")
    if vocabulary is None:
        vocabulary = Vocabulary.build(dialogue_window(i.history) for i in items)
    env = BlocksWorld(vocabulary, task=task, **env_kwargs)
    return env, env.make_params(items, max_steps_in_episode=max_steps_in_episode)
