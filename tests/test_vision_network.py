"""The shipped tile network: it loads through onnxruntime, says what it said when it was shipped, and its maps
lead back to the right photo pixels."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tantrix_pi.vision import network
from tantrix_pi.vision.network import BOUNDARY, CENTRE, CHANNELS, FACE, STRIDE, Maps, TileNetwork, blob, sigmoid

REFERENCE = Path(__file__).parent / "data" / "tilenet-reference"


def test_the_shipped_model_reproduces_its_stored_outputs():
    image = cv2.imread(str(REFERENCE.with_suffix(".png")))
    want = np.load(REFERENCE.with_suffix(".npy")).astype(np.float32)
    got = TileNetwork().run(image)
    assert got.shape == (CHANNELS, image.shape[0] // STRIDE, image.shape[1] // STRIDE) == want.shape
    # float16 storage; the same model on another machine's OpenCV differs by rounding only
    assert np.abs(got - want).max() < 0.05


def test_any_size_is_padded_to_the_networks_multiple():
    net = TileNetwork()
    img = np.full((101, 77, 3), 128, np.uint8)
    assert net.run(img).shape == (CHANNELS, 101 // STRIDE, 77 // STRIDE)


def test_a_big_input_read_in_pieces_says_what_it_says_whole(monkeypatch):
    # the reference picture tiled 3 x 2 (odd sides, so the last pieces are cut short): tiles lie across the seams
    image = cv2.imread(str(REFERENCE.with_suffix(".png")))
    big = np.tile(image, (2, 3, 1))[:-7, :-5]
    net = TileNetwork()
    monkeypatch.setattr(network, "WHOLE", big.shape[0] * big.shape[1])
    whole = net.run(big)
    monkeypatch.setattr(network, "WHOLE", network.PIECE * network.PIECE)
    pieces = net.run(big)
    assert pieces.shape == whole.shape
    assert np.abs(sigmoid(pieces[[FACE, BOUNDARY, CENTRE]]) - sigmoid(whole[[FACE, BOUNDARY, CENTRE]])).max() < 0.03


def test_the_input_is_centred_and_scaled():
    b = blob(np.array([[[0, 128, 255]]], np.uint8))
    assert b.shape == (1, 3, 1, 1) and b.dtype == np.float32
    assert np.allclose(b.ravel(), [-2.0, 128 * 4 / 255 - 2, 2.0], atol=1e-6)


def test_map_pixels_and_photo_pixels_are_inverse():
    m = Maps(*(np.zeros((10, 10), np.float32),) * 5, scale=(0.37, 0.41), origin=(120.0, 33.0))
    pts = np.array([[0.0, 0.0], [3.5, 7.25], [9.0, 1.0]])
    assert np.allclose(m.to_map(m.to_photo(pts)), pts)
    # a map pixel stands for the middle of its STRIDE x STRIDE input pixels
    want = [(STRIDE / 2) / 0.37 - 0.5 + 120, (STRIDE / 2) / 0.41 - 0.5 + 33]
    assert np.allclose(m.to_photo(np.array([[0.0, 0.0]])), [want])
