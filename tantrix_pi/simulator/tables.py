"""Table surfaces, drawn to scale in millimetres, as real tables under Tantrix boards are.

Each kind is a function of (rng, shape in texels, texels per millimetre) returning float BGR values (or
uint8 where it draws with OpenCV); `table_texture` picks one by name.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

TILE_MM = 44.0
"""A real tile's width across flats: table textures are drawn to this scale."""

DARK_AS_TILES = (18.0, 45.0)
"""Grey levels of the dark squares and stripes of checks and stripes: as dark as the tiles' black."""


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


def _wood(rng, shape, mm, dark=False):
    """Planks along x with grain, seams and plank ends."""
    base = np.array([34, 56, 88] if dark else [72, 138, 192], np.float32) * rng.uniform(0.85, 1.1)
    yy, xx = _coords(shape)
    plank = rng.uniform(90, 160) * mm
    row = np.floor(yy / plank)
    phase = yy + 5 * mm * _noise(rng, shape, (6 * mm, 250 * mm)) + 3 * mm * _noise(rng, shape, (40 * mm, 900 * mm))
    grain = 0.5 + 0.5 * np.sin(phase * (2 * math.pi / (rng.uniform(2.5, 5.0) * mm)) + row * 2.1)
    tone = 1 - 0.22 * grain ** 3 + 0.06 * np.sin(row * 2.3 + 1) + 0.04 * _noise(rng, shape, 60 * mm)
    seam = np.abs(yy - (row + 0.5) * plank) > plank / 2 - max(1.0, 0.6 * mm)
    ends = np.abs(((xx + row * 0.37 * 1000 * mm) % (1000 * mm)) - 500 * mm) < max(0.6, 0.4 * mm)
    tone = np.where(seam | ends, np.float32(0.6), tone)
    return tone[..., None] * base


def _felt(rng, shape, mm):
    """Green, blue, red or grey baize."""
    base = np.array(rng.choice([[45, 150, 45], [125, 72, 25], [45, 45, 150], [88, 88, 88]]), np.float32)
    tone = 1 + 0.06 * _noise(rng, shape, 15 * mm) + 0.05 * rng.standard_normal(shape).astype(np.float32)
    return tone[..., None] * base


def _cloth(rng, shape, mm):
    """A light woven tablecloth."""
    base = np.array(rng.choice([[228, 230, 232], [200, 222, 236], [215, 215, 205]]), np.float32)
    yy, xx = _coords(shape)
    period = max(3.0, rng.uniform(0.8, 1.5) * mm)
    weave = np.sin(xx * (2 * math.pi / period)) * np.sin(yy * (2 * math.pi / period))
    tone = 1 + 0.05 * weave + 0.05 * _noise(rng, shape, 80 * mm)
    return tone[..., None] * base


def _laminate(rng, shape, mm):
    """A plain grey, beige or white laminate top."""
    base = np.array(rng.choice([[150, 150, 148], [170, 190, 205], [205, 205, 200]]), np.float32)
    tone = 1 + 0.025 * _noise(rng, shape, 3 * mm) + 0.03 * _noise(rng, shape, 100 * mm)
    return tone[..., None] * base


def _gingham(rng, shape, mm):
    """Gingham: two colours in 10-25 mm squares, their crossings half-mixed."""
    a, b = rng.choice([[[235, 235, 235], [60, 60, 200]], [[230, 230, 230], [150, 90, 40]],
                       [[220, 240, 245], [60, 150, 60]], [[40, 40, 40], [180, 180, 180]]], axis=0)
    yy, xx = _coords(shape)
    sq = rng.uniform(10, 25) * mm
    mix = ((np.floor(xx / sq) % 2) + (np.floor(yy / sq) % 2)) / 2.0  # gingham: 0, 0.5, 1
    img = (1 - mix)[..., None] * np.float32(a) + mix[..., None] * np.float32(b)
    return img * (1 + 0.04 * _noise(rng, shape, 50 * mm))[..., None]


_LIGHT_SQUARES = ([228, 228, 228], [60, 60, 190], [180, 110, 40], [60, 150, 60], [150, 200, 230], [40, 170, 220])
"""White, red, blue, green, cream and yellow: the light half of checks and stripes."""


def _two_tone(rng, shape, mm, dark_share):
    """Float BGR of a fabric whose `dark_share` mask (0..1) is as dark as the tiles and the rest one light colour."""
    dark = np.full(3, rng.uniform(*DARK_AS_TILES), np.float32)
    light = np.array(_LIGHT_SQUARES[int(rng.integers(len(_LIGHT_SQUARES)))], np.float32) * rng.uniform(0.85, 1.05)
    img = dark_share[..., None] * dark + (1 - dark_share)[..., None] * light
    tone = 1 + 0.04 * _noise(rng, shape, 40 * mm) + 0.03 * rng.standard_normal(shape).astype(np.float32)
    return img * tone[..., None]


def _checks(rng, shape, mm):
    """Checks of 25-60 mm squares (tile scale), the dark ones as dark as the tiles."""
    yy, xx = _coords(shape)
    sq = rng.uniform(25, 60) * mm
    return _two_tone(rng, shape, mm, ((np.floor(xx / sq) + np.floor(yy / sq)) % 2).astype(np.float32))


