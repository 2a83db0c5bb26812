"""Camera intrinsics from views of a ChArUco board: find the corners in each view, then calibrateCamera."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from tantrix_pi.calibration.charuco import BoardSpec, diagnose, find
from tantrix_pi.calibration.profile import CameraModel, now
from tantrix_pi.errors import TantrixError

MIN_VIEWS = 6
OUTLIER_FACTOR = 3.0
"""A view whose RMS error is this many times the median (and above 1 px) is dropped as blurred or moved."""
TILT_MIN_DEG = 10.0
"""A view counts as tilted when the board's plane is turned at least this far from facing the camera."""
TILTED_VIEWS = 3
"""Tilted views needed: views of a board facing the camera cannot tell the focal length from the distance
(8 views tilted 4 degrees at most leave it 3.5 % off, tests/test_calibration_camera.py), so such a set is
refused. The bench's sets pass: dev (4 views tilted 10-16 degrees) +0.6 %, wide (8 of 14-31 degrees) -0.6 %."""


class CalibrationError(TantrixError):
    """Camera calibration cannot be done with these views; the message says what to do."""


@dataclass
class View:
    """The board's corners seen in one image."""

    name: str
    image_points: np.ndarray
    object_points: np.ndarray
    ids: np.ndarray
    error_px: float | None = None
    """RMS reprojection error of this view after calibration."""


@dataclass
class Rejected:
    """An image that was not used, and why."""

    name: str
    reason: str


@dataclass
class Result:
    """Recovered intrinsics, with how well they fit each view."""

    matrix: np.ndarray
    dist: np.ndarray
    rms: float
    image_size: tuple[int, int]
    views: list[View]
    rejected: list[Rejected] = field(default_factory=list)
    coverage: Coverage | None = None

    def model(self) -> CameraModel:
        """The profile's [camera] section."""
        return CameraModel(self.matrix, self.dist, self.image_size, round(self.rms, 4), len(self.views), now())

    def to_dict(self) -> dict:
        """What `calibrate camera --json` prints."""
        return {
            "camera_matrix": [[round(float(x), 4) for x in row] for row in self.matrix],
            "dist_coeffs": [round(float(x), 6) for x in self.dist.ravel()],
            "rms": round(self.rms, 4),
            "views_used": len(self.views),
            "image_size": list(self.image_size),
            "per_view": [{"view": v.name, "corners": len(v.ids), "rms_px": round(v.error_px, 4)} for v in self.views],
            "rejected": [{"view": r.name, "reason": r.reason} for r in self.rejected],
            "tilted_views": self.coverage.tilted if self.coverage else None,
        }


@dataclass(frozen=True)
class Pose:
    """Where a view shows the board and how it is tilted: its centre as a share of the image (x, y in 0..1),
    the angle between the board's face and the camera's axis, and the direction (degrees in the image) in
    which its face leans away."""

    name: str
    centre: tuple[float, float]
    tilt_deg: float
    towards_deg: float


@dataclass(frozen=True)
class Coverage:
    """Whether a set of views can pin the lens down, and what to take next when not."""

    poses: list[Pose]
    tilted: int
    needed: int
    """More tilted views needed (0: the views can constrain the lens)."""

    def describe(self) -> str:
        """One line for the person holding the board."""
        if not self.needed:
            return f"{self.tilted} of {len(self.poses)} views are tilted {TILT_MIN_DEG:g} degrees or more: " \
                   "enough to pin the lens down"
        return (f"the views need more tilt: {self.tilted} of {len(self.poses)} views are tilted {TILT_MIN_DEG:g} "
                f"degrees or more, so the focal length cannot be told from the distance; take {self.needed} more "
                "with the board tilted 20-45 degrees, about different edges")


def poses(views: list[View], image_size: tuple[int, int], matrix: np.ndarray | None = None,
          dist: np.ndarray | None = None) -> list[Pose]:
    """Each view's pose through the lens `matrix` (default: a nominal lens, focal length the image's width)."""
    w, h = image_size
    k = matrix if matrix is not None else np.array([[w, 0, w / 2], [0, w, h / 2], [0, 0, 1]], np.float64)
    d = dist if dist is not None else np.zeros(5)
    out = []
    for v in views:
        ok, rvec, _ = cv2.solvePnP(v.object_points.astype(np.float64), v.image_points.astype(np.float64), k, d)
        normal = cv2.Rodrigues(rvec)[0][:, 2] if ok else np.array([0.0, 0.0, 1.0])
        tilt = float(np.degrees(np.arccos(min(1.0, abs(float(normal[2]))))))
        towards = float(np.degrees(np.arctan2(normal[1], normal[0]))) % 360
        cx, cy = v.image_points.reshape(-1, 2).mean(axis=0)
        out.append(Pose(v.name, (round(float(cx) / w, 3), round(float(cy) / h, 3)), round(tilt, 1), round(towards, 1)))
    return out


