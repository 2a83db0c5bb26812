"""The rules of play (docs/rules.md sections 1-3): forced spaces, fits, restrictions, legality with reasons."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import DIRECTIONS, Cell, fmt, neighbour, neighbours, opposite
from tantrix_pi.i18n import _, colour_name, direction_name, listing
from tantrix_pi.tiles import ALL_NUMBERS, TILES

# Rule names: stable strings other parts (referee, display, records) may store and compare.
CELL_OCCUPIED = "cell-occupied"
TILE_PLACED = "tile-already-placed"
NOT_TOUCHING = "not-touching"
GOLDEN_RULE = "golden-rule"
HOPELESS_SPACE = "restriction-1-hopeless-space"
FOUR_SIDED_SPACE = "restriction-2-four-sided-space"
CONTROLLED_SIDE = "restriction-3-controlled-side"

FORCED_NEIGHBOURS = 3
"""An empty cell with at least this many occupied neighbours is a forced space."""


@dataclass(frozen=True)
class Violation:
    """One reason a placement (or a board) breaks a rule: the rule's name, a sentence, the cells involved."""

    rule: str
    message: str
    cells: tuple[Cell, ...] = ()
    direction: int | None = None
    """For the golden rule: the direction from the first cell towards the mismatched neighbour."""

    def __str__(self) -> str:
        return self.message


# -- fitting: every (tile, rot) indexed by the colours it shows in each set of directions ----------
@cache
def _fit_index(mask: int) -> dict[str, tuple[tuple[int, int], ...]]:
    """Every (tile, rot) by the colours it shows in the directions of `mask`, in direction order (built on first
    use of each mask: a command that checks one board builds a few, not all 64)."""
    index: dict[str, list[tuple[int, int]]] = {}
    for n in ALL_NUMBERS:
        for rot in range(6):
            shown = TILES[n].turned(rot)
            index.setdefault("".join(shown[d] for d in range(6) if mask >> d & 1), []).append((n, rot))
    return {k: tuple(v) for k, v in index.items()}


_EDGES = {n: TILES[n].edges for n in ALL_NUMBERS}
_STEPS = tuple((d, dq, dr, (d + 3) % 6) for d, (dq, dr) in enumerate(DIRECTIONS))


def _fit_key(cells: dict, cell: Cell) -> tuple[int, str]:
    """(mask of occupied directions, the colours facing `cell` from them in direction order): the fit index key."""
    q, r = cell
    mask = 0
    colours = ""
    for d, dq, dr, back in _STEPS:
        p = cells.get((q + dq, r + dr))
        if p is not None:
            mask |= 1 << d
            colours += _EDGES[p.tile][(back - p.rot) % 6]
    return mask, colours


def fits(board: Board, cell: Cell, tiles: Iterable[int] | None = None) -> list[Placement]:
    """Every (tile, rot) on `cell` matching all its occupied neighbours; default tiles: those not on the board."""
    allowed = tiles if isinstance(tiles, set | frozenset) else set(tiles) if tiles is not None \
        else set(ALL_NUMBERS) - board.tiles
    q, r = cell
    mask, colours = _fit_key(board.occupied, cell)
    return [Placement(n, q, r, rot) for n, rot in _fit_index(mask).get(colours, ()) if n in allowed]


# -- forced spaces ------------------------------------------------------------------------------------
def _neighbour_counts(occupied: Iterable[Cell]) -> Counter:
    occ = occupied if isinstance(occupied, AbstractSet | Mapping) else set(occupied)
    counts: Counter = Counter()
    for c in occ:
        for n in neighbours(c):
            if n not in occ:
                counts[n] += 1
    return counts


_COUNTS_CACHE: dict[frozenset, Counter] = {}


def _board_counts(board: Board) -> Counter:
    """Occupied-neighbour counts of the empty cells around a board, cached by its set of cells (read-only)."""
    key = frozenset(board.occupied)
    counts = _COUNTS_CACHE.get(key)
    if counts is None:
        if len(_COUNTS_CACHE) > 64:
            _COUNTS_CACHE.clear()
        counts = _COUNTS_CACHE[key] = _neighbour_counts(key)
    return counts


