"""Solo puzzles (docs/rules.md section 5): Discovery, the five Rainbow puzzles, Solitaire's goal, what keeps any
solo board from counting, and Gobble's rule."""

from __future__ import annotations

from dataclasses import dataclass

from tantrix_pi.board import Board, Placement
from tantrix_pi.errors import TantrixError
from tantrix_pi.grid import Cell, neighbours, turn
from tantrix_pi.i18n import N_, _, colour_name, listing, ngettext
from tantrix_pi.rules import CELL_OCCUPIED, GOLDEN_RULE, TILE_PLACED, Violation, fmt, why_illegal
from tantrix_pi.scoring import paths
from tantrix_pi.tiles import COLOUR_NAMES, TILES

RAINBOW_COLOUR = {"green": "G", "yellow": "Y", "white": "B", "blue": "B", "red": "R"}
"""The loop/line colour of each Rainbow puzzle (white's nine tiles only close in blue)."""

BACK_OF_RAINBOW = {"green": "G", "yellow": "Y", "white": "W", "blue": "B", "red": "R"}
"""The colour of the numbers on the backs of each Rainbow puzzle's tiles."""

PYRAMID_ROWS = {"blue": 4, "red": 5}

PUZZLE_HELP = N_("discovery:N (3..30, optionally discovery:N:COLOUR), rainbow:green|yellow|white|blue|red, "
                 "or solitaire")
"""How a puzzle is named on the command line (the help of every --puzzle)."""

GOBBLE_TOUCH = "gobble-touch-two"
"""Gobble's placement rule: a new tile touches at least two tiles."""


class PuzzleError(TantrixError, ValueError):
    """A puzzle name that is not one of discovery:N, rainbow:COLOUR, solitaire."""


@dataclass(frozen=True)
class Verdict:
    """Whether a board solves a puzzle, and every reason it does not."""

    solved: bool
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Puzzle:
    """A solo puzzle: which tiles, the goal colour, loop or line, and an optional pyramid of `rows` rows."""

    name: str
    tiles: tuple[int, ...]
    colour: str
    loop: bool = True
    rows: int | None = None

    @property
    def title(self) -> str:
        """The puzzle's name as players read it: 'Discovery 10', 'Rainbow puzzle (green backs)', 'Solitaire'."""
        kind, *args = self.name.split(":")
        if kind == "discovery":
            return _("Discovery {n}").format(n=args[0])
        if kind == "rainbow":
            return _("Rainbow puzzle ({colour} backs)").format(colour=colour_name(BACK_OF_RAINBOW[args[0]]))
        return _("Solitaire")

    def check(self, board: Board) -> Verdict:
        """Solved or not, with every reason a player can act on."""
        reasons = []
        wanted = set(self.tiles)
        reasons += [_("tile {tile} is missing").format(tile=n) for n in sorted(wanted - board.tiles)]
        reasons += [_("tile {tile} is not part of {puzzle}").format(tile=n, puzzle=self.title)
                    for n in sorted(board.tiles - wanted)]
        reasons += solo_faults(board)
        if self.rows and not is_pyramid(board.cells, self.rows):
            reasons.append(_("the tiles do not form a pyramid of rows {rows}").format(
                rows=listing(range(1, self.rows + 1))))
        reasons += self._path_reasons(board)
        return Verdict(not reasons, tuple(reasons))

    def _path_reasons(self, board: Board) -> list[str]:
        if not len(board):
            return []
        name = colour_name(self.colour)
        found = paths(board, self.colour)
        if not found:
            return [_("there is no {colour} path").format(colour=name)]
        best = max(found, key=lambda p: (len(p), p.loop == self.loop))
        if len(best) == len(board) == len(self.tiles):
            if self.loop and not best.loop:
                return [_("the {colour} path is a line, not a loop").format(colour=name)]
            if not self.loop and best.loop:
                return [_("the {colour} path is a loop, not a line").format(colour=name)]
            return []
        off = sorted(board[c].tile for c in board.cells - set(best.cells))
        shown = listing(off[:8]) + (", ..." if len(off) > 8 else "")
        n = len(self.tiles)
        goal = (ngettext("not one {colour} loop through all {n} tile", "not one {colour} loop through all {n} tiles", n)
                if self.loop else ngettext("not one {colour} line through all {n} tile",
                                           "not one {colour} line through all {n} tiles", n)).format(colour=name, n=n)
        longest = (ngettext("the longest {colour} path is a loop of {n} tile",
                            "the longest {colour} path is a loop of {n} tiles", len(best)) if best.loop
                   else ngettext("the longest {colour} path is a line of {n} tile",
                                 "the longest {colour} path is a line of {n} tiles", len(best))).format(
            colour=name, n=len(best))
        if not off:  # every tile down is on the path: the missing tiles are named on their own
            return [_("{goal}: {longest}").format(goal=goal, longest=longest)]
        away = ngettext("off it: tile {tiles}", "off it: tiles {tiles}", len(off)).format(tiles=shown)
        return [_("{goal}: {longest}; {away}").format(goal=goal, longest=longest, away=away)]


