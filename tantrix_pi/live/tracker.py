"""From still detections to committed boards and the changes between them.

Each still frame's detection is registered onto the last committed board (the whole board may have been
pushed or turned: that is re-registered, never an event). Readings of every cell are accumulated as
confidence-weighted votes while the table stays still, so one wrong reading is outvoted, not announced.
A board is committed when `stable_frames` consecutive detections show the same occupied cells and every
cell's reading is sure; a cell that stays unsure is reported and the tracker waits.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from operator import attrgetter

import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import Cell, cell_at, centre, distance, neighbour, turn
from tantrix_pi.vision.detection import CONFIDENT, COVERED, EDGE, FACE_DOWN, GLARE, REASON_CODES, Detection, Doubt

Transform = tuple[int, int, int]
"""(k, dq, dr): turn the detector's grid k sixths clockwise, then move it by (dq, dr)."""

IDENTITY: Transform = (0, 0, 0)

REMOVAL_EXTRA = 2
"""Extra agreeing frames needed before tiles that vanished count as removed."""

OCCLUSION_FACTOR, OCCLUSION_MARGIN = 2.0, 3.0
"""Tiles that vanished count as removed only while the picture changed by at most FACTOR tile areas per
changed cell plus MARGIN (a hand's shadow, the player's sleeve); more is something lying over the board."""

OCCLUSION_REACH = 1.5
"""How far from the committed tiles' centres, in tile widths, a change of the picture counts towards that: the board
and the cells next to it. A hand resting at the frame's edge beside the board, coming or going, is not over it."""

TURN_SEEN, TURN_REACH = 0.25, 0.35
"""Share of a tile's picture, within REACH tile widths of its centre, that must differ from the table as committed
for a tile read another way, with no motion seen in between, to count as turned by a hand too quick for the camera
(its arcs moved), not as a misread put right (the same picture read better)."""

OCCLUSION_PATIENCE = 30
"""Still detections the tracker waits for an occluder to go before it believes what it reads anyway, when no
tile has gone (a thing left beside the board: a cup, a score pad); and how long a
vanished tile is held back when nothing but a change over its neighbours says it is hidden (HAND_BESIDE: taking it
away may have nudged them)."""

BOARD_MOVED = 0.06
"""Median shift, in tile widths, of the tiles read both in the table as committed and in a frame, beyond which the
board lies elsewhere in the picture: pushed across the table, or the camera knocked. Comparing the two pictures then
measures the shift, not what was laid, hidden or turned, so the tracker is told nothing of them until the table is
committed again (else a board pushed as a tile was laid counted as a hand over it: nothing committed for
OCCLUSION_PATIENCE detections). The same tiles read in still frames of a steady camera, the sensor's grain alone
changing, shift by 0.002-0.01 of their width (median; at most 0.017, simulator: wood, checks, dark wood under a warm
lamp); a board turned a degree about its middle moves tiles three widths out by 0.05."""

KEPT_PLACE = 0.5
"""A tile whose centre lies within this share of a tile's width of where it lay in the table as committed kept its
place on the table. Of two ways of laying a frame's grid onto the committed board that place equally many tiles,
the one that lays such tiles as they lay is taken, then the one that keeps them on their cells (`register`): on a board
of two tiles, one of them moved, the picture shows which one (the detector numbers its cells from where the tiles now
lie, so the grid alone cannot tell)."""

HAND_BESIDE = 0.02
"""Share of a committed tile's picture, within TURN_REACH tile widths of its centre, that must differ from the table
as committed, while the tile still reads as committed, for something to lie over it. Next to a tile that vanished,
that thing may be hiding it (the fingers of a hand resting on the board, which the network hardly marks as cover), so
the tile is not taken as removed. Measured on the simulator: a tile that stayed put changes at most 0.6 %, one under
resting fingers 5-70 %, the neighbours of a tile taken away 0 %."""

