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


def illuminate(img, rng, tile_mask, shadow, hand_mask, standing_mask, *, glare_at, more_glare, cast, light_k, awb,
               exposure, glare, tile_px) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    """The scene under the light (colour cast, uneven light and vignetting, shadows, glare) and its glare spots.


    hand_mask: a hand held above the table (a wide soft shadow); standing_mask: things standing on it (a
    short one); either may be None. glare_at: the main glare spot's centre (its size from `rng`; None: no
    main spot); more_glare: more spots as (x, y, sigma); cast: a big soft shadow across the table at light
    map scale (0..1), or None. The glare spots are returned as (x, y, sigma px), none when glare is 0.
    """
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
    for mask, height, darkness in ((hand_mask, 0.4, 0.35), (standing_mask, 0.12, 0.45)):
        if mask is not None:
            cover = mask[::q, ::q].astype(np.float32) / 255.0
            free *= 1 - cover
            held = max(1.0, height * tile_px / q)  # the higher above the table, the wider and softer the shadow
            fallen = cv2.GaussianBlur(np.roll(cover, (int(held), int(held)), axis=(0, 1)), (0, 0), held)
            gain *= 1 - darkness * fallen * (1 - cover)
    gain *= 1 - 0.5 * shadow * free
    if cast is not None:
        gain *= 1 - cast
    tint = kelvin_rgb(light_k)[::-1] ** (1.0 - awb)  # BGR, linear
    light = np.dstack([np.sqrt(gain * np.float32(c)) * 64 for c in tint]).clip(0, 255).astype(np.uint8)
    light = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.multiply(img, light, scale=1 / 64.0)

    spots = []
    if glare > 0:
        over = hand_mask if standing_mask is None else standing_mask if hand_mask is None else \
            cv2.max(hand_mask, standing_mask)
        main = [] if glare_at is None else [(float(glare_at[0]), float(glare_at[1]), tile_px * rng.uniform(0.5, 1.2))]
        spots = [*main, *more_glare]
        for gx0, gy0, sig in spots:
            _glare_spot(out, gx0, gy0, sig, glare, tile_mask, over, tint)
    return out, spots


def _glare_spot(out, gx0, gy0, sig, glare, tile_mask, over, tint) -> None:
    """Add one specular spot of `glare` strength and size `sig` px at (gx0, gy0), in place; brightest on the tiles."""
    h, w = out.shape[:2]
    r = int(4 * sig)  # its halo is below one grey level there, even on the tiles' black
    x0, x1, y0, y1 = max(0, int(gx0) - r), min(w, int(gx0) + r), max(0, int(gy0) - r), min(h, int(gy0) + r)
    if x0 >= x1 or y0 >= y1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d2 = ((xx - gx0) ** 2 + (yy - gy0) ** 2) / (sig * sig)
    spot = glare * (0.9 * np.exp(-d2 * 2.0) + 0.35 * np.exp(-d2 / 2.0))
    gloss = 0.3 + 0.7 * tile_mask[y0:y1, x0:x1].astype(np.float32) / 255.0  # the glossy tiles shine most
    if over is not None:
        gloss *= 1 - 0.7 * over[y0:y1, x0:x1].astype(np.float32) / 255.0
    roi = out[y0:y1, x0:x1].astype(np.float32) / 255.0  # glare adds light: back to linear for this patch
    lin = roi * roi + (spot * gloss)[..., None] * np.sqrt(tint).astype(np.float32)
    out[y0:y1, x0:x1] = (np.sqrt(np.clip(lin, 0, 1)) * 255.0).astype(np.uint8)


def shadow_across(rng: np.random.Generator, size: tuple[int, int], strength: float) -> np.ndarray:
    """A big soft shadow across part of the table (a person or a lamp arm): 0..`strength`, at light map scale.

    It covers a fifth to three fifths of the frame from one side, its edge gently curved and soft.
    """
    w, h = size
    gh, gw = -(-h // LIGHT_STEP), -(-w // LIGHT_STEP)
    diag = math.hypot(gw, gh)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    along = (xx - gw / 2) * math.cos(a) + (yy - gh / 2) * math.sin(a)  # towards the side the shadow comes from
    across = (yy - gh / 2) * math.cos(a) - (xx - gw / 2) * math.sin(a)
    depth = along + rng.uniform(-0.6, 0.6) * across * across / diag  # a curved edge: the outline of a body
    edge = np.quantile(depth, 1.0 - rng.uniform(0.2, 0.6))
    soft = rng.uniform(0.04, 0.15) * diag
    t = np.clip((depth - edge) / soft + 0.5, 0, 1)
    return (strength * t * t * (3 - 2 * t)).astype(np.float32)
