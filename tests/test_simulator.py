import math

import cv2
import numpy as np
import pytest

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import edge_angle
from tantrix_pi.simulator import (
    CLUTTER,
    PALETTES,
    PLAIN,
    TABLES,
    Apart,
    Clutter,
    legal_board,
    random_board,
    render,
    render_scene,
    spiral_board,
    table_texture,
    tile_sprite,
)
from tantrix_pi.simulator.objects import CLUTTER_MM
from tantrix_pi.simulator.tables import DARK_AS_TILES
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


@pytest.mark.parametrize("edge", ["top", "right", "bottom", "left"])
def test_a_hand_comes_straight_in_from_the_edge_it_is_told(edge):
    w, h = SIZE
    reach = {"top": (w / 2, 40), "right": (w - 40, h / 2), "bottom": (w / 2, h - 40), "left": (40, h / 2)}[edge]
    photo = render_scene(BOARD, seed=4, size=SIZE, tile_px=30, occluder=reach, occluder_from=edge, **CLEAN)
    ys, xs = np.nonzero(photo.cover > 127)
    near = {"top": ys.min() == 0, "right": xs.max() == w - 1, "bottom": ys.max() == h - 1, "left": xs.min() == 0}
    assert near[edge] and sum(near.values()) == 1  # the arm leaves the frame by that edge only
    along = xs if edge in ("top", "bottom") else ys
    assert abs(np.median(along) - (reach[0] if edge in ("top", "bottom") else reach[1])) < 10  # straight in
    assert all(t["occluded_fraction"] == 0 for t in photo.truth["tiles"])


def test_warm_light_casts_the_table_orange():
    def blue_over_red(kelvin):
        img, _ = render(Board(), seed=8, size=SIZE, table="cloth", light_k=kelvin, awb=0.0, noise=0, jpeg_quality=None)
        return img[..., 0].mean() / img[..., 2].mean()

    assert blue_over_red(2700) < 0.8 * blue_over_red(6500)


def test_unknown_table_is_refused():
    assert set(TABLES) >= {"wood", "dark_wood", "felt", "cloth", "laminate", "pattern", "checks", "stripes", "black",
                           "carpet", "paper", "white"}
    with pytest.raises(ValueError, match="unknown table"):
        render(BOARD, table="marble", size=SIZE)


def test_a_growing_board_keeps_its_table_light_and_tiles_still():
    """Frames of one game (same seed, board anchored at cell (0, 0)): only the new tile changes the picture."""
    before = Board(list(BOARD)[:-1])
    scene = {"seed": 9, "size": SIZE, "tile_px": 40, "focus": (0, 0), "glare": 0.6, "glare_spots": 3,
             "cast_shadow": 0.4, "clutter": [Clutter("coin", (60.0, 300.0))], "jpeg_quality": None}
    a, ta = render(before, **scene)
    b, tb = render(BOARD, **scene)
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
                                          ({"occluder": "cat"}, "occluder"), ({"loose_style": "pile"}, "row"),
                                          ({"occluder": (5, 5), "occluder_from": "up"}, "occluder_from 'up'"),
                                          ({"clutter": ["cat"]}, "clutter 'cat'"), ({"glare_spots": -1}, "glare_spots"),
                                          ({"cast_shadow": 1.5}, "cast_shadow"), ({"gap": 0.7}, "gap"),
                                          ({"jitter": -1}, "jitter"), ({"size": (8, 8)}, "16 x 16"),
                                          ({"sprites": lambda n, up, r: np.zeros((5, 7, 4), np.uint8)}, "square BGRA"),
                                          ({"sprites": lambda n, up, r: None}, "square BGRA")])
def test_impossible_scenes_are_refused_in_one_line(bad, message):
    with pytest.raises(ValueError, match=message) as e:
        render(BOARD, **{"size": SIZE, **bad})
    assert "\n" not in str(e.value)


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


# -- the options a detector's training needs -------------------------------------------------------------------

