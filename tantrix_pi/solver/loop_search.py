"""Depth-first search for a hole-free loop of one colour through every tile of a set.

The loop is grown as a walk of cells from a start tile. Every tile's loop-colour arc turns the walk by
0 (straight), 1 (bend) or 2 (sharp) sixths, left or right. The walk is kept clockwise (total turning
+6 sixths), so the inside of the loop lies on its right. A hole-free loop through all the tiles
encloses no cell at all, so every neighbour on the inside of a turn must itself be a loop cell: such
cells become "must" cells that the walk has to reach. The search prunes with
- options: every cell the loop must still pass keeps the unused (tile, turn) options that match its
  neighbours (bit masks), arc consistent with the options of neighbouring such cells; a cell whose
  options all send the loop to an empty neighbour makes that neighbour a must cell too; the cells
  must be able to get different tiles (bipartite matching);
- distance: the rest of the walk can still pass every must cell and get back to the start;
- turning: the rest of the tiles can still bring the total turning to +6;
- enclosed empty regions: a region cut off by tiles is a hole unless the walk is inside it and
  fills it exactly.
Once the must cells are all the cells left to fill, the shape is known: they are filled as a
constraint problem (fewest options first) and the loop is traced at the end. The walk tries first
the options that lead it into a must cell, which keeps the shape tight. Fixed placements (a partly
built board, for hints) are walked through when the loop reaches them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import DIRECTIONS
from tantrix_pi.solver.search_options import Budget, Options, bits, distinct_tiles
from tantrix_pi.tiles import TILES

# turn of the walk, in sixths clockwise, for (exit - entry movement) mod 6; 3 would be a U-turn
TURN_OF = (0, 1, 2, None, -2, -1)
ABS_TURN = {"straight": 0, "bend": 1, "sharp": 2}


class LoopSearch:
    """All hole-free loops of `colour` through every tile of `tiles`, optionally containing `fixed`.

    Without fixed placements the first tile is put on (0, 0) unturned, so every board is produced
    once up to a move and a turn. With fixed placements their cells and turns are kept as given.
    """

    def __init__(self, tiles: Sequence[int], colour: str, fixed: Iterable[Placement] = (),
                 budget: Budget | None = None) -> None:
        self.tiles = list(tiles)
        self.colour = colour
        self.fixed = list(fixed)
        self.budget = budget or Budget()
        self.opts = opts = Options(tiles, colour)
        self.index, self.feasible, self.tile_mask = opts.index, opts.feasible, opts.tile_mask
        self.cols, self.face, self.other = opts.cols, opts.face, opts.other
        self.loop_face, self.no_loop = opts.goal_face, opts.no_goal
        self.abs_turn = [
            next((ABS_TURN[a.shape] for a in TILES[t].arcs if a.colour == colour), 0) for t in self.tiles
        ]
        radius = len(self.tiles) + 3 + max((max(abs(p.q), abs(p.r), abs(p.q + p.r)) for p in self.fixed),
                                           default=0)
        self.width = w = 2 * radius + 1
        self.origin = radius * w + radius
        self.delta = [dq * w + dr for dq, dr in DIRECTIONS]
        self.qs = [i // w - radius for i in range(w * w)]
        self.rs = [i % w - radius for i in range(w * w)]

    def _idx(self, q: int, r: int) -> int:
        return self.origin + q * self.width + r

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
        if self.fixed and Board(self.fixed).mismatches():
            return False
        if self.fixed:
            start = self._idx(self.fixed[0].q, self.fixed[0].r)
            o = occ[start]
        else:
            start, o = self.origin, 0
        self.pending = pending
        ends = [d for d in range(6) if self.other[o][d] >= 0]
        self.budget.shuffle(ends)
        return any(self._start(start, o, exit_dir, avail) for exit_dir in ends)

    def _start(self, start: int, o: int, exit_dir: int, avail: int) -> bool:
        occ = self.occ
        was_fixed = start in self.pending
        occ[start] = o
        self.pending.discard(start)
        entry = self.other[o][exit_dir]
        self.start = start
        self.sin = start + self.delta[entry]
        din = self.first_din = (entry + 3) % 6
        tau = TURN_OF[(exit_dir - din) % 6]
        must = {self.sin} if occ[self.sin] < 0 else set()
        for k in range(1, 3 - tau):
            c = start + self.delta[(exit_dir + k) % 6]
            if occ[c] < 0:
                must.add(c)
        for c in self.pending - {start}:
            for d in range(6):
                if self.other[occ[c]][d] >= 0 and occ[c + self.delta[d]] < 0:
                    must.add(c + self.delta[d])
        self.must = must
        i = o // 6
        self.path = [start]
        q, r = self.qs[start], self.rs[start]
        self.box = [q, q, r, r, -q - r, -q - r]
        for c in self.pending:
            self._grow_box(c)
        rem_abs = sum(self.abs_turn) - self.abs_turn[i]
        m = len(self.tiles) - 1
        avail &= ~self.tile_mask[i]
        ny = start + self.delta[exit_dir]
        try:
            if occ[ny] >= 0 and ny not in self.pending:
                return False
            domains = self._narrow({}, None, must | ({ny} - self.pending), avail, m)
            return domains is not None and self._step(ny, exit_dir, m, tau, rem_abs, avail, domains)
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

    def _step(self, y: int, din: int, m: int, turning: int, rem_abs: int, avail: int,
              domains: dict[int, int]) -> bool:
        """Fill cell y, entered moving in direction din; m tiles (this one included) remain."""
        self.budget.tick()
        occ = self.occ
        entry = (din + 3) % 6
        fixed = y in self.pending
        if fixed:
            options = [occ[y]]
        else:
            if y == self.sin and m != 1:
                return False
            options = bits(domains[y])
            self.budget.shuffle(options)
            # walking into a cell the loop must pass anyway keeps the shape tight
            options.sort(key=lambda o: y + self.delta[self.other[o][entry]] not in domains)
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
            if self._place(y, o, x, tau, m - 1, turning2, rem_abs2, avail & ~self.tile_mask[i], fixed, domains):
                return True
        return False

    def _place(self, y: int, o: int, x: int, tau: int, m: int, turning: int, rem_abs: int, avail: int,
               fixed: bool, parent: dict[int, int]) -> bool:
        """Put option o on y (the loop leaves it in direction x), check the rest can close, go on."""
        occ, delta, must, pending = self.occ, self.delta, self.must, self.pending
        ny = y + delta[x]
        if m == 0:
            if ny != self.start or turning != 6:
                return False
        elif occ[ny] >= 0 and ny not in pending:
            return False
        box = list(self.box)
        if fixed:
            pending.discard(y)
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
                placements = self._placements(self.path)
                if self.fixed and Board(placements).holes():
                    return False
                if not self.fixed and self._encloses(y, ny, m):
                    return False
                return self.on_solution(placements)
            if not self._reachable(ny, m):
                return False
            if not (fixed or pending) and self._encloses(y, ny, m):
                return False
            required = must if ny in pending else must | {ny}
            domains = self._narrow(parent, None if fixed else y, required, avail, m)
            if domains is None:
                return False
            if len(domains) + len(pending) == m:
                return not self._has_hole(domains) and self._fill(domains, avail)
            return self._step(ny, x, m, turning, rem_abs, avail, domains)
        finally:
            for c in added:
                must.discard(c)
            if removed:
                must.add(y)
            self.path.pop()
            self.box = box
            if fixed:
                pending.add(y)
            else:
                occ[y] = -1

    def _reachable(self, ny: int, m: int) -> bool:
        """Whether a walk of m cells from ny can pass every must cell and end next to the start."""
        must, pending, sin = self.must, self.pending, self.sin
        if len(must) + len(pending) > m:
            return False
        qs, rs = self.qs, self.rs
        budget = m - 1
        q0, r0, q1, r1 = qs[ny], rs[ny], qs[sin], rs[sin]
        if (abs(q0 - q1) + abs(r0 - r1) + abs(q0 + r0 - q1 - r1)) // 2 > budget:
            return False
        budget *= 2
        for group in (must, pending):
            for z in group:
                q, r = qs[z], rs[z]
                if (abs(q0 - q) + abs(r0 - r) + abs(q0 + r0 - q - r)
                        + abs(q1 - q) + abs(r1 - r) + abs(q1 + r1 - q - r)) > budget:
                    return False
        return True

    def _narrow(self, parent: dict[int, int], placed: int | None, required: set[int], avail: int,
                m: int) -> dict[int, int] | None:
        """The options left for every empty cell the loop must still pass, or None when one has none.

        Starts from the parent's options, less the tiles used and what the tile just placed on
        `placed` rules out, adds the `required` cells, and keeps arc consistency between neighbouring
        cells. A cell all of whose options send the loop towards an empty neighbour makes that
        neighbour a loop cell too. Once these cells number all `m` tiles still to place, no loop arc
        may point at any other empty cell. Finally every cell must be able to get a different tile.
        """
        occ, delta, face = self.occ, self.delta, self.face
        domains = {z: mask & avail for z, mask in parent.items() if z != placed}
        if placed is not None:
            pcols = self.cols[occ[placed]]
            for d in range(6):
                z = placed + delta[d]
                if z in domains:
                    domains[z] &= face[(d + 3) % 6][pcols[d]]
        changed = [z for z, mask in domains.items() if mask != parent[z]]
        fresh = [z for z in required if z not in domains]
        limit = m - len(self.pending)
        exact = False
        while True:
            for z in fresh:
                domains[z] = self._candidates(z, avail)
            if len(domains) > limit:
                return None
            if not exact and len(domains) == limit:
                exact = True
                no_loop = self.no_loop
                for z, mask in domains.items():
                    for d in range(6):
                        nb = z + delta[d]
                        if occ[nb] < 0 and nb not in domains:
                            mask &= no_loop[d]
                    if mask != domains[z]:
                        domains[z] = mask
                        changed.append(z)
            todo = set(fresh)
            for z in changed + fresh:
                if not domains[z]:
                    return None
                for d in delta:
                    if z + d in domains:
                        todo.add(z + d)
            if not self.opts.revise(domains, todo, self._around):
                return None
            if exact:
                break
            loop_face = self.loop_face
            fresh = []
            for z, mask in domains.items():
                for d in range(6):
                    nb = z + delta[d]
                    if occ[nb] < 0 and nb not in domains and mask & loop_face[d] == mask and nb not in fresh:
                        fresh.append(nb)
            if not fresh:
                break
            changed = []
        if len(domains) > 1 and not distinct_tiles(list(domains.values())):
            return None
        return domains

    def _around(self, z: int) -> list[int]:
        return [z + dd for dd in self.delta]

    # -- once every remaining cell is known: constraint search over those cells ------------------------
    def _has_hole(self, future: Iterable[int]) -> bool:
        """True when the tiles placed so far plus the `future` cells would enclose an empty cell."""
        occ, delta, qs, rs = self.occ, self.delta, self.qs, self.rs
        filled = set(future)
        cells = filled | {c for c in self.path} | self.pending
        qlo, qhi = min(qs[c] for c in cells) - 1, max(qs[c] for c in cells) + 1
        rlo, rhi = min(rs[c] for c in cells) - 1, max(rs[c] for c in cells) + 1
        first = self._idx(qlo, rlo)
        seen = {first}
        todo = [first]
        while todo:
            c = todo.pop()
            for d in delta:
                nb = c + d
                if nb in seen or occ[nb] >= 0 or nb in filled:
                    continue
                if qlo <= qs[nb] <= qhi and rlo <= rs[nb] <= rhi:
                    seen.add(nb)
                    todo.append(nb)
        inside = (qhi - qlo + 1) * (rhi - rlo + 1) - len(cells)
        return len(seen) != inside

    def _fill(self, domains: dict[int, int], avail: int) -> bool:
        """Give every cell of `domains` a tile (fewest options first), then check the loop."""
        if not domains:
            cells = self._trace()
            return cells is not None and self.on_solution(self._placements(cells))
        z = min(domains, key=lambda c: domains[c].bit_count())
        options = bits(domains[z])
        self.budget.shuffle(options)
        m = len(domains) - 1 + len(self.pending)
        for o in options:
            self.budget.tick()
            self.occ[z] = o
            left = avail & ~self.tile_mask[o // 6]
            try:
                sub = self._narrow(domains, z, set(), left, m)
                if sub is not None and self._fill(sub, left):
                    return True
            finally:
                self.occ[z] = -1
        return False

    def _trace(self) -> list[int] | None:
        """The cells of the loop from the start, when it is one clockwise loop through every tile."""
        occ, delta, other = self.occ, self.delta, self.other
        c, din = self.start, self.first_din
        cells = []
        turning = 0
        for _ in range(len(self.tiles)):
            x = other[occ[c]][(din + 3) % 6]
            if x < 0:
                return None
            cells.append(c)
            turning += TURN_OF[(x - din) % 6]
            c, din = c + delta[x], x
            if c == self.start:
                break
        if c != self.start or len(cells) != len(self.tiles) or turning != 6:
            return None
        return cells

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

    def _placements(self, cells: list[int]) -> list[Placement]:
        out = []
        for c in cells:
            o = self.occ[c]
            out.append(Placement(self.tiles[o // 6], self.qs[c], self.rs[c], o % 6))
        return out
