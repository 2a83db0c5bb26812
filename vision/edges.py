"""Stage 3, read the edge colours of each tile inside its own hexagon, in the full-resolution photo.

Exactly one band meets each edge midpoint, so the most colourful samples in a small window there (along
the edge and a little inwards) are that band's colour, even when a tile is a little off its fitted
hexagon. The tiles' own black (the darker half of their faces) sets the white balance, so colours are
judged by hue, not by brightness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from tantrix_pi.grid import SQRT3, edge_angle
from tantrix_pi.vision import colour
from tantrix_pi.vision.config import ReadConfig
from tantrix_pi.vision.find import part_shares
from tantrix_pi.vision.hexagon import UNIT_CORNERS, Hexagon, in_photo, to_photo_all
from tantrix_pi.vision.network import Maps
from tantrix_pi.vision.seen import Colours, Seen

INRADIUS = SQRT3 / 2
"""Distance from the centre of the unit hexagon (circumradius 1) to its edges."""
EDGE_NORMALS = np.array([[math.cos(math.radians(edge_angle(d))), math.sin(math.radians(edge_angle(d)))]
                         for d in range(6)])


def edge_windows(cfg: ReadConfig) -> np.ndarray:
    """Unit-hexagon points (6, K, 2) of each edge's window."""
    win = []
    for n in EDGE_NORMALS:
        t = np.array([-n[1], n[0]])
        win.append([rad * INRADIUS * n + tan * t for rad in cfg.radial for tan in cfg.tangent])
    return np.array(win)


def _face_ring() -> np.ndarray:
    pts = []
    for i in range(24):
        a = math.radians(15.0 * i + 7.5)
        for rad in (0.12, 0.3, 0.5):
            pts.append((rad * math.cos(a), rad * math.sin(a)))
    return np.array(pts)


FACE_RING = _face_ring()
"""Points on the face between centre and edges: mostly black, where face-down numbers and white balance are read."""


def sample(image: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples (float32 BGR) of the image at points (..., 2)."""
    flat = pts.reshape(-1, 2).astype(np.float32)
    n = len(flat)
    # remap wants maps under 32767 wide: lay the points out in rows of 1024
    rows = max(1, -(-n // 1024))
    grid = np.zeros((rows * 1024, 2), np.float32)
    grid[:n] = flat
    grid = grid.reshape(rows, 1024, 2)
    out = cv2.remap(image, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return out.reshape(-1, 3)[:n].reshape(pts.shape[:-1] + (3,)).astype(np.float32)


def in_frame(hexes: Sequence[Hexagon], shape, margin: float) -> np.ndarray:
    """Whether each hexagon, shrunk to `margin`, lies wholly inside the photo."""
    if not hexes:
        return np.zeros(0, bool)
    centres = np.array([hx.centre for hx in hexes])[:, None]
    return in_photo(centres + margin * (to_photo_all(hexes, UNIT_CORNERS) - centres), shape).all(axis=1)


def read(photo: np.ndarray, tiles: list[Seen], cfg: ReadConfig, maps: Sequence[Maps] = ()) -> list[Seen]:
    """Each tile with its `colours`. Of a tile the frame cuts only the edges whose windows lie in the photo are
    read (`Colours.seen`), when at least `cfg.face_up_bands` do: what is visible may decide which tile it is.
    Tiles cut further are left unread. With the network's `maps`, an edge whose window they see covered (fingers
    over it) is not seen either."""
    if not tiles:
        return tiles
    win = edge_windows(cfg)
    edge_pts = to_photo_all([t.hexagon for t in tiles], win)
    # an edge is seen when most of its window is (the most colourful samples make its reading; outside, black)
    inside = in_photo(edge_pts, photo.shape).mean(axis=-1) >= 0.5
    whole = in_frame([t.hexagon for t in tiles], photo.shape, cfg.cut_margin)
    seen = inside | whole[:, None]
    if maps:
        seen &= part_shares(maps, [t.hexagon for t in tiles], "cover", win) < cfg.edge_covered
    idx = [i for i in range(len(tiles)) if whole[i] or seen[i].sum() >= cfg.face_up_bands]
    if not idx:
        return tiles
    face_pts = to_photo_all([tiles[i].hexagon for i in idx], FACE_RING)
    windows, faces = sample(photo, edge_pts[idx]), sample(photo, face_pts)
    seen = seen[idx]
    # the tiles wholly in view set the white balance and the typical band; a cut tile's face runs out of the photo
    judge = whole[idx] if whole[idx].any() else np.ones(len(idx), bool)
    gains = colour.white_balance(black_samples(faces[judge]))
    hue, chroma = edge_readings(windows, gains, cfg.top)
    chroma = np.where(seen, chroma, 0.0)
    face, ring, number_hue, number_lift = face_print(faces, gains)
    # chroma is judged against the photo's own bands: dim light and pale prints lower all of it; but a photo of
    # backs only has no bands to judge by, and its black's grain must not pass for them
    unit = cfg.band_chroma * max(float(np.percentile(chroma[judge][seen[judge]], 75)), cfg.least_band_chroma)
    black = np.median(np.sort(faces.max(axis=-1), axis=-1)[:, : faces.shape[1] // 2], axis=-1)
    out = list(tiles)
    for k, i in enumerate(idx):
        out[i] = replace(tiles[i], colours=Colours(hue[k], chroma[k] / unit, float(face[k] / unit), ring[k] / unit,
                                                   float(black[k]), float(number_hue[k]),
                                                   float(number_lift[k] - black[k]), seen[k]))
    return out


def black_samples(face: np.ndarray) -> np.ndarray:
    """The darker half of each tile's face samples: the black of the tile face."""
    v = face.max(axis=-1)
    keep = v <= np.median(v, axis=-1, keepdims=True)
    return face[keep]


def edge_readings(windows: np.ndarray, gains: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Hue and chroma of each edge (N, 6): the mean of the most colourful samples of its window."""
    balanced = windows * gains
    _, chroma, _ = colour.features(balanced)
    idx = np.argsort(-chroma, axis=-1)[..., :top]
    top_samples = np.take_along_axis(balanced, idx[..., None], axis=-2).mean(axis=-2)
    hue, c, _ = colour.features(top_samples)
    return hue, c


def face_print(face: np.ndarray, gains: np.ndarray) -> tuple[np.ndarray, ...]:
    """What each tile shows near its centre, where a face-down tile has its number: the chroma there (N,), the
    chroma of every sample of the outer ring (N, 24), which bands of a face-up tile cross; the hue of the most
    colourful samples near the centre (N,) and the brightness (8-bit) of the brightest ones (N,), a white
    number's."""
    balanced = face * gains
    hue, chroma, _ = colour.features(balanced)
    inner = [i for i in range(len(FACE_RING)) if i % 3 < 2]
    order = np.argsort(chroma[:, inner], axis=-1)[:, -4:]
    most = np.take_along_axis(balanced[:, inner], order[..., None], axis=1).mean(axis=1)
    bright = np.sort(face[:, inner].max(axis=-1), axis=-1)[:, -4:].mean(axis=-1)
    return (np.take_along_axis(chroma[:, inner], order, axis=-1).mean(axis=-1), chroma[:, 2::3],
            colour.features(most)[0], bright)
