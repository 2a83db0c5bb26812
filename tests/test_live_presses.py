"""When an end-of-turn press made as a tile goes down counts: before or after that tile (live/presses.py)."""

import pytest

from tantrix_pi.live.presses import PATIENCE, HeldPresses


def held(pending: bool, motion_before: int, motion_after: int) -> HeldPresses:
    h = HeldPresses()
    assert h.hold(pending, motion_before)
    for _frame in range(motion_after):
        h.moved()
    return h


def test_a_press_on_a_settled_table_is_judged_at_once_and_one_waiting_holds_the_next():
    h = HeldPresses()
    assert not h.hold(pending=False, motion=0) and h.take() == 0
    assert h.hold(pending=True, motion=0) and h.hold(pending=False, motion=0) and h.take() == 2
    assert not h.hold(pending=False, motion=0)


@pytest.mark.parametrize(("may_end", "fills", "before", "after", "first"), [
    (False, False, 1, 3, False),  # the presser has not made the free move: the tile is theirs
    (True, False, 5, 1, True),  # a free move after the presser's: the next player's
    (True, True, 4, 1, False),  # a fill, pressed as the hand left it: the presser's last fill
    (True, True, 1, 4, True),  # a fill, pressed as a hand came in: the next player's first fill
    (True, True, 2, 2, True),  # at the very middle: as if no hand had been in view
])
def test_a_press_during_motion_goes_before_the_tiles_only_when_they_cannot_or_need_not_be_the_pressers(
        may_end, fills, before, after, first):
    assert held(False, before, after).before(may_end, fills) is first


@pytest.mark.parametrize(("holds", "first"), [(True, False), (False, True)])
def test_with_the_hands_in_view_the_hand_the_tiles_came_from_decides(holds, first):
    # a fill pressed late in the motion, but from the next player's hand; a free move, but from the presser's
    assert held(False, 4, 1).before(True, True, mover_holds=holds) is first
    assert held(False, 1, 4).before(True, False, mover_holds=holds) is first


def test_a_press_after_a_tile_was_seen_laid_always_waits_for_it():
    assert held(True, 0, 3).before(mover_may_end=True, all_fill_forced=False) is False


def test_held_presses_are_due_once_the_table_settles_or_patience_runs_out():
    h = held(True, 0, 0)
    assert not h.due(settled=False) and h.due(settled=True)
    h = held(True, 0, 0)
    assert not any(h.due(settled=False) for _frame in range(PATIENCE)) and h.due(settled=False)
    assert h.take() == 1 and not h.due(settled=True)


def test_presses_wait_for_a_tile_that_cannot_be_read_and_are_taken_oldest_first_by_when_they_were_made():
    h = HeldPresses()
    assert h.hold(pending=True, motion=0, at=7) and h.hold(pending=True, motion=0, at=12)
    assert not any(h.due(settled=False, waiting=True) for _frame in range(3 * PATIENCE))
    assert (h.made_before(7), h.made_before(8), h.made_before(13)) == (0, 1, 2)
    assert h.take(1) == 1 and h.count == 1 and h.made_before(13) == 1 and h.made_before(12) == 0
    assert h.due(settled=True) and h.take() == 1 and h.count == 0
