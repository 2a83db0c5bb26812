"""The detector through a calibration profile: the photo white-balanced, rectified to a top view of the table,
and every position reported back in the raw photo's pixels (vision/pipeline.py, `calibrated_view`)."""

import math

import numpy as np
import pytest

from tantrix_pi import simulator
from tantrix_pi.board import Board
from tantrix_pi.calibration.colour import learn
from tantrix_pi.calibration.profile import Profile, TablePlane
from tantrix_pi.live.recording import game_moves
from tantrix_pi.live.tracker import apply, register
from tantrix_pi.vision import detect

SIZE = (800, 600)


@pytest.fixture(scope="module")
def tilted():
    """A photo of 7 tiles from a camera tilted 25 degrees, and its truth (the board plane's homography)."""
    board = Board(game_moves(3, 7))
    image, truth = simulator.render(board, seed=5, size=SIZE, tile_px=70, tilt_deg=25.0, tilt_azimuth_deg=90.0,
                                    light_k=3200.0, awb=0.3)
    return board, image, truth


def table_profile(truth, colour=None) -> Profile:
    """The profile a perfect `calibrate table` would measure: the board plane's own homography (plane units as
    millimetres), its view a 900 x 700 rectangle around the board at 1 px/mm."""
    plane = TablePlane(homography=np.array(truth["homography_board_to_px"], dtype=np.float64), px_per_mm=1.0,
                       view_mm=(-450.0, -350.0, 450.0, 350.0), image_size=SIZE, measured="test")
    return Profile(table=plane, colour=colour)


def read(det, board) -> list:
    """The placements read, in the board's own cells (the camera's grid has its own origin and turn)."""
    seen = [t.placement for t in det.tiles]
    grid = register(board, seen)
    return sorted(apply(grid, p) for p in seen)


def test_a_rectified_tilted_photo_reads_the_board_and_reports_raw_pixels(tilted):
    board, image, truth = tilted
    det = detect(image, table_profile(truth))
    assert read(det, board) == sorted(board)
    assert "calibration" in det.timings
    truth_centres = [t["center_px"] for t in truth["tiles"] if t["on_board"]]
    for tile in det.tiles:  # in the photo's pixels, not the rectified view's
        assert min(math.dist(tile.center_px, c) for c in truth_centres) < 6.0, tile.center_px
        corners = np.array(tile.corners_px)
        assert len(corners) == 6 and np.all(np.linalg.norm(corners - tile.center_px, axis=1) < 60)


def test_the_colour_calibration_balances_the_photo_before_it_is_read(tilted):
    board, image, truth = tilted
    model, _ = learn(image)
    assert model.white_balance[2] > 1.05  # a warm lamp: blue is lifted
    profile = table_profile(truth, colour=model)
    balanced = profile.white_balance(image)
    assert balanced.mean(axis=(0, 1))[0] > image.mean(axis=(0, 1))[0]  # the balanced photo is what is read
    det = detect(image, profile)
    assert read(det, board) == sorted(board)
