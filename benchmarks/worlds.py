"""The worlds the benchmarks measure, from the registry (``baselines.worlds``): each family's
benchmark ids with its ``Benchmark`` settings (reset strategy, CPU limits, scan lengths), and the
reference worlds a family is compared with (the bare Craftax world beside CrafText).

Cheap worlds use gymnax's own ``env.step`` (every finished world reset at once); worlds whose reset
generates a whole map use ``OptimisticResetVecEnv`` (``Benchmark.reset_ratio``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from baselines import worlds
from baselines.worlds.base import Benchmark


@dataclass(frozen=True)
class BenchWorld:
    """make() -> (env, params); settings: how it is measured; compared_with: the world it is a
    reference for (None: a registered world)."""

    make: Callable[[], tuple[Any, Any]]
    settings: Benchmark
    compared_with: str | None = None


def bench_worlds() -> dict[str, BenchWorld]:
    """Name -> world, every family's references before its own ids, in registry order."""
    table: dict[str, BenchWorld] = {}
    for family in worlds.families():
        for name, reference in family.references.items():
            table[name] = BenchWorld(reference.make, reference.benchmark, reference.compared_with)
        for env_id in family.benchmark.ids or family.ids:
            table[env_id] = BenchWorld(functools.partial(family.make, env_id), family.benchmark)
    return table


def family_benchmark(env_id: str) -> Benchmark:
    """The ``Benchmark`` settings of a registered id."""
    return worlds.family_of(env_id).benchmark


def chosen_worlds(names: list[str] | None) -> dict[str, BenchWorld]:
    """The benchmark worlds ``names`` (every one when None), in the order given; SystemExit naming
    an unknown one."""
    table = bench_worlds()
    unknown = [w for w in names or () if w not in table]
    if unknown:
        raise SystemExit(f"error: unknown world {unknown[0]!r}; known: {', '.join(table)}")
    return {w: table[w] for w in names} if names else table
