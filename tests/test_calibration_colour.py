import json
import math

import cv2
import numpy as np
import pytest

from tantrix_pi.calibration.colour import ColourError, classify, lab, learn
from tantrix_pi.calibration.profile import COLOUR_NAMES, ColourCalibration, Profile
from tantrix_pi.cli import main
from tantrix_pi.grid import centre, corners, edge_angle
from tantrix_pi.tiles import TILES

NOMINAL_RGB = {"R": (205, 35, 45), "Y": (245, 205, 30), "G": (35, 150, 75), "B": (35, 85, 195), "black": (22, 22, 22)}
"""Tile paints (sRGB) as the test draws them."""
SIZE_PX = 55.0
CELLS = [((0, 0), 1), ((1, 0), 7), ((0, 1), 12), ((-1, 1), 20), ((1, -1), 33), ((2, -1), 41), ((-1, 0), 50)]
WARM = (1.35, 1.0, 0.65)
"""Linear-light gains on R, G, B of a warm room (tungsten-ish)."""


def tiles_photo(cells=CELLS, cast=(1.0, 1.0, 1.0), seed=0, table_bgr=(150, 160, 170)):
    """Tiles with straight arcs in the nominal colours on a plain table, under a light of the given colour.

    Returns the photo and a label image: index into COLOUR_NAMES of what was painted, -1 for the table,
    -2 for a border between two paints.
    """
    h, w = 480, 640
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = table_bgr
    labels = np.full((h, w), -1, np.int8)
    origin = np.array([300.0, 230.0])
    for cell, number in cells:
        c = origin + centre(cell, SIZE_PX)
        hexagon = np.round(np.array(corners(cell, SIZE_PX)) + origin).astype(np.int32)
        cv2.fillConvexPoly(img, hexagon, NOMINAL_RGB["black"][::-1], cv2.LINE_AA)
        cv2.fillConvexPoly(labels, hexagon, COLOUR_NAMES.index("black"))
        for arc in TILES[number].arcs:
            ends = [c + SIZE_PX * math.sqrt(3) / 2 * 0.97 * np.array([math.cos(math.radians(edge_angle(d))),
                                                                     math.sin(math.radians(edge_angle(d)))])
                    for d in arc.edges]
            a, b = (tuple(np.round(e).astype(int)) for e in ends)
            cv2.line(img, a, b, NOMINAL_RGB[arc.colour][::-1], 9, cv2.LINE_AA)
            cv2.line(labels, a, b, COLOUR_NAMES.index(arc.colour), 9)
    linear = (img.astype(np.float64) / 255) ** 2.2 * np.array(cast[::-1])
    out = np.clip(linear, 0, 1) ** (1 / 2.2) * 255
    out = cv2.GaussianBlur(out, (0, 0), 0.7) + np.random.default_rng(seed).normal(0, 2.0, out.shape)
    # Pixels on a border between two paints are mixed: they count for neither.
    shifted = (labels + 1).astype(np.uint8)
    kernel = np.ones((5, 5), np.uint8)
    labels[cv2.dilate(shifted, kernel) != cv2.erode(shifted, kernel)] = -2
    return out.clip(0, 255).astype(np.uint8), labels


def accuracy(profile, image, labels):
    """Share of painted pixels (arcs and black) classified as what was painted."""
    classes = classify(profile, image, max_distance=1e9)
    painted = labels >= 0
    return float((classes[painted] == labels[painted]).mean())


def test_learns_white_balance_and_prototypes_under_warm_light():
    image, labels = tiles_photo(cast=WARM)
    model, sep = learn(image)
    expected = [(1 / g) ** (1 / 2.2) for g in WARM]
    assert model.white_balance[0] == pytest.approx(expected[0], rel=0.06)
    assert model.white_balance[2] == pytest.approx(expected[2], rel=0.06)
    assert accuracy(Profile(colour=model), image, labels) > 0.97
    assert sep.margin > 0 and sep.pair[0] in COLOUR_NAMES and "closest pair" in sep.describe()


def test_calibrated_colours_beat_nominal_ones_in_very_warm_light():
    warm, labels = tiles_photo(cast=(2.0, 1.0, 0.35), seed=1)
    nominal = {n: tuple(lab(np.array([[NOMINAL_RGB[n][::-1]]], np.uint8))[0, 0]) for n in COLOUR_NAMES}
    uncalibrated = Profile(colour=ColourCalibration((1.0, 1.0, 1.0), nominal, ""))
    learned, _ = learn(warm)
    calibrated = Profile(colour=learned)
    assert accuracy(calibrated, warm, labels) > 0.99
    assert accuracy(uncalibrated, warm, labels) < accuracy(calibrated, warm, labels) - 0.03


