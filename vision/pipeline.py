"""The detector: photo in, `Detection` out, through named stages that each take and return numpy data.

normalise colour -> find tiles -> fit the lattice -> read the edge colours -> decode tiles -> assemble.
Tiles are found on a downscaled copy; colours are sampled from the full-resolution image.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import cv2
import numpy as np

from tantrix_pi.board import Placement
from tantrix_pi.grid import DIRECTIONS, cells_at, centre, centres, corners, distance, neighbour, opposite, turn
from tantrix_pi.tiles import COLOURS
from tantrix_pi.vision import colour, decode, edges, lattice, segment
from tantrix_pi.vision.detection import CONFIDENT, Detection, SeenTile, Unread


@dataclass
class Found:
    """Result of `find_tiles`: the closed tile mask, its groups, and the tile size in the working image."""

    small: np.ndarray
    scale: float
    mask: np.ndarray
    labels: np.ndarray
    parts: list[segment.Part]
    tile_px: float
    theta: float
    cost: float
    """Share of the lattice's cells neither clearly full nor clearly empty (0 is a perfect fit)."""


@dataclass
class Group:
    """One group of touching tiles with its fitted lattice."""

    part: segment.Part
    lattice: lattice.Lattice


def _crop(a: np.ndarray, bbox: tuple[int, int, int, int], pad: int) -> tuple[np.ndarray, int, int]:
    x, y, w, h = bbox
    x0, y0 = max(0, x - pad), max(0, y - pad)
    return a[y0:y + h + pad, x0:x + w + pad], x0, y0


GOOD_FIT = 0.06
WIDTH_TOLERANCE = 0.05
MAX_CLOSING = 31
"""Widest closing tried (px, working image): wider ones cost too much time for what they rescue."""
"""Lattice cost (share of cells neither clearly full nor clearly empty) below which no other closing is tried."""


def _size_from(dark: np.ndarray, k: int, band: float) -> tuple | None:
    """Close the bands with a k-pixel closing; (cost, tile width, turn, mask, labels, parts) of the best
    hex lattice."""
    mask = segment.close_bands(dark, k)
    labels, found = segment.parts(mask, (max(dark.shape) / 200) ** 2)
    best = None
    # Each big group proposes widths from its edge period; the group whose outline fits a hex lattice best
    # sets the width (a row of loose tiles at odd angles fits none well); every group then refines it.
    for p in found[:3]:
        crop, x0, y0 = _crop((labels == p.label).astype(np.uint8), p.bbox, 4)
        xy, ang, wt = segment.boundary(crop)
        if len(xy) < 12:
            continue
        theta = lattice.orientation(ang, wt)
        box = (p.bbox[0] - x0, p.bbox[1] - y0, p.bbox[2], p.bbox[3])
        origin = (p.centroid[0] - x0, p.centroid[1] - y0)
        widths = lattice.spacing_candidates(xy, ang, theta, max(10.0, 3 * band), 1.2 * max(box[2], box[3]))[:4]
        costs = [lattice.best_offset(crop, theta, w, origin, box, steps=8)[1] for w in widths]
        if not widths:
            continue
        # A finer lattice always follows an outline a little better (a tilted board fits no similarity
        # perfectly): among nearly equal fits the widest wins.
        near = [(w, c) for w, c in zip(widths, costs, strict=True) if c <= min(costs) + WIDTH_TOLERANCE]
        w, cost = max(near)
        if cost > GOOD_FIT:
            w, cost = _refined_width(crop, xy, ang, theta, box, origin, w, cost, widths)
        # A lone tile fits any width: seen through a tilted camera its size may not be the board's.
        lone = best is not None and p.area < LONE_TILE_AREA * best[1] ** 2 and abs(w / best[1] - 1) > LONE_SPREAD
        if (best is None or cost < best[0]) and not lone:
            best = (cost, w, theta, mask, labels, found)
    return best


