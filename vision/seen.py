"""`Seen`: one tile as the detector's stages pass it on, each stage filling in what it learnt."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from tantrix_pi.grid import Cell
from tantrix_pi.vision import colour
from tantrix_pi.vision.config import ReadConfig
from tantrix_pi.vision.hexagon import Hexagon

if TYPE_CHECKING:
    from tantrix_pi.vision.decode import Reading


@dataclass(frozen=True)
class Colours:
    """What the photo shows at a tile's six edges (in the order of its hexagon's edges) and on its face."""

    hue: np.ndarray
    """Hue (radians) of each edge's band, white-balanced on the tiles' black."""
    chroma: np.ndarray
    """How colourful each edge's band is, in units of the photo's own band colour (`ReadConfig.band_chroma`
    of its typical band): 1 and more is a band."""
    face: float
    """Chroma near the centre, where a face-down tile shows its number (same units)."""
    ring: np.ndarray
    """Chroma around the face, which the bands of a face-up tile cross (same units)."""
    black: float
    """Brightness (8-bit) of the tile's black, the darker half of its face: glare lifts it towards white."""
    number_hue: float = 0.0
    """Hue (radians) of the most colourful part near the centre: a face-down tile's number, in its back colour."""
    number_lift: float = 0.0
    """How much brighter (8-bit) the brightest part near the centre is than the black: a white number's."""
    seen: np.ndarray | None = None
    """Which edges the photo shows (6 bools): of a tile the frame cuts, those whose windows lie in the photo (the
    others read as colourless); None: all."""

    @cached_property
    def cut(self) -> bool:
        """Whether the frame hides some of the tile's edges."""
        return self.seen is not None and not bool(np.all(self.seen))

    @cached_property
    def coloured(self) -> np.ndarray:
        """How much each edge's reading counts (0..1): a colourless edge says nothing."""
        return np.clip(self.chroma, 0.0, 1.0)

    @cached_property
    def bands(self) -> int:
        """Edges that clearly show a band."""
        return int((self.coloured > 0.5).sum())

    @property
    def one_hue(self) -> bool:
        """Whether every coloured edge shows the same hue (within about 20 degrees): the ring printed around a
        back's number; a face-up tile shows each of its three colours on two edges."""
        on = self.coloured > 0.5
        return bool(on.sum() >= 3 and abs(np.exp(1j * self.hue[on]).mean()) > 0.94)

    def back(self, cfg: ReadConfig) -> str | None:
        """The back colour ("R", "Y", "G", "B" or "W") when this is a tile's back: a coloured or white number in
        the middle, its edges far less colourful (or one colour all round: a number in a ring); None when not."""
        if self.black > cfg.glare_black:
            return None  # under glare a washed-out face can look like a back
        edges = float(np.median(self.chroma if self.seen is None else self.chroma[self.seen]))
        if self.face > cfg.back_number and (edges < cfg.back_edges * self.face or self.one_hue):
            return colour.nearest_paint(self.number_hue)
        if self.number_lift > cfg.white_number and edges < cfg.white_edges:
            return "W"
        return None


HELD = -3
"""The `group` of a tile lying in a player's hand zone: never part of the board."""


@dataclass(frozen=True)
class Seen:
    """One tile found in the photo.

    Stage by stage: `find` gives the hexagon and how clearly the network saw the tile; `grid` the group of
    touching tiles it belongs to and its cell there (its hexagon's edge d then faces board direction d);
    `read` its colours; `decode` its tile number and turn.
    """

    hexagon: Hexagon
    score: float
    """The network's centre heat at the tile (0..1)."""
    covered: float
    """Share of the hexagon the network sees covered by something (a hand, a cup)."""
    group: int = -1
    cell: Cell | None = None
    colours: Colours | None = None
    reading: Reading | None = None
    sixfold: float = 1.0
    """How clearly (0..1) the colour around a ring just inside the edges peaks six times, 60 degrees apart, as a
    face-up tile's six bands make it."""

    @property
    def centre(self) -> tuple[float, float]:
        return self.hexagon.centre
