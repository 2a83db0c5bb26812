"""Read the six edge colours of each tile: sample the painted band just inside every edge midpoint.

Exactly one band meets each edge midpoint, so the most colourful samples in a small window there (along
the edge and a little inwards) are that band's colour, even when a tile sits a little off its cell or is
twisted by a few degrees. Samples are taken from the full-resolution image.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from tantrix_pi.grid import centres
from tantrix_pi.vision import colour
from tantrix_pi.vision.lattice import EDGE_NORMALS, INRADIUS, apply

RADIAL = (0.66, 0.77, 0.88)
"""Depths of the window, as shares of the distance from the centre to the edge."""
TANGENT = np.linspace(-0.15, 0.15, 7)
"""Offsets of the window along the edge, in circumradii."""
TOP = 8
"""How many of the most colourful samples of a window make its reading."""


def _edge_window() -> np.ndarray:
    win = np.zeros((6, len(RADIAL) * len(TANGENT), 2))
    for d in range(6):
        n = EDGE_NORMALS[d]
        t = np.array([-n[1], n[0]])
        win[d] = [rad * INRADIUS * n + tan * t for rad in RADIAL for tan in TANGENT]
    return win


def _face_ring() -> np.ndarray:
    pts = []
    for i in range(24):
        a = math.radians(15.0 * i + 7.5)
        for rad in (0.12, 0.3, 0.5):
            pts.append((rad * math.cos(a), rad * math.sin(a)))
    return np.array(pts)


EDGE_WINDOW = _edge_window()
FACE_RING = _face_ring()
"""Points on the face between centre and edges: mostly black, where face-down numbers and white balance are read."""


def sample(image: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples (float32 BGR) of the image at full-resolution points (..., 2)."""
    flat = pts.reshape(-1, 2).astype(np.float32)
    n = len(flat)
    # remap wants maps under 32767 wide: lay the points out in rows of 1024
    rows = -(-n // 1024) if n else 0
    grid = np.zeros((max(rows, 1) * 1024, 2), np.float32)
    grid[:n] = flat
    grid = grid.reshape(max(rows, 1), 1024, 2)
    out = cv2.remap(image, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return out.reshape(-1, 3)[:n].reshape(pts.shape[:-1] + (3,)).astype(np.float32)


def to_full(pts: np.ndarray, scale: float) -> np.ndarray:
    """Working-image points to full-resolution points (the working image is an area-average downscale)."""
    return (pts + 0.5) / scale - 0.5


def read(image: np.ndarray, H: np.ndarray, cells: list, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Raw samples for each cell: edge windows (N, 6, K, 3) and face ring (N, M, 3), BGR float."""
    c = centres(np.array(cells)).reshape(-1, 1, 1, 2)
    edge_pts = to_full(apply(H, (c + EDGE_WINDOW[None]).reshape(-1, 2)), scale)
    face_pts = to_full(apply(H, (c[:, 0] + FACE_RING[None]).reshape(-1, 2)), scale)
    n = len(cells)
    return (sample(image, edge_pts).reshape(n, 6, -1, 3), sample(image, face_pts).reshape(n, len(FACE_RING), 3))


def black_samples(face: np.ndarray) -> np.ndarray:
    """The darker half of each tile's face samples: the black of the tile face."""
    v = face.max(axis=-1)
    keep = v <= np.median(v, axis=-1, keepdims=True)
    return face[keep]


def edge_readings(windows: np.ndarray, gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hue and chroma of each edge (N, 6): the mean of the most colourful samples of its window."""
    balanced = windows * gains
    _, chroma, _ = colour.features(balanced)
    idx = np.argsort(-chroma, axis=-1)[..., :TOP]
    top = np.take_along_axis(balanced, idx[..., None], axis=-2).mean(axis=-2)
    hue, c, _ = colour.features(top)
    return hue, c


def face_chroma(face: np.ndarray, gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Chroma near each tile's centre (N,), where a face-down tile shows its number, and chroma of every
    sample of the outer ring (N, 24), which bands of a face-up tile cross."""
    _, chroma, _ = colour.features(face * gains)
    inner = chroma[:, [i for i in range(len(FACE_RING)) if i % 3 < 2]]
    return np.sort(inner, axis=-1)[:, -4:].mean(axis=-1), chroma[:, 2::3]
