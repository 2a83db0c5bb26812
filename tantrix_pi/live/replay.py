"""What the referee said at every step of a stored game, said again in the language of the moment.

The store keeps machine fields only: the committed boards, the moves and each event's kind and data. The
words come from the referee judging the stored boards again, in their order, with the ends of turn and the
unread tiles where they came: a game played in Czech replays in Spanish (the web page's replay). What is
said is what the rules engine says today. `replay` adds what the page shows at each step: the scores, the
tiles the game did not accept and the forced spaces of the others, and the game's moves, each with the step
it was made at.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tantrix_pi import rules
from tantrix_pi.board import Board, Placement
from tantrix_pi.live.referee import Referee, Setup, new_game_event
from tantrix_pi.live.store import Event, Store, Stored
from tantrix_pi.live.tracker import Change, Commit, Unsure, changes


@dataclass
class Step:
    """One step of a stored game: the board, what was said, and what the page shows with it."""

    board: Board
    events: list[Event]
    scores: dict[str, int] = field(default_factory=dict)
    illegal: list[dict] = field(default_factory=list)
    """The tiles lying there that the game did not accept, as `View.illegal`."""
    forced: list[dict] = field(default_factory=list)
    """The forced spaces of the accepted tiles, as `View.forced`."""
    moves: int = 0
    """How many of the game's moves had been made (and accepted)."""


@dataclass
class Replay:
    steps: list[Step]
    moves: list[dict]
    """The moves that stayed on the table, in order: {"n", "tile", "q", "r", "rot", "player", "forced", "legal",
    "step"} (`step`: where it was made)."""


def replay(store: Store, game: int) -> Replay:
    """Every step of `store.steps(game)` judged again, with what the referee says at it (the board's events, then
    those that came with no board: an end of turn, a tile that could not be read, a new game)."""
    referee = Referee(Setup.from_dict(store.setup(game)))
    steps: list[Step] = []
    moves: list[dict] = []
    illegal: list[dict] = []
    before = Board()
    for i, (board, stored) in enumerate(store.steps(game)):
        said: list[Event] = []
        if i:
            said += referee.commit(Commit(board.copy(), _as_seen(before, board, stored))).events
            before = board
        said += [_said_again(referee, e) for e in stored if e.board is None]
        for e in said:
            _follow(moves, e, i)
        illegal = [t for t in illegal if board.get(tuple(t["cell"])) == _placement(t)]
        illegal += [{k: e.data[k] for k in ("tile", "cell", "rot", "violations")} for e in said if e.kind == "illegal"]
        for m in moves:
            m["legal"] = not any(t["tile"] == m["tile"] for t in illegal)
        accepted = Board(p for p in board if not any(p.tile == t["tile"] for t in illegal))
        forced = [{"letter": f.letter, "cell": list(f.cell), "needs": list(f.needs), "fits": list(f.fits)}
                  for f in rules.forced_space_report(accepted)] if len(accepted) else []
        steps.append(Step(board, said, referee.scores(), illegal, forced, sum(m["legal"] for m in moves)))
    for n, m in enumerate(moves, 1):
        m["n"] = n
    return Replay(steps, moves)


def said_steps(store: Store, game: int) -> list[tuple[Board, list[Event]]]:
    """Each step of `store.steps(game)` with what the referee says at it."""
    return [(s.board, s.events) for s in replay(store, game).steps]


def _placement(t: dict) -> Placement:
    return Placement(t["tile"], t["cell"][0], t["cell"][1], t["rot"])


def _follow(moves: list[dict], e: Event, step: int) -> None:
    """The moves after event `e`: a placement (legal or not) adds one, a tile taken off removes its move, a tile
    turned or moved changes it."""
    d = e.data
    if e.kind in ("placed", "illegal") and "was" not in d:
        moves.append({"tile": d["tile"], "q": d["cell"][0], "r": d["cell"][1], "rot": d["rot"],
                      "player": d.get("player"), "forced": bool(d.get("forced")), "legal": e.kind == "placed",
                      "step": step})
    elif e.kind in ("taken_back", "removed"):
        moves[:] = [m for m in moves if m["tile"] != d["tile"]]
    elif "was" in d:  # turned, moved or corrected (an illegal turn or move too)
        for m in moves:
            if m["tile"] == d["was"]["tile"]:
                m.update(tile=d["tile"], q=d["cell"][0], r=d["cell"][1], rot=d["rot"])


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
