"""Test helper: photos of a ChArUco board (or any flat texture) through a known camera with lens distortion."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from tantrix_pi.calibration.charuco import BoardSpec

TEXTURE_PX_PER_MM = 6


def board_texture(spec: BoardSpec) -> np.ndarray:
    """The board drawn at TEXTURE_PX_PER_MM, slightly blurred so that shrinking it does not alias."""
    w, h = (round(x * TEXTURE_PX_PER_MM) for x in spec.size_mm)
    image = spec.board().generateImage((w, h), marginSize=0, borderBits=1)
    return cv2.GaussianBlur(image, (0, 0), 1.2)


@lru_cache(maxsize=4)
def _rays(k_bytes: bytes, d_bytes: bytes, size: tuple[int, int]) -> np.ndarray:
    """For every raw pixel, its undistorted normalised ray (x, y) (cached per camera)."""
    k = np.frombuffer(k_bytes).reshape(3, 3)
    d = np.frombuffer(d_bytes)
    w, h = size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-9)
    return cv2.undistortPoints(pts, k, d, None, None, None, criteria).reshape(h, w, 2)


def pose_looking_at(spec_size_mm, centre_ray, distance_mm, tilt_deg=(0.0, 0.0), spin_deg=0.0):
    """(rvec, tvec) of a plane whose centre lies on the ray (x, y, 1) at distance_mm, tilted and spun."""
    rx, ry = np.radians(tilt_deg)
    spin = np.radians(spin_deg)
    r = (cv2.Rodrigues(np.array([rx, 0.0, 0.0]))[0] @ cv2.Rodrigues(np.array([0.0, ry, 0.0]))[0]
         @ cv2.Rodrigues(np.array([0.0, 0.0, spin]))[0])
    centre = np.array([spec_size_mm[0] / 2, spec_size_mm[1] / 2, 0.0])
    target = np.array([centre_ray[0], centre_ray[1], 1.0]) * distance_mm
    t = target - r @ centre
    return cv2.Rodrigues(r)[0].ravel(), t


def render(texture: np.ndarray, texture_px_per_mm: float, k, dist, rvec, tvec, size, rng=None, noise=2.0,
           blur=0.6, background=None) -> np.ndarray:
    """The photo of a flat texture (plane z = 0, mm, origin at its top-left) seen through camera (k, dist)."""
    k = np.asarray(k, dtype=np.float64)
    dist = np.asarray(dist, dtype=np.float64)
    rays = _rays(k.tobytes(), dist.tobytes(), tuple(size))
    r = cv2.Rodrigues(np.asarray(rvec, dtype=np.float64))[0]
    plane_to_ray = np.column_stack([r[:, 0], r[:, 1], np.asarray(tvec, dtype=np.float64)])
    ray_to_plane = np.linalg.inv(plane_to_ray)
    mm = cv2.perspectiveTransform(rays.reshape(-1, 1, 2), ray_to_plane).reshape(rays.shape)
    mx = (mm[..., 0] * texture_px_per_mm - 0.5).astype(np.float32)
    my = (mm[..., 1] * texture_px_per_mm - 0.5).astype(np.float32)
    if background is None:
        background = np.full(texture.shape[2:] or (1,), 170.0)
        out = cv2.remap(texture, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                        borderValue=tuple(float(b) for b in background))
    else:
        out = cv2.remap(texture, mx, my, cv2.INTER_LINEAR, dst=background.copy(), borderMode=cv2.BORDER_TRANSPARENT)
    out = out.astype(np.float32)
    if blur:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    if noise:
        rng = rng or np.random.default_rng(0)
        out += rng.normal(0.0, noise, out.shape).astype(np.float32)
    return out.clip(0, 255).astype(np.uint8)
