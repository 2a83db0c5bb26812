"""The table plane: homography from table millimetres to the image, measured from the sheet lying on it.

The table frame is the sheet's plane, origin at the centre of its board, X turned to point as close to
image-right as it can (so the rectified view looks like the photo squared up), Y 90 degrees clockwise
of X. Points that should stay put (the sheet's corners, the witness markers) are kept in the profile to
notice later that the camera or the sheet moved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from tantrix_pi.calibration.camera import min_corners
from tantrix_pi.calibration.charuco import BoardSpec, diagnose, dictionary, find
from tantrix_pi.calibration.profile import CameraModel, Profile, TablePlane, now
from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _, ngettext

MAX_VIEW_MM = 3000.0
"""The rectified view never reaches further than this from the sheet (a view towards the horizon)."""
MOVED_PX = 2.0
"""Reference points this far (median, in pixels) from where the profile puts them mean something moved."""
WITNESS_DICTIONARY = "DICT_4X4_50"
WITNESS_IDS = (0, 1, 2, 3)
WITNESS_MM = 40.0


class TableError(TantrixError):
    """The table plane cannot be measured from this photo."""


def _undistort(px: np.ndarray, camera: CameraModel | None) -> np.ndarray:
    px = np.asarray(px, dtype=np.float64).reshape(-1, 1, 2)
    if camera is None:
        return px.reshape(-1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-6)
    return cv2.undistortPoints(px, camera.matrix, camera.dist, None, None, camera.matrix, criteria).reshape(-1, 2)


def _check_camera(image: np.ndarray, camera: CameraModel | None) -> None:
    size = (image.shape[1], image.shape[0])
    if camera is not None and tuple(camera.image_size) != size:
        w, h = camera.image_size
        raise TableError(_("the camera was calibrated at {width}x{height}, this photo is {w}x{h}: use the same "
                           "resolution").format(width=w, height=h, w=size[0], h=size[1]))


def measure(image: np.ndarray, spec: BoardSpec, camera: CameraModel | None = None,
            px_per_mm: float | None = None) -> TablePlane:
    """The table plane from a photo of the sheet lying flat on the table (camera: the lens, if calibrated)."""
    _check_camera(image, camera)
    found = find(image, spec)
    need = min_corners(spec)
    if len(found.ids) < need:
        n = len(found.ids)
        why = diagnose(image, spec) if n == 0 else ngettext("only {n} corner found (need {need})",
                                                            "only {n} corners found (need {need})", n).format(
            n=n, need=need)
        raise TableError(_("the sheet is not seen well enough: {why}").format(why=why))
    und = _undistort(found.image_points, camera)
    board_mm = found.object_points[:, :2].astype(np.float64)
    h_board, _mask = cv2.findHomography(board_mm, und, 0)
    if h_board is None:
        raise TableError(_("the sheet's corners give no plane: take the photo with the whole sheet in view"))
    table_to_board = facing_image_right(h_board, np.array(spec.size_mm) / 2)
    plane = plane_from_homography(h_board @ table_to_board, (image.shape[1], image.shape[0]), camera, px_per_mm)
    board_to_table = np.linalg.inv(table_to_board)
    table_mm = cv2.perspectiveTransform(board_mm.reshape(-1, 1, 2), board_to_table).reshape(-1, 2)
    reference = {f"sheet_{i}": [round(float(x), 3), round(float(y), 3), round(float(u), 3), round(float(v), 3)]
                 for i, (x, y), (u, v) in zip(found.ids, table_mm, found.image_points, strict=True)}
    plane.reference.update(reference)
    witnesses = find_witnesses(image)
    if witnesses:
        on_table = Profile(camera=camera, table=plane).image_to_table(np.array(list(witnesses.values())))
        for (name, px), mm in zip(witnesses.items(), on_table, strict=True):
            plane.reference[name] = [round(float(mm[0]), 3), round(float(mm[1]), 3),
                                     round(float(px[0]), 3), round(float(px[1]), 3)]
    return plane


def facing_image_right(h: np.ndarray, origin_mm: np.ndarray) -> np.ndarray:
    """The rigid change of plane frame (new mm -> old mm) putting the origin at origin_mm, X towards image-right."""
    o_px = cv2.perspectiveTransform(np.asarray(origin_mm, dtype=np.float64).reshape(1, 1, 2), h).reshape(2)
    ends = cv2.perspectiveTransform(np.array([[o_px, o_px + [20.0, 0.0]]]), np.linalg.inv(h)).reshape(2, 2)
    theta = math.atan2(*(ends[1] - ends[0])[::-1])
    return np.array([[math.cos(theta), -math.sin(theta), origin_mm[0]],
                     [math.sin(theta), math.cos(theta), origin_mm[1]], [0.0, 0.0, 1.0]])


def plane_from_homography(h: np.ndarray, image_size: tuple[int, int], camera: CameraModel | None = None,
                          px_per_mm: float | None = None, upright: bool = False) -> TablePlane:
    """The [table] section for a known homography (table mm -> undistorted px), e.g. from a render's truth.

    upright: turn the table frame about the point under the image centre so that X points image-right
    there (the rectified view then looks like the photo squared up).
    """
    h = np.asarray(h, dtype=np.float64)
    h = h / h[2, 2]
    if upright:
        centre_px = np.array([[[(image_size[0] - 1) / 2, (image_size[1] - 1) / 2]]])
        centre_mm = cv2.perspectiveTransform(centre_px, np.linalg.inv(h)).reshape(2)
        h = h @ facing_image_right(h, centre_mm)
        h = h / h[2, 2]
    if px_per_mm is None:
        px_per_mm = round(native_scale(h), 1)
    if px_per_mm <= 0:
        raise TableError(_("--px-per-mm must be > 0, not {value}").format(value=px_per_mm))
    view = visible_rect(h, image_size, camera)
    return TablePlane(h, float(px_per_mm), view, tuple(image_size), now(), {})


def native_scale(h: np.ndarray) -> float:
    """Pixels per millimetre of the image at the table origin (geometric mean over both directions)."""
    jac = np.array([[h[0, 0] - h[2, 0] * h[0, 2], h[0, 1] - h[2, 1] * h[0, 2]],
                    [h[1, 0] - h[2, 0] * h[1, 2], h[1, 1] - h[2, 1] * h[1, 2]]]) / h[2, 2] ** 2
    return math.sqrt(abs(np.linalg.det(jac)))


def visible_rect(h: np.ndarray, size: tuple[int, int], camera: CameraModel | None) -> tuple[float, ...]:
    """The table rectangle (x0, y0, x1, y1) in mm that holds what the camera sees of the plane."""
    w, hgt = size
    t = np.linspace(0, 1, 33)
    xs, ys = t * (w - 1), t * (hgt - 1)
    border = np.concatenate([np.stack([xs, 0 * t], 1), np.stack([xs, 0 * t + hgt - 1], 1),
                             np.stack([0 * t, ys], 1), np.stack([0 * t + w - 1, ys], 1)])
    und = _undistort(border, camera)
    homog = np.concatenate([und, np.ones((len(und), 1))], 1) @ np.linalg.inv(h).T
    ahead = homog[:, 2] > 1e-9
    mm = homog[ahead, :2] / homog[ahead, 2:]
    if not len(mm):
        raise TableError(_("the table plane is not in front of the camera"))
    x0, y0 = np.maximum(mm.min(axis=0), -MAX_VIEW_MM)
    x1, y1 = np.minimum(mm.max(axis=0), MAX_VIEW_MM)
    return (round(float(x0), 1), round(float(y0), 1), round(float(x1), 1), round(float(y1), 1))


def find_witnesses(image: np.ndarray) -> dict[str, np.ndarray]:
    """Centres (raw pixels) of the witness markers (`calibrate markers`) visible in the photo."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _rejected = cv2.aruco.ArucoDetector(dictionary(WITNESS_DICTIONARY), params).detectMarkers(gray)
    if ids is None:
        return {}
    return {f"marker_{int(i)}": c.reshape(4, 2).mean(axis=0)
            for i, c in zip(ids.ravel(), corners, strict=True) if int(i) in WITNESS_IDS}


