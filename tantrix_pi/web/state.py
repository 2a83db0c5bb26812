"""The page's state (`GET /api/state`, the first message of `GET /api/events`) and what changed since the last
one (each later message), built in the server's thread once per change of the hub."""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from tantrix_pi import rules, scoring
from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import centre
from tantrix_pi.web.hub import Hub, Snapshot
from tantrix_pi.web.svg import Picture, picture

SCORED_MODES = ("game", "solitaire")
"""Modes whose scores are a colour's longest line or twice its largest loop: the page draws the path scored."""


def table_turn(board: Board, detection) -> float:
    """Degrees (clockwise) the table's board is turned in the camera's picture: the best rotation laying the
    committed cells of the tiles read onto where the detector saw them (0 when fewer than two are shared)."""
    pairs = [(centre(board.cell_of(t.placement.tile)), t.center_px) for t in detection.tiles
             if board.cell_of(t.placement.tile) is not None]
    if len(pairs) < 2:
        return 0.0
    gx = sum(g[0] for g, _ in pairs) / len(pairs)
    gy = sum(g[1] for g, _ in pairs) / len(pairs)
    px = sum(p[0] for _, p in pairs) / len(pairs)
    py = sum(p[1] for _, p in pairs) / len(pairs)
    dot = cross = 0.0
    for (x, y), (u, v) in pairs:
        x, y, u, v = x - gx, y - gy, u - px, v - py
        dot += x * u + y * v
        cross += x * v - y * u
    return round(math.degrees(math.atan2(cross, dot)), 1)


@lru_cache(maxsize=1)
def _puzzle(name: str):
    from tantrix_pi.puzzles import puzzle

    return puzzle(name)


def puzzle_state(name: str | None, board: Board) -> dict | None:
    """A puzzle's name, its progress, and its verdict once all its tiles lie."""
    if not name:
        return None
    p = _puzzle(name)
    out = {"name": p.name, "title": p.title, "tiles": len(p.tiles), "placed": len(board), "verdict": None}
    if len(board) >= len(p.tiles):
        v = p.check(board)
        out["verdict"] = {"solved": v.solved, "reasons": list(v.reasons)}
    return out


def breakdown(board: Board, colours) -> dict[str, scoring.Score]:
    """Each colour's longest line, largest loop and the path its score counts."""
    return {c: scoring.score(board, c) for c in colours}


class Moves:
    """The game's moves in order, from the store (read-only), each marked forced or free; a move's mark is
    worked out once, on the board before it."""

    def __init__(self, state_db: Path | None) -> None:
        self.state_db = state_db
        self._forced: dict[tuple[int, int, Placement], bool] = {}
        self._key = None
        self._moves: list[dict] = []

    def of(self, game: int, board: Board) -> list[dict]:
        """The moves of `game` (the store has them before the view that shows them comes: stored before said)."""
        if self.state_db is None or not game:
            return []
        key = (game, board.to_json())
        if key == self._key:
            return self._moves
        from tantrix_pi.live.store import Store, StoreError

        try:
            store = Store(self.state_db, read_only=True)
        except StoreError:
            return []
        try:
            moves = store.moves(game)
        finally:
            store.close()
        out, before = [], Board()
        for n, m in enumerate(moves, 1):
            p = m.placement
            mark = (game, m.seq, p)
            if mark not in self._forced:
                self._forced[mark] = p.cell in rules.forced_spaces(before) if len(before) else False
            out.append({"n": n, "tile": p.tile, "q": p.q, "r": p.r, "rot": p.rot, "player": m.player,
                        "forced": self._forced[mark], "legal": m.legal})
            if p.cell not in before:
                before.place(p)
        self._key, self._moves = key, out
        return out


class PageState:
    """`build(snapshot)`: the page's state and the board's picture (drawn again only when what it shows changed)."""

    def __init__(self, hub: Hub, state_db: Path | None = None) -> None:
        self.hub = hub
        self.moves = Moves(state_db)
        self._picture_key = None
        self._picture = picture(Board())

    def _board(self, snap: Snapshot, doubted, paths) -> Picture:
        view = snap.view
        seen = self.hub.seen()
        turn = table_turn(view.board, seen.detection) if seen is not None else 0.0
        forced = [tuple(f["cell"]) for f in view.forced]
        last = view.last.cell if view.last else None
        key = (view.board.to_json(), tuple(forced), last, tuple(doubted), turn, repr(view.illegal), repr(paths))
        if key != self._picture_key:
            self._picture_key = key
            self._picture = picture(view.board, forced, last, doubted, turn, view.illegal, paths)
        return self._picture

    def build(self, snap: Snapshot) -> tuple[dict, Picture]:
        view = snap.view
        state = {"version": snap.version, "events": snap.events, "camera": snap.camera, "voice": snap.voice,
                 "seen": snap.seen}
        if view is None:  # before the referee's first view
            empty = picture(Board())
            return {**state, "game": 0, "mode": None, "players": [], "board": Board().to_dict(), "scores": {},
                    "breakdown": {}, "forced": [], "turn": None, "to_move": None, "last": None, "doubted": [],
                    "illegal": [], "must_fill": [], "moves": [], "bag_empty": False, "over": False, "winners": [],
                    "puzzle": None, "message": "", "svg": empty.svg()}, empty
        doubted = [tuple(c) for c in view.doubted]
        scored = breakdown(view.board, view.scores) if view.mode in SCORED_MODES else {}
        paths = [(c, s.path.cells, s.path.loop) for c, s in scored.items() if s.path is not None]
        board = self._board(snap, doubted, paths)
        return {**state, "game": view.game, "mode": view.mode, "players": view.players,
                "board": view.board.to_dict(), "scores": view.scores,
                "breakdown": {c: {"line": s.line, "loop": s.loop, "score": s.score} for c, s in scored.items()},
                "forced": view.forced, "turn": view.turn, "to_move": view.to_move,
                "last": view.last.to_dict() if view.last else None, "doubted": [list(c) for c in doubted],
                "illegal": view.illegal, "must_fill": view.must_fill, "moves": self.moves.of(view.game, view.board),
                "bag_empty": view.bag_empty, "over": bool(view.winners), "winners": view.winners,
                "puzzle": puzzle_state(view.puzzle, view.board), "message": view.message, "svg": board.svg()}, board


STREAMED_APART = ("version", "events", "moves", "svg", "board")
"""Keys a delta carries in a form of their own (or, for `board`, not at all: the picture carries the tiles)."""


def delta(before: dict, before_picture: Picture, after: dict, after_picture: Picture) -> dict:
    """What a page holding state `before` needs to hold `after`: the keys that changed, the announcements made
    since, the moves from the first that differs, and the board's picture's parts that changed."""
    out: dict = {"version": after["version"], "from": before["version"]}
    changed = {k: v for k, v in after.items() if k not in STREAMED_APART and before.get(k) != v}
    if changed:
        out["set"] = changed
    old = {id(e) for e in before["events"]}
    new = [e for e in after["events"] if id(e) not in old]
    if new:
        out["events"] = new
    a, b = before["moves"], after["moves"]
    same = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    if same != len(a) or same != len(b):
        out["moves"] = {"from": same, "tail": b[same:]}
    board = after_picture.delta(before_picture)
    if board:
        out["svg"] = board
    return out
