"""The 56 tiles of the Game Pack, loaded from the catalogue shipped with the package."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

COLOURS = ("R", "Y", "G", "B")
"""The four arc colours: red, yellow, green, blue."""

COLOUR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", "W": "white"}

BACK_COLOURS = ("R", "Y", "G", "B", "W")
"""Colours of the numbers printed on the tiles' backs."""


@dataclass(frozen=True)
class Arc:
    """One coloured arc of a tile, joining two of its edges."""

    colour: str
    edges: tuple[int, int]
    shape: str
    """`sharp` (adjacent edges), `bend` (two apart) or `straight` (opposite)."""


@dataclass(frozen=True)
class Tile:
    """A tile as stored: its six edge colours clockwise from edge 0 (NE), arcs, back colour."""

    number: int
    edges: str
    back: str
    arcs: tuple[Arc, ...]
    mirror: int | None

    def colour(self, direction: int, rot: int = 0) -> str:
        """Colour this tile, turned clockwise by `rot` sixths, shows in `direction`."""
        return self.edges[(direction - rot) % 6]

    def turned(self, rot: int) -> str:
        """The six colours facing directions 0..5 when turned clockwise by `rot` sixths."""
        return "".join(self.edges[(d - rot) % 6] for d in range(6))

    def __post_init__(self) -> None:
        ends = [0] * 6
        for arc in self.arcs:
            a, b = arc.edges
            ends[a], ends[b] = b, a
        object.__setattr__(self, "_ends", tuple(ends))  # other_end's table: scores walk it at every step

    def other_end(self, direction: int, rot: int = 0) -> int:
        """The direction where the arc entering at `direction` leaves the tile."""
        return (self._ends[(direction - rot) % 6] + rot) % 6

    @property
    def colours(self) -> frozenset[str]:
        """The three colours on this tile."""
        return frozenset(self.edges)


def _load() -> dict[int, Tile]:
    text = resources.files("tantrix_pi").joinpath("data/tiles.json").read_text()
    tiles = {}
    for t in json.loads(text)["tiles"]:
        arcs = tuple(Arc(a["colour"], tuple(a["edges"]), a["shape"]) for a in t["arcs"])
        tiles[t["number"]] = Tile(t["number"], t["edges"], t["back"], arcs, t["mirror"])
    return tiles


TILES: dict[int, Tile] = _load()
"""Every tile by the number on its back, 1..56."""

ALL_NUMBERS = tuple(sorted(TILES))
