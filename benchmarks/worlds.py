"""The worlds the benchmarks know: id -> factory returning ``(env, params)`` at default settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _hexagons() -> tuple[Any, Any]:
    import hexagons

    return hexagons.make("Hexagons-Paint-v1")


def _blocksworld(env_id: str) -> Callable[[], tuple[Any, Any]]:
    def make() -> tuple[Any, Any]:
        import blocksworld

        return blocksworld.make(env_id)

    return make


WORLDS: dict[str, Callable[[], tuple[Any, Any]]] = {
    "Hexagons-Paint-v1": _hexagons,
    "BlocksWorld-BAP-v1": _blocksworld("BlocksWorld-BAP-v1"),
    "BlocksWorld-Build-v1": _blocksworld("BlocksWorld-Build-v1"),
}