def solo_faults(board: Board) -> list[str]:
    """What keeps a board from counting in any solo puzzle or variant (docs/rules.md section 5): touching
    edges that do not match, holes, tiles in separate groups."""
    out = []
    for cell, d in board.mismatches():
        other = neighbours(cell)[d]
        a, b = board[cell].colour(d), board[other].colour((d + 3) % 6)
        out.append(_("edge between {cell} and {other} is {colour}/{other_colour}").format(
            cell=fmt(cell), other=fmt(other), colour=colour_name(a), other_colour=colour_name(b)))
    out += [_("hole at {cell}").format(cell=fmt(c)) for c in board.holes()]
    groups = board.groups()
    if len(groups) > 1:
        out.append(ngettext("the tiles form {n} separate group", "the tiles form {n} separate groups",
                            len(groups)).format(n=len(groups)))
    return out


def solo_fault_data(board: Board) -> dict:
    """`solo_faults` as data, in no language: the mismatched edges (cell, direction), the holes, the groups."""
    return {"mismatches": [{"cell": list(c), "direction": d} for c, d in board.mismatches()],
            "holes": [list(c) for c in board.holes()], "groups": len(board.groups())}


def puzzle(spec: str) -> Puzzle:
    """The puzzle named by `discovery:N` (optionally `discovery:N:COLOUR`), `rainbow:COLOUR` or `solitaire`."""
    parts = spec.strip().lower().split(":")
    if parts[0] == "discovery" and len(parts) in (2, 3):
        try:
            n = int(parts[1])
        except ValueError:
            raise PuzzleError(_("discovery:N needs a number 3..30, not {text!r}").format(text=parts[1])) from None
        if not 3 <= n <= 30:
            raise PuzzleError(_("discovery:{n}: Discovery puzzles go from 3 to 30 tiles").format(n=n))
        colour = TILES[n].back
        if len(parts) == 3:
            colour = _colour(parts[2], spec)
        return Puzzle(f"discovery:{n}", tuple(range(1, n + 1)), colour)
    if parts[0] == "rainbow" and len(parts) == 2 and parts[1] in RAINBOW_COLOUR:
        back = BACK_OF_RAINBOW[parts[1]]
        tiles = tuple(n for n, t in sorted(TILES.items()) if t.back == back)
        rows = PYRAMID_ROWS.get(parts[1])
        return Puzzle(f"rainbow:{parts[1]}", tiles, RAINBOW_COLOUR[parts[1]], loop=rows is None, rows=rows)
    if parts == ["solitaire"]:
        return Puzzle("solitaire", tuple(range(1, 15)), "R")
    raise PuzzleError(_("unknown puzzle {spec!r}: use discovery:3..30, rainbow:green|yellow|white|blue|red "
                        "or solitaire").format(spec=spec))


def _colour(text: str, spec: str) -> str:
    names = {v: k for k, v in COLOUR_NAMES.items() if k != "W"}
    code = text.upper() if text.upper() in "RYGB" and len(text) == 1 else names.get(text)
    if code is None:
        raise PuzzleError(_("{spec!r}: colour must be R, Y, G, B or red, yellow, green, blue").format(spec=spec))
    return code


def pyramid(rows: int) -> frozenset[Cell]:
    """A triangle of hexagons with rows of 1..`rows` tiles, each tile resting on the two below it."""
    return frozenset((q, r) for r in range(rows) for q in range(-r, 1))


def _normal(cells) -> frozenset[Cell]:
    q0 = min(q for q, _ in cells)
    r0 = min(r for _, r in cells)
    return frozenset((q - q0, r - r0) for q, r in cells)


def is_pyramid(cells: set[Cell], rows: int) -> bool:
    """True when `cells` are the pyramid of `rows` rows after some move and turn of the grid."""
    if len(cells) != rows * (rows + 1) // 2:
        return False
    shape = _normal(cells)
    return any(_normal([turn(c, k) for c in pyramid(rows)]) == shape for k in range(6))


def gobble_why_illegal(board: Board, placement: Placement) -> list[Violation]:
    """Gobble's rule: every reason a tile may not be added (it must touch >= 2 tiles and match; no restrictions)."""
    out = why_illegal(board, placement, bag_empty=True)
    if any(v.rule in (CELL_OCCUPIED, TILE_PLACED) for v in out):
        return out
    touching = sum(n in board for n in neighbours(placement.cell))
    needed = min(2, len(board))
    if touching < needed:
        out = [v for v in out if v.rule == GOLDEN_RULE]
        out.insert(0, Violation(GOBBLE_TOUCH, ngettext(
            "Gobble: {cell} touches {n} tile, it must touch at least two",
            "Gobble: {cell} touches {n} tiles, it must touch at least two", touching).format(
            cell=fmt(placement.cell), n=touching), (placement.cell,)))
    return out
