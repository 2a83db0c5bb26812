import math

from live_fakes import B, seen

from tantrix_pi.board import Board, Placement
from tantrix_pi.live.tracker import HAND_OVER_GONE, OCCLUSION_PATIENCE, Commit, Tracker, Unclear, apply, register
from tantrix_pi.vision.detection import COVERED, CUT, EDGE, FACE_DOWN, GLARE, HIDDEN, Detection, Unread

ONE = B((1, 0, 0, 0))
TWO = B((1, 0, 0, 0), (2, 1, 0, 3))


def feed(tracker, det, n):
    out = [tracker.observe(det) for _ in range(n)]
    return [o for o in out if o is not None]


def test_commit_needs_consecutive_agreeing_frames():
    t = Tracker(stable_frames=3)
    assert t.observe(seen(ONE)) is None
    assert t.observe(seen(ONE)) is None
    c = t.observe(seen(ONE))
    assert isinstance(c, Commit) and c.board == ONE
    assert [ch.kind for ch in c.changes] == ["placed"]
    assert feed(t, seen(ONE), 5) == []  # the same board again: nothing new


def test_flicker_resets_the_streak():
    t = Tracker(ONE, stable_frames=3)
    out = feed(t, seen(TWO), 2) + feed(t, seen(ONE), 1) + feed(t, seen(TWO), 2)
    assert out == []
    [c] = feed(t, seen(TWO), 1)
    assert [(ch.kind, ch.after) for ch in c.changes] == [("placed", Placement(2, 1, 0, 3))]


def test_whole_board_pushed_and_turned_is_no_event():
    t = Tracker(TWO, stable_frames=2)
    for k in range(6):
        assert feed(t, seen(TWO, k=k, dq=3, dr=-2), 6) == []
    assert t.committed == TWO


def test_new_tile_on_a_moved_board_lands_in_the_committed_grid():
    t = Tracker(ONE, stable_frames=2)
    t.motion()
    [c] = feed(t, seen(TWO, k=2, dq=5, dr=1), 2)
    assert c.board == TWO
    assert [ch.after for ch in c.changes] == [Placement(2, 1, 0, 3)]


def test_one_wrong_reading_is_outvoted_not_announced():
    t = Tracker(ONE, stable_frames=3)
    t.motion()
    wrong = seen(TWO, override={(1, 0): (30, 4)})
    outs = [t.observe(seen(TWO)), t.observe(wrong), t.observe(seen(TWO)), t.observe(seen(TWO))]
    commits = [o for o in outs if o is not None]
    assert len(commits) == 1 and commits[0].board == TWO
    assert all(ch.after.tile != 30 for ch in commits[0].changes)


def test_misread_committed_tile_is_corrected_without_motion():
    t = Tracker(ONE, stable_frames=2)
    t.motion()
    wrong = seen(TWO, override={(1, 0): (30, 4)})
    [c] = feed(t, wrong, 2)
    assert c.board[(1, 0)].tile == 30
    # the table stays still; better readings keep coming and outvote the first ones
    outs = feed(t, seen(TWO), 4)
    assert len(outs) == 1
    assert [ch.kind for ch in outs[0].changes] == ["corrected"]
    assert outs[0].board == TWO


def test_a_tile_read_another_way_where_its_picture_changed_was_turned_by_a_hand_too_quick_to_see():
    # no motion frame in between, so the readings alone cannot tell a turn from a misread: the picture decides
    asked = []
    for share, kind in ((0.6, "turned"), (0.05, "corrected")):
        t = Tracker(TWO, stable_frames=2)
        turned = seen(TWO, override={(1, 0): (2, 5)})
        outs = [t.observe(turned, None, lambda at, share=share: asked.append(at) or share) for _ in range(3)]
        [c] = [o for o in outs if o is not None]
        assert [(ch.kind, ch.after) for ch in c.changes] == [(kind, Placement(2, 1, 0, 5))]
    assert set(asked) == {seen(TWO).tiles[1].center_px}  # asked about the tile that changed, not the other one


