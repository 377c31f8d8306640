"""BAP v2 metrics on hand-made items whose scores are derived by hand in the comments."""

import numpy as np
import pytest

from blocksworld.grid import PICK, PLACE, colour_code, to_grid
from blocksworld.metrics import item_counts, net_capacity, replay, score_items, summarize

R, B, O, G = (colour_code(c) for c in ("red", "blue", "orange", "green"))  # noqa: E741 (colour initials)


def f1(summary, metric, subset="all", kind="micro_f1"):
    return summary[subset][metric][kind]


def test_place_and_remove_cancel_in_net_actions():
    # pred: place red (0,1,0), remove it, place blue (1,1,0) -> net {place blue}; gold {place blue}
    s = score_items([[]], [[(PLACE, 0, 1, 0, R), (PICK, 0, 1, 0, R), (PLACE, 1, 1, 0, B)]], [[(1, 1, 0, B)]])
    assert f1(s, "strict") == 100


def test_strict_counts_on_a_non_empty_board():
    start = [(0, 1, 0, R), (1, 1, 0, R)]
    # gold: remove (1,1,0) red, place blue on (0,2,0) -> net {pick R@(1,1,0), place B@(0,2,0)}
    gold_end = [(0, 1, 0, R), (0, 2, 0, B)]
    # pred: remove (1,1,0) red, place GREEN on (0,2,0), place blue on (2,1,0)
    pred = [(PICK, 1, 1, 0, R), (PLACE, 0, 2, 0, G), (PLACE, 2, 1, 0, B)]
    s = score_items([start], [pred], [gold_end])
    # matched 1 (the removal) of 3 predicted, 2 reference: P 1/3, R 1/2, F1 = 2/5
    assert f1(s, "strict") == pytest.approx(40.0)
    assert f1(s, "fairer") == pytest.approx(40.0)  # not an empty-board item: no alignment
    # Type: pred {pick 1, place 2}, gold {pick 1, place 1} -> matched 2: F1 = 4/5
    assert f1(s, "type") == pytest.approx(80.0)
    # Colour: pred {pick R, place G, place B}, gold {pick R, place B} -> matched 2: F1 = 4/5
    assert f1(s, "colour") == pytest.approx(80.0)
    # Location: pred {(1,1,0), (0,2,0), (2,1,0)}, gold {(1,1,0), (0,2,0)} -> matched 2: F1 = 4/5
    assert f1(s, "location") == pytest.approx(80.0)
    assert s["all"]["strict"]["items"] == 1 and s["NEB"]["strict"]["items"] == 1 and s["EB"]["strict"]["items"] == 0


def test_recolour_is_two_net_actions():
    start = [(0, 1, 0, R)]
    s = score_items([start], [[(PICK, 0, 1, 0, R), (PLACE, 0, 1, 0, B)]], [[(0, 1, 0, B)]])
    counts = item_counts(
        to_grid(start)[None], replay(to_grid(start), [(PICK, 0, 1, 0, R), (PLACE, 0, 1, 0, B)])[None], to_grid([(0, 1, 0, B)])[None]
    )
    assert counts[0, 0].tolist() == [2, 2, 2] and f1(s, "strict") == 100


def _u_shape(x0, z0, colour, rotate=False):
    """The paper's Figure 7: an orange 3x3 U on the ground (7 blocks)."""
    cells = [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (2, 1), (2, 2)]
    if rotate:
        cells = [(z, -x) for x, z in cells]
    return [(x0 + x, 1, z0 + z, colour) for x, z in cells]


def test_paper_figure_7_any_u_on_the_ground_gets_fairer_f1_one():
    gold = _u_shape(-3, -3, O)
    pred = [(PLACE, *b) for b in _u_shape(1, 2, O, rotate=True)]
    s = score_items([[]], [pred], [gold])
    assert f1(s, "strict") == 0
    assert f1(s, "fairer") == 100 and f1(s, "location") == 100 and f1(s, "shape") == 100
    wrong_colour = [(PLACE, *b) for b in _u_shape(1, 2, B, rotate=True)]
    s = score_items([[]], [wrong_colour], [gold])
    assert f1(s, "fairer") == 0 and f1(s, "type") == 100 and f1(s, "colour") == 0


def test_fairer_alignment_stays_inside_the_region_and_prefers_identity():
    # gold: a 3-block red row at x = -5..-3; pred: the same row at x = 3..5 plus a blue block at x = -5.
    # The only translation matching all 3 red blocks would push the blue block out of the region, so
    # the best valid alignment keeps the blue block: fairer matches 3 of 4 predicted: F1 = 6/7.
    gold = [(-5, 1, 0, R), (-4, 1, 0, R), (-3, 1, 0, R)]
    pred = [(PLACE, x, 1, 0, R) for x in (3, 4, 5)] + [(PLACE, -5, 1, 0, B)]
    s = score_items([[]], [pred], [gold])
    assert f1(s, "fairer") == pytest.approx(100 * 6 / 7, abs=1e-4)
    # an exact prediction stays where it is
    exact = score_items([[]], [[(PLACE, *b) for b in gold]], [gold])
    assert f1(exact, "strict") == f1(exact, "fairer") == 100


def test_shape_aligns_net_actions_in_3d_for_every_item():
    start = [(0, 1, 0, R)]
    gold_end = start + [(0, 2, 0, B), (0, 3, 0, B)]  # a blue tower on the red block
    pred = [(PLACE, 3, 1, 3, B), (PLACE, 3, 2, 3, B)]  # the same tower elsewhere, on the ground
    s = score_items([start], [pred], [gold_end])
    assert f1(s, "strict") == 0 and f1(s, "location") == 0
    assert f1(s, "shape") == 100 and f1(s, "colour") == 100


def test_micro_macro_and_eb_neb_breakdown():
    starts = [[], [(0, 1, 0, R)]]
    golds = [[(0, 1, 0, B)], [(0, 1, 0, R), (1, 1, 0, B), (2, 1, 0, B), (3, 1, 0, B)]]
    preds = [[(PLACE, 0, 1, 0, B)], [(PLACE, 1, 1, 0, B)]]  # item 1: F1 1; item 2: P 1, R 1/3, F1 1/2
    s = score_items(starts, preds, golds)
    assert f1(s, "strict", kind="macro_f1") == pytest.approx(75.0)
    # micro: matched 2, predicted 2, reference 4 -> F1 = 4/6
    assert f1(s, "strict") == pytest.approx(100 * 4 / 6)
    assert f1(s, "strict", "EB") == 100 and f1(s, "strict", "NEB") == pytest.approx(50.0)


def test_both_empty_scores_one_and_capacity_bounds():
    s = score_items([[(0, 1, 0, R)]], [[]], [[(0, 1, 0, R)]])
    assert f1(s, "strict") == 100 and f1(s, "shape") == 100
    grids = np.zeros((2, 11, 9, 11), np.int8)
    ends = grids.copy()
    ends[1, :, 0, :] = 1  # 121 placements
    assert net_capacity(grids, ends) == 128
    assert summarize(np.zeros((0, 6, 3)), np.zeros(0, bool))["EB"]["strict"]["items"] == 0
