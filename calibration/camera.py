"""Camera intrinsics from views of a ChArUco board: find the corners in each view, then calibrateCamera, and
how far the views pin each intrinsic down."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from tantrix_pi.calibration.charuco import BoardSpec, diagnose, find
from tantrix_pi.calibration.profile import CameraModel, now
from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import N_, _, listing, ngettext

MIN_VIEWS = 6
OUTLIER_FACTOR = 3.0
"""A view whose RMS error is this many times the median (and above 1 px) is dropped as blurred or moved."""
TILT_MIN_DEG = 10.0
"""A view counts as tilted when the board's plane is turned at least this far from facing the camera (the web
page's map of the views counts them as a guide; what decides is the uncertainty, below)."""
TILTED_VIEWS = 3
"""Tilted views the web page asks for while the views are taken."""
FOCAL_UNCERTAINTY = 0.01
"""Most uncertainty (one standard deviation) accepted in fx and fy, as a share of the focal length."""
CENTRE_UNCERTAINTY = 0.01
"""Most uncertainty accepted in cx and cy, as a share of the image's width."""
BETTER_VIEWS = N_("tilt the board towards and away from the camera, and to both sides, and take more views")
"""What to do when the views leave the lens uncertain (translated where it is said)."""


class CalibrationError(TantrixError):
    """Camera calibration cannot be done with these views; the message says what to do."""


class Uncertain(CalibrationError):
    """The views were solved but do not pin the lens down: `result` is what they gave."""

    def __init__(self, message: str, result: Result) -> None:
        super().__init__(message)
        self.result = result


@dataclass(frozen=True)
class Uncertainty:
    """One standard deviation of each intrinsic: fx and fy as a share of themselves, cx and cy as a share of
    the image's width. It is the larger of OpenCV's own (`calibrateCameraExtended`, from the fit's Jacobian)
    and the jackknife's (the spread of the values found leaving out one view at a time): OpenCV's is a local
    estimate that a set of views all facing the camera fools (eight such views: 0.01 % for an fx 3.5 % off,
    the jackknife 27 %)."""

    fx: float
    fy: float
    cx: float
    cy: float

    def too_large(self) -> list[str]:
        """The parameters uncertain beyond FOCAL_UNCERTAINTY or CENTRE_UNCERTAINTY, each with its figure."""
        # fx and fy as a share of themselves, cx and cy as a share of the image's width
        limits = ((N_("{name} by {share} (at most {limit})"), "fx", self.fx, FOCAL_UNCERTAINTY),
                  (N_("{name} by {share} (at most {limit})"), "fy", self.fy, FOCAL_UNCERTAINTY),
                  (N_("{name} by {share} of the width (at most {limit})"), "cx", self.cx, CENTRE_UNCERTAINTY),
                  (N_("{name} by {share} of the width (at most {limit})"), "cy", self.cy, CENTRE_UNCERTAINTY))
        return [_(message).format(name=name, share=_pct(v), limit=_pct(limit)) for message, name, v, limit in limits
                if not v <= limit]

    def describe(self) -> str:
        # TRANSLATORS: said of the lens: "the lens {uncertainty} (one standard deviation)"
        return _("uncertain by fx {fx}, fy {fy}, cx {cx}, cy {cy} of the width").format(
            fx=_pct(self.fx), fy=_pct(self.fy), cx=_pct(self.cx), cy=_pct(self.cy))

    def to_list(self) -> list[float]:
        return [round(float(v), 6) for v in (self.fx, self.fy, self.cx, self.cy)]


def _pct(share: float) -> str:
    return f"{100 * share:.2f} %" if math.isfinite(share) else _("an unknown amount")