def test_a_tile_turned_too_quickly_to_see_after_the_table_settled_is_announced_as_soon_as_it_settles():
    # the table has been still a while since tile 2 was committed, then a quick hand turns it between two frames:
    # the turn is the player's move now, not a reading that must first outvote every frame before it
    t = Tracker(ONE, stable_frames=2)
    t.motion()
    assert len(feed(t, seen(TWO), 10)) == 1
    turned = seen(TWO, override={(1, 0): (2, 5)})
    outs = [t.observe(turned, None, lambda at: 0.6) for _ in range(3)]
    assert outs[0] is None
    [c] = [o for o in outs if o is not None]
    assert [(ch.kind, ch.after) for ch in c.changes] == [("turned", Placement(2, 1, 0, 5))]
    # a misreading where the picture did not change still has to outvote what was read before
    t = Tracker(ONE, stable_frames=2)
    t.motion()
    feed(t, seen(TWO), 10)
    assert [t.observe(turned, None, lambda at: 0.0) for _ in range(3)] == [None] * 3


def test_an_unclear_cell_carries_the_detectors_reason_and_an_unsure_reading_none():
    t = Tracker(ONE, stable_frames=2)
    t.motion()
    three = B((1, 0, 0, 0), (2, 1, 0, 0), (3, -1, 0, 0))
    [u] = feed(t, seen(three, unsure={(1, 0): 0.4}, unreadable={(0, 1): GLARE, (0, -1): FACE_DOWN}), 6)
    assert isinstance(u, Unclear) and u.cells == [(0, -1), (0, 1), (1, 0)]
    assert u.why == {(0, 1): "glare", (0, -1): "face_down"}


def test_tiles_laid_while_one_cannot_be_read_are_committed_in_the_order_they_came_in():
    t = Tracker(ONE, stable_frames=2)
    glare = {(1, 0): GLARE}  # tile 2 laid at (1, 0) under a lamp's glare, then tiles 3 and 4 elsewhere
    outs = []
    for board in (ONE, B((1, 0, 0, 0), (3, -1, 0, 0)), B((1, 0, 0, 0), (3, -1, 0, 0), (4, 0, 1, 0))):
        t.motion()
        outs += feed(t, seen(board, unreadable=glare), 4)
    assert len(outs) == 1 and isinstance(outs[0], Unclear) and t.committed == ONE
    t.motion()  # the lamp moved: tile 2 reads
    [c] = feed(t, seen(B((1, 0, 0, 0), (2, 1, 0, 0), (3, -1, 0, 0), (4, 0, 1, 0))), 4)
    assert c.laid_order == ((1, 0), (-1, 0), (0, 1))
    t.motion()  # two tiles laid within one hand's motion: which came first is not known
    [c] = feed(t, seen(Board([*c.board, Placement(5, 2, 0, 0), Placement(6, -2, 0, 0)])), 4)
    assert len(c.changes) == 2 and c.laid_order == ()


def test_a_tile_laid_that_the_detector_stops_seeing_is_no_hole_while_its_picture_still_shows_it():
    # under a lamp's glare the detector first doubts the tile laid at (1, 0), then misses it altogether: the tile laid
    # next to it must not be judged beside a hole (a false "four-sided space"), until the picture there is the table's
    t = Tracker(ONE, stable_frames=2)
    glared = seen(ONE, unreadable={(1, 0): GLARE})
    at = glared.unreadable[0].center_px
    there = [True]

    def changed_at(point):
        return 0.5 if there[0] and math.dist(point, at) < 1 else 0.0

    t.motion()
    assert [type(o) for o in (t.observe(glared, None, changed_at) for _ in range(3)) if o] == [Unclear]
    t.motion()
    beside = seen(B((1, 0, 0, 0), (3, 1, -1, 0)))
    assert [t.observe(beside, None, changed_at) for _ in range(4)] == [None] * 4 and t.committed == ONE
    there[0] = False  # the tile taken away again: the picture there is the table's
    t.motion()
    [c] = [o for o in (t.observe(beside, None, changed_at) for _ in range(4)) if o]
    assert isinstance(c, Commit) and c.board == B((1, 0, 0, 0), (3, 1, -1, 0))