def test_every_table_renders_at_every_size():
    for kind in TABLES:
        for shape, texel_mm in (((1, 1), 1.0), ((3, 7), 0.5), ((5, 400), 2.0), ((120, 90), 1.3)):
            tex = table_texture(kind, np.random.default_rng(1), shape, texel_mm)
            assert tex.shape == (*shape, 3) and tex.dtype == np.uint8, kind
        for size, tile_px in (((64, 48), 12.0), ((480, 360), 200.0)):
            img, truth = render(Board(), seed=4, size=size, tile_px=tile_px, table=kind)
            assert img.shape == (size[1], size[0], 3) and truth["params"]["table"] == kind


def _texture(kind, seed=2):
    """A table patch of 600 x 600 mm at 1 mm per texel."""
    return table_texture(kind, np.random.default_rng(seed), (600, 600), 1.0).astype(float)


@pytest.mark.parametrize("kind", ["checks", "stripes"])
def test_checks_and_stripes_are_as_dark_as_the_tiles_at_tile_scale(kind):
    for seed in range(4):
        grey = _texture(kind, seed).mean(axis=2)
        dark = grey < 60
        assert 0.15 < dark.mean() < 0.85, seed
        assert DARK_AS_TILES[0] * 0.8 < np.median(grey[dark]) < DARK_AS_TILES[1] * 1.2
        assert np.median(grey[~dark]) > 70
        # tile scale: along some line through the patch, dark runs 12 to 60 mm long
        runs = np.diff(np.flatnonzero(np.diff(dark[:, 300].astype(int)) != 0))
        assert len(runs) >= 4 and 10 <= np.median(runs) <= 65, (seed, runs)


def test_black_white_carpet_and_paper_look_as_they_should():
    black, white, carpet, laminate = (_texture(k).mean(axis=2) for k in ("black", "white", "carpet", "laminate"))
    assert np.median(black) < 32
    assert np.median(white) > 220 and white.std() < 8
    fine = {k: np.abs(np.diff(t, axis=1)).mean() for k, t in (("carpet", carpet), ("laminate", laminate))}
    assert fine["carpet"] > 25 > 5 > fine["laminate"]  # neighbouring millimetres differ a lot on carpet only
    paper = _texture("paper").mean(axis=2)
    ink = paper < 180
    assert np.median(paper) > 220 and 0.001 < ink.mean() < 0.1  # white, with a few pen lines and circles
    lines = cv2.HoughLinesP((ink * 255).astype(np.uint8), 1, math.pi / 180, 60, minLineLength=40, maxLineGap=3)
    assert lines is not None


@pytest.mark.parametrize("kind", CLUTTER)
def test_clutter_covers_what_lies_under_it_and_nothing_far_from_it(kind):
    target = BOARD[(0, 0)].tile
    plain, truth = render(BOARD, seed=7, size=SIZE, tile_px=50, **PLAIN)
    at = next(t["center_px"] for t in truth["tiles"] if t["tile"] == target)
    photo = render_scene(BOARD, seed=7, size=SIZE, tile_px=50, clutter=[Clutter(kind, tuple(at), 0.0)], **PLAIN)
    cover = photo.cover
    assert cover is not None and cover.shape == SIZE[::-1] and cover.dtype == np.uint8
    assert cover[int(at[1]), int(at[0])] == 255
    w_mm, h_mm = CLUTTER_MM[kind]
    px_per_mm = 50 / 44
    area = (cover > 127).sum() / px_per_mm ** 2
    full = w_mm * h_mm * (math.pi / 4 if kind in ("coin",) else 1)
    assert 0.5 * full < area < 1.1 * full, (kind, area, full)
    (entry,) = photo.truth["clutter"]
    x0, y0, x1, y1 = entry["box_px"]
    assert entry["kind"] == kind and np.all(cover[:y0] == 0) and np.all(cover[y1:] == 0)
    assert np.all(cover[:, :x0] == 0) and np.all(cover[:, x1:] == 0)
    hidden = next(t for t in photo.truth["tiles"] if t["tile"] == target)
    assert hidden["occluded_fraction"] > (0.5 if kind in ("box", "pad", "cup") else 0.05)
    changed = np.abs(photo.image.astype(int) - plain.astype(int)).max(axis=2) > 0
    near = cv2.dilate(cover, np.ones((101, 101), np.uint8)) > 0  # its soft shadow falls within a tile of it
    assert changed[cover > 127].mean() > 0.9 and not changed[~near].any()


