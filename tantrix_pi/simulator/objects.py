"""What lies on or over the table besides tiles: a hand and forearm reaching over the board, and clutter
(cups, coins, dice, a game box, a score pad) drawn to scale, each with the mask of what it covers."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

CLUTTER_MM = {"cup": (84.0, 70.0), "coin": (24.0, 24.0), "die": (16.0, 16.0), "box": (120.0, 75.0),
              "pad": (76.0, 105.0)}
"""The kinds of clutter and their size on the table (width, height in millimetres; a cup with its handle)."""
CLUTTER = tuple(CLUTTER_MM)
"""The kinds of clutter `Clutter` can be."""


@dataclass(frozen=True)
class Clutter:
    """An object on the table: `kind` (one of `CLUTTER`), centred at image pixel `at_px` and turned
    `angle_deg`; None: where and how the seed puts it (over the board or away from it)."""

    kind: str
    at_px: tuple[float, float] | None = None
    angle_deg: float | None = None


EDGES = ("top", "right", "bottom", "left")
"""The frame edges a hand's arm can come in from."""


def draw_hand(img, rng, reach, tile_px, size, tile_mask, edge=None):
    """Paint a hand and forearm reaching from the frame edge to `reach` (or over the tiles); its mask.

    The arm comes in from the seed's edge, or straight in from `edge` (one of EDGES) when given."""
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
    if edge is not None:
        start = {"top": (rx, -tile_px), "right": (w + tile_px, ry), "bottom": (rx, h + tile_px),
                 "left": (-tile_px, ry)}[edge]
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


def draw_clutter(img, rng, things, px_per_mm, board_box):
    """Paint each `Clutter` into `img`; the mask of all of them and one truth entry each.

    A thing without a place lies, by the seed, over the board's box (x0, y0, x1, y1) or anywhere in the frame.
    """
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    entries = []
    for thing in things:
        if thing.at_px is not None:
            at = thing.at_px
        elif board_box is not None and rng.random() < 0.5:
            at = (rng.uniform(board_box[0], board_box[2]), rng.uniform(board_box[1], board_box[3]))
        else:
            at = (rng.uniform(0.05, 0.95) * w, rng.uniform(0.05, 0.95) * h)
        angle = float(rng.uniform(0, 360)) if thing.angle_deg is None else thing.angle_deg
        colour, alpha = _DRAW[thing.kind](rng, px_per_mm)
        box = _paste(img, mask, colour, alpha, at, angle)
        entries.append({"kind": thing.kind, "center_px": [round(float(at[0]), 2), round(float(at[1]), 2)],
                        "angle_deg": round(angle, 2), "box_px": box})
    return mask, entries


def _paste(img, mask, colour, alpha, at, angle_deg):
    """Composite a local picture (BGR uint8, alpha 0..1) into `img` centred at `at`, turned clockwise; its box."""
    h, w = img.shape[:2]
    sh, sw = alpha.shape
    m = cv2.getRotationMatrix2D(((sw - 1) / 2.0, (sh - 1) / 2.0), -angle_deg, 1.0)
    m[:, 2] += np.array(at) - ((sw - 1) / 2.0, (sh - 1) / 2.0)
    corners = np.array([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]], np.float64) @ m.T
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0)).astype(int) + 1, (w, h))
    if x0 >= x1 or y0 >= y1:
        return [int(x0), int(y0), int(x0), int(y0)]
    m[:, 2] -= (x0, y0)
    rgba = np.dstack([colour.astype(np.float32) * alpha[..., None], alpha]).astype(np.float32)
    warped = cv2.warpAffine(rgba, m, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_LINEAR,
                            borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4]
    roi = img[y0:y1, x0:x1]
    roi[:] = np.clip(roi * (1 - a) + warped[..., :3], 0, 255).astype(np.uint8)
    np.maximum(mask[y0:y1, x0:x1], (a[..., 0] * 255).astype(np.uint8), out=mask[y0:y1, x0:x1])
    return [int(x0), int(y0), int(x1), int(y1)]


def _canvas(width_mm, height_mm, px_per_mm):
    """A blank local picture of `width_mm` x `height_mm`: BGR and alpha, uint8 zeros."""
    w, h = (max(3, int(math.ceil(v * px_per_mm)) + 2) for v in (width_mm, height_mm))
    return np.zeros((h, w, 3), np.uint8), np.zeros((h, w), np.uint8)


def _soft(alpha):
    """Alpha 0..1 (float) from a drawn uint8 mask."""
    return alpha.astype(np.float32) / 255.0


