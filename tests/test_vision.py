"""The detector on plain OpenCV drawings of tiles (exact truth), and on images that are not boards."""

from __future__ import annotations

import math

import numpy as np
import pytest
from drawn import Scene, legal_board, spiral_board
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tantrix_pi.board import Board, Placement
from tantrix_pi.tiles import ALL_NUMBERS, COLOURS, TILES
from tantrix_pi.vision import decode, detect
from tantrix_pi.vision.detection import CONFIDENT

LOOSE = (1, 4, 9, 17, 20, 25, 33, 41)
BOARD = legal_board(12, seed=3, avoid=LOOSE)


def scene(**kw) -> Scene:
    sc = Scene(**kw)
    sc.board(BOARD, twist=3)
    return sc


@pytest.mark.parametrize("angle", [0.0, 17.0, 41.0])
def test_a_drawn_board_is_read_exactly_at_any_angle(angle):
    det = detect(scene(angle=angle, seed=int(angle)).light(noise=2))
    assert det.board.same_as(BOARD), det.board
    assert all(t.confidence >= 0.8 for t in det.tiles)
    assert not det.unreadable and not det.loose


def test_warm_lamp_blur_and_noise_do_not_change_the_reading():
    # A 2700 K-like cast without camera white balance: blue bands on black turn dark.
    det = detect(scene(angle=8.0, seed=3).light((0.55, 0.8, 1.25), blur=1.0, noise=4))
    assert det.board.same_as(BOARD)


def test_small_tiles_are_read():
    det = detect(scene(size=(640, 480), tile_px=40.0, angle=-12.0, seed=5).light(noise=2))
    assert det.board.same_as(BOARD)


def test_mirror_tiles_are_never_confused():
    # Tiles 1..10 include mirror pairs; reading the image flipped would swap them.
    pairs = [n for n in ALL_NUMBERS if TILES[n].mirror][:6]
    board = spiral_board(pairs, [1, 4, 2, 5, 0, 3])
    sc = Scene(angle=5.0, seed=7)
    sc.board(board)
    det = detect(sc.light(noise=2))
    assert det.board.same_as(board)


def test_loose_face_down_and_cut_tiles_are_reported_not_placed():
    sc = scene(size=(900, 640), angle=10.0, seed=11)
    sc.tile(20, (90, 90), 2, twist=23)  # a loose tile at an odd angle
    sc.tile(33, (800, 560), 0, face_up=False)  # face down: a number on black
    sc.tile(1, (880, 300), 1)  # cut by the right edge of the frame
    det = detect(sc.light(noise=2))
    assert det.board.same_as(BOARD)
    assert [u.tile for u in det.loose] == [20]
    assert len(det.face_down) == 1 and math.dist(det.face_down[0].center_px, (800, 560)) < 20
    cut = [u for u in det.unreadable if "frame" in u.reason]
    assert len(cut) == 1 and math.dist(cut[0].center_px, (880, 300)) < 20


def test_a_row_of_loose_tiles_does_not_pass_for_the_board():
    sc = scene(size=(1000, 700), angle=0.0, seed=13)
    for i, n in enumerate([4, 9, 17, 25, 33, 41]):
        sc.tile(n, (120 + 75 * i, 640), i % 6, twist=[0, 20, -15, 10, 25, -5][i])
    det = detect(sc.light(noise=2))
    assert det.board.same_as(BOARD)


def test_json_has_the_board_and_the_extras():
    det = detect(scene(seed=2).light())
    data = det.to_dict()
    assert Board.from_dict(data).same_as(BOARD)
    assert {"center_px", "confidence"} <= set(data["tiles"][0])
    assert data["unreadable"] == [] and data["loose"] == [] and data["face_down"] == []
    assert set(det.timings) >= {"find_tiles", "fit_lattice", "read_edges", "normalise_colour", "decode"}


def test_decode_names_each_tile_once_and_doubts_a_contradiction():
    rng = np.random.default_rng(0)
    numbers = rng.choice(ALL_NUMBERS, 20, replace=False)
    turns = rng.integers(0, 6, 20)
    lp = np.full((20, 6, 4), math.log(0.01))
    for i, (n, k) in enumerate(zip(numbers, turns, strict=True)):
        for d, c in enumerate(TILES[int(n)].turned(int(k))):
            lp[i, d, COLOURS.index(c)] = 0.0
    got = decode.decode(lp)
    assert [(r.tile, r.rot) for r in got] == [(int(n), int(k)) for n, k in zip(numbers, turns, strict=True)]
    assert min(r.confidence for r in got) > 0.9
    # One edge read as another colour: no tile shows a colour once or three times, so no codeword fits all
    # six readings and the tile must not stay confident.
    seen = int(np.argmax(lp[0, 0]))
    lp[0, 0] = math.log(0.01)
    lp[0, 0, (seen + 1) % 4] = 0.0
    assert decode.decode(lp)[0].confidence < 0.8


def test_two_edges_leaning_yellow_over_green_do_not_make_a_confident_twin():
    # Tiles 13 (BYRRYB) and 26 (BGRRGB) differ only where one shows yellow and the other green. Under a warm
    # lamp green drifts towards yellow: two edges each favouring yellow by 16 to 1 are not proof enough.
    lp = np.full((1, 6, 4), math.log(0.01 / 3))
    for d, c in enumerate(TILES[13].turned(0)):
        lp[0, d, COLOURS.index(c)] = math.log(0.99)
        if c == "Y":
            lp[0, d, COLOURS.index("Y")] = math.log(0.95)
            lp[0, d, COLOURS.index("G")] = math.log(0.95 / 16)
    (reading,) = decode.decode(lp)
    assert (reading.tile, reading.rot) == (13, 0)
    assert reading.confidence < CONFIDENT


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(["noise", "blocks", "stripes", "dark"]))
def test_random_images_never_make_up_a_confident_board(seed, kind):
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(40, 400)), int(rng.integers(40, 400))
    if kind == "noise":
        img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    elif kind == "blocks":
        img = np.kron(rng.integers(0, 256, (h // 20 + 1, w // 20 + 1, 3)), np.ones((20, 20, 1)))[:h, :w]
        img = img.astype(np.uint8)
    elif kind == "stripes":
        img = np.zeros((h, w, 3), np.uint8)
        img[:, ::7] = rng.integers(0, 256, 3)
    else:
        img = rng.integers(0, 12, (h, w, 3), dtype=np.uint8)
    det = detect(img)
    assert len(det.tiles) <= 56
    assert sum(t.confidence >= 0.8 for t in det.tiles) <= 1


def test_no_tiles_on_an_empty_table():
    det = detect(Scene(seed=4).light(noise=3))
    assert det.tiles == [] and det.loose == []


def test_placements_are_on_distinct_cells_and_numbers():
    det = detect(scene(seed=9, angle=33.0).light())
    cells = [t.placement.cell for t in det.tiles]
    assert len(set(cells)) == len(cells)
    assert isinstance(det.tiles[0].placement, Placement)


def test_a_board_whose_colours_disagree_everywhere_is_not_trusted():
    # Tiles dropped on cells at random: touching colours mostly disagree, as when the grid was misread.
    board = spiral_board([2, 5, 7, 11, 13, 19, 23, 29, 31, 37, 43, 47])
    assert len(board.mismatches()) > 0.4 * 27
    sc = Scene(angle=9.0, seed=21)
    sc.board(board)
    det = detect(sc.light(noise=2))
    assert det.tiles == [] or all(t.confidence < 0.8 for t in det.tiles)
