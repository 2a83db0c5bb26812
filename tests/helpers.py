"""Test helpers: colour-consistent boards on chosen cells, found by a small backtracking search."""

from __future__ import annotations

from tantrix_pi.board import Board
from tantrix_pi.grid import Cell
from tantrix_pi.rules import fits
from tantrix_pi.tiles import ALL_NUMBERS


def tile_up(cells: list[Cell], want: dict[tuple[Cell, int], str] | None = None, avoid=(),
            board: Board | None = None, accept=None) -> Board:
    """A board with a tile on every cell (in the order given), all touching edges matching.

    `want[(cell, d)]` fixes the colour the tile on `cell` shows in direction d; `avoid`: tiles not to use;
    `board`: tiles already there (kept); `accept(board)`: a further condition on the finished board.
    """
    want = want or {}
    board = board.copy() if board else Board()
    free = set(ALL_NUMBERS) - set(avoid) - board.tiles

    def search(i: int) -> bool:
        if i == len(cells):
            return accept is None or accept(board)
        for p in fits(board, cells[i], free):
            if any(p.colour(d) != c for (cell, d), c in want.items() if cell == p.cell):
                continue
            board.place(p)
            free.discard(p.tile)
            if search(i + 1):
                return True
            board.remove(p.cell)
            free.add(p.tile)
        return False

    if not search(0):
        raise AssertionError(f"no matching tiles for {cells}")
    return board
