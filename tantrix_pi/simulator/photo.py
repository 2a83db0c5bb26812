"""The scene and its truth: a photo of a Tantrix table drawn from a `Board`, fast and deterministically.

`render(board, seed=...)` lays the board's tiles on a table as hands place them (small gaps and twists),
turns the board by `yaw_deg`, looks at it through a tilted pinhole camera and its lens, and imitates the
light and the sensor. Loose tiles, face-down tiles and a hand over the board can be added.

Everything random comes from `seed` (a tile's hand-placed pose from the seed, the tile and its cell,
so a growing board keeps its tiles still; `frame` varies only the sensor noise). The image is what a
camera above the table sees: clockwise on the table is clockwise in the image.

The truth (a JSON-ready dict) follows the dataset truth of `dataset/dev` where it can: `board`,
`tiles[]` with `tile`, `on_board`, `face_up`, `q`, `r`, `rot`, `center_px`, `corners_px`,
`across_flats_px`, `edges[]` (`colour`, `sample_px`, `direction`), `fraction_in_image`,
`washed_out`, plus `occluded_fraction` (share of the tile under a hand or clutter), the clutter and the
parameters used.
See docs/simulator.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import cv2
import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import SQRT3, Cell, centre, corners, edge_midpoint
from tantrix_pi.simulator.camera import Lens, camera_homography, focal_px, pose, sensor, to_image
from tantrix_pi.simulator.light import LIGHT_STEP, illuminate, shadow_across
from tantrix_pi.simulator.objects import CLUTTER, EDGES, Clutter, draw_clutter, draw_hand
from tantrix_pi.simulator.sprites import PALETTES, SIDE, tile_sprite
from tantrix_pi.simulator.tables import TABLES, TILE_MM, table_texture
from tantrix_pi.tiles import TILES

FORMAT = "tantrix-pi-synth/1"
"""The truth's format name."""
THICKNESS_MM = 5.0
"""A real tile's thickness: its side shows where perspective uncovers it."""


PLAIN = {"blur": 0.0, "noise": 0.0, "jpeg_quality": None, "glare": 0.0}
"""A plain look: no blur, grain, JPEG or glare (the light's colour and unevenness are still there)."""

LOOSE_STYLES = ("scattered", "row")

Sprites = Callable[[int, bool, float], np.ndarray]
"""(tile number, face up, circumradius px) -> its top face as a square BGRA uint8 picture, colour premultiplied
by alpha, in its stored turn, pointy-top, centred on the picture's middle pixel."""


@dataclass(frozen=True)
class Apart:
    """A tile lying apart from the board where it is asked to: its centre at image pixel `at_px`, turned
    `angle_deg` clockwise from its stored turn (pointy-top) as seen in the image, face up or showing its back."""

    tile: int
    at_px: tuple[float, float]
    angle_deg: float = 0.0
    face_up: bool = True


@dataclass
class Photo:
    """A rendered photo of a table: the image, its truth, and what lies over the tiles."""

    image: np.ndarray
    """BGR uint8 of the asked size (w, h)."""
    truth: dict
    """JSON-ready: where every tile lies in the image and everything used to draw it (docs/simulator.md)."""
    cover: np.ndarray | None
    """uint8 mask at image resolution of everything lying over tiles (a hand and arm, clutter): 255 covered,
    0 clear, soft at its edges; None when nothing does."""


class _Laid(NamedTuple):
    """One physical tile on the table: its pose in board pixels (centre x, y; turn in degrees)."""

    tile: int
    face_up: bool
    placement: Placement | None
    x: float
    y: float
    angle: float
    style: str | None
    """How a tile apart from the board lies: scattered, row (a player's hand) or given (an `Apart`)."""


def render(board: Board, **params) -> tuple[np.ndarray, dict]:
    """Photograph `board` on a table: (image BGR uint8, truth dict); the parameters are `render_scene`'s."""
    photo = render_scene(board, **params)
    return photo.image, photo.truth


