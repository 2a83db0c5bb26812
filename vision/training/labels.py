"""What the tile network should say about a picture: its label maps, from the tiles' top-face hexagons.

The maps are at the network's output resolution (`network.STRIDE`): the face of every tile, its outline
(a soft line drawn four times finer and averaged down, so that it lies where the edge is to a fraction of a
pixel), a heat map peaking at each tile's centre, and the tile's width code on its face. What covers a
tile (a hand, an object, the edge of the picture) is not face and not outline; a tile less than
`MIN_SEEN` visible has no centre: the detector should not claim to see it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from tantrix_pi.vision.network import STRIDE, size_code

MIN_SEEN = 0.45
"""Share of a tile that must be visible for it to be marked as a tile to find."""
HEAT_SIGMA = 0.09
"""Spread of the centre heat map, as a share of the tile's width (at least 0.7 map pixels)."""


def hexagon_params(corners: np.ndarray) -> tuple[np.ndarray, float]:
    """(centre, width across flats) of a hexagon given its six corners in order."""
    c = np.asarray(corners, dtype=np.float64)
    mids = (c + np.roll(c, -1, axis=0)) / 2.0
    return c.mean(axis=0), float(np.linalg.norm(mids[:3] - mids[3:], axis=1).mean())


def label_maps(hexagons: list[np.ndarray], hidden: np.ndarray | None, shape: tuple[int, int]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(face, outline, centre heat, width code) maps for tiles whose corners are given in input pixels.

    face and outline are uint8 (outline 0..255), heat and width code float32; `hidden` (map resolution,
    nonzero = not to be seen: covered, or outside the picture) marks where no tile shows.
    """
    h, w = shape[0] // STRIDE, shape[1] // STRIDE
    face = np.zeros((h, w), np.uint8)
    outline = np.zeros((h, w), np.uint8)
    width = np.zeros((h, w), np.float32)
    heat = np.zeros((h, w), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for corners in hexagons:
        centre, flats = hexagon_params(corners)
        q = (np.asarray(corners) + 0.5) / STRIDE - 0.5  # input pixel centres -> map pixel centres
        cq = (centre + 0.5) / STRIDE - 0.5
        if q[:, 0].max() < -2 or q[:, 1].max() < -2 or q[:, 0].min() > w + 2 or q[:, 1].min() > h + 2:
            continue
        if flats / STRIDE > 2 * max(h, w):  # a tile near the horizon of a steep view: no use to learn from
            continue
        one = np.zeros((h, w), np.uint8)
        cv2.fillPoly(one, [np.round(q * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        area = int(one.sum())
        if area == 0:
            continue
        line = _outline(q, (h, w))
        if hidden is not None:
            one[hidden > 0] = 0
            line[hidden > 0] = 0
        seen = one.sum() / area
        face |= one
        np.maximum(outline, line, out=outline)
        width[one > 0] = size_code(flats)
        if seen >= MIN_SEEN and -0.5 <= cq[0] < w - 0.5 and -0.5 <= cq[1] < h - 0.5:
            sig = max(0.7, HEAT_SIGMA * flats / STRIDE)
            r = int(3 * sig) + 1
            x0, x1 = max(0, int(cq[0]) - r), min(w, int(cq[0]) + r + 2)
            y0, y1 = max(0, int(cq[1]) - r), min(h, int(cq[1]) + r + 2)
            g = np.exp(-((xx[y0:y1, x0:x1] - cq[0]) ** 2 + (yy[y0:y1, x0:x1] - cq[1]) ** 2) / (2 * sig * sig))
            heat[y0:y1, x0:x1] = np.maximum(heat[y0:y1, x0:x1], g)
    return face, outline, heat, width


def _outline(q: np.ndarray, shape: tuple[int, int], k: int = 4) -> np.ndarray:
    """The hexagon's outline (map pixels), a soft line about one map pixel wide, uint8."""
    h, w = shape
    x0, y0 = np.maximum(np.floor(q.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(q.max(axis=0)).astype(int) + 3, [w, h])
    out = np.zeros((h, w), np.uint8)
    if x0 >= x1 or y0 >= y1:
        return out
    big = np.zeros(((y1 - y0) * k, (x1 - x0) * k), np.uint8)
    fine = (q - [x0, y0] + 0.5) * k - 0.5
    cv2.polylines(big, [np.round(fine * 16).astype(np.int32)], True, 255, k + 1, cv2.LINE_AA, 4)
    out[y0:y1, x0:x1] = cv2.resize(big, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    return out


def crops(image: np.ndarray, hexagons: list[np.ndarray], cover: np.ndarray | None, rng: np.random.Generator,
          n: int, side: int = 256) -> list[tuple[np.ndarray, tuple]]:
    """n (crop, label maps) pairs from one picture: each at a random scale (`target_width`), turn and
    mirror image, mostly near a tile; the label maps are `label_maps`' and what covers the table (uint8,
    0..255). Mirrored crops are fine here: the network finds tiles, it never reads which way round they are."""
    widths = [hexagon_params(c)[1] for c in hexagons]
    flats = float(np.median(widths)) if widths else float(rng.uniform(40, 150))
    out = []
    for _ in range(n):
        f = target_width(rng) / flats
        size = (max(1, round(image.shape[1] * f)), max(1, round(image.shape[0] * f)))
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
        sx, sy = small.shape[1] / image.shape[1], small.shape[0] / image.shape[0]
        hexes = [np.column_stack([(c[:, 0] + 0.5) * sx - 0.5, (c[:, 1] + 0.5) * sy - 0.5])
                 for c in (np.asarray(h, np.float64) for h in hexagons)]
        if hexes and rng.random() < 0.8:
            at = hexes[int(rng.integers(len(hexes)))].mean(axis=0) + rng.normal(0, side / 5, 2)
        else:
            at = np.array([rng.uniform(0, small.shape[1]), rng.uniform(0, small.shape[0])])
        m = cv2.getRotationMatrix2D((float(at[0]), float(at[1])), float(rng.uniform(0, 360)) if rng.random() < 0.7
                                    else 0.0, 1.0)
        m[:, 2] += np.array([side / 2, side / 2]) - at
        if rng.random() < 0.5:
            m = (np.array([[-1, 0, side - 1], [0, 1, 0], [0, 0, 1]], np.float64) @ np.vstack([m, [0, 0, 1]]))[:2]
        crop = cv2.warpAffine(small, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        # outside the picture: a flat colour, neither tile nor outline
        inside = np.zeros((side, side), np.uint8)
        frame = np.array([[0, 0], [small.shape[1] - 1, 0], [small.shape[1] - 1, small.shape[0] - 1],
                          [0, small.shape[0] - 1]], np.float64)
        cv2.fillPoly(inside, [np.round(np.column_stack([frame, np.ones(4)]) @ m.T).astype(np.int32)], 1)
        crop = np.where(inside[..., None] > 0, crop, np.uint8(rng.integers(0, 256)))
        hidden = cv2.resize(1 - inside, (side // STRIDE, side // STRIDE), interpolation=cv2.INTER_NEAREST)
        over = np.zeros((side // STRIDE, side // STRIDE), np.uint8)
        if cover is not None:
            c = cv2.warpAffine(cv2.resize(cover, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA), m,
                               (side, side), flags=cv2.INTER_LINEAR)
            over = cv2.resize(c, (side // STRIDE, side // STRIDE), interpolation=cv2.INTER_AREA)
            hidden |= over > 127
        moved = [np.column_stack([h, np.ones(6)]) @ m.T for h in hexes]
        out.append((crop, (*label_maps(moved, hidden.astype(np.uint8), (side, side)), over)))
    return out


def target_width(rng: np.random.Generator) -> float:
    """Tile width in a training crop: mostly the fine pass's working width, else the coarse pass's range."""
    if rng.random() < 0.6:
        return float(rng.uniform(20, 40))
    return float(math.exp(rng.uniform(math.log(7), math.log(110))))
