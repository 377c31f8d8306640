"""Throughput benchmarks of the suite's worlds (``python -m benchmarks``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def first_and_median_seconds(call: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(seconds of the first ``call()``, compilation included; median seconds of ``repeats`` later calls)."""
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times)


def provenance_line(info: dict) -> str:
    """The first line of a results file: device, versions, commit and date (``device_info``)."""
    return (
        f"Device: {info['device']} ({info['host_cpus']} host CPUs), jax {info['jax']}, jaxlib {info.get('jaxlib', '?')}; "
        f"suite {info.get('suite', '?')}, commit {info.get('commit', '?')}, {info.get('date', '?')}."
    )
