"""Stage 1's hexagon fit: a tile's centre, turn and width recovered from an outline map alone."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tantrix_pi.grid import SQRT3
from tantrix_pi.vision import hexagon
from tantrix_pi.vision.hexagon import Hexagon, inside_any


def outline_map(hexes: list[Hexagon], shape=(120, 160), blur=0.8) -> np.ndarray:
    """A boundary probability map with the outlines of the given hexagons, as the network draws them (drawn
    8 times finer and averaged down, so the lines sit where they should to a fraction of a pixel)."""
    k = 8
    img = np.zeros((shape[0] * k, shape[1] * k), np.float32)
    for h in hexes:
        fine = (h.corners() + 0.5) * k - 0.5
        cv2.polylines(img, [np.round(fine * 16).astype(np.int32)], True, 1.0, k, cv2.LINE_AA, 4)
    img = cv2.resize(img, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(img, (0, 0), blur) * 2.5


@pytest.mark.parametrize("angle", [0.0, 11.0, 29.0, -17.0, 44.0])
def test_a_regular_hexagon_is_recovered_from_its_outline(angle):
    true = Hexagon.regular((80.3, 61.7), 14.0, angle)
    got, support = hexagon.fit(outline_map([true]), np.array([[78.5, 63.0]]), np.array([true.width * 1.12]))
    h = got[0]
    assert math.dist(h.centre, true.centre) < 0.3
    assert abs(h.width / true.width - 1) < 0.03
    # the fitted edge 1 is the edge whose normal is nearest image-right, whatever the turn
    assert abs(((h.angle - angle) + 30) % 60 - 30) < 1.5 and -30 <= h.angle <= 30
    assert support[0] > 0.5


def test_touching_neighbours_do_not_pull_the_fit():
    # a board: the centre tile and its six neighbours share edges in the outline map
    s = 13.0
    centre = Hexagon.regular((80, 60), s, 6.0)
    ring = [Hexagon.regular(centre.to_photo(np.array([SQRT3 * math.cos(math.radians(-60 + 60 * d)),
                                                      SQRT3 * math.sin(math.radians(-60 + 60 * d))]) * 1.03),
                            s, 6.0) for d in range(6)]
    got, _ = hexagon.fit(outline_map([centre, *ring]), np.array([[81.0, 59.0]]), np.array([centre.width * 0.9]))
    assert math.dist(got[0].centre, centre.centre) < 0.4
    assert abs(got[0].width / centre.width - 1) < 0.04


def test_a_squashed_hexagon_keeps_its_squash():
    # seen by a camera tilted 25 degrees: widths along the tilt shrink by cos(25)
    squash = np.array([[1.0, 0.0], [0.0, math.cos(math.radians(25))]])
    true = Hexagon.of((80, 60), squash @ Hexagon.regular((0, 0), 16.0, 8.0).m)
    got, _ = hexagon.fit(outline_map([true]), np.array([[80.0, 60.0]]), np.array([true.width]))
    assert np.abs(got[0].corners() - true.corners()).max() < 0.8


def test_no_outline_means_no_support():
    got, support = hexagon.fit(np.zeros((60, 60), np.float32), np.array([[30.0, 30.0]]), np.array([20.0]))
    assert support[0] == 0.0


def test_turning_renumbers_the_edges():
    h = Hexagon.regular((0, 0), 10.0, 5.0)
    assert abs(h.turned(1).angle - (5.0 - 60.0)) < 1e-9
    # edge d of the turned hexagon is edge d - 1 of the original: the same corners, renumbered
    assert np.allclose(h.turned(1).corners(), np.roll(h.corners(), 1, axis=0))


def test_a_point_is_inside_any_of_several_squashed_turned_hexagons_when_their_outlines_enclose_it():
    hexes = [Hexagon.of((200.0, 150.0), np.array([[40.0, 12.0], [-5.0, 28.0]])),
             Hexagon.of((250.0, 170.0), np.array([[-20.0, 25.0], [30.0, 10.0]]))]
    pts = np.random.default_rng(1).uniform((120, 90), (320, 240), (40, 50, 2))  # any leading shape
    outlines = [np.float32(hx.corners()) for hx in hexes]
    depth = np.array([[max(cv2.pointPolygonTest(o, (float(x), float(y)), True) for o in outlines) for x, y in row]
                      for row in pts])
    clear = np.abs(depth) > 0.5  # not on an outline itself, where rounding decides
    assert np.array_equal(inside_any(hexes, pts)[clear], depth[clear] > 0)
    assert 200 < np.count_nonzero(depth > 0) < 1800
    assert not inside_any([], pts).any()
