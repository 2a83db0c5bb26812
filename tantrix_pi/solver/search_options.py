"""What the puzzle searches share: (tile, turn) options as bits of an int, and the search budget.

Option `6 * i + rot` is the i-th tile of the puzzle turned by `rot`; a set of options is an int with
those bits set, so that "which unused tiles could go here" is a handful of `&` operations.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence

from tantrix_pi.tiles import TILES

COLOUR_INDEX = {"R": 0, "Y": 1, "G": 2, "B": 3}


class Timeout(Exception):
    """The search ran past its deadline."""


class GiveUp(Exception):
    """The search used up its node budget (a restart is due)."""


class Options:
    """The colours every (tile, turn) option shows, as per-direction bit masks, for a goal colour."""

    def __init__(self, tiles: Sequence[int], colour: str) -> None:
        self.tiles = list(tiles)
        self.colour = colour
        n = len(self.tiles)
        goal = COLOUR_INDEX[colour]
        self.index = {t: i for i, t in enumerate(self.tiles)}
        self.feasible = all(colour in TILES[t].edges for t in self.tiles)
        self.cols: list[tuple[int, ...]] = []
        """cols[o][d]: colour index option o shows in direction d."""
        self.face = [[0] * 4 for _ in range(6)]
        """face[d][k]: options showing colour k in direction d."""
        self.other: list[list[int]] = []
        """other[o][d]: where the goal-colour arc entering option o at d leaves it (-1: not that colour)."""
        for i, t in enumerate(self.tiles):
            for rot in range(6):
                o = 6 * i + rot
                cols = tuple(COLOUR_INDEX[TILES[t].colour(d, rot)] for d in range(6))
                self.cols.append(cols)
                for d in range(6):
                    self.face[d][cols[d]] |= 1 << o
                ends = [d for d in range(6) if cols[d] == goal]
                other = [-1] * 6
                if len(ends) == 2:
                    other[ends[0]], other[ends[1]] = ends[1], ends[0]
                self.other.append(other)
        self.tile_mask = [0b111111 << (6 * i) for i in range(n)]
        self.all = (1 << (6 * n)) - 1
        self.goal_face = [self.face[d][goal] for d in range(6)]
        self.no_goal = [self.all & ~self.goal_face[d] for d in range(6)]

    def candidates(self, facing: Sequence[int | None], avail: int) -> int:
        """Options among `avail` matching the colour index each direction is faced with (None: free)."""
        mask = avail
        for d, k in enumerate(facing):
            if k is not None:
                mask &= self.face[d][k]
        return mask

    def supported(self, d: int, neighbour: int) -> int:
        """Options whose colour in direction d some option of the `neighbour` set can match."""
        back = self.face[(d + 3) % 6]
        allowed = 0
        for k in range(4):
            if neighbour & back[k]:
                allowed |= self.face[d][k]
        return allowed

    def revise(self, domains: dict[int, int], todo: Iterable[int], around: Callable[[int], Sequence[int]]) -> bool:
        """Arc consistency over `domains` (cell -> option set), starting from the cells in `todo`: drop the
        options whose colour no option of a neighbouring cell can match. `around(z)` lists the six cells
        next to z in direction order. False when some cell is left without options."""
        todo = list(todo)
        queued = set(todo)
        while todo:
            z = todo.pop()
            queued.discard(z)
            nbrs = around(z)
            mask = domains[z]
            for d, nb in enumerate(nbrs):
                other = domains.get(nb)
                if other is not None:
                    mask &= self.supported(d, other)
            if mask != domains[z]:
                if not mask:
                    return False
                domains[z] = mask
                for nb in nbrs:
                    if nb in domains and nb not in queued:
                        queued.add(nb)
                        todo.append(nb)
        return True


class Budget:
    """Counts search nodes; raises Timeout past the deadline and GiveUp past the node limit."""

    def __init__(self, deadline: float | None = None, max_nodes: int | None = None, seed: int | None = None):
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.nodes = 0
        self.rng = random.Random(seed) if seed is not None else None

    def tick(self) -> None:
        """One more node."""
        self.nodes += 1
        if self.deadline is not None and self.nodes & 255 == 0 and time.monotonic() > self.deadline:
            raise Timeout
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise GiveUp

    def shuffle(self, items: list) -> None:
        """Shuffle in place when the search is randomised."""
        if self.rng:
            self.rng.shuffle(items)


def bits(mask: int) -> list[int]:
    """Positions of the set bits of mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


TILE_BITS = sum(1 << (6 * i) for i in range(64))


def distinct_tiles(options: list[int]) -> bool:
    """True when each cell can get a different tile: a matching of cells to tiles (Kuhn's algorithm).

    Each entry is one cell's bit mask of options, 6 bits per tile.
    """
    cells = []
    for mask in options:
        tiles = 0
        for k in range(6):
            tiles |= mask >> k
        cells.append(tiles & TILE_BITS)
    owner: dict[int, int] = {}

    def augment(c: int, seen: list[int]) -> bool:
        free = cells[c] & ~seen[0]
        while free:
            bit = free & -free
            free ^= bit
            seen[0] |= bit
            if bit not in owner or augment(owner[bit], seen):
                owner[bit] = c
                return True
        return False

    for c in sorted(range(len(cells)), key=lambda c: cells[c].bit_count()):
        if not augment(c, [0]):
            return False
    return True
