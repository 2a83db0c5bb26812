"""The players' hands as the camera sees them: each seat's zone on the table, read frame by frame.

The rules keep every hand face up in front of its player (docs/rules.md section 2). With a zone per seat
(config `[seats]`, `tantrix-pi calibrate hands`), the detector files the tiles lying in a zone apart from the
board (`vision.detect(..., zones=)`), and `HandWatch` turns still frames into sightings: the tiles a zone
shows, once `stable_frames` still frames in a row agree, and whether everything in it was read (a tile turned
over, one not read, makes the sighting unclear: the referee then checks only what the clear tiles prove).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

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

    def __init__(self, zones: Mapping[str, Zone], stable_frames: int = 3) -> None:
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
        polygons = {player: in_pixels(zone, size) for player, zone in self.zones.items()}
        tiles: dict[str, set[int]] = {player: set() for player in polygons}
        unclear = dict.fromkeys(polygons, 0)
        for u in (*det.loose, *det.face_down, *det.unreadable):
            player = next((p for p, polygon in polygons.items() if in_polygon(polygon, u.center_px)), None)
            if player is None:
                continue
            if u.tile is not None and u in det.loose:
                tiles[player].add(u.tile)
            else:
                unclear[player] += 1
        out = []
        for player in polygons:
            reading = (frozenset(tiles[player]), unclear[player])
            self._streak[player] = self._streak.get(player, 0) + 1 if self._last.get(player) == reading else 1
            self._last[player] = reading
            if self._streak[player] >= self.stable_frames and self.said.get(player) != reading:
                self.said[player] = reading
                out.append(Sighting(player, reading[0], reading[1] == 0))
        return out
