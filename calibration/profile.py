"""The calibration profile: one versioned TOML file with the camera, the table plane and the colours.

Each of the three sections is measured by its own `tantrix-pi calibrate ...` step and may be absent;
what is present is checked field by field on load, and a bad field is named in a one-line error.
The schema is documented in docs/calibration.md.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import N_, _
from tantrix_pi.tomlfile import read_toml

FORMAT = "tantrix-pi-calibration/1"
COLOUR_NAMES = ("R", "Y", "G", "B", "black")
"""The colour prototypes a profile holds: the four arc colours and the black of a tile face."""


class ProfileError(TantrixError):
    """A calibration profile that is missing, corrupt, or does not fit the image at hand."""


def now() -> str:
    """The current UTC time as the profile writes it (ISO 8601, seconds)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class CameraModel:
    """Intrinsics: the pinhole matrix K and OpenCV distortion [k1, k2, p1, p2, k3] for one image size."""

    matrix: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int]
    """(width, height) in pixels."""
    rms_px: float
    views: int
    measured: str
    uncertainty: list[float] | None = None
    """One standard deviation of [fx, fy, cx, cy]: fx and fy as a share of themselves, cx and cy of the image's
    width (`calibration.camera.Uncertainty`); None in a profile measured before it was kept."""


@dataclass(frozen=True)
class TablePlane:
    """The table plane: homography from table millimetres to undistorted pixels, and the rectified view."""

    homography: np.ndarray
    """3x3, (X, Y, 1) in table mm -> undistorted image pixels (raw pixels when the camera is not calibrated)."""
    px_per_mm: float
    """Scale of the rectified top-down view."""
    view_mm: tuple[float, float, float, float]
    """(x0, y0, x1, y1): the table rectangle the rectified view shows."""
    image_size: tuple[int, int]
    measured: str
    reference: dict[str, list[float]] = field(default_factory=dict)
    """Points that should stay put: name -> [table x mm, table y mm, image x px, image y px] (raw pixels)."""

    @property
    def rectified_size(self) -> tuple[int, int]:
        """(width, height) in pixels of the rectified view."""
        x0, y0, x1, y1 = self.view_mm
        return (max(1, round((x1 - x0) * self.px_per_mm)), max(1, round((y1 - y0) * self.px_per_mm)))


@dataclass(frozen=True)
class ColourCalibration:
    """White-balance gains (applied to R, G, B) and CIE Lab prototypes of the tile colours after them."""

    white_balance: tuple[float, float, float]
    prototypes: dict[str, tuple[float, float, float]]
    measured: str

    def nearest(self, lab) -> tuple[str, float, float]:
        """The closest prototype to a Lab colour: (name, distance, margin to the second closest)."""
        lab = np.asarray(lab, dtype=float)
        ranked = sorted((float(np.linalg.norm(lab - np.asarray(p))), n) for n, p in self.prototypes.items())
        return ranked[0][1], ranked[0][0], ranked[1][0] - ranked[0][0]


