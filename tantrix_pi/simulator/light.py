"""The light on the table: its colour, uneven spread and vignetting, shadows, and glare on the glossy tiles.

The picture is encoded with gamma 2 (close to sRGB), so light that multiplies the linear image multiplies
the 8-bit values by its square root (one light map, computed at low resolution), and glare, which adds
light, is added in linear light.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

LIGHT_STEP = 8
"""The light (gain) map is computed on a grid this many pixels apart, then interpolated."""


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


def illuminate(img, rng, tile_mask, shadow, hand_mask, *, glare_at, light_k, awb, exposure, glare,
               tile_px) -> np.ndarray:
    """The scene under the light: colour cast, uneven light and vignetting, shadows, glare."""
    h, w = img.shape[:2]
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
    return out
