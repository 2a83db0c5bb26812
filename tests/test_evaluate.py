import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.simulator import random_board
from tantrix_pi.vision.detection import Detection, SeenTile, Unread
from tantrix_pi.vision.evaluate import align, score


def truth_of(board: Board, extra=()) -> dict:
    """A minimal truth dict: each tile at a made-up pixel position."""
    tiles = [{"tile": p.tile, "on_board": True, "face_up": True, "q": p.q, "r": p.r,
              "center_px": [100.0 * p.q, 100.0 * p.r], "across_flats_px": 80.0} for p in board]
    return {"board": board.to_dict(), "tiles": tiles + list(extra)}


def test_align_finds_the_turn_and_move_of_a_whole_board():
    board = random_board(np.random.default_rng(4), 20)
    moved = board.transformed(4, 3, -2)
    k, dq, dr = align(list(moved), board)
    assert moved.transformed(k, dq, dr) == board


def test_score_counts_right_wrong_unsure_and_unread_tiles_up_to_a_turn():
    board = random_board(np.random.default_rng(7), 12)
    assert not board.mismatches()
    seen = list(board.transformed(2, -1, 5))
    wrong, unread, unsure = seen[0], seen[1], seen[2]
    tiles = [SeenTile(p, (0.0, 0.0), 0.95) for p in seen[3:]]
    tiles.append(SeenTile(Placement(wrong.tile, wrong.q, wrong.r, (wrong.rot + 1) % 6), (0.0, 0.0), 0.9))
    tiles.append(SeenTile(Placement(unsure.tile, unsure.q, unsure.r, (unsure.rot + 3) % 6), (0.0, 0.0), 0.3))
    true_unread = next(p for p in board if p.tile == unread.tile)
    det = Detection(tiles=tiles, unreadable=[Unread((100.0 * true_unread.q + 5, 100.0 * true_unread.r), "glare")])
    truth = truth_of(board)
    for t in truth["tiles"]:
        t["washed_out"] = t["tile"] == unread.tile
    s = score(det, truth)
    assert (s.tiles, s.cell, s.number, s.turn) == (12, 11, 11, 9)
    assert (s.hidden, s.excused) == (1, 1)  # the unread tile was washed out: fair, the other two were not
    assert len(s.confident_wrong) == 1 and f"tile {wrong.tile}" in s.confident_wrong[0]
    assert s.unreadable == 1 and not s.exact and not s.fairly_exact
    assert s.false_violations > 0  # the confidently misread tile no longer fits its neighbours


def test_a_perfect_reading_is_exact_and_finds_loose_tiles():
    board = random_board(np.random.default_rng(9), 6)
    loose = {"tile": 56 if 56 not in board.tiles else 55, "on_board": False, "face_up": True,
             "center_px": [900.0, 900.0], "across_flats_px": 80.0}
    det = Detection(tiles=[SeenTile(p, (0.0, 0.0), 0.99) for p in board.transformed(5, 7, 7)],
                    loose=[Unread((910.0, 890.0), "loose", loose["tile"])])
    s = score(det, truth_of(board, [loose]))
    assert s.exact and s.fairly_exact and s.loose == (1, 1) and s.loose_named == 1
    assert s.false_violations == 0 and not s.confident_wrong


def test_a_tile_glare_hides_reported_unreadable_is_excused_but_a_clear_one_is_not():
    board = random_board(np.random.default_rng(3), 5)
    hidden, clear = list(board)[:2]
    det = Detection(tiles=[SeenTile(p, (0.0, 0.0), 0.99) for p in board if p not in (hidden, clear)],
                    unreadable=[Unread((100.0 * p.q, 100.0 * p.r), "glare") for p in (hidden, clear)])
    truth = truth_of(board)
    for t in truth["tiles"]:
        t["washed_out"] = t["tile"] == hidden.tile
    s = score(det, truth)
    assert (s.unreadable, s.excused) == (2, 1) and not s.fairly_exact
    truth["tiles"] = [t for t in truth["tiles"] if t["tile"] != clear.tile]
    truth["board"] = Board(p for p in board if p != clear).to_dict()
    assert score(det, truth).fairly_exact
