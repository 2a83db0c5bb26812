"""Detections built by hand for the live referee's tests (no detector needed)."""

from __future__ import annotations

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import centre
from vision.detection import Detection, SeenTile, Unread


def seen(board: Board, k: int = 0, dq: int = 0, dr: int = 0, confidence: float = 0.95,
         override: dict | None = None, unsure: dict | None = None, unreadable=()) -> Detection:
    """A detection of `board` as the detector would give it in its own grid (turned k, moved by dq, dr).

    `override` maps a cell of `board` to the (tile, rot) misread there; `unsure` maps a cell to a confidence.
    """
    override, unsure = override or {}, unsure or {}
    tiles = []
    for p in board:
        if p.cell in override:
            p = Placement(override[p.cell][0], p.q, p.r, override[p.cell][1])
        x, y = centre(p.cell, 50.0)
        tiles.append(SeenTile(p.transformed(k, dq, dr), (800 + x, 600 + y), unsure.get(p.cell, confidence)))
    unread = []
    for cell in unreadable:
        x, y = centre(cell, 50.0)
        unread.append(Unread((800 + x, 600 + y), "colours unclear"))
    return Detection(tiles=tiles, unreadable=unread)


def B(*ps: tuple[int, int, int, int]) -> Board:
    """A board from (tile, q, r, rot) tuples."""
    return Board(Placement(*p) for p in ps)