def coverage(views: list[View], image_size: tuple[int, int], matrix: np.ndarray | None = None,
             dist: np.ndarray | None = None) -> Coverage:
    """Can these views constrain the lens: are enough of them tilted?"""
    ps = poses(views, image_size, matrix, dist)
    tilted = sum(p.tilt_deg >= TILT_MIN_DEG for p in ps)
    return Coverage(ps, tilted, max(0, TILTED_VIEWS - tilted))


def min_corners(spec: BoardSpec) -> int:
    """Fewest corners a view must show to be used: a third of the board, and never under 6."""
    return max(6, spec.corners // 3)


def collect(images: Iterable[tuple[str, np.ndarray]], spec: BoardSpec) -> tuple[list[View], list[Rejected], tuple]:
    """Find the board in each (name, image); views with too few corners, or all in a line, are rejected."""
    views, rejected, sizes = [], [], {}
    need = min_corners(spec)
    for name, image in images:
        size = (image.shape[1], image.shape[0])
        sizes.setdefault(size, name)
        found = find(image, spec)
        n = len(found.ids)
        if n == 0:
            rejected.append(Rejected(name, f"board not found: {diagnose(image, spec)}"))
        elif n < need:
            rejected.append(Rejected(name, f"only {n} of {spec.corners} corners found (need {need})"))
        elif np.linalg.matrix_rank(found.object_points[:, :2] - found.object_points[0, :2], tol=1e-6) < 2:
            rejected.append(Rejected(name, f"the {n} corners found lie on one line"))
        else:
            views.append(View(name, found.image_points, found.object_points, found.ids))
    if len(sizes) > 1:
        listed = ", ".join(f"{w}x{h} ({n})" for (w, h), n in sizes.items())
        raise CalibrationError(f"images of different sizes: {listed}: take every view at the resolution the "
                               "referee uses")
    size = next(iter(sizes)) if sizes else (0, 0)
    return views, rejected, size


def calibrate(views: list[View], image_size: tuple[int, int], rejected: list[Rejected] | None = None,
              fix_k3: bool = True) -> Result:
    """calibrateCamera on the views; refuses below MIN_VIEWS usable views, and views too alike to pin the lens
    down (`coverage`); drops outlier views once."""
    rejected = list(rejected or [])
    _enough(views, rejected)
    flags = cv2.CALIB_FIX_K3 if fix_k3 else 0
    result = _solve(views, image_size, flags)
    errors = np.array([v.error_px for v in result.views])
    median = float(np.median(errors))
    keep = [v for v in result.views if not (v.error_px > OUTLIER_FACTOR * median and v.error_px > 1.0)]
    if len(keep) < len(views) and len(keep) >= MIN_VIEWS:
        kept = {v.name for v in keep}
        for v in result.views:
            if v.name not in kept:
                rejected.append(Rejected(v.name, f"reprojection error {v.error_px:.2f} px is over {OUTLIER_FACTOR:g}x "
                                                 f"the median {median:.2f} px (blurred, or the board moved)"))
        result = _solve(keep, image_size, flags)
    result.rejected = rejected
    result.coverage = coverage(result.views, image_size, result.matrix, result.dist)
    if result.coverage.needed:
        raise CalibrationError(result.coverage.describe())
    return result


def _enough(views: list[View], rejected: list[Rejected]) -> None:
    if len(views) >= MIN_VIEWS:
        return
    why = "; ".join(f"{r.name}: {r.reason}" for r in rejected)
    raise CalibrationError(f"{len(views)} usable view{'s' if len(views) != 1 else ''}, at least {MIN_VIEWS} needed"
                           f"{' (' + why + ')' if why else ''}: take more photos of the board at different angles")


def _solve(views: list[View], image_size: tuple[int, int], flags: int) -> Result:
    obj = [v.object_points.astype(np.float32) for v in views]
    img = [v.image_points.astype(np.float32) for v in views]
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-9)
    try:
        rms, k, d, rvecs, tvecs = cv2.calibrateCamera(obj, img, image_size, None, None, flags=flags,
                                                      criteria=criteria)
    except cv2.error as e:
        raise CalibrationError(f"OpenCV could not calibrate with these views ({e.err}): "
                               "take views with the board tilted in different directions") from None
    solved = []
    for v, o, i, r, t in zip(views, obj, img, rvecs, tvecs, strict=True):
        projected, _ = cv2.projectPoints(o, r, t, k, d)
        err = float(np.sqrt(np.mean(np.sum((projected.reshape(-1, 2) - i) ** 2, axis=1))))
        solved.append(View(v.name, v.image_points, v.object_points, v.ids, err))
    return Result(k, d.ravel()[:5], float(rms), image_size, solved)
