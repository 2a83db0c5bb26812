"""Colour: white balance from the tiles' own black, and soft per-edge scores for red, yellow, green, blue.

Colours are judged by hue in an opponent-colour plane after white balance, never by brightness alone:
a blue band on black under a warm lamp is dark, but after balancing on the (neutral) tile black its hue is
still blue. The hue of each colour is then re-estimated from the photo itself (EM over the decoded tiles).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from tantrix_pi.tiles import COLOURS

HUE_DEG = {"R": 28.0, "Y": 83.0, "G": 164.0, "B": 248.0}
"""Hue (degrees) of the four paints in the opponent plane of `features`, after white balance."""

OUTLIER = 0.01
"""Probability mass kept for a reading that fits no colour (a reflection, a speck, a neighbour's band)."""

GAIN_LIMITS = (0.4, 2.5)
BLACK_NOISE = 10.0
BLACK_TRUSTED = 50.0
"""A tile black this much brighter than the noise floor (8-bit levels) is trusted fully for white balance."""


def white_balance(black_bgr: np.ndarray) -> np.ndarray:
    """Per-channel gains (B, G, R) that make the tiles' black neutral (grey-world on the black face)."""
    if len(black_bgr) < 8:
        return np.ones(3)
    m = np.median(black_bgr.reshape(-1, 3), axis=0).astype(np.float64)
    if m.max() < 2:
        return np.ones(3)
    gains = np.clip(m.mean() / np.maximum(m, 0.5), *GAIN_LIMITS)
    # A near-black face says little about the light (noise, a JPEG's offsets, the plastic's own tint):
    # the darker it is, the more the gains are pulled back towards no correction.
    trust = float(np.clip((m.mean() - BLACK_NOISE) / BLACK_TRUSTED, 0.2, 1.0))
    return 1.0 + trust * (gains - 1.0)


def nearest_paint(hue: float) -> str:
    """The colour ("R", "Y", "G", "B") whose paint hue lies nearest a (white-balanced) hue in radians."""
    return min(COLOURS, key=lambda c: abs(math.remainder(hue - math.radians(HUE_DEG[c]), 2 * math.pi)))


def features(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hue (radians), chroma and intensity of white-balanced BGR colours (..., 3)."""
    b, g, r = bgr[..., 0], bgr[..., 1], bgr[..., 2]
    o1 = (r - g) / math.sqrt(2.0)
    o2 = (r + g - 2.0 * b) / math.sqrt(6.0)
    return np.arctan2(o2, o1), np.hypot(o1, o2), (r + g + b) / 3.0


class ColourModel:
    """Hue of each colour and its spread (`DecodeConfig.hue_sigma`); scores a reading as log-probabilities over
    R, Y, G, B."""

    def __init__(self, sigma_deg: float, hues_deg: dict[str, float] | None = None) -> None:
        hues = hues_deg or HUE_DEG
        self.mu = np.radians([hues[c] for c in COLOURS])
        self.kappa = 1.0 / math.radians(sigma_deg) ** 2

    def log_probs(self, hue: np.ndarray) -> np.ndarray:
        """log P(colour | hue) for each reading: shape (..., 4), in the order of `COLOURS`."""
        d = np.cos(hue[..., None] - self.mu) - 1.0
        like = np.exp(self.kappa * d)
        p = like / np.maximum(like.sum(axis=-1, keepdims=True), 1e-300)
        return np.log((1 - OUTLIER) * p + OUTLIER / 4)

    def adapted(self, hue: np.ndarray, labels: np.ndarray, weights: np.ndarray, prior: float = 4.0) -> ColourModel:
        """A model whose colour hues move to the circular mean of the readings labelled with them."""
        out = copy.copy(self)
        mu = self.mu.copy()
        for i in range(4):
            sel = labels == i
            z = prior * np.exp(1j * self.mu[i]) + np.sum(weights[sel] * np.exp(1j * hue[sel]))
            mu[i] = np.angle(z)
        # A colour may drift with the light, but never into another colour's place.
        shift = np.angle(np.exp(1j * (mu - self.mu)))
        out.mu = self.mu + np.clip(shift, -math.radians(20), math.radians(20))
        return out
