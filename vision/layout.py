"""Stage 2, the board from the tiles: which tiles touch, and the cell of each tile in its group.

Two tiles touch when their centres lie about one width apart along an edge normal of each and they are
turned alike, as the two tiles' own hexagons see it (their shape is the photo's foreshortening there): a local
test, so perspective (a phone held at 45 degrees), lens bend and hand-placed gaps do not matter. Their turns are
then settled by the directions between their centres. Walking the graph of touching tiles from its
best-linked tile, cheapest links first, gives every tile of a group its axial cell; a link that would put
a second tile on a taken cell is not followed. Groups are what the board, a player's row
of tiles or a loose tile each are; which one is the board is decided once the tiles are read.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace

import numpy as np

from tantrix_pi.grid import SQRT3, Cell, cells_at, centres, distance, neighbour, opposite, turn
from tantrix_pi.vision.config import GridConfig
from tantrix_pi.vision.hexagon import Hexagon, rotation, to_photo_each
from tantrix_pi.vision.seen import Seen


@dataclass(frozen=True)
class Link:
    """Tiles i and j touch through edge `di` of i's hexagon and edge `dj` of j's; `cost` 0 is perfect."""

    i: int
    j: int
    di: int
    dj: int
    cost: float


def _edge_towards(angle: float, hex_angle: float) -> tuple[int, float]:
    """The hexagon edge (0..5) whose normal points nearest `angle`, and how far off (degrees), for a hexagon
    whose edge 1 has its normal at `hex_angle`."""
    x = (angle - hex_angle) / 60.0 + 1.0
    d = round(x)
    return d % 6, abs(x - d) * 60.0


def _rot(a: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 2, 2) by the angles `a` (radians)."""
    c, s = np.cos(a), np.sin(a)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def _turn(m: np.ndarray, other: np.ndarray) -> np.ndarray:
    """How far (radians) the frames `other` are turned from the frames `m` (..., 2, 2), within m: under a tilt,
    image angles swing with the squash, turns within a hexagon's own frame do not."""
    r = np.linalg.solve(m, other)
    return np.arctan2(r[..., 1, 0] - r[..., 0, 1], r[..., 0, 0] + r[..., 1, 1])


def _in_frame(m: np.ndarray, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Photo offsets (..., 2) in the frames `m` (..., 2, 2): (distance in widths across flats, angle in degrees
    from the normal of edge 1)."""
    u = np.linalg.solve(m, offset[..., None])[..., 0]
    return np.hypot(u[..., 0], u[..., 1]) / SQRT3, np.degrees(np.arctan2(u[..., 1], u[..., 0]))


def _pairs(tiles: list[Seen], i: np.ndarray, j: np.ndarray) -> dict[str, np.ndarray]:
    """For tile pairs (i, j): how far j's hexagon is turned from i's (degrees, mod 60); their distance in widths
    and the directions from each to the other, in the frame of the pair's mean shape (a camera's tilt squashes
    both alike; each fit alone is noisier) turned as each one lies; and k, the turn that numbers j's edges as
    i's (`Hexagon.turned(k)`)."""
    m = np.array([t.hexagon.m for t in tiles])
    c = np.array([t.centre for t in tiles])
    ang = np.array([t.hexagon.angle for t in tiles])
    mi, mj = m[i], m[j]
    k = np.round((ang[j] - ang[i]) / 60.0)
    mj = mj @ _rot(np.radians(-60.0 * k))  # j's hexagon numbered as i's
    shape = (mi + mj) / 2.0
    delta = c[j] - c[i]
    ratio, _ = _in_frame(shape, delta)
    _, to_j = _in_frame(shape @ _rot(_turn(shape, mi)), delta)
    _, to_i = _in_frame(shape @ _rot(_turn(shape, mj)), -delta)
    twist = np.abs((np.degrees(_turn(mi, mj)) + 30.0) % 60.0 - 30.0)
    return {"twist": twist, "ratio": ratio, "to_j": to_j, "to_i": to_i, "k": k.astype(int) % 6}