def test_clutter_without_a_place_lies_where_the_seed_puts_it_over_or_beside_the_board():
    boxes, over = [], 0
    for seed in range(12):
        photo = render_scene(BOARD, seed=seed, size=SIZE, tile_px=40, clutter=["coin"], **PLAIN)
        again = render_scene(BOARD, seed=seed, size=SIZE, tile_px=40, clutter=["coin"], **PLAIN)
        assert np.array_equal(photo.cover, again.cover) and photo.truth == again.truth
        boxes += [e["box_px"] for e in photo.truth["clutter"]]
        over += any(t["occluded_fraction"] > 0 for t in photo.truth["tiles"])
    assert len({tuple(b) for b in boxes}) == 12
    assert 0 < over < 12  # sometimes over the board, sometimes beside it


def test_a_hand_is_the_cover_and_nothing_is_none():
    assert render_scene(BOARD, seed=4, size=SIZE, tile_px=50, **PLAIN).cover is None
    photo = render_scene(BOARD, seed=4, size=SIZE, tile_px=50, occluder=(240.0, 180.0), **PLAIN)
    assert photo.cover[180, 240] == 255 and 0.02 < (photo.cover > 127).mean() < 0.6
    assert render(BOARD, seed=4, size=SIZE, tile_px=50, occluder=(240.0, 180.0), **PLAIN)[1] == photo.truth


def test_a_cast_shadow_darkens_part_of_the_table_softly():
    for seed in range(3):
        lit, _ = render(Board(), seed=seed, size=SIZE, table="white", **PLAIN)
        shaded, truth = render(Board(), seed=seed, size=SIZE, table="white", cast_shadow=0.6, **PLAIN)
        ratio = shaded.mean(axis=2) / np.maximum(lit.mean(axis=2), 1)
        assert 0.15 < (ratio < 0.7).mean() < 0.65 and (ratio > 0.98).mean() > 0.3, seed
        assert 0.05 < ((ratio > 0.7) & (ratio < 0.98)).mean()  # a soft edge, not a cut
        assert truth["params"]["cast_shadow"] == 0.6


@pytest.mark.parametrize("spots", [0, 1, 3])
def test_glare_shines_on_as_many_spots_as_asked(spots):
    board = random_board(np.random.default_rng(3), 30)
    dull, _ = render(board, seed=5, size=(640, 480), tile_px=40, **PLAIN)
    shiny, truth = render(board, seed=5, size=(640, 480), tile_px=40, **{**PLAIN, "glare": 1.0}, glare_spots=spots)
    assert len(truth["glare"]) == spots
    gain = shiny.astype(int).sum(axis=2) - dull.astype(int).sum(axis=2)
    for g in truth["glare"]:
        x, y = (int(v) for v in g["center_px"])
        assert gain[y, x] > 150 and 0.4 * 40 <= g["sigma_px"] <= 1.2 * 40
    far = np.ones(gain.shape, bool)
    for g in truth["glare"]:
        cv2.circle(far.view(np.uint8), tuple(int(v) for v in g["center_px"]), int(4.2 * g["sigma_px"]), 0, -1)
    assert gain[far].max() <= 1