@dataclass
class CharucoView:
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
    views: list[CharucoView]
    rejected: list[Rejected] = field(default_factory=list)
    coverage: Coverage | None = None
    uncertainty: Uncertainty | None = None
    std: np.ndarray = field(default_factory=lambda: np.full(4, np.inf), repr=False)
    """OpenCV's standard deviations of fx, fy, cx, cy, k1, ... in pixels (`calibrateCameraExtended`)."""

    def model(self) -> CameraModel:
        """The profile's [camera] section."""
        return CameraModel(self.matrix, self.dist, self.image_size, round(self.rms, 4), len(self.views), now(),
                           self.uncertainty.to_list() if self.uncertainty else None)

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
            "uncertainty": dict(zip(("fx", "fy", "cx", "cy"), self.uncertainty.to_list(), strict=True))
            if self.uncertainty else None,
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
            return ngettext("{tilted} of {views} views is tilted {degrees:g} degrees or more",
                            "{tilted} of {views} views are tilted {degrees:g} degrees or more", self.tilted).format(
                tilted=self.tilted, views=len(self.poses), degrees=TILT_MIN_DEG)
        return ngettext("the views need more tilt: {tilted} of {views} views are tilted {degrees:g} degrees or more, "
                        "so the focal length cannot be told from the distance; take {needed} more with the board "
                        "tilted 20-45 degrees, about different edges",
                        "the views need more tilt: {tilted} of {views} views are tilted {degrees:g} degrees or more, "
                        "so the focal length cannot be told from the distance; take {needed} more with the board "
                        "tilted 20-45 degrees, about different edges", self.needed).format(
            tilted=self.tilted, views=len(self.poses), degrees=TILT_MIN_DEG, needed=self.needed)


def poses(views: list[CharucoView], image_size: tuple[int, int], matrix: np.ndarray | None = None,
          dist: np.ndarray | None = None) -> list[Pose]:
    """Each view's pose through the lens `matrix` (default: a nominal lens, focal length the image's width)."""
    w, h = image_size
    k = matrix if matrix is not None else np.array([[w, 0, w / 2], [0, w, h / 2], [0, 0, 1]], np.float64)
    d = dist if dist is not None else np.zeros(5)
    out = []
    for v in views:
        ok, rvec, _tvec = cv2.solvePnP(v.object_points.astype(np.float64), v.image_points.astype(np.float64), k, d)
        normal = cv2.Rodrigues(rvec)[0][:, 2] if ok else np.array([0.0, 0.0, 1.0])
        tilt = float(np.degrees(np.arccos(min(1.0, abs(float(normal[2]))))))
        towards = float(np.degrees(np.arctan2(normal[1], normal[0]))) % 360
        cx, cy = v.image_points.reshape(-1, 2).mean(axis=0)
        out.append(Pose(v.name, (round(float(cx) / w, 3), round(float(cy) / h, 3)), round(tilt, 1), round(towards, 1)))
    return out


def coverage(views: list[CharucoView], image_size: tuple[int, int], matrix: np.ndarray | None = None,
             dist: np.ndarray | None = None) -> Coverage:
    """Can these views constrain the lens: are enough of them tilted?"""
    ps = poses(views, image_size, matrix, dist)
    tilted = sum(p.tilt_deg >= TILT_MIN_DEG for p in ps)
    return Coverage(ps, tilted, max(0, TILTED_VIEWS - tilted))


