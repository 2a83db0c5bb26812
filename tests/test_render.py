import math

import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import SQRT3, centre, edge_angle
from tantrix_pi.render import ARC_RGB, FORCED_RGB, OFFENCE_RGB, Highlights, render


def nearest_arc_colour(rgb):
    return min(ARC_RGB, key=lambda c: sum((a - b) ** 2 for a, b in zip(ARC_RGB[c], rgb, strict=True)))


def pixel_towards(img, board, cell, d, scale, fraction=0.93):
    """The pixel just inside edge d of `cell`, where that edge's arc meets it."""
    cells = board.cells
    xs = [centre(c, scale)[0] for c in cells]
    ys = [centre(c, scale)[1] for c in cells]
    cx, cy = centre(cell, scale)
    x = img.width / 2 + cx - (max(xs) + min(xs)) / 2
    y = img.height / 2 + cy - (max(ys) + min(ys)) / 2
    t = math.radians(edge_angle(d))
    r = fraction * scale * SQRT3 / 2
    return img.getpixel((round(x + r * math.cos(t)), round(y + r * math.sin(t))))


def test_every_edge_is_drawn_in_its_colour_for_every_turn():
    scale = 60
    for tile in (1, 2, 3, 20):  # sharp, bend and straight arcs
        for rot in range(6):
            board = Board([Placement(tile, 0, 0, rot)])
            img = render(board, scale=scale)
            got = [nearest_arc_colour(pixel_towards(img, board, (0, 0), d, scale)) for d in range(6)]
            assert got == [board[(0, 0)].colour(d) for d in range(6)], (tile, rot)


def test_highlights_mark_forced_spaces_and_offending_edges():
    board = Board([Placement(1, 0, 0, 0), Placement(2, 1, 0, 3)])
    plain = render(board, scale=40)
    marked = render(board, Highlights(forced=[(0, 1)], offending=[((0, 0), 1)]), scale=40)
    assert has_colour(marked, FORCED_RGB) and has_colour(marked, OFFENCE_RGB)
    assert not has_colour(plain, OFFENCE_RGB) and not has_colour(plain, FORCED_RGB)


def has_colour(img, rgb):
    pixels = np.asarray(img).reshape(-1, 3).astype(int)
    return bool((((pixels - np.array(rgb)) ** 2).sum(axis=1) < 900).any())


def test_size_fits_the_board_into_a_given_image():
    board = Board([Placement(n, n, 0, 0) for n in range(1, 8)])
    assert render(board, size=(128, 64)).size == (128, 64)
    assert render(Board(), size=(32, 32)).size == (32, 32)
