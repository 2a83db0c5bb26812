"""Decode tiles: score every (tile, turn) codeword against the soft edge colours; one number per tile.

Every tile shows each of its three colours on two edges, and no two (tile, turn) pairs show the same six
colours, so six soft colour readings pick one of 56 x 6 codewords. Tiles of one photo are distinct, so
numbers are given by a global assignment (`assignment.best_assignment`, when two tiles' best numbers collide)
rather than tile by tile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from tantrix_pi.tiles import ALL_NUMBERS, COLOURS, TILES
from tantrix_pi.vision import colour
from tantrix_pi.vision.assignment import best_assignment
from tantrix_pi.vision.config import CONFIG, DecodeConfig, ReadConfig
from tantrix_pi.vision.detection import CONFIDENT
from tantrix_pi.vision.seen import Seen


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
    evidence: np.ndarray | None = field(default=None, compare=False, repr=False)
    """The soft edge readings it was decoded from (6 x 4 log-probabilities), to weigh other readings by."""


def scores(log_probs: np.ndarray) -> np.ndarray:
    """S[i, n, k]: log-likelihood of tile ALL_NUMBERS[n] at turn k given log_probs[i, d, colour]."""
    lp = np.asarray(log_probs)
    d = np.arange(6)
    return lp[:, d[None, None, :], CODES].sum(axis=-1) if len(lp) else np.zeros((0, len(ALL_NUMBERS), 6))


def confidence(margin: float, fit: float = 0.0, cfg: DecodeConfig = CONFIG.decode) -> float:
    """0..1 from the margin over the best alternative and the codeword's own log-likelihood `fit` (<= 0):
    an edge that clearly shows another colour than the codeword expects makes the reading doubtful,
    however far the next codeword."""
    if margin <= 0:
        return 0.0
    return (1.0 - math.exp(-margin / cfg.margin_scale)) * math.exp(min(fit, 0.0) / cfg.fit_scale)


def decode(log_probs: np.ndarray, cfg: DecodeConfig = CONFIG.decode, held: frozenset[int] = frozenset()
           ) -> list[Reading | None]:
    """The tile and turn of each set of edge readings (log_probs: N x 6 x 4); None when numbers run out.

    Numbers `held` by tiles read elsewhere in the photo are neither given nor weighed against: a set has each
    number once (the tiles the frame cuts are read so, after the others)."""
    s = scores(log_probs)
    if len(s) == 0:
        return []
    free = np.array([n not in held for n in ALL_NUMBERS])
    s = np.where(free[None, :, None], s, -np.inf)
    best_turn = s.argmax(axis=2)
    per_number = s.max(axis=2)
    rows, cols = best_assignment(np.where(free[None, :], per_number, -1e9))
    out: list[Reading | None] = [None] * len(s)
    flat = s.reshape(len(s), -1)
    picked = cols * 6 + best_turn[rows, cols]
    chosen_all = flat[rows, picked]
    others = flat[rows]
    others[np.arange(len(rows)), picked] = -np.inf
    runner_up = others.max(axis=1)  # the best (tile, turn) but the one chosen
    for i, n, chosen, second in zip(rows, cols, chosen_all, runner_up, strict=True):
        if not free[n]:
            continue
        k = int(best_turn[i, n])
        margin = float(chosen - second)
        colours = "".join(COLOURS[c] for c in CODES[n, k])
        out[i] = Reading(ALL_NUMBERS[n], k, confidence(margin, float(chosen), cfg), float(chosen), colours,
                         np.asarray(log_probs)[i])
    return out


def best_fitting(evidence: np.ndarray, facing: list[str | None]) -> float:
    """Log-likelihood of the best (tile, turn) reading of the evidence that shows the colour `facing[d]` in
    every direction d where it is given (-inf when no tile does)."""
    s = scores(np.asarray(evidence)[None])[0]
    fits = np.ones(CODES.shape[:2], bool)
    for d, c in enumerate(facing):
        if c is not None:
            fits &= CODES[:, :, d] == COLOURS.index(c)
    return float(s[fits].max()) if fits.any() else -math.inf


def face_up(t: Seen, read: ReadConfig) -> bool:
    """Whether a tile that was read shows a face-up tile's print: enough coloured edges, six bands around it."""
    return t.colours is not None and t.colours.bands >= read.face_up_bands and t.sixfold >= read.sixfold


def decode_tiles(tiles: list[Seen], cfg: DecodeConfig, read: ReadConfig) -> list[Seen]:
    """Stage 4: the tile number and turn of every face-up tile that was read, one number per tile.

    The colours' hues are then learnt from the photo (EM over the decoded tiles, bounded) and the tiles
    decoded again, when enough tiles read clearly vouch for them. With fewer, a first misreading would teach
    the model its own mistake, and the light's cast is not known: the tiles are decoded again with the
    paints' hues weighed more loosely (a blue pushed halfway to green by a lamp must not read as a
    confident green). Tiles the frame cuts are decoded last, with the colours so learnt, among the numbers
    the tiles read whole and confidently do not hold: the edges in view may fit several tiles, some of which
    lie elsewhere in the photo.
    """
    idx = [i for i, t in enumerate(tiles) if face_up(t, read) and not tiles[i].colours.cut]
    cut = [i for i, t in enumerate(tiles) if face_up(t, read) and tiles[i].colours.cut]
    if not idx and not cut:
        return tiles
    hue = np.array([tiles[i].colours.hue for i in idx]).reshape(-1, 6)
    weight = np.array([tiles[i].colours.coloured for i in idx]).reshape(-1, 6)

    def decoded(model: colour.ColourModel) -> list[Reading | None]:
        return decode(model.log_probs(hue) * weight[..., None], cfg)

    model = colour.ColourModel(sigma_deg=cfg.hue_sigma)
    got = decoded(model)
    conf = np.array([r.confidence if r else 0.0 for r in got])
    if (conf >= cfg.vouch).sum() >= cfg.adapt_min_tiles:
        labels = np.array([[COLOURS.index(c) for c in r.colours] if r else [-1] * 6 for r in got]).reshape(-1, 6)
        model = model.adapted(hue.ravel(), labels.ravel(), (conf[:, None] * weight).ravel())
    else:
        model = colour.ColourModel(sigma_deg=cfg.hue_sigma_few)
    got = decoded(model)
    held = frozenset(r.tile for r in got if r is not None and r.confidence >= CONFIDENT)
    cut_hue = np.array([tiles[i].colours.hue for i in cut]).reshape(-1, 6)
    cut_weight = np.array([tiles[i].colours.coloured for i in cut]).reshape(-1, 6)
    got += decode(model.log_probs(cut_hue) * cut_weight[..., None], cfg, held)
    out = list(tiles)
    for i, r in zip(idx + cut, got, strict=True):
        out[i] = replace(tiles[i], reading=r)
    return out