@dataclass
class Movement:
    """How far the reference points seen now lie from where the profile puts them."""

    seen: int
    median_px: float
    max_px: float
    worst: str

    @property
    def moved(self) -> bool:
        """Whether the points lie too far from where they were measured."""
        return self.median_px > MOVED_PX

    def describe(self) -> str:
        """One line for the user."""
        if self.moved:
            return ngettext("the camera or the sheet moved: {n} reference point lies {median:.1f} px (median; worst "
                            "{worst} {max:.1f} px) from where the profile puts it: run `tantrix-pi calibrate table` "
                            "again",
                            "the camera or the sheet moved: {n} reference points lie {median:.1f} px (median; worst "
                            "{worst} {max:.1f} px) from where the profile puts them: run `tantrix-pi calibrate table` "
                            "again", self.seen).format(n=self.seen, median=self.median_px, worst=self.worst,
                                                       max=self.max_px)
        return ngettext("table calibration holds: {n} reference point within {max:.1f} px (median {median:.2f} px)",
                        "table calibration holds: {n} reference points within {max:.1f} px (median {median:.2f} px)",
                        self.seen).format(n=self.seen, max=self.max_px, median=self.median_px)


def movement(profile: Profile, image: np.ndarray, spec: BoardSpec | None = None) -> Movement | None:
    """Compare the sheet corners (if spec is given) and witness markers seen now with the profile; None if none seen."""
    if profile.table is None:
        return None
    _check_camera(image, profile.camera)
    seen: dict[str, np.ndarray] = dict(find_witnesses(image))
    if spec is not None:
        found = find(image, spec)
        seen.update({f"sheet_{i}": p for i, p in zip(found.ids, found.image_points, strict=True)})
    names = [n for n in seen if n in profile.table.reference]
    if not names:
        return None
    mm = np.array([profile.table.reference[n][:2] for n in names])
    expected = profile.table_to_image(mm)
    dist = np.linalg.norm(np.array([seen[n] for n in names]) - expected, axis=1)
    worst = int(np.argmax(dist))
    return Movement(len(names), float(np.median(dist)), float(dist[worst]), names[worst])