def _cup(rng, p):
    """A mug seen from above: its rim, the drink or its inside, and a handle."""
    colour, alpha = _canvas(*CLUTTER_MM["cup"], p)
    h, w = alpha.shape
    r = 0.5 * 70.0 * p
    c = (int(round(0.5 * 70.0 * p)) + 1, h // 2)
    mug = np.array(rng.choice([[235, 235, 235], [40, 40, 170], [150, 90, 30], [30, 30, 30], [40, 190, 220]]),
                   np.float32)
    cv2.line(alpha, (c[0], c[1]), (w - 2, c[1]), 255, max(2, int(12 * p)), cv2.LINE_AA)  # the handle
    colour[:] = np.clip(mug * 0.8, 0, 255)
    cv2.circle(alpha, c, max(1, int(r)), 255, -1, cv2.LINE_AA)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.hypot(xx - c[0], yy - c[1]) / max(r, 1.0)
    inside = np.array(rng.choice([[25, 45, 75], [40, 90, 150], mug * 0.6]), np.float32)  # coffee, tea or empty
    ring = (d > 0.86)[..., None]
    shade = (0.75 + 0.25 * np.clip(1 - (xx - c[0] + yy - c[1]) / (2 * max(r, 1.0)), 0, 1))[..., None]
    colour[:] = np.clip(np.where(d[..., None] <= 1.0, np.where(ring, mug * shade, inside * (0.8 + 0.2 * d[..., None])),
                                 colour), 0, 255)
    return colour, _soft(alpha)


def _coin(rng, p):
    """A coin: a metal disc, lit from one side, with a raised ring."""
    colour, alpha = _canvas(*CLUTTER_MM["coin"], p)
    h, w = alpha.shape
    c, r = ((w - 1) / 2.0, (h - 1) / 2.0), 0.5 * CLUTTER_MM["coin"][0] * p
    cv2.circle(alpha, (int(round(c[0])), int(round(c[1]))), max(1, int(r)), 255, -1, cv2.LINE_AA)
    metal = np.array(rng.choice([[60, 165, 205], [185, 185, 180], [70, 110, 175]]), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.hypot(xx - c[0], yy - c[1]) / max(r, 1.0)
    light = 0.75 + 0.35 * np.clip(1 - (xx - c[0] + yy - c[1]) / (2 * max(r, 1.0)), 0, 1)
    light *= np.where(np.abs(d - 0.85) < 0.05, 0.75, 1.0)
    colour[:] = np.clip(metal * light[..., None], 0, 255)
    return colour, _soft(alpha)


def _die(rng, p):
    """A die seen from above: a rounded square showing one to six pips."""
    colour, alpha = _canvas(*CLUTTER_MM["die"], p)
    h, w = alpha.shape
    side = CLUTTER_MM["die"][0] * p
    x0, y0 = (w - side) / 2.0, (h - side) / 2.0
    rc = max(1, int(0.15 * side))
    cv2.rectangle(alpha, (int(x0 + rc), int(y0)), (int(x0 + side - rc), int(y0 + side)), 255, -1)
    cv2.rectangle(alpha, (int(x0), int(y0 + rc)), (int(x0 + side), int(y0 + side - rc)), 255, -1)
    for cx, cy in ((x0 + rc, y0 + rc), (x0 + side - rc, y0 + rc), (x0 + rc, y0 + side - rc),
                   (x0 + side - rc, y0 + side - rc)):
        cv2.circle(alpha, (int(cx), int(cy)), rc, 255, -1, cv2.LINE_AA)
    body, pip = ([235, 235, 235], [25, 25, 25]) if rng.random() < 0.6 else ([40, 40, 190], [240, 240, 240])
    colour[:] = body
    pips = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
            5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
            6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[int(rng.integers(1, 7))]
    for i, j in pips:
        centre = (int(w / 2 + i * 0.27 * side), int(h / 2 + j * 0.27 * side))
        cv2.circle(colour, centre, max(1, int(0.09 * side)), pip, -1, cv2.LINE_AA)
    return colour, _soft(alpha)


def _box(rng, p):
    """A game box lid: a printed rectangle with blocks of colour and a title."""
    colour, alpha = _canvas(*CLUTTER_MM["box"], p)
    h, w = alpha.shape
    alpha[1:-1, 1:-1] = 255
    colour[:] = rng.choice([[40, 40, 150], [150, 60, 30], [30, 120, 40], [30, 30, 30], [60, 170, 220]])
    for _ in range(3):
        x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        cv2.rectangle(colour, (x, y), (x + int(rng.uniform(10, 50) * p), y + int(rng.uniform(5, 25) * p)),
                      tuple(float(v) for v in rng.uniform(0, 255, 3)), -1)
    text = "".join(rng.choice(list("ABCDEGKLMNOPRSTUZ"), 6))
    cv2.putText(colour, text, (int(0.1 * w), int(0.6 * h)), cv2.FONT_HERSHEY_DUPLEX, max(0.2, 0.028 * w / 10),
                (235, 235, 235), max(1, int(2 * p)), cv2.LINE_AA)
    cv2.rectangle(colour, (0, 0), (w - 1, h - 1), (20, 20, 20), max(1, int(1.5 * p)))
    return colour, _soft(alpha)


def _pad(rng, p):
    """A score pad: a sheet of ruled paper with numbers and names written on it."""
    colour, alpha = _canvas(*CLUTTER_MM["pad"], p)
    h, w = alpha.shape
    alpha[1:-1, 1:-1] = 255
    colour[:] = [245, 248, 250] if rng.random() < 0.7 else [200, 245, 250]
    ink = tuple(float(v) for v in rng.choice([[140, 50, 25], [40, 40, 45], [40, 40, 170]]))
    step = 8.0 * p
    for k in range(1, int(h / step)):
        cv2.line(colour, (0, int(k * step)), (w - 1, int(k * step)), (220, 190, 170), 1, cv2.LINE_AA)
    scale = max(0.15, 0.35 * step / 12)
    for k in range(1, int(h / step)):
        if rng.random() < 0.75:
            words = " ".join(str(int(rng.integers(0, 40))) for _ in range(int(rng.integers(1, 4))))
            cv2.putText(colour, words, (int(rng.uniform(2, 10) * p), int(k * step - 1.5 * p)),
                        cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, scale, ink, max(1, int(0.5 * p)), cv2.LINE_AA)
    return colour, _soft(alpha)


_DRAW = {"cup": _cup, "coin": _coin, "die": _die, "box": _box, "pad": _pad}