@dataclass
class Profile:
    """Everything calibration measured; each section is None until its `calibrate` step has run."""

    camera: CameraModel | None = None
    table: TablePlane | None = None
    colour: ColourCalibration | None = None
    path: Path | None = field(default=None, compare=False)
    _maps: dict = field(default_factory=dict, compare=False, repr=False)

    # ---- file -------------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike) -> Profile:
        """Read a profile; ProfileError names what is wrong."""
        path = Path(path)
        data = read_toml(path, ProfileError, _("calibration profile"), missing=_("run `tantrix-pi calibrate camera` "
                                                                                 "first"),
                         corrupt=_("calibrate again or delete it"))
        return cls.from_dict(data, str(path)).at(path)

    @classmethod
    def load_or_new(cls, path: str | os.PathLike) -> Profile:
        """The profile at path, or an empty one when there is no file yet (a corrupt file still raises)."""
        path = Path(path)
        if not path.exists():
            return cls(path=path)
        return cls.load(path)

    def save(self, path: str | os.PathLike | None = None) -> Path:
        """Write the profile atomically (to path, else where it was loaded from); ProfileError when it cannot be."""
        path = Path(path) if path is not None else self.path
        tmp = path.with_name(path.name + ".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(dumps_toml(self.to_dict()), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as e:
            raise ProfileError(_("{path}: cannot write the calibration profile ({error})").format(
                path=path, error=e.strerror or e)) from None
        self.path = path
        return path

    def at(self, path: Path) -> Profile:
        """This profile, remembering the file it belongs to."""
        self.path = path
        return self

    def with_section(self, **sections) -> Profile:
        """A copy with some sections replaced (camera=..., table=..., colour=...)."""
        return replace(self, _maps={}, **sections)

    def to_dict(self) -> dict:
        """The TOML document as nested dicts and lists."""
        doc: dict = {"format": FORMAT}
        if self.camera:
            c = self.camera
            doc["camera"] = {
                "measured": c.measured, "image_size": list(c.image_size), "matrix": c.matrix.tolist(),
                "dist": c.dist.ravel().tolist(), "rms_px": c.rms_px, "views": c.views,
            }
            if c.uncertainty is not None:
                doc["camera"]["uncertainty"] = list(c.uncertainty)
        if self.table:
            t = self.table
            doc["table"] = {
                "measured": t.measured, "image_size": list(t.image_size), "homography": t.homography.tolist(),
                "px_per_mm": t.px_per_mm, "view_mm": list(t.view_mm),
            }
            if t.reference:
                doc["table"]["reference"] = {k: list(v) for k, v in t.reference.items()}
        if self.colour:
            c = self.colour
            doc["colour"] = {"measured": c.measured, "white_balance": list(c.white_balance),
                             "lab": {k: list(v) for k, v in c.prototypes.items()}}
        return doc

    @classmethod
    def from_dict(cls, data: dict, where: str = "profile") -> Profile:
        """Check and convert a parsed document; ProfileError names the first bad field."""
        fmt = data.get("format")
        if fmt != FORMAT:
            raise ProfileError(_("{where}: 'format' is {found!r}, expected {expected!r}").format(
                where=where, found=fmt, expected=FORMAT))
        profile = cls()
        if "camera" in data:
            s = _Section(data["camera"], where, "camera")
            size = s.size("image_size")
            profile.camera = CameraModel(
                matrix=s.matrix("matrix", 3, 3), dist=s.vector("dist", (4, 5)),
                image_size=size, rms_px=s.number("rms_px"), views=int(s.number("views")),
                measured=s.text("measured"),
                uncertainty=s.vector("uncertainty", (4,)).tolist() if "uncertainty" in s.data else None)
            if profile.camera.matrix[0, 0] <= 0 or profile.camera.matrix[1, 1] <= 0:
                raise ProfileError(_("{where}: [camera] matrix has a focal length <= 0").format(where=where))
        if "table" in data:
            s = _Section(data["table"], where, "table")
            h = s.matrix("homography", 3, 3)
            if abs(np.linalg.det(h)) < 1e-12:
                raise ProfileError(_("{where}: [table] homography is singular").format(where=where))
            view = tuple(s.vector("view_mm", (4,)).tolist())
            if not (view[2] > view[0] and view[3] > view[1]):
                raise ProfileError(_("{where}: [table] view_mm must be [x0, y0, x1, y1] with x1 > x0 and y1 > "
                                     "y0").format(where=where))
            scale = s.number("px_per_mm")
            if scale <= 0:
                raise ProfileError(_("{where}: [table] px_per_mm must be > 0").format(where=where))
            reference = {}
            for name, v in s.optional_table("reference").items():
                if not (isinstance(v, list) and len(v) == 4 and all(_is_number(x) for x in v)):
                    raise ProfileError(_("{where}: [table.reference] {name} must be 4 numbers").format(where=where,
                                                                                                      name=name))
                reference[name] = [float(x) for x in v]
            profile.table = TablePlane(homography=h, px_per_mm=scale, view_mm=view, image_size=s.size("image_size"),
                                       measured=s.text("measured"), reference=reference)
        if "colour" in data:
            s = _Section(data["colour"], where, "colour")
            gains = s.vector("white_balance", (3,))
            if np.any(gains <= 0):
                raise ProfileError(_("{where}: [colour] white_balance gains must be > 0").format(where=where))
            lab = _Section(s.table("lab"), where, "colour.lab")
            prototypes = {n: tuple(lab.vector(n, (3,)).tolist()) for n in COLOUR_NAMES}
            profile.colour = ColourCalibration(white_balance=tuple(gains.tolist()), prototypes=prototypes,
                                         measured=s.text("measured"))
        return profile

    # ---- what the detector calls ------------------------------------------------------------------

    def describe(self) -> str:
        """One line: which sections are calibrated and when."""
        if self.camera is None:
            camera = _("camera not calibrated")
        elif self.camera.uncertainty:
            fx, fy, cx, cy = (100 * v for v in self.camera.uncertainty)
            camera = _("camera {measured} (fx, fy within {focal}, cx, cy within {centre} of the width)").format(
                measured=self.camera.measured, focal=f"{max(fx, fy):.2f} %", centre=f"{max(cx, cy):.2f} %")
        else:
            camera = _("camera {measured}").format(measured=self.camera.measured)
        # TRANSLATORS: {measured} is when the section was measured (2025-03-01T18:04:05Z)
        table = _("table {measured}").format(measured=self.table.measured) if self.table else _("table not calibrated")
        colour = (_("colour {measured}").format(measured=self.colour.measured) if self.colour
                  else _("colour not calibrated"))
        return "; ".join((camera, table, colour))

    def undistort(self, image: np.ndarray) -> np.ndarray:
        """The image with lens distortion removed (same size and K); unchanged without camera calibration."""
        if self.camera is None:
            return image
        self._check_size(image, self.camera.image_size, "camera")
        key = ("undistort", image.shape[:2])
        if key not in self._maps:
            c = self.camera
            self._maps[key] = cv2.initUndistortRectifyMap(c.matrix, c.dist, None, c.matrix, c.image_size,
                                                          cv2.CV_16SC2)
        m1, m2 = self._maps[key]
        return cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def rectify(self, image: np.ndarray) -> np.ndarray:
        """Top-down view of the table plane at `table.px_per_mm` (undistortion included, one resampling).

        Parts of the view the camera does not see are filled with the photo's median colour.
        """
        t = self._need_table()
        self._check_size(image, t.image_size, "table")
        key = ("rectify", image.shape[:2])
        if key not in self._maps:
            w, h = t.rectified_size
            xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
            px = self.rectified_to_image(np.stack([xs.ravel(), ys.ravel()], axis=1))
            mx = px[:, 0].reshape(h, w).astype(np.float32)
            my = px[:, 1].reshape(h, w).astype(np.float32)
            self._maps[key] = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        m1, m2 = self._maps[key]
        # Table beyond the photo's edge is filled with the photo's median colour: black would look like tiles.
        channels = 1 if image.ndim == 2 else image.shape[2]
        fill = np.median(image[::16, ::16].reshape(-1, channels), axis=0)
        return cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=tuple(float(v) for v in fill))

    def white_balance(self, image: np.ndarray) -> np.ndarray:
        """A BGR uint8 image with the measured white-balance gains applied; unchanged without colour calibration."""
        if self.colour is None:
            return image
        r, g, b = self.colour.white_balance
        ramp = np.arange(256, dtype=np.float64)
        lut = np.stack([ramp * b, ramp * g, ramp * r], axis=1).clip(0, 255).round().astype(np.uint8)
        return cv2.LUT(image, lut.reshape(256, 1, 3))

    def image_to_table(self, points) -> np.ndarray:
        """Raw image pixels (N, 2) -> table millimetres (N, 2)."""
        t = self._need_table()
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        if self.camera is not None:
            pts = cv2.undistortPoints(pts, self.camera.matrix, self.camera.dist, None, None, self.camera.matrix,
                                      (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-6))
        return cv2.perspectiveTransform(pts, np.linalg.inv(t.homography)).reshape(-1, 2)

    def table_to_image(self, points) -> np.ndarray:
        """Table millimetres (N, 2) -> raw image pixels (N, 2), lens distortion included."""
        t = self._need_table()
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        und = cv2.perspectiveTransform(pts, t.homography).reshape(-1, 2)
        if self.camera is None:
            return und
        return distort_pixels(und, self.camera.matrix, self.camera.dist)

    def image_to_rectified(self, points) -> np.ndarray:
        """Raw image pixels (N, 2) -> pixels of the rectified view (N, 2)."""
        t = self._need_table()
        return (self.image_to_table(points) - np.array(t.view_mm[:2])) * t.px_per_mm

    def rectified_to_image(self, points) -> np.ndarray:
        """Pixels of the rectified view (N, 2) -> raw image pixels (N, 2)."""
        t = self._need_table()
        mm = np.asarray(points, dtype=np.float64).reshape(-1, 2) / t.px_per_mm + np.array(t.view_mm[:2])
        return self.table_to_image(mm)

    def _need_table(self) -> TablePlane:
        if self.table is None:
            raise ProfileError(_("{path}: the table is not calibrated: run `tantrix-pi calibrate table`").format(
                path=self.path or _("profile")))
        return self.table

    def _check_size(self, image: np.ndarray, size: tuple[int, int], section: str) -> None:
        w, h = image.shape[1], image.shape[0]
        if (w, h) != tuple(size):
            raise ProfileError(_("{path}: [{section}] was measured on {width}x{height} images, this one is "
                                 "{w}x{h}: calibrate at this resolution").format(
                path=self.path or _("profile"), section=section, width=size[0], height=size[1], w=w, h=h))