def _refined_width(crop, xy, ang, theta, box, origin, w, cost, widths) -> tuple[float, float]:
    """(width, cost): a much wider candidate replaces the chosen width when, both refined fully, it explains a
    big group's outline better.

    A similarity lattice of the right width drifts off a board seen tilted or through a wide lens, and then a
    finer lattice (more cells, the drift shared out among them) looks better; refined with affine and
    projective freedom, the right width explains the outline far better than any finer one. A small group
    is left alone: a few cells refined that freely fit almost any width.
    """
    wider = [c for c in widths if c > WIDER * w and crop.sum() >= REFINE_MIN_TILES * 0.87 * c * c][:2]
    if not wider:
        return w, cost
    own = lattice.fitted_cost(crop, lattice.fit(crop, xy, ang, theta, w, box, origin), box)
    refined = [(lattice.fitted_cost(crop, lattice.fit(crop, xy, ang, theta, c, box, origin), box), c) for c in wider]
    best_cost, best_w = min(refined)
    return (best_w, best_cost) if best_cost < own else (w, cost)


LONE_TILE_AREA = 1.3
"""A group smaller than this times the squared tile width (a hexagon is 0.87 of it: about one and a half tiles)
is a lone tile. A lone hexagon fits any width perfectly: it refines the width a bigger group measured (more
precisely than a board's outline does) but never replaces it by one LONE_SPREAD or more away."""
LONE_SPREAD = 0.08
"""The widths the lattice search tries around the measured one (0.92, 1, 1.08 of it) cover this much."""
REFINE_MIN_TILES = 8
"""A group must hold at least this many tiles of the wider width before that width is refined."""
WIDER = 1.3
"""Candidate widths at least this much wider than the chosen one are refined too when the fit is poor."""
SMALL_TILE = 28.0
"""Tiles narrower than this (px, working image) are found again at twice the resolution: the median filter and
opening of the dark mask erase the thin black between bands of tiles much smaller than this."""
POOR_FIT = 0.2
"""A lattice leaving this share of cells ambiguous is likely not the tiles at all: try twice the resolution."""


def find_tiles(image: np.ndarray) -> Found | None:
    """Stage 2: the tiles on a downscaled copy, or on a finer one when the tiles come out small there."""
    found = _find_tiles(image, segment.WORK_SIDE)
    if found is None or found.scale >= 1.0:
        return found
    if found.tile_px < SMALL_TILE:
        finer = _find_tiles(image, 2 * segment.WORK_SIDE, retry=False)
        return finer if finer is not None else found
    if found.cost > POOR_FIT:
        # Tiles a dozen pixels wide lose their black between the bands when halved: a poor fit may be
        # small tiles merged into one blob, which the finer copy separates.
        finer = _find_tiles(image, 2 * segment.WORK_SIDE)
        if finer is not None and finer.tile_px < SMALL_TILE * 2 and finer.cost < found.cost:
            return finer
    return found


