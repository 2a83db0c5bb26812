"""When an off-colour reading is a real illegal move rather than a misreading: `decode.best_fitting` (the most
likely reading that would fit the neighbours) and `assemble._clearly_wrong` (announce, or doubt the reading)."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from tantrix_pi.grid import opposite
from tantrix_pi.tiles import ALL_NUMBERS, COLOURS, TILES
from tantrix_pi.vision.assemble import _clearly_wrong
from tantrix_pi.vision.config import CONFIG
from tantrix_pi.vision.decode import CODES, Reading, best_fitting, scores
from tantrix_pi.vision.detection import CONFIDENT

TILE, ROT = 17, 2
SHOWN = TILES[TILE].turned(ROT)
EAST = 1


def evidence(right: float) -> np.ndarray:
    """6 x 4 log-probabilities: `right` on the colour the tile shows at each edge, the rest spread over the others."""
    p = np.full((6, 4), (1.0 - right) / 3)
    for d, c in enumerate(SHOWN):
        p[d, COLOURS.index(c)] = right
    return np.log(p)


def other_colour(d: int) -> str:
    return next(c for c in COLOURS if c != SHOWN[d])


def reading(ev: np.ndarray, confidence: float) -> Reading:
    n = ALL_NUMBERS.index(TILE)
    return Reading(TILE, ROT, confidence, float(scores(ev[None])[0, n, ROT]), SHOWN, ev)


def neighbour_showing(colour: str, towards: int) -> dict:
    """A neighbour east of (0, 0) showing `colour` on its edge facing back."""
    colours = ["R"] * 6
    colours[opposite(towards)] = colour
    return {(1, 0): SimpleNamespace(colours="".join(colours))}


def test_best_fitting_is_the_reading_itself_when_nothing_constrains_it_or_the_neighbours_agree():
    ev = evidence(0.97)
    best = float(scores(ev[None])[0].max())
    assert best == pytest.approx(reading(ev, 1.0).score)  # the tile is the most likely reading
    assert best_fitting(ev, [None] * 6) == pytest.approx(best)
    assert best_fitting(ev, [SHOWN[0], SHOWN[1], None, None, None, None]) == pytest.approx(best)


def test_best_fitting_is_the_best_reading_showing_the_neighbours_colours_or_none():
    ev = evidence(0.97)
    facing = [None, other_colour(EAST), None, None, None, None]
    want = COLOURS.index(facing[EAST])
    fits = scores(ev[None])[0][CODES[:, :, EAST] == want]
    assert best_fitting(ev, facing) == pytest.approx(float(fits.max()))
    two_edges_read_wrong = 2 * math.log(0.97 / 0.01)  # each colour shows on two edges: changing one changes two
    assert best_fitting(ev, facing) <= reading(ev, 1.0).score - two_edges_read_wrong + 1e-9
    assert best_fitting(ev, [SHOWN[0]] * 6) == -math.inf  # no tile shows one colour all round


def test_a_clear_reading_that_breaks_the_golden_rule_is_a_real_violation():
    ev = evidence(0.6)
    assert _clearly_wrong(SimpleNamespace(reading=reading(ev, CONFIG.assemble.clear), cell=(0, 0)),
                          neighbour_showing(other_colour(EAST), EAST), CONFIG)


def test_a_confident_reading_no_fitting_tile_comes_close_to_is_a_real_violation():
    ev = evidence(0.995)  # every edge seen clearly: a fitting tile would need two edges read wrong
    r = reading(ev, (CONFIDENT + CONFIG.assemble.clear) / 2)
    assert _clearly_wrong(SimpleNamespace(reading=r, cell=(0, 0)), neighbour_showing(other_colour(EAST), EAST),
                          CONFIG)


def test_a_reading_a_fitting_tile_explains_almost_as_well_is_a_misreading():
    ev = evidence(0.6)  # washed-out colours: a fitting reading is a few nats less likely, not `misfit`
    r = reading(ev, (CONFIDENT + CONFIG.assemble.clear) / 2)
    tile = SimpleNamespace(reading=r, cell=(0, 0))
    assert not _clearly_wrong(tile, neighbour_showing(other_colour(EAST), EAST), CONFIG)
    weak = SimpleNamespace(reading=reading(evidence(0.995), CONFIDENT / 2), cell=(0, 0))
    assert not _clearly_wrong(weak, neighbour_showing(other_colour(EAST), EAST), CONFIG)  # not sure of it at all
