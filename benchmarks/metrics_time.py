"""Host-side blocks-world timings: scoring a whole BAP split with the BAP v2 metrics (fairer F1 and
the rest), and generating synthetic BAP items with each dialogue simulator.

For scoring, with the corpus (``--mdc DIR``) the dev split is scored against itself replayed in recorded order;
without it, 1331 synthetic items (the dev split's size) with random predictions.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks import first_and_median_seconds


def bap_scoring_time(mdc_dir: str | None = None, repeats: int = 3) -> dict:
    """Seconds to compute ``item_counts`` + ``summarize`` for a dev-sized split: first call
    (includes compilation) and the median of ``repeats`` later calls."""
    from blocksworld.grid import PLACE, to_grid
    from blocksworld.metrics import item_counts, replay, summarize

    if mdc_dir:
        from blocksworld.data import load_items

        items = load_items(mdc_dir, ("dev",))["dev"]
        predictions = [i.actions for i in items]
        source = "MDC dev"
    else:
        from blocksworld.synthetic import generate_items

        items = generate_items(1331, seed=0)
        rng = np.random.default_rng(0)
        predictions = [[(PLACE, *map(int, rng.integers(-5, 6, 3) * (1, 0, 1) + (0, 1, 0)), int(rng.integers(1, 7)))] for _ in items]
        source = "synthetic"
    start = np.stack([to_grid(i.start) for i in items])
    pred = np.stack([replay(s, p) for s, p in zip(start, predictions)])
    gold = np.stack([to_grid(i.end) for i in items])
    empty = ~start.reshape(len(items), -1).any(1)

    def score():
        return summarize(item_counts(start, pred, gold), empty)

    first, median = first_and_median_seconds(score, repeats)
    return {"items": len(items), "source": source, "first_call_s": first, "median_s": median}


def synthetic_generation_rate(games: int = 1000, repeats: int = 3) -> list[dict]:
    """BAP items per minute of each simulator (``blocksworld.synthetic``), generating ``games``
    games per repeat (different seeds), median over ``repeats``."""
    from blocksworld.synthetic import SIMULATORS, simulate

    rows = []
    for simulator in SIMULATORS:
        rates, items = [], 0
        for seed in range(repeats):
            t0 = time.perf_counter()
            items = sum(len(g.items) for g in simulate(simulator, games, seed))
            rates.append(items / (time.perf_counter() - t0) * 60)
        rows.append(
            {
                "simulator": simulator,
                "games": games,
                "items": items,
                "items_per_min_median": float(np.median(rates)),
                "items_per_min_min": float(min(rates)),
                "repeats": repeats,
            }
        )
    return rows
