"""Stage 1, find tiles, and the whole detector on the simulator's photos: every tile found by itself with
its hexagon, at any size; nothing found on empty tables; no doubt raised by junk beside the board."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tantrix_pi.board import Board
from tantrix_pi.simulator import Clutter, legal_board, render
from tantrix_pi.vision import detect
from tantrix_pi.vision.config import CONFIG
from tantrix_pi.vision.find import find_tiles
from tantrix_pi.vision.network import shipped
from tantrix_pi.vision.training.labels import hexagon_params


@pytest.mark.parametrize(("size", "tile_px", "n"), [((1640, 1232), 42.0, 12), ((1640, 1232), 110.0, 12),
                                                    ((1024, 768), 220.0, 4)])
def test_every_tile_is_found_with_its_hexagon(size, tile_px, n):
    board = legal_board(n, seed=3)
    image, truth = render(board, seed=3, size=size, tile_px=tile_px, yaw_deg=23.0, tilt_deg=12.0, table="felt")
    found, _ = find_tiles(image, shipped(), CONFIG.find)
    whole = [t for t in truth["tiles"] if t["fraction_in_image"] == 1.0]
    assert len(whole) == n and len(found) == n
    for t in whole:
        c, flats = hexagon_params(np.array(t["corners_px"]))
        s = min(found, key=lambda f: math.dist(f.centre, c))
        assert math.dist(s.centre, c) < 0.06 * flats
        assert abs(s.hexagon.width / flats - 1) < 0.08
        assert abs((s.hexagon.angle - t["edge0_normal_angle_px_deg"] + 30) % 60 - 30) < 6


@pytest.mark.parametrize("table", ["dark_wood", "checks", "carpet", "black", "paper"])
def test_an_empty_table_shows_no_tile_and_nothing_unreadable(table):
    image, _ = render(Board(), seed=4, size=(1024, 768), tile_px=60.0, table=table, glare=0.8, occluder=(500.0, 400.0))
    det = detect(image)
    assert det.tiles == [] and det.unreadable == [] and det.face_down == []


def test_clutter_beside_a_board_on_paper_raises_no_doubt():
    board = legal_board(9, seed=8)
    things = [Clutter("cup", (200.0, 200.0)), Clutter("pad", (1050.0, 760.0)), Clutter("coin", (260.0, 800.0))]
    image, _ = render(board, seed=8, size=(1280, 960), tile_px=80.0, table="paper", clutter=things)
    det = detect(image)
    assert det.board.same_as(board) and det.doubts() == []
