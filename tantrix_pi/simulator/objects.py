"""What lies over the tiles: a hand and forearm reaching over the board."""

from __future__ import annotations

import math

import cv2
import numpy as np


def draw_hand(img, rng, reach, tile_px, size, tile_mask):
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