def _stripes(rng, shape, mm):
    """Stripes 12-50 mm wide (tile scale), the dark ones as dark as the tiles."""
    yy, _ = _coords(shape)
    dark_w, light_w = rng.uniform(12, 50, 2) * mm
    return _two_tone(rng, shape, mm, np.broadcast_to((yy % (dark_w + light_w) < dark_w), shape).astype(np.float32))


def _black(rng, shape, mm):
    """A near-black top, darker than many tiles' black, with a faint sheen."""
    base = np.float32(rng.uniform(10, 26)) * np.array(rng.choice([[1, 1, 1], [1.1, 1, 0.95], [0.9, 1, 1.1]]),
                                                      np.float32)
    tone = 1 + 0.1 * _noise(rng, shape, 150 * mm) + 0.06 * rng.standard_normal(shape).astype(np.float32)
    return tone[..., None] * base


def _carpet(rng, shape, mm):
    """Carpet: fine high-contrast flecks of two or three yarn colours, each a few millimetres across."""
    yarns = np.array(rng.choice([[40, 40, 45], [90, 100, 110], [160, 165, 170], [40, 60, 120], [110, 80, 50],
                                 [60, 90, 60], [200, 205, 210]], size=3, replace=False), np.float32)
    pick = _noise(rng, shape, max(1.0, 2.5 * mm)) + 0.5 * rng.standard_normal(shape).astype(np.float32)
    img = np.where((pick < -0.2)[..., None], yarns[0], np.where((pick > 0.35)[..., None], yarns[1], yarns[2]))
    tone = 1 + 0.25 * rng.standard_normal(shape).astype(np.float32) + 0.08 * _noise(rng, shape, 80 * mm)
    return img * tone[..., None]


def _white(rng, shape, mm):
    """A plain white table."""
    base = np.float32(rng.uniform(228, 248)) * np.array([1.0, 1.0, rng.uniform(0.97, 1.0)], np.float32)
    tone = 1 + 0.012 * _noise(rng, shape, 150 * mm) + 0.01 * _noise(rng, shape, 3 * mm)
    return tone[..., None] * base


def _paper(rng, shape, mm):
    """White paper with pen lines and circles drawn on it, as a puzzle sheet has (uint8)."""
    h, w = shape
    img = np.clip(_white(rng, shape, mm) * np.float32(rng.uniform(0.96, 1.0)), 0, 255).astype(np.uint8)
    ink = tuple(int(v) for v in rng.choice([[140, 50, 25], [40, 40, 45], [120, 120, 125], [40, 40, 170]]))
    pen = max(1, int(round(rng.uniform(0.4, 0.9) * mm)))
    per_m2 = h * w / (1000 * mm) ** 2  # square metres of paper

    def at() -> tuple[int, int]:
        return int(rng.uniform(0, w)), int(rng.uniform(0, h))

    for _ in range(int(np.ceil(rng.uniform(10, 25) * per_m2))):  # straight lines, some long, some short
        (x, y), a, length = at(), rng.uniform(0, math.pi), rng.uniform(30, 300) * mm
        end = (int(x + length * math.cos(a)), int(y + length * math.sin(a)))
        cv2.line(img, (x, y), end, ink, pen, cv2.LINE_AA)
    for _ in range(int(np.ceil(rng.uniform(15, 40) * per_m2))):  # circles about a tile across, by hand
        r = rng.uniform(12, 35) * mm
        axes = (max(1, int(r)), max(1, int(r * rng.uniform(0.85, 1.0))))
        cv2.ellipse(img, at(), axes, float(rng.uniform(0, 180)), 0, float(rng.uniform(300, 360)), ink, pen, cv2.LINE_AA)
    return img


_KINDS = {
    "wood": _wood, "dark_wood": lambda rng, shape, mm: _wood(rng, shape, mm, dark=True), "felt": _felt,
    "cloth": _cloth, "laminate": _laminate, "pattern": _gingham, "checks": _checks, "stripes": _stripes,
    "black": _black, "carpet": _carpet, "paper": _paper, "white": _white,
}

TABLES = tuple(_KINDS)
"""Table textures `table_texture` can draw: wood, dark_wood, felt, cloth, laminate, pattern (gingham), checks and
stripes at tile scale (dark parts as dark as the tiles), black (near black), carpet (fine high-contrast
flecks), paper (white, with pen lines and circles: a puzzle sheet) and white (a plain white table)."""


def table_texture(kind: str, rng: np.random.Generator, shape: tuple[int, int], texel_mm: float) -> np.ndarray:
    """A table surface (BGR uint8) of `shape` texels, each `texel_mm` millimetres wide (planks run along x)."""
    if kind not in _KINDS:
        raise ValueError(f"unknown table {kind!r}: one of {', '.join(TABLES)}")
    img = _KINDS[kind](rng, shape, 1.0 / texel_mm)
    return img if img.dtype == np.uint8 else np.clip(img, 0, 255).astype(np.uint8)
