"""What the referee wants on the screen, independent of any display: the `Screen` state."""

from __future__ import annotations

from dataclasses import dataclass

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import Cell
from tantrix_pi.render import ARC_RGB

PLAYER_RGB = ARC_RGB
"""Screen colour of each player: the colour the renderer gives its arcs."""


@dataclass(frozen=True)
class Forced:
    """A forced space: its letter on the screen, its cell and the colours it needs (e.g. "RY")."""

    letter: str
    cell: Cell
    colours: str


@dataclass(frozen=True)
class Screen:
    """Everything one frame shows; a menu or calibration page when `lines` is not empty."""

    message: str = ""
    forced: tuple[Forced, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    """(colour, points) in seating order."""
    turn: str | None = None
    """Colour of the player to move, marked in the score bar."""
    board: Board | None = None
    last: Placement | None = None
    title: str = ""
    lines: tuple[str, ...] = ()
    selected: int | None = None
    progress: float | None = None
    """0..1 for a running calibration, drawn as a bar."""
    qr: str = ""
    """Text to show as a QR code beside the lines (the web page's address on its start page)."""
