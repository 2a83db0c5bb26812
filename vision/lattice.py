"""Fit the hex lattice to a group of tiles: orientation, spacing, offset, then a projective refinement.

A lattice is a 3x3 matrix H mapping unit grid space (`tantrix_pi.grid` with circumradius 1, pointy-top,
y down) to image pixels. It starts as a similarity (turn from the hexagons' edges mod 60 degrees, spacing
from the period of those edges, offset from the best cell coverage) and is refined by fitting the
outline of the occupied cells to the outline of the tiles (ICP), affine for a few tiles and projective
for a board, which absorbs a tilted camera.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from tantrix_pi.grid import DIRECTIONS, SQRT3, Cell, cells_at, centre, centres, edge_angle

EDGE_NORMALS = np.array([[math.cos(math.radians(edge_angle(d))), math.sin(math.radians(edge_angle(d)))]
                         for d in range(6)])
"""Outward normals of the six edges of a unit hexagon in grid space, by direction."""

INRADIUS = SQRT3 / 2

PROJECTIVE_MIN = 20
"""Boards of at least this many tiles get a projective lattice (a tilted camera); smaller ones an affine one."""


def _sample_pattern() -> np.ndarray:
    pts = [(0.0, 0.0)]
    for i in range(6):
        a = math.radians(-30.0 + 60.0 * i)
        for rad in (0.45, 0.8):
            pts.append((rad * math.cos(a), rad * math.sin(a)))
        b = math.radians(edge_angle(i))
        for rad in (0.45, 0.75):
            pts.append((rad * math.cos(b), rad * math.sin(b)))
    return np.array(pts)


PATTERN = _sample_pattern()
"""Points inside a unit hexagon (relative to its centre) whose share in the tile mask is the cell's coverage."""

SEARCH_PATTERN = PATTERN[[0] + [1 + 4 * i + k for i in range(6) for k in (1, 3)]]
"""A sparser pattern for the offset search: the centre and the outer ring."""


@dataclass
class Lattice:
    """The grid of one group of tiles: H (unit grid -> working image) and every cell's coverage."""

    H: np.ndarray
    coverage: dict[Cell, float]
    inside: dict[Cell, float]
    """Share of each cell's hexagon that lies inside the image frame."""

    def to_image(self, pts: np.ndarray) -> np.ndarray:
        """Map Nx2 grid points to image points."""
        return apply(self.H, pts)

    def cells(self, min_coverage: float) -> list[Cell]:
        return sorted(c for c, f in self.coverage.items() if f >= min_coverage)

    def tile_px(self, cell: Cell = (0, 0)) -> float:
        """Tile width across flats in the image at `cell`, from the lattice's local scale."""
        return SQRT3 * _local_scale(self.H, np.array(centre(cell)))


def apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a 3x3 projective map to Nx2 points."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    h = pts @ H[:2, :2].T + H[:2, 2]
    w = pts @ H[2, :2] + H[2, 2]
    return h / w[:, None]


def _local_scale(H: np.ndarray, g: np.ndarray) -> float:
    e = 1e-3
    p = apply(H, np.array([g, g + [e, 0], g + [0, e]]))
    u, v = p[1] - p[0], p[2] - p[0]
    return math.sqrt(abs(u[0] * v[1] - u[1] * v[0])) / e


def orientation(angles: np.ndarray, weights: np.ndarray) -> float:
    """The turn (radians, in [-30, 30) degrees) of the hexagons' edge normals, from outline normals mod 60."""
    z = np.sum(weights * np.exp(6j * angles))
    return float(np.angle(z) / 6.0)