def test_jitter_scales_how_far_hands_set_tiles_off_their_cells():
    board = random_board(np.random.default_rng(6), 40)
    twists = {}
    for jitter in (0.0, 1.0, 3.0):
        _, truth = render(board, seed=2, size=(800, 600), tile_px=40, jitter=jitter, gap=0.12, **PLAIN)
        twists[jitter] = np.array([abs(t["twist_deg"]) for t in truth["tiles"]])
        off = [math.dist(t["center_px"], c) for t, c in zip(truth["tiles"], _grid_centres(truth), strict=True)]
        if jitter == 0:
            assert twists[0].max() == 0 and max(off) < 0.01  # the truth is rounded to 0.01 px
        else:
            assert max(off) <= 0.04 * jitter * 40 / math.sqrt(3) / 0.88 * math.sqrt(2) + 0.01
    assert twists[1.0].max() <= 4 and 5 < twists[3.0].max() <= 12
    assert np.median(twists[3.0]) > 2 * np.median(twists[1.0])


def test_a_nudged_tile_lies_off_its_cell_by_the_nudge_and_its_neighbours_stay():
    board = random_board(np.random.default_rng(6), 12)
    cell = sorted(board.cells)[3]
    plain = dict(seed=2, size=(800, 600), tile_px=60, jitter=0.0, **PLAIN)
    _, laid = render(board, **plain)
    _, knocked = render(board, nudged={cell: (0.1, -0.05, 7.0)}, **plain)
    s = 60 / math.sqrt(3) / (1 - knocked["params"]["gap"])  # circumradius px of the grid (yaw 0, no tilt)
    for a, b in zip(laid["tiles"], knocked["tiles"], strict=True):
        shift = np.subtract(b["center_px"], a["center_px"])
        if (b["q"], b["r"]) == cell:
            assert np.allclose(shift, (0.1 * s, -0.05 * s), atol=0.05) and b["twist_deg"] == 7.0
        else:
            assert np.allclose(shift, 0, atol=0.01) and b["twist_deg"] == a["twist_deg"] == 0
    assert knocked["params"]["nudged"] == [[*cell, 0.1, -0.05, 7.0]]


def _grid_centres(truth):
    """Where each tile of `truth` would lie exactly on its cell."""
    s = truth["params"]["tile_px"] / math.sqrt(3) / (1 - truth["params"]["gap"])
    hom = np.array(truth["homography_board_to_px"])
    pts = np.array([[s * math.sqrt(3) * (t["q"] + t["r"] / 2), 1.5 * s * t["r"], 1.0] for t in truth["tiles"]])
    q = pts @ hom.T
    return q[:, :2] / q[:, 2:]


def test_a_brighter_rim_lights_only_the_tiles_bevel():
    dull, bright = (tile_sprite(7, True, 60.0, 0.23, 0, rim=k).astype(int) for k in (1.0, 4.0))
    differ = np.abs(bright - dull).max(axis=2) > 0
    yy, xx = np.mgrid[0:dull.shape[0], 0:dull.shape[1]]
    c = (dull.shape[0] - 1) / 2
    r = np.hypot(xx - c, yy - c)
    assert differ.any() and r[differ].min() > 0.85 * 60 * math.sqrt(3) / 2  # the rim, nothing inside it
    assert (bright[..., :3] - dull[..., :3])[differ].max() >= 3 * 14 - 2


def _flat_sprites(calls):
    """Magenta hexagons with a white spot next to edge 0 (NE): a picture source like cut-outs of real tiles."""
    def sprite(tile, face_up, radius):
        calls.append((tile, face_up, radius))
        half = int(math.ceil(radius)) + 2
        img = np.zeros((2 * half + 1, 2 * half + 1, 4), np.uint8)
        hexagon = np.array([(half + radius * math.cos(math.radians(-30 + 60 * i)),
                             half + radius * math.sin(math.radians(-30 + 60 * i))) for i in range(6)])
        cv2.fillPoly(img, [np.round(hexagon).astype(np.int32)], (255, 0, 255, 255))
        mark = (half + 0.6 * radius * math.cos(math.radians(-60)), half + 0.6 * radius * math.sin(math.radians(-60)))
        cv2.circle(img, (round(mark[0]), round(mark[1])), max(2, int(radius / 6)), (255, 255, 255, 255), -1)
        return img
    return sprite


