"""Draw any board with Pillow: black hexagons with their coloured arcs, and optional highlights.

`render(board, highlights, ...)` is a pure function returning a PIL image; the Pi display's mini-map and
the photo overlays reuse it. All geometry comes from tantrix_pi.grid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from tantrix_pi.board import Board, BoardError
from tantrix_pi.grid import Cell, centre, corners, edge_midpoint, neighbour
from tantrix_pi.rules import letter
from tantrix_pi.scoring import Path
from tantrix_pi.tiles import TILES

ARC_RGB = {"R": (222, 38, 38), "Y": (250, 212, 0), "G": (20, 160, 70), "B": (40, 110, 235)}
BACKGROUND = (236, 230, 216)
TILE_RGB = (18, 18, 18)
FORCED_RGB = (255, 140, 0)
OFFENCE_RGB = (230, 0, 200)
HOLE_RGB = (150, 150, 150)
LAST_RGB = (255, 255, 255)
SUPERSAMPLE = 2

MAX_PIXELS = 16_000_000
"""Largest picture drawn (before supersampling): a 56-tile board at the default scale is far smaller."""


@dataclass(frozen=True)
class Highlights:
    """What to mark on top of the board.

    `forced`: empty cells lettered A, B, C... in the order given; `offending`: (cell, direction) edges;
    `holes`: cells; `path`: one colour's scoring path; `last`: the cell of the last placement.
    """

    forced: Sequence[Cell] = ()
    offending: Sequence[tuple[Cell, int]] = ()
    holes: Sequence[Cell] = ()
    path: Path | None = None
    last: Cell | None = None


def _font(px: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=px)
    except TypeError:  # Pillow < 10.1 has one bitmap size only
        return ImageFont.load_default()


def arc_geometry(cell: Cell, a: int, b: int, s: float):
    """The arc joining the midpoints of edges a and b of `cell` (hexagon circumradius s) as (start, end,
    centre, clockwise): centre None for a straight arc through the hexagon's middle; clockwise as seen
    with y pointing down (the SVG sweep flag)."""
    gap = (b - a) % 6
    if gap > 3:
        a, b, gap = b, a, 6 - gap
    start, end = edge_midpoint(cell, a, s), edge_midpoint(cell, b, s)
    if gap == 3:  # straight: through the centre
        return start, end, None, True
    if gap == 1:  # sharp: centred on the corner shared by edges a and a+1, radius s/2
        origin = corners(cell, s)[a]
    else:  # bend: centred on the centre of the neighbouring cell between the two edges, radius 1.5 s
        origin = centre(neighbour(cell, (a + 1) % 6), s)
    return start, end, origin, _sweep(start, end, origin) > 0


def _sweep(start, end, origin) -> float:
    """The angle (radians, -pi..pi) from start to end about origin."""
    t0 = math.atan2(start[1] - origin[1], start[0] - origin[0])
    t1 = math.atan2(end[1] - origin[1], end[0] - origin[0])
    return (t1 - t0 + math.pi) % (2 * math.pi) - math.pi


def arc_points(cell: Cell, a: int, b: int, s: float, steps: int = 16) -> list[tuple[float, float]]:
    """Points along the arc joining the midpoints of edges a and b of `cell` (hexagon circumradius s)."""
    start, end, origin, _ = arc_geometry(cell, a, b, s)
    if origin is None:
        return [start, end]
    (ox, oy), sweep = origin, _sweep(start, end, origin)
    t0 = math.atan2(start[1] - oy, start[0] - ox)
    radius = math.hypot(start[0] - ox, start[1] - oy)
    return [(ox + radius * math.cos(t0 + sweep * i / steps), oy + radius * math.sin(t0 + sweep * i / steps))
            for i in range(steps + 1)]


def render(board: Board, highlights: Highlights | None = None, scale: float = 40.0,
           size: tuple[int, int] | None = None, margin: float = 1.2) -> Image.Image:
    """The board as an RGB image: `scale` pixels of hexagon circumradius, or fitted into `size` (w, h)."""
    hl = highlights or Highlights()
    cells = set(board.cells) | set(hl.forced) | set(hl.holes) | ({hl.last} if hl.last else set())
    if not cells:
        cells = {(0, 0)}
    xs = [x for c in cells for x, _ in corners(c, 1.0)]
    ys = [y for c in cells for _, y in corners(c, 1.0)]
    w1, h1 = max(xs) - min(xs) + 2 * margin, max(ys) - min(ys) + 2 * margin
    if size is not None:
        scale = min(size[0] / w1, size[1] / h1)
        width, height = size
    else:
        width, height = max(1, round(w1 * scale)), max(1, round(h1 * scale))
    if width * height > MAX_PIXELS:
        raise BoardError(f"a {width}x{height} picture is too large to draw: tiles too far apart, or --scale too big")
    k = scale * SUPERSAMPLE
    ox = (width * SUPERSAMPLE - (max(xs) + min(xs)) * k) / 2
    oy = (height * SUPERSAMPLE - (max(ys) + min(ys)) * k) / 2

    def px(points):
        return [(ox + x, oy + y) for x, y in points]

    img = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), BACKGROUND)
    draw = ImageDraw.Draw(img)
    line = max(2, round(k * 0.2))
    for cell in hl.holes:
        draw.polygon(px(corners(cell, k)), fill=HOLE_RGB, outline=(90, 90, 90))
    on_path = set(hl.path.cells) if hl.path is not None else set()
    for p in board:
        draw.polygon(px(corners(p.cell, k)), fill=TILE_RGB, outline=(70, 70, 70))
        for arc in TILES[p.tile].arcs:
            a, b = ((e + p.rot) % 6 for e in arc.edges)
            pts = px(arc_points(p.cell, a, b, k))
            if p.cell in on_path and arc.colour == hl.path.colour:
                draw.line(pts, fill=(255, 255, 255), width=line * 2, joint="curve")
            draw.line(pts, fill=ARC_RGB[arc.colour], width=line, joint="curve")
    font = _font(max(8, round(k * 0.9)))
    for i, cell in enumerate(hl.forced):
        x, y = px([centre(cell, k)])[0]
        inset = [(x + 0.9 * (cx - x), y + 0.9 * (cy - y)) for cx, cy in px(corners(cell, k))]
        draw.polygon(inset, outline=FORCED_RGB, width=max(2, line // 2))
        draw.text((x, y), letter(i), fill=FORCED_RGB, font=font, anchor="mm")
    for cell, d in hl.offending:
        pts = px(corners(cell, k))
        draw.line([pts[(d - 1) % 6], pts[d]], fill=OFFENCE_RGB, width=line * 2)
    if hl.last is not None:
        draw.polygon(px(corners(hl.last, k)), outline=LAST_RGB, width=max(2, line // 2))
    return img.resize((width, height), Image.Resampling.LANCZOS)


def save(image: Image.Image, path: str) -> None:
    """Write a drawn board to `path` (.png, .jpg, ...); BoardError (one line) when it cannot be written."""
    try:
        image.save(path)
    except (OSError, ValueError) as e:  # Pillow: ValueError for a name without a known extension
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e).rstrip(": ") or type(e).__name__
        raise BoardError(f"{path}: cannot write the picture ({reason})") from None
