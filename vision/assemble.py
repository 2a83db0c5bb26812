"""Stage 5, assemble: which group of tiles is the board, how far its readings can be trusted, and what
everything else on the table is (loose, face down, unreadable, or not a tile at all).

A board is laid colour to colour, so the group whose touching edges agree most is the board (a player's
row of tiles meets its neighbours' colours only by chance). Doubt is only ever said about the board's own
cells and the cells next to them: a tile-like thing elsewhere that shows no bands is not a tile.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import replace

import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import Cell, neighbour, opposite
from tantrix_pi.vision import decode, edges, layout
from tantrix_pi.vision.config import Config
from tantrix_pi.vision.detection import (
    CONFIDENT,
    COVERED,
    CUT,
    EDGE,
    FACE_DOWN,
    FACE_DOWN_APART,
    GLARE,
    HIDDEN,
    LOOSE,
    LOOSE_UNREAD,
    MISSED,
    NO_BANDS,
    NOT_TILES,
    OFF_GRID,
    TOO_MANY,
    Detection,
    SeenTile,
    Unread,
    polygon,
)
from tantrix_pi.vision.find import share, shares
from tantrix_pi.vision.hexagon import Hexagon
from tantrix_pi.vision.network import Maps
from tantrix_pi.vision.seen import HELD, Seen


def assemble(tiles: list[Seen], maps: list[Maps], shape, cfg: Config, photo: np.ndarray | None = None,
             holds: Collection[int] = (), lay_there: Callable[[Seen], bool] = lambda _t: False) -> Detection:
    """The detection: board tiles with their placements and confidence, and every doubt with its reason. With the
    `photo`, a cell next to the board that shows tile face where no tile was found is read too: a back there
    (a tile turned over, black like its neighbours' faces, that the network did not mark) is filed face down.
    `holds`: the tiles a live referee holds on the table; `lay_there`: whether a tile lies where the referee saw one
    lying apart before (`_board_group`)."""
    det = Detection()
    if not tiles:
        return det
    board = _board_group(tiles, shape, cfg, holds, lay_there)
    clear = sum(t.group == board and t.reading is not None and t.reading.confidence >= CONFIDENT for t in tiles)
    tiles, doubtful = _doubt_unmatched(tiles, board, cfg)
    on_board = [t for t in tiles if t.group == board]
    det.tile_px = float(np.median([t.hexagon.width for t in on_board or tiles]))
    if doubtful and clear < cfg.assemble.clear_tiles and _not_tiles(on_board, cfg):
        # Tile-like cells whose readings contradict each other and themselves: a dark patterned table or a
        # shadow, not a board. Said once, not as dozens of made-up tiles.
        where = tuple(float(v) for v in np.mean([t.centre for t in on_board], axis=0))
        det.unreadable.append(Unread(where, NOT_TILES))
        tiles = [t for t in tiles if t.group != board]
        board = -2
    for t in tiles:
        _classify(det, t, on_board if t.group == board else None, maps, shape, cfg)
    missed, det.cover = _missed_cells([t for t in tiles if t.group == board], tiles, maps, shape, cfg, photo)
    det.unreadable += [u for u in missed if u.back is None]
    backs = [u for u in missed if u.back is not None]  # on a cell: said there, not again as lying apart
    det.face_down = [u for u in det.face_down if u.cell is not None or
                     all(math.dist(u.center_px, b.center_px) >= 0.5 * det.tile_px for b in backs)] + backs
    off = [u.center_px for u in det.unreadable if u.reason == OFF_GRID]  # said once, as a doubt, not as loose
    det.loose = [u for u in det.loose if all(math.dist(u.center_px, c) >= 0.5 * det.tile_px for c in off)]
    det.tiles = _doubt_islands(det.tiles, cfg)
    return det


def _classify(det: Detection, t: Seen, board: list[Seen] | None, maps: list[Maps], shape, cfg: Config) -> None:
    """File one tile under the detection's tiles, loose, face_down or unreadable, or drop it. `board`: the
    board's tiles when `t` is one of them.

    On the board every doubt is said, with its cell. Apart from the board only what reads as a tile, or
    clearly shows a tile's back, is reported: anything else there is junk (a shadow, the table's pattern) or
    a tile that does not matter to a verdict.
    """
    on_board = board is not None
    where = (float(t.centre[0]), float(t.centre[1]))
    corners = polygon(t.hexagon.corners())
    c, r = t.colours, t.reading

    def wholly_face() -> bool:
        # apart from the board, a shape at the frame edge is said only when it looks wholly like tile face
        return share(maps, t.hexagon, "face") >= cfg.assemble.cut_face

    in_view = c is not None and c.cut and bool(edges.in_frame([t.hexagon], shape, cfg.read.cut_margin)[0])
    if c is None or (c.cut and not (r is not None and r.confidence >= CONFIDENT and t.covered <= cfg.read.hidden)
                     and not (in_view and c.back(cfg.read))):
        # a tile the frame cuts, or with fingers over some of its edges, is read only when what is in view decides
        # it (a back in view is a back: the network's cover map is noisy over the bandless edges of backs). Apart
        # from the board a half-hidden shape is said only at the frame's edge: elsewhere it is a tile in a hand
        if on_board or (not in_view and wholly_face()):
            det.unreadable.append(Unread(where, HIDDEN if in_view else CUT, corners_px=corners,
                                         cell=t.cell if on_board else None))
        return
    glared = c.black > cfg.read.glare_black
    read = r is not None and r.confidence >= cfg.assemble.no_reading and c.bands >= cfg.read.face_up_bands
    if on_board:
        if t.covered > cfg.read.hidden:
            reason = HIDDEN
        elif read:
            det.tiles.append(SeenTile(Placement(r.tile, t.cell[0], t.cell[1], r.rot), where, r.confidence, corners))
            return
        elif back := c.back(cfg.read):
            det.face_down.append(Unread(where, FACE_DOWN, corners_px=corners, cell=t.cell, back=back))
            return
        elif r is None and c.bands >= cfg.read.face_up_bands:
            reason = TOO_MANY if decode.face_up(t, cfg.read) else NOT_TILES
        elif glared and not _tile_in_glare(t, board, maps, cfg):
            return  # bright and colourless, but not a tile's face or size: white table (paper, cloth), no tile
        else:
            reason = GLARE if glared else NO_BANDS
        det.unreadable.append(Unread(where, reason, corners_px=corners, cell=t.cell))
    elif not (read and r.confidence >= CONFIDENT) and (back := c.back(cfg.read)):
        # a coloured number in the middle and faint edges: a back, whatever tile its edges half fit
        det.face_down.append(Unread(where, FACE_DOWN_APART, corners_px=corners, back=back))
    elif read and r.confidence >= cfg.assemble.reads_as_tile and t.covered <= cfg.read.hidden:
        tile = r.tile if r.confidence >= CONFIDENT else None
        det.loose.append(Unread(where, LOOSE if tile else LOOSE_UNREAD, tile, corners))
    elif not edges.in_frame([t.hexagon], shape, 1.0)[0] and wholly_face():
        det.unreadable.append(Unread(where, CUT, corners_px=corners))


def _tile_in_glare(t: Seen, board: list[Seen], maps: list[Maps], cfg: Config) -> bool:
    """Whether a bright shape without bands on the board's grid is a tile washed out by glare: the network sees
    it as tile face, and it is as wide as its neighbours say a tile in its cell is."""
    if share(maps, t.hexagon, "face") < cfg.grid.missing_face:
        return False
    expected = layout.expected([s for s in board if s is not t], t.cell)
    lo, hi = cfg.assemble.glare_width
    return expected is None or lo <= t.hexagon.width / expected[1] <= hi


def _board_group(tiles: list[Seen], shape, cfg: Config, holds: Collection[int] = (),
                 lay_there: Callable[[Seen], bool] = lambda _t: False) -> int:
    """The group that is the board: touching edges whose colours match count most, then its tiles, less
    for lying far from the middle of the photo (the camera looks at the board, hands lie at the side).
    A group none of whose tiles reads confidently as a tile, and too few of whose tiles read as tiles at
    all, is no board (-1 when there is none): shapes on the table that only look like tiles (noise on a
    dark table in a dim room) are not doubted as a board. Nor is a group whose touching edges never agree,
    nor one lone tile among other lone tiles (tiles scattered beside their box, a tile of the box's picture).
    In a live game, the group in which most of the tiles the referee holds on the table (`holds`) are read is the
    board before any other, whatever its colours: the game's second tile laid against the golden rule is no loose
    tile (taken so, the board vanished and the first tile was announced as taken back). Most, not any: a tile taken
    back from the board to lie beside it is read there before the referee has taken it off. And while it holds none,
    of lone tiles the one that does not lie where the referee saw a tile lying apart before (`lay_there`) is the
    game's first tile, when it is the only such one, others lay there (the players' face-up hands, no zones), and it
    lies nearer the middle of the photo than all of them and within `first_reach` of it (the board is where the camera
    looks; a tile drawn into a hand lies among the hands, along the edges)."""
    middle = np.array([shape[1] / 2, shape[0] / 2])
    best, best_key, lone = -1, None, []
    for g in sorted({t.group for t in tiles} - {HELD}):
        mine = [t for t in tiles if t.group == g]
        conf = [t.reading.confidence for t in mine if t.reading is not None]
        tiles_read = sum(c >= cfg.assemble.reads_as_tile for c in conf)
        if max(conf, default=0.0) < CONFIDENT and tiles_read < cfg.assemble.unsure_board:
            continue
        placed = {t.cell: t.reading for t in mine
                  if t.reading is not None and t.reading.confidence >= cfg.assemble.no_reading}
        matched = pairs = 0
        for cell, reading in placed.items():
            for d in range(3):
                other = placed.get(neighbour(cell, d))
                if other is not None:
                    pairs += 1
                    matched += reading.colours[d] == other.colours[opposite(d)]
        held = len({t.reading.tile for t in mine if t.reading is not None and t.reading.tile in holds})
        if pairs and not matched and not held:
            continue  # tiles lying side by side whose colours never meet: loose tiles, not a board
        if len(mine) == 1:
            lone.append(mine[0])
        spot = np.mean([t.centre for t in mine], axis=0)
        off_centre = float(np.linalg.norm(spot - middle) / np.linalg.norm(middle))
        key = (held, matched + 0.25 * len(placed) - 3.0 * off_centre, len(mine))
        if best_key is None or key > best_key:
            best, best_key = g, key
    if best_key is not None and not best_key[0] and best_key[2] == 1 and len(lone) > 1:
        laid = [t for t in lone if not lay_there(t)]
        if not holds and len(laid) == 1 and len(laid) < len(lone):
            first, out = laid[0], [float(np.linalg.norm(np.subtract(t.centre, middle))) for t in lone]
            mine = out[lone.index(first)]
            if mine < min(d for d, t in zip(out, lone, strict=True) if t is not first) and \
                    mine <= cfg.assemble.first_reach * float(np.linalg.norm(middle)):
                return first.group  # the game's first tile, laid among the hands lying there before it
        return -1  # tiles lying apart, none touching another: which one would be the board? (zones say hands)
    return best


def _doubt_unmatched(tiles: list[Seen], board: int, cfg: Config) -> tuple[list[Seen], bool]:
    """Readings the golden rule contradicts, doubted; and whether the whole board is in doubt.

    When most touching edges disagree the grid or the colours were misread, so no tile of it is trusted.
    A tile that disagrees with most of its neighbours is doubted alone, unless its colours read so cleanly
    that no reading fitting its neighbours comes near (then it is a real mistake on the table, a violation
    to report, not a misreading).
    """
    a = cfg.assemble
    placed = {t.cell: i for i, t in enumerate(tiles) if t.group == board and t.reading is not None}
    links = []
    for cell, i in placed.items():
        for d in range(3):
            j = placed.get(neighbour(cell, d))
            if j is not None:
                links.append((i, j, tiles[i].reading.colours[d] == tiles[j].reading.colours[opposite(d)]))
    agree: dict[int, list[bool]] = {i: [] for i in placed.values()}
    for i, j, ok in links:
        agree[i].append(ok)
        agree[j].append(ok)
    by_cell = {tiles[i].cell: tiles[i].reading for i in placed.values()}
    breaks = {i for i, oks in agree.items() if oks and 2 * sum(oks) < len(oks)}
    wrong = {i for i in breaks if _clearly_wrong(tiles[i], by_cell, cfg)}
    # one tile laid against the rule, read too clearly to be misread, says nothing of how well the rest was read
    # (on a board of four its two edges were half of all: the whole board was doubted, the violation unsaid);
    # many such tiles are a grid or colours misread, and count
    alone = wrong if len(wrong) == 1 else set()
    rest = [ok for i, j, ok in links if i not in alone and j not in alone]
    unsure = sum(tiles[i].reading.confidence < CONFIDENT for i in placed.values())
    doubtful = ((len(rest) >= 4 and sum(rest) < a.match_rate * len(rest)) or
                (len(placed) >= 4 and 2 * unsure > len(placed)))
    out = list(tiles)
    for i in agree:
        r = tiles[i].reading
        if doubtful or (i in breaks and i not in wrong):
            out[i] = replace(tiles[i], reading=replace(r, confidence=min(r.confidence, a.doubt)))
    return out, doubtful


def _clearly_wrong(t: Seen, by_cell: dict, cfg: Config) -> bool:
    """Whether a tile that breaks the golden rule was read too clearly to be a misreading: every reading of
    what the camera saw that would fit its neighbours is `misfit` nats less likely than the one read."""
    r = t.reading
    if r.confidence >= cfg.assemble.clear:
        return True
    if r.evidence is None or r.confidence < CONFIDENT:
        return False
    facing = [by_cell[n].colours[opposite(d)] if (n := neighbour(t.cell, d)) in by_cell else None for d in range(6)]
    return r.score - decode.best_fitting(r.evidence, facing) >= cfg.assemble.misfit


def _not_tiles(board: list[Seen], cfg: Config) -> bool:
    """A doubted board whose readings are mostly weak: shapes that looked like tiles but are not."""
    conf = [t.reading.confidence for t in board if t.reading is not None]
    return not conf or float(np.median(conf)) < cfg.assemble.not_tiles


def _missed_cells(board: list[Seen], tiles: list[Seen], maps: list[Maps], frame, cfg: Config,
                  photo: np.ndarray | None = None) -> tuple[list[Unread], dict[Cell, float]]:
    """Empty cells next to the board where no tile was found, but the network sees tile face (a tile is there
    that it could not make out, or that the frame cuts: a hole there would be a wrong board; read in the
    `photo`, it may show a back: then it is face down, with its `back`) or something over them (a hand may
    hide a tile there). A cell the photo's frame cuts is doubted whatever it shows: the board may go on
    beyond the frame, and a verdict on the part in view may be wrong (`CUT` when tile face shows in the part in
    view, else `EDGE`: nothing is seen there, which a live referee that saw every tile laid need not ask about).
    Also the share of each empty cell in view that the network sees covered, however little (`Detection.cover`)."""
    if not board or not maps:
        return [], {}
    taken = {t.cell for t in board}
    empty = sorted({neighbour(t.cell, d) for t in board for d in range(6)} - taken)
    shape = np.mean([t.hexagon.m for t in board], axis=0)
    ratio = layout.spacing(board)
    cells = []
    for cell, guess in zip(empty, layout.expected_all(board, empty, ratio), strict=True):
        if guess is not None:
            hx = Hexagon.of(guess[0], shape * (guess[1] / (math.sqrt(3) * math.sqrt(abs(np.linalg.det(shape))))))
            cells.append((cell, guess, hx))
    hexes = [hx for *_, hx in cells]
    # tile face where a tile was found is that tile's (one in a hand zone beside the cell), not one missed
    face, cover = shares(maps, hexes, "face", [t.hexagon for t in tiles]), shares(maps, hexes, "cover")
    visible = edges.in_frame(hexes, frame, 1.0)
    centres = np.array([t.centre for t in tiles])
    out, covered = [], {}
    for (cell, guess, hx), face_share, cover_share, in_view in zip(cells, face, cover, visible, strict=True):
        there = [tiles[i] for i in np.flatnonzero(np.hypot(*(centres - guess[0]).T) < 0.5 * guess[1])]
        if not there and in_view:
            covered[cell] = float(cover_share)
        reason = None
        if there:
            # a tile lies on the cell but not on the board's grid (turned too far to link, or a loose tile
            # laid right against the board): the board there is not known
            off = [t for t in there if t.group != board[0].group and t.colours is not None
                   and math.dist(guess[0], t.centre) < cfg.grid.off_grid * guess[1]]
            back = next((b for t in off if (b := t.colours.back(cfg.read)) is not None), None)
            if back is not None:  # a back's outline gives its turn poorly: it did not link, but lies on the cell
                out.append(Unread(tuple(map(float, guess[0])), FACE_DOWN, corners_px=polygon(hx.corners()),
                                  cell=cell, back=back))
                continue
            if off:
                reason = OFF_GRID
        elif not in_view:
            # the board may go on beyond the photo's edge: what lies there is not seen (a cut tile if its face shows)
            reason = CUT if face_share >= cfg.grid.missing_face else EDGE
        elif face_share >= cfg.grid.missing_face:
            reason = MISSED if edges.in_frame([hx], frame, cfg.read.cut_margin)[0] else CUT
            if reason == MISSED and photo is not None:
                # read beside the board's own tiles, so that its colours are judged as theirs are
                seen = edges.read(photo, [*board, Seen(hx, 0.0, 0.0, cell=cell)], cfg.read)[-1]
                back = seen.colours.back(cfg.read)
                if back is not None:
                    out.append(Unread(tuple(map(float, guess[0])), FACE_DOWN, corners_px=polygon(hx.corners()),
                                      cell=cell, back=back))
                    continue
        elif cover_share >= cfg.grid.covered_cell:
            reason = COVERED
        if reason:
            corners = polygon(hx.corners())
            out.append(Unread((float(guess[0][0]), float(guess[0][1])), reason, corners_px=corners, cell=cell))
    return out, covered


def _doubt_islands(tiles: list[SeenTile], cfg: Config) -> list[SeenTile]:
    """Board tiles cut off from the main group, doubted: a board is laid in one piece, so an island means
    unread cells between, across which the grid may have slipped by a cell."""
    if len(tiles) < 2:
        return tiles
    groups = Board(t.placement for t in tiles).groups()
    if len(groups) < 2:
        return tiles
    main = groups[0]
    return [t if t.placement.cell in main else replace(t, confidence=min(t.confidence, cfg.assemble.doubt))
            for t in tiles]