def _find_tiles(image: np.ndarray, side: int, retry: bool = True) -> Found | None:
    """Stage 2: the tiles' mask on a downscaled copy, and the tile size from the period of hexagon edges.

    The closing that fills the bands is sized from the bands' width; when the lattice then fits poorly
    (bands blurred wider, glossy specks, wide painted arcs) a half and a double closing are tried too.
    """
    small, scale = segment.downscale(image, side)
    dark = segment.dark_mask(small)
    region = segment.outline_region(dark)
    if region is None:
        return None
    band = segment.band_width(dark, region[0])
    k = segment.closing_size(band)
    best = _size_from(dark, k, band)
    if retry and (best is None or best[0] > GOOD_FIT):
        for other in (max(3, (k // 2) | 1), min(2 * k + 1, MAX_CLOSING)):
            trial = _size_from(dark, other, band)
            if trial is not None and (best is None or trial[0] < best[0]):
                best = trial
    if best is None:
        return None
    cost, tile_px, theta, mask, labels, found = best
    if segment.closing_size(band, tile_px) > k:
        mask = segment.close_bands(dark, segment.closing_size(band, tile_px))
        labels, found = segment.parts(mask, 0.35 * tile_px * tile_px)
    else:
        found = [p for p in found if p.area >= 0.35 * tile_px * tile_px]
    return Found(small, scale, mask, labels, found, tile_px, theta, cost)


def fit_lattices(found: Found) -> list[Group]:
    """Stage 3: a lattice for every group of tiles (its own turn; loose tiles lie at any angle)."""
    groups = []
    pad = int(found.tile_px)
    for p in found.parts:
        pm_full = (found.labels == p.label).astype(np.uint8)
        crop, x0, y0 = _crop(pm_full, p.bbox, pad)
        xy, ang, wt = segment.boundary(crop)
        if len(xy) < 12:
            continue
        xy = xy + [x0, y0]
        theta = lattice.orientation(ang, wt)
        fitted = lattice.fit(pm_full, xy, ang, theta, found.tile_px, p.bbox, p.centroid)
        if fitted is not None:
            groups.append(Group(p, fitted))
    return groups


COVERED = 0.72
"""A cell at least this much covered by tile pixels holds a tile."""
PARTLY = 0.4
"""A cell covered between this and COVERED holds something tile-like that cannot be read as a tile."""
IN_FRAME = 0.999
ADAPT_MIN_TILES = 6


@dataclass
class Candidate:
    """A cell of some group that holds a tile, with its readings."""

    group: int
    cell: tuple[int, int]
    center_px: tuple[float, float]
    corners_px: tuple = ()


def _center(g: Group, cell, scale: float) -> tuple[float, float]:
    p = edges.to_full(g.lattice.to_image(centres(np.array([cell]))), scale)[0]
    return (float(p[0]), float(p[1]))


def _in_frame(corners, shape) -> bool:
    """Whether a hexagon (its corners pulled in by 8 %) lies wholly inside the image."""
    c = np.array(corners)
    c = c.mean(axis=0) + 0.92 * (c - c.mean(axis=0))
    h, w = shape[:2]
    return bool((c[:, 0] >= 0).all() and (c[:, 0] <= w - 1).all() and (c[:, 1] >= 0).all() and (c[:, 1] <= h - 1).all())


def _corners(g: Group, cell, scale: float) -> tuple:
    p = edges.to_full(g.lattice.to_image(np.array(corners(cell))), scale)
    return tuple((round(float(x), 1), round(float(y), 1)) for x, y in p)


def detect(image: np.ndarray, profile=None) -> Detection:
    """Read the board (and loose, face-down, unreadable tiles) in a BGR photo of the table.

    With a calibration profile (`calibration.Profile`) the photo is white-balanced, then rectified to a
    top view of the table (or only undistorted), and every position is reported in raw photo pixels.
    """
    image = _as_bgr(image)
    if profile is None:
        return _detect(image)
    t = time.perf_counter()
    view, to_raw = calibrated_view(image, profile)
    prepared = time.perf_counter() - t
    det = _detect(view)
    det.timings = {"calibration": prepared, **det.timings}
    return _in_raw_pixels(det, to_raw) if to_raw is not None else det


def calibrated_view(image: np.ndarray, profile):
    """The photo as the profile sees it best, and the map (N x 2 points) from that view back to the photo."""
    if getattr(profile, "colour", None) is not None:
        image = profile.white_balance(image)
    if getattr(profile, "table", None) is not None:
        return profile.rectify(image), profile.rectified_to_image
    camera = getattr(profile, "camera", None)
    if camera is not None:
        from tantrix_pi.calibration.profile import distort_pixels

        return profile.undistort(image), lambda pts: distort_pixels(pts, camera.matrix, camera.dist)
    return image, None


def _in_raw_pixels(det: Detection, to_raw) -> Detection:
    """The detection with every centre and corner mapped from the calibrated view to the raw photo."""
    def pt(p):
        x, y = to_raw(np.array([p], dtype=np.float64))[0]
        return (float(x), float(y))

    def poly(c):
        return tuple((round(float(x), 1), round(float(y), 1)) for x, y in to_raw(np.array(c))) if c else ()

    det.tiles = [replace(t, center_px=pt(t.center_px), corners_px=poly(t.corners_px)) for t in det.tiles]
    for name in ("unreadable", "loose", "face_down"):
        setattr(det, name, [replace(u, center_px=pt(u.center_px), corners_px=poly(u.corners_px))
                            for u in getattr(det, name)])
    return det


def _detect(image: np.ndarray) -> Detection:
    timings: dict[str, float] = {}
    t = time.perf_counter()
    found = find_tiles(image)
    timings["find_tiles"] = time.perf_counter() - t
    det = Detection(timings=timings)
    if found is None:
        return det
    t = time.perf_counter()
    groups = fit_lattices(found)
    timings["fit_lattice"] = time.perf_counter() - t

    t = time.perf_counter()
    scale = found.scale
    cands: list[Candidate] = []
    for gi, g in enumerate(groups):
        for cell, f in sorted(g.lattice.coverage.items()):
            if f < PARTLY * g.lattice.inside[cell]:
                continue
            where, corners = _center(g, cell, scale), _corners(g, cell, scale)
            inside = g.lattice.inside[cell]
            if inside < IN_FRAME or not _in_frame(corners, image.shape):
                # judged on the part in view: a tile half out of the frame is still a tile
                if inside >= 0.25 and f / inside >= COVERED:
                    det.unreadable.append(Unread(where, "cut by the frame edge", corners_px=corners))
                continue
            if f < COVERED:
                det.unreadable.append(Unread(where, "partly hidden or off the grid", corners_px=corners))
                continue
            cands.append(Candidate(gi, cell, where, corners))
    windows, faces = [], []
    for gi, g in enumerate(groups):
        cells = [c.cell for c in cands if c.group == gi]
        if cells:
            w, f = edges.read(image, g.lattice.H, cells, scale)
            windows.append(w)
            faces.append(f)
    timings["read_edges"] = time.perf_counter() - t
    if not cands:
        return det

    t = time.perf_counter()
    windows = np.concatenate(windows)
    faces = np.concatenate(faces)
    gains = colour.white_balance(edges.black_samples(faces))
    hue, chroma = edges.edge_readings(windows, gains)
    face, ring = edges.face_chroma(faces, gains)
    timings["normalise_colour"] = time.perf_counter() - t

    t = time.perf_counter()
    ref = float(np.percentile(chroma, 75))
    coloured = np.clip(chroma / max(0.35 * ref, 1e-6), 0, 1)
    bands = (coloured > 0.5).sum(axis=1)
    face_up = bands >= 4
    model = colour.ColourModel()
    readings: list = [None] * len(cands)
    idx = np.nonzero(face_up)[0]
    # The colours' hues are learnt from the photo only when enough tiles vouch for them: with one or two
    # tiles a first misreading would teach the model its own mistake.
    for _ in range(2 if len(idx) >= ADAPT_MIN_TILES else 1):
        lp = model.log_probs(hue[idx]) * coloured[idx][..., None]
        got = decode.decode(lp)
        for i, r in zip(idx, got, strict=True):
            readings[i] = r
        labels = np.array([[COLOURS.index(c) for c in r.colours] if r else [-1] * 6 for r in got]).reshape(-1, 6)
        conf = np.array([r.confidence if r else 0.0 for r in got])
        model = model.adapted(hue[idx].ravel(), labels.ravel(), (conf[:, None] * coloured[idx]).ravel())
    timings["decode"] = time.perf_counter() - t

    t = time.perf_counter()
    board_group = _board_group(cands, readings, len(groups), image.shape)
    _join_split_board(groups, cands, readings, board_group)
    skip: set[int] = set()
    if _doubt_unmatched(cands, readings, board_group):
        on = [i for i, c in enumerate(cands) if c.group == board_group and readings[i] is not None]
        if np.median([readings[i].confidence for i in on]) < NOT_TILES:
            # Tile-like cells whose readings contradict each other and themselves: a dark patterned table
            # or shadow, not a board. Said once, not as dozens of made-up tiles.
            where = tuple(float(v) for v in np.mean([cands[i].center_px for i in on], axis=0))
            det.unreadable.append(Unread(where, f"{len(on)} tile-like cells that do not read as Tantrix tiles"))
            skip = set(on)
    for i, c in enumerate(cands):
        if i in skip:
            continue
        r = readings[i]
        on_board = c.group == board_group
        ring_bands = (ring[i] > 0.35 * ref).mean()
        if bands[i] == 0 and face[i] <= 0.35 * ref and ring_bands == 0:
            continue  # dark and colourless: a shadow or the dark part of the table, not a tile
        if not face_up[i] and bands[i] <= 2 and face[i] > 0.35 * ref and ring_bands < 0.2:
            det.face_down.append(Unread(c.center_px, "face down" if on_board else "face down, apart from the board",
                                        corners_px=c.corners_px))
        elif not on_board:
            tile = r.tile if r is not None and r.confidence >= CONFIDENT else None
            det.loose.append(Unread(c.center_px, "loose tile apart from the board" if tile else
                                    "loose tile apart from the board, not read", tile, c.corners_px))
        elif not face_up[i]:
            det.unreadable.append(Unread(c.center_px, "too few coloured bands seen (glare, shadow or covered)",
                                         corners_px=c.corners_px))
        elif r is None:
            det.unreadable.append(Unread(c.center_px, "more tiles than the 56 of a set", corners_px=c.corners_px))
        else:
            det.tiles.append(SeenTile(Placement(r.tile, c.cell[0], c.cell[1], r.rot), c.center_px, r.confidence,
                                      c.corners_px))
    _doubt_islands(det)
    if board_group >= 0:
        det.tile_px = groups[board_group].lattice.tile_px() / scale
    timings["assemble"] = time.perf_counter() - t
    return det


MATCH_RATE = 0.6
"""Share of touching edges whose colours must agree before a board's reading is trusted at all."""
DOUBT = 0.5
"""Confidence left to tiles whose reading the board's colours contradict."""
CLEAR = 0.95
"""A reading at least this confident stands even against its neighbours' colours."""
NOT_TILES = 0.3
"""A doubted board whose median confidence is below this is not reported as tiles at all."""


def _doubt_unmatched(cands: list[Candidate], readings: list, board_group: int) -> bool:
    """Lower the confidence of readings the golden rule contradicts, in place; True when the whole board
    is in doubt.

    A board is laid colour to colour: when most touching edges disagree the lattice or the colours were
    misread, so no tile of it is trusted; a tile that disagrees with most of its neighbours is doubted alone
    unless its own colours read cleanly (then it is a real mistake on the table, a violation to report).
    """
    placed = {c.cell: i for i, c in enumerate(cands) if c.group == board_group and readings[i] is not None}
    agree: dict[int, list[bool]] = {i: [] for i in placed.values()}
    for cell, i in placed.items():
        for d in range(3):
            j = placed.get(neighbour(cell, d))
            if j is not None:
                ok = readings[i].colours[d] == readings[j].colours[opposite(d)]
                agree[i].append(ok)
                agree[j].append(ok)
    pairs = sum(len(v) for v in agree.values()) // 2
    matched = sum(sum(v) for v in agree.values()) // 2
    unsure = sum(readings[i].confidence < CONFIDENT for i in placed.values())
    # most touching colours disagree, or most tiles unreadable: the lattice itself is likely wrong
    board_doubtful = (pairs >= 4 and matched < MATCH_RATE * pairs) or (len(placed) >= 4 and 2 * unsure > len(placed))
    for i, oks in agree.items():
        if board_doubtful or (oks and 2 * sum(oks) < len(oks) and readings[i].confidence < CLEAR):
            readings[i] = replace(readings[i], confidence=min(readings[i].confidence, DOUBT))
    return board_doubtful


JOIN_OFF = 0.2
"""Largest distance (in tile circumradii) of a group's cell nearest the board from the board's lattice for it to
join."""
JOIN_TURN = math.radians(8)
JOIN_GAP = 2
"""A group joins the board only across a gap of at most one cell (glare or a hand's shadow splitting it)."""


def _join_split_board(groups: list[Group], cands: list[Candidate], readings: list, board: int) -> None:
    """Move the cells of groups that lie on the board's own lattice, one cell away, onto the board, in place.

    Glare washing out a row of tiles, or an arm across the board, splits the tile mask in two; the far part
    is then a group of its own with its own lattice. When that lattice is the board's continued (cells on
    the board's cell centres, turned by a whole number of sixths), its tiles are board tiles: their cells
    and turns are carried over into the board's grid. They stay islands, so `_doubt_islands` doubts them.
    """
    if board < 0:
        return
    inv = np.linalg.inv(groups[board].lattice.H)
    board_cells = [c.cell for c in cands if c.group == board]
    if not board_cells:
        return
    step = [np.array(centre(d)) for d in DIRECTIONS]
    for gi, g in enumerate(groups):
        mine = [i for i, c in enumerate(cands) if c.group == gi]
        if gi == board or not mine:
            continue
        cells = np.array([cands[i].cell for i in mine])
        grid = lattice.apply(inv, g.lattice.to_image(centres(cells)))
        moved = cells_at(grid)
        # The board's lattice is trusted only next to the board (a projective fit drifts beyond it): the
        # group's cell nearest the board anchors it, the group's own lattice places the rest.
        j = int(np.argmin([min(distance(tuple(m), b) for b in board_cells) for m in moved]))
        if np.linalg.norm(grid[j] - centres(moved[j:j + 1])[0]) > JOIN_OFF:
            continue
        # the group's direction 0 seen in the board's grid: which board direction is it?
        a = lattice.apply(inv, g.lattice.to_image(centres(np.vstack([cells[j], cells[j] + DIRECTIONS[0]]))))
        v = a[1] - a[0]
        turns = [abs(math.remainder(math.atan2(v[1], v[0]) - math.atan2(s[1], s[0]), 2 * math.pi)) for s in step]
        k = int(np.argmin(turns))
        if turns[k] > JOIN_TURN:
            continue
        anchor, base = tuple(int(x) for x in moved[j]), tuple(int(x) for x in cells[j])
        new = [tuple(a + b for a, b in zip(anchor, turn((c[0] - base[0], c[1] - base[1]), k), strict=True))
               for c in (tuple(int(x) for x in c) for c in cells)]
        taken = set(board_cells)
        if taken & set(new) or min(distance(a, b) for a in new for b in board_cells) > JOIN_GAP:
            continue
        for i, cell in zip(mine, new, strict=True):
            cands[i] = replace(cands[i], group=board, cell=cell)
            r = readings[i]
            if r is not None:
                readings[i] = replace(r, rot=(r.rot + k) % 6, colours=r.colours[6 - k:] + r.colours[:6 - k])
        board_cells += new


def _doubt_islands(det: Detection) -> None:
    """Doubt board tiles cut off from the main group, in place: a board is laid in one piece, so an island
    means unread cells between, across which the grid may have slipped by a cell."""
    if len(det.tiles) < 2:
        return
    groups = det.board.groups()
    if len(groups) < 2:
        return
    main = groups[0]
    det.tiles = [t if t.placement.cell in main else replace(t, confidence=min(t.confidence, DOUBT))
                 for t in det.tiles]


def _board_group(cands: list[Candidate], readings: list, n_groups: int, shape) -> int:
    """The group that is the board: touching edges whose colours match count most, then its tiles, less
    for lying far from the middle of the photo (the camera looks at the board, hands lie at the side).

    A player's row of loose tiles may have as many tiles as a young board, but its neighbours' colours meet
    only by chance.
    """
    middle = np.array([shape[1] / 2, shape[0] / 2])
    best, best_key = -1, None
    for gi in range(n_groups):
        placed = {c.cell: r for c, r in zip(cands, readings, strict=True) if c.group == gi and r is not None}
        if not placed:
            continue
        matched = 0
        for (q, r), reading in placed.items():
            for d in range(3):
                other = placed.get(neighbour((q, r), d))
                if other is not None and reading.colours[d] == other.colours[opposite(d)]:
                    matched += 1
        spot = np.mean([c.center_px for c in cands if c.group == gi], axis=0)
        off_centre = float(np.linalg.norm(spot - middle) / np.linalg.norm(middle))
        key = (matched + 0.25 * len(placed) - 3.0 * off_centre, len(placed))
        if best_key is None or key > best_key:
            best, best_key = gi, key
    return best


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(image)