def render_scene(board: Board, *, seed: int = 0, size: tuple[int, int] = (1640, 1232), tile_px: float = 90.0,
                 yaw_deg: float = 0.0, tilt_deg: float = 0.0, tilt_azimuth_deg: float | None = None,
                 light_k: float = 5000.0, awb: float = 0.6, exposure: float = 1.0, table: str = "wood",
                 glare: float = 0.0, glare_spots: int = 1, glare_xy: tuple[float, float] | None = None,
                 cast_shadow: float = 0.0, blur: float = 0.6,
                 noise: float = 1.0, jpeg_quality: int | None = 85, loose: Sequence[int] = (),
                 face_down: Sequence[int] = (), loose_style: str = "scattered", apart: Sequence[Apart] = (),
                 occluder: str | tuple[float, float] | None = None, occluder_from: str | None = None,
                 clutter: Sequence[str | Clutter] = (),
                 center: tuple[float, float] | None = None, focus: tuple[float, float] | None = None,
                 gap: float = 0.03, jitter: float = 1.0, rim: float = 1.0, sprites: Sprites | None = None,
                 nudged: Mapping[Cell, tuple[float, float, float]] | None = None,
                 k1: float = 0.0, k2: float = 0.0, frame: int = 0) -> Photo:
    """Photograph `board` on a table: the image of `size` (w, h), its truth and what covers the tiles.

    Camera: tile_px (tile size across flats at the image centre), yaw_deg (the board turned clockwise on
    the table), tilt_deg / tilt_azimuth_deg (the camera's axis from vertical, towards where: random when
    None), center / focus (the image pixel under grid point `focus`, default the board's middle), k1, k2
    (radial lens distortion; a Pi camera has k1 about -0.1), blur (gaussian sigma px), noise (1 = a Pi
    camera in good light), jpeg_quality (None: the raw frame), frame (varies only the grain).
    Light: light_k (2700 warm lamp .. 6500 daylight) and awb (the share of its cast the white balance
    removes), exposure (0.3: a dim room), glare (0 none, 1 blows out a spot's centre) on glare_spots
    spots, the first centred on the image pixel glare_xy (None: near the focus, where the seed puts it), cast_shadow
    (0 none .. 1 black: a big soft shadow across part of the table).
    Table and tiles: table (one of TABLES), gap (between tiles, a share of the circumradius), jitter
    (scales the hand-placed offsets and twists), nudged (board cell -> (dx, dy circumradii, degrees): a tile knocked
    off where it was laid, e.g. by its neighbour's), rim (how much the tiles' rims catch the light), sprites
    (`(tile, face_up, circumradius_px) -> premultiplied BGRA` square picture of the tile's top face in its
    stored turn, pointy-top and centred; default: the drawn tiles).
    Around the board: loose / face_down (tile numbers apart from it where the seed puts them, loose_style
    "scattered" or "row"), apart (`Apart` tiles where asked), occluder ("hand", or the (x, y) pixel a hand
    reaches; occluder_from: the frame edge its arm comes in from, "top", "right", "bottom" or "left", None: the
    seed's), clutter (`Clutter`s or their kinds: cup, coin, die, box, pad). docs/simulator.md has it all.
    ValueError (one line) for a scene that cannot be.
    """
    things = [c if isinstance(c, Clutter) else Clutter(c) for c in clutter]
    _check(board, size=size, tile_px=tile_px, table=table, glare_spots=glare_spots, cast_shadow=cast_shadow,
           loose=loose, face_down=face_down, loose_style=loose_style, apart=apart, occluder=occluder,
           occluder_from=occluder_from, clutter=things, gap=gap, jitter=jitter, rim=rim)
    w, h = size
    lens = Lens(size, k1, k2)
    # one random stream per part of the scene, so that a board growing frame by frame keeps its table and light
    rng, apart_rng, table_rng, hand_rng, light_rng, shade_rng, glare_rng, clutter_rng = (
        np.random.default_rng([seed & 0xFFFFFFFF, part]) for part in range(17, 25))
    if tilt_azimuth_deg is None:
        tilt_azimuth_deg = float(rng.uniform(0, 360))
    s = tile_px / SQRT3 / (1.0 - gap)  # grid circumradius in pixels: tile plus gap
    fx, fy = _focus_point(board, focus, s)
    cam = camera_homography(size, tilt_deg, tilt_azimuth_deg, center=center)
    board_to_img = cam @ pose(yaw_deg, 0, 0) @ np.array([[1, 0, -fx], [0, 1, -fy], [0, 0, 1.0]])

    palette = int(rng.integers(len(PALETTES)))
    arc_width = float(rng.choice([0.18, 0.23, 0.28]))
    draw = sprites or partial(tile_sprite, arc_width=arc_width, palette=palette, rim=rim)
    laid = _lay_board(board, seed, s, jitter, nudged or {})
    laid += _lay_apart(apart_rng, laid, loose, face_down, loose_style, apart, s, board_to_img, lens, yaw_deg)
    radius = s * (1.0 - gap)
    img, tile_mask, shadow = _table_and_tiles(table_rng, kind=table, laid=laid, radius=radius,
                                              board_to_img=board_to_img, size=size, sprites=draw, lens=lens)
    if lens:
        img, tile_mask = lens.apply(img), lens.apply(tile_mask)

    box = _board_box(laid, board_to_img, lens, tile_px)
    standing, clutter_truth = None, []
    if things:
        standing, clutter_truth = draw_clutter(img, clutter_rng, things, tile_px / TILE_MM, box)
        tile_mask = cv2.subtract(tile_mask, standing)
    hand = None
    if occluder is not None:
        reach = tuple(occluder) if not isinstance(occluder, str) else None
        hand = draw_hand(img, hand_rng, reach, tile_px, size, tile_mask, occluder_from)
        tile_mask = cv2.subtract(tile_mask, hand)  # tiles under the hand neither shine nor shade
    cover = hand if standing is None else standing if hand is None else cv2.max(hand, standing)

    glare_at = lens.distort(to_image(board_to_img, [(fx + light_rng.uniform(-1.5, 1.5) * tile_px,
                                                     fy + light_rng.uniform(-1.5, 1.5) * tile_px)]))[0]
    if glare_xy is not None:  # drawn all the same: the rest of the light is as without it
        glare_at = np.array(glare_xy, float)
    more_glare = _more_glare(glare_rng, glare_spots - 1, (fx, fy), board_to_img, lens, tile_px)
    cast = shadow_across(shade_rng, size, cast_shadow) if cast_shadow else None
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    img, spots = illuminate(img, light_rng, tile_mask, shadow, hand, standing,
                            glare_at=glare_at if glare_spots else None, more_glare=more_glare, cast=cast,
                            light_k=light_k, awb=awb, exposure=exposure, glare=glare, tile_px=tile_px)
    img = sensor(img, seed=seed, frame=frame, noise=noise, jpeg_quality=jpeg_quality)

    truth = _truth(laid, radius, board_to_img, lens, cover, img if glare > 0 else None)
    truth.update({
        "format": FORMAT, "seed": seed, "width": w, "height": h, "board": board.to_dict(), "clutter": clutter_truth,
        "glare": [{"center_px": [round(x, 2), round(y, 2)], "sigma_px": round(sig, 2)} for x, y, sig in spots],
        "params": {"tile_px": tile_px, "yaw_deg": yaw_deg, "tilt_deg": tilt_deg,
                   "tilt_azimuth_deg": tilt_azimuth_deg, "light_k": light_k, "awb": awb, "exposure": exposure,
                   "table": table, "glare": glare, "glare_spots": glare_spots, "cast_shadow": cast_shadow,
                   "blur": blur, "noise": noise, "jpeg_quality": jpeg_quality, "loose_style": loose_style,
                   "occluder": occluder, "occluder_from": occluder_from, "center": center, "focus": focus, "gap": gap,
                   "jitter": jitter, "rim": rim,
                   "nudged": [[*cell, *by] for cell, by in sorted((nudged or {}).items())],
                   "sprites": "drawn" if sprites is None else "given", "k1": k1, "k2": k2, "frame": frame,
                   "palette": palette, "arc_width": arc_width},
        "homography_board_to_px": board_to_img.tolist(),
    })
    return Photo(img, truth, cover)


