"""The detector: photo in, `Detection` out, through named stages passing one `Seen` record per tile.

find tiles -> place them on a grid -> read their edge colours -> decode them -> assemble the board.
Tiles are found by the tile network on copies of the photo scaled to the tiles; colours are read from the
full-resolution photo. Every tuning number is in `config.CONFIG`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import contextmanager
from dataclasses import replace

import cv2
import numpy as np

from tantrix_pi.vision import decode, edges, layout
from tantrix_pi.vision.assemble import assemble
from tantrix_pi.vision.config import CONFIG, Config
from tantrix_pi.vision.detection import Detection, in_polygon, polygon
from tantrix_pi.vision.find import find_tiles
from tantrix_pi.vision.network import TileNetwork, shipped
from tantrix_pi.vision.photo import check_shape
from tantrix_pi.vision.seen import HELD, Seen


def detect(image: np.ndarray, profile=None, config: Config = CONFIG, network: TileNetwork | None = None,
           zones: Sequence[np.ndarray] = (), on_board: Collection[int] = (),
           lying: Sequence[tuple[float, float]] = ()) -> Detection:
    """Read the board (and loose, face-down, unreadable tiles) in a BGR photo of the table.

    With a calibration profile (`calibration.Profile`) the photo is white-balanced, then rectified to a
    top view of the table (or only undistorted), and every position is reported in raw photo pixels.
    `zones`: polygons (N x 2 raw photo pixels) where tiles lie apart from the board, the players' hands: a
    tile whose centre lies in one is never taken for the board, and is reported loose or face down.
    `on_board`: the tiles a live referee holds on the table: the touching tiles among which most of them are read are
    the board, though their colours never meet (the second tile of a game laid against the golden rule).
    `lying`: where (raw photo pixels) the live referee saw tiles lying apart from the board when it last matched the
    table, the board empty: the one lone tile lying where none lay is the game's first tile, though the players' face-up
    hands lie apart too (`assemble._board_group`).
    `photo.PhotoError` (one line) for a picture too small, too big or too thin to show a board.
    """
    image = _as_bgr(image)
    check_shape(image.shape[1], image.shape[0])
    network = network or shipped()
    if profile is None:
        return _detect(image, config, network, _held_by(zones, None), on_board, _lay_there(lying, None))
    t = time.perf_counter()
    view, to_raw = calibrated_view(image, profile)
    prepared = time.perf_counter() - t
    det = _detect(view, config, network, _held_by(zones, to_raw), on_board, _lay_there(lying, to_raw))
    det.timings = {"calibration": prepared, **det.timings}
    return _in_raw_pixels(det, to_raw) if to_raw is not None else det


def _held_by(zones: Sequence[np.ndarray], to_raw) -> Callable[[tuple[float, float]], bool]:
    """Whether a point of the detector's view lies in one of the hand zones (given in raw photo pixels)."""
    def held(point: tuple[float, float]) -> bool:
        if not zones:
            return False
        raw = to_raw(np.array([point], np.float64))[0] if to_raw is not None else point
        return any(in_polygon(z, raw) for z in zones)

    return held


def _lay_there(lying: Sequence[tuple[float, float]], to_raw) -> Callable[[Seen], bool]:
    """Whether a tile found in the detector's view lies within half its width of one of the `lying` points (raw photo
    pixels)."""
    def there(t: Seen) -> bool:
        if not lying:
            return False
        points = np.array([t.centre, (t.centre[0] + t.hexagon.width / 2, t.centre[1])], np.float64)
        raw = to_raw(points) if to_raw is not None else points
        reach = float(np.linalg.norm(raw[1] - raw[0]))
        return any(math.dist(raw[0], p) < reach for p in lying)

    return there


def _detect(photo: np.ndarray, cfg: Config, network: TileNetwork,
            held: Callable[[tuple[float, float]], bool] = lambda _point: False,
            on_board: Collection[int] = (), lay_there: Callable[[Seen], bool] = lambda _t: False) -> Detection:
    timings: dict[str, float] = {}

    @contextmanager
    def stage(name: str):
        t = time.perf_counter()
        yield
        timings[name] = time.perf_counter() - t

    with stage("find_tiles"):
        tiles, maps = find_tiles(photo, network, cfg.find)
    with stage("grid"):
        apart = [replace(t, group=HELD) for t in tiles if held(t.centre)]
        tiles = layout.join_split(layout.place([t for t in tiles if not held(t.centre)], cfg.grid), cfg.grid)
        tiles += apart
    with stage("read_edges"):
        tiles = edges.read(photo, tiles, cfg.read, maps)
    with stage("decode"):
        tiles = decode.decode_tiles(tiles, cfg.decode, cfg.read)
    with stage("assemble"):
        det = assemble(tiles, maps, photo.shape, cfg, photo, on_board, lay_there)
    det.timings = timings
    return det


def calibrated_view(image: np.ndarray, profile):
    """The photo as the profile sees it best, and the map (N x 2 points) from that view back to the photo."""
    if getattr(profile, "colour", None) is not None:
        image = profile.white_balance(image)
    if getattr(profile, "table", None) is not None:
        return profile.rectify(image), profile.rectified_to_image
    camera = getattr(profile, "camera", None)
    if camera is not None:
        from tantrix_pi.calibration.profile import distort_pixels

        return profile.undistort(image), lambda pts: distort_pixels(pts, camera.matrix, camera.dist)
    return image, None


def _in_raw_pixels(det: Detection, to_raw) -> Detection:
    """The detection with every centre and corner mapped from the calibrated view to the raw photo."""
    def pt(p):
        x, y = to_raw(np.array([p], dtype=np.float64))[0]
        return (float(x), float(y))

    def poly(c):
        return polygon(to_raw(np.array(c))) if c else ()

    det.tiles = [replace(t, center_px=pt(t.center_px), corners_px=poly(t.corners_px)) for t in det.tiles]
    for name in ("unreadable", "loose", "face_down"):
        setattr(det, name, [replace(u, center_px=pt(u.center_px), corners_px=poly(u.corners_px))
                            for u in getattr(det, name)])
    return det


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray):
        raise TypeError(f"detect() takes a picture as a NumPy array (H x W x 3, BGR), not {type(image).__name__}")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[..., 0]
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)):
        raise ValueError(f"detect() takes an H x W x 3 (BGR), H x W x 4 (BGRA) or H x W (grey) picture, "
                         f"not one of shape {image.shape}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(image)