def min_corners(spec: BoardSpec) -> int:
    """Fewest corners a view must show to be used: a third of the board, and never under 6."""
    return max(6, spec.corners // 3)


def collect(images: Iterable[tuple[str, np.ndarray]], spec: BoardSpec
            ) -> tuple[list[CharucoView], list[Rejected], tuple]:
    """Find the board in each (name, image); views with too few corners, or all in a line, are rejected."""
    views, rejected, sizes = [], [], {}
    need = min_corners(spec)
    for name, image in images:
        size = (image.shape[1], image.shape[0])
        sizes.setdefault(size, name)
        found = find(image, spec)
        n = len(found.ids)
        if n == 0:
            rejected.append(Rejected(name, _("board not found: {why}").format(why=diagnose(image, spec))))
        elif n < need:
            rejected.append(Rejected(name, ngettext("only {n} of {corners} corners found (need {need})",
                                                    "only {n} of {corners} corners found (need {need})", n).format(
                n=n, corners=spec.corners, need=need)))
        elif np.linalg.matrix_rank(found.object_points[:, :2] - found.object_points[0, :2], tol=1e-6) < 2:
            rejected.append(Rejected(name, ngettext("the {n} corner found lies on one line",
                                                    "the {n} corners found lie on one line", n).format(n=n)))
        else:
            views.append(CharucoView(name, found.image_points, found.object_points, found.ids))
    if len(sizes) > 1:
        listed = ", ".join(f"{w}x{h} ({n})" for (w, h), n in sizes.items())
        raise CalibrationError(_("images of different sizes: {sizes}: take every view at the resolution the "
                                 "referee uses").format(sizes=listed))
    size = next(iter(sizes)) if sizes else (0, 0)
    return views, rejected, size


def calibrate(views: list[CharucoView], image_size: tuple[int, int], rejected: list[Rejected] | None = None,
              fix_k3: bool = True) -> Result:
    """calibrateCamera on the views; refuses below MIN_VIEWS usable views, and (`Uncertain`) views that leave
    fx or fy uncertain by more than FOCAL_UNCERTAINTY or cx or cy by more than CENTRE_UNCERTAINTY; drops
    outlier views once."""
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
                rejected.append(Rejected(v.name, _("reprojection error {error:.2f} px is over {factor:g}x the median "
                                                   "{median:.2f} px (blurred, or the board moved)").format(
                    error=v.error_px, factor=OUTLIER_FACTOR, median=median)))
        result = _solve(keep, image_size, flags)
    result.rejected = rejected
    result.coverage = coverage(result.views, image_size, result.matrix, result.dist)
    result.uncertainty = _uncertainty(result, flags)
    beyond = result.uncertainty.too_large()
    if beyond:
        raise Uncertain(_("the views need more tilt: {uncertain}: {advice}").format(
            uncertain=listing(beyond), advice=_(BETTER_VIEWS)), result)
    return result


def _uncertainty(result: Result, flags: int) -> Uncertainty:
    """How far the views pin each intrinsic down: OpenCV's standard deviations or the jackknife's, the larger."""
    views, (w, _height) = result.views, result.image_size
    found = []
    for i in range(len(views)):
        try:
            found.append(_intrinsics(_solve(views[:i] + views[i + 1:], result.image_size, flags).matrix))
        except CalibrationError:
            return Uncertainty(math.inf, math.inf, math.inf, math.inf)
    n = len(found)
    jackknife = np.sqrt((n - 1) / n * ((np.array(found) - np.mean(found, axis=0)) ** 2).sum(axis=0))
    std = np.maximum(jackknife, result.std[:4])
    f = _intrinsics(result.matrix)
    return Uncertainty(float(std[0] / f[0]), float(std[1] / f[1]), float(std[2] / w), float(std[3] / w))


def _intrinsics(k: np.ndarray) -> tuple[float, float, float, float]:
    return float(k[0, 0]), float(k[1, 1]), float(k[0, 2]), float(k[1, 2])


def _enough(views: list[CharucoView], rejected: list[Rejected]) -> None:
    if len(views) >= MIN_VIEWS:
        return
    n = len(views)
    why = "; ".join(f"{r.name}: {r.reason}" for r in rejected)
    if why:
        message = ngettext("{n} usable view, at least {need} needed ({why}): take more photos of the board at "
                           "different angles",
                           "{n} usable views, at least {need} needed ({why}): take more photos of the board at "
                           "different angles", n)
    else:
        message = ngettext("{n} usable view, at least {need} needed: take more photos of the board at different "
                           "angles",
                           "{n} usable views, at least {need} needed: take more photos of the board at different "
                           "angles", n)
    raise CalibrationError(message.format(n=n, need=MIN_VIEWS, why=why))


def _solve(views: list[CharucoView], image_size: tuple[int, int], flags: int) -> Result:
    obj = [v.object_points.astype(np.float32) for v in views]
    img = [v.image_points.astype(np.float32) for v in views]
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-9)
    try:
        rms, k, d, rvecs, tvecs, std, _std_ex, _errors = cv2.calibrateCameraExtended(
            obj, img, image_size, None, None, flags=flags, criteria=criteria)
    except cv2.error as e:
        raise CalibrationError(_("OpenCV could not calibrate with these views ({error}): take views with the board "
                                 "tilted in different directions").format(error=e.err)) from None
    solved = []
    for v, o, i, r, t in zip(views, obj, img, rvecs, tvecs, strict=True):
        projected, _jacobian = cv2.projectPoints(o, r, t, k, d)
        err = float(np.sqrt(np.mean(np.sum((projected.reshape(-1, 2) - i) ** 2, axis=1))))
        solved.append(CharucoView(v.name, v.image_points, v.object_points, v.ids, err))
    return Result(k, d.ravel()[:5], float(rms), image_size, solved, std=np.nan_to_num(std.ravel(), nan=np.inf))
