"""The detector on vision.synth photos of the conditions it once failed in: each scene failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from vision import detect
from vision.synth import random_board, render


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
    assert all(t.confidence >= 0.8 for t in det.tiles)
