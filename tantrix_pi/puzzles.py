"""Solo puzzles (docs/rules.md section 5): Discovery, the five Rainbow puzzles, Solitaire's goal, what keeps any
solo board from counting, and Gobble's rule."""

from __future__ import annotations

from dataclasses import dataclass

from tantrix_pi.board import Board, Placement
from tantrix_pi.errors import TantrixError
from tantrix_pi.grid import Cell, neighbours, turn
from tantrix_pi.rules import CELL_OCCUPIED, GOLDEN_RULE, TILE_PLACED, Violation, fmt, why_illegal
from tantrix_pi.scoring import paths
from tantrix_pi.tiles import COLOUR_NAMES, TILES

RAINBOW_COLOUR = {"green": "G", "yellow": "Y", "white": "B", "blue": "B", "red": "R"}
"""The loop/line colour of each Rainbow puzzle (white's nine tiles only close in blue)."""

PYRAMID_ROWS = {"blue": 4, "red": 5}

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

    def check(self, board: Board) -> Verdict:
        """Solved or not, with every reason a player can act on."""
        reasons = []
        wanted = set(self.tiles)
        reasons += [f"tile {n} is missing" for n in sorted(wanted - board.tiles)]
        reasons += [f"tile {n} is not part of {self.name}" for n in sorted(board.tiles - wanted)]
        reasons += solo_faults(board)
        if self.rows and not is_pyramid(board.cells, self.rows):
            rows = ", ".join(str(i) for i in range(1, self.rows + 1))
            reasons.append(f"the tiles do not form a pyramid of rows {rows}")
        reasons += self._path_reasons(board)
        return Verdict(not reasons, tuple(reasons))

    def _path_reasons(self, board: Board) -> list[str]:
        if not len(board):
            return []
        name = COLOUR_NAMES[self.colour]
        goal = "loop" if self.loop else "line"
        found = paths(board, self.colour)
        if not found:
            return [f"there is no {name} path"]
        best = max(found, key=lambda p: (len(p), p.loop == self.loop))
        if len(best) == len(board) == len(self.tiles):
            if self.loop and not best.loop:
                return [f"the {name} path is a line, not a loop"]
            if not self.loop and best.loop:
                return [f"the {name} path is a loop, not a line"]
            return []
        off = sorted(board[c].tile for c in board.cells - set(best.cells))
        shown = ", ".join(map(str, off[:8])) + (", ..." if len(off) > 8 else "")
        kind = "loop" if best.loop else "line"
        n, length = len(self.tiles), len(best)
        if not off:  # every tile down is on the path: the missing tiles are named on their own
            return [f"not one {name} {goal} through all {n} tiles: the longest {name} path is a {kind} of {length}"]
        if len(off) == 1:
            return [f"not one {name} {goal} through all {n} tiles: the longest {name} path is a {kind} of {length}; "
                    f"off it: tile {shown}"]
        return [f"not one {name} {goal} through all {n} tiles: the longest {name} path is a {kind} of {length}; "
                f"off it: tiles {shown}"]


def solo_faults(board: Board) -> list[str]:
    """What keeps a board from counting in any solo puzzle or variant (docs/rules.md section 5): touching
    edges that do not match, holes, tiles in separate groups."""
    out = []
    for cell, d in board.mismatches():
        other = neighbours(cell)[d]
        a, b = board[cell].colour(d), board[other].colour((d + 3) % 6)
        out.append(f"edge between {fmt(cell)} and {fmt(other)} is {COLOUR_NAMES[a]}/{COLOUR_NAMES[b]}")
    out += [f"hole at {fmt(c)}" for c in board.holes()]
    groups = board.groups()
    if len(groups) > 1:
        out.append(f"the tiles form {len(groups)} separate groups")
    return out


def puzzle(spec: str) -> Puzzle:
    """The puzzle named by `discovery:N` (optionally `discovery:N:COLOUR`), `rainbow:COLOUR` or `solitaire`."""
    parts = spec.strip().lower().split(":")
    if parts[0] == "discovery" and len(parts) in (2, 3):
        try:
            n = int(parts[1])
        except ValueError:
            raise PuzzleError(f"discovery:N needs a number 3..30, not {parts[1]!r}") from None
        if not 3 <= n <= 30:
            raise PuzzleError(f"discovery:{n}: Discovery puzzles go from 3 to 30 tiles")
        colour = TILES[n].back
        if len(parts) == 3:
            colour = _colour(parts[2], spec)
        return Puzzle(f"discovery:{n}", tuple(range(1, n + 1)), colour)
    if parts[0] == "rainbow" and len(parts) == 2 and parts[1] in RAINBOW_COLOUR:
        back = {"green": "G", "yellow": "Y", "white": "W", "blue": "B", "red": "R"}[parts[1]]
        tiles = tuple(n for n, t in sorted(TILES.items()) if t.back == back)
        rows = PYRAMID_ROWS.get(parts[1])
        return Puzzle(f"rainbow:{parts[1]}", tiles, RAINBOW_COLOUR[parts[1]], loop=rows is None, rows=rows)
    if parts == ["solitaire"]:
        return Puzzle("solitaire", tuple(range(1, 15)), "R")
    raise PuzzleError(f"unknown puzzle {spec!r}: use discovery:3..30, rainbow:green|yellow|white|blue|red "
                      "or solitaire")


def _colour(text: str, spec: str) -> str:
    names = {v: k for k, v in COLOUR_NAMES.items() if k != "W"}
    code = text.upper() if text.upper() in "RYGB" and len(text) == 1 else names.get(text)
    if code is None:
        raise PuzzleError(f"{spec!r}: colour must be R, Y, G, B or red, yellow, green, blue")
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
        out.insert(0, Violation(GOBBLE_TOUCH, f"Gobble: {fmt(placement.cell)} touches {touching} tile"
                                f"{'' if touching == 1 else 's'}, it must touch at least two", (placement.cell,)))
    return out