def _focus_point(board: Board, focus, s: float) -> tuple[float, float]:
    """The board point (px) the camera looks at: grid point `focus`, or the middle of the board's cells."""
    if focus is not None:
        return centre(focus, s)
    pts = [centre(p.cell, s) for p in board] or [(0.0, 0.0)]
    lo, hi = np.min(pts, axis=0), np.max(pts, axis=0)
    return tuple((lo + hi) / 2.0)


def _hand_place(seed: int, tile: int, key: tuple[int, int], jitter: float) -> tuple[float, float, float]:
    """A placed-by-hand offset (dx, dy in circumradii) and twist (degrees), fixed by seed, tile and cell.

    At jitter 1, offsets of 0.5 mm and twists of 1.5 degrees (spread), at most 1 mm and 4 degrees.
    """
    r = np.random.default_rng([seed & 0xFFFFFFFF, tile, key[0] + 1000, key[1] + 1000])
    dx, dy = np.clip(r.normal(0, 0.018 * jitter, 2), -0.04 * jitter, 0.04 * jitter)
    return float(dx), float(dy), float(np.clip(r.normal(0, 1.5 * jitter), -4 * jitter, 4 * jitter))


def _lay_board(board: Board, seed: int, s: float, jitter: float, nudged: Mapping[Cell, tuple[float, float, float]]
               ) -> list[_Laid]:
    """The board's tiles on their cells (circumradius `s` px), each a little off as a hand lays it, and those in
    `nudged` knocked further."""
    laid = []
    for p in board:
        dx, dy, twist = (a + b for a, b in zip(_hand_place(seed, p.tile, p.cell, jitter),
                                                nudged.get(p.cell, (0.0, 0.0, 0.0)), strict=True))
        cx, cy = centre(p.cell, s)
        laid.append(_Laid(p.tile, True, p, cx + dx * s, cy + dy * s, 60.0 * p.rot + twist, None))
    return laid