def test_a_tile_held_that_glare_washes_out_is_said_once_and_the_game_goes_on_around_it():
    # a lamp switched on over the board washes out tile 2: it is still there, and the tiles laid meanwhile are moves
    t = Tracker(TWO, stable_frames=2)
    t.motion()
    outs = feed(t, seen(ONE, unreadable={(1, 0): GLARE}), 4)
    assert len(outs) == 1 and isinstance(outs[0], Unclear) and outs[0].why == {(1, 0): "glare"}
    t.motion()
    [c] = feed(t, seen(B((1, 0, 0, 0), (3, -1, 0, 0)), unreadable={(1, 0): GLARE}), 4)
    three = Board([*TWO, Placement(3, -1, 0, 0)])
    assert c.board == three and [ch.kind for ch in c.changes] == ["placed"]
    t.motion()  # tile 1, next to the glare, read as another tile: the glare's edge, not a tile swapped
    assert feed(t, seen(B((5, 0, 0, 2), (3, -1, 0, 0)), unreadable={(1, 0): GLARE}), 4) == []
    assert t.committed == three and not t.pending  # nor is it a tile laid that an end-of-turn press must wait for
    t.motion()  # the glare's tile missed altogether, then misread: still there as it lay, and not said again
    assert feed(t, seen(B((1, 0, 0, 0), (3, -1, 0, 0))), 6) == []
    assert feed(t, seen(B((1, 0, 0, 0), (2, 1, 0, 5), (3, -1, 0, 0))), 4) == [] and t.committed == three
    t.motion()  # the lamp moved: tile 2 reads as it lay, and a tile laid is committed as usual
    [c] = feed(t, seen(Board([*three, Placement(4, 2, 0, 0)])), 4)
    assert [ch.kind for ch in c.changes] == ["placed"] and not t.glared


def test_unsure_tile_is_reported_once_and_never_committed():
    t = Tracker(ONE, stable_frames=2)
    t.motion()
    det = seen(TWO, unsure={(1, 0): 0.4})
    outs = feed(t, det, 6)
    assert len(outs) == 1 and isinstance(outs[0], Unclear) and outs[0].cells == [(1, 0)]
    assert t.committed == ONE
    t.motion()  # a player straightens the tile; now it reads clearly and is committed
    [c] = feed(t, seen(TWO), 8)
    assert c.board == TWO


def test_a_committed_tile_read_badly_is_asked_about_only_when_its_picture_alone_changed():
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0))
    bad = seen(three, unsure={(1, 0): 0.4})
    at = next(st.center_px for st in bad.tiles if st.placement.tile == 2)

    def changed(reach):
        return lambda point: 0.5 if math.dist(point, at) < reach else 0.0

    t = Tracker(three, stable_frames=2)
    t.motion()
    assert feed(t, seen(three), 4) == []
    t.motion()
    # fingers resting over tile 2 and the table beside it (its neighbours' cells lie 87 px away): held, not asked
    assert [t.observe(bad, None, changed(100.0)) for _ in range(4)] == [None] * 4
    t.motion()
    # nothing changed where it lies: a misreading, held
    assert [t.observe(bad, None, changed(0.0)) for _ in range(4)] == [None] * 4
    t.motion()
    # its picture alone changed (turned by a hand no frame showed) and it cannot be read: asked
    outs = [t.observe(bad, None, changed(30.0)) for _ in range(3)]
    assert isinstance(outs[1], Unclear) and outs[1].cells == [(1, 0)] and t.committed == three


def test_unreadable_blob_is_located_on_a_cell():
    # the detector put it on its grid: the tracker names the cell in the committed board's grid
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0))
    t = Tracker(three, stable_frames=2)
    [u] = feed(t, seen(three, k=1, unreadable=[(-1, 1)]), 2)
    assert isinstance(u, Unclear) and u.cells == [(-1, 1)]
    # not placed: located through the tiles read, by pixel; two tiles are too few to say, so by position
    width = 50.0 * 3 ** 0.5  # the fake's tiles lie 87 px apart
    t = Tracker(three, stable_frames=2)
    [u] = feed(t, seen(three, k=1, unreadable=[(-1, 1)], placed=False, tile_px=width), 2)
    assert u.cells == [(-1, 1)]
    t = Tracker(TWO, stable_frames=2)
    [u] = feed(t, seen(TWO, unreadable=[(0, 1)], placed=False, tile_px=width), 2)
    assert u.cells == [] and len(u.where) == 1


def test_junk_far_from_the_board_is_not_the_trackers_business():
    t = Tracker(TWO, stable_frames=2)
    assert feed(t, seen(TWO, unreadable=[(6, -6)], placed=False, tile_px=50.0 * 3 ** 0.5), 3) == []


