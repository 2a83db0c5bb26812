"""The board as inline SVG for the web page: the tile art of `tantrix_pi.render`, sharp at any size.

Each tile is a `<g class="tile">` carrying `data-tile`, `data-q`, `data-r` and `data-rot` (the page's contract
with its tests), `<g class="tile illegal">` when the game does not accept it; each arc a `<path>` with its
`data-colour`. Over the tiles lie the marks: the players' scored lines and loops, the forced spaces lettered,
the edge an illegal tile does not match and the cells it blocks, doubted tiles, the last placement outlined.
The whole board can be turned by `turn_deg` so that it lies as the camera sees the table.

A `Picture` keeps the parts apart (box, turn, tiles, marks), so that the live stream sends only the parts that
changed (`Picture.delta`). The root element carries the grid's basis (`data-q-axis`, `data-r-axis`, `data-hex`)
so that the page's script puts labels and highlights on any cell without a second copy of the geometry.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import Cell, centre, corners, direction_to
from tantrix_pi.render import ARC_RGB, BACKGROUND, FORCED_RGB, LAST_RGB, OFFENCE_RGB, TILE_RGB, arc_geometry
from tantrix_pi.tiles import TILES

SIZE = 10.0
"""Hexagon circumradius in SVG user units (the viewBox scales it to the page)."""
DOUBT_RGB = (255, 165, 0)
ILLEGAL_RGB = (255, 40, 40)
"""The outline of a tile the game does not accept, its mismatching edge and the cells it blocks."""
GOLDEN_RULE = "golden-rule"


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
def tile_svg(p: Placement, illegal: bool = False) -> str:
    """One tile: its black hexagon and coloured arcs, with the data attributes of the page's contract (kept: a
    tile drawn once is not drawn again for the next board)."""
    outline = f'stroke="{_rgb(ILLEGAL_RGB)}" stroke-width="1.6"' if illegal else 'stroke="#464646" stroke-width="0.4"'
    parts = [f'<g class="tile{" illegal" if illegal else ""}" data-tile="{p.tile}" data-q="{p.q}" data-r="{p.r}" '
             f'data-rot="{p.rot}">',
             f'<polygon points="{_points(corners(p.cell, SIZE))}" fill="{_rgb(TILE_RGB)}" {outline}/>']
    for arc in TILES[p.tile].arcs:
        a, b = ((e + p.rot) % 6 for e in arc.edges)
        parts.append(f'<path d="{_arc(p, a, b)}" stroke="{_rgb(ARC_RGB[arc.colour])}" data-colour="{arc.colour}"/>')
    parts.append("</g>")
    return "".join(parts)


@dataclass(frozen=True)
class Picture:
    """The board's SVG in parts: the view box, the turn, each tile's group by tile number, the marks over them."""

    box: str
    turn: str
    tiles: dict[int, str]
    marks: str

    def svg(self, label: str = "") -> str:
        ex, ey = centre((1, 0), SIZE)
        fx, fy = centre((0, 1), SIZE)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="{self.box}" role="img" '
                f'aria-label="{escape(label)}" data-tiles="{len(self.tiles)}" data-q-axis="{_n(ex)},{_n(ey)}" '
                f'data-r-axis="{_n(fx)},{_n(fy)}" data-hex="{_points(corners((0, 0), SIZE))}">'
                f'<rect x="-100000" y="-100000" width="200000" height="200000" fill="{_rgb(BACKGROUND)}"/>'
                f'<g class="turn" transform="{self.turn}" fill="none" stroke-linecap="round" '
                f'stroke-width="{_n(SIZE * 0.2)}"><g class="tiles">{"".join(self.tiles.values())}</g>'
                f'<g class="marks">{self.marks}</g></g></svg>')

    def delta(self, before: Picture) -> dict:
        """What changed since `before`: the box and turn when they did, the tiles to take off (by number) and to
        add, the marks when they changed."""
        out: dict = {}
        if self.box != before.box:
            out["box"] = self.box
        if self.turn != before.turn:
            out["turn"] = self.turn
        gone = [t for t, svg in before.tiles.items() if self.tiles.get(t) != svg]
        new = [svg for t, svg in self.tiles.items() if before.tiles.get(t) != svg]
        if gone:
            out["remove"] = gone
        if new:
            out["add"] = new
        if self.marks != before.marks:
            out["marks"] = self.marks
        return out


def picture(board: Board, forced: Sequence[Cell] = (), last: Cell | None = None, doubted: Sequence[Cell] = (),
            turn_deg: float = 0.0, illegal: Sequence[dict] = (),
            paths: Sequence[tuple[str, Sequence[Cell], bool]] = ()) -> Picture:
    """The board's picture: `forced` cells lettered A, B, ... in order, `last` outlined, `doubted` marked with a
    question mark, `illegal` tiles (as `View.illegal`) outlined red with their mismatching edges and the cells
    they block, each player's scored `paths` (colour, cells, is a loop) drawn through the tiles, the whole
    turned `turn_deg` clockwise about its middle."""
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
    refused = {(i["tile"], tuple(i["cell"])) for i in illegal}
    tiles = {p.tile: tile_svg(p, (p.tile, p.cell) in refused) for p in sorted(board, key=lambda p: (p.r, p.q))}
    marks = [_path(colour, cells, loop) for colour, cells, loop in paths if len(cells) > 1]
    for i, cell in enumerate(forced):
        x, y = centre(cell, SIZE)
        marks.append(f'<g class="forced" data-letter="{letter(i)}" data-q="{cell[0]}" data-r="{cell[1]}">'
                     f'<polygon points="{_points(_inset(cell, 0.9))}" stroke="{_rgb(FORCED_RGB)}" stroke-width="1"/>'
                     + _upright_text(letter(i), x, y, turn_deg, _rgb(FORCED_RGB)) + "</g>")
    for cell in doubted:
        x, y = centre(cell, SIZE)
        marks.append(f'<g class="doubted" data-q="{cell[0]}" data-r="{cell[1]}">'
                     f'<polygon points="{_points(corners(cell, SIZE))}" stroke="{_rgb(DOUBT_RGB)}" stroke-width="1.2" '
                     f'stroke-dasharray="2 1.5"/>' + _upright_text("?", x, y, turn_deg, _rgb(DOUBT_RGB)) + "</g>")
    if last is not None:
        marks.append(f'<polygon class="last" data-q="{last[0]}" data-r="{last[1]}" '
                     f'points="{_points(corners(last, SIZE))}" stroke="{_rgb(LAST_RGB)}" stroke-width="1"/>')
    marks += [_ruling(i) for i in illegal]  # on top: what the referee rules is never hidden
    return Picture(box, f"rotate({_n(turn_deg)} {_n(mx)} {_n(my)})", tiles, "".join(marks))


def board_svg(board: Board, forced: Sequence[Cell] = (), last: Cell | None = None, doubted: Sequence[Cell] = (),
              turn_deg: float = 0.0, illegal: Sequence[dict] = (),
              paths: Sequence[tuple[str, Sequence[Cell], bool]] = (), label: str = "") -> str:
    """The board as one `<svg>` element (`picture`'s parts put together), `label` its accessible name."""
    return picture(board, forced, last, doubted, turn_deg, illegal, paths).svg(label)


def _path(colour: str, cells: Sequence[Cell], loop: bool) -> str:
    """A player's scored line or loop: a dashed trace through its tiles' middles, in the player's colour."""
    points = _points(centre(c, SIZE) for c in cells)
    shape = "polygon" if loop else "polyline"
    return (f'<{shape} class="path" data-colour="{colour}" data-loop="{int(loop)}" data-length="{len(cells)}" '
            f'points="{points}" stroke="{_rgb(ARC_RGB[colour])}" stroke-width="0.7" stroke-dasharray="2.5 1.5" '
            f'stroke-opacity="0.75"/>')


def _ruling(illegal: dict) -> str:
    """What an illegal tile breaks, on the board: the edge it does not match (golden rule), else the cells it
    blocks (the restrictions name them), each carrying its rule; the edge in the overlays' colour for offences."""
    cell = tuple(illegal["cell"])
    out = [f'<g class="ruling" data-tile="{illegal["tile"]}" data-q="{cell[0]}" data-r="{cell[1]}">']
    for v in illegal.get("violations", []):
        others = [tuple(c) for c in v.get("cells", []) if tuple(c) != cell]
        for other in others:
            d = direction_to(cell, other) if v["rule"] == GOLDEN_RULE else None
            if d is not None:
                corner = corners(cell, SIZE)
                (x0, y0), (x1, y1) = corner[(d - 1) % 6], corner[d]
                out.append(f'<line class="mismatch" data-rule="{escape(v["rule"])}" data-q="{other[0]}" '
                           f'data-r="{other[1]}" x1="{_n(x0)}" y1="{_n(y0)}" x2="{_n(x1)}" y2="{_n(y1)}" '
                           f'stroke="{_rgb(OFFENCE_RGB)}" stroke-width="3"/>')
            else:
                out.append(f'<polygon class="blocked" data-rule="{escape(v["rule"])}" data-q="{other[0]}" '
                           f'data-r="{other[1]}" points="{_points(_inset(other, 0.92))}" '
                           f'stroke="{_rgb(ILLEGAL_RGB)}" stroke-width="1.2" stroke-dasharray="1.5 1"/>')
    out.append("</g>")
    return "".join(out)


def _inset(cell: Cell, k: float) -> list[tuple[float, float]]:
    """The corners of a cell's hexagon drawn `k` times its size about its middle."""
    x, y = centre(cell, SIZE)
    return [(x + k * (cx - x), y + k * (cy - y)) for cx, cy in corners(cell, SIZE)]


def _upright_text(text: str, x: float, y: float, turn_deg: float, colour: str) -> str:
    """A label at (x, y) that stays upright however the board is turned."""
    return (f'<text x="{_n(x)}" y="{_n(y)}" transform="rotate({_n(-turn_deg)} {_n(x)} {_n(y)})" '
            f'fill="{colour}" stroke="none" font-size="{_n(SIZE)}" font-family="sans-serif" font-weight="bold" '
            f'text-anchor="middle" dominant-baseline="central">{escape(text)}</text>')