def _board_box(laid, board_to_img, lens, tile_px) -> tuple[float, float, float, float] | None:
    """The image box (x0, y0, x1, y1) of the board's tiles; None for an empty board."""
    pts = [(t.x, t.y) for t in laid if t.placement is not None]
    if not pts:
        return None
    px = lens.distort(to_image(board_to_img, pts))
    (x0, y0), (x1, y1) = px.min(axis=0) - tile_px / 2, px.max(axis=0) + tile_px / 2
    return float(x0), float(y0), float(x1), float(y1)


def _more_glare(rng, count, focus_px, board_to_img, lens, tile_px) -> list[tuple[float, float, float]]:
    """`count` more glare spots (x, y, sigma px), within three tiles of the board's focus point on the table."""
    fx, fy = focus_px
    spots = []
    for _ in range(max(0, count)):
        u, v, size = rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(0.4, 1.2)
        x, y = lens.distort(to_image(board_to_img, [(fx + u * tile_px, fy + v * tile_px)]))[0]
        spots.append((float(x), float(y), float(tile_px * size)))
    return spots


def cell_px(truth: dict, cell: tuple[int, int]) -> tuple[float, float]:
    """The image pixel where the centre of board cell `cell` lies in the photo of `truth` (filled or not)."""
    p = truth["params"]
    s = p["tile_px"] / SQRT3 / (1.0 - p["gap"])
    lens = Lens((truth["width"], truth["height"]), p["k1"], p["k2"])
    x, y = lens.distort(to_image(np.array(truth["homography_board_to_px"]), [centre(cell, s)]))[0]
    return float(x), float(y)


