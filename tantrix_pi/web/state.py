"""The page's state (`GET /api/state`, each message of `GET /api/events`), built in the server's thread."""

from __future__ import annotations

import math
from functools import lru_cache

from tantrix_pi.board import Board
from tantrix_pi.grid import centre
from tantrix_pi.web.hub import Hub, Snapshot
from tantrix_pi.web.svg import board_svg


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


class PageState:
    """`build(snapshot)`: the page's state; the board's SVG is drawn again only when the board view changed."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._svg_key = None
        self._svg = ""

    def _board_svg(self, snap: Snapshot, doubted) -> str:
        view = snap.view
        seen = self.hub.seen()
        turn = table_turn(view.board, seen.detection) if seen is not None else 0.0
        forced = [tuple(f["cell"]) for f in view.forced]
        last = view.last.cell if view.last else None
        key = (view.board.to_json(), tuple(forced), last, tuple(doubted), turn)
        if key != self._svg_key:
            self._svg_key, self._svg = key, board_svg(view.board, forced, last, doubted, turn)
        return self._svg

    def build(self, snap: Snapshot) -> dict:
        view = snap.view
        state = {"version": snap.version, "events": snap.events, "camera": snap.camera, "voice": snap.voice,
                 "seen": snap.seen}
        if view is None:  # before the referee's first view
            return {**state, "game": 0, "mode": None, "players": [], "board": Board().to_dict(), "scores": {},
                    "forced": [], "turn": None, "last": None, "doubted": [], "bag_empty": False, "over": False,
                    "winners": [], "puzzle": None, "message": "", "svg": board_svg(Board())}
        doubted = [tuple(c) for c in view.doubted]
        return {**state, "game": view.game, "mode": view.mode, "players": view.players,
                "board": view.board.to_dict(), "scores": view.scores, "forced": view.forced, "turn": view.turn,
                "last": view.last.to_dict() if view.last else None, "doubted": [list(c) for c in doubted],
                "bag_empty": view.bag_empty, "over": bool(view.winners), "winners": view.winners,
                "puzzle": puzzle_state(view.puzzle, view.board), "message": view.message,
                "svg": self._board_svg(snap, doubted)}
