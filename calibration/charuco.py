"""The ChArUco board: its parameters, the printable sheet at exact scale, and finding it in a photo."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from tantrix_pi.board import parse_json
from tantrix_pi.calibration.lettering import draw, lines
from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import N_, _, listing, ngettext

PAPERS_MM = {"a4": (297.0, 210.0), "letter": (279.4, 215.9)}
"""Paper sizes, landscape (width, height) in millimetres."""
MM_PER_INCH = 25.4
SUSPECT_DICTIONARIES = ("DICT_4X4_50", "DICT_5X5_100", "DICT_6X6_250", "DICT_7X7_1000", "DICT_ARUCO_ORIGINAL",
                        "DICT_APRILTAG_36h11")
"""Dictionaries tried when the expected one finds nothing, to tell the user which board they hold."""


class CharucoError(TantrixError):
    """A board description that cannot be, or a photo in which the board cannot be found."""


def dictionary(name: str) -> cv2.aruco.Dictionary:
    """The predefined ArUco dictionary called `name` (e.g. DICT_5X5_100)."""
    code = getattr(cv2.aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(code, int):
        known = ", ".join(n for n in dir(cv2.aruco) if n.startswith("DICT_") and n == n.upper())
        raise CharucoError(_("unknown ArUco dictionary {name!r}: use one of {known}").format(name=name, known=known))
    return cv2.aruco.getPredefinedDictionary(code)


@dataclass(frozen=True)
class BoardSpec:
    """A ChArUco board: squares across and down, square and marker side in mm, marker dictionary."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_5X5_100"
    legacy_pattern: bool = False

    def __post_init__(self) -> None:
        if self.squares_x < 3 or self.squares_y < 3:
            raise CharucoError(_("a ChArUco board needs at least 3x3 squares, not {x}x{y}").format(
                x=self.squares_x, y=self.squares_y))
        if not 0 < self.marker_mm < self.square_mm:
            raise CharucoError(_("markers ({marker} mm) must be smaller than squares ({square} mm)").format(
                marker=self.marker_mm, square=self.square_mm))
        size = dictionary(self.dictionary).bytesList.shape[0]
        if self.markers > size:
            raise CharucoError(_("{x}x{y} squares need {markers} markers, {dictionary} has only {size}").format(
                x=self.squares_x, y=self.squares_y, markers=self.markers, dictionary=self.dictionary, size=size))

    @property
    def markers(self) -> int:
        """How many ArUco markers the board carries."""
        return self.squares_x * self.squares_y // 2

    @property
    def corners(self) -> int:
        """How many inner (ChArUco) corners the board has."""
        return (self.squares_x - 1) * (self.squares_y - 1)

    @property
    def size_mm(self) -> tuple[float, float]:
        """(width, height) of the board in mm."""
        return (self.squares_x * self.square_mm, self.squares_y * self.square_mm)

    def board(self) -> cv2.aruco.CharucoBoard:
        """The OpenCV board; its units are millimetres."""
        b = cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_mm, self.marker_mm,
                                   dictionary(self.dictionary))
        b.setLegacyPattern(self.legacy_pattern)
        return b

    def describe(self) -> str:
        """One line naming every parameter."""
        return _("ChArUco {x}x{y} squares of {square:g} mm, markers {marker:g} mm, {dictionary}").format(
            x=self.squares_x, y=self.squares_y, square=self.square_mm, marker=self.marker_mm,
            dictionary=self.dictionary)

    @classmethod
    def parse(cls, squares: str, square_mm: float, marker_mm: float, dictionary_name: str) -> BoardSpec:
        """From command-line values: squares as '7x5'."""
        m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", squares)
        if not m:
            raise CharucoError(_("--squares {squares!r}: expected COLUMNSxROWS, e.g. 7x5").format(squares=squares))
        return cls(int(m[1]), int(m[2]), float(square_mm), float(marker_mm), dictionary_name)

    @classmethod
    def load(cls, path: str | Path) -> BoardSpec:
        """The board saved beside a sheet by `calibrate board` (or any JSON with these fields)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CharucoError(_("no board file {path}: make one with `tantrix-pi calibrate board --out`").format(
                path=path)) from None
        except (OSError, UnicodeDecodeError) as e:
            raise CharucoError(_("cannot read board file {path}: {error}").format(path=path, error=e)) from None
        try:
            data = parse_json(text, CharucoError)
        except CharucoError as e:
            raise CharucoError(_("cannot read board file {path}: {error}").format(path=path, error=e)) from None
        data = data.get("charuco", data) if isinstance(data, dict) else data
        if not isinstance(data, dict):
            raise CharucoError(_("board file {path}: expected a JSON object").format(path=path))
        kinds = {"squares_x": int, "squares_y": int, "square_mm": float, "marker_mm": float, "dictionary": str}
        wrong = {int: N_("board file {path}: field {key!r} is missing or not a whole number"),
                 float: N_("board file {path}: field {key!r} is missing or not a number"),
                 str: N_("board file {path}: field {key!r} is missing or not text")}
        values = {}
        for key, kind in kinds.items():
            v = data.get(key)
            ok = isinstance(v, str) if kind is str else isinstance(v, int | float) and not isinstance(v, bool)
            if not ok:
                raise CharucoError(_(wrong[kind]).format(path=path, key=key))
            values[key] = kind(v)
        return cls(**values, legacy_pattern=bool(data.get("legacy_pattern", False)))

    def to_dict(self) -> dict:
        """The fields, as `load` reads them back."""
        return asdict(self)


@dataclass
class Found:
    """The ChArUco corners found in one image."""

    ids: np.ndarray
    """(N,) corner ids as OpenCV numbers them."""
    image_points: np.ndarray
    """(N, 2) float32 pixel positions."""
    object_points: np.ndarray
    """(N, 3) float32 board positions in mm (z = 0)."""
    markers: int
    """How many markers of the board were seen."""


def find(image: np.ndarray, spec: BoardSpec) -> Found:
    """Detect the board's corners (CharucoDetector, then board.matchImagePoints); empty when none."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    board = spec.board()
    corners, ids, _marker_corners, marker_ids = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    markers = 0 if marker_ids is None else len(marker_ids)
    if ids is None or len(ids) == 0:
        empty2, empty3 = np.zeros((0, 2), np.float32), np.zeros((0, 3), np.float32)
        return Found(np.zeros(0, int), empty2, empty3, markers)
    obj, img = board.matchImagePoints(corners, ids)
    return Found(ids.ravel().astype(int), img.reshape(-1, 2), obj.reshape(-1, 3), markers)


