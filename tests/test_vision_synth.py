"""The detector on simulator photos of the conditions it once failed in: each scene failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from tantrix_pi.simulator import random_board, render
from tantrix_pi.vision import detect
from tantrix_pi.vision.detection import CONFIDENT, COVERED
from tantrix_pi.vision.evaluate import score


@pytest.mark.parametrize("case", [
    # 41 px tiles in a 12 MP frame on a checked cloth under a warm lamp: at a quarter of the resolution the
    # black between the bands vanishes and the board reads as one blob, a lattice that fits nothing.
    dict(board=(16, 20), size=(4056, 3040), tile_px=41.0, table="pattern", light_k=2730.0, awb=0.36,
         yaw_deg=327.5, tilt_deg=7.4, blur=0.4, noise=1.2, jpeg_quality=80),
    # 53 px tiles, soft focus on felt: halved, the tiles are 27 px and their thin black is partly erased.
    dict(board=(36, 22), size=(1640, 1232), tile_px=53.3, table="felt", light_k=4700.0, yaw_deg=237.0,
         tilt_deg=5.0, blur=1.2, noise=1.5, jpeg_quality=80),
])
def test_small_tiles_in_a_large_frame_are_read(case):
    seed, n = case.pop("board")
    board = random_board(np.random.default_rng(seed), n)
    image, _ = render(board, seed=seed, **case)
    det = detect(image)
    assert det.board.same_as(board), (len(det.tiles), len(board), [u.reason for u in det.unreadable])
    assert all(t.confidence >= CONFIDENT for t in det.tiles)


def test_a_big_board_tilted_through_a_wide_lens_gets_its_true_tile_width():
    # Tilted 19 degrees through a barrel lens under a warm lamp: a similarity lattice of the true width drifts
    # off the far tiles, so one half as wide fitted the outline better until both were refined.
    board = random_board(np.random.default_rng(8), 28)
    image, truth = render(board, seed=8, size=(1640, 1232), tile_px=124.0, tilt_deg=19.3, tilt_azimuth_deg=306.0,
                          yaw_deg=315.0, light_k=3200.0, awb=0.72, table="wood", blur=1.3, noise=1.8,
                          jpeg_quality=72, k1=-0.14)
    det = detect(image)
    assert det.board.same_as(board), (len(det.tiles), [u.reason for u in det.unreadable][:3])
    assert abs(det.tile_px / truth["tile_size_px"]["across_flats_median"] - 1) < 0.1


def test_an_arm_across_the_board_blocks_a_verdict_and_misreads_nothing():
    # The arm hides two rows of the board: the tiles it covers are not read, the cells beside it are said to
    # be covered, so no verdict is given on the part in view; nothing is read wrong with confidence.
    board = random_board(np.random.default_rng(55), 24)
    image, truth = render(board, seed=55, size=(1640, 1232), tile_px=80.0, yaw_deg=550.0, occluder="hand",
                          light_k=4500.0)
    det = detect(image)
    got = score(det, truth)
    assert got.turn >= 6 and not got.confident_wrong and got.extra == 0, got
    assert any(d.detail == COVERED for d in det.doubts())


def test_a_lone_tile_near_the_camera_does_not_set_the_boards_tile_width():
    # Tilted 20 degrees: a loose tile on the near side looks 10 % wider than the board's tiles and, a lone
    # hexagon fitting its own width perfectly, it set the width; the board's lattice then fitted nothing.
    board = random_board(np.random.default_rng(2), 9)
    image, truth = render(board, seed=2, size=(1920, 1080), tile_px=64.0, yaw_deg=68.0, tilt_deg=20.0,
                          tilt_azimuth_deg=114.0, light_k=6300.0, table="wood", glare=0.97,
                          loose=(13, 12), center=(960.0, 950.0), k1=-0.09)
    det = detect(image)
    got = score(det, truth)
    assert got.number >= 7 and not got.confident_wrong, got
    assert abs(det.tile_px / truth["tile_size_px"]["across_flats_median"] - 1) < 0.06
