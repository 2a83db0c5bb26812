from helpers import tile_up

from tantrix_pi import scoring
from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import direction_to

TRIANGLE = [(0, 0), (1, 0), (0, 1)]
RED_TRIANGLE = {((0, 0), 1): "R", ((0, 0), 2): "R", ((1, 0), 3): "R", ((1, 0), 4): "R",
                ((0, 1), 5): "R", ((0, 1), 0): "R"}
ROW = [(q, 0) for q in range(4)]
YELLOW_ROW = {((q, 0), d): "Y" for q in range(4) for d in (1, 4)}


def test_three_tiles_round_a_corner_make_a_red_loop_worth_six():
    board = tile_up(TRIANGLE, RED_TRIANGLE)
    (loop,) = [p for p in scoring.paths(board, "R")]
    assert loop.loop and loop.cells[0] == (0, 0) and set(loop.cells) == set(TRIANGLE)
    s = scoring.score(board, "R")
    assert (s.loop, s.score) == (3, 6) and s.path == loop


def test_a_straight_yellow_row_is_a_line_in_path_order():
    board = tile_up(ROW, YELLOW_ROW)
    longest = scoring.paths(board, "Y")[0]
    assert not longest.loop and longest.cells == tuple(ROW)
    assert scoring.score(board, "Y").line == 4


def test_a_mismatched_edge_breaks_the_line():
    board = tile_up(ROW, YELLOW_ROW)
    middle = board.remove((2, 0))
    board.place(Placement(middle.tile, 2, 0, (middle.rot + 1) % 6))
    assert board.mismatches()
    assert scoring.score(board, "Y").line < 4


def test_a_loop_counts_double_and_wins_over_a_longer_line():
    loop = tile_up(TRIANGLE, RED_TRIANGLE)
    line = tile_up([(q, 5) for q in range(5)], {((q, 5), d): "R" for q in range(5) for d in (1, 4)}, avoid=loop.tiles)
    board = Board([*loop, *line])
    s = scoring.score(board, "R")
    assert (s.line, s.loop, s.score) == (5, 3, 6) and s.path.loop


def test_equal_scores_are_a_tie_and_the_best_score_wins():
    one = Board([Placement(1, 0, 0, 0)])
    tie = scoring.outcome(one, ["R", "Y", "B"])
    assert tie.winners == ("R", "Y", "B") and tie.winner is None
    assert tie.result() == "A tie between Red, Yellow and Blue"
    board = tile_up(TRIANGLE, RED_TRIANGLE)
    won = scoring.outcome(board, ["Y", "R"])
    assert won.winners == ("R",) and won.winner == "R" and won.termination is scoring.Termination.COUNTED
    assert won.player_scores == {"Y": won.scores["Y"].score, "R": 6}
    assert won.summary() == f"Game over: Yellow {won.scores['Y'].score}, Red 6. Red wins."


def test_only_players_can_win_but_every_colour_is_scored():
    board = tile_up(TRIANGLE, RED_TRIANGLE)
    over = scoring.outcome(board, ["Y", "B"])
    assert "R" not in over.winners and set(over.scores) == set("RYGB") and over.scores["R"].score == 6


def test_a_deadlock_is_drawn_whatever_the_scores():
    board = tile_up(TRIANGLE, RED_TRIANGLE)
    over = scoring.outcome(board, ["R", "Y"], scoring.Termination.DEADLOCK, stuck="Y")
    assert over.winners == () and over.winner is None and over.result() == "The game is drawn"
    assert over.summary().startswith("Deadlock: Yellow has no legal move; the game is drawn (Red 6, ")


def test_four_lines_and_four_loops_sum_the_colours():
    board = tile_up(TRIANGLE, RED_TRIANGLE)
    loops, lines = scoring.four(board, "loops"), scoring.four(board, "lines")
    assert loops.tiles["R"] == 3 and loops.paths["R"].loop
    assert loops.total == sum(scoring.score(board, c).loop for c in "RYGB") >= 3
    assert lines.total == sum(scoring.score(board, c).line for c in "RYGB")
    assert all(p is None or not p.loop for p in lines.paths.values())
    assert lines.summary() == f"Four lines: {lines.total} (" + ", ".join(
        f"{name} {scoring.score(board, c).line}" for c, name in zip("RYGB", ("red", "yellow", "green", "blue"),
                                                                    strict=True)) + ")."


def test_a_loop_counts_in_four_loops_and_a_line_in_four_lines():
    loop = tile_up(TRIANGLE, RED_TRIANGLE)
    board = tile_up([(q, 3) for q in range(4)], {((q, 3), d): "Y" for q in range(4) for d in (1, 4)}, board=loop)
    assert scoring.four(board, "loops").tiles["R"] == 3
    assert scoring.four(board, "lines").tiles["R"] == scoring.score(board, "R").line < 3  # the loop is no line
    assert scoring.four(board, "lines").tiles["Y"] >= 4 and not scoring.four(board, "lines").paths["Y"].loop


def test_path_cells_are_consecutive_neighbours():
    board = tile_up(TRIANGLE + [(1, 1), (2, 0), (-1, 1), (-1, 2)])
    for colour in "RYGB":
        for path in scoring.paths(board, colour):
            steps = list(zip(path.cells, path.cells[1:] + (path.cells[:1] if path.loop else ()), strict=False))
            assert all(direction_to(a, b) is not None for a, b in steps)
