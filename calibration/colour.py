"""Colour: white balance and Lab prototypes of the four arc colours and tile black, learned from a photo of tiles.

Tile faces are the dark regions; arcs are the coloured pixels the black closes around. The arc pixels
fall into four clusters (k-means), named by hue once the common colour cast is taken out. White balance
makes the tile black neutral: glossy black plastic has no colour of its own, so whatever colour it shows
is the light's.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from tantrix_pi.calibration.profile import COLOUR_NAMES, ColourCalibration, Profile, now
from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _, colour_name

ARC_NAMES = ("R", "Y", "G", "B")
NOMINAL_HUE_DEG = {"R": 40.0, "Y": 95.0, "G": 150.0, "B": 290.0}
"""Hue angles (CIE Lab, atan2(b, a)) of the tile colours, used only to name the clusters."""
DARK_L = 35.0
DARK_MARGIN = 15.0
"""Tile black is at least this much darker (L*) than the table around it (dark tables and vignetted corners are not)."""
MIN_BLACK_LEVEL = 6.0
"""Below this (8-bit) the tile black is too dark to tell the light's colour from it."""
BLACK_CHROMA = 20.0
MIN_CHROMA = 18.0
MIN_ARC_PIXELS = 200
MIN_SEPARATION = 12.0
"""Two arc clusters closer than this (Delta E) are one colour split in two: a colour is missing from the photo."""
MIN_CLUSTER_SHARE = 0.05
"""A colour cluster with fewer of the arc pixels than this is a fringe between two colours, not a colour."""
GAMMA = 2.2
ROUNDS = 4
MAX_HUE_OFF_DEG = 40.0
"""A learned arc colour further than this from its tile colour's hue (after white balance) is not that colour:
the photo shows no Tantrix tiles (under real room light the four stay within 15 degrees)."""
BLUE_RANGE = (0.6, 2.0)
"""How far the arcs' hues may move the blue gain the black gave (a factor)."""
"""At most this many rounds of measuring the black on the photo balanced by the gains so far."""


class ColourError(TantrixError):
    """The photo does not show the tile colours well enough to learn them."""


