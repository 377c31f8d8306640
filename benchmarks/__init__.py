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
