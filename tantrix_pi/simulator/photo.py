"""A fast, deterministic synthetic photo of a Tantrix table, with exact truth, for tests and benches.

`render(board, seed=...)` draws the board's tiles as physical ones look (dark rounded hexagons with
coloured arcs, small gaps and twists from being placed by hand) on a table texture, turns the board by
`yaw_deg`, looks at it through a tilted pinhole camera, and imitates the light and the camera: colour
temperature, uneven light and vignetting, a glare spot on the glossy tiles, shadows, blur, sensor
noise and a JPEG round trip. Loose tiles, face-down tiles and a hand over the board can be added.

Everything random comes from `seed` (a tile's hand-placed pose from the seed, the tile and its cell,
so a growing board keeps its tiles still; `frame` varies only the sensor noise). Each tile is drawn
once per size and colour set (cached) and warped into place. The image is what a camera above the
table sees: clockwise on the table is clockwise in the image.

The truth (a JSON-ready dict) follows the dataset truth of `dataset/dev` where it can: `board`,
`tiles[]` with `tile`, `on_board`, `face_up`, `q`, `r`, `rot`, `center_px`, `corners_px`,
`across_flats_px`, `edges[]` (`colour`, `sample_px`, `direction`), `fraction_in_image`,
`washed_out`, plus `occluded_fraction` (share of the tile under the hand) and the parameters used.
See docs/synth.md.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import SQRT3, centre, corners, edge_angle
from tantrix_pi.render import arc_points  # where each arc runs: written once, for both drawings
from tantrix_pi.tiles import TILES

TABLES = ("wood", "dark_wood", "felt", "cloth", "laminate", "pattern")
"""Table textures `render` can draw."""

FORMAT = "tantrix-pi-synth/1"

# Pigments (BGR, sRGB) of the four arc colours and the back numbers, as a few printings/cameras show them.
PALETTES = (
    {"R": (8, 20, 140), "Y": (34, 212, 242), "G": (66, 109, 52), "B": (131, 40, 8)},  # measured on real tile photos
    {"R": (48, 48, 222), "Y": (34, 214, 244), "G": (72, 178, 40), "B": (214, 118, 34)},  # bright
    {"R": (44, 46, 200), "Y": (40, 206, 238), "G": (76, 156, 50), "B": (190, 96, 30)},  # between
)
BACK_INK = {"R": (40, 40, 200), "Y": (40, 205, 235), "G": (70, 160, 50), "B": (190, 95, 30), "W": (225, 225, 225)}
BODIES = ((20, 15, 15), (50, 48, 48), (40, 38, 38))
"""The tiles' black (BGR) with each palette: printed black photographs anywhere from near black to dark grey."""
RIM = 14
"""How much lighter the rounded rim of a tile catches the light."""
SIDE = (18, 17, 17)
"""The tiles' sides, seen where perspective uncovers them."""
THICKNESS_MM = 5.0
HFOV_DEG = 62.0
"""Horizontal field of view of the imitated camera (a Raspberry Pi camera module)."""
LIGHT_STEP = 8
"""The light (gain) map is computed on a grid this many pixels apart, then interpolated."""
TILE_MM = 44.0
"""A real tile's width across flats: table textures are drawn to this scale."""


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of a black body at `kelvin`, relative to 6500 K (green = 1): the colour cast of a lamp."""

    def srgb(k: float) -> np.ndarray:
        t = k / 100.0
        r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
        return (np.clip([r, g, b], 1.0, 255.0) / 255.0) ** 2.2

    rgb = srgb(kelvin) / srgb(6500.0)
    return rgb / rgb[1]


# -- camera ---------------------------------------------------------------------------------------
def focal_px(width: int, hfov_deg: float = HFOV_DEG) -> float:
    """Focal length in pixels of the imitated camera for an image `width` pixels wide."""
    return width / (2.0 * math.tan(math.radians(hfov_deg) / 2.0))


class Lens:
    """Radial distortion of the OpenCV model (k1, k2) about the image centre, focal length `focal_px`."""

    def __init__(self, size: tuple[int, int], k1: float = 0.0, k2: float = 0.0) -> None:
        self.size, self.k1, self.k2 = size, k1, k2
        self.f = focal_px(size[0])
        self.c = np.array([(size[0] - 1) / 2.0, (size[1] - 1) / 2.0])

    def __bool__(self) -> bool:
        return bool(self.k1 or self.k2)

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Where points of the ideal (pinhole) image land in the photo."""
        if not self:
            return pts
        n = (pts - self.c) / self.f
        r2 = (n * n).sum(axis=-1, keepdims=True)
        return n * (1 + self.k1 * r2 + self.k2 * r2 * r2) * self.f + self.c

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
    f = focal_px(w)
    k = np.array([[f, 0, (w - 1) / 2.0], [0, f, (h - 1) / 2.0], [0, 0, 1.0]])
    step = 4
    ys, xs = np.mgrid[0:h + step:step, 0:w + step:step].astype(np.float32)
    ideal = cv2.undistortPoints(np.dstack([xs, ys]).reshape(-1, 1, 2), k, np.array([k1, k2, 0.0, 0.0]), P=k)
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