def witness_sheet(paper: str = "a4", dpi: float = 300.0) -> tuple[np.ndarray, float]:
    """A page with the four witness markers to cut out and stick near the table's corners, and its dpi."""
    from tantrix_pi.calibration.charuco import MM_PER_INCH, PAPERS_MM

    paper_w, paper_h = PAPERS_MM[paper]
    side = round(WITNESS_MM / MM_PER_INCH * dpi)
    dpi = side * MM_PER_INCH / WITNESS_MM
    px_mm = dpi / MM_PER_INCH
    page = np.full((round(paper_h * px_mm), round(paper_w * px_mm)), 255, np.uint8)
    d = dictionary(WITNESS_DICTIONARY)
    for k, marker_id in enumerate(WITNESS_IDS):
        cx = (paper_w / 4) * (1 + 2 * (k % 2))
        cy = (paper_h / 4) * (1 + 2 * (k // 2))
        x0, y0 = round(cx * px_mm - side / 2), round(cy * px_mm - side / 2)
        page[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(d, marker_id, side, borderBits=1)
        cv2.putText(page, f"{WITNESS_DICTIONARY} #{marker_id}, {WITNESS_MM:g} mm", (x0, y0 + side + round(6 * px_mm)),
                    cv2.FONT_HERSHEY_SIMPLEX, px_mm * 0.1, 0, 2, cv2.LINE_AA)
    return page, dpi
