"""Table surfaces, drawn to scale in millimetres: wood, felt, cloth, laminate, gingham."""

from __future__ import annotations

import math

import cv2
import numpy as np

TABLES = ("wood", "dark_wood", "felt", "cloth", "laminate", "pattern")
"""Table textures `table_texture` can draw."""

TILE_MM = 44.0
"""A real tile's width across flats: table textures are drawn to this scale."""


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
