"""Hexagons: paint a 10 x 18 hexagon board by natural-language instructions (Lachmy et al., 2022).

``make("Hexagons-Paint-v1")`` gives ``(env, params)`` over synthetic procedures;
``make("Hexagons-Paint-v1", procedures=hexagons.data.load_split("train.jsonl"))`` over the released
data (``hexagons.data``), scored with ``hexagons.metrics``.

Importing the package is cheap: the env (and with it JAX and gymnax) loads on first use of
``make`` or of a name it exports, so a data loader such as ``hexagons.data`` starts in a fraction
of a second.
"""

from __future__ import annotations

import difflib
import importlib.metadata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from hexagons.env import EnvParams, HexagonsPaint
    from hexagons.procedure import Procedure
    from hexagons.tokenizer import Vocabulary

__distribution__ = "instructworlds"
"""The distribution this package comes from."""
try:
    __version__ = importlib.metadata.version(__distribution__)
except importlib.metadata.PackageNotFoundError:  # a source tree on the path, not installed
    __version__ = "0+unknown"

REGISTERED_IDS = ("Hexagons-Paint-v1",)

__getattr__, __dir__, _lazy = lazy_loader.attach(
    __name__,
    submodules=[
        "abstractions",
        "baseline",
        "data",
        "env",
        "geometry",
        "kg",
        "metrics",
        "procedure",
        "render",
        "synthetic",
        "text",
        "tokenizer",
    ],
    submod_attrs={
        "env": ["STOP", "EnvParams", "EnvState", "HexagonsPaint", "Observation"],
        "procedure": ["Procedure"],
        "tokenizer": ["Vocabulary"],
    },
)
__all__ = ["REGISTERED_IDS", "__version__", "make", *_lazy]


def make(
    env_id: str,
    procedures: Sequence[Procedure] | str | Path | None = None,
    vocabulary: Vocabulary | None = None,
    *,
    max_paints_per_instruction: int = 180,
    max_steps_in_episode: int = 20_000,
    **env_kwargs,
) -> tuple[HexagonsPaint, EnvParams]:
    """Build a registered Hexagons env and its params.

    procedures: the episodes (default: 256 synthetic procedures, seed 0), or the path of a JSON lines
        file of procedures in the released format (``hexagons.data.load_split`` validates it).
    vocabulary: token ids (default: built from ``procedures``' texts; pass the train split's
        vocabulary when building params for dev/test with ``env.make_params``).
    env_kwargs: ``max_instructions``, ``max_tokens``, ``history``, ``oracle_board``,
        ``observe_action_mask`` (see ``HexagonsPaint``).
    """
    if not isinstance(env_id, str) or env_id not in REGISTERED_IDS:
        close = difflib.get_close_matches(env_id, REGISTERED_IDS, n=3, cutoff=0.4) if isinstance(env_id, str) else []
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown Hexagons env id {env_id!r}.{hint} Registered: {', '.join(REGISTERED_IDS)}")
    from hexagons.env import HexagonsPaint
    from hexagons.tokenizer import Vocabulary

    if isinstance(procedures, (str, Path)):
        from hexagons.data import load_split

        procedures = load_split(procedures)
    if procedures is None:
        from hexagons.synthetic import generate

        procedures = generate(256, seed=0)
    if vocabulary is None:
        vocabulary = Vocabulary.build(text for p in procedures for text in p.texts)
    env = HexagonsPaint(vocabulary, **env_kwargs)
    params = env.make_params(procedures, max_paints_per_instruction=max_paints_per_instruction, max_steps_in_episode=max_steps_in_episode)
    return env, params
