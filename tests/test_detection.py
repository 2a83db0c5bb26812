"""Detection.doubts: what blocks a verdict on a photo (the board's own doubtful tiles), and what does not (junk)."""

import pytest

from tantrix_pi.board import Placement
from tantrix_pi.grid import centre
from tantrix_pi.vision.detection import CONFIDENT, Detection, SeenTile, Unread

TILE_PX = 100.0


def px(cell) -> tuple[float, float]:
    """Pixel centre of a cell on a camera that sees the grid straight, 100 px per tile across flats."""
    gx, gy = centre(cell)
    return (500 + gx * TILE_PX / 3 ** 0.5, 400 + gy * TILE_PX / 3 ** 0.5)


def board(confidences=(1.0, 1.0, 1.0), **extras) -> Detection:
    cells = [(0, 0), (1, 0), (0, 1)]
    tiles = [SeenTile(Placement(n, *cell, 0), px(cell), c) for n, cell, c in zip((5, 6, 7), cells, confidences,
                                                                                  strict=True)]
    return Detection(tiles=tiles, tile_px=TILE_PX, **extras)


def test_a_sure_board_has_no_doubt():
    assert board().doubts() == []


def test_an_unsure_board_tile_is_a_doubt_named_by_tile_cell_and_confidence():
    (doubt,) = board(confidences=(1.0, CONFIDENT - 0.05, 1.0)).doubts()
    assert (doubt.kind, doubt.tile, doubt.cell) == ("unsure", 6, (1, 0))
    assert str(doubt) == "tile 6? (1,0) at pixel (600,400) (confidence 0.75)"


@pytest.mark.parametrize("where, blocks", [((-1, 0), True), ((2, -1), True), ((4, 0), False), ((-3, 3), False)])
def test_unreadable_and_face_down_tiles_block_only_next_to_the_board(where, blocks):
    det = board(unreadable=[Unread(px(where), "glare")], face_down=[Unread(px(where), "face down")])
    kinds = [d.kind for d in det.doubts()]
    assert kinds == (["face down", "unreadable"] if blocks else [])


def test_the_cell_the_detector_gives_decides_over_the_pixel_distance():
    on_grid_far = Unread(px((0, 0)), "glare", cell=(5, 0))  # drawn near, placed far: the cell is what counts
    next_cell = Unread(px((9, 9)), "covered", cell=(1, 1))
    det = board(unreadable=[on_grid_far, next_cell])
    (doubt,) = det.doubts()
    assert doubt.cell == (1, 1) and str(doubt) == "unreadable tile at (1,1) at pixel (1850,1179): covered"


def test_loose_tiles_never_block_and_without_a_scale_every_unreadable_does():
    assert board(loose=[Unread(px((-1, 0)), "loose tile apart from the board", tile=40)]).doubts() == []
    det = board(unreadable=[Unread((5000.0, 5000.0), "cut by the frame edge")])
    det.tile_px = 0.0
    assert [d.kind for d in det.doubts()] == ["unreadable"]
