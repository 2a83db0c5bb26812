"""A puzzle hint for the live referee: the solver asked about the board on the table, the answer as an Event."""

from __future__ import annotations

from tantrix_pi import puzzles, solver
from tantrix_pi.board import Board
from tantrix_pi.live.store import Event
from tantrix_pi.rules import fmt


def hint_event(puzzle: str, board: Board, timeout: float) -> Event:
    """What to say when the players ask for a hint on `board` (a partly built `puzzle`): the next tile,
    its cell and turn; or which tiles block every solution; or that there was no time to decide."""
    goal = puzzles.puzzle(puzzle)
    try:
        found = solver.hint(goal, board, timeout=timeout)
    except solver.SolveTimeout:
        return Event("hint", f"No hint: {goal.name} could not be decided within {timeout:g} s.",
                     {"puzzle": puzzle, "solvable": None})
    data = {"puzzle": puzzle, "solvable": found.solvable, "reason": found.reason,
            "next": found.placement.to_dict() if found.placement else None,
            "blockers": [p.to_dict() for p in found.blockers]}
    p = found.placement
    if p is not None:
        text = f"Hint: {p}{solver.beside(board, p)} ({found.reason})."
    elif found.solvable:
        text = f"Hint: {goal.name} is {found.reason}."
    elif found.blockers:
        names = ", ".join(f"tile {b.tile} at {fmt(b.cell)}" for b in found.blockers)
        text = f"Hint: {goal.name} cannot be completed: {found.reason}; take away {names}."
    else:
        text = f"Hint: {goal.name} cannot be completed: {found.reason}."
    return Event("hint", text, data)