def diagnose(image: np.ndarray, spec: BoardSpec) -> str:
    """Why the board was not found: another dictionary, a bigger board, or no markers at all."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    ids = cv2.aruco.ArucoDetector(dictionary(spec.dictionary)).detectMarkers(gray)[1]
    if ids is not None and len(ids):
        beyond = sorted(int(i) for i in ids.ravel() if i >= spec.markers)
        if beyond:
            return _("it shows {dictionary} markers numbered up to {highest}, but a {x}x{y} board has only "
                     "0..{last}: check --squares").format(dictionary=spec.dictionary, highest=beyond[-1],
                                                         x=spec.squares_x, y=spec.squares_y, last=spec.markers - 1)
        return ngettext("only {n} of its markers is visible: bring the whole board into view and in focus",
                        "only {n} of its markers are visible: bring the whole board into view and in focus",
                        len(ids)).format(n=len(ids))
    for name in SUSPECT_DICTIONARIES:
        if name == spec.dictionary:
            continue
        other = cv2.aruco.ArucoDetector(dictionary(name)).detectMarkers(gray)[1]
        if other is not None and len(other) >= 2:
            return _("its markers are {found}, not {dictionary}: pass --dictionary {found} or the board's JSON").format(
                found=name, dictionary=spec.dictionary)
    return _("no ArUco markers at all: is the board in view, lit and in focus?")


# ---- the printable sheet --------------------------------------------------------------------------


@dataclass
class Sheet:
    """A page with the board at exact scale: the image and the resolution that makes it exact."""

    image: np.ndarray
    dpi: float
    paper: str
    board_offset_mm: tuple[float, float]
    """Top-left corner of the board from the top-left corner of the paper."""

    def save(self, path: str | Path, spec: BoardSpec) -> Path:
        """Write the page as PDF or PNG (with its resolution, so it prints at 100 %) and its JSON beside it."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in (".pdf", ".png"):
            raise CharucoError(_("{path}: the sheet can be written as .pdf or .png").format(path=path))
        page = Image.fromarray(self.image)
        if suffix == ".pdf":
            page.save(path, "PDF", resolution=self.dpi)
        else:
            page.save(path, "PNG", dpi=(self.dpi, self.dpi))
        meta = {"charuco": spec.to_dict(), "paper": self.paper, "orientation": "landscape",
                "dpi": round(self.dpi, 4), "board_offset_on_paper_mm": list(self.board_offset_mm)}
        json_path = path.with_suffix(".json")
        json_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        return json_path


