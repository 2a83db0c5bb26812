"""The board as inline SVG for the web page: the tile art of `tantrix_pi.render`, sharp at any size.

Each tile is a `<g class="tile">` carrying `data-tile`, `data-q`, `data-r` and `data-rot` (the page's contract
with its tests); forced spaces are lettered, the last placement outlined, doubted tiles marked. The whole
board can be turned by `turn_deg` so that it lies as the camera sees the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from html import escape

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import Cell, centre, corners
from tantrix_pi.render import ARC_RGB, BACKGROUND, FORCED_RGB, LAST_RGB, TILE_RGB, arc_geometry
from tantrix_pi.tiles import TILES

SIZE = 10.0
"""Hexagon circumradius in SVG user units (the viewBox scales it to the page)."""
DOUBT_RGB = (255, 165, 0)


def _rgb(c: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{v:02x}" for v in c)


def _n(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _points(pts: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in pts)


def _arc(p: Placement, a: int, b: int) -> str:
    """The path of one arc: straight, or a circular arc through the hexagon."""
    (sx, sy), (ex, ey), origin, clockwise = arc_geometry(p.cell, a, b, SIZE)
    if origin is None:
        return f"M{_n(sx)} {_n(sy)}L{_n(ex)} {_n(ey)}"
    radius = math.hypot(sx - origin[0], sy - origin[1])
    return f"M{_n(sx)} {_n(sy)}A{_n(radius)} {_n(radius)} 0 0 {int(clockwise)} {_n(ex)} {_n(ey)}"


@lru_cache(maxsize=4096)
def tile_svg(p: Placement) -> str:
    """One tile: its black hexagon and coloured arcs, with the data attributes of the page's contract (kept: a
    tile drawn once is not drawn again for the next board)."""
    parts = [f'<g class="tile" data-tile="{p.tile}" data-q="{p.q}" data-r="{p.r}" data-rot="{p.rot}">',
             f'<polygon points="{_points(corners(p.cell, SIZE))}" fill="{_rgb(TILE_RGB)}" stroke="#464646" '
             'stroke-width="0.4"/>']
    for arc in TILES[p.tile].arcs:
        a, b = ((e + p.rot) % 6 for e in arc.edges)
        parts.append(f'<path d="{_arc(p, a, b)}" stroke="{_rgb(ARC_RGB[arc.colour])}"/>')
    parts.append("</g>")
    return "".join(parts)


def board_svg(board: Board, forced: Sequence[Cell] = (), last: Cell | None = None, doubted: Sequence[Cell] = (),
              turn_deg: float = 0.0, label: str = "") -> str:
    """The board as one `<svg>` element; `forced` cells lettered A, B, ... in order, `last` outlined,
    `doubted` marked with a question mark, the whole turned `turn_deg` clockwise about its middle."""
    from tantrix_pi.rules import letter

    cells = set(board.cells) | set(forced) | ({last} if last else set())
    if not cells:
        cells = {(0, 0)}
    xs = [x for c in cells for x, _ in corners(c, SIZE)]
    ys = [y for c in cells for _, y in corners(c, SIZE)]
    mx, my = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    reach = max(((x - mx) ** 2 + (y - my) ** 2) ** 0.5 for x, y in zip(xs, ys, strict=True)) + SIZE * 0.6
    box = f"{_n(mx - reach)} {_n(my - reach)} {_n(2 * reach)} {_n(2 * reach)}"
    if not turn_deg:  # an unturned board needs no square box: keep it as wide as it is
        pad = SIZE * 0.6
        box = f"{_n(min(xs) - pad)} {_n(min(ys) - pad)} {_n(max(xs) - min(xs) + 2 * pad)} " \
              f"{_n(max(ys) - min(ys) + 2 * pad)}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="{box}" role="img" '
           f'aria-label="{escape(label)}" data-tiles="{len(board)}">',
           f'<rect x="-100000" y="-100000" width="200000" height="200000" fill="{_rgb(BACKGROUND)}"/>',
           f'<g transform="rotate({_n(turn_deg)} {_n(mx)} {_n(my)})" fill="none" stroke-linecap="round" '
           f'stroke-width="{_n(SIZE * 0.2)}">']
    out += [tile_svg(p) for p in sorted(board, key=lambda p: (p.r, p.q))]
    for i, cell in enumerate(forced):
        x, y = centre(cell, SIZE)
        inset = [(x + 0.9 * (cx - x), y + 0.9 * (cy - y)) for cx, cy in corners(cell, SIZE)]
        out.append(f'<g class="forced" data-letter="{letter(i)}" data-q="{cell[0]}" data-r="{cell[1]}">'
                   f'<polygon points="{_points(inset)}" stroke="{_rgb(FORCED_RGB)}" stroke-width="1"/>'
                   + _upright_text(letter(i), x, y, turn_deg, _rgb(FORCED_RGB)) + "</g>")
    for cell in doubted:
        x, y = centre(cell, SIZE)
        out.append(f'<g class="doubted" data-q="{cell[0]}" data-r="{cell[1]}">'
                   f'<polygon points="{_points(corners(cell, SIZE))}" stroke="{_rgb(DOUBT_RGB)}" stroke-width="1.2" '
                   f'stroke-dasharray="2 1.5"/>' + _upright_text("?", x, y, turn_deg, _rgb(DOUBT_RGB)) + "</g>")
    if last is not None:
        out.append(f'<polygon class="last" data-q="{last[0]}" data-r="{last[1]}" '
                   f'points="{_points(corners(last, SIZE))}" stroke="{_rgb(LAST_RGB)}" stroke-width="1"/>')
    out.append("</g></svg>")
    return "".join(out)


def _upright_text(text: str, x: float, y: float, turn_deg: float, colour: str) -> str:
    """A label at (x, y) that stays upright however the board is turned."""
    return (f'<text x="{_n(x)}" y="{_n(y)}" transform="rotate({_n(-turn_deg)} {_n(x)} {_n(y)})" '
            f'fill="{colour}" stroke="none" font-size="{_n(SIZE)}" font-family="sans-serif" font-weight="bold" '
            f'text-anchor="middle" dominant-baseline="central">{escape(text)}</text>')
