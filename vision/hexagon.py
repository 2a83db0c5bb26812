"""A tile's top face in the photo, and how it is fitted to the network's outline map.

`Hexagon` maps the unit hexagon of conventions.md (pointy-top, circumradius 1, centred on 0, edge d's
normal at `grid.edge_angle(d)`) into the photo by an affine map: a tilted camera squashes a hexagon, and
an affine image of it is what a small tile looks like under perspective.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from tantrix_pi.grid import SQRT3, corners

UNIT_CORNERS = np.array(corners((0, 0), 1.0))
"""Corners of the unit hexagon; corner i lies between edges i and i + 1."""

_MIDS = (UNIT_CORNERS + np.roll(UNIT_CORNERS, 1, axis=0)) / 2
"""The unit hexagon's edge midpoints: a point lies inside when its product with each is at most the inradius squared."""

_ANGLES = np.radians(np.arange(0.0, 360.0, 5.0))
_RAYS = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1)
_RADII = np.linspace(0.55, 1.45, 37)
"""Samples along each ray from a centre, as shares of the first guess of the inradius (corners at 1.155)."""
_TURNS = np.radians(np.arange(0.0, 60.0, 1.0))
_EDGE_REACH = math.radians(21.0)
"""Rays within this angle of an edge's normal measure that edge."""
_FRAME = 1.5
"""An outline found this close (map pixels) to the map's border is where the map ends, the photo's frame for a
tile the frame cuts: it says nothing about the tile's edge there."""


@dataclass(frozen=True)
class Hexagon:
    """A tile's top face: `centre` (x, y) and the 2x2 `matrix` taking unit-hexagon offsets to photo offsets."""

    centre: tuple[float, float]
    matrix: tuple[tuple[float, float], tuple[float, float]]

    @classmethod
    def regular(cls, centre, radius: float, angle_deg: float) -> Hexagon:
        """A regular hexagon of circumradius `radius` whose edge 1 (E) has its normal at `angle_deg`."""
        m = radius * rotation(math.radians(angle_deg))
        return cls((float(centre[0]), float(centre[1])), _tuple(m))

    @classmethod
    def of(cls, centre, matrix: np.ndarray) -> Hexagon:
        """The hexagon with this centre and 2x2 matrix (numpy)."""
        return cls((float(centre[0]), float(centre[1])), _tuple(np.asarray(matrix)))

    @cached_property
    def m(self) -> np.ndarray:
        m = np.array(self.matrix)
        m.flags.writeable = False  # shared by every caller
        return m

    def to_photo(self, pts: np.ndarray) -> np.ndarray:
        """Unit-hexagon points (..., 2) in photo pixels."""
        return np.asarray(pts) @ self.m.T + np.array(self.centre)

    def corners(self) -> np.ndarray:
        """The six corners in the photo (corner i between edges i and i + 1)."""
        return self.to_photo(UNIT_CORNERS)

    @cached_property
    def width(self) -> float:
        """Mean width across flats, in photo pixels."""
        return float(SQRT3 * math.sqrt(abs(np.linalg.det(self.m))))

    @cached_property
    def angle(self) -> float:
        """Image angle (degrees) of the normal of edge 1 (E)."""
        v = self.m @ np.array([1.0, 0.0])
        return math.degrees(math.atan2(v[1], v[0]))

    def turned(self, k: int) -> Hexagon:
        """The same hexagon with its edges renumbered: edge d becomes edge d + k (a turn by k sixths of the
        unit hexagon, clockwise)."""
        return Hexagon(self.centre, _tuple(self.m @ rotation(math.radians(-60.0 * k))))


def to_photo_all(hexes: list[Hexagon], pts: np.ndarray) -> np.ndarray:
    """Unit-hexagon points (..., 2) in photo pixels in each of the hexagons: (hexagons, ..., 2)."""
    pts = np.asarray(pts, dtype=np.float64)
    if not hexes:
        return np.zeros((0, *pts.shape))
    matrices = np.stack([hx.m for hx in hexes])
    centres = np.array([hx.centre for hx in hexes]).reshape((len(hexes),) + (1,) * (pts.ndim - 1) + (2,))
    return np.einsum("hij,...j->h...i", matrices, pts) + centres