def lab(bgr: np.ndarray) -> np.ndarray:
    """CIE L*a*b* (L 0..100) of a BGR uint8 image, float32."""
    return cv2.cvtColor(bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


@dataclass
class Separation:
    """How far apart the prototypes are: the closest pair, its distance and the margin left by the spreads."""

    pair: tuple[str, str]
    distance: float
    margin: float
    """distance minus both classes' spread (90th percentile distance of their pixels to their prototype)."""
    spread: dict[str, float]
    pixels: dict[str, int]

    def describe(self) -> str:
        """One line for the user."""
        a, b = self.pair
        if self.margin > 0:
            line = _("closest pair {a}-{b}: Delta E {distance:.1f}, margin {margin:+.1f} after their spreads "
                     "({spread_a:.1f}, {spread_b:.1f}): well separated")
        else:
            line = _("closest pair {a}-{b}: Delta E {distance:.1f}, margin {margin:+.1f} after their spreads "
                     "({spread_a:.1f}, {spread_b:.1f}): OVERLAPPING: better light, or fewer reflections")
        return line.format(a=a, b=b, distance=self.distance, margin=self.margin, spread_a=self.spread[a],
                           spread_b=self.spread[b])


def _surroundings(lightness: np.ndarray) -> np.ndarray:
    """The lightness of the table around each pixel: a grey closing wider than a tile removes the dark tiles."""
    h, w = lightness.shape
    f = min(1.0, 320 / w)
    small = cv2.resize(lightness, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
    k = max(3, round(small.shape[1] / 8)) | 1
    closed = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return cv2.resize(closed, (w, h), interpolation=cv2.INTER_LINEAR)


def tile_masks(lab_image: np.ndarray, rim: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(tile black, arc candidates) as boolean masks: dark faces, and coloured pixels the black closes around.

    rim: pixels of each arc next to the black left out (they blend into it).
    """
    chroma = np.hypot(lab_image[..., 1], lab_image[..., 2])
    lightness = lab_image[..., 0]
    dark = ((lightness < DARK_L) & (chroma < BLACK_CHROMA) & (lightness < _surroundings(lightness) - DARK_MARGIN))
    dark = dark.astype(np.uint8)
    n, labels, stats, _centroids = cv2.connectedComponentsWithStats(dark, connectivity=8)
    if n <= 1:
        return np.zeros(dark.shape, bool), np.zeros(dark.shape, bool)
    dist = cv2.distanceTransform(dark, cv2.DIST_L2, 3)
    thickness = np.zeros(n)
    np.maximum.at(thickness, labels.ravel(), dist.ravel())
    # Tile faces are the thickest dark things on a table: keep pieces at least half as thick as the thickest
    # (wood grain, seams and shadows are thin).
    keep = thickness >= 0.5 * thickness[1:].max()
    keep[0] = False
    dark = keep[labels].astype(np.uint8)
    half = float(np.median(thickness[keep]))
    size = int(np.clip(4 * half, 5, max(5, dark.shape[1] // 20))) | 1
    closed = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    near_black = cv2.dilate(dark, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8))
    arcs = (closed > 0) & (near_black == 0) & (chroma > MIN_CHROMA)
    # Only the core of each arc: its rim blends into the black and into the next arc.
    arcs = cv2.erode(arcs.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    black = cv2.erode(dark, np.ones((5, 5), np.uint8)) > 0
    return black, arcs


def _name_clusters(centres_ab: np.ndarray) -> list[str]:
    """Names for four (a, b) cluster centres: the hue assignment closest to nominal after removing the cast."""
    shifted = centres_ab - centres_ab.mean(axis=0)
    hues = np.degrees(np.arctan2(shifted[:, 1], shifted[:, 0])) % 360
    best, best_cost = None, math.inf
    for names in itertools.permutations(ARC_NAMES):
        cost = sum(abs((h - NOMINAL_HUE_DEG[n] + 180) % 360 - 180) for h, n in zip(hues, names, strict=True))
        if cost < best_cost:
            best, best_cost = list(names), cost
    return best


def _gains(black_rgb: np.ndarray) -> tuple[float, float, float] | None:
    """R, G, B gains on 8-bit values (green = 1) that make the tile black neutral; None when it is too dark."""
    if black_rgb.max() < MIN_BLACK_LEVEL or black_rgb.min() <= 0:
        return None
    linear = (np.asarray(black_rgb, dtype=np.float64) / 255.0) ** GAMMA
    g = (linear[1] / linear) ** (1 / GAMMA)
    return tuple(round(float(x), 4) for x in g)


def learn(image: np.ndarray) -> tuple[ColourCalibration, Separation]:
    """White balance and prototypes from a BGR photo of face-up tiles showing all four colours."""
    from scipy.stats import trim_mean  # here, not at the top: scipy.stats alone takes 40 Python starts to load

    gains, balanced = (1.0, 1.0, 1.0), image
    # Under a warm lamp the blue arcs look dark and grey, pass for tile black and tint it blue: the
    # black is measured again on the balanced photo, where they are blue again, until the gains settle.
    for _round in range(ROUNDS):
        black, arcs = tile_masks(lab(balanced))
        if arcs.sum() < MIN_ARC_PIXELS or black.sum() < MIN_ARC_PIXELS:
            raise ColourError(_("no tiles found: put face-up tiles showing all four colours on the table, in view "
                                "and lit"))
        # a trimmed mean, not the median: the black is a few 8-bit steps, and a median of integers jumps
        step = _gains(trim_mean(balanced[black][:, ::-1].astype(np.float64), 0.2, axis=0))
        if step is None:
            break
        gains = tuple(round(a * b, 4) for a, b in zip(gains, step, strict=True))
        balanced = Profile(colour=ColourCalibration(gains, {}, "")).white_balance(image)
        if max(abs(x - 1.0) for x in step) < 0.01:
            break
    # Thin arcs (small tiles in the photo, or a dim room's dark green) can lose a colour's every pixel to
    # the rim left out next to the black: then the rim is kept.
    for rim in (1, 0):
        black, arcs = tile_masks(lab(balanced), rim)
        try:
            names = _clusters(balanced, arcs)
            break
        except ColourError:
            if rim == 0:
                raise
    gains = _blue_from_hues(image, names, gains)
    balanced = Profile(colour=ColourCalibration(gains, {}, "")).white_balance(image)
    lab_b = lab(balanced)
    masks = dict(names, black=black)
    prototypes = {n: tuple(round(float(x), 2) for x in np.median(lab_b[masks[n]], axis=0)) for n in COLOUR_NAMES}
    _check_hues(prototypes)
    model = ColourCalibration(gains, prototypes, now())
    return model, separation(model, {n: lab_b[masks[n]] for n in COLOUR_NAMES})


def _check_hues(prototypes: dict[str, tuple[float, float, float]]) -> None:
    """ColourError unless each arc colour learned has roughly its tile colour's hue: four clusters of any
    colourful things on dark ones (a poster, another game) are not the tiles' red, yellow, green and blue."""
    for name in ARC_NAMES:
        _lightness, a, b = prototypes[name]
        hue = math.degrees(math.atan2(b, a)) % 360
        if abs((hue - NOMINAL_HUE_DEG[name] + 180) % 360 - 180) > MAX_HUE_OFF_DEG:
            # TRANSLATORS: {colour} is a colour's name as a word of its own ("red")
            raise ColourError(_("what this photo shows as {colour} is not the {colour} of a Tantrix tile (hue "
                                "{hue:.0f} degrees, the tiles' is near {nominal:.0f}): put face-up tiles showing red, "
                                "yellow, green and blue in view, lit by the room's usual light").format(
                colour=colour_name(name), hue=hue, nominal=NOMINAL_HUE_DEG[name]))


def _blue_from_hues(image: np.ndarray, masks: dict[str, np.ndarray], gains: tuple[float, float, float]
                    ) -> tuple[float, float, float]:
    """The gains with the blue one chosen so that the four arc colours' hues come closest to the tiles' own.

    The black sets red well but not blue: it is dark, so its blue is a few 8-bit steps under a warm lamp,
    and a printed black is seldom exactly neutral (a slightly blue black leaves warm light under-corrected
    and makes neutral light yellow). The arcs are bright, and their hues are known.
    """
    names = list(masks)
    medians = np.array([np.median(image[masks[n]].astype(np.float64), axis=0) for n in names]) * gains[::-1]
    steps = np.exp(np.linspace(math.log(BLUE_RANGE[0]), math.log(BLUE_RANGE[1]), 121))
    trial = (medians[None] * np.stack([steps, np.ones_like(steps), np.ones_like(steps)], axis=1)[:, None])
    trial_lab = cv2.cvtColor((trial.clip(0, 255) / 255.0).astype(np.float32), cv2.COLOR_BGR2Lab)
    hues = np.degrees(np.arctan2(trial_lab[..., 2], trial_lab[..., 1]))
    nominal = np.array([NOMINAL_HUE_DEG[n] for n in names])
    cost = (((hues - nominal + 180) % 360 - 180) ** 2).sum(axis=1)
    best = float(steps[int(np.argmin(cost))])
    return gains[0], gains[1], round(gains[2] * best, 4)


def _clusters(image: np.ndarray, arcs: np.ndarray) -> dict[str, np.ndarray]:
    """The arc pixels split into four named colour masks."""
    lab_raw = lab(image)
    samples = lab_raw[arcs]
    features = np.column_stack([samples[:, 0] * 0.5, samples[:, 1], samples[:, 2]]).astype(np.float32)
    cv2.setRNGSeed(7)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 50, 0.1)
    _compactness, labels, centres = cv2.kmeans(features, 4, None, criteria, 4, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    counts = np.bincount(labels, minlength=4)
    close = min(np.linalg.norm(centres[i, 1:] - centres[j, 1:]) for i, j in itertools.combinations(range(4), 2))
    if counts.min() < MIN_CLUSTER_SHARE * len(labels) or close < MIN_SEPARATION:
        raise ColourError(_("only three arc colours can be told apart in this photo: put tiles showing red, yellow, "
                            "green and blue in view"))
    names = _name_clusters(centres[:, 1:])
    ys, xs = np.nonzero(arcs)
    masks = {}
    for k, name in enumerate(names):
        m = np.zeros(arcs.shape, bool)
        m[ys[labels == k], xs[labels == k]] = True
        masks[name] = m
    return masks


def separation(model: ColourCalibration, members: dict[str, np.ndarray]) -> Separation:
    """The closest pair of prototypes and its margin once each class's spread is taken off."""
    protos = {n: np.array(p) for n, p in model.prototypes.items()}
    spread = {n: float(np.percentile(np.linalg.norm(members[n] - protos[n], axis=1), 90)) if len(members[n]) else 0.0
              for n in protos}
    best = None
    for a, b in itertools.combinations(protos, 2):
        d = float(np.linalg.norm(protos[a] - protos[b]))
        if best is None or d - spread[a] - spread[b] < best[2]:
            best = ((a, b), d, d - spread[a] - spread[b])
    return Separation(best[0], best[1], best[2], spread, {n: len(m) for n, m in members.items()})


DISPLAY_BGR = {"R": (40, 40, 230), "Y": (30, 220, 250), "G": (60, 180, 40), "B": (220, 110, 30), "black": (90, 90, 90)}


def classify(profile: Profile, image: np.ndarray, max_distance: float = 25.0) -> np.ndarray:
    """Per pixel: index into COLOUR_NAMES of the nearest prototype after white balance, -1 when none is near."""
    lab_b = lab(profile.white_balance(image))
    protos = np.array([profile.colour.prototypes[n] for n in COLOUR_NAMES], dtype=np.float32)
    d = np.linalg.norm(lab_b[:, :, None, :] - protos[None, None], axis=3)
    best = d.argmin(axis=2)
    best[d.min(axis=2) > max_distance] = -1
    return best


def class_overlay(profile: Profile, image: np.ndarray) -> np.ndarray:
    """The photo with each pixel near a prototype tinted with that class's display colour."""
    classes = classify(profile, image)
    out = image.copy()
    for i, name in enumerate(COLOUR_NAMES):
        m = classes == i
        out[m] = (0.4 * out[m] + 0.6 * np.array(DISPLAY_BGR[name])).astype(np.uint8)
    return out
