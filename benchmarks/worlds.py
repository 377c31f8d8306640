"""The worlds the benchmarks know: id -> factory returning ``(env, params)`` at default settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _hexagons() -> tuple[Any, Any]:
    import hexagons

    return hexagons.make("Hexagons-Paint-v1")


WORLDS: dict[str, Callable[[], tuple[Any, Any]]] = {
    "Hexagons-Paint-v1": _hexagons,
}