def reading_order(cell: Cell) -> tuple[int, int]:
    """Sort key top to bottom, then left to right (how forced spaces get their letters A, B, C...)."""
    return (cell[1], 2 * cell[0] + cell[1])


def forced_spaces(board: Board) -> list[Cell]:
    """Empty cells with >= 3 occupied neighbours, in reading order so they can be lettered A, B, C..."""
    counts = _board_counts(board)
    return sorted((c for c, n in counts.items() if n >= FORCED_NEIGHBOURS), key=reading_order)


def letter(i: int) -> str:
    """The label of the i-th forced space: A..Z, then AA, AB..."""
    return chr(65 + i) if i < 26 else letter(i // 26 - 1) + chr(65 + i % 26)


def hopeless_colour(needs: tuple[str | None, ...]) -> str | None:
    """The colour that 3 or more links into a space share (no tile can fill it), else None."""
    counts = Counter(c for c in needs if c is not None)
    for colour, k in counts.items():
        if k >= 3:
            return colour
    return None


def hopeless_spaces(board: Board) -> list[Cell]:
    """Forced spaces into which three or more links of one colour lead (restriction 1)."""
    return [c for c in forced_spaces(board) if hopeless_colour(board.facing(c))]


def four_sided_spaces(board: Board) -> list[Cell]:
    """Empty cells with 4 or more occupied neighbours (restriction 2)."""
    counts = _board_counts(board)
    return sorted((c for c, n in counts.items() if n >= 4), key=reading_order)


# -- the forced-space closure of rules.md section 3 [our reading] --------------------------------------
@dataclass(frozen=True)
class ClosureProblem:
    """A cell the closure flags: it would be four-sided in `round` (1 = right after the placement).

    `origin` is the forced space of round 1 whose filling chain leads there; `partner` the neighbouring
    cell of the same round when the flag is two forced spaces side by side.
    """

    cell: Cell
    round: int
    origin: Cell
    partner: Cell | None = None


def closure_problems(occupied: set[Cell], counts: dict | None = None,
                     established: Iterable[Cell] = ()) -> dict[Cell, ClosureProblem]:
    """Run the forced-space closure on a set of occupied cells (colours ignored) and return its flags by cell.

    Repeat { F = empty cells with >= 3 occupied neighbours; flag cells of F with >= 4, and cells of F next
    to another cell of F; stop if F is empty; mark F occupied }. The closure runs to its end so that every
    flag is known (it always ends: no cell outside the board's bounding hexagon has 3 neighbours inside).
    Chains are traced back preferably to the `established` forced spaces (those open before a placement).
    """
    occ = set(occupied)
    counts = dict(counts) if counts is not None else dict(_neighbour_counts(occ))
    established = set(established)
    front = sorted((c for c, n in counts.items() if n >= FORCED_NEIGHBOURS), key=lambda c: c not in established)
    origin: dict[Cell, Cell] = {c: c for c in front}
    problems: dict[Cell, ClosureProblem] = {}
    rnd = 0
    while front:
        rnd += 1
        fset = set(front)
        for c in front:
            if counts[c] >= 4:
                problems.setdefault(c, ClosureProblem(c, rnd, origin[c]))
            q, r = c
            for dq, dr in DIRECTIONS:
                if (q + dq, r + dr) in fset:
                    problems.setdefault(c, ClosureProblem(c, rnd, origin[c], (q + dq, r + dr)))
        nxt = []
        for c in front:
            occ.add(c)
            del counts[c]
        for c in front:
            q, r = c
            for dq, dr in DIRECTIONS:
                n = (q + dq, r + dr)
                if n not in occ:
                    k = counts[n] = counts.get(n, 0) + 1
                    origin.setdefault(n, origin[c])
                    if k == FORCED_NEIGHBOURS:
                        nxt.append(n)
        front = nxt
    return problems


_BEFORE_CACHE: dict[frozenset, dict[Cell, ClosureProblem]] = {}


def _problems_of(occupied: Mapping | AbstractSet, counts: dict | None = None) -> dict[Cell, ClosureProblem]:
    """closure_problems with a small cache: the board before a placement is asked about many times."""
    key = frozenset(occupied)
    found = _BEFORE_CACHE.get(key)
    if found is None:
        if len(_BEFORE_CACHE) > 64:
            _BEFORE_CACHE.clear()
        found = _BEFORE_CACHE[key] = closure_problems(set(occupied), counts)
    return found


def closure_violations(board: Board) -> list[Cell]:
    """Cells the forced-space closure of the board as it stands flags (restrictions 2 and 3 as a whole)."""
    return sorted(_problems_of(board.occupied), key=reading_order)


def _describe(p: ClosureProblem, cell: Cell) -> Violation:
    if p.round == 1 and p.partner is None:
        return Violation(FOUR_SIDED_SPACE, _("restriction 2: would make {cell} a four-sided space").format(
            cell=fmt(p.cell)), (cell, p.cell))
    if p.round == 1:
        return Violation(CONTROLLED_SIDE, _("restriction 3: forced spaces {cell} and {other} side by side; filling "
                                            "one makes the other four-sided").format(cell=fmt(p.cell),
                                                                                     other=fmt(p.partner)),
                         (cell, p.cell, p.partner))
    return Violation(CONTROLLED_SIDE, _("restriction 3: controlled side from forced space at {origin}; would make "
                                        "{cell} four-sided").format(origin=fmt(p.origin), cell=fmt(p.cell)),
                     (cell, p.origin, p.cell))


def _restriction_23(cell: Cell, occupied: Mapping | AbstractSet, counts: dict) -> list[Violation]:
    """Restrictions 2 and 3 for a tile on `cell`: flags of the closure that the board without it lacks."""
    established = [c for c, n in counts.items() if n >= FORCED_NEIGHBOURS and c != cell]
    around = [n for n in neighbours(cell) if n not in occupied]
    if not established and all(counts.get(n, 0) < FORCED_NEIGHBOURS - 1 for n in around):
        return []  # nothing is forced after the placement: the closure stops at once
    before = _problems_of(occupied, counts)
    after_counts = dict(counts)
    after_counts.pop(cell, None)
    after_occ = set(occupied)
    after_occ.add(cell)
    for n in around:
        after_counts[n] = after_counts.get(n, 0) + 1
    after = closure_problems(after_occ, after_counts, established)
    new = [p for c, p in after.items() if c not in before]
    seen: set[tuple] = set()
    out = []
    for p in sorted(new, key=lambda p: (p.round, reading_order(p.cell))):
        if p.partner:
            pair = frozenset((p.cell, p.partner))
            if pair in seen:
                continue
            seen.add(pair)
        out.append(_describe(p, cell))
    return out


# -- legality of one placement ---------------------------------------------------------------------
def _golden(board: Board, p: Placement) -> list[Violation]:
    out = []
    for d in range(6):
        other = board.get(neighbour(p.cell, d))
        if other is None:
            continue
        mine, theirs = p.colour(d), other.colour(opposite(d))
        if mine != theirs:
            out.append(Violation(
                GOLDEN_RULE,
                _("golden rule: tile {tile} shows {colour} towards {cell} ({direction}), where tile {other} shows "
                  "{other_colour}").format(tile=p.tile, colour=colour_name(mine), cell=fmt(other.cell),
                                           direction=direction_name(d), other=other.tile,
                                           other_colour=colour_name(theirs)),
                (p.cell, other.cell), d))
    return out


def _hopeless_context(board: Board, cell: Cell) -> list[tuple[int, Cell, list]]:
    """For a tile on `cell`: each empty neighbour (direction, cell, links into it) that would become a forced
    space and is not hopeless already, so that only the new tile's colour remains to be looked at."""
    out = []
    for d, n in enumerate(neighbours(cell)):
        if n in board:
            continue
        needs = list(board.facing(n))
        if sum(c is not None for c in needs) < 2:
            continue
        if sum(c is not None for c in needs) >= 3 and hopeless_colour(tuple(needs)):
            continue
        out.append((d, n, needs))
    return out


def _hopeless_after(p: Placement, context: list[tuple[int, Cell, list]]) -> list[Violation]:
    out = []
    for d, n, needs in context:
        link = p.colour(d)
        if needs.count(link) >= 2:
            out.append(Violation(HOPELESS_SPACE, _("restriction 1: would make {cell} a forced space with three "
                                                   "{colour} links: no tile can fill it").format(
                cell=fmt(n), colour=colour_name(link)), (p.cell, n)))
    return out


def why_illegal(board: Board, placement: Placement, bag_empty: bool = False) -> list[Violation]:
    """Every reason `placement` may not be played on `board` (empty: it is legal).

    While the bag has tiles the three restrictions apply; `bag_empty=True` lifts them.
    """
    p = placement
    out = []
    if p.cell in board:
        out.append(Violation(CELL_OCCUPIED, _("cell {cell} already holds tile {tile}").format(
            cell=fmt(p.cell), tile=board[p.cell].tile), (p.cell,)))
    where = board.cell_of(p.tile)
    if where is not None:
        out.append(Violation(TILE_PLACED, _("tile {tile} is already on the board at {cell}").format(
            tile=p.tile, cell=fmt(where)), (where,)))
    if p.cell in board:
        return out
    if len(board) and not any(n in board for n in neighbours(p.cell)):
        out.append(Violation(NOT_TOUCHING, _("{cell} does not touch the Tantrix").format(cell=fmt(p.cell)), (p.cell,)))
    out += _golden(board, p)
    if not bag_empty and len(board):
        out += _hopeless_after(p, _hopeless_context(board, p.cell))
        out += _restriction_23(p.cell, board.occupied, _board_counts(board))
    return out


def iter_legal_placements(board: Board, tiles: Iterable[int], bag_empty: bool = False) -> Iterator[Placement]:
    """The legal placements of any of `tiles` (those not already on the board), cell by cell."""
    tiles = set(tiles) - board.tiles
    if not tiles:
        return
    if not len(board):
        yield from (Placement(n, 0, 0, rot) for n in sorted(tiles) for rot in range(6))
        return
    counts = _board_counts(board)
    for cell in list(counts):
        candidates = fits(board, cell, tiles)
        if not candidates:
            continue
        if not bag_empty:
            if _restriction_23(cell, board.occupied, counts):
                continue
            context = _hopeless_context(board, cell)
            candidates = [p for p in candidates if not _hopeless_after(p, context)]
        yield from candidates


def legal_placements(board: Board, tiles: Iterable[int], bag_empty: bool = False) -> list[Placement]:
    """Every legal placement of any of `tiles` (those not already on the board), sorted."""
    return sorted(iter_legal_placements(board, tiles, bag_empty), key=lambda p: (p.tile, p.q, p.r, p.rot))


def can_place(board: Board, tiles: Iterable[int], bag_empty: bool = False) -> bool:
    """True when at least one of `tiles` has a legal placement (stops at the first found)."""
    return next(iter_legal_placements(board, tiles, bag_empty), None) is not None


# -- a board as a whole ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ForcedSpace:
    """An open forced space: its letter, cell, the colours facing it (clockwise from direction 0, None:
    no tile) and the tiles not on the board that fit it."""

    letter: str
    cell: Cell
    needs: tuple[str | None, ...]
    fits: tuple[int, ...]


def needs_text(needs: tuple[str | None, ...]) -> str:
    """What a space needs, as players read it: 'SW blue, W yellow, NW yellow' (each facing link's colour)."""
    return listing(_("{direction} {colour}").format(direction=direction_name(d), colour=colour_name(c))
                   for d, c in enumerate(needs) if c is not None)


def forced_space_text(f: ForcedSpace) -> str:
    """One forced space as players read it: its letter, cell, the colours it needs and the tiles that fit."""
    if f.fits:
        return _("forced space {letter} at {cell} needs {needs}: fits {tiles}").format(
            letter=f.letter, cell=fmt(f.cell), needs=needs_text(f.needs), tiles=listing(f.fits))
    return _("forced space {letter} at {cell} needs {needs}: no unplayed tile fits").format(
        letter=f.letter, cell=fmt(f.cell), needs=needs_text(f.needs))


def forced_space_report(board: Board, tiles: Iterable[int] | None = None) -> list[ForcedSpace]:
    """Each forced space lettered, with what it needs and which of `tiles` (default: unplayed) fit it."""
    out = []
    for i, cell in enumerate(forced_spaces(board)):
        numbers = sorted({p.tile for p in fits(board, cell, tiles)})
        out.append(ForcedSpace(letter(i), cell, board.facing(cell), tuple(numbers)))
    return out
