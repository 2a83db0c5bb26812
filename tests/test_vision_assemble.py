"""Stage 5, assemble: the board is the group whose colours agree; everything else is filed with its
reason, doubt is said only about the board's cells and the cells next to them, junk is not reported."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

import cv2
import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import centre
from tantrix_pi.simulator import legal_board
from tantrix_pi.vision.assemble import assemble
from tantrix_pi.vision.config import CONFIG
from tantrix_pi.vision.decode import Reading
from tantrix_pi.vision.detection import COVERED, CUT, EDGE, GLARE, HIDDEN, MISSED, NO_BANDS, NOT_TILES
from tantrix_pi.vision.hexagon import Hexagon
from tantrix_pi.vision.network import Maps
from tantrix_pi.vision.seen import Colours, Seen

R = 30.0
SHAPE = (800, 1000, 3)


def bands(n: int = 6, face: float = 0.2, black: float = 30.0) -> Colours:
    chroma = np.array([3.0] * n + [0.1] * (6 - n))
    return Colours(np.zeros(6), chroma, face, np.full(24, 2.0 if n else 0.1), black)


def seen(cell, group=0, colours=None, reading=None, covered=0.0, at=(500.0, 400.0)) -> Seen:
    x, y = centre(cell, R * 1.04)
    hx = Hexagon.regular((at[0] + x, at[1] + y), R, 0.0)
    return Seen(hx, 0.9, covered, group, cell, colours if colours is not None else bands(), reading)


def board_tiles(board: Board, group=0, at=(500.0, 400.0)) -> list[Seen]:
    return [seen(p.cell, group, reading=Reading(p.tile, p.rot, 0.97, -0.1, "".join(p.colour(d) for d in range(6))),
                 at=at) for p in board]


def no_maps() -> list[Maps]:
    z = np.zeros((400, 500), np.float32)
    return [Maps(z, z, z, z, z, (0.5, 0.5), (0.0, 0.0))]


def face_maps(tiles: list[Seen]) -> list[Maps]:
    """Maps in which the network sees tile face over each of the `tiles`."""
    face = np.zeros((400, 500), np.float32)
    z = np.zeros_like(face)
    maps = Maps(face, z, z, z, z, (0.5, 0.5), (0.0, 0.0))
    for t in tiles:
        u, v = maps.to_map(np.array([t.centre]))[0]
        r = R * 0.5 * maps.scale[0]
        face[int(v - r):int(v + r) + 1, int(u - r):int(u + r) + 1] = 1.0
    return [maps]


BOARD = legal_board(6, seed=4)


def test_the_board_is_read_and_junk_apart_from_it_is_not_reported():
    junk = seen((0, 0), group=7, colours=bands(0), at=(100.0, 100.0))  # a shadow the network took for a tile
    det = assemble([*board_tiles(BOARD), junk], no_maps(), SHAPE, CONFIG)
    assert det.board.same_as(BOARD) and all(t.confidence > 0.9 for t in det.tiles)
    assert det.unreadable == [] and det.loose == [] and det.face_down == []


def test_doubts_on_the_board_name_their_cell_and_reason():
    tiles = board_tiles(BOARD)
    hidden, blank, glared, cut, fingered = tiles[:5]
    tiles[0] = Seen(hidden.hexagon, 0.9, 0.5, 0, hidden.cell, hidden.colours, None)
    tiles[1] = Seen(blank.hexagon, 0.9, 0.0, 0, blank.cell, bands(0), None)
    tiles[2] = Seen(glared.hexagon, 0.9, 0.0, 0, glared.cell, bands(2, black=180.0), None)
    tiles[3] = Seen(cut.hexagon, 0.9, 0.0, 0, cut.cell, None, None)
    # in view, but fingers over two of its edges: what shows does not decide which tile it is
    tiles[4] = Seen(fingered.hexagon, 0.9, 0.1, 0, fingered.cell,
                    replace(bands(), seen=np.array([False, True, True, True, True, False])), None)
    det = assemble(tiles, face_maps(tiles), SHAPE, CONFIG)
    got = {u.cell: u.reason for u in det.unreadable}
    assert got == {hidden.cell: HIDDEN, blank.cell: NO_BANDS, glared.cell: GLARE, cut.cell: CUT, fingered.cell: HIDDEN}
    assert len(det.tiles) == len(BOARD) - 5


def test_a_bright_colourless_shape_next_to_the_board_that_is_hardly_tile_face_is_the_table_not_a_tile_in_glare():
    # white paper with pen circles beside the board: the network found a tile-like shape on the cell next to it,
    # but sees almost no tile face there; no glare is said about the board (it held back a live placement)
    tiles = board_tiles(BOARD)
    cell = sorted(BOARD.empty_neighbours())[0]
    paper = seen(cell, colours=bands(0, black=227.0))
    det = assemble([*tiles, paper], face_maps(tiles), SHAPE, CONFIG)
    assert det.board.same_as(BOARD) and det.unreadable == [] and det.doubts() == []
    # the same shape where the network sees tile face is a tile washed out by glare: doubted
    det = assemble([*tiles, paper], face_maps([*tiles, paper]), SHAPE, CONFIG)
    assert {u.cell: u.reason for u in det.unreadable} == {cell: GLARE}


def test_a_bright_colourless_shape_on_the_grid_narrower_or_wider_than_a_tile_is_the_table_not_a_tile_in_glare():
    # small tiles on paper: the network takes a pen circle beside the board for tile face, but a tile is as wide
    # as the tiles beside it, and the circle is a fifth narrower
    tiles = board_tiles(BOARD)
    cell = sorted(BOARD.empty_neighbours())[0]

    def shape(width: float) -> Seen:
        s = seen(cell, colours=bands(0, black=250.0))
        return replace(s, hexagon=Hexagon.regular(s.centre, R * width, 9.0))

    for width in (0.8, 1.25):
        det = assemble([*tiles, shape(width)], face_maps([*tiles, shape(width)]), SHAPE, CONFIG)
        assert det.board.same_as(BOARD) and det.doubts() == [], width
    # a tile in glare, as wide as its neighbours and twisted as a hand lays it, is doubted
    det = assemble([*tiles, shape(0.97)], face_maps([*tiles, shape(0.97)]), SHAPE, CONFIG)
    assert {u.cell: u.reason for u in det.unreadable} == {cell: GLARE}


def test_a_tile_in_a_hand_apart_from_the_board_is_not_doubted():
    # a player carries a drawn tile to their rack: fingers over two of its edges, and what shows does not decide it
    held = seen((0, 0), group=5, colours=replace(bands(), seen=np.array([False, True, True, True, True, False])),
                at=(150.0, 150.0))
    tiles = board_tiles(BOARD)
    det = assemble([*tiles, held], face_maps([*tiles, held]), SHAPE, CONFIG)
    assert det.board.same_as(BOARD) and det.unreadable == [] and det.doubts() == []



def test_the_face_of_a_tile_lying_over_part_of_an_empty_cell_is_not_a_tile_missed_there():
    # the board has grown up to a player's hand zone: a tile of the zone lies over part of an empty cell next to
    # the board, and the network sees its face there. No tile fits in that cell: nothing is doubted
    tiles = board_tiles(BOARD)
    cell = sorted(BOARD.empty_neighbours())[0]
    here = np.add(centre(cell, R * 1.04), (500.0, 400.0))
    middle = np.mean([t.centre for t in tiles], axis=0)
    width = tiles[0].hexagon.width
    at = here + 0.55 * width * (here - middle) / np.linalg.norm(here - middle)
    zone = Seen(Hexagon.regular(at, R, 0.0), 0.9, 0.0, 5, (0, 0), bands())
    assert min(np.linalg.norm(np.subtract(t.centre, at)) for t in tiles) > width  # apart from the board
    face = np.zeros((400, 500), np.float32)
    z = np.zeros_like(face)
    maps = Maps(face, z, z, z, z, (0.5, 0.5), (0.0, 0.0))
    for t in [*tiles, zone]:
        cv2.fillPoly(face, [np.int32(maps.to_map(t.hexagon.corners()))], 1.0)
    det = assemble([*tiles, zone], [maps], SHAPE, CONFIG)
    assert det.board.same_as(BOARD) and det.doubts() == []
    # tile face over the rest of the cell too, where no tile was found: a tile missed there
    cv2.fillPoly(face, [np.int32(maps.to_map(Hexagon.regular(here, R, 0.0).corners()))], 1.0)
    det = assemble([*tiles, zone], [maps], SHAPE, CONFIG)
    assert {u.cell: u.reason for u in det.unreadable} == {cell: MISSED}

def test_loose_and_face_down_tiles_are_filed_apart_from_the_board():
    p = Placement(40, 0, 0, 0)
    loose = seen((0, 0), group=3, reading=Reading(40, 0, 0.95, -0.1, "".join(p.colour(d) for d in range(6))),
                 at=(100.0, 100.0))
    down = seen((0, 0), group=4, colours=bands(0, face=3.0), at=(900.0, 700.0))
    det = assemble([*board_tiles(BOARD), loose, down], no_maps(), SHAPE, CONFIG)
    assert [u.tile for u in det.loose] == [40]
    assert len(det.face_down) == 1 and det.face_down[0].cell is None
    assert det.board.same_as(BOARD)


def test_a_row_of_tiles_whose_colours_do_not_meet_is_not_the_board():
    row = [seen((q, 0), group=1, reading=Reading(50 - q, q, 0.95, -0.1, "RYGBRY"[q:] + "RYGBRY"[:q]),
                at=(150.0, 700.0)) for q in range(4)]
    det = assemble([*board_tiles(BOARD, at=(600.0, 300.0)), *row], no_maps(), SHAPE, CONFIG)
    assert det.board.same_as(BOARD) and len(det.loose) == 4


def test_an_empty_cell_next_to_the_board_that_shows_tile_face_or_a_hand_is_reported():
    tiles = board_tiles(BOARD)
    empty = sorted(BOARD.empty_neighbours())[:2]
    face = np.zeros((400, 500), np.float32)
    cover = np.zeros((400, 500), np.float32)
    z = np.zeros_like(face)
    maps = Maps(face, z, z, z, cover, (0.5, 0.5), (0.0, 0.0))
    for cell, layer in zip(empty, (face, cover), strict=True):
        x, y = centre(cell, R * 1.04)
        u, v = maps.to_map(np.array([[500 + x, 400 + y]]))[0]
        layer[int(v) - 6:int(v) + 7, int(u) - 6:int(u) + 7] = 1.0
    det = assemble(tiles, [maps], SHAPE, CONFIG)
    assert {u.cell: u.reason for u in det.unreadable} == {empty[0]: MISSED, empty[1]: COVERED}


def test_every_empty_cell_in_view_next_to_the_board_carries_how_much_of_it_something_covers():
    # fingers over a fifth of one cell: too little to doubt a photo, but measured for a live referee that saw a
    # tile there; the other empty cells show bare table
    tiles = board_tiles(BOARD)
    cell = sorted(BOARD.empty_neighbours())[0]
    cover = np.zeros((400, 500), np.float32)
    z = np.zeros_like(cover)
    maps = Maps(z, z, z, z, cover, (0.5, 0.5), (0.0, 0.0))
    x, y = centre(cell, R * 1.04)
    u, v = maps.to_map(np.array([[500 + x, 400 + y]]))[0]
    cover[int(v) - 1:int(v) + 2, int(u) - 4:int(u) + 5] = 1.0
    det = assemble(tiles, [maps], SHAPE, CONFIG)
    assert det.unreadable == []
    assert set(det.cover) == BOARD.empty_neighbours()
    assert 0.05 < det.cover[cell] < CONFIG.grid.covered_cell
    assert all(share == 0.0 for c, share in det.cover.items() if c != cell)


def test_a_board_whose_colours_mostly_disagree_is_not_trusted():
    rng = np.random.default_rng(2)
    cells = [p.cell for p in legal_board(12, seed=9)]
    tiles = [seen(c, reading=Reading(n, 0, 0.97, -0.1, "".join(rng.choice(list("RYGB"), 6))))
             for n, c in zip(range(1, 13), cells, strict=True)]
    det = assemble(tiles, no_maps(), SHAPE, CONFIG)
    assert det.tiles == [] or all(t.confidence <= 0.5 for t in det.tiles)


def test_shapes_that_read_as_no_tile_at_all_are_said_once_and_keep_the_scale():
    # a dark patterned table the network took for tiles: colours that match nothing, weakly read
    rng = np.random.default_rng(5)
    cells = [p.cell for p in legal_board(8, seed=3)]
    tiles = [seen(c, reading=Reading(n, 0, 0.85 if n == 1 else 0.2, -3.0, "".join(rng.choice(list("RYGB"), 6))))
             for n, c in zip(range(1, 9), cells, strict=True)]
    det = assemble(tiles, no_maps(), SHAPE, CONFIG)
    assert det.tiles == [] and [u.reason for u in det.unreadable] == [NOT_TILES]
    assert abs(det.tile_px - R * 3 ** 0.5) < 1e-6


def test_a_real_board_under_glare_is_doubted_not_dropped():
    # glare washes out most of the board: most readings weak, but three read clearly
    tiles = board_tiles(legal_board(10, seed=4))
    for i in range(3, len(tiles)):
        r = tiles[i].reading
        tiles[i] = Seen(tiles[i].hexagon, 0.9, 0.0, 0, tiles[i].cell, bands(6, black=150.0),
                        Reading(r.tile, r.rot, 0.05, -9.0, r.colours))
    det = assemble(tiles, face_maps(tiles), SHAPE, CONFIG)
    assert {t.placement.cell for t in det.tiles} == {t.cell for t in tiles[:3]}
    assert all(t.confidence <= 0.5 for t in det.tiles)  # a board in doubt: doubted, never a verdict
    assert {u.cell: u.reason for u in det.unreadable} == {t.cell: GLARE for t in tiles[3:]}


def test_a_shape_at_the_frame_edge_apart_from_the_board_is_said_only_when_it_looks_like_tile_face():
    tiles = board_tiles(BOARD)
    face = np.zeros((400, 500), np.float32)
    z = np.zeros_like(face)
    maps = Maps(face, z, z, z, z, (0.5, 0.5), (0.0, 0.0))
    edge_tile, edge_junk = (seen((0, 0), group=g, colours=None, at=at) for g, at in ((5, (10.0, 200.0)),
                                                                                   (6, (990.0, 200.0))))
    u, v = maps.to_map(np.array([edge_tile.centre]))[0]
    face[int(v) - 12:int(v) + 13, 0:int(u) + 13] = 1.0  # the network sees tile face there, not at the other
    det = assemble([*tiles, edge_tile, edge_junk], [maps], SHAPE, CONFIG)
    assert [(u.reason, u.center_px) for u in det.unreadable] == [(CUT, edge_tile.centre)]


def test_cells_beyond_the_frame_edge_next_to_the_board_are_doubted_cut_when_tile_face_shows_there():
    # the board laid against the left edge of the photo: its empty neighbours there lie partly outside the frame
    tiles = board_tiles(BOARD, at=(60.0, 400.0))
    det = assemble(tiles, no_maps(), SHAPE, CONFIG)
    beyond = {u.cell: u.reason for u in det.unreadable}
    assert beyond and set(beyond.values()) == {EDGE}  # nothing seen there: the board may go on, nothing more
    face = np.zeros((400, 500), np.float32)
    z = np.zeros_like(face)
    face[:, :20] = 1.0  # the network sees tile face along the edge: a tile the frame cuts
    det = assemble(tiles, [Maps(face, z, z, z, z, (0.5, 0.5), (0.0, 0.0))], SHAPE, CONFIG)
    assert {u.cell: u.reason for u in det.unreadable if u.cell in beyond and u.reason == CUT}


def test_one_tile_laid_against_the_rule_on_a_small_board_is_a_violation_not_a_board_in_doubt():
    # three tiles, and a fourth laid touching two of them, both edges wrong, read cleanly: its two edges were half
    # of the board's four, so the whole board was doubted and the referee said "can't read" instead of "illegal"
    three = Board(legal_board(3, seed=2))
    cell = next(c for c in sorted(three.empty_neighbours()) if three.occupied_neighbours(c) == 2)
    facing = three.facing(cell)
    colours = next("".join(c) for c in product("RYGB", repeat=6)
                   if all(f is None or c[d] != f for d, f in enumerate(facing)))
    det = assemble([*board_tiles(three), seen(cell, reading=Reading(56, 0, 0.97, -0.1, colours))], no_maps(), SHAPE,
                   CONFIG)
    assert len(det.tiles) == 4 and all(t.confidence > 0.9 for t in det.tiles)
    assert Placement(56, *cell, 0) in [t.placement for t in det.tiles]


def test_a_live_referee_s_board_is_the_group_holding_most_of_its_tiles_whatever_their_colours():
    def tile(number, cell, colour, group=0, at=(500.0, 400.0)):
        return seen(cell, group, reading=Reading(number, 0, 0.97, -0.1, colour * 6), at=at)

    pair = [tile(6, (0, 0), "R"), tile(9, (1, 0), "Y")]  # touching, their colours never meet
    assert assemble(pair, face_maps(pair), SHAPE, CONFIG).tiles == []  # a photo check: two loose tiles
    live = assemble(pair, face_maps(pair), SHAPE, CONFIG, holds={6})  # the referee holds tile 6
    assert {t.placement.tile for t in live.tiles} == {6, 9}
    # the referee holds 6, 9 and 13; 13, just taken back, lies alone in the middle of the picture, the board off to
    # the side: the board is still the group holding the most of them
    aside = [tile(6, (0, 0), "R", at=(250.0, 200.0)), tile(9, (1, 0), "Y", at=(250.0, 200.0))]
    back = tile(13, (0, 0), "G", group=5)
    det = assemble([*aside, back], face_maps([*aside, back]), SHAPE, CONFIG, holds={6, 9, 13})
    assert {t.placement.tile for t in det.tiles} == {6, 9}


def test_a_live_referee_s_first_tile_is_the_lone_tile_laid_where_none_lay_among_the_hands_lying_apart():
    def tile(number, at):
        return seen((0, 0), number, reading=Reading(number, 0, 0.97, -0.1, "RYBRYB"), at=at)

    hands = [tile(n, (100.0 + 90 * n, 760.0)) for n in (1, 2, 3, 4)]  # face up along the frame's edge, apart
    first = tile(7, (500.0, 400.0))
    table = [*hands, first]

    def lay_there(t):  # the hands lay there when the referee last matched the table, the board empty
        return t in hands

    assert assemble(table, face_maps(table), SHAPE, CONFIG).tiles == []  # a photo: which lone tile is the board?
    live = assemble(table, face_maps(table), SHAPE, CONFIG, lay_there=lay_there)
    assert [t.placement.tile for t in live.tiles] == [7] and sorted(u.tile for u in live.loose) == [1, 2, 3, 4]
    # two tiles laid where none lay: which is the first is not known, and none is taken
    second = tile(9, (800.0, 200.0))
    assert assemble([*table, second], face_maps([*table, second]), SHAPE, CONFIG, lay_there=lay_there).tiles == []
    # a tile drawn into a hand, at the end of its row, is no first tile: it lies among the hands
    drawn = tile(5, (100.0 + 90 * 5, 760.0))
    assert assemble([*hands, drawn], face_maps([*hands, drawn]), SHAPE, CONFIG, lay_there=lay_there).tiles == []
    # nor is a tile laid nearer the middle than the hands but not near it: a player laying out their hand
    out_there = tile(8, (500.0, 680.0))
    table2 = [*hands, out_there]
    assert assemble(table2, face_maps(table2), SHAPE, CONFIG, lay_there=lay_there).tiles == []
    # once the referee holds a board, a lone tile laid elsewhere is no first tile
    assert assemble(table, face_maps(table), SHAPE, CONFIG, holds={30}, lay_there=lay_there).tiles == []