def _check(board, *, size, tile_px, table, glare_spots, cast_shadow, loose, face_down, loose_style, apart, occluder,
           occluder_from, clutter, gap, jitter, rim) -> None:
    """ValueError (one line) when the scene cannot be."""
    if len(size) != 2 or min(size) < 16 or not tile_px > 0:
        raise ValueError(f"size {tuple(size)} and tile_px {tile_px}: at least 16 x 16 pixels, tiles wider than 0")
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}: one of {', '.join(TABLES)}")
    on_board = board.tiles
    given = [a.tile for a in apart]
    for n in [*loose, *face_down, *given]:
        if n not in TILES or n in on_board:
            raise ValueError(f"tile {n!r} apart from the board: give tile numbers 1..56 that are not on the board")
    if len({*loose, *face_down, *given}) < len(loose) + len(face_down) + len(given):
        raise ValueError("a tile can lie apart from the board only once")
    if loose_style not in LOOSE_STYLES:
        raise ValueError(f"loose_style {loose_style!r}: one of {', '.join(LOOSE_STYLES)}")
    if isinstance(occluder, str) and occluder != "hand":
        raise ValueError(f"occluder {occluder!r}: 'hand' or the (x, y) pixel the hand reaches")
    if occluder_from is not None and occluder_from not in EDGES:
        raise ValueError(f"occluder_from {occluder_from!r}: one of {', '.join(EDGES)}")
    for thing in clutter:
        if thing.kind not in CLUTTER:
            raise ValueError(f"clutter {thing.kind!r}: one of {', '.join(CLUTTER)}")
    if glare_spots < 0 or not 0 <= cast_shadow <= 1:
        raise ValueError(f"glare_spots {glare_spots} and cast_shadow {cast_shadow}: spots 0 or more, shadow 0..1")
    if not 0 <= gap < 0.5 or jitter < 0 or rim < 0:
        raise ValueError(f"gap {gap}, jitter {jitter}, rim {rim}: gap 0..0.5 of the circumradius, the others 0 or more")


def _lay_apart(rng, laid, loose, face_down, loose_style, apart, s, board_to_img, lens, yaw_deg) -> list[_Laid]:
    """The tiles apart from the board: `loose` and `face_down` where the seed puts them, `apart` where asked."""
    taken = [(t.x, t.y) for t in laid]
    if loose_style == "row" and loose:
        poses = _place_row(rng, taken, len(loose), s, board_to_img, lens.size)
        poses += _place_apart(rng, taken + [p[:2] for p in poses], len(face_down), s, board_to_img, lens.size)
    else:
        poses = _place_apart(rng, taken, len(loose) + len(face_down), s, board_to_img, lens.size)
    out = [_Laid(n, up, None, x, y, ang, loose_style if up else "scattered")
           for n, up, (x, y, ang) in zip([*loose, *face_down], [True] * len(loose) + [False] * len(face_down), poses,
                                         strict=True)]
    if apart:
        at = to_image(np.linalg.inv(board_to_img), lens.undistort([a.at_px for a in apart]))
        out += [_Laid(a.tile, a.face_up, None, float(x), float(y), a.angle_deg - yaw_deg, "given")
                for a, (x, y) in zip(apart, at, strict=True)]
    return out


def _place_row(rng, taken, count, s, board_to_img, size):
    """Poses for `count` tiles side by side in a row (a player's hand), inside the image, away from the board."""
    w, h = size
    inv = np.linalg.inv(board_to_img)
    step = 1.12 * SQRT3 * s
    best, best_d = None, -1.0
    for _ in range(300):
        u, v = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        x, y = to_image(inv, [(u, v)])[0]
        a = rng.uniform(0, math.pi)
        offsets = (np.arange(count) - (count - 1) / 2) * step
        row = np.column_stack([x + offsets * math.cos(a), y + offsets * math.sin(a)])
        img_pts = to_image(board_to_img, row)
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
            x, y = to_image(inv, [(u, v)])[0]
            d = min((math.hypot(x - a, y - b) for a, b in taken), default=1e9)
            if d > best_d:
                best, best_d = (float(x), float(y)), d
            if d > 3.2 * s:
                break
        taken.append(best)
        out.append((best[0], best[1], float(rng.uniform(0, 360))))
    return out


