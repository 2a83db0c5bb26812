"""Tiles lying face down: found and filed with their back colour, on the board and beside it; on the board they
stop a verdict, unless their back alone says the puzzle is not solved."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tantrix_pi.board import Board
from tantrix_pi.grid import neighbour
from tantrix_pi.puzzles import puzzle
from tantrix_pi.simulator import PLAIN, Apart, legal_board, render
from tantrix_pi.simulator.photo import cell_px
from tantrix_pi.simulator.sprites import BACK_INK, tile_sprite
from tantrix_pi.tiles import TILES
from tantrix_pi.vision import detect
from tantrix_pi.vision.verdict import Unsure, check

BACKS = [Apart(n, (120 + 110 * (i % 6), 110 + 110 * (i // 6)), 10.0 * i, face_up=False)
         for i, n in enumerate(range(1, 31))]


def ringed(tile: int, face_up: bool, radius: float) -> np.ndarray:
    """The drawn tile, its back printed as the real ones are: the number inside a ring of its colour."""
    img = tile_sprite(tile, face_up, radius, 0.23, 0).copy()
    if not face_up:
        half = img.shape[0] // 2
        cv2.circle(img, (half, half), int(0.62 * radius), (*BACK_INK[TILES[tile].back], 255),
                   max(1, int(radius / 18)), cv2.LINE_AA)
    return img


def test_a_table_of_backs_is_every_tile_face_down_with_its_back_colour():
    # with no band in the photo the black's own grain passed for bands, and the backs vanished
    image, _ = render(Board(), seed=3, size=(800, 700), tile_px=80.0, apart=BACKS, **{**PLAIN, "noise": 1.0})
    det = detect(image)
    assert det.tiles == [] and det.loose == [] and det.unreadable == []
    assert len(det.face_down) == len(BACKS)
    for a in BACKS:
        (u,) = [u for u in det.face_down if math.dist(u.center_px, a.at_px) < 15]
        assert u.back == TILES[a.tile].back, a.tile


def test_backs_printed_in_a_ring_are_never_read_as_face_up_tiles():
    # one colour all round the edges: no face-up tile shows a colour on more than two edges
    image, _ = render(Board(), seed=3, size=(800, 700), tile_px=80.0, apart=BACKS, sprites=ringed,
                      **{**PLAIN, "noise": 1.0})
    det = detect(image)
    assert det.tiles == [] and det.loose == []
    assert len(det.face_down) >= 15  # the network, trained on plain backs, finds 18 of these 30 (docs/vision.md)
    for u in det.face_down:
        (a,) = [a for a in BACKS if math.dist(u.center_px, a.at_px) < 15]
        assert u.back == TILES[a.tile].back, a.tile


BOARD = legal_board(8, seed=2, avoid=(9, 12, 33, 50))
SCENE = {"seed": 2, "size": (900, 700), "tile_px": 70.0, **PLAIN, "noise": 1.0}


def turned_over_on_the_board(tile: int, angle: float = 0.0):
    """A photo of BOARD with `tile` lying face down on an empty cell next to it, and that cell."""
    _, truth = render(BOARD, **SCENE)
    cell = next(neighbour(c, d) for c in sorted(BOARD.cells) for d in range(6) if neighbour(c, d) not in BOARD.cells)
    image, _ = render(BOARD, apart=[Apart(tile, cell_px(truth, cell), angle, face_up=False)], **SCENE)
    return image, cell


@pytest.mark.parametrize("angle", [0.0, 20.0, 40.0])
def test_a_tile_turned_over_on_the_board_stops_the_verdict(angle):
    # lying in line with its neighbours the network hardly marked its centre, and it vanished: "tile 9 is
    # missing" was the verdict
    image, cell = turned_over_on_the_board(9, angle)
    det = detect(image)
    assert [(u.cell, u.back) for u in det.face_down] == [(cell, "Y")]
    with pytest.raises(Unsure, match="face-down"):
        check(det, puzzle("discovery:10"), "photo")


@pytest.mark.parametrize("tile, colour", [(33, "green"), (50, "white")])
def test_a_back_none_of_the_puzzles_tiles_has_says_not_solved(tile, colour):
    image, cell = turned_over_on_the_board(tile)
    verdict = check(detect(image), puzzle("discovery:10"), "photo")
    assert verdict.exit_code == 1 and verdict.answer["solved"] is False
    assert verdict.answer["reasons"] == [
        f"the face-down tile at ({cell[0]},{cell[1]}) has a {colour} back: it is not one of Discovery 10's tiles"]
    assert verdict.answer["detection"]["face_down"][0]["back"] == colour