HAND_OVER_GONE = 0.02
"""Share of a vanished tile's cell that the network must see something lie over (`Detection.cover`) for the tile to
be taken as hidden, not removed, for as long as that lasts. Fingers resting over a tile hide it from the detector
though the network marks little of its cell: 2-7 % on the simulator's black table (a brown hand over black), most
hands far more. The cell of a tile taken away shows bare table: at most 0.4 % in 21 tiles moved or taken off over
20 simulated games on 11 tables."""

JUDGED_REACH = 2
"""How far (cells) from a tile the rules look when judging it: its neighbours' colours, and the spaces next to it
with their own neighbours (a forced space, a controlled side). A tile laid that near a cell the detector cannot read
waits for it: judged without it, it may be called illegal for a space that is no space."""

LAID_SEEN = 0.02
"""Share of an empty cell's picture, within TURN_REACH tile widths of its centre, that must differ from the table as
committed for the detector's doubt there (a tile it cannot make out) to be about something laid. Where nothing
changed, the doubt is about the table itself, there before the board reached it: a pen circle on paper that the
detector takes for a tile in glare beside small tiles. Judged when the cell is first doubted after a commit and kept
until the next one: the table as committed is refreshed meanwhile, with the doubted tile in view. A tile laid changes
its cell's picture far more (a tile turned in place, the least change a hand makes: 42 % at 60 px). Likewise a
committed tile read badly whose picture changed less than this was misread: nothing is asked about it."""


@dataclass(frozen=True)
class Change:
    """One difference between two committed boards: placed, removed, turned, moved or corrected."""

    kind: str
    before: Placement | None
    after: Placement | None

    def __str__(self) -> str:
        if self.kind == "placed":
            return f"tile {self.after.tile} placed at {self.after.cell}"
        if self.kind == "removed":
            return f"tile {self.before.tile} removed from {self.before.cell}"
        if self.kind == "moved":
            return f"tile {self.after.tile} moved from {self.before.cell} to {self.after.cell}"
        if self.kind == "turned":
            return f"tile {self.after.tile} at {self.after.cell} turned to {self.after.rot}"
        return f"the tile at {self.after.cell} is tile {self.after.tile} turn {self.after.rot}, not " \
               f"tile {self.before.tile} turn {self.before.rot}"


@dataclass
class Commit:
    """A new committed board and what changed since the last one."""

    board: Board
    changes: list[Change]
    partial: bool = False
    """Only tiles laid clear of something that hides committed ones: the picture is not the committed table."""
    laid_at: dict[Cell, int] = field(default_factory=dict)
    """The cells of tiles new to the table, with the still detection (`Tracker.stills`) each was first seen in, when
    they came in different ones (say while another could not be read); else empty: the order is not known."""

    @property
    def laid_order(self) -> tuple[Cell, ...]:
        """The cells of `laid_at` in the order they were first seen laid."""
        return tuple(sorted(self.laid_at, key=self.laid_at.__getitem__))


@dataclass(slots=True)
class Tally:
    """One reading of a cell while the table stays still: what was read, its summed confidence, in how many frames."""

    placement: Placement
    weight: float = 0.0
    reads: int = 0


@dataclass
class Unclear:
    """Cells the detector cannot read with confidence: say so and wait. `where` holds image positions
    of unreadable things that could not be put on a cell."""

    cells: list[Cell]
    where: list[tuple[float, float]] = field(default_factory=list)
    why: dict[Cell, str] = field(default_factory=dict)
    """The detector's reason (its code, `vision.detection.REASON_CODES`: "glare", "face_down", ...) for each cell it
    could not read at all; a cell read, but not surely enough, has none."""