def sheet(spec: BoardSpec, paper: str = "a4", dpi: float = 300.0) -> Sheet:
    """The board centred on a landscape page at exact scale, its parameters printed under it."""
    if paper not in PAPERS_MM:
        raise CharucoError(_("unknown paper {paper!r}: use one of {papers}").format(paper=paper,
                                                                                   papers=listing(PAPERS_MM)))
    paper_w, paper_h = PAPERS_MM[paper]
    board_w, board_h = spec.size_mm
    margin = 10.0
    if board_w > paper_w - 2 * margin or board_h > paper_h - 2 * margin - 12:
        raise CharucoError(_("a {width:g} x {height:g} mm board does not fit on {paper} with its caption: use smaller "
                           "squares (--square-mm)").format(width=board_w, height=board_h, paper=paper))
    # A whole number of pixels per square, and the resolution that makes that exactly square_mm.
    px_per_square = round(spec.square_mm / MM_PER_INCH * dpi)
    dpi = px_per_square * MM_PER_INCH / spec.square_mm
    px_per_mm = dpi / MM_PER_INCH
    page = np.full((round(paper_h * px_per_mm), round(paper_w * px_per_mm)), 255, np.uint8)
    board_img = spec.board().generateImage((spec.squares_x * px_per_square, spec.squares_y * px_per_square),
                                           marginSize=0, borderBits=1)
    left_mm, top_mm = (paper_w - board_w) / 2, (paper_h - board_h) / 2
    x0, y0 = round(left_mm * px_per_mm), round(top_mm * px_per_mm)
    left_mm, top_mm = x0 / px_per_mm, y0 / px_per_mm
    page[y0:y0 + board_img.shape[0], x0:x0 + board_img.shape[1]] = board_img
    caption = (_("{board}, legacy pattern on. Print at 100 % (actual size): one square must measure {mm:g} mm.")
               if spec.legacy_pattern else
               _("{board}, legacy pattern off. Print at 100 % (actual size): one square must measure {mm:g} mm."))
    caption = caption.format(board=spec.describe(), mm=spec.square_mm)
    size = round(3 * px_per_mm)  # letters about 2 mm high
    ty = y0 + board_img.shape[0] + round(7 * px_per_mm)
    draw(page, lines(caption, size, round((paper_w - margin) * px_per_mm) - x0), (x0, ty), size, 0)
    scale = px_per_mm * 0.11
    # A 100 mm ruler above the board to check the print.
    ry = y0 - round(4 * px_per_mm)
    if ry > round(2 * px_per_mm):
        cv2.line(page, (x0, ry), (x0 + round(100 * px_per_mm), ry), 0, max(1, round(px_per_mm / 3)))
        for tick in range(0, 101, 10):
            tx = x0 + round(tick * px_per_mm)
            cv2.line(page, (tx, ry), (tx, ry - round((2 if tick % 50 else 3) * px_per_mm)), 0, 2)
        cv2.putText(page, "100 mm", (x0 + round(102 * px_per_mm), ry), cv2.FONT_HERSHEY_SIMPLEX, scale, 0,
                    max(1, round(scale * 2)), cv2.LINE_AA)
    return Sheet(page, dpi, paper, (round(left_mm, 4), round(top_mm, 4)))
