"""Depth-first search for a hole-free loop of one colour through every tile of a set.

The loop is grown as a walk of cells from a start tile. Every tile's loop-colour arc turns the walk by
0 (straight), 1 (bend) or 2 (sharp) sixths, left or right. The walk is kept clockwise (total turning
+6 sixths), so the inside of the loop lies on its right. A hole-free loop through all the tiles
encloses no cell at all, so every neighbour on the inside of a turn must itself be a loop cell: such
cells become "must" cells that the walk has to reach. The search prunes with
- colour feasibility: every must cell keeps at least one unused tile and turn that matches its
  neighbours (bit masks over (tile, turn) options);
- distance: the rest of the walk can still pass every must cell and get back to the start;
- turning: the rest of the tiles can still bring the total turning to +6;
- enclosed empty regions: a region cut off by tiles is a hole unless the walk is inside it and
  fills it exactly.
Fixed placements (a partly built board, for hints) are walked through when the loop reaches them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import DIRECTIONS
from tantrix_pi.tiles import TILES

COLOUR_INDEX = {"R": 0, "Y": 1, "G": 2, "B": 3}
# turn of the walk, in sixths clockwise, for (exit - entry movement) mod 6; 3 would be a U-turn
TURN_OF = (0, 1, 2, None, -2, -1)
ABS_TURN = {"straight": 0, "bend": 1, "sharp": 2}


class Timeout(Exception):
    """The search ran past its deadline."""


class LoopSearch:
    """All hole-free loops of `colour` through every tile of `tiles`, optionally containing `fixed`.

    Without fixed placements the first tile is put on (0, 0) unturned, so every board is produced
    once up to a move and a turn. With fixed placements their cells and turns are kept as given.
    """

    def __init__(self, tiles: Sequence[int], colour: str, fixed: Iterable[Placement] = (),
                 deadline: float | None = None, seed: int | None = None) -> None:
        self.tiles = list(tiles)
        self.colour = colour
        self.fixed = list(fixed)
        self.deadline = deadline
        self.rng = random.Random(seed) if seed is not None else None
        self.nodes = 0
        self._prepare()

    # -- tables -------------------------------------------------------------------------------
    def _prepare(self) -> None:
        n = len(self.tiles)
        loop = COLOUR_INDEX[self.colour]
        self.index = {t: i for i, t in enumerate(self.tiles)}
        self.cols = []
        self.face = [[0] * 4 for _ in range(6)]
        self.other = []
        self.feasible = all(self.colour in TILES[t].edges for t in self.tiles)
        for i, t in enumerate(self.tiles):
            for rot in range(6):
                o = 6 * i + rot
                cols = tuple(COLOUR_INDEX[TILES[t].colour(d, rot)] for d in range(6))
                self.cols.append(cols)
                for d in range(6):
                    self.face[d][cols[d]] |= 1 << o
                ends = [d for d in range(6) if cols[d] == loop]
                other = [-1] * 6
                if len(ends) == 2:
                    other[ends[0]], other[ends[1]] = ends[1], ends[0]
                self.other.append(other)
        self.abs_turn = [
            next((ABS_TURN[a.shape] for a in TILES[t].arcs if a.colour == self.colour), 0) for t in self.tiles
        ]
        self.tile_mask = [0b111111 << (6 * i) for i in range(n)]
        radius = n + 3 + max((max(abs(p.q), abs(p.r), abs(p.q + p.r)) for p in self.fixed), default=0)
        self.width = w = 2 * radius + 1
        self.origin = radius * w + radius
        self.delta = [dq * w + dr for dq, dr in DIRECTIONS]
        self.qs = [i // w - radius for i in range(w * w)]
        self.rs = [i % w - radius for i in range(w * w)]

    def _idx(self, q: int, r: int) -> int:
        return self.origin + q * self.width + r

    def _distance(self, a: int, b: int) -> int:
        dq, dr = self.qs[a] - self.qs[b], self.rs[a] - self.rs[b]
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    # -- entry points -----------------------------------------------------------------------------
    def run(self, on_solution: Callable[[list[Placement]], bool]) -> bool:
        """Call `on_solution` with each loop's placements until it returns True; True when it did."""
        if not self.feasible or not self.tiles:
            return False
        occ = [-1] * (self.width * self.width)
        self.occ = occ
        self.on_solution = on_solution
        pending = set()
        avail = 0
        for i in range(len(self.tiles)):
            avail |= self.tile_mask[i]
        for p in self.fixed:
            i = self.index.get(p.tile)
            if i is None:
                return False
            c = self._idx(p.q, p.r)
            occ[c] = 6 * i + p.rot
            pending.add(c)
            avail &= ~self.tile_mask[i]
        if self.fixed:
            start = self._idx(self.fixed[0].q, self.fixed[0].r)
            starts = [(start, occ[start])]
        else:
            start = self.origin
            starts = [(start, 0)]
        self.pending = pending
        for start, o in starts:
            ends = [d for d in range(6) if self.other[o][d] >= 0]
            if not ends:
                return False
            if self.rng:
                self.rng.shuffle(ends)
            for exit_dir in ends:
                if self._start(start, o, exit_dir, avail):
                    return True
        return False

    def _start(self, start: int, o: int, exit_dir: int, avail: int) -> bool:
        occ = self.occ
        was_fixed = start in self.pending
        occ[start] = o
        self.pending.discard(start)
        entry = self.other[o][exit_dir]
        self.start = start
        self.sin = start + self.delta[entry]
        din = (entry + 3) % 6
        tau = TURN_OF[(exit_dir - din) % 6]
        must = {self.sin} if occ[self.sin] < 0 else set()
        for k in range(1, 3 - tau):
            c = start + self.delta[(exit_dir + k) % 6]
            if occ[c] < 0:
                must.add(c)
        self.must = must
        i = o // 6
        self.path = [start]
        q, r = self.qs[start], self.rs[start]
        self.box = [q, q, r, r, -q - r, -q - r]
        for c in self.pending:
            self._grow_box(c)
        rem_abs = sum(self.abs_turn) - self.abs_turn[i]
        n = len(self.tiles)
        try:
            return self._step(start + self.delta[exit_dir], exit_dir, n - 1, tau, rem_abs, avail & ~self.tile_mask[i])
        finally:
            if was_fixed:
                self.pending.add(start)
            else:
                occ[start] = -1

    def _grow_box(self, c: int) -> None:
        q, r = self.qs[c], self.rs[c]
        b = self.box
        b[0], b[1] = min(b[0], q), max(b[1], q)
        b[2], b[3] = min(b[2], r), max(b[3], r)
        b[4], b[5] = min(b[4], -q - r), max(b[5], -q - r)

    # -- the walk ---------------------------------------------------------------------------------
    def _candidates(self, y: int, avail: int) -> int:
        occ, delta, face, cols = self.occ, self.delta, self.face, self.cols
        mask = avail
        for d in range(6):
            o2 = occ[y + delta[d]]
            if o2 >= 0:
                mask &= face[d][cols[o2][(d + 3) % 6]]
        return mask

    def _step(self, y: int, din: int, m: int, turning: int, rem_abs: int, avail: int) -> bool:
        """Fill cell y, entered moving in direction din; m tiles (this one included) remain."""
        self.nodes += 1
        if self.deadline is not None and self.nodes & 1023 == 0 and time.monotonic() > self.deadline:
            raise Timeout
        occ = self.occ
        entry = (din + 3) % 6
        if y in self.pending:
            options = [occ[y]]
            fixed = True
        else:
            if y == self.sin and m != 1:
                return False
            mask = self._candidates(y, avail)
            options = []
            while mask:
                low = mask & -mask
                options.append(low.bit_length() - 1)
                mask ^= low
            if self.rng:
                self.rng.shuffle(options)
            fixed = False
        for o in options:
            x = self.other[o][entry]
            if x < 0:
                continue
            tau = TURN_OF[(x - din) % 6]
            i = o // 6
            turning2 = turning + tau
            rem_abs2 = rem_abs - self.abs_turn[i]
            if abs(6 - turning2) > rem_abs2:
                continue
            if self._place(y, o, x, tau, m - 1, turning2, rem_abs2, avail & ~self.tile_mask[i], fixed):
                return True
        return False

    def _place(self, y: int, o: int, x: int, tau: int, m: int, turning: int, rem_abs: int, avail: int,
               fixed: bool) -> bool:
        occ, delta, must = self.occ, self.delta, self.must
        ny = y + delta[x]
        if m == 0:
            if ny != self.start or turning != 6:
                return False
        elif occ[ny] >= 0 and ny not in self.pending:
            return False
        box = list(self.box)
        if fixed:
            self.pending.discard(y)
        else:
            occ[y] = o
            self._grow_box(y)
        self.path.append(y)
        added = []
        removed = y in must
        if removed:
            must.discard(y)
        for k in range(1, 3 - tau):
            c = y + delta[(x + k) % 6]
            if occ[c] < 0 and c not in must:
                must.add(c)
                added.append(c)
        try:
            if m == 0:
                placements = self._placements()
                if self.fixed and Board(placements).holes():
                    return False
                if not self.fixed and self._encloses(y, ny, m):
                    return False
                return self.on_solution(placements)
            if not self._hopeful(y, ny, m, avail, fixed):
                return False
            return self._step(ny, x, m, turning, rem_abs, avail)
        finally:
            for c in added:
                must.discard(c)
            if removed:
                must.add(y)
            self.path.pop()
            self.box = box
            if fixed:
                self.pending.add(y)
            else:
                occ[y] = -1

    def _hopeful(self, y: int, ny: int, m: int, avail: int, fixed: bool) -> bool:
        """False when the walk, about to enter ny with m tiles left, provably cannot close."""
        must, pending, sin = self.must, self.pending, self.sin
        if len(must) + len(pending) > m:
            return False
        dist = self._distance
        budget = m - 1
        if dist(ny, sin) > budget:
            return False
        for z in must:
            if dist(ny, z) + dist(z, sin) > budget:
                return False
            if z != ny and not self._candidates(z, avail):
                return False
        for z in pending:
            if dist(ny, z) + dist(z, sin) > budget:
                return False
        if ny not in pending and not self._candidates(ny, avail):
            return False
        return fixed or bool(pending) or not self._encloses(y, ny, m)

    def _encloses(self, y: int, ny: int, m: int) -> bool:
        """True when the tile on y cut off an empty region the walk cannot fill exactly."""
        occ, delta = self.occ, self.delta
        empty = [occ[y + delta[d]] < 0 for d in range(6)]
        runs = [d for d in range(6) if empty[d] and not empty[d - 1]]
        if len(runs) < 2:
            return False
        qs, rs = self.qs, self.rs
        qlo, qhi, rlo, rhi, slo, shi = self.box
        seen: set[int] = set()
        for d in runs:
            first = y + delta[d]
            if first in seen:
                continue
            region = {first}
            todo = [first]
            escaped = False
            while todo and not escaped:
                c = todo.pop()
                q, r = qs[c], rs[c]
                if not (qlo <= q <= qhi and rlo <= r <= rhi and slo <= -q - r <= shi):
                    escaped = True
                    break
                for dd in delta:
                    nb = c + dd
                    if occ[nb] < 0 and nb not in region:
                        region.add(nb)
                        todo.append(nb)
            seen |= region
            if escaped:
                continue
            if m == 0 or ny not in region or self.sin not in region or len(region) != m:
                return True
        return False

    def _placements(self) -> list[Placement]:
        out = []
        for c in self.path:
            o = self.occ[c]
            out.append(Placement(self.tiles[o // 6], self.qs[c], self.rs[c], o % 6))
        return out
