"""The players' hands as the camera sees them: each seat's zone on the table, read frame by frame.

The rules keep every hand face up in front of its player (docs/rules.md section 2). With a zone per seat
(config `[seats]`, found in a photo by `zones_from`: `tantrix-pi calibrate hands`), the detector files the tiles
lying in a zone apart from the board (`vision.detect(..., zones=)`), and `HandWatch` turns still frames into
sightings: the tiles a zone shows, once `stable_frames` still frames in a row agree, and whether everything in it
was read (a tile turned over, one not read, makes the sighting unclear: the referee then checks only what the clear
tiles prove).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from tantrix_pi.errors import TantrixError
from tantrix_pi.game import HAND_SIZE
from tantrix_pi.i18n import _, player_name
from tantrix_pi.vision.detection import Detection, in_polygon

Zone = tuple[tuple[float, float], ...]
"""A seat's zone: a polygon of (x, y) points as fractions 0..1 of the frame's width and height."""


def in_pixels(zone: Zone, size: tuple[int, int]) -> np.ndarray:
    """A zone as an N x 2 polygon of pixels in a frame of `size` (width, height)."""
    return np.asarray(zone, np.float64) * np.asarray(size, np.float64)


@dataclass(frozen=True)
class Sighting:
    """What one seat's zone shows, settled: the tiles read in it, and whether nothing in it was unread."""

    player: str
    tiles: frozenset[int]
    clear: bool


class HandWatch:
    """Reads each seat's zone in still detections; `observe` gives the sightings that changed."""

    def __init__(self, zones: Mapping[str, Zone], stable_frames: int = 2) -> None:
        self.zones = dict(zones)
        self.stable_frames = stable_frames
        self.said: dict[str, tuple] = {}
        self._last: dict[str, tuple] = {}
        self._streak: dict[str, int] = {}

    def motion(self) -> None:
        """Something moved: readings gathered so far no longer count."""
        self._streak.clear()
        self._last.clear()

    def pixel_zones(self, size: tuple[int, int]) -> list[np.ndarray]:
        """Every zone in pixels of a frame of `size`, for the detector."""
        return [in_pixels(z, size) for z in self.zones.values()]

    def observe(self, det: Detection, size: tuple[int, int]) -> list[Sighting]:
        """One still frame's detection (frame `size`: width, height): the sightings that settled differently."""
        readings = self._readings(det, size)
        out = []
        for player, reading in readings.items():
            same = self._last.get(player) == reading
            self._streak[player] = self._streak.get(player, 0) + 1 if same else 1
            self._last[player] = reading
            if self._streak[player] >= self.stable_frames and self.said.get(player) != reading:
                self.said[player] = reading
                out.append(Sighting(player, reading[0], reading[1] == 0))
        return out

    def _readings(self, det: Detection, size: tuple[int, int]) -> dict[str, tuple[frozenset[int], int]]:
        """Each zone's reading of `det`: the tiles read in it and how many others lie there unread."""
        polygons = {player: np.asarray(in_pixels(zone, size), np.float32).reshape(-1, 1, 2)
                    for player, zone in self.zones.items()}
        boxes = {player: (*polygon.min(axis=(0, 1)), *polygon.max(axis=(0, 1))) for player, polygon in polygons.items()}

        def zone_of(u) -> str | None:
            x, y = u.center_px
            return next((p for p, (x0, y0, x1, y1) in boxes.items()
                         if x0 <= x <= x1 and y0 <= y <= y1 and in_polygon(polygons[p], u.center_px)), None)

        tiles: dict[str, set[int]] = {player: set() for player in polygons}
        unclear = dict.fromkeys(polygons, 0)
        for u in det.loose:
            if (player := zone_of(u)) is not None:
                if u.tile is not None:
                    tiles[player].add(u.tile)
                else:
                    unclear[player] += 1
        for u in (*det.face_down, *det.unreadable):
            if (player := zone_of(u)) is not None:
                unclear[player] += 1
        return {player: (frozenset(tiles[player]), unclear[player]) for player in polygons}


class SeatsError(TantrixError):
    """Hand zones that cannot be found in a photo: one line saying what was seen."""


SIDES = {"bottom": 90.0, "left": 180.0, "top": 270.0, "right": 0.0}
"""Where a seat is, as the angle (degrees, clockwise from the photo's right) from the photo's middle."""

HAND_GAP = 2.5
"""Tiles at most this many tile widths apart belong to one player's hand."""

ZONE_MARGIN = 0.9
"""How far a zone reaches beyond its hand's outer tiles' centres, in tile widths."""


def zones_from(det: Detection, players: list[str], size: tuple[int, int], first: str = "bottom") -> dict[str, Zone]:
    """Each player's hand zone from a photo with every player's tiles laid in front of them: the tiles grouped by
    player (no two hands nearer than HAND_GAP tile widths), each group's rectangle widened by ZONE_MARGIN, the
    players given in seating order from the `first` side of the photo, clockwise as the camera sees the table."""
    tile = det.tile_px
    points = [t.center_px for t in det.tiles] + [u.center_px for u in (*det.loose, *det.face_down)]
    if tile <= 0 or len(points) < 2 * len(players):
        raise SeatsError(_("{n} tiles found: lay each player's six tiles in front of them, apart from one another "
                           "and from the board").format(n=len(points)))
    from scipy.cluster.hierarchy import fcluster, linkage

    labels = fcluster(linkage(np.asarray(points), "single"), HAND_GAP * tile, criterion="distance")
    groups = sorted((np.asarray([p for p, k in zip(points, labels, strict=True) if k == label])
                     for label in set(labels)), key=len, reverse=True)
    hands = [g for g in groups if 3 <= len(g) <= HAND_SIZE][:len(players)]  # more is a board, or hands too close
    if len(hands) < len(players):
        raise SeatsError(_("{found} groups of tiles found for {n} players: lay each player's tiles together in front "
                           "of them, hands apart").format(found=len(hands), n=len(players)))
    middle = np.asarray(size, np.float64) / 2

    def seat_angle(g: np.ndarray) -> float:
        """Clockwise from the first side; the circle starts 45 degrees before it (that hand may lie a little either
        way of it)."""
        dx, dy = g.mean(axis=0) - middle
        return (np.degrees(np.arctan2(dy, dx)) - SIDES[first] + 45.0) % 360.0

    out: dict[str, Zone] = {}
    for player, g in zip(players, sorted(hands, key=seat_angle), strict=True):
        (cx, cy), (w, h), angle = cv2.minAreaRect(g.astype(np.float32))
        corners = cv2.boxPoints(((cx, cy), (w + 2 * ZONE_MARGIN * tile, h + 2 * ZONE_MARGIN * tile), angle))
        fractions = np.clip(corners / np.asarray(size, np.float64), 0.0, 1.0)
        out[player] = tuple((round(float(x), 3), round(float(y), 3)) for x, y in fractions)
    for a in out:
        for b in out:
            if a < b and _overlap(in_pixels(out[a], size), in_pixels(out[b], size)):
                raise SeatsError(_("the hands of {a} and {b} lie too close together: lay them further apart").format(
                    a=player_name(a), b=player_name(b)))
    return out


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return area > 0
