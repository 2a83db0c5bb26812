"""A puzzle hint for the live referee: the solver asked about the board on the table, the answer as a Notice."""

from __future__ import annotations

from tantrix_pi import puzzles, solver
from tantrix_pi.board import Board
from tantrix_pi.i18n import _, listing
from tantrix_pi.live.store import Notice


def hint_event(puzzle: str, board: Board, timeout: float) -> Notice:
    """What to say when the players ask for a hint on `board` (a partly built `puzzle`): the next tile,
    its cell and turn; or which tiles block every solution; or that there was no time to decide."""
    goal = puzzles.puzzle(puzzle)
    try:
        found = solver.hint(goal, board, timeout=timeout)
    except solver.SolveTimeout:
        return Notice("hint", _("No hint: {puzzle} could not be decided within {seconds:g} s.").format(
            puzzle=goal.title, seconds=timeout), {"puzzle": puzzle, "solvable": None})
    data = {"puzzle": puzzle, "solvable": found.solvable,
            "next": found.placement.to_dict() if found.placement else None,
            "blockers": [p.to_dict() for p in found.blockers]}
    p = found.placement
    if p is not None:
        text = _("Hint: {placement} ({reason}).").format(placement=solver.hinted(board, p), reason=found.reason)
    elif found.solvable:
        text = _("Hint: {puzzle} is already solved.").format(puzzle=goal.title)
    elif found.blockers:
        text = _("Hint: {puzzle} cannot be completed: {reason}; take away {placements}.").format(
            puzzle=goal.title, reason=found.reason, placements=listing(found.blockers))
    else:
        text = _("Hint: {puzzle} cannot be completed: {reason}.").format(puzzle=goal.title, reason=found.reason)
    return Notice("hint", text, data)
