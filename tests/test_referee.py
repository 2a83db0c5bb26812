"""The referee's reading of one commit: what the players did, judged on the rules engine (docs/live.md, "The table
is the truth")."""

from __future__ import annotations

from table_play import plus

from tantrix_pi.board import Board, Placement
from tantrix_pi.live.referee import Referee, Setup
from tantrix_pi.live.tracker import Commit, changes
from tantrix_pi.rules import GOLDEN_RULE, why_illegal
from tantrix_pi.selfplay import random_game


def see(referee: Referee, board: Board, moved: bool = True):
    """The referee judges the table `board` as the next commit; its events."""
    return referee.commit(Commit(board.copy(), changes(referee.board, board, moved))).events


def opening(n: int, seed: int = 3, then: int = 1):
    """The first `n` placements of a self-play game, and the `then` after them."""
    game = random_game(2, seed=seed, stop=lambda g: len(g.board) >= n + then)
    moves = [m.placement for m in game.moves]
    return moves[:n], moves[n:n + then]


def illegal_at(board: Board, tile: int) -> Placement:
    """A placement of `tile` touching `board` that breaks the golden rule."""
    for cell in sorted(board.empty_neighbours()):
        for rot in range(6):
            q = Placement(tile, cell[0], cell[1], rot)
            if any(v.rule == GOLDEN_RULE for v in why_illegal(board, q)):
                return q
    raise AssertionError("no illegal placement")


def played(moves: list[Placement]) -> tuple[Referee, Board]:
    referee, board = Referee(Setup("game", ["R", "Y"])), Board()
    for p in moves:
        board = plus(board, p)
        see(referee, board)
    return referee, board


def test_an_illegal_tile_moved_in_one_motion_to_where_it_fits_is_that_players_placement():
    moves, [nxt] = opening(10)
    referee, board = played(moves)
    wrong = illegal_at(board, nxt.tile)
    [illegal] = [e for e in see(referee, plus(board, wrong)) if e.kind == "illegal"]
    mover = referee.game.check(nxt).player
    said = see(referee, plus(board, nxt))  # taken from its cell and laid on the right one, no frame between
    [placed] = [e for e in said if e.kind in ("placed", "illegal")]
    assert placed.kind == "placed" and placed.data["player"] == mover and placed.data["was"]["q"] == wrong.q
    assert f"moved from ({wrong.q},{wrong.r}) to ({nxt.q},{nxt.r})" in placed.text
    assert referee.game.board == plus(board, nxt) and not referee.strays()
    # the next placements are judged as usual: none is called illegal because of the tile that moved
    later = random_game(2, seed=3, stop=lambda g: len(g.board) > 14).moves[11:14]
    table = plus(board, nxt)
    for m in later:
        table = plus(table, m.placement)
        assert "illegal" not in [e.kind for e in see(referee, table)]


def test_after_a_restart_an_illegal_tile_gone_with_tiles_laid_meanwhile_is_taken_back():
    moves, missed = opening(8, then=2)
    referee, board = played(moves)
    wrong = illegal_at(board, min(set(range(1, 57)) - board.tiles - {p.tile for p in missed}))
    see(referee, plus(board, wrong))
    restarted = Referee(referee.setup, referee.board, referee.moves, referee.state())  # kill -9, then run again
    said = see(restarted, plus(board, *missed))  # meanwhile: the illegal tile taken back, two tiles laid
    kinds = sorted(e.kind for e in said if e.kind not in ("forced", "scores"))
    assert kinds == ["placed", "placed", "taken_back"], [e.text for e in said]
    assert next(e for e in said if e.kind == "taken_back").data["tile"] == wrong.tile
    assert [m.placement for m in restarted.game.moves][:8] == moves and restarted.game.board == plus(board, *missed)


def test_an_old_tile_taken_off_and_put_back_leaves_the_game_as_it_was():
    moves, _next = opening(6)
    referee, board = played(moves)
    before = list(referee.game.events)
    old = moves[2]
    [removed] = [e for e in see(referee, Board(p for p in board if p != old)) if e.kind != "forced"]
    assert removed.kind == "removed" and "not the last tile played" in removed.text
    assert referee.missing() == [old] and referee.game.events == before
    [back] = [e for e in see(referee, board) if e.kind != "forced"]
    assert back.kind == "restored" and referee.game.events == before and not referee.missing()