def test_a_tile_laid_where_one_was_taken_off_is_not_outvoted_by_what_was_read_of_the_old_one():
    # no frame shows the hands (a quick player, a slow camera): no motion resets the votes between the two
    t = Tracker(TWO, stable_frames=2)
    t.motion()
    assert feed(t, seen(TWO), 10) == []
    [c] = feed(t, seen(ONE), 6)
    assert [ch.kind for ch in c.changes] == ["removed"]
    other = B((1, 0, 0, 0), (5, 1, 0, 0))
    [c] = feed(t, seen(other), 3)
    assert isinstance(c, Commit) and [(ch.kind, ch.after) for ch in c.changes] == [("placed", Placement(5, 1, 0, 0))]


def test_tile_gone_needs_more_frames():
    t = Tracker(TWO, stable_frames=2)
    t.motion()
    assert feed(t, seen(ONE), 3) == []
    [c] = feed(t, seen(ONE), 1)
    assert [(ch.kind, ch.before) for ch in c.changes] == [("removed", Placement(2, 1, 0, 3))]


def test_a_vanished_tile_whose_neighbours_picture_changed_is_hidden_not_removed_until_patience_runs_out():
    # fingers resting over tile 3's edge hide tile 2 beside it, and the network hardly marks them as cover; tile 3 still
    # reads as committed, but its picture changed: tile 2 is under the fingers, not taken away
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 1, -1, 0))
    without_2 = seen(B((1, 0, 0, 0), (3, 1, -1, 0)))
    at = {st.placement.tile: st.center_px for st in without_2.tiles}
    fingers = at[3]
    asked = []

    def under_fingers(at):
        asked.append(at)
        return 0.3 if at == fingers else 0.0

    t = Tracker(three, stable_frames=2)
    t.motion()
    assert [t.observe(without_2, None, under_fingers) for _ in range(OCCLUSION_PATIENCE)] == [None] * 30
    assert fingers in asked and set(asked) <= {at[1], at[3]}  # the vanished tile's neighbours, nothing else
    # lifted: tile 2 was there all along
    t.motion()
    assert [t.observe(seen(three), None, under_fingers) for _ in range(6)] == [None] * 6
    # a tile taken away whose neighbours show no change is removed as before
    t.motion()
    [c] = [o for o in (t.observe(without_2, None, lambda at: 0.0) for _ in range(4)) if o is not None]
    assert [(ch.kind, ch.before) for ch in c.changes] == [("removed", Placement(2, 1, 0, 3))]
    # taking a tile away may nudge its neighbours: that alone holds the removal back only so long
    t = Tracker(three, stable_frames=2)
    t.motion()
    outs = [t.observe(without_2, None, under_fingers) for _ in range(OCCLUSION_PATIENCE + 5)]
    [(i, c)] = [(i, o) for i, o in enumerate(outs) if o is not None]
    assert i >= OCCLUSION_PATIENCE and [ch.kind for ch in c.changes] == ["removed"]


def test_turned_and_moved_tiles():
    t = Tracker(TWO, stable_frames=1)
    t.motion()
    [c] = feed(t, seen(B((1, 0, 0, 0), (2, 1, 0, 5))), 1)
    assert [ch.kind for ch in c.changes] == ["turned"]
    t.motion()
    [c] = feed(t, seen(B((1, 0, 0, 0), (2, 0, 1, 5))), 3)
    assert [(ch.kind, ch.before.cell, ch.after.cell) for ch in c.changes] == [("moved", (1, 0), (0, 1))]


def test_register_prefers_identity_on_ties_and_finds_turns():
    assert register(TWO, list(TWO)) == (0, 0, 0)
    moved = list(TWO.transformed(4, 2, -3))
    k, dq, dr = register(TWO, moved)
    assert TWO == type(TWO)(p.transformed(k, dq, dr) for p in moved)