def test_no_tiles_is_a_clear_error():
    table = np.full((300, 400, 3), (150, 160, 170), np.uint8)
    with pytest.raises(ColourError, match="no tiles found"):
        learn(table)


def test_three_colours_only_is_named():
    # Tiles whose arcs are all drawn without blue: recolour blue arcs as green.
    image, labels = tiles_photo()
    blue = labels == COLOUR_NAMES.index("B")
    image[cv2.dilate(blue.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0] = NOMINAL_RGB["G"][::-1]
    with pytest.raises(ColourError, match="three arc colours"):
        learn(image)


def not_tantrix(hues_deg, seed=3):
    """Dark discs each crossed by a bright stripe, in four colours of the given hues: no Tantrix tile at all
    (draughts with coloured stickers, say)."""
    rng = np.random.default_rng(seed)
    img = np.full((600, 800, 3), (170, 180, 190), np.uint8)
    for k in range(12):
        x, y = (int(v) for v in rng.integers((60, 60), (740, 540)))
        cv2.circle(img, (x, y), 50, (20, 20, 20), -1)
        hsv = np.uint8([[[hues_deg[k % 4] // 2, 220, 230]]])
        cv2.line(img, (x - 30, y), (x + 30, y), cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].tolist(), 8)
    return img


@pytest.mark.parametrize("hues", [(10, 30, 50, 70), (180, 200, 220, 240)], ids=["oranges", "blues"])
def test_colours_that_are_not_the_tiles_are_refused_and_nothing_is_saved(tmp_path, capsys, hues):
    cv2.imwrite(str(tmp_path / "draughts.png"), not_tantrix(hues))
    path = tmp_path / "p.toml"
    assert main(["calibrate", "colour", str(tmp_path / "draughts.png"), "--calibration", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not the" in err and "of a Tantrix tile" in err
    assert not path.exists()


def test_cli_colour_writes_the_profile(tmp_path, capsys):
    image, _ = tiles_photo(cast=WARM)
    cv2.imwrite(str(tmp_path / "tiles.png"), image)
    path = tmp_path / "p.toml"
    assert main(["calibrate", "colour", str(tmp_path / "tiles.png"), "--calibration", str(path)]) == 0
    out = capsys.readouterr().out
    assert "closest pair" in out and "white balance" in out
    assert Profile.load(path).colour.prototypes.keys() == set(COLOUR_NAMES)
    assert main(["calibrate", "colour", str(tmp_path / "tiles.png"), "--calibration", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["margin"] > 0 and set(result["lab"]) == set(COLOUR_NAMES) and len(result["white_balance"]) == 3
    assert main(["calibrate", "check", str(tmp_path / "tiles.png"), "--calibration", str(path),
                 "--out", str(tmp_path / "o.png")]) == 0


def test_a_profile_in_a_folder_that_does_not_exist_is_refused_and_none_is_made(tmp_path, capsys):
    image, _ = tiles_photo()
    cv2.imwrite(str(tmp_path / "tiles.png"), image)
    path = tmp_path / "nonexistent" / "p.toml"
    assert main(["calibrate", "colour", str(tmp_path / "tiles.png"), "--calibration", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--calibration {path}: no folder {path.parent}" in err
    assert not path.parent.exists()


def test_calibrate_writes_the_profile_run_reads(tmp_path, monkeypatch, capsys):
    image, _ = tiles_photo()
    cv2.imwrite(str(tmp_path / "tiles.png"), image)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\nstate_dir = "{tmp_path / "state"}"\n')
    (tmp_path / "state").mkdir()
    assert main(["calibrate", "colour", str(tmp_path / "tiles.png"), "--config", str(config)]) == 0
    assert f"saved to {tmp_path / 'state' / 'profile.toml'}" in capsys.readouterr().out
    from tantrix_pi.live import config as config_mod

    assert config_mod.load(config).profile_path == tmp_path / "state" / "profile.toml"  # what run reads
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "service"))
    (tmp_path / "service").mkdir()
    assert main(["calibrate", "colour", str(tmp_path / "tiles.png")]) == 0  # no config: the service's default
    assert (tmp_path / "service" / "profile.toml").exists() and config_mod.load(None).profile_path.exists()
