"""The hex grid of conventions.md: axial (q, r) cells of pointy-top hexes, six directions.

Every piece of geometry in the project (rules, renderer, vision, solver) goes through here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

Cell = tuple[int, int]
"""An axial cell (q, r)."""

DIRECTIONS: tuple[Cell, ...] = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))
"""(dq, dr) of directions 0..5: NE, E, SE, SW, W, NW (clockwise, like tile edges)."""


SQRT3 = math.sqrt(3.0)


def fmt(cell: Cell) -> str:
    """A cell as players read it, in every language: (q,r)."""
    return f"({cell[0]},{cell[1]})"


def opposite(d: int) -> int:
    """The direction pointing back along d."""
    return (d + 3) % 6


def neighbour(cell: Cell, d: int) -> Cell:
    """The cell next to `cell` in direction d."""
    dq, dr = DIRECTIONS[d]
    return (cell[0] + dq, cell[1] + dr)


def neighbours(cell: Cell) -> tuple[Cell, ...]:
    """The six neighbours of `cell`, in direction order 0..5."""
    q, r = cell
    return ((q + 1, r - 1), (q + 1, r), (q, r + 1), (q - 1, r + 1), (q - 1, r), (q, r - 1))  # DIRECTIONS, unrolled


def direction_to(a: Cell, b: Cell) -> int | None:
    """The direction d with neighbour(a, d) == b, or None when b does not touch a."""
    try:
        return DIRECTIONS.index((b[0] - a[0], b[1] - a[1]))
    except ValueError:
        return None


def distance(a: Cell, b: Cell) -> int:
    """Number of steps between two cells."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def turn(cell: Cell, k: int = 1) -> Cell:
    """Turn a cell about (0, 0) by k sixth-turns clockwise: (q, r) -> (-r, q + r) per step."""
    q, r = cell
    for _ in range(k % 6):
        q, r = -r, q + r
    return (q, r)


def centre(cell: Cell, size: float = 1.0) -> tuple[float, float]:
    """Centre (x, y) of a cell for circumradius `size`, y pointing south (down in a top view)."""
    q, r = cell
    return (size * SQRT3 * (q + r / 2.0), 1.5 * size * r)


def centres(cells: np.ndarray, size: float = 1.0) -> np.ndarray:
    """Array form of `centre`: the centres (N x 2) of N x 2 cells."""
    import numpy as np  # the array forms only: the rules (and `board check`) never load numpy
    cells = np.asarray(cells, dtype=np.float64).reshape(-1, 2)
    return np.column_stack([size * SQRT3 * (cells[:, 0] + cells[:, 1] / 2.0), 1.5 * size * cells[:, 1]])


def axial(x, y, size: float = 1.0):
    """Fractional axial coordinates (q, r) of the point (x, y), the inverse of `centre` (numbers or arrays)."""
    fr = y / (1.5 * size)
    return x / (SQRT3 * size) - fr / 2.0, fr


def cells_at(points: np.ndarray, size: float = 1.0) -> np.ndarray:
    """The cells (N x 2 ints) whose hexagons contain each of N x 2 points (inverse of `centres`)."""
    import numpy as np
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    fq, fr = axial(points[:, 0], points[:, 1], size)
    fs = -fq - fr
    q, r, s = np.round(fq), np.round(fr), np.round(fs)
    dq, dr, ds = np.abs(q - fq), np.abs(r - fr), np.abs(s - fs)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    q = np.where(fix_q, -r - s, q)
    r = np.where(fix_r, -q - s, r)
    return np.column_stack([q, r]).astype(int)


def cell_at(x: float, y: float, size: float = 1.0) -> Cell:
    """The cell whose hexagon contains the point (x, y) (inverse of `centre`)."""
    q, r = cells_at([[x, y]], size)[0]
    return (int(q), int(r))


def edge_angle(d: int) -> float:
    """Angle in degrees (image convention, clockwise from +x) of the outward normal of edge d."""
    return -60.0 + 60.0 * d


def edge_midpoint(cell: Cell, d: int, size: float = 1.0) -> tuple[float, float]:
    """Midpoint of edge d of a cell's hexagon (circumradius `size`)."""
    cx, cy = centre(cell, size)
    apothem = size * SQRT3 / 2
    t = math.radians(edge_angle(d))
    return cx + apothem * math.cos(t), cy + apothem * math.sin(t)


def corners(cell: Cell, size: float = 1.0) -> list[tuple[float, float]]:
    """The six corners of a cell's hexagon; corner i lies between edge i and edge i + 1."""
    cx, cy = centre(cell, size)
    return [
        (cx + size * math.cos(math.radians(-30.0 + 60.0 * i)),
         cy + size * math.sin(math.radians(-30.0 + 60.0 * i)))
        for i in range(6)
    ]
