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
from tantrix_pi.live.store import Notice, Store, Stored
from tantrix_pi.live.tracker import Change, Commit, Unclear, changes


@dataclass
class Step:
    """One step of a stored game: the board, what was said, and what the page shows with it."""

    board: Board
    events: list[Notice]
    scores: dict[str, int] = field(default_factory=dict)
    illegal: list[dict] = field(default_factory=list)
    """The tiles lying there that the game did not accept, as `View.illegal`."""
    forced: list[dict] = field(default_factory=list)
    """The forced spaces of the accepted tiles, as `View.forced`."""
    moves: int = 0
    """How many of the game's moves had been made (and accepted)."""
    to_move: str | None = None
    """Who plays now, as `View.to_move`: as this step's announcements say it, else the referee's turn."""
    must_fill: list[dict] = field(default_factory=list)
    """The fills this step's announcements say a player owes, as `View.must_fill`."""


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
    aside: dict[int, dict] = {}
    illegal: list[dict] = []
    before = Board()
    for i, (board, stored) in enumerate(store.steps(game)):
        said: list[Notice] = []
        if i:
            said += referee.commit(Commit(board.copy(), _as_seen(before, board, stored))).events
            before = board
        said += [_said_again(referee, e) for e in stored if e.board is None]
        for e in said:
            _follow(moves, aside, e, i)
        illegal = [t for t in illegal if board.get(tuple(t["cell"])) == _placement(t)]
        illegal += [{k: e.data[k] for k in ("tile", "cell", "rot", "violations")} for e in said if e.kind == "illegal"]
        for m in moves:
            m["legal"] = not any(t["tile"] == m["tile"] for t in illegal)
        accepted = Board(p for p in board if not any(p.tile == t["tile"] for t in illegal))
        forced = [{"letter": f.letter, "cell": list(f.cell), "needs": list(f.needs), "fits": list(f.fits)}
                  for f in rules.forced_space_report(accepted)] if len(accepted) else []
        to_move = None if referee.over else next((w for e in reversed(said) if (w := _who_plays(e))), referee.turn)
        steps.append(Step(board, said, referee.scores(), illegal, forced, sum(m["legal"] for m in moves), to_move,
                          [owed for e in said if e.kind == "must_fill" for owed in _owed(e.data, forced)]))
    for n, m in enumerate(moves, 1):
        m["n"] = n
    return Replay(steps, moves)


def said_steps(store: Store, game: int) -> list[tuple[Board, list[Notice]]]:
    """Each step of `store.steps(game)` with what the referee says at it."""
    return [(s.board, s.events) for s in replay(store, game).steps]


def _placement(t: dict) -> Placement:
    return Placement(t["tile"], t["cell"][0], t["cell"][1], t["rot"])


def _follow(moves: list[dict], aside: dict[int, dict], e: Notice, step: int) -> None:
    """The moves after event `e`: a placement (legal or not) adds one; a tile taken back takes its move away, an
    older tile taken off puts its move `aside` until it is restored (back in its place in the order); a tile
    turned or moved changes its move (an illegal tile moved to where it may go: the player's move, now legal)."""
    d = e.data
    if e.kind in ("placed", "illegal") and "was" not in d:
        moves.append({"tile": d["tile"], "q": d["cell"][0], "r": d["cell"][1], "rot": d["rot"],
                      "player": d.get("player"), "forced": bool(d.get("forced")), "legal": e.kind == "placed",
                      "step": step})
    elif e.kind in ("taken_back", "removed"):
        if e.kind == "removed":
            aside.update((m["tile"], m) for m in moves if m["tile"] == d["tile"])
        moves[:] = [m for m in moves if m["tile"] != d["tile"]]
    elif e.kind == "restored" and d["tile"] in aside:
        m = aside.pop(d["tile"])
        m.update(q=d["cell"][0], r=d["cell"][1], rot=d.get("rot", m["rot"]))
        moves.insert(next((k for k, n in enumerate(moves) if n["step"] > m["step"]), len(moves)), m)
    elif "was" in d:  # turned, moved, restored or corrected (an illegal turn or move too)
        for m in moves:
            if m["tile"] == d["was"]["tile"]:
                m.update(tile=d["tile"], q=d["cell"][0], r=d["cell"][1], rot=d["rot"])
                m.update({k: d[k] for k in ("player", "forced") if k in d})


def _who_plays(e: Notice) -> str | None:
    """Who plays after event `e`, when it says so."""
    if e.kind == "to_play":
        return e.data.get("player")
    return e.data.get("next") if e.kind in ("placed", "end_turn") else None


def _owed(d: dict, forced: list[dict]) -> list[dict]:
    """A `must_fill` event's spaces (each a cell, or a dict with its cell) as `View.must_fill` has them: the
    letter and the tiles that fit from the forced spaces of the moment, unless the event names them."""
    out = []
    for space in d.get("spaces", []):
        cell = list(space["cell"] if isinstance(space, dict) else space)
        known = next((f for f in forced if f["cell"] == cell), {})
        named = space if isinstance(space, dict) else {}
        out.append({"player": d.get("player"), "letter": named.get("letter", known.get("letter", "")), "cell": cell,
                    "tiles": list(named.get("tiles", known.get("fits", [])))})
    return out


def _as_seen(before: Board, after: Board, stored: list[Stored]) -> list[Change]:
    """The changes as the tracker saw them: tiles changed in place with no motion seen are corrections."""
    return changes(before, after, moved=not any(e.kind == "corrected" for e in stored))


def _said_again(referee: Referee, e: Stored) -> Notice:
    """What is said again for an event stored with no board (the live loop stores these three kinds so)."""
    if e.kind == "end_turn":
        return referee.end_turn().events[0]
    if e.kind == "unsure":
        cells = [tuple(c) for c in e.data["cells"]]
        why = dict(zip(cells, e.data.get("why", ()), strict=False))  # games stored before reasons were kept: none
        return referee.unsure(Unclear(cells, [tuple(p) for p in e.data["px"]],
                                      {c: w for c, w in why.items() if w})).events[0]
    if e.kind == "new_game":
        return new_game_event(e.data["game"])
    return Notice(e.kind, "", e.data)
