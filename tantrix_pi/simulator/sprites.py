"""The drawn tiles: one picture per tile, side up and size, as the camera would see it from straight above."""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from tantrix_pi.grid import corners
from tantrix_pi.render import arc_points  # where each arc runs: written once, for both drawings
from tantrix_pi.tiles import TILES

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
"""How much lighter (grey levels) the rounded rim of a tile catches the light, at `rim=1`."""
SIDE = (18, 17, 17)
"""The tiles' sides, seen where perspective uncovers them."""


@lru_cache(maxsize=128)  # a whole set at one size and palette, not more: big tiles are big
def tile_sprite(number: int, face_up: bool, radius_px: float, arc_width: float, palette: int,
                rim: float = 1.0) -> np.ndarray:
    """BGRA picture (colour premultiplied by alpha) of one tile in its stored turn, pointy-top and centred,
    circumradius `radius_px`; `rim` scales how much lighter its bevelled rim is than its black (`RIM`)."""
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
    cv2.polylines(img, [pts(hexagon)], True, tuple(min(255, round(v + RIM * rim)) for v in body), max(1, int(2 * rc)))
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
