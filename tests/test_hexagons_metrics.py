import jax
import numpy as np
import pytest

from hexagons.metrics import action_scores, board_scores, mean_scores, scores_from_counts


def _board(**tiles):
    b = np.zeros(180, np.int8)
    for k, v in tiles.items():
        b[int(k[1:])] = v
    return b


def test_paper_figure_5_example():
    # Board-based: gold has 5 coloured tiles, the prediction 7, the 3 red tiles are shared -> F1 0.5.
    gold = _board(t0=1, t1=1, t10=4, t11=4, t12=4)
    pred = _board(t0=3, t1=3, t10=4, t11=4, t12=4, t20=2, t21=2)
    b = board_scores(gold, pred)
    assert (float(b.precision), float(b.recall)) == pytest.approx((3 / 7, 3 / 5))
    assert float(b.f1) == pytest.approx(0.5) and float(b.exact_match) == 0
    # Action-based: gold takes 3 actions, the prediction 5, 1 red tile shared -> F1 0.25.
    before = _board(t0=1, t1=1)
    gold_after = _board(t0=1, t1=1, t10=4, t11=4, t12=4)
    pred_after = _board(t0=1, t1=1, t10=4, t30=4, t31=4, t32=4, t33=4)
    a = action_scores(before, gold_after, before, pred_after)
    assert (float(a.precision), float(a.recall)) == pytest.approx((1 / 5, 1 / 3))
    assert float(a.f1) == pytest.approx(0.25) and float(a.exact_match) == 0


def test_erasures_and_recolourings_are_actions():
    before = _board(t5=4, t6=4)
    gold = _board(t5=0, t6=5)
    a = action_scores(before, gold, before, gold)
    assert float(a.f1) == 1 and float(a.exact_match) == 1
    wrong_colour = _board(t5=0, t6=6)
    assert float(action_scores(before, gold, before, wrong_colour).f1) == pytest.approx(0.5)


def test_empty_conventions():
    blank = np.zeros(180, np.int8)
    s = action_scores(blank, blank, blank, blank)
    assert bool(s.both_empty) and float(s.f1) == 1 and float(s.exact_match) == 1
    one_empty = action_scores(blank, _board(t3=2), blank, blank)
    assert float(one_empty.f1) == 0 and float(one_empty.precision) == 0 and not bool(one_empty.both_empty)
    batch = scores_from_counts(np.array([0, 1, 0]), np.array([0, 2, 1]), np.array([0, 1, 0]))
    one, excl = mean_scores(batch, "one"), mean_scores(batch, "exclude")
    assert one["steps"] == 3 and excl["steps"] == 2
    assert one["f1"] == pytest.approx(100 * (1 + 2 / 3 + 0) / 3)
    assert excl["f1"] == pytest.approx(100 * (2 / 3) / 2)
    with pytest.raises(ValueError, match="convention"):
        mean_scores(batch, "ignore")


def test_vectorised_matches_per_step_and_jits():
    rng = np.random.default_rng(0)
    before = rng.integers(0, 8, (16, 180)) * (rng.random((16, 180)) < 0.2)
    gold = np.where(rng.random((16, 180)) < 0.1, rng.integers(0, 8, (16, 180)), before)
    pred = np.where(rng.random((16, 180)) < 0.1, rng.integers(0, 8, (16, 180)), before)
    batched = jax.jit(action_scores)(before, gold, before, pred)
    for i in range(16):
        single = action_scores(before[i], gold[i], before[i], pred[i])
        g = {(t, gold[i, t]) for t in range(180) if gold[i, t] != before[i, t]}
        h = {(t, pred[i, t]) for t in range(180) if pred[i, t] != before[i, t]}
        f1 = 2 * len(g & h) / (len(g) + len(h)) if g & h else (1.0 if not g and not h else 0.0)
        assert float(single.f1) == pytest.approx(f1, abs=1e-6)
        assert float(batched.f1[i]) == pytest.approx(f1, abs=1e-6)