def register(reference: Board, seen: list[Placement], kept: Collection[int] = ()) -> Transform:
    """The turn and move of the grid that lays `seen` best onto `reference` (same tile, cell and turn); of equally
    good ones, the one that lays most of the tiles that `kept` their place (KEPT_PLACE) as they lay, then on their
    cells (one of them turned in place), then none."""
    if not len(reference) or not seen:
        return IDENTITY
    known = [s for s in seen if reference.cell_of(s.tile) is not None]
    if known and all(reference.get(s.cell) == s for s in known):
        return IDENTITY  # every tile read where it was (most frames): no other transform can get more votes
    votes: Counter[Transform] = Counter()
    for s in seen:
        cell = reference.cell_of(s.tile)
        if cell is None:
            continue
        r = reference[cell]
        k = (r.rot - s.rot) % 6
        q, rr = turn(s.cell, k)
        votes[(k, r.q - q, r.r - rr)] += 1
    if not votes and len(seen) * len(reference) <= 400:
        # No tile read the same as before: lay the shapes onto each other instead (occupied cells only).
        ref_cells = reference.cells
        for s in seen:
            for r in reference:
                for k in range(6):
                    q, rr = turn(s.cell, k)
                    t = (k, r.q - q, r.r - rr)
                    if t not in votes:
                        votes[t] = sum(apply_cell(t, x.cell) in ref_cells for x in seen)
    if not votes:
        return IDENTITY
    stayed = [s for s in seen if s.tile in kept]

    def anchored(t: Transform) -> tuple[int, int]:
        laid = [apply(t, s) for s in stayed]
        return sum(p == reference.get(p.cell) for p in laid), sum(p.cell == reference.cell_of(p.tile) for p in laid)

    return max(votes, key=lambda t: (votes[t], anchored(t), t == IDENTITY))


def apply_cell(t: Transform, cell: Cell) -> Cell:
    """A detected cell in the committed board's coordinates."""
    q, r = turn(cell, t[0])
    return (q + t[1], r + t[2])


def apply(t: Transform, p: Placement) -> Placement:
    """A detected placement in the committed board's coordinates."""
    return p if t == IDENTITY else p.transformed(t[0], t[1], t[2])


def unreadable_cells(det: Detection, t: Transform, committed: Board) -> tuple[dict[Cell, str],
                                                                             list[tuple[float, float]],
                                                                             list[Cell], list[Cell]]:
    """What the detector doubts on or next to the board, in committed coordinates: the cells it could not
    read (unreadable, face down) with its reason (`Unclear.why`), image positions of those it could not place when
    too few tiles were read to say, the cells something lies over (a hand), and the cells of the `committed` board
    beyond the frame's edge (`EDGE`: nothing of them is seen). Junk further out on the table is not the board's
    business, nor an empty cell beyond the frame's edge. The detector gives the cell; without one it is found through
    the pixel positions of the tiles that were read."""
    doubts = [d for d in det.doubts() if d.kind != "unsure"]  # unsure readings are weighed by the votes
    covered = sorted({apply_cell(t, d.cell) for d in doubts if d.detail == COVERED and d.cell is not None})
    # beyond the frame edge nothing is seen: the game there is the one the referee watched being laid
    edge = {apply_cell(t, d.cell) for d in doubts if d.detail == EDGE and d.cell is not None}
    beyond = sorted(edge & committed.cells)
    doubts = [d for d in doubts if d.detail != COVERED and not (d.detail == EDGE and d.cell is not None)]
    why = [(apply_cell(t, d.cell), reason(d)) for d in doubts if d.cell is not None]
    points = [(d.center_px, reason(d)) for d in doubts if d.cell is None]
    if points and len(det.tiles) < 3:
        return _by_cell(why), [xy for xy, _why in points], covered, beyond
    if points:
        px = np.array([[*t_.center_px, 1.0] for t_ in det.tiles])
        grid = np.array([centre(t_.placement.cell) for t_ in det.tiles])
        affine, *_ = np.linalg.lstsq(px, grid, rcond=None)
        for (x, y), r in points:
            gx, gy = np.array([x, y, 1.0]) @ affine
            why.append((apply_cell(t, cell_at(float(gx), float(gy))), r))
    return _by_cell(why), [], covered, beyond


