"""Find tiles: the black hexagons against whatever table they lie on, as a mask and its connected parts.

A Tantrix tile is a black face with coloured bands. Every table we meet (wood, felt, cloth, laminate,
dark or light) reflects far more light than the black face, so the darkest pixels relative to the table
are tile. The coloured bands inside a tile are closed over with a morphological closing sized to the tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WORK_SIDE = 1100
"""The image is halved until its long side is at most this; tiles are found in that copy."""

DARK_RATIO = 0.62
"""A pixel is tile-black when its brightest channel is below this share of the table's brightness..."""
FLOOR_RATIO = 0.85
"""... and below this share of the table's darkest common brightness (a checked cloth's dark squares)."""


@dataclass
class Part:
    """One connected group of tile pixels (a board, a loose tile, a row of them) in the working image."""

    label: int
    area: int
    bbox: tuple[int, int, int, int]
    """x, y, width, height."""
    centroid: tuple[float, float]


def downscale(image: np.ndarray, side: int = WORK_SIDE) -> tuple[np.ndarray, float]:
    """The image halved (area average, fast for exact halves) until its long side is at most `side`, and the scale."""
    small, scale = image, 1.0
    while max(small.shape[:2]) > side:
        h, w = small.shape[:2]
        small = cv2.resize(small, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        scale *= 0.5
    return small, scale


def _median(values: np.ndarray) -> float:
    hist = np.bincount(values.ravel(), minlength=256)
    return float(np.searchsorted(np.cumsum(hist), values.size / 2))


def _ring(value: np.ndarray) -> np.ndarray:
    h, w = value.shape
    m = max(2, min(h, w) // 12)
    return np.concatenate([value[:m].ravel(), value[-m:].ravel(), value[:, :m].ravel(), value[:, -m:].ravel()])


def table_level(value: np.ndarray) -> float:
    """Brightness of the table: the median of a ring along the image border (mostly table in any photo)."""
    return max(_median(_ring(value)), _median(value[::3, ::3]))


def table_floor(value: np.ndarray) -> float:
    """The darkest common brightness of the table (3rd percentile of the border ring): the dark squares
    of a checked cloth, the dark grain of wood."""
    hist = np.cumsum(np.bincount(_ring(value).ravel(), minlength=256))
    return float(np.searchsorted(hist, 0.03 * hist[-1]))


def dark_mask(small: np.ndarray) -> np.ndarray:
    """Tile-black pixels (uint8 0/1): much darker than the table, or, on a coloured table (wood, felt),
    colourless and not brighter than it; thin specks and grain lines removed."""
    b, g, r = cv2.split(cv2.medianBlur(small, 3))
    value = cv2.max(cv2.max(b, g), r)
    chroma = cv2.subtract(value, cv2.min(cv2.min(b, g), r))
    table_v = table_level(value)
    mask = value < min(DARK_RATIO * table_v, FLOOR_RATIO * table_floor(value))
    table_c = table_level(chroma)
    if table_c >= 20:  # the tiles' black is grey where the table is coloured, even when it is as dark
        mask |= (chroma < min(0.5 * table_c, 40)) & (value < 0.95 * table_v + 5)
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def closing_size(band_px: float, tile_px: float | None = None) -> int:
    """Width of the closing that bridges a band; at least 15 % of a tile once its size is known."""
    k = 2.2 * band_px + 2
    if tile_px:
        k = max(k, 0.15 * tile_px)
    return max(3, int(round(k)) | 1)


def close_bands(mask: np.ndarray, k: int) -> np.ndarray:
    """Fill the coloured bands inside tiles: a closing `k` pixels wide."""
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))


def parts(mask: np.ndarray, min_area: float) -> tuple[np.ndarray, list[Part]]:
    """Connected parts of the mask of at least `min_area` pixels, largest first, with the label image."""
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = [
        Part(i, int(stats[i, cv2.CC_STAT_AREA]), tuple(int(v) for v in stats[i, :4]),
             (float(cents[i, 0]), float(cents[i, 1])))
        for i in range(1, n)
        if stats[i, cv2.CC_STAT_AREA] >= min_area
    ]
    return labels, sorted(out, key=lambda p: -p.area)


def boundary(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points on the mask's outline with their outward normal angle and strength: (xy Nx2, angle N, weight N)."""
    soft = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 1.2)
    gx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    ys, xs = np.nonzero(mag > 0.35 * max(float(mag.max()), 1e-6))
    # The gradient points into the mask; the outward normal is its opposite.
    angle = np.arctan2(-gy[ys, xs], -gx[ys, xs])
    return np.column_stack([xs, ys]).astype(np.float64), angle.astype(np.float64), mag[ys, xs].astype(np.float64)


def outline_region(dark: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int, int]] | None:
    """The largest group of dark pixels bridged generously across bands: (its mask, its box x, y, w, h).

    Found at a quarter of the working resolution, where a generous closing is cheap.
    """
    h, w = dark.shape
    quarter = cv2.resize(dark * 255, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA) > 40
    k = max(3, int(0.0075 * max(h, w)) | 1)
    coarse = cv2.morphologyEx(quarter.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    labels, found = parts(coarse, (max(h, w) / 800) ** 2)
    if not found:
        return None
    region = cv2.resize((labels == found[0].label).astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST)
    x, y, bw, bh = found[0].bbox
    return region, (4 * x, 4 * y, 4 * bw + 4, 4 * bh + 4)


def band_width(dark: np.ndarray, region: np.ndarray) -> float:
    """Typical width (px) of the coloured bands: the light gaps between dark pixels inside the tiles' region."""
    light = ((dark == 0) & (region > 0)).astype(np.uint8)
    dist = cv2.distanceTransform(light, cv2.DIST_L2, 3)
    ridge = (dist >= 1.5) & (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8)))
    if ridge.sum() < 10:
        return 2.0
    return float(2 * np.percentile(dist[ridge], 70))