def test_of_two_tiles_the_one_that_moved_in_the_picture_is_the_one_moved_on_the_board():
    # tiles 6 and 9 committed; a hand moves 9 to another cell beside 6, and the detector numbers its grid from where
    # the tiles now lie: laid on the board by 6, 9 moved; laid by 9, 6 moved. The picture shows 6 stayed put
    from tantrix_pi.vision.detection import SeenTile

    board = B((6, 0, 0, 2), (9, 0, -1, 1))
    renumbered = [Placement(9, 0, 0, 3), Placement(6, -1, 1, 2)]
    assert apply(register(board, renumbered, kept={6}), renumbered[0]) == Placement(9, 1, -1, 3)
    assert apply(register(board, renumbered, kept={9}), renumbered[0]) == Placement(9, 0, -1, 1)
    # 10 moved to the far side of 39 (4 players, seed 207): the grid turned half a circle keeps 39 on its cell too,
    # turned; the one that keeps it as it lay says 10 moved
    pair, across = B((39, 0, 0, 2), (10, -1, 0, 0)), [Placement(10, 0, 0, 3), Placement(39, -1, 0, 2)]
    t = register(pair, across, kept={39})
    assert apply(t, across[1]) == Placement(39, 0, 0, 2) and apply(t, across[0]) == Placement(10, 1, 0, 3)
    # 9 turned in place instead: both stayed put, and the grid that keeps both on their cells says 9 turned
    turned = [Placement(9, 0, 0, 4), Placement(6, 0, 1, 2)]
    t = register(board, turned, kept={6, 9})
    assert apply(t, turned[1]) == Placement(6, 0, 0, 2) and apply(t, turned[0]) == Placement(9, 0, -1, 4)

    t = Tracker(board, stable_frames=2)
    feed(t, Detection(tiles=[SeenTile(p, (0.0, 0.0), 0.95) for p in board], tile_px=100.0), 2)
    t.motion()  # the hand
    [c] = [r for r in (t.observe(Detection(tiles=[SeenTile(p, (0.0, 0.0), 0.95) for p in renumbered], tile_px=100.0),
                                 kept={6}) for _ in range(4)) if r is not None]
    assert [(ch.kind, ch.after) for ch in c.changes] == [("moved", Placement(9, 1, -1, 3))]


def test_a_cover_beside_the_board_holds_a_placement_only_while_the_picture_shows_something_there():
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0))

    def covered() -> Detection:  # the third tile laid, and the detector's cover map on the empty cell (1, 1)
        det = seen(three)
        det.unreadable.append(Unread((900.0, 700.0), COVERED, cell=(1, 1)))
        return det

    def commits(changed: float | None, frames: int) -> list:
        t = Tracker(TWO, stable_frames=2)
        return [r for r in (t.observe(covered(), changed) for _ in range(frames)) if isinstance(r, Commit)]

    # the picture near the board changed by the tile laid and little more: nothing new lies over the cell, so the
    # cover (a dark table's grain, say) holds nothing back
    [c] = commits(1.0, 3)
    assert c.board == three and [ch.kind for ch in c.changes] == ["placed"]
    # a hand's worth of change, or no measure of it: held while the cover stays, up to OCCLUSION_PATIENCE frames
    assert commits(9.0, OCCLUSION_PATIENCE) == [] and commits(None, OCCLUSION_PATIENCE) == []
    assert len(commits(None, OCCLUSION_PATIENCE + 3)) == 1


def test_cover_far_from_a_vanished_tile_does_not_hide_it():
    # tile 2 is moved from (1, 0) to (-1, 1) while pen strokes on the paper beside the board, three cells away, read
    # as covered: the move is committed (it was held for the rest of the game, every placement after it with it).
    # Cover next to the cell it left may be the hand that still hides it there: held while it stays
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0))
    moved = B((1, 0, 0, 0), (3, 0, 1, 0), (2, -1, 1, 4))

    def commits(cover_cell, frames: int) -> list:
        det = seen(moved)
        det.unreadable.append(Unread((300.0, 900.0), COVERED, cell=cover_cell))
        t = Tracker(three, stable_frames=2)
        t.motion()
        # the picture changed by the two cells of the move: nothing else lies over the board
        return [r for r in (t.observe(det, 2.0) for _ in range(frames)) if r is not None]

    [c] = commits((-2, 2), OCCLUSION_PATIENCE)
    assert [(ch.kind, ch.after) for ch in c.changes] == [("moved", Placement(2, -1, 1, 4))]
    assert commits((1, -1), 3 * OCCLUSION_PATIENCE) == []