def test_the_last_tile_turned_is_judged_again_as_it_now_lies():
    def other_turn(moves):
        last, before = moves[-1], Board(moves[:-1])
        return next((q for r in range(6) if (q := Placement(last.tile, last.q, last.r, r)) != last
                     and not why_illegal(before, q)), None)

    moves = next(m for seed in range(30) if other_turn(m := opening(6, seed)[0]))
    referee, board = played(moves)
    turned = other_turn(moves)
    said = see(referee, Board([*moves[:-1], turned]))
    [placed] = [e for e in said if e.kind == "placed"]
    assert "turned" in placed.text and referee.game.moves[-1].placement == turned
    assert len(referee.game.moves) == len(moves) and not referee.strays()



def test_a_misread_put_right_is_stored_as_judged_again(tmp_path):
    # a correction (a committed tile outvoted with nothing moved) judges the tile again, and the store must get the
    # move as judged: an accepted tile now illegal was written twice in one commit (the write failed), an illegal
    # tile now legal stayed illegal in the store
    from tantrix_pi.live.store import Store

    moves, _ = opening(4)
    before, last = Board(moves[:-1]), moves[-1]
    wrong = next(q for rot in range(6) if rot != last.rot and why_illegal(before, q := Placement(last.tile, *last.cell,
                                                                                                   rot)))
    for n, (first, then, legal) in enumerate(((last, wrong, False), (wrong, last, True))):
        store, referee = Store(tmp_path / f"{n}.db"), Referee(Setup("game", ["R", "Y"]))
        game = store.new_game(referee.setup.to_dict())
        tables = [Board(moves[:i]) for i in range(1, len(moves))] + [plus(before, first), plus(before, then)]
        for i, board in enumerate(tables):
            out = referee.commit(Commit(board.copy(), changes(referee.board, board, moved=i < len(tables) - 1)))
            store.commit(game, board, out.added, out.removed, out.events, referee.state())
        assert out.events[0].kind == "corrected"
        assert store.moves(game) == referee.moves
        assert (store.moves(game)[-1].placement, store.moves(game)[-1].legal) == (then, legal)


def test_the_hands_in_view_tell_whose_tiles_came_down():
    referee = Referee(Setup("game", ["R", "Y"]), hands_in_view=True)
    assert referee.mover_holds([Placement(1, 0, 0, 0)]) is None  # no hand known yet
    referee.game.set_hand("R", {1, 2, 3, 4, 5, 6})
    referee.game.set_hand("Y", {7, 8, 9, 10, 11, 12})
    assert referee.game.turn == "R"
    assert referee.mover_holds([Placement(1, 0, 0, 0), Placement(2, 1, 0, 0)]) is True
    assert referee.mover_holds([Placement(1, 0, 0, 0), Placement(7, 1, 0, 0)]) is False
    assert referee.mover_holds([Placement(30, 0, 0, 0)]) is None


def test_a_tile_it_cannot_read_is_named_with_the_detectors_reason_and_glare_with_what_to_do():
    from tantrix_pi.live.tracker import Unclear

    referee = Referee(Setup("game", ["R", "Y"]))
    [mixed] = referee.unsure(Unclear([(0, 1), (1, 0), (2, 0)], [], {(0, 1): "glare", (1, 0): "face_down"})).events
    assert mixed.text == "Can't read the tiles at (0,1) (washed out by glare), (1,0) (face down), (2,0): waiting for " \
                         "a clear view. Move the lamp, or shade the tile from it."
    assert mixed.data["why"] == ["glare", "face_down", ""]
    [glare] = referee.unsure(Unclear([(0, 1), (1, 0)], [], {(0, 1): "glare", (1, 0): "glare"})).events
    assert glare.text == "Glare hides the tiles at (0,1), (1,0): move the lamp, or shade them."
    [plain] = referee.unsure(Unclear([(2, 0)], [(10.0, 20.0)])).events
    assert plain.text == "Can't read the tiles at (2,0), image position (10,20): waiting for a clear view."


def test_tiles_the_camera_saw_laid_one_by_one_but_committed_together_are_judged_in_that_order():
    game = random_game(2, seed=3, stop=lambda g: len(g.board) >= 9)
    moves = [m.placement for m in game.moves]
    truth = [(m.player, m.placement) for m in game.moves]
    for known in (True, False):
        referee, board = played(moves[:4])
        board = plus(board, *moves[4:])  # five tiles laid while one of them could not be read
        seen = {p.cell: k for k, p in enumerate(moves[4:])} if known else {}
        referee.commit(Commit(board.copy(), changes(referee.board, board), laid_at=seen))
        credited = [(m.player, m.placement) for m in referee.moves]
        assert (credited == truth) == known
