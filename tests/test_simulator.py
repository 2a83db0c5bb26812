import math

import cv2
import numpy as np
import pytest

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import edge_angle
from tantrix_pi.simulator import PALETTES, TABLES, Apart, legal_board, random_board, render, spiral_board
from tantrix_pi.tiles import TILES

SIZE = (480, 360)

# a little board of seven tiles in several turns (whether the edges match does not matter here)
BOARD = Board([
    Placement(1, 0, 0, 0), Placement(2, 1, 0, 4), Placement(5, 0, 1, 2), Placement(9, -1, 1, 5),
    Placement(20, 1, -1, 3), Placement(33, -1, 0, 1), Placement(47, 0, -1, 0),
])


def hue_class(bgr: np.ndarray, palette: int) -> str | None:
    """The arc colour whose hue is nearest, or None for an unsaturated (black or table) pixel."""
    hsv = cv2.cvtColor(bgr.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV)[0, 0]
    if hsv[1] < 90 or hsv[2] < 60:
        return None
    best, best_d = None, 999
    for name, ref in PALETTES[palette].items():
        h = int(cv2.cvtColor(np.uint8([[ref]]), cv2.COLOR_BGR2HSV)[0, 0, 0])
        d = min(abs(int(hsv[0]) - h), 180 - abs(int(hsv[0]) - h))
        if d < best_d:
            best, best_d = name, d
    return best


def sample(img: np.ndarray, x: float, y: float) -> np.ndarray:
    xi, yi = int(round(x)), int(round(y))
    return img[yi - 1:yi + 2, xi - 1:xi + 2].reshape(-1, 3).mean(axis=0)


CLEAN = {"noise": 0.0, "jpeg_quality": None, "light_k": 6500.0, "glare": 0.0, "blur": 0.5}


