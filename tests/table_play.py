"""Whole games played at a simulated table, with the slips players make, as the live referee sees them.

A reference game comes from the engine's self-play. `table_script` turns it into shots of the table, one per
camera frame, as the detector would report them (detections built directly, no rendering): a hand bringing
each tile (motion), then still frames; and, where asked, the slips of real players: an illegal tile taken back,
an illegal tile moved or turned straight to where it may go, a tile turned after it was put down, two tiles in
one commit, the board nudged, an old tile taken off and put back, a hand resting over the board, one frame
misread, a lamp switched on. `referee_sees` feeds the shots through the tracker and the referee exactly as the
live loop does (tests/test_referee_games.py states what must hold).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from live_fakes import seen

from tantrix_pi import rules
from tantrix_pi.board import Board, Placement
from tantrix_pi.game import Draw, Game, Hand, Move, TurnEnded
from tantrix_pi.live.config import GateConfig
from tantrix_pi.live.hands import HandWatch
from tantrix_pi.live.referee import Referee, Setup
from tantrix_pi.live.store import Notice
from tantrix_pi.live.tracker import Commit, Tracker, Unclear
from tantrix_pi.selfplay import random_game
from tantrix_pi.vision.detection import COVERED, FACE_DOWN_APART, LOOSE, Unread

STABLE = GateConfig().stable_frames
SLIPS = ("illegal_back", "illegal_moved", "turned", "two_in_one", "nudge", "old_off_and_back", "hand_over",
         "misread", "lamp")
HAND_SLIPS = ("zone_covered", "zone_face_down")
"""Slips of the hands in view: a hand over a seat's zone for a while, a tile in a zone turned over."""
BOARD_KINDS = ("forced", "scores", "bag_empty", "game_over", "to_play", "must_fill")
"""Events that follow from the board and the hands themselves: they come with moves, never on their own."""
SIZE = (10_000, 1_000)
"""The frame the zones are fractions of (the fake detections' board lies left of x = 2000)."""
ZONES = {c: ((0.5 + 0.1 * i, 0.0), (0.59 + 0.1 * i, 0.0), (0.59 + 0.1 * i, 1.0), (0.5 + 0.1 * i, 1.0))
         for i, c in enumerate("RYGB")}
"""One zone per seat, apart from the board."""


@dataclass
class Shot:
    """One camera frame: motion, a button press, or a still table as the detector reads it."""

    board: Board | None = None
    motion: bool = False
    press: bool = False
    hidden: frozenset = frozenset()
    """Cells under a hand: their tiles unseen, the detector reporting something over them."""
    override: dict = field(default_factory=dict)
    confidence: float = 0.95
    transform: tuple[int, int, int] = (0, 0, 0)
    changed: float = 0.0
    """Tile areas of the picture that differ from the table as last committed."""
    zones: dict | None = None
    """The tiles lying in each seat's zone (None: no zones in view)."""
    zone_hidden: frozenset = frozenset()
    """Tiles in the zones that a hand hides."""
    zone_face_down: frozenset = frozenset()
    """Tiles in the zones lying face down."""
    seen: object = None
    """The detection of this shot, made once."""


@dataclass
class Segment:
    """The shots of one reference move or of one slip, and what it may be announced as."""

    kind: str
    shots: list[Shot]
    move: Placement | None = None
    """The reference placement this segment plays (None: a slip that leaves the game as it was)."""
    wrong: Placement | None = None
    """The tile a slip lays where it may not go (an illegal event about it is expected)."""
    also: Placement | None = None
    """A second reference placement the segment plays (two tiles seen in one commit)."""
    extra: int = 0
    """Announcements allowed beyond the move's own `placed`: the slip's own actions, or one for a misreading."""
    events: list[Notice] = field(default_factory=list)


GONE = STABLE + 3
"""Still frames a table needs after tiles left it (the tracker waits longer then: a hand may hide them)."""


def still(board: Board, n: int = STABLE + 1, **kw) -> list[Shot]:
    """`n` frames of the table lying still (one shot, seen n times)."""
    return [Shot(board.copy(), **kw)] * n


def hand(board: Board, n: int = 1) -> list[Shot]:
    return [Shot(board.copy(), motion=True) for _ in range(n)]


def reference_game(players: int, seed: int, moves: int | None = None) -> Game:
    """A self-play game with hands known, stopped after `moves` placements when given."""
    return random_game(players, seed=seed, stop=(lambda g: len(g.board) >= moves) if moves else None)


def plus(board: Board, *placements: Placement) -> Board:
    out = board.copy()
    for p in placements:
        out.place(p)
    return out


