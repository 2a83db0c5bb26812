"""Puzzle solver speed, beside the plain backtracking it started from.

    ./run.sh python bench/solver.py [--seeds 5] [--cap 20] [--timeout 60] [--enumerate-to 10]

Table 1: time to the first hole-free solution of Discovery 10, 15, 20, 25, 30 and each Rainbow puzzle
(median, min and max over `--seeds` seeds of the randomised search), beside the plain backtracking
(deterministic, one run, stopped after `--cap` seconds). Table 2: time to enumerate every solution of
Discovery 3..N (and the Discovery product's 7 red and 10 blue), with the counts. One core; every
solution is checked with `Puzzle.check`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.board import Board, Placement  # noqa: E402
from tantrix_pi.grid import distance, neighbour, opposite  # noqa: E402
from tantrix_pi.puzzles import Puzzle, puzzle, pyramid  # noqa: E402
from tantrix_pi.solver import SolveTimeout, count, solve  # noqa: E402
from tantrix_pi.tiles import TILES  # noqa: E402

FIRST = ["discovery:10", "discovery:15", "discovery:20", "discovery:25", "discovery:30",
         "rainbow:green", "rainbow:yellow", "rainbow:white", "rainbow:blue", "rainbow:red"]


class Stop(Exception):
    """The plain backtracking ran past its cap."""


def plain(pz: Puzzle, cap: float, first: bool) -> tuple[int, bool]:
    """The baseline: walk the goal colour tile by tile, matching only the neighbours already down and
    turning back when the start is too far for the tiles left; holes are checked once a loop closes
    (pyramids: fill the triangle row by row, check the line at the end).
    Returns (distinct solutions found, finished before the cap)."""
    deadline = time.monotonic() + cap
    found: set = set()
    board = Board()
    free = set(pz.tiles)
    nodes = [0]

    def tick():
        nodes[0] += 1
        if nodes[0] % 512 == 0 and time.monotonic() > deadline:
            raise Stop

    def fits(cell, tile, rot):
        p = Placement(tile, cell[0], cell[1], rot)
        return all(board.get(neighbour(cell, d)) is None
                   or board.get(neighbour(cell, d)).colour(opposite(d)) == p.colour(d) for d in range(6))

    def done() -> bool:
        if pz.check(board).solved:
            found.add(board.canonical())
            return first
        return False

    def walk(cell, came_from) -> bool:
        tick()
        if cell in board:
            return not free and done()
        if distance(cell, (0, 0)) > len(free):  # too far to come back with the tiles left
            return False
        for tile in sorted(free):
            for rot in range(6):
                p = Placement(tile, cell[0], cell[1], rot)
                if p.colour(came_from) != pz.colour or not fits(cell, tile, rot):
                    continue
                out = TILES[tile].other_end(came_from, rot)
                board.place(p)
                free.discard(tile)
                try:
                    if walk(neighbour(cell, out), opposite(out)):
                        return True
                finally:
                    board.remove(cell)
                    free.add(tile)
        return False

    def fill(cells, i) -> bool:
        tick()
        if i == len(cells):
            return done()
        for tile in sorted(free):
            for rot in range(6):
                if fits(cells[i], tile, rot):
                    board.place(Placement(tile, cells[i][0], cells[i][1], rot))
                    free.discard(tile)
                    try:
                        if fill(cells, i + 1):
                            return True
                    finally:
                        board.remove(cells[i])
                        free.add(tile)
        return False

    try:
        if pz.rows:
            fill(sorted(pyramid(pz.rows), key=lambda c: (c[1], c[0])), 0)
        else:
            start = pz.tiles[0]
            board.place(Placement(start, 0, 0, 0))
            free.discard(start)
            out = next(d for d in range(6) if TILES[start].colour(d) == pz.colour)
            walk(neighbour((0, 0), out), opposite(out))
    except Stop:
        return len(found), False
    return len(found), True


def timed(fn):
    t = time.perf_counter()
    result = fn()
    return time.perf_counter() - t, result


def fmt(seconds: float, finished: bool = True) -> str:
    return f"{seconds:.2f}" if finished else f"> {seconds:.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--cap", type=float, default=20.0, help="seconds before the plain backtracking is stopped")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before the solver is stopped")
    ap.add_argument("--enumerate-to", type=int, default=10)
    args = ap.parse_args()

    print(f"time to first solution, seconds (solver: median [min..max] over {args.seeds} seeds)")
    print(f"{'puzzle':<15} {'tiles':>5} {'solver median':>13} {'min..max':>13} {'plain backtracking':>19}")
    for spec in FIRST:
        pz = puzzle(spec)
        times = []
        for seed in range(args.seeds):
            try:
                t, board = timed(lambda pz=pz, seed=seed: solve(pz, args.timeout, seed))
                assert board is not None and pz.check(board).solved, spec
            except SolveTimeout:
                t = float("inf")
            times.append(t)
        t_plain, (n, finished) = timed(lambda pz=pz: plain(pz, args.cap, first=True))
        spread = f"{min(times):.2f}..{max(times):.2f}"
        print(f"{spec:<15} {len(pz.tiles):>5} {statistics.median(times):>13.2f} {spread:>13} "
              f"{fmt(t_plain, finished and n > 0):>19}", flush=True)

    print()
    print("enumerating every hole-free solution, seconds")
    print(f"{'puzzle':<15} {'solutions':>9} {'solver':>8} {'plain backtracking':>19}")
    specs = [f"discovery:{n}" for n in range(3, args.enumerate_to + 1)]
    specs += [s for s in ("discovery:7:R", "discovery:10:B") if int(s.split(":")[1]) <= args.enumerate_to]
    for spec in specs:
        pz = puzzle(spec)
        t, k = timed(lambda pz=pz: count(pz, args.timeout))
        t_plain, (k_plain, finished) = timed(lambda pz=pz: plain(pz, args.cap, first=False))
        if finished:
            assert k_plain == k, (pz.name, k_plain, k)
        print(f"{spec:<15} {k:>9} {t:>8.2f} {fmt(t_plain, finished):>19}", flush=True)


if __name__ == "__main__":
    main()
