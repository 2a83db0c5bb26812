import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from tantrix_pi.vision.assignment import best_assignment


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (6, 56), (40, 56), (56, 56), (70, 56), (9, 4)])
def test_the_same_total_as_scipy_on_matrices_with_collisions_and_ties(shape):
    rng = np.random.default_rng(sum(shape))
    for trial in range(30):
        # few distinct values: many rows want one column, many assignments tie
        gain = rng.integers(-6, 3, shape).astype(float) if trial % 2 else rng.normal(size=shape)
        gain[:, :2] += 5.0  # every row wants one of two columns
        rows, cols = best_assignment(gain)
        want_rows, want_cols = linear_sum_assignment(-gain)
        assert len(rows) == min(shape) and list(rows) == sorted(rows)
        assert len(set(rows)) == len(rows) and len(set(cols)) == len(cols)
        assert gain[rows, cols].sum() == pytest.approx(gain[want_rows, want_cols].sum())


def test_each_row_keeps_its_own_best_column_when_no_two_want_one():
    gain = np.array([[0.0, 5.0, 1.0], [4.0, 0.0, 1.0]])
    rows, cols = best_assignment(gain)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]


def test_a_row_gives_way_where_it_loses_least():
    # both rows want column 0; row 1 loses only 1 by taking column 1, row 0 would lose 8
    gain = np.array([[10.0, 2.0, 0.0], [9.0, 8.0, 0.0]])
    rows, cols = best_assignment(gain)
    assert cols.tolist() == [0, 1]
