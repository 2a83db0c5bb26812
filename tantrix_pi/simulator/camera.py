"""The imitated camera: a pinhole looking down at the table (tilted), its lens bend, its blur and its sensor."""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

HFOV_DEG = 62.0
"""Horizontal field of view of the imitated camera (a Raspberry Pi camera module)."""


def focal_px(width: int, hfov_deg: float = HFOV_DEG) -> float:
    """Focal length in pixels of the imitated camera for an image `width` pixels wide."""
    return width / (2.0 * math.tan(math.radians(hfov_deg) / 2.0))


def to_image(hom: np.ndarray, pts) -> np.ndarray:
    """Points (n x 2) mapped by a homography."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(p, np.asarray(hom, dtype=np.float64)).reshape(-1, 2)


def pose(angle_deg: float, tx: float, ty: float) -> np.ndarray:
    """3x3 matrix: turn clockwise (image axes) by `angle_deg`, then move by (tx, ty)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, tx], [s, c, ty], [0, 0, 1.0]])


class Lens:
    """Radial distortion of the OpenCV model (k1, k2) about the image centre, focal length `focal_px`."""

    def __init__(self, size: tuple[int, int], k1: float = 0.0, k2: float = 0.0) -> None:
        self.size, self.k1, self.k2 = size, k1, k2
        self.f = focal_px(size[0])
        self.c = np.array([(size[0] - 1) / 2.0, (size[1] - 1) / 2.0])

    def __bool__(self) -> bool:
        return bool(self.k1 or self.k2)

    def _matrix(self) -> np.ndarray:
        return np.array([[self.f, 0, self.c[0]], [0, self.f, self.c[1]], [0, 0, 1.0]])

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Where points of the ideal (pinhole) image land in the photo."""
        if not self:
            return pts
        n = (pts - self.c) / self.f
        r2 = (n * n).sum(axis=-1, keepdims=True)
        return n * (1 + self.k1 * r2 + self.k2 * r2 * r2) * self.f + self.c

    def undistort(self, pts) -> np.ndarray:
        """The points (n x 2) of the ideal (pinhole) image that land on photo points `pts`."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if not self:
            return pts
        k = self._matrix()
        return cv2.undistortPoints(pts.reshape(-1, 1, 2), k, np.array([self.k1, self.k2, 0.0, 0.0]), P=k).reshape(-1, 2)

    def apply(self, image: np.ndarray) -> np.ndarray:
        """The ideal image as this lens shows it."""
        maps = _lens_maps(self.size, self.k1, self.k2)
        return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


@lru_cache(maxsize=2)
def _lens_maps(size: tuple[int, int], k1: float, k2: float) -> tuple[np.ndarray, np.ndarray]:
    """For each photo pixel, the ideal-image pixel it shows (cv2.remap maps).

    Solved on every 4th pixel and interpolated: the map is smooth, and it is 16 times faster.
    """
    w, h = size
    step = 4
    ys, xs = np.mgrid[0:h + step:step, 0:w + step:step].astype(np.float32)
    ideal = Lens(size, k1, k2).undistort(np.dstack([xs, ys]).reshape(-1, 2)).astype(np.float32)
    ideal = ideal.reshape(xs.shape[0], xs.shape[1], 2)
    # sample i of the coarse grid sits at pixel step * i: an affine warp puts it there
    to_full = np.array([[step, 0, 0], [0, step, 0]], np.float32)
    full = cv2.warpAffine(ideal, to_full, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.convertMaps(full[..., 0], full[..., 1], cv2.CV_16SC2)


def camera_homography(size: tuple[int, int], tilt_deg: float, azimuth_deg: float, hfov_deg: float = HFOV_DEG,
                      center: tuple[float, float] | None = None) -> np.ndarray:
    """Homography from the table plane (pixels at the look-at point, origin there) to the image."""
    w, h = size
    f = focal_px(w, hfov_deg)
    cx, cy = center if center is not None else ((w - 1) / 2.0, (h - 1) / 2.0)
    axis = np.array([-math.sin(math.radians(azimuth_deg)), math.cos(math.radians(azimuth_deg)), 0.0])
    r_cw, _ = cv2.Rodrigues(axis * math.radians(tilt_deg))  # camera axes in table coordinates
    cam_pos = -f * r_cw[:, 2]  # f px away from the look-at point: scale 1 there when looking straight down
    r = r_cw.T
    t = -r @ cam_pos
    k = np.array([[f, 0, (w - 1) / 2.0], [0, f, (h - 1) / 2.0], [0, 0, 1.0]])
    hom = k @ np.column_stack([r[:, 0], r[:, 1], t])
    hom = np.array([[1, 0, cx - (w - 1) / 2.0], [0, 1, cy - (h - 1) / 2.0], [0, 0, 1]]) @ hom
    return hom / hom[2, 2]


def sensor(img: np.ndarray, *, seed: int, frame: int, noise: float, jpeg_quality: int | None) -> np.ndarray:
    """The sensor's grain and the JPEG round trip (None: the raw frame).

    The picture is encoded with gamma 2 (close to sRGB), so the grain of shot noise has the same spread at
    every brightness (a variance-stabilising transform) and can be added to 8-bit values, fast.
    """
    h, w = img.shape[:2]
    out = img
    if noise > 0:
        # one fixed field of grain, ~2 px wide like a demosaiced sensor's, read at a per-frame row offset;
        # shot noise gives it the same spread everywhere, read noise adds to it in the dark parts
        up, down = _grain_field(w, h)
        oy = int(np.random.default_rng([seed & 0xFFFFFFFF, frame, 99]).integers(up.shape[0] - h))
        spread = cv2.LUT(out, _READ_NOISE_LUT)
        out = cv2.addWeighted(out, 1.0, cv2.multiply(up[oy:oy + h], spread, scale=1 / 32.0), noise, 0.0)
        out = cv2.addWeighted(out, 1.0, cv2.multiply(down[oy:oy + h], spread, scale=1 / 32.0), -noise, 0.0)
    if jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


_READ_NOISE_LUT = np.array([min(4.0, math.hypot(1.0, 0.15 / max(v / 255.0, 0.01))) * 32 for v in range(256)],
                           np.float32).round().astype(np.uint8)
"""32 x how much more grain a pixel of each 8-bit value gets (read noise, constant in linear light)."""


@lru_cache(maxsize=4)
def _grain_field(w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """A fixed field of soft gaussian grain (spread 5 levels), w wide and a little taller than h: its ups and downs."""
    field = np.random.default_rng(12345).standard_normal((h + 257, w, 3), dtype=np.float32)
    field = cv2.GaussianBlur(field, (0, 0), 0.7)
    field *= 5.0 / field.std()
    return np.clip(field, 0, 255).astype(np.uint8), np.clip(-field, 0, 255).astype(np.uint8)
