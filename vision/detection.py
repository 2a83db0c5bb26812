"""What the detector reports about one photo: every tile with its confidence, and what it could not read."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from tantrix_pi.board import FORMAT, Board, Placement
from tantrix_pi.grid import Cell, distance
from tantrix_pi.i18n import N_, _
from tantrix_pi.tiles import COLOUR_NAMES

CONFIDENT = 0.8
"""A tile read with less confidence than this is reported as unsure, never used for a verdict."""

# Why something is unreadable, loose or face down (`Unread.reason`): the detector's English words, the same
# in every language and marked for translation: shown as _(reason).
CUT = N_("cut by the frame edge")
EDGE = N_("the board may go on beyond the frame edge")
HIDDEN = N_("partly hidden (a hand or something over it)")
GLARE = N_("washed out by glare")
NO_BANDS = N_("too few coloured bands seen (glare, shadow or covered)")
TOO_MANY = N_("more tiles than the 56 of a set")
MISSED = N_("a tile the camera could not make out")
COVERED = N_("covered (a hand or something over the board)")
OFF_GRID = N_("a tile beside the board that does not lie on its grid")
NOT_TILES = N_("tile-like shapes that do not read as Tantrix tiles")
LOOSE = N_("loose tile apart from the board")
LOOSE_UNREAD = N_("loose tile apart from the board, not read")
FACE_DOWN = N_("face down")
FACE_DOWN_APART = N_("face down, apart from the board")
REASON_CODES = {CUT: "cut", EDGE: "edge", HIDDEN: "hidden", GLARE: "glare", NO_BANDS: "few_bands",
                TOO_MANY: "too_many", MISSED: "missed", COVERED: "covered", OFF_GRID: "off_grid",
                NOT_TILES: "not_tiles", LOOSE: "loose", LOOSE_UNREAD: "loose_unread", FACE_DOWN: "face_down",
                FACE_DOWN_APART: "face_down_apart"}
"""Each reason's code, for data that holds no words (a live `unsure` event's `why`)."""

NEAR_BOARD = 1.5
"""Something unread whose centre lies within this many tile widths of a board tile's centre is next to the board
(a neighbouring cell's centre is one tile width away, the next ring's 1.7 or 2)."""


def in_polygon(points, xy: tuple[float, float]) -> bool:
    """Whether image point `xy` lies in (or on) the polygon of image `points` (N x 2)."""
    return cv2.pointPolygonTest(np.asarray(points, np.float32).reshape(-1, 1, 2), (float(xy[0]), float(xy[1])),
                                False) >= 0


def polygon(points) -> tuple[tuple[float, float], ...]:
    """Image points as a detection reports them (`corners_px`): pixels to one decimal."""
    return tuple((round(float(x), 1), round(float(y), 1)) for x, y in points)


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
    """Why, in the detector's English words (the constants above): `_(reason)` shows it in the referee's
    language."""
    tile: int | None = None
    """The tile number, when it is known (a loose tile that was read)."""
    corners_px: tuple[tuple[float, float], ...] = ()
    cell: Cell | None = None
    """The board cell it sits on, when the detector can place it on the board's grid."""
    back: str | None = None
    """A face-down tile's back colour ("R", "Y", "G", "B", "W": the colour of its number), when it is clear."""


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
    """The confidence of an unsure tile ("confidence 0.42"), the detector's reason for an unreadable one
    (its English words, the same in every language: shown translated)."""

    def __str__(self) -> str:
        x, y = self.center_px
        where = _("pixel ({x:.0f},{y:.0f})").format(x=x, y=y) if self.cell is None else \
            _("({q},{r}) at pixel ({x:.0f},{y:.0f})").format(q=self.cell[0], r=self.cell[1], x=x, y=y)
        if self.kind == "unsure":
            return _("tile {tile}? {where} (confidence {confidence})").format(
                tile=self.tile, where=where, confidence=self.detail.removeprefix("confidence "))
        if self.kind == "face down":
            return _("face-down tile at {where}").format(where=where)
        return _("unreadable tile at {where}: {reason}").format(where=where, reason=_(self.detail))


@dataclass
class Detection:
    """The detector's result for one image."""

    tiles: list[SeenTile] = field(default_factory=list)
    unreadable: list[Unread] = field(default_factory=list)
    loose: list[Unread] = field(default_factory=list)
    face_down: list[Unread] = field(default_factory=list)
    tile_px: float = 0.0
    """Tile size in pixels, across flats."""
    cover: dict[Cell, float] = field(default_factory=dict)
    """Empty cells next to the board, in view: the share of each that the network sees something lie over (a hand,
    an arm, a cup), however little. A live referee that saw a tile there weighs it; a photo check doubts a cell
    only from `GridConfig.covered_cell` up."""
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
            d = {"center_px": [round(u.center_px[0], 1), round(u.center_px[1], 1)], "reason": _(u.reason)}
            if u.tile is not None:
                d["tile"] = u.tile
            if u.cell is not None:
                d["cell"] = list(u.cell)
            if u.back is not None:
                d["back"] = COLOUR_NAMES[u.back]
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
