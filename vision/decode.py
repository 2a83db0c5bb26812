"""Decode tiles: score every (tile, turn) codeword against the soft edge colours; one number per tile.

Every tile shows each of its three colours on two edges, and no two (tile, turn) pairs show the same six
colours, so six soft colour readings pick one of 56 x 6 codewords. Tiles of one photo are distinct, so
numbers are given by a global assignment (scipy's linear_sum_assignment) rather than tile by tile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from tantrix_pi.tiles import ALL_NUMBERS, COLOURS, TILES

MARGIN_SCALE = 3.5
"""Log-likelihood margin (nats) that gives confidence 1 - 1/e; 1.6 times it gives the 0.8 of `CONFIDENT`."""


def _codewords() -> np.ndarray:
    """codes[n, k, d]: colour index shown in direction d by tile ALL_NUMBERS[n] turned k sixths clockwise."""
    codes = np.zeros((len(ALL_NUMBERS), 6, 6), dtype=int)
    for n, number in enumerate(ALL_NUMBERS):
        for k in range(6):
            codes[n, k] = [COLOURS.index(c) for c in TILES[number].turned(k)]
    return codes


CODES = _codewords()


@dataclass(frozen=True)
class Reading:
    """The decoded tile for one set of six edge readings."""

    tile: int
    rot: int
    confidence: float
    score: float
    colours: str
    """The colours this reading expects in directions 0..5."""


def scores(log_probs: np.ndarray) -> np.ndarray:
    """S[i, n, k]: log-likelihood of tile ALL_NUMBERS[n] at turn k given log_probs[i, d, colour]."""
    lp = np.asarray(log_probs)
    d = np.arange(6)
    return lp[:, d[None, None, :], CODES].sum(axis=-1) if len(lp) else np.zeros((0, len(ALL_NUMBERS), 6))


FIT_SCALE = 3.0
"""Log-likelihood (nats) of the chosen codeword that costs a factor e of confidence: an edge that clearly
shows another colour than the codeword expects makes the reading doubtful, however far the next codeword."""


def confidence(margin: float, fit: float = 0.0) -> float:
    """0..1 from the margin over the best alternative and the codeword's own log-likelihood `fit` (<= 0)."""
    if margin <= 0:
        return 0.0
    return (1.0 - math.exp(-margin / MARGIN_SCALE)) * math.exp(min(fit, 0.0) / FIT_SCALE)


def decode(log_probs: np.ndarray) -> list[Reading | None]:
    """The tile and turn of each set of edge readings (log_probs: N x 6 x 4); None when numbers run out."""
    s = scores(log_probs)
    if len(s) == 0:
        return []
    best_turn = s.argmax(axis=2)
    per_number = s.max(axis=2)
    rows, cols = linear_sum_assignment(-per_number)
    out: list[Reading | None] = [None] * len(s)
    flat = s.reshape(len(s), -1)
    for i, n in zip(rows, cols, strict=True):
        k = int(best_turn[i, n])
        chosen = flat[i, n * 6 + k]
        others = np.delete(flat[i], n * 6 + k)
        margin = float(chosen - others.max())
        colours = "".join(COLOURS[c] for c in CODES[n, k])
        out[i] = Reading(ALL_NUMBERS[n], k, confidence(margin, float(chosen)), float(chosen), colours)
    return out
