import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tantrix_pi.grid import (
    DIRECTIONS,
    cell_at,
    cells_at,
    centre,
    centres,
    corners,
    direction_to,
    distance,
    edge_angle,
    neighbour,
    neighbours,
    opposite,
    turn,
)

cells = st.tuples(st.integers(-30, 30), st.integers(-30, 30))


def test_direction_zero_is_north_east_and_numbering_is_clockwise():
    for d in range(6):
        x, y = centre(DIRECTIONS[d])
        assert math.isclose(math.degrees(math.atan2(y, x)) % 360, edge_angle(d) % 360)
        assert math.isclose(math.hypot(x, y), math.sqrt(3))


def test_corner_i_lies_between_edges_i_and_i_plus_1():
    cs = corners((0, 0), 1.0)
    for i, (x, y) in enumerate(cs):
        assert math.isclose(math.degrees(math.atan2(y, x)) % 360, (edge_angle(i) + 30) % 360)


@given(cells, st.integers(0, 5))
def test_neighbour_and_opposite_go_back(c, d):
    n = neighbour(c, d)
    assert neighbour(n, opposite(d)) == c
    assert direction_to(c, n) == d
    assert distance(c, n) == 1
    assert neighbours(c)[d] == n


@given(cells, st.integers(0, 5))
def test_turning_the_grid_maps_direction_d_to_d_plus_1(c, d):
    assert neighbour(turn(c), (d + 1) % 6) == turn(neighbour(c, d))
    assert turn(c, 6) == c


@given(cells, st.floats(-0.45, 0.45), st.floats(-0.45, 0.45), st.floats(5, 50))
def test_cell_at_inverts_centre_inside_the_hexagon(c, fx, fy, size):
    x, y = centre(c, size)
    assert cell_at(x + fx * size, y + fy * size, size) == c


@given(st.lists(cells, min_size=1, max_size=20), st.floats(-0.45, 0.45), st.floats(-0.45, 0.45), st.floats(5, 50))
def test_cells_at_inverts_centres_on_arrays(cs, fx, fy, size):
    points = centres(np.array(cs), size) + np.array([fx, fy]) * size
    assert [tuple(c) for c in cells_at(points, size)] == cs
