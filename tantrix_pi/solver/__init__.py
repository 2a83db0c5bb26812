"""Solve the solo puzzles (Discovery, Rainbow) hole-free, count their solutions, and give hints.

Loops go to `loop_search`, pyramids to `pyramid_search`. A first solution is searched with randomised
restarts (Luby's sequence of node budgets): the search time of one fixed order is heavy-tailed, and a
restart that runs out of nodes costs little. A restart that finishes its whole tree without a solution
proves there is none. Every solution is checked with `Puzzle.check` before it is returned.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tantrix_pi.board import Board, Placement
from tantrix_pi.errors import EXIT_UNSURE, TantrixError
from tantrix_pi.grid import Cell, neighbours, opposite, turn
from tantrix_pi.i18n import _, direction_name, listing, ngettext
from tantrix_pi.puzzles import Puzzle, pyramid
from tantrix_pi.solver.loop_search import LoopSearch
from tantrix_pi.solver.pyramid_search import PyramidSearch
from tantrix_pi.solver.search_options import Budget, GiveUp, Timeout

RESTART_NODES = 300
"""Node budget of the shortest restart (the unit of Luby's sequence)."""


class SolveTimeout(TantrixError):
    """The search did not finish within the time it was given."""

    exit_code = EXIT_UNSURE


@dataclass(frozen=True)
class Hint:
    """Whether a partly built puzzle can still be completed; a next placement or what blocks it."""

    solvable: bool
    placement: Placement | None = None
    """A tile, cell and turn that keeps the puzzle solvable (None when solved or unsolvable)."""
    blockers: tuple[Placement, ...] = ()
    """Placed tiles each of which alone blocks every solution (removing it makes it solvable)."""
    solution: Board | None = None
    reason: str = ""


def luby() -> Iterator[int]:
    """Luby's restart sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ... (Knuth's reluctant doubling)."""
    u, v = 1, 1
    while True:
        yield v
        if u & -u == v:
            u, v = u + 1, 1
        else:
            v *= 2


def _shapes(pz: Puzzle, fixed: list[Placement]) -> list[frozenset[Cell]]:
    """Every place and heading of the puzzle's pyramid that covers all fixed cells."""
    base = [frozenset(turn(c, k) for c in pyramid(pz.rows)) for k in (0, 1)]
    if not fixed:
        return [base[0]]
    wanted = {p.cell for p in fixed}
    f = fixed[0].cell
    out = set()
    for shape in base:
        for s in shape:
            moved = frozenset((q + f[0] - s[0], r + f[1] - s[1]) for q, r in shape)
            if wanted <= moved:
                out.add(moved)
    return sorted(out, key=sorted)


def _run(pz: Puzzle, fixed: list[Placement], budget: Budget, on_solution: Callable[[Board], bool | None]) -> bool:
    """Search the solutions containing `fixed`: `on_solution` gets each checked board and stops the
    search unless it returns False. True when it was stopped."""

    def checked(placements: list[Placement]) -> bool:
        board = Board(placements)
        return pz.check(board).solved and on_solution(board) is not False

    if pz.rows:
        return any(PyramidSearch(pz.tiles, pz.colour, shape, fixed, budget).run(checked)
                   for shape in _shapes(pz, fixed))
    return LoopSearch(pz.tiles, pz.colour, fixed, budget).run(checked)


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout


def _first(pz: Puzzle, fixed: list[Placement], deadline: float | None, seed: int) -> Board | None:
    """One solution containing `fixed`, None when there is provably none; SolveTimeout past the deadline."""
    for k, factor in enumerate(luby()):
        budget = Budget(deadline, RESTART_NODES * factor, seed=seed * 1_000_003 + k)
        found: list[Board] = []
        try:
            _run(pz, fixed, budget, found.append)
        except GiveUp:
            continue
        except Timeout:
            raise SolveTimeout(_("{puzzle}: no answer within the time limit").format(puzzle=pz.title)) from None
        return found[0] if found else None
    raise AssertionError("luby() never ends")


def solve(pz: Puzzle, timeout: float | None = None, seed: int = 0) -> Board | None:
    """One solution of the puzzle (checked), None when it has none; SolveTimeout after `timeout` seconds."""
    try:
        return _first(pz, [], _deadline(timeout), seed)
    except SolveTimeout:
        raise SolveTimeout(_("{puzzle}: no solution found within {seconds:g} s (--timeout)").format(
            puzzle=pz.title, seconds=timeout)) from None


def solutions(pz: Puzzle, timeout: float | None = None) -> list[Board]:
    """All solutions, each once up to a move and a turn of the whole board."""
    found: dict[tuple, Board] = {}

    def keep(board: Board) -> bool:
        found.setdefault(board.canonical(), board)
        return False

    try:
        _run(pz, [], Budget(_deadline(timeout)), keep)
    except Timeout:
        raise SolveTimeout(ngettext("{puzzle}: stopped after {seconds:g} s (--timeout), {n} solution so far",
                                    "{puzzle}: stopped after {seconds:g} s (--timeout), {n} solutions so far",
                                    len(found)).format(puzzle=pz.title, seconds=timeout, n=len(found))) from None
    return list(found.values())


def count(pz: Puzzle, timeout: float | None = None) -> int:
    """The number of solutions up to a move and a turn of the whole board."""
    return len(solutions(pz, timeout))


def hint(pz: Puzzle, board: Board, timeout: float | None = None, seed: int = 0) -> Hint:
    """Can `board` (a partly built `pz`) still be completed? One next placement, or what blocks it."""
    deadline = _deadline(timeout)
    placed = list(board)
    strangers = [p for p in placed if p.tile not in pz.tiles]
    if strangers:
        return Hint(False, blockers=tuple(strangers), reason=ngettext(
            "tile {tiles} is not part of {puzzle}", "tiles {tiles} are not part of {puzzle}", len(strangers)).format(
            tiles=listing(p.tile for p in strangers), puzzle=pz.title))
    if pz.check(board).solved:
        return Hint(True, solution=board, reason=_("already solved"))
    for cell, d in board.mismatches():
        pair = (board[cell], board[neighbours(cell)[d]])
        return Hint(False, blockers=pair, reason=_("{placement} and {other} do not match").format(
            placement=pair[0], other=pair[1]))
    try:
        solution = _first(pz, placed, deadline, seed)
    except SolveTimeout:
        raise SolveTimeout(_("{puzzle}: could not decide within {seconds:g} s (--timeout)").format(
            puzzle=pz.title, seconds=timeout)) from None
    if solution is not None:
        left = len(pz.tiles) - len(board)
        return Hint(True, _next_placement(board, solution), solution=solution,
                    reason=ngettext("{n} tile to go", "{n} tiles to go", left).format(n=left))
    try:
        if _first(pz, [], deadline, seed) is None:
            return Hint(False, reason=_("{puzzle} has no solution at all").format(puzzle=pz.title))
        blockers = tuple(p for p in placed
                         if _first(pz, [q for q in placed if q != p], deadline, seed) is not None)
    except SolveTimeout:
        return Hint(False, reason=_("no solution keeps these tiles (no time left to find which one blocks)"))
    if blockers:
        return Hint(False, blockers=blockers, reason=_("no solution keeps {placements}").format(
            placements=listing(blockers)))
    return Hint(False, reason=_("no solution keeps these tiles, and taking away any one of them is not enough"))


def _next_placement(board: Board, solution: Board) -> Placement:
    """The solution's placement that best continues the board: touching the most placed tiles."""
    todo = [p for p in solution if p.cell not in board]
    return min(todo, key=lambda p: (-sum(n in board for n in neighbours(p.cell)), p.tile))


def hinted(board: Board, p: Placement) -> str:
    """A hinted placement as players read it, with a tile already down it lies beside: 'tile 5 at (1,0) turn 2,
    NE of tile 12' (only the placement on an empty board)."""
    for d, n in enumerate(neighbours(p.cell)):
        if n in board:
            return _("{placement}, {direction} of tile {tile}").format(
                placement=p, direction=direction_name(opposite(d)), tile=board[n].tile)
    return str(p)