def spacing_candidates(xy: np.ndarray, angles: np.ndarray, theta: float, lo: float, hi: float) -> list[float]:
    """Likely tile widths across flats: outline points of each edge family lie on lines w/2 apart."""
    if len(xy) < 12 or hi <= lo:
        return []
    periods = np.geomspace(lo / 2, hi / 2, 160)
    power = np.zeros_like(periods)
    for j in range(3):
        a = theta + j * math.pi / 3
        diff = np.angle(np.exp(1j * (angles - a) * 2)) / 2  # normal angle mod 180 degrees
        sel = np.abs(diff) < math.radians(12)
        if sel.sum() < 6:
            continue
        p = xy[sel] @ np.array([math.cos(a), math.sin(a)])
        p = p[:: max(1, len(p) // 400)].astype(np.float32)
        phase = (2 * np.pi) * p[None, :] / periods[:, None].astype(np.float32)
        coherence = np.hypot(np.cos(phase).mean(axis=1), np.sin(phase).mean(axis=1))
        power += coherence * math.sqrt(sel.sum())
    if not power.any():
        return []
    peaks = [i for i in range(1, len(power) - 1) if power[i] >= power[i - 1] and power[i] >= power[i + 1]]
    peaks = [i for i in peaks if power[i] > 0.45 * power.max()]
    peaks.sort(key=lambda i: -power[i])
    return [2 * float(periods[i]) for i in peaks[:6]]


def similarity(theta: float, tile_px: float, origin: tuple[float, float], offset: tuple[float, float]) -> np.ndarray:
    """H for a lattice turned by theta, tiles tile_px across flats, grid point -offset at image point origin."""
    s = tile_px / SQRT3
    c, n = math.cos(theta), math.sin(theta)
    H = np.array([[s * c, -s * n, 0.0], [s * n, s * c, 0.0], [0.0, 0.0, 1.0]])
    H[:2, 2] = np.array(origin) + H[:2, :2] @ np.array(offset)
    return H


def candidate_cells(H: np.ndarray, bbox: tuple[int, int, int, int], margin: float = 1.0) -> list[Cell]:
    """Cells whose centre maps into the box (x, y, w, h) grown by `margin` cells."""
    x, y, w, h = bbox
    pad = margin * _cell_px(H) * SQRT3
    box = np.array([[x - pad, y - pad], [x + w + pad, y - pad], [x - pad, y + h + pad], [x + w + pad, y + h + pad]])
    qr = cells_at(apply(np.linalg.inv(H), box))
    q0, r0 = qr.min(axis=0) - 2
    q1, r1 = qr.max(axis=0) + 2
    qq, rr = np.meshgrid(np.arange(q0, q1 + 1), np.arange(r0, r1 + 1))
    cells = np.column_stack([qq.ravel(), rr.ravel()])
    p = apply(H, centres(cells))
    ok = (p[:, 0] >= box[0, 0]) & (p[:, 0] <= box[1, 0]) & (p[:, 1] >= box[0, 1]) & (p[:, 1] <= box[2, 1])
    return [(int(a), int(b)) for a, b in cells[ok]]


def _cell_px(H: np.ndarray) -> float:
    return _local_scale(H, np.zeros(2))


def coverage(mask: np.ndarray, H: np.ndarray, cells: list[Cell],
             pattern: np.ndarray = PATTERN) -> tuple[np.ndarray, np.ndarray]:
    """For each cell: share of its sample points on the mask, and share of them inside the image."""
    if not cells:
        return np.zeros(0), np.zeros(0)
    pts = (centres(np.array(cells))[:, None, :] + pattern[None, :, :]).reshape(-1, 2)
    img = apply(H, pts)
    h, w = mask.shape
    xi = np.round(img[:, 0]).astype(int)
    yi = np.round(img[:, 1]).astype(int)
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    val = np.zeros(len(pts))
    val[ok] = mask[yi[ok], xi[ok]]
    k = len(pattern)
    return val.reshape(-1, k).mean(axis=1), ok.reshape(-1, k).mean(axis=1)


def best_offset(mask: np.ndarray, theta: float, tile_px: float, origin: tuple[float, float],
                bbox: tuple[int, int, int, int], steps: int = 8) -> tuple[np.ndarray | None, float]:
    """The similarity lattice whose cells are most clearly full or empty, with its cost (0 is perfect)."""
    a1, a2 = np.array(centre((1, 0))), np.array(centre((0, 1)))
    H0 = similarity(theta, tile_px, origin, (0.0, 0.0))
    cells = np.array(candidate_cells(H0, bbox, margin=0.3))
    if len(cells) == 0:
        return None, math.inf
    u, v = np.meshgrid(np.arange(steps) / steps, np.arange(steps) / steps)
    offsets = u.reshape(-1, 1) * a1 + v.reshape(-1, 1) * a2
    local = (centres(cells)[:, None, :] + SEARCH_PATTERN[None, :, :]).reshape(-1, 2)
    # H0 is a similarity, so shifting the grid by an offset shifts every image point by the same vector.
    img = (apply(H0, local)[None, :, :] + (offsets @ H0[:2, :2].T)[:, None, :]).reshape(-1, 2)
    h, w = mask.shape
    xi = (img[:, 0] + 0.5).astype(np.int32)
    yi = (img[:, 1] + 0.5).astype(np.int32)
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    val = np.zeros(len(img), dtype=np.float32)
    val[ok] = mask[yi[ok], xi[ok]]
    f = val.reshape(len(offsets), len(cells), len(SEARCH_PATTERN)).mean(axis=2)
    full = f.sum(axis=1)
    cost = np.minimum(f, 1 - f).sum(axis=1) / np.maximum(full, 1e-9)
    cost[full < 0.5] = math.inf
    i = int(np.argmin(cost))
    if not math.isfinite(cost[i]):
        return None, math.inf
    return similarity(theta, tile_px, origin, tuple(offsets[i])), float(cost[i])


def _key(c):
    return (np.asarray(c[0]) + 100_000) * 1_000_000 + np.asarray(c[1]) + 100_000


def _nearest_edges(g: np.ndarray, normals: np.ndarray, occupied: set[Cell]) -> tuple[np.ndarray, np.ndarray]:
    """For grid points on the outline of the occupied cells, facing the way that outline faces:
    (index, foot point on that outline)."""
    cells = cells_at(g)
    rel = g - centres(cells)
    proj = rel @ EDGE_NORMALS.T
    d = np.argmax(proj, axis=1)
    dist = proj[np.arange(len(g)), d] - INRADIUS
    near = np.abs(dist) <= 0.22
    keys = np.array([_key(c) for c in occupied])
    here = np.isin(_key(cells.T), keys)
    there = np.isin(_key((cells + np.array(DIRECTIONS)[d]).T), keys)
    # The outline faces out of the occupied cell: the point's outward normal must agree with the edge's.
    sign = np.where(here, 1.0, -1.0)
    facing = sign * np.sum(normals * EDGE_NORMALS[d], axis=1) > math.cos(math.radians(25))
    ok = near & (here != there) & facing
    idx = np.nonzero(ok)[0]
    feet = g[idx] - dist[idx, None] * EDGE_NORMALS[d[idx]]
    return idx, feet


def _affine_h(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    a = np.column_stack([src, np.ones(len(src))])
    sol, *_ = np.linalg.lstsq(a, dst, rcond=None)
    H = np.eye(3)
    H[:2, :] = sol.T
    return H


def refine(H: np.ndarray, occupied: set[Cell], xy: np.ndarray, angles: np.ndarray, mode: str,
           rounds: int = 5) -> np.ndarray:
    """Move H so the outline of the occupied cells lies on the outline points xy (image pixels, outward
    normal angles `angles`)."""
    if len(xy) > 4000:
        step = len(xy) // 4000 + 1
        xy, angles = xy[::step], angles[::step]
    normal_img = np.column_stack([np.cos(angles), np.sin(angles)])
    for _ in range(rounds):
        Hi = np.linalg.inv(H)
        g = apply(Hi, xy)
        # Normals map with the transpose of the forward map's linear part (perspective ignored locally).
        n = normal_img @ H[:2, :2]
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
        idx, feet = _nearest_edges(g, n, occupied)
        if len(idx) < 12:
            break
        if mode == "projective" and len(idx) >= 60:
            Hn, _ = cv2.findHomography(feet, xy[idx], 0)
            if Hn is None:
                break
            Hn = Hn / Hn[2, 2]
        elif mode == "similarity":
            m, _ = cv2.estimateAffinePartial2D(feet, xy[idx], method=cv2.LMEDS)
            if m is None:
                break
            Hn = np.vstack([m, [0.0, 0.0, 1.0]])
        else:
            Hn = _affine_h(feet, xy[idx])
        if np.linalg.det(Hn[:2, :2]) <= 0 or not _plausible(Hn, occupied):  # never a mirror image
            break
        H = Hn
    return H


def _plausible(H: np.ndarray, occupied: set[Cell]) -> bool:
    """A camera tilted at most ~25 degrees: tiles keep their shape and size within a third across the board."""
    pts = centres(np.array(sorted(occupied)))
    scales = [_local_scale(H, p) for p in (pts.min(axis=0), pts.max(axis=0), pts.mean(axis=0))]
    a = H[:2, :2] - np.outer(apply(H, np.zeros((1, 2)))[0], H[2, :2])
    sv = np.linalg.svd(a, compute_uv=False)
    return max(scales) < 1.35 * min(scales) and sv[1] > 0.7 * sv[0]


def _cost(mask: np.ndarray, H: np.ndarray, bbox) -> tuple[float, set[Cell]]:
    """How far the cells are from clearly full or empty (per full cell), and the occupied cells."""
    cells = candidate_cells(H, bbox)
    f, _ = coverage(mask, H, cells)
    full = float(f.sum())
    if full < 0.5:
        return math.inf, set()
    return float(np.minimum(f, 1 - f).sum() / full), {c for c, v in zip(cells, f, strict=True) if v >= 0.5}


def fitted_cost(mask: np.ndarray, lat: Lattice | None, bbox: tuple[int, int, int, int]) -> float:
    """How far the cells of a fitted lattice are from clearly full or empty (per full cell; inf for none)."""
    return math.inf if lat is None else _cost(mask, lat.H, bbox)[0]


def fit(mask: np.ndarray, xy: np.ndarray, angles: np.ndarray, theta: float, tile_px: float,
        bbox: tuple[int, int, int, int], origin: tuple[float, float]) -> Lattice | None:
    """The lattice of the tiles in `mask` (one connected group, outline points xy), or None when none fits.

    The similarity found by search is refined with more freedom step by step (similarity, affine, then
    projective for a big board), each step kept only when it explains the mask at least as well.
    """
    best = (None, math.inf)
    for tw in (0.92 * tile_px, tile_px, 1.08 * tile_px):
        H, cost = best_offset(mask, theta, tw, origin, bbox, steps=7)
        if H is not None and cost < best[1]:
            best = (H, cost)
    H = best[0]
    if H is None:
        return None
    cost, occupied = _cost(mask, H, bbox)
    if not occupied:
        return None
    modes = ["similarity", "affine"] + (["projective"] if len(occupied) >= PROJECTIVE_MIN else [])
    for mode in modes:
        Hn = refine(H, occupied, xy, angles, mode)
        cost_n, occ_n = _cost(mask, Hn, bbox)
        if occ_n and cost_n <= cost + 0.005:
            H, cost, occupied = Hn, cost_n, occ_n
    cells = candidate_cells(H, bbox)
    f, ins = coverage(mask, H, cells)
    keep = f > 0.05
    return Lattice(H, {c: float(v) for c, v, k in zip(cells, f, keep, strict=True) if k},
                   {c: float(v) for c, v, k in zip(cells, ins, keep, strict=True) if k})