@pytest.mark.parametrize("tilt, k1", [(0.0, 0.0), (18.0, -0.12)])
def test_given_sprites_are_drawn_where_the_truth_says_turned_as_the_placement(tilt, k1):
    calls = []
    photo = render_scene(BOARD, seed=3, size=SIZE, tile_px=50, yaw_deg=20, tilt_deg=tilt, k1=k1, gap=0.16,
                         face_down=[40], sprites=_flat_sprites(calls), **PLAIN)
    assert {c[0] for c in calls} == BOARD.tiles | {40} and (40, False, calls[0][2]) in calls
    assert photo.truth["params"]["sprites"] == "given"
    img = photo.image.astype(int)
    magenta = (img[..., 0] > 150) & (img[..., 2] > 150) & (img[..., 1] < 90)
    white = img.min(axis=2) > 170
    for t in photo.truth["tiles"]:
        c, corners = np.array(t["center_px"]), np.array(t["corners_px"])
        inner = np.zeros(magenta.shape, np.uint8)
        cv2.fillPoly(inner, [np.round(c + 0.85 * (corners - c)).astype(np.int32)], 1)
        assert (magenta | white)[inner > 0].mean() > 0.97, t["tile"]
        ring = np.zeros(magenta.shape, np.uint8)
        cv2.fillPoly(ring, [np.round(c + 1.2 * (corners - c)).astype(np.int32)], 1)
        cv2.fillPoly(ring, [np.round(c + 1.06 * (corners - c)).astype(np.int32)], 0)
        assert magenta[ring > 0].mean() < 0.03, t["tile"]
        # the spot of edge 0 lies towards the tile's edge 0, wherever the placement turned it
        mid0 = (np.array(corners[5]) + np.array(corners[0])) / 2
        x, y = np.round(c + 0.6 * (mid0 - c)).astype(int)
        assert white[y - 1:y + 2, x - 1:x + 2].any(), t["tile"]


def test_truth_survives_tiles_cut_by_the_frame_edge():
    """Corners rounding to one pixel past the frame once crashed the washed-out measure (glare on)."""
    for i in range(60):
        rng = np.random.default_rng(i)
        board = random_board(rng, int(rng.integers(3, 15)))
        w, h = 320, 240
        edge = float(rng.uniform(0, 0.15))
        center = [(edge * w, h / 2), (w - edge * w, h / 2), (w / 2, edge * h), (w / 2, h - edge * h)][i % 4]
        _, truth = render(board, seed=i, size=(w, h), tile_px=float(rng.uniform(20, 40)),
                          yaw_deg=float(rng.uniform(0, 360)), glare=0.5, center=center, noise=0, jpeg_quality=None)
        assert len(truth["tiles"]) == len(board)
        assert any(t["fraction_in_image"] < 1 for t in truth["tiles"]) or len(board) < 4


def test_every_option_is_the_same_for_a_seed_and_another_for_another():
    opts = {"size": SIZE, "tile_px": 45, "table": "paper", "glare": 0.6, "glare_spots": 3, "cast_shadow": 0.5,
            "clutter": ["coin", "pad"], "occluder": "hand", "jitter": 2.0, "gap": 0.08, "rim": 3.0,
            "loose": [40, 41], "apart": [Apart(50, (40.0, 40.0), 12.0)], "tilt_deg": 10}
    a, b, c = (render_scene(BOARD, seed=k, **opts) for k in (5, 5, 6))
    assert np.array_equal(a.image, b.image) and np.array_equal(a.cover, b.cover) and a.truth == b.truth
    assert np.abs(a.image.astype(int) - c.image.astype(int)).mean() > 5
    assert a.truth["clutter"] != c.truth["clutter"] and a.truth["glare"] != c.truth["glare"]
