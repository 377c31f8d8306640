"""Throughput benchmarks of the suite's worlds (``python -m benchmarks``)."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

RESULTS_OUT = "results folder (default runs/benchmarks/<device>; a file there is replaced only with --overwrite)"
"""The ``--out`` help of every benchmark that writes results."""


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


def write_results(out: Path, stem: str, payload: dict, text: str) -> tuple[Path, Path]:
    """Print ``text`` and write ``<stem>.json`` (``payload``) and ``<stem>.md`` (``text``) under
    ``out``, each whole or not at all; returns both paths."""
    from baselines.worlds.cli import write_atomic

    print(text)
    out.mkdir(parents=True, exist_ok=True)
    paths = out / f"{stem}.json", out / f"{stem}.md"
    write_atomic(paths[0], json.dumps(payload, indent=1))
    write_atomic(paths[1], text)
    return paths
