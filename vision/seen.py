"""`Seen`: one tile as the detector's stages pass it on, each stage filling in what it learnt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tantrix_pi.grid import Cell
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

    @property
    def coloured(self) -> np.ndarray:
        """How much each edge's reading counts (0..1): a colourless edge says nothing."""
        return np.clip(self.chroma, 0.0, 1.0)

    @property
    def bands(self) -> int:
        """Edges that clearly show a band."""
        return int((self.coloured > 0.5).sum())


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