def test_the_frame_edge_next_to_the_board_holds_back_no_placement_but_a_tile_it_cuts_does():
    # a board grown to the frame's edge: the empty cell beyond it is doubted (a puzzle photo gets no verdict), but
    # the referee saw every tile laid, and asking about it held back every placement for the rest of the game
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0))

    def at_edge(reason: str) -> Detection:
        det = seen(three)
        det.unreadable.append(Unread((0.0, 700.0), reason, cell=(-1, 1)))
        return det

    t = Tracker(TWO, stable_frames=2)
    [c] = feed(t, at_edge(EDGE), 3)
    assert isinstance(c, Commit) and c.board == three and [ch.kind for ch in c.changes] == ["placed"]
    # a tile in view that the frame cuts is the board's own: asked about, nothing committed past it
    t = Tracker(TWO, stable_frames=2)
    [u] = feed(t, at_edge(CUT), 3)
    assert isinstance(u, Unclear) and u.cells == [(-1, 1)]
    # a tile the referee holds there, now beyond the edge (the camera was knocked): not gone, nothing said
    t = Tracker(three, stable_frames=2)
    out_of_view = seen(TWO)
    out_of_view.unreadable.append(Unread((0.0, 700.0), EDGE, cell=(0, 1)))
    assert feed(t, out_of_view, 20) == [] and t.committed == three
    # ... and a tile laid meanwhile, in view, is the next move
    t = Tracker(three, stable_frames=2)
    t.motion()
    out_of_view = seen(B((1, 0, 0, 0), (2, 1, 0, 3), (4, 1, -1, 2)))
    out_of_view.unreadable.append(Unread((0.0, 700.0), EDGE, cell=(0, 1)))
    [c] = feed(t, out_of_view, 20)
    assert [(ch.kind, ch.after) for ch in c.changes] == [("placed", Placement(4, 1, -1, 2))]
    assert t.committed == B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0), (4, 1, -1, 2))


def test_a_tile_moved_away_from_the_frame_edge_is_moved_not_held_there():
    # an illegal tile laid at the frame's edge and moved to its right cell: its old cell now lies beyond the edge,
    # but the tile is read in the new one, so it is no longer there (this held back every move for 70 frames)
    at_edge = B((1, 0, 0, 0), (2, 1, 0, 3), (3, -1, 1, 0))
    t = Tracker(at_edge, stable_frames=2)
    t.motion()
    moved = seen(B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 4)))
    moved.unreadable.append(Unread((0.0, 700.0), EDGE, cell=(-1, 1)))
    [c] = feed(t, moved, 20)
    assert [(ch.kind, ch.before, ch.after) for ch in c.changes] == [
        ("moved", Placement(3, -1, 1, 0), Placement(3, 0, 1, 4))]
    assert t.committed == B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 4))


def test_a_vanished_tile_whose_cell_shows_a_little_of_a_hand_is_hidden_for_as_long_as_the_hand_stays():
    # fingers rest over tile 2 for a long while: the detector loses the tile, and the network sees only a little of
    # its cell covered (too little for a doubt); the tile is not taken off, however long the hand stays
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0))
    hidden = seen(B((1, 0, 0, 0), (3, 0, 1, 0)))
    hidden.cover[(1, 0)] = HAND_OVER_GONE * 2
    t = Tracker(three, stable_frames=2)
    t.motion()
    assert feed(t, hidden, 5 * OCCLUSION_PATIENCE) == [] and t.committed == three
    assert feed(t, seen(three), 5) == []  # the hand lifts: nothing to say
    # taken away, the cell shows bare table: removed
    bare = seen(B((1, 0, 0, 0), (3, 0, 1, 0)))
    bare.cover[(1, 0)] = 0.0
    t.motion()
    [c] = feed(t, bare, 20)
    assert [(ch.kind, ch.before) for ch in c.changes] == [("removed", Placement(2, 1, 0, 3))]
    # read in another cell, it was moved, though the fingers that moved it still lie a little over its old cell
    t = Tracker(three, stable_frames=2)
    t.motion()
    moved = seen(B((1, 0, 0, 0), (3, 0, 1, 0), (2, -1, 1, 4)))
    moved.cover[(1, 0)] = HAND_OVER_GONE * 4
    [c] = feed(t, moved, 20)
    assert [(ch.kind, ch.after) for ch in c.changes] == [("moved", Placement(2, -1, 1, 4))]


