"""Test helpers: colour-consistent boards on chosen cells, found by a small backtracking search."""

from __future__ import annotations

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import Cell, distance, neighbour, opposite
from tantrix_pi.rules import fits
from tantrix_pi.scoring import paths
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


def path_search(tiles, colour: str, loop: bool = True, shape=None, hole: bool = False) -> Board | None:
    """Arrange `tiles` so that one `colour` loop (or line) passes through all of them, all edges matching.

    Follows the path tile by tile; `shape`: the cells allowed; `hole`: whether the result must enclose a hole.
    """
    tiles = list(tiles)

    def finished(board: Board) -> bool:
        if board.mismatches() or bool(board.holes()) != hole:
            return False
        best = paths(board, colour)[0]
        return len(best) == len(tiles) and best.loop == loop

    def follow(board: Board, free: set, cell: Cell, out: int, start: Cell) -> Board | None:
        nxt = neighbour(cell, out)
        if not free:
            return board if (nxt == start or not loop) and finished(board) else None
        if nxt in board or (shape is not None and nxt not in shape) or (loop and distance(nxt, start) > len(free)):
            return None
        for p in fits(board, nxt, free):
            if p.colour(opposite(out)) != colour:
                continue
            board.place(p)
            free.discard(p.tile)
            if follow(board, free, nxt, p.info.other_end(opposite(out), p.rot), start):
                return board
            board.remove(nxt)
            free.add(p.tile)
        return None

    starts = sorted(shape) if shape is not None else [(0, 0)]
    for start in starts:
        for first in tiles if not loop else tiles[-1:]:
            for rot in range(6) if (shape is not None or not loop) else (0,):
                p = Placement(first, *start, rot)
                a = next(d for d in range(6) if p.colour(d) == colour)
                for end in (a, p.info.other_end(a, rot)):
                    if not loop and shape is not None and neighbour(start, end) in shape:
                        continue
                    board = Board([p])
                    found = follow(board, set(tiles) - {first}, start, p.info.other_end(end, rot), start)
                    if found:
                        return found
    return None