def _table_and_tiles(rng, *, kind, laid, radius, board_to_img, size, sprites, lens):
    """The table seen through the camera with the tiles on it; the tiles' mask and their shadows (light map scale)."""
    w, h = size
    # the table texture is drawn axis-aligned in millimetres, then turned and seen through the camera
    px_per_mm = radius * SQRT3 / TILE_MM
    to_board = pose(float(rng.uniform(0, 180)), 0, 0) @ np.diag([px_per_mm, px_per_mm, 1.0])
    tex_from_img = np.linalg.inv(board_to_img @ to_board)
    plane = to_image(tex_from_img, [(0, 0), (w, 0), (w, h), (0, h)])
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
    for t in laid:
        poly = lens.distort(to_image(board_to_img @ pose(t.angle, t.x + off[0], t.y + off[1]),
                                     corners((0, 0), radius)))
        poly /= LIGHT_STEP
        if not np.isfinite(poly).all() or np.abs(poly).max() > 4 * max(shadow.shape):
            continue  # a loose tile near the horizon of a steep camera: far outside the photo, its shadow too
        cv2.fillPoly(shadow, [np.round(poly * 4).astype(np.int32)], 255, cv2.LINE_AA, 2)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.7, 0.1 * radius / LIGHT_STEP)).astype(np.float32) / 255.0

    mask = np.zeros((h, w), np.uint8)
    principal = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    lift = THICKNESS_MM * radius * SQRT3 / TILE_MM / focal_px(w)
    for t in laid:
        # the tile's side: its top face is nearer the camera, so it sits a little further from the image centre
        top = to_image(board_to_img @ pose(t.angle, t.x, t.y), corners((0, 0), radius * 0.97))
        foot = principal + (top - principal) * (1.0 - lift)
        side = cv2.convexHull(np.round(np.vstack([top, foot]) * 4).astype(np.int32))
        cv2.fillPoly(img, [side], SIDE, cv2.LINE_AA, 2)
        sprite = _sprite(sprites, t, round(radius * 4) / 4)
        half = (sprite.shape[0] - 1) / 2.0
        m = board_to_img @ pose(t.angle, t.x, t.y) @ np.array([[1, 0, -half], [0, 1, -half], [0, 0, 1.0]])
        box = to_image(m, [(0, 0), (2 * half, 0), (2 * half, 2 * half), (0, 2 * half)])
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


def _sprite(sprites: Sprites, t: _Laid, radius: float) -> np.ndarray:
    """The picture of tile `t` from `sprites`; ValueError when it is not a square BGRA uint8 image."""
    sprite = sprites(t.tile, t.face_up, radius)
    if not (isinstance(sprite, np.ndarray) and sprite.dtype == np.uint8 and sprite.ndim == 3
            and sprite.shape[2] == 4 and sprite.shape[0] == sprite.shape[1]):
        got = f"{sprite.dtype} array {sprite.shape}" if isinstance(sprite, np.ndarray) else type(sprite).__name__
        raise ValueError(f"sprites({t.tile}, {t.face_up}, {radius}) gave a {got}: give a square BGRA uint8 image")
    return sprite


