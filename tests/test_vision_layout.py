"""Stage 2, the board from the tiles: cells by walking the graph of touching tiles, whatever the gaps,
twists, perspective or the board's turn; loose tiles and rows apart; a split board joined."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tantrix_pi.grid import centre, turn
from tantrix_pi.vision import layout
from tantrix_pi.vision.config import GridConfig
from tantrix_pi.vision.hexagon import Hexagon
from tantrix_pi.vision.seen import Seen

CFG = GridConfig()
CELLS = [(0, 0), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (2, -1), (2, 0), (-2, 2), (0, 2), (1, 1)]


def tiles_on(cells, angle=0.0, radius=30.0, gap=0.04, twist=0.0, jitter=0.0, squash=1.0, seed=0, at=(500, 400)):
    """Seen tiles on the given cells of a grid turned `angle` degrees, as the finder would report them."""
    rng = np.random.default_rng(seed)
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    view = np.diag([1.0, squash]) @ rot
    out = []
    for c in cells:
        p = np.array(at) + view @ (np.array(centre(c, radius * (1 + gap))) + rng.normal(0, jitter * radius, 2))
        hx = Hexagon.of(p, view @ Hexagon.regular((0, 0), radius, rng.uniform(-twist, twist)).m)
        out.append(Seen(_nearest_right(hx), 0.9, 0.0))
    return out


def _nearest_right(hx: Hexagon) -> Hexagon:
    """The hexagon numbered as the finder numbers it: edge 1 is the edge nearest image-right."""
    for k in range(6):
        t = hx.turned(k)
        if -30 < t.angle <= 30:
            return t
    raise AssertionError


def same_cells(tiles, cells) -> bool:
    """Whether tile i lies on cells[i], up to a move and a turn of the whole grid."""
    got = [t.cell for t in tiles]
    for k in range(6):
        turned = [turn(c, k) for c in got]
        dq, dr = cells[0][0] - turned[0][0], cells[0][1] - turned[0][1]
        if all((q + dq, r + dr) == c for (q, r), c in zip(turned, cells, strict=True)):
            return True
    return False


@pytest.mark.parametrize("angle", [0.0, 13.0, 29.0, 31.0, 47.0, 178.0])
def test_cells_follow_the_grid_at_any_angle(angle):
    placed = layout.place(tiles_on(CELLS, angle=angle, twist=4, jitter=0.02), CFG)
    assert len({t.group for t in placed}) == 1
    assert same_cells(placed, CELLS)


def test_edges_are_renumbered_to_face_the_board_directions():
    placed = layout.place(tiles_on(CELLS, angle=37.0), CFG)
    base = placed[0].hexagon.angle
    assert all(abs(((t.hexagon.angle - base) + 180) % 360 - 180) < 2.0 for t in placed)


@pytest.mark.parametrize("gap", [0.0, 0.06, 0.12])
def test_hand_placed_gaps_and_a_tilted_camera_keep_the_cells(gap):
    placed = layout.place(tiles_on(CELLS, angle=8.0, gap=gap, squash=math.cos(math.radians(22)), jitter=0.02,
                                   twist=5), CFG)
    assert same_cells(placed, CELLS)


def test_loose_tiles_and_a_row_are_groups_of_their_own():
    board = tiles_on(CELLS[:7])
    lone = tiles_on([(0, 0)], angle=23.0, at=(100, 100))
    row = tiles_on([(0, 0), (1, 0), (2, 0)], angle=-8.0, at=(150, 700), gap=0.1)
    placed = layout.place(board + lone + row, CFG)
    groups = [t.group for t in placed]
    assert len(set(groups[:7])) == 1 and len(set(groups[7:8]) | set(groups[:7])) == 2
    assert len(set(groups[8:])) == 1 and groups[8] not in groups[:8]


def test_a_board_split_by_a_missing_tile_is_joined_on_its_own_grid():
    # the tile at (1, 0) is not seen (glare): (2, -1), (2, 0) only touch the rest through it
    cells = [(0, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (2, -1), (2, 0)]
    placed = layout.join_split(layout.place(tiles_on(cells, angle=21.0, twist=3), CFG), CFG)
    assert len({t.group for t in placed}) == 1
    assert same_cells(placed, cells)


def test_a_loose_tile_three_cells_away_is_not_joined():
    cells = [(0, 0), (1, 0), (0, 1)]
    far = tiles_on([(4, 0)], angle=0.0)  # on the grid's own line, but three cells from the board
    placed = layout.join_split(layout.place(tiles_on(cells) + far, CFG), CFG)
    assert placed[-1].group != placed[0].group


def test_tiles_overlapping_one_cell_are_not_both_placed_there():
    ts = tiles_on(CELLS[:3])
    dup = Seen(Hexagon.of(np.array(ts[1].centre) + 2.0, ts[1].hexagon.m), 0.5, 0.0)
    placed = layout.place([*ts, dup], CFG)
    on_grid = [t.cell for t in placed if t.group == placed[0].group]
    assert len(on_grid) == len(set(on_grid))


def test_the_expected_centre_of_a_cell_comes_from_its_neighbours():
    placed = layout.place(tiles_on(CELLS, angle=12.0, gap=0.05, jitter=0.01), CFG)
    middle = max(placed, key=lambda t: sum(math.dist(t.centre, o.centre) < 70 for o in placed))
    got = layout.expected([t for t in placed if t is not middle], middle.cell)
    assert got is not None and np.linalg.norm(got[0] - np.array(middle.centre)) < 2.0
    assert abs(got[1] / middle.hexagon.width - 1) < 0.02
