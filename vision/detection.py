"""What the detector reports about one photo: every tile with its confidence, and what it could not read."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tantrix_pi.board import FORMAT, Board, Placement
from tantrix_pi.grid import Cell, distance

CONFIDENT = 0.8
"""A tile read with less confidence than this is reported as unsure, never used for a verdict."""

NEAR_BOARD = 1.5
"""Something unread whose centre lies within this many tile widths of a board tile's centre is next to the board
(a neighbouring cell's centre is one tile width away, the next ring's 1.7 or 2)."""


@dataclass(frozen=True)
class SeenTile:
    """A tile read on the board: where it is in the image and how sure the reading is (0..1)."""

    placement: Placement
    center_px: tuple[float, float]
    confidence: float
    corners_px: tuple[tuple[float, float], ...] = ()
    """The cell's hexagon in the image (corner i between edges i and i + 1), for drawing."""


@dataclass(frozen=True)
class Unread:
    """Something tile-like the detector saw but did not put on the board, and why."""

    center_px: tuple[float, float]
    reason: str
    tile: int | None = None
    """The tile number, when it is known (a loose tile that was read)."""
    corners_px: tuple[tuple[float, float], ...] = ()
    cell: Cell | None = None
    """The board cell it sits on, when the detector can place it on the board's grid."""


@dataclass(frozen=True)
class Doubt:
    """Something on or next to the board that the detector is not sure of: no verdict until it is cleared."""

    kind: str
    """"unsure" (a board tile read with too little confidence), "face down" or "unreadable"."""
    center_px: tuple[float, float]
    cell: Cell | None = None
    tile: int | None = None
    """The tile number an unsure reading gave."""
    detail: str = ""
    """The confidence of an unsure tile, the detector's reason for an unreadable one."""

    def __str__(self) -> str:
        where = f"pixel ({self.center_px[0]:.0f},{self.center_px[1]:.0f})"
        if self.cell is not None:
            where = f"({self.cell[0]},{self.cell[1]}) at {where}"
        if self.kind == "unsure":
            return f"tile {self.tile}? {where} ({self.detail})"
        if self.kind == "face down":
            return f"face-down tile at {where}"
        return f"unreadable tile at {where}: {self.detail}"


@dataclass
class Detection:
    """The detector's result for one image."""

    tiles: list[SeenTile] = field(default_factory=list)
    unreadable: list[Unread] = field(default_factory=list)
    loose: list[Unread] = field(default_factory=list)
    face_down: list[Unread] = field(default_factory=list)
    tile_px: float = 0.0
    """Tile size in pixels, across flats."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds spent in each stage of the pipeline."""

    @property
    def board(self) -> Board:
        return Board(t.placement for t in self.tiles)

    def unsure(self, threshold: float = CONFIDENT) -> list[SeenTile]:
        """Board tiles read with too little confidence to build a verdict on."""
        return [t for t in self.tiles if t.confidence < threshold]

    def doubts(self) -> list[Doubt]:
        """What blocks a verdict on this photo: unsure board tiles, and face-down or unreadable tiles on the board
        or next to it. Junk further out on the table does not count; neither do loose tiles that were read."""
        out = [Doubt("unsure", t.center_px, t.placement.cell, t.placement.tile, f"confidence {t.confidence:.2f}")
               for t in self.unsure()]
        out += [Doubt("face down", u.center_px, u.cell) for u in self.face_down if self._near_board(u)]
        out += [Doubt("unreadable", u.center_px, u.cell, detail=u.reason) for u in self.unreadable
                if self._near_board(u)]
        return out

    def _near_board(self, u: Unread) -> bool:
        """On the board or next to it: by its cell when the detector placed it, else by pixel distance."""
        if u.cell is not None:
            return any(distance(u.cell, t.placement.cell) <= 1 for t in self.tiles)
        if self.tile_px <= 0:
            return True  # no scale to measure by: doubt it rather than judge past it
        return any(math.dist(u.center_px, t.center_px) <= NEAR_BOARD * self.tile_px for t in self.tiles)

    def to_dict(self) -> dict:
        """The board JSON of conventions.md, with the detector's extras."""

        def unread(u: Unread) -> dict:
            d = {"center_px": [round(u.center_px[0], 1), round(u.center_px[1], 1)], "reason": u.reason}
            if u.tile is not None:
                d["tile"] = u.tile
            if u.cell is not None:
                d["cell"] = list(u.cell)
            return d

        return {
            "format": FORMAT,
            "tiles": [
                {**t.placement.to_dict(),
                 "center_px": [round(t.center_px[0], 1), round(t.center_px[1], 1)],
                 "confidence": round(t.confidence, 3)}
                for t in sorted(self.tiles, key=lambda t: (t.placement.r, t.placement.q))
            ],
            "unreadable": [unread(u) for u in self.unreadable],
            "loose": [unread(u) for u in self.loose],
            "face_down": [unread(u) for u in self.face_down],
        }
