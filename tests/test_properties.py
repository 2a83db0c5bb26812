"""Random legal games (hypothesis picks players, seed and length) and the invariants every position keeps."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tantrix_pi import rules, scoring
from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import direction_to, turn
from tantrix_pi.selfplay import random_game
from tantrix_pi.tiles import ALL_NUMBERS, COLOURS

games = st.tuples(st.integers(2, 4), st.integers(0, 2**32 - 1), st.integers(3, 56))
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_position(game, announcement):
    board = game.board
    assert board.mismatches() == [], "an accepted placement never mismatches"
    assert board.is_connected()
    if not game.bag_empty:
        assert rules.four_sided_spaces(board) == []
        assert rules.hopeless_spaces(board) == []
        assert rules.closure_violations(board) == []
    for colour in COLOURS:
        found = scoring.paths(board, colour)
        assert sum(len(p) for p in found) == sum(colour in p.info.edges for p in board)
        for p in found:
            assert len(p) <= len(board)
            ring = p.cells + (p.cells[:1] if p.loop else ())
            assert len(set(p.cells)) == len(p.cells)
            assert all(direction_to(a, b) is not None for a, b in zip(ring, ring[1:], strict=False))


@SETTINGS
@given(games)
def test_random_legal_games_keep_every_invariant(spec):
    players, seed, length = spec
    random_game(players, seed, stop=lambda g: len(g.board) >= length, on_move=check_position)


@SETTINGS
@given(games, st.integers(0, 5), st.integers(-9, 9), st.integers(-9, 9))
def test_moving_or_turning_the_board_changes_no_verdict(spec, k, dq, dr):
    players, seed, length = spec
    game = random_game(players, seed, stop=lambda g: len(g.board) >= length)
    board = game.board
    moved = board.transformed(k, dq, dr)

    def there(cell):
        q, r = turn(cell, k)
        return (q + dq, r + dr)

    assert Board.from_json(board.to_json()) == board and board.same_as(moved)
    assert sorted(map(there, rules.forced_spaces(board))) == sorted(rules.forced_spaces(moved))
    assert sorted(map(there, rules.closure_violations(board))) == sorted(rules.closure_violations(moved))
    for colour in COLOURS:
        assert scoring.score(board, colour).score == scoring.score(moved, colour).score
    rng = random.Random(seed)
    unplayed = sorted(set(ALL_NUMBERS) - board.tiles)
    for cell in rng.sample(sorted(board.empty_neighbours()), min(6, len(board.empty_neighbours()))):
        for tile in rng.sample(unplayed, min(3, len(unplayed))):
            for rot in range(6):
                p = Placement(tile, *cell, rot)
                a = [v.rule for v in rules.why_illegal(board, p, game.bag_empty)]
                b = [v.rule for v in rules.why_illegal(moved, p.transformed(k, dq, dr), game.bag_empty)]
                assert sorted(a) == sorted(b)


@SETTINGS
@given(games)
def test_legal_placements_are_exactly_those_why_illegal_accepts(spec):
    players, seed, length = spec
    game = random_game(players, seed, stop=lambda g: len(g.board) >= length)
    board = game.board
    unplayed = sorted(set(ALL_NUMBERS) - board.tiles)[:8]
    legal = set(rules.legal_placements(board, unplayed, game.bag_empty))
    for cell in board.empty_neighbours():
        for tile in unplayed:
            for rot in range(6):
                p = Placement(tile, *cell, rot)
                assert (p in legal) == (rules.why_illegal(board, p, game.bag_empty) == [])