def test_a_tile_laid_clear_of_a_hand_resting_on_the_board_is_committed_and_what_it_hides_stays():
    # a hand rests over tile 2 for several turns; the next player lays tile 4 on the far side and ends the turn
    # before the hand lifts: the tile must be committed in that turn, and tile 2 is not taken off for not being seen
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0))
    laid = B((1, 0, 0, 0), (3, 0, 1, 0), (4, -1, 1, 2))
    four = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0), (4, -1, 1, 2))

    def hand_over_tile_2(board) -> Detection:
        det = seen(board)
        det.unreadable.append(Unread((960.0, 600.0), COVERED, cell=(1, 0)))
        return det

    t = Tracker(three, stable_frames=2)
    t.motion()
    assert feed(t, hand_over_tile_2(B((1, 0, 0, 0), (3, 0, 1, 0))), 20) == []
    t.motion()
    [c] = feed(t, hand_over_tile_2(laid), 2)
    assert [(ch.kind, ch.after) for ch in c.changes] == [("placed", Placement(4, -1, 1, 2))]
    assert t.committed == four
    assert feed(t, hand_over_tile_2(laid), 20) == []
    # what is laid under it, or a tile of the board laid elsewhere, waits for the hand to lift
    t.motion()
    assert feed(t, hand_over_tile_2(B((1, 0, 0, 0), (3, 0, 1, 0), (4, -1, 1, 2), (2, 1, -1, 3))), 20) == []
    assert t.committed == four
    t.motion()
    assert feed(t, seen(four), 5) == [] and t.committed == four


def test_a_tile_laid_near_a_cell_that_cannot_be_read_waits_while_a_hand_rests_on_the_board():
    # a hand rests over tile 2, its fingers over a tile just laid at (1, -1), which cannot be read. A tile laid
    # two cells from it is judged only once it is known (without it, a space there may look forced); one
    # laid further off is committed at once
    three = B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0))

    def hand(board) -> Detection:
        det = seen(board)
        det.unreadable += [Unread((960.0, 600.0), COVERED, cell=(1, 0)), Unread((900.0, 480.0), HIDDEN, cell=(1, -1))]
        return det

    t = Tracker(three, stable_frames=2)
    t.motion()
    assert feed(t, hand(B((1, 0, 0, 0), (3, 0, 1, 0))), 20) == []
    t.motion()
    assert feed(t, hand(B((1, 0, 0, 0), (3, 0, 1, 0), (4, -1, 1, 2))), 10) == [] and t.committed == three
    t.motion()
    [c] = feed(t, hand(B((1, 0, 0, 0), (3, 0, 1, 0), (4, -1, 2, 2))), 2)
    assert [(ch.kind, ch.after) for ch in c.changes] == [("placed", Placement(4, -1, 2, 2))]


def test_a_doubt_about_an_empty_cell_whose_picture_did_not_change_since_the_commit_is_the_table_not_a_tile():
    # small tiles on paper: a pen circle drawn there long before is doubted as a tile in glare once tile 2 is laid
    # beside it. Nothing was laid on it, so tile 2 is committed and no question is asked
    circle = seen(TWO, unreadable=[(2, 0)])
    at = circle.unreadable[0].center_px

    def only_tile_2_laid(point):
        return 0.0 if point == at else 0.9

    t = Tracker(ONE, stable_frames=2)
    t.motion()
    outs = [o for o in (t.observe(circle, None, only_tile_2_laid) for _ in range(4)) if o is not None]
    assert [type(o) for o in outs] == [Commit] and outs[0].board == TWO
    # a tile laid there that cannot be read changed the picture: doubted, and still so once the table as committed
    # has been refreshed with it in view (nothing else is committed meanwhile)
    t = Tracker(ONE, stable_frames=2)
    t.motion()
    outs = [t.observe(circle, None, lambda point: 0.9) for _ in range(2)]
    assert isinstance(outs[-1], Unclear) and outs[-1].cells == [(2, 0)]
    three = seen(B((1, 0, 0, 0), (2, 1, 0, 3), (3, 0, 1, 0)), unreadable=[(2, 0)])
    t.motion()
    assert [t.observe(three, None, lambda point: 0.0) for _ in range(4)] == [None] * 4
    assert t.committed == ONE
