import itertools

import pytest
from helpers import tile_up

from tantrix_pi import rules
from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import neighbour, opposite
from tantrix_pi.tiles import ALL_NUMBERS


def rule_names(violations):
    return [v.rule for v in violations]


@pytest.mark.parametrize("start", range(6))
def test_three_consecutive_links_are_fitted_by_5_tiles_or_by_6_when_a_colour_repeats(start):
    space = (0, 0)
    for pattern in itertools.product("RYGB", repeat=3):
        if len(set(pattern)) == 1:
            continue
        dirs = [(start + i) % 6 for i in range(3)]
        want = {(neighbour(space, d), opposite(d)): c for d, c in zip(dirs, pattern, strict=True)}
        board = tile_up([neighbour(space, d) for d in dirs], want)
        assert [board.facing(space)[d] for d in dirs] == list(pattern)
        found = rules.fits(board, space, ALL_NUMBERS)
        tiles = {p.tile for p in found}
        assert len(tiles) == (5 if len(set(pattern)) == 3 else 6), pattern
        assert len(found) == len(tiles), "each fitting tile fits in one turn only"


def test_fits_offers_only_unplayed_tiles_that_match_every_neighbour():
    board = tile_up([(1, -1), (1, 0)])
    found = rules.fits(board, (0, 0))
    assert found and not {p.tile for p in found} & board.tiles
    for p in found:
        assert all(p.colour(d) == c for d, c in enumerate(board.facing((0, 0))) if c is not None)


def test_forced_spaces_are_lettered_in_reading_order_with_their_needs():
    board = tile_up([(q, 0) for q in range(5)] + [(0, -1), (4, -1), (4, 1)])
    assert rules.forced_spaces(board) == [(1, -1), (3, -1), (3, 1)]
    report = rules.forced_space_report(board)
    assert [(f.letter, f.cell) for f in report] == [("A", (1, -1)), ("B", (3, -1)), ("C", (3, 1))]
    assert report[2].needs == board.facing((3, 1)) and report[2].needs.count(None) == 3
    assert report[2].needs[0] == board[(4, 0)].colour(3)
    assert all(t not in board.tiles for f in report for t in f.fits)


def test_occupied_cell_and_tile_on_the_board_are_both_named():
    board = tile_up([(0, 0), (1, 0)])
    first = board[(0, 0)]
    second = board[(1, 0)]
    got = rules.why_illegal(board, Placement(second.tile, 0, 0, 0))
    assert rule_names(got) == [rules.CELL_OCCUPIED, rules.TILE_PLACED]
    assert f"tile {first.tile}" in got[0].message and "(1,0)" in got[1].message


def test_a_tile_away_from_the_tantrix_is_refused():
    board = tile_up([(0, 0)])
    got = rules.why_illegal(board, Placement(50, 5, 5, 0))
    assert rule_names(got) == [rules.NOT_TOUCHING]


def test_golden_rule_mismatch_names_both_cells_and_the_direction():
    board = tile_up([(0, 0)])
    good = rules.fits(board, (1, 0))[0]
    turns = [Placement(good.tile, 1, 0, k) for k in range(6)]
    bad = next(p for p in turns if p.colour(4) != good.colour(4))
    got = rules.why_illegal(board, bad)
    assert rule_names(got) == [rules.GOLDEN_RULE]
    assert got[0].cells == ((1, 0), (0, 0)) and got[0].direction == 4
    assert rules.why_illegal(board, good) == []


# The rule books' controlled-side figure: a straight edge (row r=0, q=0..5) with two tiles on top at its
# right end. A = (3,-1) is forced; filling it makes B = (2,-1) forced, then C = (1,-1).
FIGURE = [(q, 0) for q in range(6)] + [(4, -1), (5, -1)]


def fillable_row(board):
    board = board.copy()
    for cell in [(3, -1), (2, -1), (1, -1)]:
        found = rules.fits(board, cell)
        if not found:
            return False
        board.place(found[0])
    return True


@pytest.fixture(scope="module")
def figure():
    return tile_up(FIGURE, accept=fillable_row)


def a_fitting(board, cell):
    """A tile that fits `cell` and makes no hopeless space (so the test sees only the rule it is about)."""
    found = [p for p in rules.fits(board, cell)
             if rules.HOPELESS_SPACE not in rule_names(rules.why_illegal(board, p))]
    assert found, f"no tile fits {cell}"
    return found[0]


def test_filling_the_controlled_side_forces_a_then_b_then_c(figure):
    board = figure.copy()
    for cell in [(3, -1), (2, -1), (1, -1)]:
        assert rules.forced_spaces(board) == [cell]
        p = a_fitting(board, cell)
        assert rules.why_illegal(board, p) == []
        board.place(p)
    assert rules.forced_spaces(board) == []


