"""Solitaire as played (docs/rules.md section 5): draws, the forced-space rules, the final score."""

import random

import pytest
from helpers import path_search

from tantrix_pi.board import Board, Placement
from tantrix_pi.game import MUST_FILL, NOT_IN_HAND, IllegalMove
from tantrix_pi.rules import GOLDEN_RULE, NOT_TOUCHING, fits, forced_spaces, iter_legal_placements
from tantrix_pi.scoring import score
from tantrix_pi.solitaire import TILE_SET, TILES, UNFITTED_SPACE, Solitaire, SolitaireOutcome, ToDraw


def grown(seed: int, tiles: int) -> Solitaire:
    """A Solitaire of `tiles` placements, each one the rules allow (the hand unknown), chosen at random."""
    rng = random.Random(seed)
    game = Solitaire()
    while len(game.board) < tiles:
        left = sorted(set(TILES) - game.board.tiles)
        options = [p for p in iter_legal_placements(game.board, left, bag_empty=True) if not game.why_illegal(p)]
        game.push(rng.choice(options))
    return game


def situations(kind: str):
    """(game, placement) pairs from random games where a placement breaks one of Solitaire's own rules."""
    for seed in range(60):
        game = Solitaire()
        rng = random.Random(seed)
        while len(game.board) < 12:
            left = sorted(set(TILES) - game.board.tiles)
            options = list(iter_legal_placements(game.board, left, bag_empty=True))
            for p in options:
                rules = {v.rule for v in game.why_illegal(p)}
                if rules == {kind}:
                    yield game, p
                    break
            allowed = [p for p in options if not game.why_illegal(p)]
            if not allowed:
                break
            game.push(rng.choice(allowed))


def test_one_tile_is_drawn_after_each_placement_and_one_more_for_each_fill():
    game = Solitaire()
    assert (game.drawn, game.bag) == (1, 13)  # the first tile, drawn before anything is placed
    assert game.push(Placement(1, 0, 0, 0)) == ToDraw(1, 0, 12)
    game = grown(seed=3, tiles=10)
    assert game.drawn == min(14, 1 + len(game.board) + game.fills) and game.bag == 14 - game.drawn


def test_a_fill_earns_a_bonus_draw():
    for game, _ in situations(MUST_FILL):
        space = forced_spaces(game.board)[0]
        fill = next(p for p in fits(game.board, space, set(TILES) - game.board.tiles) if not game.why_illegal(p))
        bag = game.bag
        draw = game.push(fill)
        assert draw.bonus == 1 and draw.tiles == min(2, bag) and game.fills >= 1
        return
    pytest.fail("no forced space reached")


def test_a_tile_that_fits_a_forced_space_must_go_there():
    game, p = next(situations(MUST_FILL))
    first, *others = game.why_illegal(p)  # one for each forced space it fits
    assert f"tile {p.tile} fits forced space A at" in first.message
    assert first.message.endswith("it must go there first") and all(v.rule == MUST_FILL for v in others)
    with pytest.raises(IllegalMove):
        game.push(p)
    assert p.tile not in game.board.tiles  # nothing changed


def test_a_forced_space_no_tile_to_come_fits_may_not_be_made_while_the_bag_has_tiles():
    game, p = next(situations(UNFITTED_SPACE))
    [v] = game.why_illegal(p)
    assert "a forced space that no tile still to come fits" in v.message
    after = game.board.copy()
    after.place(p)
    (cell,) = set(v.cells) - {p.cell}
    assert cell in forced_spaces(after) and not fits(after, cell, set(TILES) - after.tiles)
    # the tile had a place making no forced space: the player was not stuck
    assert any(q != p and not set(forced_spaces(_with(game.board, q))) - set(forced_spaces(game.board))
               for q in iter_legal_placements(game.board, [p.tile], bag_empty=True))


def _with(board: Board, p: Placement) -> Board:
    after = board.copy()
    after.place(p)
    return after


def test_with_the_hand_known_a_forced_space_needs_a_held_tile_that_fits_it():
    game, p = next(situations(UNFITTED_SPACE))
    after = _with(game.board, p)
    (cell,) = set(forced_spaces(after)) - set(forced_spaces(game.board))
    known = Solitaire()
    for q in game.moves:
        known.draw(q.tile)
        known.push(q)
    known.draw(p.tile)
    assert UNFITTED_SPACE in {v.rule for v in known.why_illegal(p)}  # only p in the hand: nothing fits the space
    keeper = next((t for t in set(TILES) - after.tiles if fits(after, cell, {t})), None)
    if keeper is None:  # no tile at all fits it: holding any other still does not help
        return
    known.draw(keeper)
    assert UNFITTED_SPACE not in {v.rule for v in known.why_illegal(p)}


def test_a_tile_not_drawn_and_a_tile_outside_1_to_14_are_refused():
    game = Solitaire(hand=[3])
    assert {v.rule for v in game.why_illegal(Placement(5, 0, 0, 0))} == {NOT_IN_HAND}
    assert {v.rule for v in game.why_illegal(Placement(20, 0, 0, 0))} == {TILE_SET}
    game.push(Placement(3, 0, 0, 0))
    game.draw(9)
    far = Placement(9, 5, 5, 0)
    assert NOT_TOUCHING in {v.rule for v in game.why_illegal(far)}
    wrong = next(Placement(9, 1, 0, r) for r in range(6) if Placement(9, 1, 0, r) not in fits(game.board, (1, 0)))
    assert GOLDEN_RULE in {v.rule for v in game.why_illegal(wrong)}


def test_once_the_bag_is_empty_an_unfitted_forced_space_may_be_made():
    for game, p in situations(UNFITTED_SPACE):
        game.fills += game.bag  # as if every tile had been drawn already
        assert game.bag_empty and game.why_illegal(p) == []
        return


def test_pop_undoes_the_placement_and_its_draws():
    game = grown(seed=5, tiles=9)
    before = (game.board.copy(), game.fills, game.drawn)
    p = next(q for q in iter_legal_placements(game.board, set(TILES) - game.board.tiles, bag_empty=True)
             if not game.why_illegal(q))
    game.push(p)
    assert game.pop() == p and (game.board, game.fills, game.drawn) == before


def test_a_red_loop_through_all_fourteen_is_a_perfect_28():
    board = path_search(TILES, "R", loop=True)
    perfect = SolitaireOutcome(score(board, "R"))
    assert perfect.points == 28 and perfect.perfect
    assert perfect.summary() == "Solitaire over: a red loop through all 14 tiles scores 28, a perfect game!"
    line = path_search(TILES, "R", loop=False)
    done = SolitaireOutcome(score(line, "R"))
    assert done.points == 14 and not done.perfect
    assert done.summary() == "Solitaire over: the red line of 14 tiles scores 14."


def test_a_whole_game_ends_with_its_score():
    game = grown(seed=11, tiles=13)
    assert game.outcome() is None
    last = next(q for q in iter_legal_placements(game.board, set(TILES) - game.board.tiles, bag_empty=True)
                if not game.why_illegal(q))
    game.push(last)
    assert game.bag_empty and game.outcome().points == score(game.board, "R").score
