"""Search for the Rainbow pyramids: fill a fixed set of cells so that one line of a colour passes every tile.

Cells are filled fewest-options-first with bit-mask forward checking (see `search_options`). The line
is kept a single path: a goal-colour edge may face the outside of the shape only twice (the line's two
ends), and no goal-colour link may join two tiles already joined by the line (a cycle). With exactly
two ends and no cycle, n tiles carry n - 1 links, so the line is one path through all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from tantrix_pi.board import Placement
from tantrix_pi.grid import Cell, neighbour
from tantrix_pi.solver.search_options import COLOUR_INDEX, Budget, Options, bits, distinct_tiles


class PyramidSearch:
    """Every filling of `cells` with all of `tiles` (each once) that matches and carries one `colour` line."""

    def __init__(self, tiles: Sequence[int], colour: str, cells: Iterable[Cell], fixed: Iterable[Placement] = (),
                 budget: Budget | None = None) -> None:
        self.opts = Options(tiles, colour)
        self.cells = sorted(cells, key=lambda c: (c[1], c[0]))
        self.fixed = list(fixed)
        self.budget = budget or Budget()
        where = {c: i for i, c in enumerate(self.cells)}
        self.nbrs = [[where.get(neighbour(c, d), -1) for d in range(6)] for c in self.cells]
        goal = COLOUR_INDEX[colour]
        # how many line ends each option would put on each cell (goal-colour edges facing outside)
        self.ends = [[sum(1 for d in range(6) if self.nbrs[i][d] < 0 and cols[d] == goal) for cols in self.opts.cols]
                     for i in range(len(self.cells))]
        self.goal = goal
        # ends_at_most[i][k]: options putting at most k line ends on cell i
        self.ends_at_most = [[sum(1 << o for o, e in enumerate(row) if e <= k) for k in range(3)] for row in self.ends]

    def run(self, on_solution: Callable[[list[Placement]], bool]) -> bool:
        """Call `on_solution` with each filling until it returns True; True when it did."""
        opts = self.opts
        n = len(self.cells)
        if not opts.feasible or n != len(opts.tiles):
            return False
        self.on_solution = on_solution
        self.assign = [-1] * n
        self.comp = list(range(n))
        where = {c: i for i, c in enumerate(self.cells)}
        avail = opts.all
        ends = 0
        for p in self.fixed:
            i, t = where.get(p.cell), opts.index.get(p.tile)
            if i is None or t is None:
                return False
            o = 6 * t + p.rot
            if not self._fits(i, o, avail):
                return False
            ends += self._link(i, o)
            if ends < 0 or ends > 2:
                return False
            avail &= ~opts.tile_mask[t]
        return self._search(avail, ends)

    def _fits(self, i: int, o: int, avail: int) -> bool:
        return bool(self._domain(i, avail) >> o & 1)

    def _domain(self, i: int, avail: int) -> int:
        opts, assign = self.opts, self.assign
        mask = avail
        for d, j in enumerate(self.nbrs[i]):
            if j >= 0 and assign[j] >= 0:
                mask &= opts.face[d][opts.cols[assign[j]][(d + 3) % 6]]
        return mask

    def _link(self, i: int, o: int) -> int:
        """Put option o on cell i; its number of line ends, or -1 when it closes the line on itself."""
        self.assign[i] = o
        comp = self.comp
        cols = self.opts.cols[o]
        for d, j in enumerate(self.nbrs[i]):
            if j >= 0 and self.assign[j] >= 0 and cols[d] == self.goal:
                a, b = comp[i], comp[j]
                if a == b:
                    return -1
                self.comp = comp = [a if c == b else c for c in comp]
        return self.ends[i][o]

    def _search(self, avail: int, ends: int) -> bool:
        self.budget.tick()
        free = [i for i, o in enumerate(self.assign) if o < 0]
        if not free:
            if ends != 2:
                return False
            tiles = self.opts.tiles
            return self.on_solution([
                Placement(tiles[o // 6], q, r, o % 6) for (q, r), o in zip(self.cells, self.assign, strict=True)
            ])
        if ends == 2 and self._line_closed():
            return False
        domains = {i: self._domain(i, avail) & self.ends_at_most[i][2 - ends] for i in free}
        if not self.opts.revise(domains, list(domains), self.nbrs.__getitem__):
            return False
        if not distinct_tiles(list(domains.values())):
            return False
        if ends + sum(not domains[i] & self.ends_at_most[i][0] for i in free) > 2:
            return False
        i = min(free, key=lambda c: domains[c].bit_count())
        options = bits(domains[i])
        self.budget.shuffle(options)
        comp = self.comp
        for o in options:
            more = self._link(i, o)
            if more >= 0 and ends + more <= 2:
                if self._search(avail & ~self.opts.tile_mask[o // 6], ends + more):
                    return True
            self.assign[i] = -1
            self.comp = comp
        return False

    def _line_closed(self) -> bool:
        """True when the line's two ends are already joined while some tiles are still off it."""
        at = [i for i, o in enumerate(self.assign) if o >= 0 and self.ends[i][o]]
        comp = self.comp
        return len(at) == 1 or comp[at[0]] == comp[at[1]]