def test_a_tile_where_the_row_would_end_in_a_four_sided_space_is_refused(figure):
    z = a_fitting(figure, (0, -1))
    got = rules.why_illegal(figure, z)
    assert rule_names(got) == [rules.CONTROLLED_SIDE]
    assert got[0].message == "restriction 3: controlled side from forced space at (3,-1); would make (2,-1) four-sided"


def test_exactly_the_cells_x_y_z_along_the_controlled_side_and_next_to_a_are_refused(figure):
    refused = set()
    for cell in figure.empty_neighbours():
        found = [p for p in rules.fits(figure, cell)
                 if rules.HOPELESS_SPACE not in rule_names(rules.why_illegal(figure, p))]
        assert found, f"some tile fits {cell}"
        names = {tuple(rule_names(rules.why_illegal(figure, p))) for p in found}
        assert len(names) == 1, "restrictions 2 and 3 depend on the cell only"
        if names != {()}:
            refused.add(cell)
    # Z where the row would end four-sided, Y and X inside the row before A is filled, and next to A
    assert refused == {(0, -1), (1, -1), (2, -1), (4, -2)}


def test_a_tile_next_to_an_open_forced_space_is_refused(figure):
    x = a_fitting(figure, (4, -2))
    got = rules.why_illegal(figure, x)
    assert rule_names(got) == [rules.FOUR_SIDED_SPACE]
    assert (3, -1) in got[0].cells


def test_extending_the_straight_edge_only_lengthens_the_row_and_is_legal(figure):
    assert rules.why_illegal(figure, a_fitting(figure, (-1, 0))) == []


def test_the_same_refusals_are_legal_once_the_bag_is_empty(figure):
    for cell in [(0, -1), (4, -2)]:
        assert rules.why_illegal(figure, a_fitting(figure, cell), bag_empty=True) == []


def test_two_forced_spaces_side_by_side_are_refused():
    board = tile_up([(0, 0), (1, 0), (2, 0), (3, 0), (0, -1)])
    got = rules.why_illegal(board, a_fitting(board, (3, -1)))
    assert rule_names(got) == [rules.CONTROLLED_SIDE]
    assert {(1, -1), (2, -1)} <= set(got[0].cells)


def test_three_red_links_into_one_space_are_refused_until_the_bag_is_empty():
    space = (0, 0)
    board = tile_up([(1, -1), (1, 0)], {((1, -1), 3): "R", ((1, 0), 4): "R"})
    red = [p for p in rules.fits(board, (0, 1)) if p.colour(5) == "R"]
    other = [p for p in rules.fits(board, (0, 1)) if p.colour(5) != "R"]
    assert red and other
    got = rules.why_illegal(board, red[0])
    assert rule_names(got) == [rules.HOPELESS_SPACE]
    assert space in got[0].cells and "three red links" in got[0].message
    assert rules.why_illegal(board, other[0]) == []
    assert rules.why_illegal(board, red[0], bag_empty=True) == []
    after = board.copy()
    after.place(red[0])
    assert rules.hopeless_spaces(after) == [space]


def test_a_four_sided_space_already_there_is_not_blamed_on_a_new_tile():
    # an enclosed cell with 4 tiles around it (possible after bag-empty), then a tile far from it
    cells = [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 2), (-2, 2), (-3, 2)]
    board = tile_up(cells)
    assert rules.four_sided_spaces(board) == [(0, 0)]
    assert rules.closure_violations(board) == [(0, 0)]
    far = a_fitting(board, (-4, 2))
    assert rules.why_illegal(board, far) == []
    # a tile that adds a new four-sided space elsewhere is still refused
    assert rules.FOUR_SIDED_SPACE in rule_names(rules.why_illegal(board, a_fitting(board, (-3, 1))))


def test_legal_placements_agree_with_why_illegal(figure):
    unplayed = sorted(set(ALL_NUMBERS) - figure.tiles)
    legal = rules.legal_placements(figure, unplayed[:12])
    assert legal
    assert all(rules.why_illegal(figure, p) == [] for p in legal)
    legal_set = set(legal)
    for cell in figure.empty_neighbours():
        for p in rules.fits(figure, cell, unplayed[:12]):
            assert (p in legal_set) == (rules.why_illegal(figure, p) == [])


def test_the_first_tile_may_go_anywhere():
    assert rules.why_illegal(Board(), Placement(9, 3, -2, 5)) == []
    assert len(rules.legal_placements(Board(), [1, 2])) == 12