def table_script(ref: Game, rng: random.Random, slips: int, presses: bool = True, hands: bool = False
                 ) -> list[Segment]:
    """The segments of the reference game played at the table, `slips` of its moves with a slip; an end of turn in
    the reference is a button press when `presses` (the referee without hands cannot see turns end otherwise);
    with `hands`, each seat's zone shows its hand, the tile drawn after a placement coming with it."""
    events = [e for e in ref.events if not isinstance(e, Draw)]
    draws_after = {}  # the tiles drawn right after each placement
    last = None
    for e in ref.events:
        if isinstance(e, Move):
            last = e.placement
        elif isinstance(e, Draw):
            draws_after.setdefault(last, []).append(e)
    n_moves = sum(isinstance(e, Move) for e in events)
    at = set(rng.sample(range(1, n_moves), min(slips, n_moves - 1))) if n_moves > 1 else set()
    board, blind = Board(), Game(ref.players)  # the table and the game before each move, hands unknown
    held = {p: set() for p in ref.players}
    out: list[Segment] = [Segment("empty", still(board))]
    kinds = SLIPS + (HAND_SLIPS if hands else ())
    i = k = 0
    while i < len(events):
        e = events[i]
        i += 1
        if isinstance(e, Hand):
            held[e.player] = set(e.tiles)
            continue
        if isinstance(e, TurnEnded):
            blind.end_turn(e.player)
            if presses:
                out.append(Segment("press", [Shot(press=True)]))
            continue
        slip = rng.choice(kinds) if k in at else None
        k += 1
        moves = [e]
        if slip == "two_in_one":
            if i < len(events) and isinstance(events[i], Move) and events[i].player == e.player:
                moves.append(events[i])
                i += 1
                k += 1
            else:
                slip = "nudge"
        if slip is None or slip in HAND_SLIPS:
            segs = [Segment("move", hand(board) + still(plus(board, e.placement)), move=e.placement)]
        else:
            segs = _slip(slip, board, blind, [m.placement for m in moves], rng)
        drawn = [(d, m.placement) for m in moves for d in draws_after.get(m.placement, ())]
        if hands:
            for seg in segs:
                _show_hands(seg, held, drawn)
            if slip in HAND_SLIPS:
                segs.append(_hand_slip(slip, segs[-1].shots[-1], moves[0].player, rng))
        out += segs
        for m in moves:
            board = plus(board, m.placement)
            blind.push(m.placement, m.player)
            held[m.player].discard(m.placement.tile)
        for d, _p in drawn:
            held[d.player].add(d.tile)
    if hands:
        _show_hands(out[0], held={p: set(h) for p, h in _dealt(ref).items()}, drawn=[])
    return out


def _dealt(ref: Game) -> dict[str, set[int]]:
    return {p: set(t) for p, t in ref.dealt.items()}


def _show_hands(seg: Segment, held: dict[str, set[int]], drawn: list) -> None:
    """Each still shot of `seg` shows every hand: as held before the segment's moves, with the tiles drawn after
    a move once that move lies on the table, less the tiles lying on the table."""
    for shot in seg.shots:
        if shot.board is None:
            continue
        zones = {p: set(h) for p, h in held.items()}
        for d, placed in drawn:
            if shot.board.get(placed.cell) == placed:
                zones[d.player].add(d.tile)
        shot.zones = {p: frozenset(h - shot.board.tiles) for p, h in zones.items()}


def _hand_slip(slip: str, last: Shot, player: str, rng: random.Random) -> Segment:
    """After a move: a hand resting over the mover's zone, or one of its tiles turned over, for a while."""
    tiles = sorted(last.zones[player])
    if not tiles:
        return Segment(slip, [])
    some = frozenset(rng.sample(tiles, rng.randint(1, len(tiles)) if slip == "zone_covered" else 1))
    kw = {"zone_hidden": some} if slip == "zone_covered" else {"zone_face_down": some}
    odd = Shot(last.board.copy(), zones=last.zones, **kw)
    return Segment(slip, hand(last.board) + [odd] * rng.randint(STABLE, 12) + hand(last.board)
                   + [Shot(last.board.copy(), zones=last.zones)] * (STABLE + 1))


