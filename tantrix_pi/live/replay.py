"""What the referee said at every step of a stored game, said again in the language of the moment.

The store keeps machine fields only: the committed boards, the moves and each event's kind and data. The
words come from the referee judging the stored boards again, in their order, with the ends of turn and the
unread tiles where they came: a game played in Czech replays in Spanish (the web page's replay). What is
said is what the rules engine says today.
"""

from __future__ import annotations

from tantrix_pi.board import Board
from tantrix_pi.live.referee import Referee, Setup, new_game_event
from tantrix_pi.live.store import Event, Store, Stored
from tantrix_pi.live.tracker import Change, Commit, Unsure, changes


def said_steps(store: Store, game: int) -> list[tuple[Board, list[Event]]]:
    """Each step of `store.steps(game)` with what the referee says at it: the board's events, then those that
    came with no board (an end of turn, a tile that could not be read, a new game)."""
    referee = Referee(Setup.from_dict(store.setup(game)))
    out: list[tuple[Board, list[Event]]] = []
    before = Board()
    for i, (board, stored) in enumerate(store.steps(game)):
        said: list[Event] = []
        if i:
            said += referee.commit(Commit(board.copy(), _as_seen(before, board, stored))).events
            before = board
        said += [_said_again(referee, e) for e in stored if e.board is None]
        out.append((board, said))
    return out


def _as_seen(before: Board, after: Board, stored: list[Stored]) -> list[Change]:
    """The changes as the tracker saw them: tiles changed in place with no motion seen are corrections."""
    return changes(before, after, moved=not any(e.kind == "corrected" for e in stored))


def _said_again(referee: Referee, e: Stored) -> Event:
    """What is said again for an event stored with no board (the live loop stores these three kinds so)."""
    if e.kind == "end_turn":
        return referee.end_turn().events[0]
    if e.kind == "unsure":
        return referee.unsure(Unsure([tuple(c) for c in e.data["cells"]], [tuple(p) for p in e.data["px"]])).events[0]
    if e.kind == "new_game":
        return new_game_event(e.data["game"])
    return Event(e.kind, "", e.data)