def links(tiles: list[Seen], cfg: GridConfig) -> list[Link]:
    """Every pair of tiles that touch: a width apart, along an edge normal of each, as their own hexagons see it,
    and turned alike (tiles laid on one grid by hand twist a few degrees; loose tiles lying close at any angle
    do not)."""
    if len(tiles) < 2:
        return []
    c = np.array([t.centre for t in tiles])
    wd = np.array([t.hexagon.width for t in tiles])
    lo, hi = cfg.spacing
    reach = hi / math.cos(math.radians(cfg.most_tilt))  # in the photo, a tilt stretches nothing: it squashes
    d = np.hypot(*(c[:, None] - c[None]).transpose(2, 0, 1))
    i, j = np.nonzero(np.triu(d < reach * np.maximum(wd[:, None], wd[None]), 1))
    if not len(i):
        return []
    p = _pairs(tiles, i, j)
    out = []
    for n in np.nonzero((p["twist"] <= cfg.twist_tolerance) & (p["ratio"] > lo) & (p["ratio"] < hi))[0]:
        # the line between their centres meets an edge normal of each, each turned as it lies
        di, ei = _edge_towards(float(p["to_j"][n]), 0.0)
        dj, ej = _edge_towards(float(p["to_i"][n]), 0.0)
        if max(ei, ej) <= cfg.direction_tolerance:
            cost = (ei + ej) / cfg.direction_tolerance + abs(float(p["ratio"][n]) - 1.04) / (hi - lo)
            out.append(Link(int(i[n]), int(j[n]), di, (dj - int(p["k"][n])) % 6, float(cost)))
    return out


def settle_turns(tiles: list[Seen], found: list[Link], cfg: GridConfig) -> list[Seen]:
    """Each tile turned to agree with the directions to the tiles it touches.

    Touching tiles' centres lie along their edge normals, and a centre is found far more precisely than an
    outline: each such direction is a vote for the tile's turn (mod 60 degrees), as is its own outline's.
    A tile touching none keeps its own turn.
    """
    votes: list[list[float]] = [[] for _ in tiles]
    for lk in found:
        a = math.atan2(tiles[lk.j].centre[1] - tiles[lk.i].centre[1], tiles[lk.j].centre[0] - tiles[lk.i].centre[0])
        votes[lk.i].append(a)
        votes[lk.j].append(a + math.pi)
    out = []
    for t, a in zip(tiles, votes, strict=True):
        if not a:
            out.append(t)
            continue
        own = math.radians(t.hexagon.angle)
        z = cfg.own_turn_weight * np.exp(6j * own) + np.exp(6j * np.array(a)).sum()
        change = math.remainder(np.angle(z) / 6 - own, math.pi / 3)
        out.append(replace(t, hexagon=Hexagon.of(t.centre, rotation(change) @ t.hexagon.m)))
    return out


def place(tiles: list[Seen], cfg: GridConfig) -> list[Seen]:
    """Each tile with its group and its cell there, its hexagon renumbered so that edge d faces board
    direction d of its group."""
    found = links(tiles, cfg)
    tiles = settle_turns(tiles, found, cfg)
    adj: list[list[Link]] = [[] for _ in tiles]
    for lk in found:
        adj[lk.i].append(lk)
        adj[lk.j].append(Link(lk.j, lk.i, lk.dj, lk.di, lk.cost))
    group = [-1] * len(tiles)
    cell: list[Cell] = [(0, 0)] * len(tiles)
    offset = [0] * len(tiles)
    g = 0
    # best-linked tiles first: a group's walk starts in its middle, where links are many and sure
    for root in sorted(range(len(tiles)), key=lambda k: (-len(adj[k]), k)):
        if group[root] >= 0:
            continue
        group[root], cell[root], offset[root] = g, (0, 0), 0
        taken = {(0, 0)}
        heap = [(lk.cost, k, lk) for k, lk in enumerate(adj[root])]
        heapq.heapify(heap)
        n = len(heap)
        while heap:
            _, _, lk = heapq.heappop(heap)
            if group[lk.j] >= 0:
                continue
            d = (lk.di + offset[lk.i]) % 6
            here = neighbour(cell[lk.i], d)
            if here in taken:
                continue
            group[lk.j], cell[lk.j], offset[lk.j] = g, here, (opposite(d) - lk.dj) % 6
            taken.add(here)
            for nxt in adj[lk.j]:
                if group[nxt.j] < 0:
                    n += 1
                    heapq.heappush(heap, (nxt.cost, n, nxt))
        g += 1
    return [replace(t, group=group[i], cell=cell[i], hexagon=t.hexagon.turned(offset[i]))
            for i, t in enumerate(tiles)]