def _apply(hom: np.ndarray, pts) -> np.ndarray:
    """Points (n x 2) mapped by a homography."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ hom.T
    return q[:, :2] / q[:, 2:3]


def _affine(angle_deg: float, tx: float, ty: float) -> np.ndarray:
    """3x3 matrix: turn clockwise (image axes) by `angle_deg`, then move by (tx, ty)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, tx], [s, c, ty], [0, 0, 1.0]])


def edge_midpoint(d: int, size: float = 1.0) -> tuple[float, float]:
    """Midpoint of edge d of a hexagon of circumradius `size` centred on (0, 0)."""
    a = math.radians(edge_angle(d))
    return (size * SQRT3 / 2 * math.cos(a), size * SQRT3 / 2 * math.sin(a))


# -- tiles ----------------------------------------------------------------------------------------
@lru_cache(maxsize=128)  # a whole set at one size and palette, not more: big tiles are big
def tile_sprite(number: int, face_up: bool, radius_px: float, arc_width: float, palette: int) -> np.ndarray:
    """BGRA picture (colour premultiplied by alpha) of one tile in its stored turn, circumradius `radius_px`."""
    ss = 4 if radius_px < 40 else 2 if radius_px < 120 else 1  # supersampling for clean small tiles
    half = int(math.ceil(radius_px)) + 2
    n = 2 * half + 1
    big = n * ss
    c = half * ss + (ss - 1) / 2.0
    rr = radius_px * ss

    def pts(points):
        return np.array([[c + x, c + y] for x, y in points]).round().astype(np.int32)

    rc = 0.07 * rr  # rounded corners
    hexagon = corners((0, 0), rr - rc)
    img = np.zeros((big, big, 3), np.uint8)
    alpha = np.zeros((big, big), np.uint8)
    cv2.fillPoly(alpha, [pts(hexagon)], 255)
    cv2.polylines(alpha, [pts(hexagon)], True, 255, max(1, int(2 * rc)))
    body = BODIES[palette]
    cv2.polylines(img, [pts(hexagon)], True, tuple(v + RIM for v in body), max(1, int(2 * rc)))
    cv2.fillPoly(img, [pts(corners((0, 0), rr - 1.6 * rc))], body)
    if face_up:
        colours = PALETTES[palette]
        width = max(1, int(round(arc_width * rr)))
        inner = np.zeros((big, big), np.uint8)  # arcs stop a hair short of the edge, like the print
        cv2.fillPoly(inner, [pts(corners((0, 0), rr * 0.965))], 255)
        paint = img.copy()
        for arc in TILES[number].arcs:
            path = pts(arc_points((0, 0), *arc.edges, rr, steps=32))
            cv2.polylines(paint, [path], False, (20, 20, 20), width + max(2, width // 3), cv2.LINE_8)
            cv2.polylines(paint, [path], False, colours[arc.colour], width, cv2.LINE_8)
        img = np.where(inner[..., None] > 0, paint, img)
    else:
        tile = TILES[number]
        text = str(number)
        scale = rr / 42.0
        thick = max(1, int(round(rr / 14)))
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
        org = (int(c - tw / 2), int(c + th / 2))
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_DUPLEX, scale, BACK_INK[tile.back], thick, cv2.LINE_8)
        cv2.circle(img, (int(c - tw / 2 - 0.12 * rr), int(c - th / 2)), max(1, int(0.07 * rr)), BACK_INK[tile.back],
                   max(1, thick // 2))
    img = (img.astype(np.uint16) * alpha[..., None] // 255).astype(np.uint8)  # premultiplied: clean warped edges
    sprite = np.dstack([img, alpha])
    if ss > 1:
        sprite = cv2.resize(sprite, (n, n), interpolation=cv2.INTER_AREA)
    return sprite


# -- tables ---------------------------------------------------------------------------------------
def _noise(rng: np.random.Generator, shape: tuple[int, int], cell: float | tuple[float, float]) -> np.ndarray:
    """Smooth value noise of about unit spread, features `cell` texels across (or (rows, columns))."""
    h, w = shape
    cy, cx = cell if isinstance(cell, tuple) else (cell, cell)
    gh, gw = max(2, int(h / max(cy, 1.0)) + 2), max(2, int(w / max(cx, 1.0)) + 2)
    small = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) * 0.6


def _coords(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Row and column numbers as float32 arrays that broadcast to `shape`."""
    return np.arange(shape[0], dtype=np.float32)[:, None], np.arange(shape[1], dtype=np.float32)[None, :]


def table_texture(kind: str, rng: np.random.Generator, shape: tuple[int, int], texel_mm: float) -> np.ndarray:
    """A table surface (BGR uint8) of `shape` texels, each `texel_mm` millimetres wide (planks run along x)."""
    h, w = shape
    mm = 1.0 / texel_mm  # texels per millimetre
    if kind in ("wood", "dark_wood"):
        base = np.array([72, 138, 192] if kind == "wood" else [34, 56, 88], np.float32) * rng.uniform(0.85, 1.1)
        yy, xx = _coords(shape)
        plank = rng.uniform(90, 160) * mm
        row = np.floor(yy / plank)
        phase = yy + 5 * mm * _noise(rng, shape, (6 * mm, 250 * mm)) + 3 * mm * _noise(rng, shape, (40 * mm, 900 * mm))
        grain = 0.5 + 0.5 * np.sin(phase * (2 * math.pi / (rng.uniform(2.5, 5.0) * mm)) + row * 2.1)
        tone = 1 - 0.22 * grain ** 3 + 0.06 * np.sin(row * 2.3 + 1) + 0.04 * _noise(rng, shape, 60 * mm)
        seam = np.abs(yy - (row + 0.5) * plank) > plank / 2 - max(1.0, 0.6 * mm)
        ends = np.abs(((xx + row * 0.37 * 1000 * mm) % (1000 * mm)) - 500 * mm) < max(0.6, 0.4 * mm)
        tone = np.where(seam | ends, np.float32(0.6), tone)
        img = tone[..., None] * base
    elif kind == "felt":
        base = np.array(rng.choice([[45, 150, 45], [125, 72, 25], [45, 45, 150], [88, 88, 88]]), np.float32)
        tone = 1 + 0.06 * _noise(rng, shape, 15 * mm) + 0.05 * rng.standard_normal(shape).astype(np.float32)
        img = tone[..., None] * base
    elif kind == "cloth":
        base = np.array(rng.choice([[228, 230, 232], [200, 222, 236], [215, 215, 205]]), np.float32)
        yy, xx = _coords(shape)
        period = max(3.0, rng.uniform(0.8, 1.5) * mm)
        weave = np.sin(xx * (2 * math.pi / period)) * np.sin(yy * (2 * math.pi / period))
        tone = 1 + 0.05 * weave + 0.05 * _noise(rng, shape, 80 * mm)
        img = tone[..., None] * base
    elif kind == "laminate":
        base = np.array(rng.choice([[150, 150, 148], [170, 190, 205], [205, 205, 200]]), np.float32)
        tone = 1 + 0.025 * _noise(rng, shape, 3 * mm) + 0.03 * _noise(rng, shape, 100 * mm)
        img = tone[..., None] * base
    elif kind == "pattern":
        a, b = rng.choice([[[235, 235, 235], [60, 60, 200]], [[230, 230, 230], [150, 90, 40]],
                           [[220, 240, 245], [60, 150, 60]], [[40, 40, 40], [180, 180, 180]]], axis=0)
        yy, xx = _coords(shape)
        sq = rng.uniform(10, 25) * mm
        mix = ((np.floor(xx / sq) % 2) + (np.floor(yy / sq) % 2)) / 2.0  # gingham: 0, 0.5, 1
        img = (1 - mix)[..., None] * np.float32(a) + mix[..., None] * np.float32(b)
        img *= (1 + 0.04 * _noise(rng, shape, 50 * mm))[..., None]
    else:
        raise ValueError(f"unknown table {kind!r}: one of {', '.join(TABLES)}")
    return np.clip(img, 0, 255).astype(np.uint8)


# -- boards ---------------------------------------------------------------------------------------
def random_board(rng: np.random.Generator, n: int, legal: bool = True) -> Board:
    """A connected board of up to `n` different tiles grown from one; with `legal`, touching edges agree.

    A legal board may stop short of `n` when no remaining tile fits any free cell.
    """
    numbers = [int(x) for x in rng.permutation(sorted(TILES))]
    board = Board([Placement(numbers.pop(), 0, 0, int(rng.integers(6)))])
    while len(board) < n and numbers:
        free = sorted(board.empty_neighbours())
        placed = False
        for cell in (free[i] for i in rng.permutation(len(free))):
            facing = board.facing(cell)
            for k, number in enumerate(numbers):
                for rot in rng.permutation(6):
                    p = Placement(number, cell[0], cell[1], int(rot))
                    if not legal or all(f is None or p.colour(d) == f for d, f in enumerate(facing)):
                        board.place(p)
                        numbers.pop(k)
                        placed = True
                        break
                if placed:
                    break
            if placed:
                break
        if not placed:
            break
    return board


# -- the scene ------------------------------------------------------------------------------------
def _hand_place(seed: int, tile: int, key: tuple[int, int]) -> tuple[float, float, float]:
    """A placed-by-hand offset (dx, dy in circumradii) and twist (degrees), fixed by seed, tile and cell."""
    r = np.random.default_rng([seed & 0xFFFFFFFF, tile, key[0] + 1000, key[1] + 1000])
    dx, dy = np.clip(r.normal(0, 0.018, 2), -0.04, 0.04)
    return float(dx), float(dy), float(np.clip(r.normal(0, 1.5), -4, 4))


def render(board: Board, *, seed: int = 0, size: tuple[int, int] = (1640, 1232), tile_px: float = 90.0,
           yaw_deg: float = 0.0, tilt_deg: float = 0.0, tilt_azimuth_deg: float | None = None,
           light_k: float = 5000.0, awb: float = 0.6, exposure: float = 1.0, table: str = "wood", glare: float = 0.0,
           blur: float = 0.6, noise: float = 1.0, jpeg_quality: int | None = 85,
           loose: tuple[int, ...] | list[int] = (), face_down: tuple[int, ...] | list[int] = (),
           loose_style: str = "scattered", occluder: str | tuple[float, float] | None = None,
           center: tuple[float, float] | None = None, focus: tuple[float, float] | None = None,
           gap: float = 0.03, k1: float = 0.0, k2: float = 0.0, frame: int = 0) -> tuple[np.ndarray, dict]:
    """Photograph `board` on a table; returns (image BGR uint8 of `size` (w, h), truth dict).

    tile_px: tile size across flats at the image centre. yaw_deg: the board turned clockwise on the
    table. tilt_deg: the camera's axis from vertical (towards `tilt_azimuth_deg`, random when None).
    light_k: colour temperature (2700 warm lamp .. 6500 daylight), `awb` the share of it the camera's
    white balance removes. exposure: scales the light (0.3: a dim room the camera could not make up
    for). glare: strength of a specular spot (0 none, 1 blows out its centre). blur: gaussian sigma in
    pixels. noise: sensor noise (1 = a Pi camera in good light).
    jpeg_quality: None keeps the raw frame. loose / face_down: tile numbers lying apart from the board
    (face up / showing their backs); loose_style: "scattered", or "row" (the loose tiles side by side,
    a player's hand). occluder: "hand" (a hand and arm reaching over the board) or the
    (x, y) pixel where the hand reaches. center: the image pixel under the board's focus point;
    focus: grid point (q, r) of the board put there (default: the board's middle); gap: the space
    between neighbouring tiles as a share of the circumradius. k1, k2: radial lens distortion of the
    OpenCV model about the image centre (focal length `focal_px(width)`; a Pi camera has k1 about
    -0.1). frame: varies only the sensor noise.
    """
    w, h = size
    lens = Lens(size, k1, k2)
    on_board = board.tiles
    for n in [*loose, *face_down]:
        if n not in TILES or n in on_board:
            raise ValueError(f"loose or face-down tile {n!r}: give tile numbers 1..56 that are not on the board")
    if len(set(loose) | set(face_down)) < len(loose) + len(face_down):
        raise ValueError("a tile can lie apart from the board only once")
    if loose_style not in ("scattered", "row"):
        raise ValueError(f"loose_style {loose_style!r}: 'scattered' or 'row'")
    if isinstance(occluder, str) and occluder != "hand":
        raise ValueError(f"occluder {occluder!r}: 'hand' or the (x, y) pixel the hand reaches")
    # one random stream per part of the scene, so that a board growing frame by frame keeps its table and light
    rng, apart_rng, table_rng, hand_rng, light_rng = (np.random.default_rng([seed & 0xFFFFFFFF, part])
                                                      for part in (17, 18, 19, 20, 21))
    if tilt_azimuth_deg is None:
        tilt_azimuth_deg = float(rng.uniform(0, 360))
    s = tile_px / SQRT3 / (1.0 - gap)  # grid circumradius in pixels: tile plus gap
    placements = list(board)
    if focus is None:
        pts = [centre(p.cell, s) for p in placements] or [(0.0, 0.0)]
        lo, hi = np.min(pts, axis=0), np.max(pts, axis=0)
        fx, fy = (lo + hi) / 2.0
    else:
        fx, fy = centre(focus, s)
    cam = camera_homography(size, tilt_deg, tilt_azimuth_deg, center=center)
    board_to_img = cam @ _affine(yaw_deg, 0, 0) @ np.array([[1, 0, -fx], [0, 1, -fy], [0, 0, 1.0]])

    # physical tiles: (number, face_up, on_board, placement, pose in board px: x, y, angle)
    palette = int(rng.integers(len(PALETTES)))
    arc_width = float(rng.choice([0.18, 0.23, 0.28]))
    items = []
    for p in placements:
        dx, dy, twist = _hand_place(seed, p.tile, p.cell)
        cx, cy = centre(p.cell, s)
        items.append((p.tile, True, p, (cx + dx * s, cy + dy * s, 60.0 * p.rot + twist)))
    taken = [i[3][:2] for i in items]
    if loose_style == "row" and loose:
        apart = _place_row(apart_rng, taken, len(loose), s, board_to_img, size)
        apart += _place_apart(apart_rng, taken + [a[:2] for a in apart], len(face_down), s, board_to_img, size)
    else:
        apart = _place_apart(apart_rng, taken, len(loose) + len(face_down), s, board_to_img, size)
    for n, up, (x, y, ang) in zip([*loose, *face_down], [True] * len(loose) + [False] * len(face_down), apart,
                                  strict=True):
        items.append((n, up, None, (x, y, ang)))

    radius = s * (1.0 - gap)
    img, tile_mask, shadow = _table_and_tiles(table_rng, kind=table, items=items, radius=radius,
                                              board_to_img=board_to_img, size=size, arc_width=arc_width,
                                              palette=palette, lens=lens)
    if lens:
        img, tile_mask = lens.apply(img), lens.apply(tile_mask)
    hand_mask = None
    if occluder is not None:
        reach = tuple(occluder) if not isinstance(occluder, str) else None
        hand_mask = _draw_hand(img, hand_rng, reach, tile_px, size, tile_mask)
        tile_mask = cv2.subtract(tile_mask, hand_mask)  # tiles under the hand neither shine nor shade
    glare_at = lens.distort(_apply(board_to_img, [(fx + light_rng.uniform(-1.5, 1.5) * tile_px,
                                                   fy + light_rng.uniform(-1.5, 1.5) * tile_px)]))[0]
    img = _camera(img, light_rng, tile_mask, shadow, hand_mask, glare_at=glare_at, seed=seed, frame=frame,
                  light_k=light_k, awb=awb, exposure=exposure, glare=glare, blur=blur, noise=noise, tile_px=tile_px,
                  jpeg_quality=jpeg_quality)
    truth = _truth(items, radius, board_to_img, lens, hand_mask, img if glare > 0 else None, loose_style)
    truth.update({
        "format": FORMAT, "seed": seed, "width": w, "height": h, "board": board.to_dict(),
        "params": {"tile_px": tile_px, "yaw_deg": yaw_deg, "tilt_deg": tilt_deg,
                   "tilt_azimuth_deg": tilt_azimuth_deg, "light_k": light_k, "awb": awb, "exposure": exposure,
                   "table": table, "glare": glare, "blur": blur, "noise": noise, "jpeg_quality": jpeg_quality,
                   "loose_style": loose_style, "occluder": occluder, "center": center, "focus": focus, "gap": gap,
                   "k1": k1, "k2": k2, "frame": frame, "palette": palette, "arc_width": arc_width},
        "homography_board_to_px": board_to_img.tolist(),
    })
    return img, truth


def _place_row(rng, taken, count, s, board_to_img, size):
    """Poses for `count` tiles side by side in a row (a player's hand), inside the image, away from the board."""
    w, h = size
    inv = np.linalg.inv(board_to_img)
    step = 1.12 * SQRT3 * s
    best, best_d = None, -1.0
    for _ in range(300):
        u, v = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        x, y = _apply(inv, [(u, v)])[0]
        a = rng.uniform(0, math.pi)
        offsets = (np.arange(count) - (count - 1) / 2) * step
        row = np.column_stack([x + offsets * math.cos(a), y + offsets * math.sin(a)])
        img_pts = _apply(board_to_img, row)
        margin = 0.6 * step
        if not np.all((img_pts > margin) & (img_pts < np.array([w, h]) - margin)):
            continue
        d = min((math.dist(p, q) for p in row for q in taken), default=1e9)
        if d > best_d:
            best, best_d = (row, math.degrees(a)), d
        if d > 3.2 * s:
            break
    if best is None:  # no room for the whole row: let it run out of the frame
        best = (np.array([[3.2 * s * (i + 2), 0.0] for i in range(count)]), 0.0)
    row, ang = best
    return [(float(x), float(y), ang + float(rng.normal(0, 4))) for x, y in row]


def _place_apart(rng, taken, count, s, board_to_img, size):
    """Poses (x, y, angle) in board px for `count` tiles lying apart from the board, inside the image."""
    w, h = size
    inv = np.linalg.inv(board_to_img)
    taken = list(taken)
    out = []
    for _ in range(count):
        best, best_d = None, -1.0
        for _ in range(200):
            u, v = rng.uniform(0.08, 0.92) * w, rng.uniform(0.08, 0.92) * h
            x, y = _apply(inv, [(u, v)])[0]
            d = min((math.hypot(x - a, y - b) for a, b in taken), default=1e9)
            if d > best_d:
                best, best_d = (float(x), float(y)), d
            if d > 3.2 * s:
                break
        taken.append(best)
        out.append((best[0], best[1], float(rng.uniform(0, 360))))
    return out


def _table_and_tiles(rng, *, kind, items, radius, board_to_img, size, arc_width, palette, lens):
    """The table seen through the camera with the tiles on it; the tiles' mask and their shadows (light map scale)."""
    w, h = size
    # the table texture is drawn axis-aligned in millimetres, then turned and seen through the camera
    px_per_mm = radius * SQRT3 / TILE_MM
    to_board = _affine(float(rng.uniform(0, 180)), 0, 0) @ np.diag([px_per_mm, px_per_mm, 1.0])
    tex_from_img = np.linalg.inv(board_to_img @ to_board)
    plane = _apply(tex_from_img, [(0, 0), (w, 0), (w, h), (0, h)])
    lo, hi = plane.min(axis=0) - 4, plane.max(axis=0) + 4
    texel = max(2.0 / px_per_mm, float(max(hi - lo)) / 640.0)  # millimetres per texel
    shape = (int((hi[1] - lo[1]) / texel) + 2, int((hi[0] - lo[0]) / texel) + 2)
    tex = table_texture(kind, rng, shape, texel)
    tex_to_img = board_to_img @ to_board @ np.array([[texel, 0, lo[0]], [0, texel, lo[1]], [0, 0, 1.0]])
    # warped at half size then doubled: the texture has no finer detail than that, and it is twice as fast
    to_half = np.diag([0.5, 0.5, 1.0]) @ np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1.0]])
    img = cv2.warpPerspective(tex, to_half @ tex_to_img, ((w + 1) // 2, (h + 1) // 2), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)

    # soft contact shadows beside the tiles, away from the light, at the resolution of the light map
    shadow = np.zeros((-(-h // LIGHT_STEP), -(-w // LIGHT_STEP)), np.uint8)
    a = rng.uniform(0, 2 * math.pi)
    off = rng.uniform(0.05, 0.12) * radius * np.array([math.cos(a), math.sin(a)])
    for _, _, _, (x, y, ang) in items:
        poly = lens.distort(_apply(board_to_img @ _affine(ang, x + off[0], y + off[1]), corners((0, 0), radius)))
        poly /= LIGHT_STEP
        cv2.fillPoly(shadow, [np.round(poly * 4).astype(np.int32)], 255, cv2.LINE_AA, 2)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.7, 0.1 * radius / LIGHT_STEP)).astype(np.float32) / 255.0

    mask = np.zeros((h, w), np.uint8)
    principal = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    lift = THICKNESS_MM * radius * SQRT3 / TILE_MM / focal_px(w)
    for number, face_up, _, (x, y, ang) in items:
        # the tile's side: its top face is nearer the camera, so it sits a little further from the image centre
        top = _apply(board_to_img @ _affine(ang, x, y), corners((0, 0), radius * 0.97))
        foot = principal + (top - principal) * (1.0 - lift)
        side = cv2.convexHull(np.round(np.vstack([top, foot]) * 4).astype(np.int32))
        cv2.fillPoly(img, [side], SIDE, cv2.LINE_AA, 2)
        sprite = tile_sprite(number, face_up, round(radius * 4) / 4, arc_width, palette)
        half = (sprite.shape[0] - 1) / 2.0
        m = board_to_img @ _affine(ang, x, y) @ np.array([[1, 0, -half], [0, 1, -half], [0, 0, 1.0]])
        box = _apply(m, [(0, 0), (2 * half, 0), (2 * half, 2 * half), (0, 2 * half)])
        x0, y0 = np.floor(box.min(axis=0)).astype(int)
        x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 1
        x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x0c >= x1c or y0c >= y1c:
            continue
        warped = cv2.warpPerspective(sprite, np.array([[1, 0, -x0c], [0, 1, -y0c], [0, 0, 1.0]]) @ m,
                                     (x1c - x0c, y1c - y0c), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        clear = 255 - warped[..., 3]
        roi = img[y0c:y1c, x0c:x1c]
        roi[:] = cv2.add(cv2.multiply(roi, cv2.merge([clear, clear, clear]), scale=1 / 255.0), warped[..., :3])
        np.maximum(mask[y0c:y1c, x0c:x1c], warped[..., 3], out=mask[y0c:y1c, x0c:x1c])
    return img, mask, shadow


def _draw_hand(img, rng, reach, tile_px, size, tile_mask):
    """Paint a hand and forearm reaching from the frame edge to `reach` (or over the tiles); its mask."""
    w, h = size
    if reach is None:
        ys, xs = np.nonzero(tile_mask[::8, ::8])
        if len(xs):
            i = int(rng.integers(len(xs)))
            reach = (xs[i] * 8.0, ys[i] * 8.0)
        else:
            reach = (w / 2.0, h / 2.0)
    side = int(rng.integers(4))
    start = [(rng.uniform(0.2, 0.8) * w, -tile_px), (w + tile_px, rng.uniform(0.2, 0.8) * h),
             (rng.uniform(0.2, 0.8) * w, h + tile_px), (-tile_px, rng.uniform(0.2, 0.8) * h)][side]
    rx, ry = reach
    ang = math.atan2(ry - start[1], rx - start[0])
    ux, uy = math.cos(ang), math.sin(ang)
    # proportions of a real hand against a 44 mm tile: forearm ~65 mm, palm ~85 x 100 mm, fingers ~75 mm
    arm_w = 1.5 * tile_px
    palm = (rx - ux * 0.9 * tile_px, ry - uy * 0.9 * tile_px)
    mask = np.zeros((h, w), np.uint8)
    cv2.line(mask, (int(start[0]), int(start[1])), (int(palm[0]), int(palm[1])), 255, int(arm_w), cv2.LINE_AA)  # arm
    cv2.ellipse(mask, (int(palm[0]), int(palm[1])), (int(1.15 * tile_px), int(0.95 * tile_px)),
                math.degrees(ang), 0, 360, 255, -1, cv2.LINE_AA)

    def limb(a, b, width):
        cv2.line(mask, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 255, max(2, int(width)), cv2.LINE_AA)

    def at(along, across):  # a point on the hand: `along` the arm and `across` it, in tile sizes from the palm
        return (palm[0] + (ux * along - uy * across) * tile_px, palm[1] + (uy * along + ux * across) * tile_px)

    for k, spread in enumerate((-0.7, -0.24, 0.24, 0.7)):
        length = 1.45 + 0.25 * (k in (1, 2))
        limb(at(0.7, spread), at(0.7 + length, spread), 0.38 * tile_px)
    limb(palm, at(0.6, -1.3), 0.45 * tile_px)  # thumb
    skin = np.array(rng.choice([[150, 180, 225], [120, 155, 205], [80, 110, 160], [60, 80, 115]]), np.float32)
    ys, xs = np.nonzero(mask)
    if not len(xs):
        return mask
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    m = mask[y0:y1, x0:x1]
    # rounded shading: brighter along the middle of each limb
    dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.7 + 0.3 * np.clip(dist / (0.3 * tile_px), 0, 1)
    a = (m.astype(np.float32) / 255.0)[..., None]
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi * (1 - a) + (shade[..., None] * skin) * a).astype(np.uint8)
    return mask


def _camera(img, rng, tile_mask, shadow, hand_mask, *, glare_at, seed, frame, light_k, awb, exposure, glare, blur,
            noise, tile_px, jpeg_quality):
    """Light, optics and sensor: colour cast, uneven light, shadows, glare, blur, noise, JPEG.

    The picture is encoded with gamma 2 (close to sRGB), so light that multiplies the linear image
    multiplies the 8-bit values by its square root, and the grain of shot noise has the same spread at
    every brightness (a variance-stabilising transform): both can be done on 8-bit values, fast.
    """
    h, w = img.shape[:2]
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur)

    # one light map at low resolution: vignetting, a gentle gradient across the table, shadows, colour cast
    q = LIGHT_STEP
    gy, gx = np.mgrid[0:h:q, 0:w:q].astype(np.float32)
    nx, ny = (gx - w / 2) / (w / 2), (gy - h / 2) / (h / 2)
    vig = rng.uniform(0.1, 0.3)
    ga = rng.uniform(0, 2 * math.pi)
    gain = (1 - vig * (nx * nx + ny * ny) / 2) * (1 + rng.uniform(0, 0.25) * (nx * math.cos(ga) + ny * math.sin(ga)))
    gain *= rng.uniform(0.9, 1.35) * exposure
    free = 1 - tile_mask[::q, ::q].astype(np.float32) / 255.0  # where shadows can fall: not on tile tops
    if hand_mask is not None:
        hand = hand_mask[::q, ::q].astype(np.float32) / 255.0
        free *= 1 - hand
        held = max(1.0, 0.4 * tile_px / q)  # the hand is well above the table: a wide, soft shadow
        hand_shadow = cv2.GaussianBlur(np.roll(hand, (int(held), int(held)), axis=(0, 1)), (0, 0), held)
        gain *= 1 - 0.35 * hand_shadow * (1 - hand)
    gain *= 1 - 0.5 * shadow * free
    cast = kelvin_rgb(light_k)[::-1] ** (1.0 - awb)  # BGR, linear
    light = np.dstack([np.sqrt(gain * np.float32(c)) * 64 for c in cast]).clip(0, 255).astype(np.uint8)
    light = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.multiply(img, light, scale=1 / 64.0)

    if glare > 0:
        gx0, gy0 = glare_at
        sig = tile_px * rng.uniform(0.5, 1.2)
        r = int(3 * sig)
        x0, x1, y0, y1 = max(0, int(gx0) - r), min(w, int(gx0) + r), max(0, int(gy0) - r), min(h, int(gy0) + r)
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d2 = ((xx - gx0) ** 2 + (yy - gy0) ** 2) / (sig * sig)
        spot = glare * (0.9 * np.exp(-d2 * 2.0) + 0.35 * np.exp(-d2 / 2.0))
        gloss = 0.3 + 0.7 * tile_mask[y0:y1, x0:x1].astype(np.float32) / 255.0  # the glossy tiles shine most
        if hand_mask is not None:
            gloss *= 1 - 0.7 * hand_mask[y0:y1, x0:x1].astype(np.float32) / 255.0
        roi = out[y0:y1, x0:x1].astype(np.float32) / 255.0  # glare adds light: back to linear for this patch
        lin = roi * roi + (spot * gloss)[..., None] * np.sqrt(cast).astype(np.float32)
        out[y0:y1, x0:x1] = (np.sqrt(np.clip(lin, 0, 1)) * 255.0).astype(np.uint8)

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


def _truth(items, radius, board_to_img, lens, hand_mask, glared, loose_style):
    """Per physical tile: where it is in the image, its corners and edge samples, what hides it.

    `glared` is the final image when there is glare: a tile whose face (shrunk to 85 %) has a median
    brightness over 140 or more than 30 % clipped is `washed_out`, as in the dataset truth.
    """
    w, h = lens.size
    if not items:
        return {"tiles": [], "tile_size_px": {"across_flats_median": 0.0}}
    # every tile's centre, corners, edge midpoints and edge samples, mapped into the image at once
    local = np.array([(0.0, 0.0), *corners((0, 0), radius), *(edge_midpoint(d, radius) for d in range(6)),
                      *((0.8 * x, 0.8 * y) for x, y in (edge_midpoint(d, radius) for d in range(6)))])
    mats = np.array([board_to_img @ _affine(ang, x, y) for _, _, _, (x, y, ang) in items])
    pts = np.einsum("tij,pj->tpi", mats, np.column_stack([local, np.ones(len(local))]))
    pts = lens.distort(pts[..., :2] / pts[..., 2:3])
    centres, cs, mids, samples = pts[:, 0], pts[:, 1:7], pts[:, 7:13], pts[:, 13:19]
    flats = np.linalg.norm(mids[:, :3] - mids[:, 3:], axis=2).mean(axis=1)
    inside = ((cs[..., 0] >= 0) & (cs[..., 0] < w) & (cs[..., 1] >= 0) & (cs[..., 1] < h)).sum(axis=1)
    occluded = np.zeros(len(items))
    if hand_mask is not None:
        probe = np.concatenate([centres[:, None], (cs + centres[:, None]) / 2, cs * 0.85 + centres[:, None] * 0.15,
                                samples], axis=1).astype(int)
        ok = (probe[..., 0] >= 0) & (probe[..., 0] < w) & (probe[..., 1] >= 0) & (probe[..., 1] < h)
        hit = hand_mask[probe[..., 1].clip(0, h - 1), probe[..., 0].clip(0, w - 1)] > 127
        occluded = (hit & ok).sum(axis=1) / np.maximum(ok.sum(axis=1), 1)
    e0 = mids[:, 0] - centres
    angles = np.degrees(np.arctan2(e0[:, 1], e0[:, 0]))
    grey = cv2.cvtColor(glared, cv2.COLOR_BGR2GRAY) if glared is not None else None
    tiles = []
    for k, (number, face_up, p, (_, _, ang)) in enumerate(items):
        washed = False
        if grey is not None and inside[k] == 6:
            x0, y0 = np.floor(cs[k].min(axis=0)).astype(int)
            x1, y1 = np.ceil(cs[k].max(axis=0)).astype(int) + 1
            face = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(face, [np.round(centres[k] - (x0, y0) + 0.85 * (cs[k] - centres[k])).astype(np.int32)], 255)
            luma = grey[y0:y1, x0:x1][face > 0]
            washed = bool(np.count_nonzero(luma > 140) * 2 > luma.size
                          or np.count_nonzero(luma >= 250) > 0.3 * luma.size)
        sample_px = samples[k].round(2).tolist()
        entry = {
            "tile": number, "on_board": p is not None, "face_up": face_up,
            "center_px": centres[k].round(2).tolist(),
            "corners_px": cs[k].round(2).tolist(),
            "across_flats_px": round(float(flats[k]), 2),
            "edge0_normal_angle_px_deg": round(float(angles[k]), 2),
            "edges": [{"edge": i, "colour": TILES[number].edges[i] if face_up else None, "sample_px": sample_px[i],
                       **({"direction": (i + p.rot) % 6} if p is not None else {})} for i in range(6)],
            "fraction_in_image": int(inside[k]) / 6.0,
            "occluded_fraction": round(float(occluded[k]), 3),
            "washed_out": washed,
            "twist_deg": round(ang - 60.0 * p.rot, 2) if p is not None else None,
        }
        if p is not None:
            entry.update({"q": p.q, "r": p.r, "rot": p.rot})
        else:
            entry["loose_style"] = loose_style if face_up else "scattered"
        tiles.append(entry)
    return {"tiles": tiles, "tile_size_px": {"across_flats_median": round(float(np.median(flats)), 2)}}
