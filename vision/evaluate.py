"""Score one detection against the truth of a photo (dataset layout of `dataset/dev`), for the benches.

Boards have no absolute position or heading, so the detected board is first aligned to the true one
by the turn and move of the whole grid that makes the most tiles agree (`align`); every count below
is taken under that alignment.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from tantrix_pi.board import Board, BoardError, Placement
from tantrix_pi.grid import Cell, turn
from tantrix_pi.vision.detection import CONFIDENT, Detection, Unread


@dataclass
class Accuracy:
    """How one detection compares with the truth of its photo."""

    tiles: int = 0
    """Tiles on the true board."""
    number: int = 0
    """True tiles whose cell holds a detected tile of the right number."""
    turn: int = 0
    """... of the right number and turn."""
    cell: int = 0
    """True tiles whose cell holds some detected tile."""
    hidden: int = 0
    """True tiles no camera could read: washed out by glare, mostly under a hand, or cut by the frame."""
    extra: int = 0
    """Detected board tiles on cells where no true tile lies."""
    confident_wrong: list[str] = field(default_factory=list)
    """Detected board tiles with confidence >= CONFIDENT that are not exactly right, described."""
    unreadable: int = 0
    """True board tiles missing from the detected board and reported unreadable near their place."""
    excused: int = 0
    """True board tiles glare hides (truth flags them washed_out), not read right but doubted: reported
    unreadable, or read with too little confidence to judge by ("can't read" either way). A fair answer
    there; a confident misreading is not excused."""
    loose: tuple[int, int] = (0, 0)
    """(found, true) loose tiles: found when a `loose` entry lies on the tile."""
    loose_named: int = 0
    """Loose tiles found with their number read right."""
    face_down: tuple[int, int] = (0, 0)
    """(found, true) face-down tiles."""
    legal: bool = True
    """The true board has no mismatched edges."""
    false_violations: int = 0
    """Mismatched edges among the confidently read tiles, on a legal true board."""

    @property
    def exact(self) -> bool:
        """The detected board is the true board (up to a move and a turn)."""
        return self.turn == self.tiles and self.extra == 0

    @property
    def fairly_exact(self) -> bool:
        """Exact but for tiles glare hides that were reported unreadable."""
        return self.turn + self.excused == self.tiles and self.extra == 0


def align(detected: list[Placement], truth: Board) -> tuple[int, int, int]:
    """The (turn k, dq, dr) of the whole grid that maps most detected tiles exactly onto true ones.

    Ties are broken by the number of detected tiles that land on occupied cells.
    """
    votes: Counter = Counter()
    true_list = list(truth)
    for k in range(6):
        for p in detected:
            q, r = turn(p.cell, k)
            rot = (p.rot + k) % 6
            for t in true_list:
                key = (k, t.q - q, t.r - r)
                votes[key] += 1 + 1000 * (t.tile == p.tile and t.rot == rot)
    if not votes:
        return (0, 0, 0)
    return max(sorted(votes), key=lambda key: votes[key])


def is_hidden(tile: dict) -> bool:
    """A true tile (truth entry) that no camera could read: an unreadable answer is fair there."""
    return (tile.get("washed_out", False) or tile.get("occluded_fraction", 0.0) > 0.3
            or tile.get("fraction_in_image", 1.0) < 1.0)


def _near(point, entries: list[Unread], radius: float) -> Unread | None:
    best = min(entries, key=lambda u: math.dist(point, u.center_px), default=None)
    return best if best is not None and math.dist(point, best.center_px) <= radius else None


def score(detection: Detection, truth: dict) -> Accuracy:
    """Compare a detection with a truth dict (`board`, `tiles[]` with `center_px`, `on_board`, `face_up`)."""
    true_board = Board.from_dict(truth["board"])
    s = Accuracy(tiles=len(true_board), legal=not true_board.mismatches())
    seen = [t.placement for t in detection.tiles]
    k, dq, dr = align(seen, true_board)
    moved: dict[Cell, list[tuple[Placement, float]]] = {}
    for t in detection.tiles:
        p = t.placement.transformed(k, dq, dr)
        moved.setdefault(p.cell, []).append((p, t.confidence))

    hidden = {(t["q"], t["r"]) for t in truth["tiles"] if t["on_board"] and is_hidden(t)}
    s.hidden = len(hidden)
    for t in true_board:
        here = [p for p, _ in moved.get(t.cell, [])]
        s.cell += bool(here)
        s.number += any(p.tile == t.tile for p in here)
        right = any(p.tile == t.tile and p.rot == t.rot for p in here)
        s.turn += right
    for cell, entries in moved.items():
        truth_here = true_board.get(cell)
        if truth_here is None:
            s.extra += len(entries)
        for p, conf in entries:
            if conf >= CONFIDENT and p != truth_here:
                what = (f"truth is tile {truth_here.tile} turn {truth_here.rot}" if truth_here is not None
                        else "no tile there")
                s.confident_wrong.append(f"read tile {p.tile} turn {p.rot} at {cell} with {conf:.2f}: {what}")

    sizes = [t.get("across_flats_px", 0) for t in truth["tiles"]]
    radius = 0.5 * (sorted(sizes)[len(sizes) // 2] if sizes else 50.0)
    missing = {t.tile for t in true_board} - {p.tile for es in moved.values() for p, _ in es
                                              if true_board.get(p.cell) == p}
    loose_true = loose_found = down_true = down_found = 0
    washed = {(t["q"], t["r"]) for t in truth["tiles"] if t["on_board"] and t.get("washed_out")}
    for t in truth["tiles"]:
        if t["on_board"]:
            unread = t["tile"] in missing and _near(t["center_px"], detection.unreadable, radius) is not None
            s.unreadable += unread
            here = moved.get((t["q"], t["r"]), [])
            unsure = bool(here) and all(conf < CONFIDENT for _, conf in here)
            s.excused += (t["q"], t["r"]) in washed and t["tile"] in missing and (unread or unsure)
        elif t["face_up"]:
            loose_true += 1
            entry = _near(t["center_px"], detection.loose, radius)
            loose_found += entry is not None
            s.loose_named += entry is not None and entry.tile == t["tile"]
        else:
            down_true += 1
            down_found += _near(t["center_px"], detection.face_down, radius) is not None
    s.loose, s.face_down = (loose_found, loose_true), (down_found, down_true)

    if s.legal:
        confident = [t.placement for t in detection.tiles if t.confidence >= CONFIDENT]
        try:
            s.false_violations = len(Board(confident).mismatches())
        except BoardError:  # the same tile or cell twice: the referee would stop, count it as one
            s.false_violations = 1
    return s
