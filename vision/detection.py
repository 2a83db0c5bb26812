"""What the detector reports about one photo: every tile with its confidence, and what it could not read."""

from __future__ import annotations

from dataclasses import dataclass, field

from tantrix_pi.board import FORMAT, Board, Placement

CONFIDENT = 0.8
"""A tile read with less confidence than this is reported as unsure, never used for a verdict."""


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

    def to_dict(self) -> dict:
        """The board JSON of conventions.md, with the detector's extras."""

        def unread(u: Unread) -> dict:
            d = {"center_px": [round(u.center_px[0], 1), round(u.center_px[1], 1)], "reason": u.reason}
            if u.tile is not None:
                d["tile"] = u.tile
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
