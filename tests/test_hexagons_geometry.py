import itertools
import math

import numpy as np
import pytest

from hexagons import geometry as g


@pytest.mark.parametrize(
    "index, expected",
    [
        (0, {1, 18}),
        (1, {0, 2, 18, 19, 20}),
        (17, {16, 34, 35}),
        (162, {144, 145, 163}),
        (179, {161, 178}),
        (77, {59, 76, 78, 94, 95, 96}),
        (78, {59, 60, 61, 77, 79, 96}),
    ],
)
def test_neighbours_match_the_released_layout(index, expected):
    assert set(g.neighbours(index)) == expected


def test_degree_counts_and_edges():
    degrees = np.bincount([len(g.neighbours(i)) for i in range(g.NUM_TILES)])
    assert dict(enumerate(degrees))[6] == 128
    assert (degrees[5], degrees[4], degrees[3], degrees[2]) == (16, 16, 18, 2)
    edges = {frozenset((i, j)) for i in range(g.NUM_TILES) for j in g.neighbours(i)}
    assert len(edges) == 485
    assert (g.NEIGHBOUR_TABLE >= 0).sum() == 2 * 485


def test_neighbours_are_exactly_the_tiles_at_unit_distance():
    for i, j in itertools.combinations(range(g.NUM_TILES), 2):
        (x1, y1), (x2, y2) = g.centre(i), g.centre(j)
        adjacent = math.isclose(math.hypot(x1 - x2, y1 - y2), math.sqrt(3.0), rel_tol=1e-9)
        assert adjacent == (j in g.neighbours(i))


def test_diagonals_from_the_paper_example():
    # Procedure 0 step 2 of the release: a "<" from tile 77 paints 78, 61, 62 and 96, 97, 116.
    assert g.line(78, "up_right", 3) == [78, 61, 62]
    assert g.line(96, "down_right", 3) == [96, 97, 116]
    assert g.line(0, "up_right", 3) == [0, -1, -1]


def test_axial_round_trip():
    for i in range(g.NUM_TILES):
        assert g.from_axial(*g.to_axial(i)) == i


def _distance(a, b):
    (x1, y1), (x2, y2) = g.centre(a), g.centre(b)
    return math.hypot(x1 - x2, y1 - y2)


@pytest.mark.parametrize("transform", [(g.rotate, 1), (g.rotate, 2), (g.rotate, 3), (g.reflect, "vertical"), (g.reflect, "horizontal")])
def test_transformations_are_isometries(transform):
    fn, arg = transform
    about = g.tile_index(4, 8)
    mapped = {i: fn(i, about, arg) for i in range(g.NUM_TILES)}
    assert mapped[about] == about
    kept = [i for i, m in mapped.items() if m >= 0]
    assert len({mapped[i] for i in kept}) == len(kept)
    for i, j in itertools.combinations(kept[::7], 2):
        assert math.isclose(_distance(i, j), _distance(mapped[i], mapped[j]), abs_tol=1e-9)


def test_rotation_is_clockwise_and_reflections_mirror():
    about = g.tile_index(4, 8)
    up = g.neighbour(about, "up")
    assert g.rotate(up, about, 1) == g.neighbour(about, "up_right")
    assert g.rotate(up, about, 6) == up
    right = g.tile_index(4, 10)  # same row, two columns right: same parity
    assert g.reflect(right, about, "vertical") == g.tile_index(4, 6)
    assert g.reflect(up, about, "horizontal") == g.neighbour(about, "down")
    assert g.reflect(g.tile_index(0, 0), about, "vertical") == g.tile_index(0, 16)


def test_transform_board_drops_tiles_that_leave_the_board():
    board = np.zeros(g.NUM_TILES, np.int8)
    board[[g.tile_index(0, 8), g.tile_index(4, 9)]] = [4, 5]
    flipped = g.transform_board(board, g.tile_map(g.reflect, g.tile_index(4, 8), "horizontal"))
    assert flipped[g.tile_index(8, 8)] == 4
    assert flipped.sum() == 4 + 5 and (flipped != 0).sum() == 2