def reason(d: Doubt) -> str:
    """Why the detector could not read a tile (`REASON_CODES`; "" when it does not say)."""
    return REASON_CODES.get(FACE_DOWN if d.kind == "face down" else d.detail, "")


def _by_cell(why: list[tuple[Cell, str]]) -> dict[Cell, str]:
    """Each cell once, in order, with the first reason given for it."""
    out: dict[Cell, str] = {}
    for cell, r in sorted(why, key=lambda cw: cw[0]):
        if not out.get(cell):
            out[cell] = r
    return out


class Tracker:
    """Turns detections of still frames into commits; `motion()` marks a frame where something moved."""

    def __init__(self, board: Board | None = None, stable_frames: int = 2, min_confidence: float = CONFIDENT) -> None:
        self.committed = board.copy() if board is not None else Board()
        self.stable_frames = stable_frames
        self.min_confidence = min_confidence
        self.moved_since_commit = False
        self.transform: Transform = IDENTITY
        self._reset_window()
        self.announced_unsure: tuple = ()
        self.occluded = 0
        self.held_beside = 0
        """Still detections in which only a change over its neighbours held a vanished tile back."""
        self.latest: dict[Cell, Placement] = {}
        """What the latest detection read, by cell, in committed coordinates (motion does not clear it)."""
        self.doubt_laid: dict[Cell, bool] = {}
        """Empty cells doubted since the last commit: whether their picture had changed when first doubted
        (LAID_SEEN)."""
        self.laid_seen: dict[Cell, tuple[tuple[float, float], str]] = {}
        """Empty cells where a tile was seen laid since the last commit (read, however unsurely, or doubted, where
        the picture had changed: LAID_SEEN), with where it lies in the image and the detector's reason when it could
        not read it: the tile lies there, seen or not, while the picture there differs from the table as committed
        (under glare the detector may read a tile badly, then miss it altogether, and the cell would pass for a hole
        beside the tiles laid next). Forgotten at the next commit."""
        self.stills = 0
        """Still detections taken so far."""
        self.dazzled: set[Cell] = set()
        """Committed cells read another way in or next to glare, held as committed (`observe`)."""
        self.glared: set[Cell] = set()
        """Committed cells whose tile glare washed out: held as committed, read or not, until a commit reads it as
        committed again (under a glare spot a tile is doubted in one frame, missed or misread in the next)."""
        self.glare_told: set[Cell] = set()
        """The cells of `glared` the players were told of."""
        self.first_seen: dict[Cell, int] = {}
        """Cells the committed board leaves empty where something is seen (read or doubted), with the still detection
        it was first seen in; forgotten when nothing is seen there any more."""

    def _reset_window(self) -> None:
        self.readings: dict[Cell, dict[tuple[int, int], Tally]] = defaultdict(dict)
        """Each cell's readings by (tile, turn), in committed coordinates."""
        self.seen_frames: Counter[Cell] = Counter()
        self.streak = 0
        self.last_cells: frozenset[Cell] | None = None

    @property
    def pending(self) -> frozenset[Cell]:
        """Cells the latest detection read a tile on that the committed board does not hold, or holds another way (a
        tile turned in place): laid, not committed yet (or read too unsurely to be)."""
        out = set()
        for cell in self.latest:
            held, leading = self.committed.get(cell), self._leading(cell)
            if held is None or (leading is not None and leading.placement != held and cell not in self.dazzled):
                out.add(cell)
        return frozenset(out)

    @property
    def waiting_on_laid(self) -> bool:
        """It said it cannot read a tile laid where the committed board has none, and waits for it."""
        cells, where = self.announced_unsure or ((), ())
        return bool(where) or any(c not in self.committed.cells for c in cells)

    @property
    def as_committed(self) -> bool:
        """The latest detection read the committed board and nothing else, every tile turned as committed (no tile
        hidden, none laid)."""
        return self.latest == self.committed.occupied and not self.laid_seen

    def _leading(self, cell: Cell) -> Tally | None:
        """The reading of `cell` with the most votes since the table last moved (the first read, of equals)."""
        tallies = self.readings.get(cell)
        return max(tallies.values(), key=attrgetter("weight")) if tallies else None

    def motion(self) -> None:
        """Something moved over the table: the readings gathered so far no longer describe it."""
        self.moved_since_commit = True
        self._reset_window()

    def observe(self, det: Detection, changed_tiles: float | None = None,
                changed_at: Callable[[tuple[float, float]], float] | None = None,
                kept: Collection[int] = ()) -> Commit | Unclear | None:
        """Take one still frame's detection; a Commit when the board is settled and changed, Unclear when
        it is settled but some tile cannot be read, else None.

        `changed_tiles`: how many tiles' worth of the picture differ from the last committed table (None:
        unknown). When far more of the picture changed than the changed cells explain, something (a hand,
        an arm) rests over the board: nothing is committed or reported for up to OCCLUSION_PATIENCE frames; while it
        hides committed tiles, for as long as it stays, but tiles laid clear of it are committed.
        `changed_at(point)`: the share of the picture within TURN_REACH tile widths of that image point that differs
        from the table as last committed (None: unknown); a tile read another way where it changed was turned.
        `kept`: the tiles that lie where they lay in the table as committed (KEPT_PLACE).
        """
        seen = [t.placement for t in det.tiles]
        self.transform = register(self.committed, seen, kept)
        if changed_at is not None and self._turned_unseen(det, changed_at):
            # a hand too quick for the camera turned a tile: what was read of the table before says nothing now
            # (its old reading, still leading the votes, held the turn back until the next move)
            self.motion()
        readings, seen_frames = self.readings, self.seen_frames
        self.latest, centres = {}, {}
        for st in det.tiles:
            p = apply(self.transform, st.placement)
            cell = p.cell
            self.latest[cell], centres[cell] = p, st.center_px
            seen_frames[cell] += 1
            key = (p.tile, p.rot)
            tally = readings[cell].get(key)
            if tally is None:
                tally = readings[cell][key] = Tally(p)
            tally.weight += st.confidence
            tally.reads += 1
        cells = frozenset(self.latest)
        self._stamp(cells | set(self.laid_seen) | {apply_cell(self.transform, d.cell) for d in det.doubts()
                                                     if d.cell is not None})
        self.streak = self.streak + 1 if cells == self.last_cells else 1
        self.last_cells = cells
        if self.streak < self.stable_frames:
            return None
        gone = self.committed.cells - cells
        explained = OCCLUSION_FACTOR * (len(gone) + len(cells - self.committed.cells)) + OCCLUSION_MARGIN
        overlaid = changed_tiles is not None and changed_tiles > explained
        why, bad_px, covered, beyond = unreadable_cells(det, self.transform, self.committed)
        table = self._table_doubts(det, changed_at)
        why = {**self._laid_unseen(centres, changed_at), **why}
        bad_cells = sorted(c for c in why if c not in table)
        # a tile the referee holds beyond the frame's edge, or on a cell a little of a hand lies over, is not gone
        # (the camera or the board moved; fingers hide it), unless it is read in another cell: it was moved from there
        read_now = {p.tile for p in self.latest.values()}
        hideable = {c for c in gone if self.committed[c].tile not in read_now}
        unseen = hideable & set(beyond)
        # nor is one that glare washes out (a lamp switched on or moved): a light does not move tiles. It is said
        # once, held as committed, and the game goes on around it
        glare = {c for c, r in why.items() if r == REASON_CODES[GLARE]}
        self.glared |= glare & self.committed.cells
        unseen |= hideable & self.glared
        bad_cells = [c for c in bad_cells if c not in self.glared]
        gone -= unseen
        under_hand = (hideable - unseen) & {apply_cell(self.transform, c) for c, share in det.cover.items()
                                            if share >= HAND_OVER_GONE}
        # a hand hiding a tile lies over its cell or the cells next to it; cover further off (pen strokes on paper
        # beside the board) hides none of the tiles gone, which were moved or taken off
        hidden = any(distance(c, g) <= 1 for c in covered for g in gone)
        beside = bool(gone) and self.held_beside < OCCLUSION_PATIENCE and self._hand_beside(centres, gone, changed_at)
        if gone and (overlaid or hidden or under_hand or beside):
            if not (overlaid or hidden or under_hand):
                self.held_beside += 1
            # something lies over the board (a hand resting on it): the tiles under it are not gone, and what it
            # hides is not a question to ask, for as long as it stays (a hand over the whole board hides every
            # tile, and their doubts with them). Tiles laid clear of it meanwhile are the players' moves
            self.occluded += 1
            return self._commit_laid(cells, bad_cells, bad_px)
        if gone and self.streak < self.stable_frames + REMOVAL_EXTRA:
            # tiles gone: a hand resting still could hide them, so wait longer before believing it
            return self._commit_laid(cells, bad_cells, bad_px)
        if self.occluded < OCCLUSION_PATIENCE and (overlaid or (covered and changed_tiles is None)):
            # after a long while, a thing left beside the board is ignored. With no tile gone and the picture no
            # more changed than the tiles laid explain, nothing new lies there: the cover is the detector's alone
            # (a dark table's grain under a warm lamp), and waiting on it would hold back every placement meanwhile
            self.occluded += 1
            return None
        self.occluded = self.held_beside = 0
        told = sorted(self.glared - self.glare_told)
        if told:
            self.glare_told |= set(told)
            return Unclear(told, [], dict.fromkeys(told, REASON_CODES[GLARE]))
        best, unsure = self._decide(cells)
        quiet = {c for c in unsure if c in self.committed.cells and self._nothing_to_ask(c, centres, changed_at)}
        # a tile the referee holds, read another way in or next to glare, is misread in the glare (found: a tile at a
        # spot's edge read surely as another, taken off and that one laid in its place): a light does not move tiles
        self.dazzled = {c for c, p in best.items() if self.committed.get(c) not in (None, p)
                        and any(distance(c, g) <= 1 for g in glare | self.glared)}
        quiet |= self.dazzled
        best.update((c, self.committed[c]) for c in quiet)
        unsure = sorted((set(unsure) - quiet) | set(bad_cells))
        if (unsure or bad_px) and gone:
            return None  # tiles vanished and others read badly: a hand over the board, not a question to ask
        if unsure or bad_px:
            key = (tuple(unsure), tuple(bad_px))
            if key == self.announced_unsure:
                return None
            self.announced_unsure = key
            return Unclear(unsure, bad_px, {c: why[c] for c in bad_cells if why[c]})
        self.announced_unsure = ()
        best.update((c, self.committed[c]) for c in unseen)
        if best == self.committed.occupied:
            return None
        self.doubt_laid.clear()
        self.laid_seen.clear()
        clear = {c for c in self.glared if self.latest.get(c) == self.committed.get(c)}
        self.glared -= clear
        self.glare_told -= clear
        return self._commit(Board(best.values()), self._touched(centres, best, changed_at))

    def _stamp(self, seen: set[Cell] | frozenset[Cell]) -> None:
        """Note when something was first seen on each empty cell (`first_seen`)."""
        self.stills += 1
        self.first_seen = {c: self.first_seen.get(c, self.stills) for c in seen if c not in self.committed.cells}

    def _table_doubts(self, det: Detection, changed_at: Callable[[tuple[float, float]], float] | None) -> set[Cell]:
        """Empty cells the detector cannot read whose picture had not changed since the table was committed when they
        were first doubted (LAID_SEEN): the table itself, not a tile laid. No cell while the table as committed is
        unknown. (A cell covered or beyond the frame's edge is another question.)"""
        if changed_at is None:
            return set()
        for d in det.doubts():
            if d.cell is None or d.kind == "unsure" or d.detail in (COVERED, EDGE):
                continue
            cell = apply_cell(self.transform, d.cell)
            if cell not in self.committed.cells and cell not in self.doubt_laid:
                self.doubt_laid[cell] = changed_at(d.center_px) >= LAID_SEEN
                if self.doubt_laid[cell]:
                    self.laid_seen[cell] = (d.center_px, reason(d))
        return {c for c, laid in self.doubt_laid.items() if not laid}

    def _laid_unseen(self, centres: dict[Cell, tuple[float, float]],
                     changed_at: Callable[[tuple[float, float]], float] | None) -> dict[Cell, str]:
        """Note the empty cells a tile is read on where the picture changed (`laid_seen`), forget those whose picture
        is back as committed (the tile was taken away), and return the rest that nothing is read on now, with the
        detector's reason: the tile lies there unseen. None while the picture cannot be compared."""
        if changed_at is None:
            return {}
        for cell, px in centres.items():
            if cell not in self.committed.cells and cell not in self.laid_seen and changed_at(px) >= LAID_SEEN:
                self.laid_seen[cell] = (px, "")
        for cell, (px, _r) in list(self.laid_seen.items()):
            if changed_at(px) < LAID_SEEN:
                del self.laid_seen[cell]
        return {c: r for c, (_px, r) in self.laid_seen.items() if c not in centres}

    def _turned_unseen(self, det: Detection, changed_at: Callable[[tuple[float, float]], float]) -> bool:
        """Whether a committed tile, whose votes since the last motion still lead for its committed reading, now reads
        surely another way where its picture changed (TURN_SEEN)."""
        for st in det.tiles:
            p = apply(self.transform, st.placement)
            was = self.committed.get(p.cell)
            if was is None or was == p or st.confidence < self.min_confidence:
                continue
            lead = self._leading(p.cell)
            if lead is not None and lead.placement == was and changed_at(st.center_px) >= TURN_SEEN:
                return True
        return False

    def _nothing_to_ask(self, cell: Cell, centres: dict[Cell, tuple[float, float]],
                        changed_at: Callable[[tuple[float, float]], float] | None) -> bool:
        """Whether a committed tile read badly is held as committed rather than asked about: its picture has not
        changed since the table was committed (nothing happened to it), or the picture next to it changed too (a
        hand resting over it and beside it, a lamp). Only a tile whose picture alone changed may have been turned
        or swapped unseen. `centres`: the latest detection's tiles in the image, by cell."""
        if changed_at is None or changed_at(centres[cell]) < LAID_SEEN:
            return changed_at is not None
        cells = list(centres)
        if len(cells) < 3:
            return False
        grid = np.array([[*centre(c), 1.0] for c in cells])
        to_px, *_ = np.linalg.lstsq(grid, np.array([centres[c] for c in cells]), rcond=None)
        return any(changed_at(tuple(np.array([*centre(neighbour(cell, d)), 1.0]) @ to_px)) >= HAND_BESIDE
                   for d in range(6))

    def _hand_beside(self, centres: dict[Cell, tuple[float, float]], gone: frozenset[Cell],
                     changed_at: Callable[[tuple[float, float]], float] | None) -> bool:
        """Whether something lies over a committed tile next to one of the `gone` cells: its picture changed though it
        still reads as committed (HAND_BESIDE). `centres`: the latest detection's tiles in the image, by cell."""
        if changed_at is None:
            return False
        return any((n := neighbour(cell, d)) in centres and self.latest[n] == self.committed.get(n)
                   and changed_at(centres[n]) >= HAND_BESIDE for cell in gone for d in range(6))

    def _touched(self, centres: dict[Cell, tuple[float, float]], best: dict[Cell, Placement],
                 changed_at: Callable[[tuple[float, float]], float] | None) -> frozenset[Cell]:
        """Committed cells read another way whose picture changed since the commit, though no motion was seen."""
        if self.moved_since_commit or changed_at is None:
            return frozenset()
        return frozenset(c for c, p in best.items() if self.committed.get(c) not in (None, p) and c in centres
                         and changed_at(centres[c]) >= TURN_SEEN)

    def _commit(self, board: Board, touched: frozenset[Cell] = frozenset()) -> Commit:
        new = board.cells - self.committed.cells
        stamps = [self.first_seen.get(c) for c in new]
        known = None not in stamps and len(set(stamps)) == len(stamps) > 1
        commit = Commit(board.copy(), changes(self.committed, board, self.moved_since_commit, touched),
                        laid_at={c: self.first_seen[c] for c in new} if known else {})
        for cell in self.committed.cells - board.cells:
            # what was read of a tile taken off says nothing of the next one laid there (a tile appearing changes too
            # little of the picture for the motion gate when no frame shows the hand: the votes are not reset)
            self.readings.pop(cell, None)
            self.seen_frames.pop(cell, None)
        self.committed = board
        self.moved_since_commit = False
        return commit

    def _commit_laid(self, cells: frozenset[Cell], bad_cells: list[Cell], bad_px: list) -> Commit | None:
        """While something covers committed tiles: the tiles laid clear of it, when every one reads surely, none is
        a tile the board already holds (that one may be moved from under the cover) and none lies within
        JUDGED_REACH of a cell that cannot be read: what lies there may make it legal or not."""
        laid = cells - self.committed.cells
        if not laid or bad_px or any(distance(c, b) <= JUDGED_REACH for c in laid for b in bad_cells):
            return None
        best, unsure = self._decide(laid)
        if unsure or any(p.tile in self.committed.tiles for p in best.values()):
            return None
        board = self.committed.copy()
        for p in best.values():
            board.place(p)
        return replace(self._commit(board), partial=True)

    def _decide(self, cells: frozenset[Cell]) -> tuple[dict[Cell, Placement], list[Cell]]:
        """The placements the votes point to, by cell, and the cells whose reading is not sure enough."""
        unsure = []
        best: dict[Cell, Placement] = {}
        support: dict[Cell, float] = {}
        for cell in cells:
            tally = self._leading(cell)
            if tally.reads / self.seen_frames[cell] < 0.5 or tally.weight / tally.reads < self.min_confidence:
                unsure.append(cell)
            best[cell] = tally.placement
            support[cell] = tally.weight
        by_tile: dict[int, list[Cell]] = defaultdict(list)
        for cell, p in best.items():
            by_tile[p.tile].append(cell)
        for tile_cells in by_tile.values():
            if len(tile_cells) > 1:  # one tile read in two cells: only the better-supported reading can be right
                tile_cells.sort(key=lambda c: support[c], reverse=True)
                unsure.extend(tile_cells[1:])
        return best, unsure


def changes(old: Board, new: Board, moved: bool = True, touched: frozenset[Cell] = frozenset()) -> list[Change]:
    """What changed from one committed board to the next; a tile that changed in place is `turned` (or, seen
    again without motion in between and on a cell not in `touched`, `corrected`) when it is the same tile, else
    taken off and another laid. `touched`: cells whose picture changed though no motion was seen."""
    found: list[Change] = []
    gone = {c: old[c] for c in old.cells - new.cells}
    came = {c: new[c] for c in new.cells - old.cells}
    for cell in sorted(old.cells & new.cells):
        a, b = old[cell], new[cell]
        if a == b:
            continue
        if not moved and cell not in touched:
            found.append(Change("corrected", a, b))
        elif a.tile == b.tile:
            found.append(Change("turned", a, b))
        else:
            gone[cell], came[cell] = a, b
    came_by_tile = {p.tile: p for p in came.values()}
    for _cell, a in sorted(gone.items()):
        b = came_by_tile.pop(a.tile, None)
        if b is not None:
            found.append(Change("moved", a, b))
        else:
            found.append(Change("removed", a, None))
    for b in sorted(came_by_tile.values(), key=lambda p: (p.r, p.q)):
        found.append(Change("placed", None, b))
    return found