def test_same_seed_same_photo_and_another_seed_another():
    a, ta = render(BOARD, seed=5, size=SIZE, tile_px=50, tilt_deg=12, glare=0.5, loose=[40], occluder="hand")
    b, tb = render(BOARD, seed=5, size=SIZE, tile_px=50, tilt_deg=12, glare=0.5, loose=[40], occluder="hand")
    c, _ = render(BOARD, seed=6, size=SIZE, tile_px=50, tilt_deg=12, glare=0.5, loose=[40], occluder="hand")
    assert a.shape == (SIZE[1], SIZE[0], 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and ta == tb
    assert np.abs(a.astype(int) - c.astype(int)).mean() > 5


@pytest.mark.parametrize("seed", [3, 5, 11])  # each of the three palettes
def test_each_direction_shows_the_placements_colour_seen_straight_down(seed):
    """Chirality from the grid alone: the pixel in board direction d from a tile's centre has colour(d)."""
    img, truth = render(BOARD, seed=seed, size=SIZE, tile_px=60, table="felt", **CLEAN)
    palette = truth["params"]["palette"]
    apothem = 60 / 2
    for t in truth["tiles"]:
        p = BOARD[(t["q"], t["r"])]
        cx, cy = t["center_px"]
        for d in range(6):
            a = math.radians(edge_angle(d))
            seen = hue_class(sample(img, cx + 0.8 * apothem * math.cos(a), cy + 0.8 * apothem * math.sin(a)), palette)
            assert seen == p.colour(d), f"{p} direction {d}"


@pytest.mark.parametrize("seed, yaw, tilt, table, k1", [(11, 0, 0, "cloth", 0.0), (5, 37, 20, "wood", 0.0),
                                                        (3, -140, 14, "laminate", -0.12), (8, 200, 8, "pattern", 0.05)])
def test_truth_edge_samples_show_the_colour_facing_that_direction(seed, yaw, tilt, table, k1):
    img, truth = render(BOARD, seed=seed, size=SIZE, tile_px=55, yaw_deg=yaw, tilt_deg=tilt, table=table, k1=k1,
                        center=(100, 90), **CLEAN)
    palette = truth["params"]["palette"]
    for t in truth["tiles"]:
        p = BOARD[(t["q"], t["r"])]
        for e in t["edges"]:
            assert e["direction"] == (e["edge"] + p.rot) % 6
            assert hue_class(sample(img, *e["sample_px"]), palette) == p.colour(e["direction"])


def test_yaw_turns_the_board_clockwise_in_the_image():
    _, truth = render(BOARD, seed=1, size=SIZE, tile_px=50, yaw_deg=30, **CLEAN)
    by_cell = {(t["q"], t["r"]): t["center_px"] for t in truth["tiles"]}
    (x0, y0), (x1, y1) = by_cell[(0, 0)], by_cell[(1, 0)]  # direction 1 (E) turned 30 degrees clockwise
    assert math.degrees(math.atan2(y1 - y0, x1 - x0)) == pytest.approx(30, abs=4)


def test_tiles_lie_inside_the_image_and_loose_ones_apart_from_the_board():
    img, truth = render(BOARD, seed=2, size=SIZE, tile_px=45, tilt_deg=18, loose=[50, 51], face_down=[52])
    w, h = SIZE
    board_tiles = [t for t in truth["tiles"] if t["on_board"]]
    apart = [t for t in truth["tiles"] if not t["on_board"]]
    assert sorted(t["tile"] for t in board_tiles) == sorted(BOARD.tiles)
    assert sorted((t["tile"], t["face_up"]) for t in apart) == [(50, True), (51, True), (52, False)]
    for t in truth["tiles"]:
        assert 0 <= t["center_px"][0] < w and 0 <= t["center_px"][1] < h
        assert t["fraction_in_image"] == 1.0
        assert 30 < t["across_flats_px"] < 60
    for t in apart:
        nearest = min(math.dist(t["center_px"], b["center_px"]) for b in board_tiles)
        assert nearest > 1.5 * t["across_flats_px"]
    down = next(t for t in apart if not t["face_up"])
    assert all(e["colour"] is None for e in down["edges"])
    # a face-down tile is dark with a number, no arcs: almost nothing on it is saturated
    cx, cy = down["center_px"]
    patch = cv2.cvtColor(img[int(cy) - 15:int(cy) + 15, int(cx) - 15:int(cx) + 15], cv2.COLOR_BGR2HSV)
    assert np.mean(patch[..., 2] < 90) > 0.6


def test_a_hand_over_the_board_hides_the_tile_it_reaches():
    target = BOARD[(1, 0)]
    _, plain = render(BOARD, seed=4, size=SIZE, tile_px=50, **CLEAN)
    xy = next(t["center_px"] for t in plain["tiles"] if t["tile"] == target.tile)
    img, truth = render(BOARD, seed=4, size=SIZE, tile_px=50, occluder=tuple(xy), **CLEAN)
    hidden = next(t for t in truth["tiles"] if t["tile"] == target.tile)
    assert hidden["occluded_fraction"] > 0.5
    b, g, r = sample(img, *xy)
    assert r > g > b and r > 60  # skin, not a dark tile
    assert any(t["occluded_fraction"] == 0 for t in truth["tiles"])


def test_warm_light_casts_the_table_orange():
    def blue_over_red(kelvin):
        img, _ = render(Board(), seed=8, size=SIZE, table="cloth", light_k=kelvin, awb=0.0, noise=0, jpeg_quality=None)
        return img[..., 0].mean() / img[..., 2].mean()

    assert blue_over_red(2700) < 0.8 * blue_over_red(6500)


def test_unknown_table_is_refused():
    assert set(TABLES) >= {"wood", "felt", "cloth", "laminate", "pattern"}
    with pytest.raises(ValueError, match="unknown table"):
        render(BOARD, table="marble", size=SIZE)


def test_a_growing_board_keeps_its_table_light_and_tiles_still():
    """Frames of one game (same seed, board anchored at cell (0, 0)): only the new tile changes the picture."""
    before = Board(list(BOARD)[:-1])
    a, ta = render(before, seed=9, size=SIZE, tile_px=40, focus=(0, 0), glare=0.6, jpeg_quality=None)
    b, tb = render(BOARD, seed=9, size=SIZE, tile_px=40, focus=(0, 0), glare=0.6, jpeg_quality=None)
    where = {t["tile"]: t["center_px"] for t in ta["tiles"]}
    assert all(where[t["tile"]] == t["center_px"] for t in tb["tiles"] if t["tile"] in where)
    new = next(t for t in tb["tiles"] if t["tile"] not in where)
    changed = np.argwhere(np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 0)
    assert len(changed) > 0
    far = np.hypot(changed[:, 1] - new["center_px"][0], changed[:, 0] - new["center_px"][1]).max()
    assert far < 1.5 * new["across_flats_px"]  # the tile and its shadow, nothing else


def test_random_boards_are_connected_legal_and_reproducible():
    for seed in range(4):
        board = random_board(np.random.default_rng(seed), 40)
        assert len(board) == 40 and board.is_connected() and not board.mismatches()
        assert board == random_board(np.random.default_rng(seed), 40)
    assert random_board(np.random.default_rng(1), 30, legal=False).mismatches()


def test_a_players_hand_lies_in_a_row_apart_from_the_board():
    spare = [t for t in range(1, 57) if t not in BOARD.tiles][:6]
    _, truth = render(BOARD, seed=6, size=(800, 600), tile_px=40, loose=spare, loose_style="row")
    row = np.array([t["center_px"] for t in truth["tiles"] if not t["on_board"]])
    steps = np.diff(row, axis=0)
    assert np.allclose(np.linalg.norm(steps, axis=1), np.linalg.norm(steps[0]), rtol=0.1)  # evenly spaced
    assert np.allclose(steps / np.linalg.norm(steps, axis=1)[:, None], steps[0] / np.linalg.norm(steps[0]), atol=0.05)
    assert 40 < np.linalg.norm(steps[0]) < 60  # side by side, not touching
    board = [t["center_px"] for t in truth["tiles"] if t["on_board"]]
    assert min(math.dist(a, b) for a in row for b in board) > 60
    assert all(t["fraction_in_image"] == 1.0 and t["loose_style"] == "row" for t in truth["tiles"] if not t["on_board"])


@pytest.mark.parametrize("bad, message", [({"loose": [1]}, "not on the board"), ({"face_down": [99]}, "1..56"),
                                          ({"loose": [50], "face_down": [50]}, "only once"),
                                          ({"apart": [Apart(2, (10, 10))]}, "not on the board"),
                                          ({"loose": [50], "apart": [Apart(50, (10, 10))]}, "only once"),
                                          ({"occluder": "cat"}, "occluder"), ({"loose_style": "pile"}, "row")])
def test_impossible_scenes_are_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        render(BOARD, size=SIZE, **bad)


def test_barrel_distortion_pulls_the_corners_of_the_view_in():
    """k1 < 0 (a Pi camera's lens): a tile near a corner of the view is seen nearer the middle, in the image too."""
    middle = ((SIZE[0] - 1) / 2, (SIZE[1] - 1) / 2)
    seen = {}
    for k1 in (0.0, -0.15):
        img, truth = render(BOARD, seed=2, size=SIZE, tile_px=45, center=(70, 60), k1=k1, **CLEAN)
        seen[k1] = {t["tile"]: t["center_px"] for t in truth["tiles"]}
        palette = truth["params"]["palette"]
        for t in truth["tiles"]:
            assert all(hue_class(sample(img, *e["sample_px"]), palette) == e["colour"] for e in t["edges"])
    corner = max(seen[0.0], key=lambda n: math.dist(seen[0.0][n], middle))
    assert math.dist(seen[-0.15][corner], middle) < math.dist(seen[0.0][corner], middle) - 3


@pytest.mark.parametrize("k1, tilt", [(0.0, 0.0), (-0.12, 16.0)])
def test_a_tile_apart_lies_where_it_is_asked_to(k1, tilt):
    given = [Apart(40, (60.0, 300.0), 17.0), Apart(41, (420.0, 50.0), face_up=False)]
    img, truth = render(BOARD, seed=3, size=SIZE, tile_px=50, yaw_deg=25, tilt_deg=tilt, k1=k1, apart=given, **CLEAN)
    seen = {t["tile"]: t for t in truth["tiles"] if not t["on_board"]}
    up, down = seen[40], seen[41]
    assert up["center_px"] == pytest.approx([60.0, 300.0], abs=0.05)
    assert down["center_px"] == pytest.approx([420.0, 50.0], abs=0.05)
    assert (up["face_up"], down["face_up"], up["loose_style"]) == (True, False, "given")
    assert up["edge0_normal_angle_px_deg"] == pytest.approx(-60 + 17, abs=0.1 if tilt == 0 else 4)
    palette = truth["params"]["palette"]
    assert [hue_class(sample(img, *e["sample_px"]), palette) for e in up["edges"]] == list(TILES[40].edges)


def test_legal_boards_have_their_size_and_avoid_tiles_and_spirals_are_compact():
    board = legal_board(12, seed=3, avoid=(1, 4, 9))
    assert len(board) == 12 and not board.mismatches() and not board.tiles & {1, 4, 9}
    with pytest.raises(ValueError, match="no legal board of 56 tiles"):
        legal_board(56, avoid=range(1, 50))
    spiral = spiral_board([5, 6, 7, 8, 9, 10, 11], [0, 1, 2, 3, 4, 5, 0])
    assert {p.cell for p in spiral} == {(0, 0), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)}
    assert [spiral[(0, 0)].tile, spiral[(0, 0)].rot] == [5, 0]
