"""Boards to photograph: random connected boards grown with the rules' own `fits`, legal ones, compact spirals."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import distance
from tantrix_pi.rules import fits
from tantrix_pi.tiles import TILES


def random_board(rng: np.random.Generator, n: int, legal: bool = True) -> Board:
    """A connected board of up to `n` different tiles grown from one; with `legal`, touching edges agree.

    The tiles are tried in one shuffled order, each in its own shuffled order of turns, on the free cells
    in a shuffled order: the first that fits (`rules.fits`) is placed. A legal board may stop short of `n`
    when no remaining tile fits any free cell. The same generator state gives the same board.
    """
    numbers = [int(x) for x in rng.permutation(sorted(TILES))]
    board = Board([Placement(numbers.pop(), 0, 0, int(rng.integers(6)))])
    while len(board) < n and numbers:
        free = sorted(board.empty_neighbours())
        for cell in (free[i] for i in rng.permutation(len(free))):
            placement = _first_fit(rng, numbers, cell, _turns_that_fit(board, cell, numbers) if legal else None)
            if placement is not None:
                board.place(placement)
                numbers.remove(placement.tile)
                break
        else:
            break
    return board


def _turns_that_fit(board: Board, cell: tuple[int, int], numbers: Sequence[int]) -> dict[int, set[int]]:
    """For each tile of `numbers` that fits `cell`, the turns in which it does."""
    turns: dict[int, set[int]] = {}
    for p in fits(board, cell, numbers):
        turns.setdefault(p.tile, set()).add(p.rot)
    return turns


def _first_fit(rng: np.random.Generator, numbers: Sequence[int], cell: tuple[int, int],
               turns_that_fit: dict[int, set[int]] | None) -> Placement | None:
    """The first of `numbers`, in its first shuffled turn, that fits `cell` (any, when `turns_that_fit` is None)."""
    for number in numbers:
        for rot in rng.permutation(6):
            if turns_that_fit is None or rot in turns_that_fit.get(number, ()):
                return Placement(number, cell[0], cell[1], int(rot))
    return None


def legal_board(n: int, seed: int = 0, avoid: Iterable[int] = ()) -> Board:
    """A board of exactly `n` tiles whose touching edges agree (as real boards are laid), without the tiles `avoid`.

    ValueError when 100 tries find none.
    """
    avoid = set(avoid)
    for k in range(100):
        board = random_board(np.random.default_rng([seed, k]), n)
        if len(board) == n and not board.tiles & avoid:
            return board
    raise ValueError(f"no legal board of {n} tiles without tiles {sorted(avoid)} in 100 tries")


def spiral_board(numbers: Sequence[int], rots: Sequence[int] | None = None) -> Board:
    """A compact board of the given tiles placed on cells spiralling out from (0, 0), whether their edges agree or not.

    rots: each tile's turn (default: 0, 3, 0, 3, ...).
    """
    cells = sorted(((q, r) for q in range(-4, 5) for r in range(-4, 5) if distance((0, 0), (q, r)) <= 4),
                   key=lambda c: (distance((0, 0), c), math.atan2(c[1], c[0] + c[1] / 2)))
    rots = rots or [(3 * i) % 6 for i in range(len(numbers))]
    return Board(Placement(n, q, r, k) for n, (q, r), k in zip(numbers, cells, rots, strict=False))
