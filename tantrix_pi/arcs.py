"""Where the arcs of a tile run: one path per arc, in the tile's own frame, built on `grid`.

A sharp arc turns around the corner between its two (adjacent) edges with radius half an edge;
a bend runs between edges two apart around the point where those two edges' lines meet (the
centre of the cell beyond the edge between them), radius 1.5 edges; a straight crosses the centre.
Every arc meets its edges at their midpoints, at right angles. Any drawing of tiles uses these paths.
"""

from __future__ import annotations

import math

from tantrix_pi.grid import SQRT3, corners, edge_angle
from tantrix_pi.tiles import Arc


def edge_midpoint(d: int, size: float = 1.0) -> tuple[float, float]:
    """Midpoint of edge d of a hexagon of circumradius `size` centred on (0, 0)."""
    a = math.radians(edge_angle(d))
    apothem = size * SQRT3 / 2.0
    return (apothem * math.cos(a), apothem * math.sin(a))


def arc_centre(arc: Arc, size: float = 1.0) -> tuple[float, float] | None:
    """Centre of the circle an arc follows (None for a straight), tile centred on (0, 0), stored turn."""
    a, b = arc.edges
    if arc.shape == "straight":
        return None
    if arc.shape == "sharp":
        first = a if (a + 1) % 6 == b else b
        return corners((0, 0), size)[first]
    middle = (a + 1) % 6 if (a + 2) % 6 == b else (b + 1) % 6
    ang = math.radians(edge_angle(middle))
    return (SQRT3 * size * math.cos(ang), SQRT3 * size * math.sin(ang))


def arc_path(arc: Arc, size: float = 1.0, steps: int = 24) -> list[tuple[float, float]]:
    """Points along an arc from the midpoint of its first edge to that of its second (stored turn)."""
    a, b = arc.edges
    start, end = edge_midpoint(a, size), edge_midpoint(b, size)
    centre = arc_centre(arc, size)
    if centre is None:
        return [(start[0] + (end[0] - start[0]) * t / steps, start[1] + (end[1] - start[1]) * t / steps)
                for t in range(steps + 1)]
    cx, cy = centre
    radius = math.hypot(start[0] - cx, start[1] - cy)
    t0 = math.atan2(start[1] - cy, start[0] - cx)
    t1 = math.atan2(end[1] - cy, end[0] - cx)
    sweep = (t1 - t0 + math.pi) % (2 * math.pi) - math.pi  # the short way round: stays inside the tile
    return [(cx + radius * math.cos(t0 + sweep * t / steps), cy + radius * math.sin(t0 + sweep * t / steps))
            for t in range(steps + 1)]