def to_photo_each(hexes: list[Hexagon], pts: np.ndarray) -> np.ndarray:
    """Unit-hexagon point i (N x 2) in photo pixels in hexagon i."""
    matrices = np.stack([hx.m for hx in hexes])
    return np.einsum("nij,nj->ni", matrices, np.asarray(pts, dtype=np.float64)) + np.array([hx.centre for hx in hexes])


def inside_any(hexes: list[Hexagon], pts: np.ndarray) -> np.ndarray:
    """Whether each photo point (..., 2) lies inside any of the hexagons."""
    pts = np.asarray(pts, dtype=np.float64)
    if not hexes:
        return np.zeros(pts.shape[:-1], bool)
    flat = pts.reshape(-1, 2)
    # a point's product with each edge midpoint in unit-hexagon terms, (p - c) M^-T mid, as one matrix product
    normals = np.ascontiguousarray(np.einsum("kj,hji->ikh", _MIDS, np.linalg.inv(np.stack([hx.m for hx in hexes]))))
    reach = flat @ normals.reshape(2, -1)  # (points, 6 midpoints x hexagons)
    reach -= np.einsum("ikh,hi->kh", normals, np.array([hx.centre for hx in hexes])).reshape(-1)
    inside = reach.reshape(len(flat), 6, len(hexes)).max(axis=1) <= 0.75
    return inside.any(axis=1).reshape(pts.shape[:-1])


def in_photo(pts: np.ndarray, shape) -> np.ndarray:
    """Whether each point (..., 2: x, y) lies within a picture of `shape` (its outer pixels' centres included)."""
    h, w = shape[:2]
    return (pts[..., 0] >= 0) & (pts[..., 0] <= w - 1) & (pts[..., 1] >= 0) & (pts[..., 1] <= h - 1)


def rotation(a: float) -> np.ndarray:
    """The 2x2 matrix turning image offsets by `a` radians (clockwise on the screen: y points down)."""
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


def _tuple(m: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]]:
    return ((float(m[0, 0]), float(m[0, 1])), (float(m[1, 0]), float(m[1, 1])))


def _wrap(a: np.ndarray) -> np.ndarray:
    """Angle (radians) from the nearest of six normals 60 degrees apart, in -30..30 degrees."""
    return (a + math.pi / 6) % (math.pi / 3) - math.pi / 6


_COS_OFF = np.cos(_wrap(_ANGLES[None, :] - _TURNS[:, None]))
"""(turns, angles): the cosine between each ray and the nearest edge normal of a hexagon at each turn (a ray meets
its outline at the inradius over it)."""


