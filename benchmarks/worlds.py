"""The worlds the benchmarks measure, from the registry (``baselines.worlds``): each family's
benchmark ids with its ``Benchmark`` settings (reset strategy, CPU limits, scan lengths), and the
reference worlds a family is compared with (the bare Craftax world beside CrafText).

Cheap worlds use gymnax's own ``env.step`` (every finished world reset at once); worlds whose reset
generates a whole map use ``OptimisticResetVecEnv`` (``Benchmark.reset_ratio``).
"""

from __future__ import annotations

import argparse
import difflib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from baselines import worlds
from baselines.worlds.base import Benchmark, References


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
        references = family.facet(References)
        for name, reference in (references.named if references else {}).items():
            table[name] = BenchWorld(reference.make, reference.benchmark, reference.compared_with)
        for env_id in benchmark_of(family).ids or family.ids:
            table[env_id] = BenchWorld(functools.partial(family.make, env_id), benchmark_of(family))
    return table


def benchmark_of(family: worlds.WorldFamily) -> Benchmark:
    """How the benchmarks run a family: its ``Benchmark`` facet, else the defaults."""
    return family.facet(Benchmark) or Benchmark()


def family_benchmark(env_id: str) -> Benchmark:
    """The ``Benchmark`` settings of a registered id."""
    return benchmark_of(worlds.family_of(env_id))


def chosen_worlds(
    parser: argparse.ArgumentParser, names: list[str] | None, table: dict[str, BenchWorld] | None = None
) -> dict[str, BenchWorld]:
    """The worlds ``names`` of ``table`` (default ``bench_worlds()``; every one when ``names`` is
    None), in the order given; an unknown one is ``parser``'s error, naming the close and the known ones."""
    table = bench_worlds() if table is None else table
    unknown = [w for w in names or () if w not in table]
    if unknown:
        close = difflib.get_close_matches(unknown[0], table, n=3, cutoff=0.4)
        parser.error(f"unknown world {unknown[0]!r}; close: {close or 'none'}; known: {', '.join(table)}")
    return {w: table[w] for w in names} if names else table