def _slip(slip: str, board: Board, game: Game, moves: list[Placement], rng: random.Random) -> list[Segment]:
    """The segments of the move played with `slip` (two_in_one: the two moves, laid before the camera sees)."""
    p = moves[0]
    after = plus(board, *moves)
    if slip == "illegal_back":
        wrong = _illegal(board, game, rng)
        return [Segment(slip, hand(board) + still(plus(board, wrong)) + hand(board) + still(board, GONE), wrong=wrong,
                        extra=2),
                Segment("move", hand(board) + still(after), move=p)]
    if slip == "illegal_moved":
        wrong = _illegal(board, game, rng, tile=p.tile)
        return [Segment(slip, hand(board) + still(plus(board, wrong)) + hand(plus(board, wrong)) + still(after, GONE),
                        move=p, wrong=wrong, extra=1)]
    if slip == "turned":
        other = Placement(p.tile, p.q, p.r, (p.rot + rng.randrange(1, 6)) % 6)
        return [Segment(slip, hand(board) + still(plus(board, other)) + hand(plus(board, other)) + still(after), move=p,
                        wrong=other if game.check(other).violations else None, extra=1)]
    if slip == "two_in_one":
        return [Segment(slip, hand(board) + still(after), move=p, also=moves[1])]
    if slip == "nudge":
        k, dq, dr = rng.randrange(6), rng.randrange(-3, 4), rng.randrange(-3, 4)
        return [Segment("move", hand(board) + still(after), move=p),
                Segment(slip, hand(after) + still(after, transform=(k, dq, dr)))]
    if slip == "old_off_and_back":
        segs = [Segment("move", hand(board) + still(after), move=p)]
        if len(after) < 3:
            return segs
        old = rng.choice([q for q in after if q != p])
        gone = Board(q for q in after if q != old)
        return segs + [Segment(slip, hand(after) + still(gone, GONE) + hand(gone) + still(after), extra=2)]
    if slip == "hand_over":
        cells = rng.sample(sorted(after.cells), min(len(after), rng.randint(1, 4)))
        n = rng.randint(8, 40)
        shots = hand(board) + still(after, n, hidden=frozenset(cells), changed=8.0 + 4 * len(cells)) + hand(after) \
            + still(after)
        return [Segment("move", hand(board) + still(after), move=p), Segment(slip, shots)]
    if slip == "misread":
        cell = rng.choice(sorted(after.cells))
        if rng.random() < 0.5:  # a wrong reading: another turn, or a tile not on the table
            other = sorted(set(range(1, 57)) - after.tiles) or [after[cell].tile]
            bad = {cell: (rng.choice(other), (after[cell].rot + rng.randrange(1, 6)) % 6)}
            odd = Shot(after.copy(), override=bad, confidence=0.9)
        else:
            odd = Shot(after.copy(), confidence=0.5)
        shots = hand(board) + still(after, 2) + [odd] + still(after, STABLE + 2)
        return [Segment(slip, shots, move=p, extra=1)]
    if slip == "lamp":
        n = rng.randint(2, 5)
        shots = still(after, n, confidence=rng.uniform(0.3, 0.75), changed=40.0)
        return [Segment("move", hand(board) + still(after), move=p),
                Segment(slip, hand(after) + shots + still(after, STABLE + 8), extra=1)]
    raise ValueError(slip)


def _illegal(board: Board, game: Game, rng: random.Random, tile: int | None = None) -> Placement:
    """A placement touching the board that the rules refuse for the golden rule, of `tile` or an unplayed one."""
    unplayed = sorted(set(range(1, 57)) - board.tiles)
    tiles = [tile] if tile is not None else rng.sample(unplayed, min(8, len(unplayed)))
    cells = sorted(board.empty_neighbours()) if len(board) else [(0, 0)]
    for cell in rng.sample(cells, len(cells)):
        for t in tiles:
            for rot in rng.sample(range(6), 6):
                q = Placement(t, cell[0], cell[1], rot)
                if any(v.rule == rules.GOLDEN_RULE for v in game.check(q).violations):
                    return q
    return Placement(tiles[0], 40, 40, 0)  # nowhere to break the golden rule: far from the board


def detection(shot: Shot):
    """What the detector reports for a still shot: the tiles (hidden ones not), something over hidden cells."""
    if shot.seen is None:
        shot.seen = _detection(shot)
    return shot.seen


def _detection(shot: Shot):
    visible = Board(p for p in shot.board if p.cell not in shot.hidden)
    det = seen(visible, *shot.transform, confidence=shot.confidence, override=shot.override)
    k, dq, dr = shot.transform
    det.unreadable += [Unread((0.0, 0.0), COVERED, cell=Placement(1, c[0], c[1], 0).transformed(k, dq, dr).cell)
                       for c in sorted(shot.hidden)]
    for player, tiles in (shot.zones or {}).items():
        x0 = SIZE[0] * ZONES[player][0][0]
        for j, t in enumerate(sorted(tiles - shot.zone_hidden)):
            where = (x0 + 60.0 + 120 * j, 500.0)
            if t in shot.zone_face_down:
                det.face_down.append(Unread(where, FACE_DOWN_APART))
            else:
                det.loose.append(Unread(where, LOOSE, t))
    return det


def referee_sees(segments: list[Segment], setup: Setup, hands: bool = False) -> tuple[Referee, Tracker]:
    """Feed every shot through a tracker, a hand watch when `hands`, and a referee as the live loop does; each
    segment gets its events."""
    tracker, referee = Tracker(stable_frames=STABLE), Referee(setup, hands_in_view=hands)
    watch = HandWatch({p: ZONES[p] for p in setup.players}, STABLE) if hands else None
    for seg in segments:
        for shot in seg.shots:
            if shot.press:
                seg.events += referee.end_turn().events
                continue
            if shot.motion:
                tracker.motion()
                if watch:
                    watch.motion()
                continue
            det = detection(shot)
            sightings = watch.observe(det, SIZE) if watch else []
            if sightings:  # the hands first: a tile drawn after one laid is then known when that one is judged
                seg.events += referee.hands(sightings).events
            result = tracker.observe(det, shot.changed)
            if isinstance(result, Commit):
                seg.events += referee.commit(result).events
            elif isinstance(result, Unclear):
                seg.events += referee.unsure(result).events
    return referee, tracker
