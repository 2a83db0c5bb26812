"""The overlay `calibrate check` draws: what the profile implies, on the photo itself."""

from __future__ import annotations

import cv2
import numpy as np

from tantrix_pi.calibration.charuco import BoardSpec, find
from tantrix_pi.calibration.lettering import draw, lines
from tantrix_pi.calibration.profile import Profile, distort_pixels
from tantrix_pi.calibration.table import Movement, find_witnesses

GRID_MM = 50.0
GRID_PX = 80
LINE_SAMPLES = 64


def _polyline(image: np.ndarray, points: np.ndarray, colour, thickness: int = 1) -> None:
    pts = np.round(points * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(image, [pts], False, colour, thickness, cv2.LINE_AA, shift=4)


def _lens_grid(out: np.ndarray, profile: Profile) -> None:
    """Lines straight in the undistorted image, drawn where the lens puts them (they bend like the lens)."""
    c = profile.camera
    w, h = c.image_size
    t = np.linspace(0, 1, LINE_SAMPLES)
    for x in np.arange(0, w, GRID_PX):
        _polyline(out, distort_pixels(np.stack([np.full_like(t, x), t * (h - 1)], 1), c.matrix, c.dist), (200, 200, 0))
    for y in np.arange(0, h, GRID_PX):
        _polyline(out, distort_pixels(np.stack([t * (w - 1), np.full_like(t, y)], 1), c.matrix, c.dist), (200, 200, 0))


def _table_grid(out: np.ndarray, profile: Profile) -> None:
    """A 50 mm grid on the table plane, its origin and axes (X red, Y green)."""
    x0, y0, x1, y1 = profile.table.view_mm
    t = np.linspace(0, 1, LINE_SAMPLES)
    for x in np.arange(np.ceil(x0 / GRID_MM) * GRID_MM, x1, GRID_MM):
        _polyline(out, profile.table_to_image(np.stack([np.full_like(t, x), y0 + t * (y1 - y0)], 1)), (255, 255, 255))
    for y in np.arange(np.ceil(y0 / GRID_MM) * GRID_MM, y1, GRID_MM):
        _polyline(out, profile.table_to_image(np.stack([x0 + t * (x1 - x0), np.full_like(t, y)], 1)), (255, 255, 255))
    for end, colour in (((GRID_MM * 2, 0.0), (0, 0, 255)), ((0.0, GRID_MM * 2), (0, 200, 0))):
        a, b = profile.table_to_image(np.array([[0.0, 0.0], end]))
        cv2.arrowedLine(out, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), colour, 3, cv2.LINE_AA)


def _references(out: np.ndarray, profile: Profile, image: np.ndarray, spec: BoardSpec | None) -> None:
    """Where the profile expects each reference point (circle) and where it is seen now (cross)."""
    ref = profile.table.reference
    if not ref:
        return
    names = list(ref)
    expected = profile.table_to_image(np.array([ref[n][:2] for n in names]))
    seen = dict(find_witnesses(image))
    if spec is not None:
        found = find(image, spec)
        seen.update({f"sheet_{i}": p for i, p in zip(found.ids, found.image_points, strict=True)})
    for name, e in zip(names, expected, strict=True):
        cv2.circle(out, tuple(np.round(e).astype(int)), 7, (0, 255, 255), 2, cv2.LINE_AA)
        if name in seen:
            s = tuple(np.round(seen[name]).astype(int))
            cv2.drawMarker(out, s, (255, 0, 255), cv2.MARKER_CROSS, 12, 2)


def overlay(profile: Profile, image: np.ndarray, moved: Movement | None = None,
            spec: BoardSpec | None = None) -> np.ndarray:
    """The photo with the lens grid, the table grid and axes, the reference points, colour classes and a status line."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if profile.colour is not None:
        from tantrix_pi.calibration.colour import class_overlay

        out = class_overlay(profile, out)
    if profile.camera is not None and profile.table is None:
        _lens_grid(out, profile)
    if profile.table is not None:
        _table_grid(out, profile)
        _references(out, profile, image, spec)
    status = moved.describe() if moved is not None else profile.describe()
    _caption(out, status)
    return out


def _caption(out: np.ndarray, text: str) -> None:
    """The text on a dark band across the top, wrapped to the image width."""
    size = max(14, round(out.shape[1] / 70))
    rows = lines(text, size, out.shape[1] - 16)
    step = round(size * 1.5)
    cv2.rectangle(out, (0, 0), (out.shape[1], step * len(rows) + step // 2), (0, 0, 0), -1)
    draw(out, rows, (8, step), size, (255, 255, 255), step)
