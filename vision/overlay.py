"""Draw what the detector saw on the photo: cell outlines, tile numbers, doubts, and a verdict's reasons."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np

from tantrix_pi.vision.detection import CONFIDENT, Detection, Unread

SURE = (80, 220, 80)
UNSURE = (0, 165, 255)
"""Warning colour (orange) of a tile read with low confidence."""
UNREADABLE = (40, 40, 230)
LOOSE = (230, 160, 40)
FACE_DOWN = (170, 170, 170)
PATH_BGR = {"R": (40, 40, 230), "Y": (0, 220, 255), "G": (60, 180, 60), "B": (230, 120, 30)}


def _poly(img: np.ndarray, corners: Sequence, colour, width: int) -> None:
    if corners:
        cv2.polylines(img, [np.round(np.array(corners)).astype(np.int32)], True, colour, width, cv2.LINE_AA)


def _text(img: np.ndarray, text: str, at, colour, scale: float) -> None:
    x, y = int(at[0]), int(at[1])
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    org = (x - w // 2, y + h // 2)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 2, cv2.LINE_AA)


def draw(image: np.ndarray, det: Detection, notes: Iterable[str] = (), threshold: float = CONFIDENT) -> np.ndarray:
    """A copy of the photo with every tile's outline and number, doubts in warning colours, and notes on top."""
    img = image.copy()
    size = max(det.tile_px, 20.0)
    scale = max(0.4, size / 110.0)
    width = max(1, int(round(size / 40)))
    for t in det.tiles:
        sure = t.confidence >= threshold
        _poly(img, t.corners_px, SURE if sure else UNSURE, width)
        label = str(t.placement.tile) if sure else f"{t.placement.tile}?"
        _text(img, label, t.center_px, SURE if sure else UNSURE, scale)
    for items, colour, mark in ((det.loose, LOOSE, "L"), (det.face_down, FACE_DOWN, "FD"),
                                (det.unreadable, UNREADABLE, "?")):
        for u in items:
            _poly(img, u.corners_px, colour, width)
            _text(img, f"{mark}{u.tile}" if isinstance(u, Unread) and u.tile else mark, u.center_px, colour, scale)
    notes = list(notes)
    y = int(24 * max(1.0, img.shape[0] / 1000))
    for line in notes:
        cv2.putText(img, line, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * max(1.0, img.shape[0] / 1000), (0, 0, 0), 5,
                    cv2.LINE_AA)
        cv2.putText(img, line, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * max(1.0, img.shape[0] / 1000),
                    (255, 255, 255), 2, cv2.LINE_AA)
        y += int(26 * max(1.0, img.shape[0] / 1000))
    return img


def draw_path(img: np.ndarray, det: Detection, cells: Sequence[tuple[int, int]], colour: str, loop: bool) -> None:
    """Draw a line or loop of `colour` through the centres of the board tiles on `cells`, in place."""
    at = {t.placement.cell: t.center_px for t in det.tiles}
    pts = [at[c] for c in cells if c in at]
    if len(pts) < 2 and not pts:
        return
    width = max(2, int(round(max(det.tile_px, 20.0) / 12)))
    arr = np.round(np.array(pts)).astype(np.int32)
    cv2.polylines(img, [arr], loop, (0, 0, 0), width + 4, cv2.LINE_AA)
    cv2.polylines(img, [arr], loop, PATH_BGR.get(colour, (255, 255, 255)), width, cv2.LINE_AA)
    for p in arr:
        cv2.circle(img, (int(p[0]), int(p[1])), width, PATH_BGR.get(colour, (255, 255, 255)), -1, cv2.LINE_AA)


def save(path: str, img: np.ndarray) -> None:
    """Write the overlay image; OSError with a one-line hint when it cannot be written."""
    if Path(path).suffix.lower() not in (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"):
        raise OSError("use a .png or .jpg name")
    if not cv2.imwrite(str(path), img):
        raise OSError("use a .png or .jpg name in a writable folder")