def distort_pixels(undistorted: np.ndarray, matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Undistorted pixels (N, 2) -> where the lens puts them in the raw image (N, 2): OpenCV's 5-term model."""
    und = np.asarray(undistorted, dtype=np.float64).reshape(-1, 2)
    k1, k2, p1, p2, k3 = (list(np.ravel(dist)) + [0.0])[:5]
    fx, fy, cx, cy, skew = matrix[0, 0], matrix[1, 1], matrix[0, 2], matrix[1, 2], matrix[0, 1]
    y = (und[:, 1] - cy) / fy
    x = (und[:, 0] - cx - skew * y) / fx
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.stack([fx * xd + skew * yd + cx, fy * yd + cy], axis=1)


# ---- checking fields ------------------------------------------------------------------------------


def _is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


class _Section:
    """One [section] of the document, with getters that name the bad field in their error."""

    def __init__(self, data, where: str, name: str) -> None:
        if not isinstance(data, dict):
            raise ProfileError(_("{where}: [{section}] must be a table").format(where=where, section=name))
        self.data, self.where, self.name = data, where, name

    def _get(self, key: str):
        if key not in self.data:
            raise ProfileError(_("{where}: [{section}] is missing '{key}'").format(where=self.where, section=self.name,
                                                                                  key=key))
        return self.data[key]

    def _bad(self, key: str, message: str, **more) -> ProfileError:
        """`message` (marked with N_, translated here) about `key`: {where}, {section} and {key} filled in."""
        return ProfileError(_(message).format(where=self.where, section=self.name, key=key, **more))

    def number(self, key: str) -> float:
        v = self._get(key)
        if not _is_number(v):
            raise self._bad(key, N_("{where}: [{section}] '{key}' must be a number"))
        return float(v)

    def text(self, key: str) -> str:
        v = self._get(key)
        if not isinstance(v, str):
            raise self._bad(key, N_("{where}: [{section}] '{key}' must be a string"))
        return v

    def table(self, key: str) -> dict:
        v = self._get(key)
        if not isinstance(v, dict):
            raise self._bad(key, N_("{where}: [{section}] '{key}' must be a table"))
        return v

    def optional_table(self, key: str) -> dict:
        return self.table(key) if key in self.data else {}

    def vector(self, key: str, lengths: tuple[int, ...]) -> np.ndarray:
        v = self._get(key)
        if not (isinstance(v, list) and len(v) in lengths and all(_is_number(x) for x in v)):
            if len(lengths) == 1:
                raise self._bad(key, N_("{where}: [{section}] '{key}' must be a list of {n} numbers"), n=lengths[0])
            raise self._bad(key, N_("{where}: [{section}] '{key}' must be a list of {n} or {last} numbers"),
                            n=", ".join(map(str, lengths[:-1])), last=lengths[-1])
        return np.array(v, dtype=np.float64)

    def matrix(self, key: str, rows: int, cols: int) -> np.ndarray:
        v = self._get(key)
        if not (isinstance(v, list) and len(v) == rows
                and all(isinstance(r, list) and len(r) == cols and all(_is_number(x) for x in r) for r in v)):
            raise self._bad(key, N_("{where}: [{section}] '{key}' must be {rows}x{cols} numbers"), rows=rows, cols=cols)
        return np.array(v, dtype=np.float64)

    def size(self, key: str) -> tuple[int, int]:
        v = self._get(key)
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and x > 0 for x in v)):
            raise self._bad(key, N_("{where}: [{section}] '{key}' must be [width, height] in pixels"))
        return (v[0], v[1])


# ---- writing TOML ---------------------------------------------------------------------------------


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"cannot write {v} to TOML")
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def dumps_toml(doc: dict, prefix: str = "") -> str:
    """A small TOML writer for the profile: scalars and (nested) lists first, then sub-tables."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    out = "\n".join(lines) + ("\n" if lines else "")
    for k, v in doc.items():
        if isinstance(v, dict):
            name = f"{prefix}.{k}" if prefix else k
            out += f"\n[{name}]\n" + dumps_toml(v, name)
    return out