def join_split(tiles: list[Seen], cfg: GridConfig) -> list[Seen]:
    """Groups that continue a bigger group's own grid across a gap of one cell, merged into it.

    Glare washing out a row of tiles, an arm across the board, or a tile the network missed splits a
    board's graph in two. When a smaller group's tile nearest the bigger one lies on one of the bigger
    group's cells (its own grid extended from its nearest tile) and is turned like it, the smaller group is
    the same board: its cells and hexagons are carried over into the bigger group's grid.
    """
    sizes: dict[int, int] = {}
    for t in tiles:
        sizes[t.group] = sizes.get(t.group, 0) + 1
    out = list(tiles)
    for small in sorted(sizes, key=lambda g: sizes[g]):
        mine = [i for i, t in enumerate(out) if t.group == small]
        others = [i for i, t in enumerate(out) if t.group != small and sizes.get(t.group, 0) >= len(mine)]
        if not others:
            continue
        i, j = min(((i, j) for i in mine for j in others), key=lambda p: math.dist(out[p[0]].centre, out[p[1]].centre))
        a, b = out[i], out[j]
        if math.dist(a.centre, b.centre) > (cfg.join_cells + 0.5) * b.hexagon.width:
            continue
        big = [out[k] for k in range(len(out)) if out[k].group == b.group]
        u = np.linalg.solve(b.hexagon.m, np.array(a.centre) - b.centre) / spacing(big)
        step = cells_at(u)[0]
        if np.linalg.norm(u - centres(step[None])[0]) > cfg.join_off * SQRT3:
            continue
        k = round((a.hexagon.angle - b.hexagon.angle) / 60.0)
        if abs(a.hexagon.angle - b.hexagon.angle - 60.0 * k) > cfg.join_turn:
            continue
        anchor = (b.cell[0] + int(step[0]), b.cell[1] + int(step[1]))
        moved = {m: _moved(out[m].cell, a.cell, anchor, k) for m in mine}
        taken = {t.cell for t in big}
        if taken & set(moved.values()) or distance(anchor, b.cell) > cfg.join_cells:
            continue
        for m, cell in moved.items():
            out[m] = replace(out[m], group=b.group, cell=cell, hexagon=out[m].hexagon.turned(k % 6))
        sizes[b.group] += sizes.pop(small)
    return out


def _moved(cell: Cell, base: Cell, anchor: Cell, k: int) -> Cell:
    """`cell` of a group whose cell `base` lands on `anchor`, its grid turned by k sixths."""
    q, r = turn((cell[0] - base[0], cell[1] - base[1]), k % 6)
    return (anchor[0] + q, anchor[1] + r)


_STEPS = centres(np.array([neighbour((0, 0), d) for d in range(6)]))
"""Unit-hexagon offset of the next cell in each direction."""


def expected(group: list[Seen], cell: Cell, ratio: float | None = None) -> tuple[np.ndarray, float] | None:
    """Where (photo pixels) the centre of `cell` of a group lies, from its neighbours in that group, and the
    group's local width there; None when no neighbour is placed. `ratio`: the group's `spacing` (computed
    when not given)."""
    return expected_all(group, [cell], ratio)[0]


def expected_all(group: list[Seen], cells: list[Cell], ratio: float | None = None
                 ) -> list[tuple[np.ndarray, float] | None]:
    """`expected` of each of the `cells`."""
    by_cell = {t.cell: t for t in group}
    ratio = spacing(group) if ratio is None else ratio
    # each cell's placed neighbours, in the order of the directions from them to the cell
    steps = [[(by_cell[n], d) for d in range(6) if (n := neighbour(cell, opposite(d))) in by_cell] for cell in cells]
    pairs = [p for s in steps for p in s]
    if not pairs:
        return [None] * len(cells)
    guesses = to_photo_each([t.hexagon for t, _ in pairs], _STEPS[[d for _, d in pairs]] * ratio)
    widths = [t.hexagon.width for t, _ in pairs]
    out, i = [], 0
    for s in steps:
        k = len(s)
        out.append((np.mean(guesses[i:i + k], axis=0), float(np.mean(widths[i:i + k]))) if k else None)
        i += k
    return out


def spacing(group: list[Seen]) -> float:
    """Centre distance of the group's touching tiles in widths, each seen in its own hexagon (1 + the gaps
    between them)."""
    at = {t.cell: n for n, t in enumerate(group)}
    pairs = [(n, at[o]) for n, t in enumerate(group) for d in range(3) if (o := neighbour(t.cell, d)) in at]
    if not pairs:
        return 1.04
    i, j = (np.array(v) for v in zip(*pairs, strict=True))
    return float(np.median(_pairs(group, i, j)["ratio"]))