def _truth(laid, radius, board_to_img, lens, cover, glared):
    """Per physical tile: where it is in the image, its corners and edge samples, what hides it.

    `glared` is the final image when there is glare: a tile whose face (shrunk to 85 %) has a median
    brightness over 140 or more than 30 % clipped is `washed_out`, as in the dataset truth.
    """
    w, h = lens.size
    if not laid:
        return {"tiles": [], "tile_size_px": {"across_flats_median": 0.0}}
    # every tile's centre, corners, edge midpoints and edge samples, mapped into the image at once
    flat_mids = [edge_midpoint((0, 0), d, radius) for d in range(6)]
    local = np.array([(0.0, 0.0), *corners((0, 0), radius), *flat_mids, *((0.8 * x, 0.8 * y) for x, y in flat_mids)])
    mats = np.array([board_to_img @ pose(t.angle, t.x, t.y) for t in laid])
    pts = np.einsum("tij,pj->tpi", mats, np.column_stack([local, np.ones(len(local))]))
    pts = lens.distort(pts[..., :2] / pts[..., 2:3])
    centres, cs, mids, samples = pts[:, 0], pts[:, 1:7], pts[:, 7:13], pts[:, 13:19]
    flats = np.linalg.norm(mids[:, :3] - mids[:, 3:], axis=2).mean(axis=1)
    inside = ((cs[..., 0] >= 0) & (cs[..., 0] < w) & (cs[..., 1] >= 0) & (cs[..., 1] < h)).sum(axis=1)
    occluded = np.zeros(len(laid))
    if cover is not None:
        probe = np.concatenate([centres[:, None], (cs + centres[:, None]) / 2, cs * 0.85 + centres[:, None] * 0.15,
                                samples], axis=1).astype(int)
        ok = (probe[..., 0] >= 0) & (probe[..., 0] < w) & (probe[..., 1] >= 0) & (probe[..., 1] < h)
        hit = cover[probe[..., 1].clip(0, h - 1), probe[..., 0].clip(0, w - 1)] > 127
        occluded = (hit & ok).sum(axis=1) / np.maximum(ok.sum(axis=1), 1)
    e0 = mids[:, 0] - centres
    angles = np.degrees(np.arctan2(e0[:, 1], e0[:, 0]))
    grey = cv2.cvtColor(glared, cv2.COLOR_BGR2GRAY) if glared is not None else None
    tiles = []
    for k, t in enumerate(laid):
        p = t.placement
        washed = False
        if grey is not None and inside[k] == 6:
            x0, y0 = np.floor(cs[k].min(axis=0)).astype(int)
            x1, y1 = np.minimum(np.ceil(cs[k].max(axis=0)).astype(int) + 1, (w, h))  # corners may round to w or h
            face = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(face, [np.round(centres[k] - (x0, y0) + 0.85 * (cs[k] - centres[k])).astype(np.int32)], 255)
            luma = grey[y0:y1, x0:x1][face > 0]
            washed = bool(np.count_nonzero(luma > 140) * 2 > luma.size
                          or np.count_nonzero(luma >= 250) > 0.3 * luma.size)
        sample_px = samples[k].round(2).tolist()
        entry = {
            "tile": t.tile, "on_board": p is not None, "face_up": t.face_up,
            "center_px": centres[k].round(2).tolist(),
            "corners_px": cs[k].round(2).tolist(),
            "across_flats_px": round(float(flats[k]), 2),
            "edge0_normal_angle_px_deg": round(float(angles[k]), 2),
            "edges": [{"edge": i, "colour": TILES[t.tile].edges[i] if t.face_up else None, "sample_px": sample_px[i],
                       **({"direction": (i + p.rot) % 6} if p is not None else {})} for i in range(6)],
            "fraction_in_image": int(inside[k]) / 6.0,
            "occluded_fraction": round(float(occluded[k]), 3),
            "washed_out": washed,
            "twist_deg": round(t.angle - 60.0 * p.rot, 2) if p is not None else None,
        }
        if p is not None:
            entry.update({"q": p.q, "r": p.r, "rot": p.rot})
        else:
            entry["loose_style"] = t.style
        tiles.append(entry)
    return {"tiles": tiles, "tile_size_px": {"across_flats_median": round(float(np.median(flats)), 2)}}