def fit(boundary: np.ndarray, centres: np.ndarray, widths: np.ndarray, iterations: int = 2
        ) -> tuple[list[Hexagon], np.ndarray]:
    """Hexagons (in the map's pixels) fitted to the outline probabilities around each centre, and the mean
    outline probability along each (its support: low where the network saw no outline).

    Rays from the centre find where the outline is in every direction; the hexagon whose outline follows
    those points best gives the turn, then each edge's own points give its distance from the centre, and
    opposite edges re-centre the hexagon. Edges are parallel in pairs with normals 60 degrees apart, their
    distances free: a tilted camera's squash is kept. An edge beyond the map's border (a tile the photo's frame
    cuts) is not measured: its pair of edges takes the inradius of the pairs seen whole and the centre follows
    the edge seen, so a tile cut by the frame keeps its size and its centre rather than shrinking to the part
    in view.
    """
    c = np.asarray(centres, dtype=np.float64).reshape(-1, 2).copy()
    n = len(c)
    if n == 0:
        return [], np.zeros(0)
    rho = np.asarray(widths, dtype=np.float64) / 2.0
    bmap = boundary.astype(np.float32)
    dist = np.zeros((n, 6))
    for _ in range(iterations):
        reach = _RADII[None, None, :] * rho[:, None, None]
        xs = (c[:, 0, None, None] + _RAYS[None, :, None, 0] * reach).astype(np.float32)  # (n, angles, radii)
        ys = (c[:, 1, None, None] + _RAYS[None, :, None, 1] * reach).astype(np.float32)
        prof = cv2.remap(bmap, xs.reshape(n * len(_ANGLES), -1), ys.reshape(n * len(_ANGLES), -1), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=0).reshape(n, len(_ANGLES), -1)
        hit = prof.argmax(axis=2)
        r = _RADII[hit] * rho[:, None]  # (n, angles): where each ray meets the outline
        w = prof.max(axis=2).astype(np.float64)
        ax = np.take_along_axis(xs, hit[..., None], axis=2)[..., 0]
        ay = np.take_along_axis(ys, hit[..., None], axis=2)[..., 0]
        w[(ax < _FRAME) | (ay < _FRAME) | (ax > bmap.shape[1] - 1 - _FRAME) | (ay > bmap.shape[0] - 1 - _FRAME)] = 0.0
        wsum = np.maximum(w.sum(axis=1), 1e-9)
        inr = np.einsum("na,ta->nt", w * r, _COS_OFF) / wsum[:, None]  # inradius for each turn
        resid = np.einsum("na,nta->nt", w, np.abs(r[:, None, :] - inr[:, :, None] / _COS_OFF[None]))
        turn = _TURNS[resid.argmin(axis=1)]
        normals = turn[:, None] + np.arange(6)[None, :] * (math.pi / 3)  # (n, 6)
        off = (_ANGLES[None, None, :] - normals[:, :, None] + math.pi) % (2 * math.pi) - math.pi
        near = (np.abs(off) < _EDGE_REACH) * w[:, None, :]
        along = r[:, None, :] * np.cos(off)
        got = near.sum(axis=2)
        seen = got > 1e-6
        dist = np.where(seen, (near * along).sum(axis=2) / np.maximum(got, 1e-9), rho[:, None])
        both = seen[:, :3] & seen[:, 3:]
        inr3 = (dist[:, :3] + dist[:, 3:]) / 2.0
        mean_inr = np.where(both.any(axis=1), (inr3 * both).sum(axis=1) / np.maximum(both.sum(axis=1), 1), rho)
        inr3 = np.where(both, inr3, mean_inr[:, None])
        u = np.stack([np.cos(normals[:, :3]), np.sin(normals[:, :3])], axis=2)  # (n, 3, 2)
        half = np.where(seen[:, :3], dist[:, :3] - inr3, 0.0) - np.where(seen[:, 3:], dist[:, 3:] - inr3, 0.0)
        half = np.where(both, half / 2.0, half)
        c = c + np.einsum("nij,nj->ni", np.linalg.pinv(u), half)  # least squares, each tile's 3 x 2 system
        dist = np.concatenate([inr3, inr3], axis=1)
        rho = inr3.mean(axis=1)
    support = w.mean(axis=1)
    # corner k lies where the lines of edges k and k + 1 meet (the fitted edge k's normal is turn + 60 k)
    nxt = np.roll(normals, -1, axis=1)
    lines = np.stack([np.stack([np.cos(normals), np.sin(normals)], axis=2),
                      np.stack([np.cos(nxt), np.sin(nxt)], axis=2)], axis=2)  # (n, 6, 2, 2)
    pts = np.linalg.solve(lines, np.stack([dist, np.roll(dist, -1, axis=1)], axis=2)[..., None])[..., 0]
    return [_from_corners(c[i], pts[i], math.degrees(turn[i])) for i in range(n)], support


def _from_corners(centre: np.ndarray, offsets: np.ndarray, turn_deg: float) -> Hexagon:
    """The affine hexagon whose corners best match `offsets` (corner k between the fitted edges whose
    normals are turn + 60 k and turn + 60 (k + 1)), numbered so that edge 1 (E) is the edge whose normal
    is nearest image-right."""
    # fitted edge k has its normal at turn + 60 k; the unit hexagon's edge d at -60 + 60 d. Edge E (d = 1)
    # is fitted edge k0, the one nearest 0 degrees: then fitted edge k is unit edge k - k0 + 1.
    k0 = int(round(-turn_deg / 60.0)) % 6
    unit = UNIT_CORNERS[[(k - k0 + 1) % 6 for k in range(6)]]
    m = offsets.T @ unit / 3.0  # least squares: the unit corners, six on a circle, have unit.T @ unit = 3 I
    return Hexagon((float(centre[0]), float(centre[1])), _tuple(m))
