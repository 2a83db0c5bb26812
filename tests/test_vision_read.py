"""Stages 3 and 4, read and decode, on hexagons taken from the simulator's truth (no network): every tile
of a photo is named with its turn, under a warm lamp too; a tile cut by the frame is left unread."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tantrix_pi.simulator import legal_board, render
from tantrix_pi.vision import decode, edges
from tantrix_pi.vision.config import CONFIG
from tantrix_pi.vision.detection import CONFIDENT
from tantrix_pi.vision.hexagon import UNIT_CORNERS, Hexagon
from tantrix_pi.vision.network import STRIDE, Maps
from tantrix_pi.vision.seen import Seen


def true_tiles(truth: dict) -> list[Seen]:
    """The board tiles as the grid stage would hand them on: their hexagons, edge d facing board direction d."""
    out = []
    for t in truth["tiles"]:
        if not t["on_board"]:
            continue
        corners = np.array(t["corners_px"])
        # truth corner i lies between the tile's edges i and i + 1; edge i faces board direction i + rot
        unit = UNIT_CORNERS[[(i + t["rot"]) % 6 for i in range(6)]]
        m, *_ = np.linalg.lstsq(unit, corners - corners.mean(axis=0), rcond=None)
        out.append(Seen(Hexagon.of(corners.mean(axis=0), m.T), 1.0, 0.0, 0, (t["q"], t["r"])))
    return out


@pytest.mark.parametrize("light", [{"light_k": 5500.0}, {"light_k": 2700.0, "awb": 0.2, "exposure": 0.6}])
def test_every_tile_is_named_with_its_turn(light):
    board = legal_board(14, seed=6)
    image, truth = render(board, seed=6, size=(900, 700), tile_px=70.0, yaw_deg=17.0, table="dark_wood", **light)
    tiles = decode.decode_tiles(edges.read(image, true_tiles(truth), CONFIG.read), CONFIG.decode, CONFIG.read)
    for t in tiles:
        p = board.get(t.cell)
        assert (t.reading.tile, t.reading.rot) == (p.tile, p.rot) and t.reading.confidence > CONFIDENT


def test_a_tile_cut_by_the_frame_is_not_read():
    board = legal_board(5, seed=2)
    image, truth = render(board, seed=2, size=(500, 400), tile_px=70.0, center=(480.0, 200.0))
    tiles = edges.read(image, true_tiles(truth), CONFIG.read)
    inside = list(edges.in_frame([t.hexagon for t in tiles], image.shape, CONFIG.read.cut_margin))
    assert not all(inside) and any(inside)
    assert [t.colours is not None for t in tiles] == inside


def test_edges_the_network_sees_covered_are_not_read_and_the_tile_is_not_named_wrong_for_them():
    # fingers resting over two edges of a tile cover little of it, but read as bands of their own colour there
    board = legal_board(14, seed=6)
    image, truth = render(board, seed=6, size=(900, 700), tile_px=70.0, table="dark_wood")
    tiles = true_tiles(truth)
    k = max(range(len(tiles)), key=lambda i: -np.linalg.norm(np.array(tiles[i].centre) - (450, 350)))
    windows = tiles[k].hexagon.to_photo(edges.edge_windows(CONFIG.read)[[0, 5]].reshape(-1, 2))
    fingers = np.zeros(image.shape[:2], np.uint8)
    for x, y in windows:
        cv2.circle(fingers, (round(x), round(y)), 7, 1, -1)
    image[fingers > 0] = (95, 125, 205)
    h, w = image.shape[0] // STRIDE, image.shape[1] // STRIDE
    u, v = np.meshgrid(np.arange(w), np.arange(h))
    z = np.zeros((h, w), np.float32)
    maps = Maps(z, z, z, z, z, (1.0, 1.0), (0.0, 0.0))
    at = maps.to_photo(np.stack([u.ravel(), v.ravel()], axis=1)).round().astype(int)
    cover = fingers[np.clip(at[:, 1], 0, image.shape[0] - 1), np.clip(at[:, 0], 0, image.shape[1] - 1)]
    maps = Maps(z, z, z, z, cover.reshape(h, w).astype(np.float32), (1.0, 1.0), (0.0, 0.0))
    read = edges.read(image, tiles, CONFIG.read, [maps])
    assert [list(t.colours.seen) for t in read] == [[i != k or d in (1, 2, 3, 4) for d in range(6)]
                                                   for i in range(len(read))]
    t = decode.decode_tiles(read, CONFIG.decode, CONFIG.read)[k]
    p = board.get(t.cell)
    assert (t.reading.tile, t.reading.rot) == (p.tile, p.rot) or t.reading.confidence < CONFIDENT
