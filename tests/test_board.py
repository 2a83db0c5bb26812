import pytest
from hypothesis import given
from hypothesis import strategies as st

from tantrix_pi.board import Board, BoardError, Placement
from tantrix_pi.grid import neighbours


def test_facing_reports_the_neighbours_colours_towards_an_empty_cell():
    b = Board([Placement(1, 1, 0, 0)])  # tile 1 east of (0, 0) shows edges[4] = 'B' westwards
    assert b.facing((0, 0)) == (None, "B", None, None, None, None)


def test_mismatch_found_once_with_cell_and_direction():
    b = Board([Placement(1, 0, 0, 0), Placement(2, 1, 0, 3)])
    assert b.mismatches() == [((0, 0), 1)]
    b2 = Board([Placement(1, 0, 0, 0), Placement(2, 1, 0, 4)])  # 2 turned 4 shows 'R' to the W; 1 shows 'R' E
    assert b2.mismatches() == []


def test_ring_encloses_a_hole_and_an_open_ring_does_not():
    ring = [Placement(t, q, r, 0) for t, (q, r) in enumerate(neighbours((0, 0)), start=1)]
    assert Board(ring).holes() == [(0, 0)]
    assert Board(ring[:-1]).holes() == []


@pytest.mark.parametrize(
    "tiles, message",
    [
        ([Placement(57, 0, 0, 0)], "unknown tile"),
        ([Placement(1, 0, 0, 6)], "outside 0..5"),
        ([Placement(1, 0, 0, 0), Placement(1, 1, 0, 0)], "twice"),
        ([Placement(1, 0, 0, 0), Placement(2, 0, 0, 0)], "two tiles in cell"),
    ],
)
def test_impossible_boards_are_refused_with_the_reason(tiles, message):
    with pytest.raises(BoardError, match=message):
        Board(tiles)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "not JSON"),
        ('{"format": "x", "tiles": []}', "format"),
        ('{"format": "tantrix-board/1", "tiles": [{"tile": 1, "q": 0, "r": 0}]}', "no 'rot'"),
        ('{"format": "tantrix-board/1", "tiles": [{"tile": "1", "q": 0, "r": 0, "rot": 0}]}', "whole number"),
    ],
)
def test_malformed_files_name_the_problem(text, message):
    with pytest.raises(BoardError, match=message):
        Board.from_json(text)


boards = st.lists(
    st.tuples(st.integers(1, 56), st.integers(-5, 5), st.integers(-5, 5), st.integers(0, 5)),
    max_size=20,
    unique_by=(lambda t: t[0], lambda t: (t[1], t[2])),
).map(lambda ts: Board(Placement(*t) for t in ts))


@given(boards)
def test_saved_board_loads_equal(b):
    assert Board.from_json(b.to_json()) == b


@given(boards, st.integers(0, 5), st.integers(-9, 9), st.integers(-9, 9))
def test_move_and_turn_keep_the_same_board_and_its_mismatch_count(b, k, dq, dr):
    moved = b.transformed(k, dq, dr)
    assert moved.same_as(b)
    assert len(moved.mismatches()) == len(b.mismatches())
    assert len(moved.holes()) == len(b.holes())


def test_a_different_turn_of_one_tile_is_a_different_board():
    a = Board([Placement(1, 0, 0, 0), Placement(2, 1, 0, 0)])
    b = Board([Placement(1, 0, 0, 0), Placement(2, 1, 0, 1)])
    assert not a.same_as(b)
