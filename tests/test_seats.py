"""`tantrix-pi calibrate hands`: each player's hand zone found in a photo of the hands laid out, written to [seats]."""

from __future__ import annotations

import json

import cv2
import pytest

from tantrix_pi.board import Board, Placement
from tantrix_pi.cli import main
from tantrix_pi.live import config
from tantrix_pi.live.hands import HandWatch, in_pixels
from tantrix_pi.simulator import Apart, render
from tantrix_pi.vision import detect

SIZE = (1280, 960)
HANDS = {"R": ([1, 2, 3, 4, 5, 6], lambda i: (330 + 110 * i, 890)),  # along the bottom
         "B": ([11, 12, 13, 14, 15, 16], lambda i: (80, 200 + 110 * i)),  # the left
         "G": ([21, 22, 23, 24, 25, 26], lambda i: (330 + 110 * i, 70))}  # the top


BOARD = Board([Placement(40, 0, 0, 0), Placement(41, 1, 0, 1)])  # their colours meet: a board, not loose tiles


def photo(tmp_path):
    """The table seen by the camera: a board of two tiles, and three players' hands laid out in front of them."""
    apart = [Apart(t, at(i), 17.0 * i) for tiles, at in HANDS.values() for i, t in enumerate(tiles)]
    image = render(BOARD, size=SIZE, tile_px=80.0, seed=4, table="dark_wood", light_k=2900, awb=0.4, apart=apart)[0]
    path = tmp_path / "hands.jpg"
    cv2.imwrite(str(path), image)
    return path, image


def test_each_players_zone_is_found_in_seating_order_and_written_beside_the_rest_of_the_config(tmp_path, capsys):
    path, image = photo(tmp_path)
    cfg = tmp_path / "tantrix.toml"
    cfg.write_text('# our table\n[mode]\nplayers = ["red", "blue", "green"]  # seating order\n')
    assert main(["calibrate", "hands", str(path), "--players", "red,blue,green", "--config", str(cfg)]) == 0
    text = cfg.read_text()
    assert "# our table" in text and "# seating order" in text and "[seats]" in text
    zones = config.load(cfg).seats.zones
    assert set(zones) == {"R", "B", "G"}
    det = detect(image, zones=[in_pixels(z, SIZE) for z in zones.values()])
    seen = {s.player: set(s.tiles) for s in HandWatch(zones, 1).observe(det, SIZE)}
    assert seen == {p: set(tiles) for p, (tiles, _at) in HANDS.items()}
    assert det.board.same_as(BOARD)
    assert "Red: x" in capsys.readouterr().out


def test_the_first_player_may_sit_on_another_side(tmp_path, capsys):
    path, _image = photo(tmp_path)
    assert main(["calibrate", "hands", str(path), "--players", "green,red,blue", "--first", "top", "--json"]) == 0
    seats = json.loads(capsys.readouterr().out)["seats"]
    assert max(y for _x, y in seats["green"]) < 0.3 and min(y for _x, y in seats["red"]) > 0.7
    assert max(x for x, _y in seats["blue"]) < 0.3


@pytest.mark.parametrize("players, message", [("red,blue,green,yellow", "3 groups of tiles found for 4 players"),
                                              ("red,pink", "not a colour")])
def test_hands_that_cannot_be_found_are_one_line_and_exit_2(tmp_path, capsys, players, message):
    path, _image = photo(tmp_path)
    assert main(["calibrate", "hands", str(path), "--players", players]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
