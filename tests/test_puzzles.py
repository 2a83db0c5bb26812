import json
from pathlib import Path

import pytest
from helpers import path_search, tile_up

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import neighbours, turn
from tantrix_pi.puzzles import GOBBLE_TOUCH, PuzzleError, gobble_why_illegal, is_pyramid, puzzle, pyramid
from tantrix_pi.rules import GOLDEN_RULE, fits
from tantrix_pi.tiles import COLOUR_NAMES, TILES

DATA = Path(__file__).parent / "data"


def solution(spec):
    p = puzzle(spec)
    board = path_search(p.tiles, p.colour, loop=p.loop, shape=pyramid(p.rows) if p.rows else None)
    assert board is not None, f"the test's search found no solution of {spec}"
    return board


@pytest.mark.parametrize("n", range(3, 11))
def test_discovery_solutions_pass_and_each_near_miss_fails_with_its_reason(n):
    p = puzzle(f"discovery:{n}")
    assert p.tiles == tuple(range(1, n + 1)) and p.colour == TILES[n].back
    board = solution(f"discovery:{n}")
    assert p.check(board).solved and p.check(board).reasons == ()
    assert p.check(board.transformed(2, 5, -3)).solved

    turned = board.copy()
    t = turned.remove((0, 0))
    turned.place(Placement(t.tile, 0, 0, (t.rot + 1) % 6))
    verdict = p.check(turned)
    assert not verdict.solved and any(r.startswith("edge between") and "(0,0)" in r for r in verdict.reasons)

    missing = board.copy()
    gone = missing.remove(sorted(missing.cells)[-1])
    verdict = p.check(missing)
    assert not verdict.solved and f"tile {gone.tile} is missing" in verdict.reasons

    other = next(c for c in "RYB" if c != p.colour)
    verdict = puzzle(f"discovery:{n}:{other}").check(board)
    assert not verdict.solved and any(COLOUR_NAMES[other] in r for r in verdict.reasons)


def test_a_line_through_all_tiles_is_not_the_loop_asked_for():
    p = puzzle("discovery:5")
    line = path_search(p.tiles, p.colour, loop=False)
    assert p.check(line).reasons == ("the red path is a line, not a loop",)


def test_a_path_through_every_tile_down_names_no_tile_off_it():
    p = puzzle("discovery:5")
    part = path_search((1, 2, 3), p.colour, loop=False)
    reasons = p.check(part).reasons
    assert "tile 4 is missing" in reasons and "tile 5 is missing" in reasons
    assert "not one red loop through all 5 tiles: the longest red path is a line of 3 tiles" in reasons
    assert not any("off it" in r for r in reasons)


def test_a_hole_is_named_by_its_cell():
    ring = tile_up(list(neighbours((0, 0))), avoid=range(7, 57))
    verdict = puzzle("discovery:6").check(ring)
    assert not verdict.solved and "hole at (0,0)" in verdict.reasons


def test_an_extra_tile_is_named():
    board = solution("discovery:4")
    cell = next(c for c in board.empty_neighbours() if tile_up([c], board=board, avoid=range(1, 5)))
    bigger = tile_up([cell], board=board, avoid=range(1, 5))
    extra = (bigger.tiles - board.tiles).pop()
    assert f"tile {extra} is not part of Discovery 4" in puzzle("discovery:4").check(bigger).reasons


@pytest.mark.parametrize("colour", ["white", "yellow", "green", "blue"])
def test_rainbow_solutions_pass(colour):
    assert puzzle(f"rainbow:{colour}").check(solution(f"rainbow:{colour}")).solved


def test_the_red_pyramid_passes_and_a_tile_moved_off_it_fails():
    p = puzzle("rainbow:red")
    board = Board.from_json((DATA / "rainbow-red.json").read_text())
    assert p.rows == 5 and len(p.tiles) == 15 and p.colour == "R" and not p.loop
    assert p.check(board).solved
    assert p.check(board.transformed(1)).solved
    top = board.remove((0, 0))
    board.place(Placement(top.tile, 1, 1, top.rot))
    assert "the tiles do not form a pyramid of rows 1, 2, 3, 4, 5" in p.check(board).reasons


def test_pyramid_shape_in_any_turn_and_nothing_else():
    for k in range(6):
        assert is_pyramid({(q + 3, r - 1) for q, r in [turn(c, k) for c in pyramid(4)]}, 4)
    line = {(q, 0) for q in range(10)}
    assert not is_pyramid(line, 4)


def test_rainbow_tile_sets_follow_the_back_colours():
    sizes = {c: len(puzzle(f"rainbow:{c}").tiles) for c in ["red", "yellow", "blue", "green", "white"]}
    assert sizes == {"red": 15, "yellow": 12, "blue": 10, "green": 10, "white": 9}
    assert puzzle("rainbow:white").colour == "B"
    assert puzzle("solitaire").tiles == tuple(range(1, 15)) and puzzle("solitaire").colour == "R"


@pytest.mark.parametrize("spec", ["discovery:2", "discovery:31", "discovery:x", "rainbow:pink", "discovery:7:W",
                                  "chess"])
def test_unknown_puzzles_are_refused_with_a_line(spec):
    with pytest.raises(PuzzleError):
        puzzle(spec)


def test_gobble_needs_two_touching_tiles_and_a_match_but_no_restrictions():
    board = tile_up([(q, 0) for q in range(6)] + [(4, -1), (5, -1)])
    one_touch = next(p for p in _fitting(board, (-1, 0)))
    assert [v.rule for v in gobble_why_illegal(board, one_touch)] == [GOBBLE_TOUCH]
    two_touch = next(p for p in _fitting(board, (6, -1)))
    assert gobble_why_illegal(board, two_touch) == []
    turned = next(Placement(two_touch.tile, 6, -1, k) for k in range(6) if gobble_why_illegal(
        board, Placement(two_touch.tile, 6, -1, k)))
    assert [v.rule for v in gobble_why_illegal(board, turned)] == [GOLDEN_RULE] * len(gobble_why_illegal(board, turned))
    assert gobble_why_illegal(Board([Placement(1, 0, 0, 0)]), Placement(2, 9, 9, 0))[0].rule == GOBBLE_TOUCH


def _fitting(board, cell):
    return fits(board, cell)


def test_stored_red_pyramid_is_a_real_board():
    data = json.loads((DATA / "rainbow-red.json").read_text())
    assert data["format"] == "tantrix-board/1" and len(data["tiles"]) == 15
