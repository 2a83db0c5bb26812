"""The cheap motion check that runs on every frame before the detector: a hand over the table is skipped."""

from __future__ import annotations

import cv2
import numpy as np

SMALL_WIDTH = 160
"""Width of the grey thumbnail the check compares (a few thousand pixels: well under a millisecond)."""

DIFF_LEVEL = 18
"""Grey-level change (0..255) that counts a thumbnail pixel as changed; above sensor noise after the blur."""


LIGHT_REACH = 3.0
"""Width, in tile widths, of the window over which `changed_from` takes a change of brightness for the light's (a
shadow, a lamp): the median over it of how much brighter each pixel got. A shadow or a lamp brightens or darkens
everything under it alike, tiles and table; a hand or a cup lying there replaces what was under it. Three tiles: a
hand over the board spans one or two, and a window's median is its majority. Measured on the simulator (the bundled
game on seven tables, a tile laid at the same time): a person's shadow across the board changed 3-10 tiles' worth of
the thumbnail, a lamp switched on up to 17, and only the tile laid (about 1) once the light is taken out; a hand
resting on the board keeps 80-95 % of its change."""

LIT_LEVEL = 24
"""Pixels darker than this (0..255) say little about a change of light: sensor noise swamps it."""


def light_gain(before: np.ndarray, after: np.ndarray, step: int = 8) -> np.ndarray:
    """Per colour channel, how much brighter `after` is than `before` over the whole picture: the median ratio over
    every `step`-th pixel lit enough to tell (LIT_LEVEL) in both frames (a pixel chosen for being lit in one is
    likelier lifted by noise there: on dark wood, ratios of pixels lit before came out 9 % low). A lamp switched
    on, or the camera's exposure or white balance moving, scales each channel of the whole table alike; a hand or a
    tile laid changes a minority of it.
    1 for a channel in which less than half the picture is lit (a black table; the blue of dark wood under a warm
    lamp): the lit pixels are then mostly tiles and hands, not the table, and their median says nothing of the
    light. All 1 when every channel's gain is within DIFF_LEVEL / 255 of it: the light did not change (a steady
    light's median ratio still wavers by a few per cent: dark wood 0.97-1.03), and `changed_around` already takes
    that little for no change even on white. Once the light did change, every channel keeps its gain, small ones
    too (a lamp's blue x 1.02 left out flagged 9 % of a disc of bare paper)."""
    a = before[::step, ::step].reshape(-1, before.shape[2] if before.ndim == 3 else 1).astype(np.float32)
    b = after[::step, ::step].reshape(a.shape).astype(np.float32)
    gain = np.ones(a.shape[1], np.float32)
    for c in range(a.shape[1]):
        lit = (a[:, c] >= LIT_LEVEL) & (b[:, c] >= LIT_LEVEL)
        if np.count_nonzero(lit) * 2 >= len(lit):
            gain[c] = np.median(b[lit, c] / a[lit, c])
    if np.all(np.abs(gain - 1) <= DIFF_LEVEL / 255):
        gain[:] = 1.0
    return gain


def changed_around(before: np.ndarray, after: np.ndarray, point: tuple[float, float], radius: float,
                   level: int = DIFF_LEVEL, gain: np.ndarray | None = None) -> float:
    """The share of the disc of `radius` pixels around `point` where two frames of one size differ by more than
    `level` in any colour channel (at full resolution: a tile turned in place moves its thin arcs, which the gate's
    thumbnail blurs away; a tile of three corner arcs turned by a third of a circle only swaps their colours, which
    grey levels hardly tell apart). With `gain` (`light_gain`), `before` is first brought to `after`'s light, and
    `level` raised with the sensor noise the gain scales up with it: what differs is then what the light does not
    explain."""
    h, w = after.shape[:2]
    x, y, r = round(point[0]), round(point[1]), max(2, round(radius))
    x0, y0, x1, y1 = max(0, x - r), max(0, y - r), min(w, x + r + 1), min(h, y + r + 1)
    if before.shape != after.shape or x1 <= x0 or y1 <= y0:
        return 0.0
    earlier, levels = before[y0:y1, x0:x1], np.float32(level)
    if gain is not None:
        earlier = np.clip(earlier * gain, 0, 255).astype(np.uint8)
        levels = level * np.sqrt((1 + gain ** 2) / 2)  # noise of both frames, the earlier one's scaled by the gain
    a, b = (cv2.GaussianBlur(f, (3, 3), 0) for f in (earlier, after[y0:y1, x0:x1]))
    changed = cv2.absdiff(a, b) > levels
    if changed.ndim == 3:
        changed = changed.any(axis=2)
    disc = np.zeros(changed.shape, np.uint8)
    cv2.circle(disc, (x - x0, y - y0), r, 1, -1)
    return float(np.count_nonzero(changed & disc.astype(bool)) / max(1, np.count_nonzero(disc)))


LOG_STEPS = 40.0
"""Steps of the log of a brightness ratio per unit in `relit`'s 8-bit median (2.5 % each; ratios up to 24)."""


def relit(before: np.ndarray, after: np.ndarray, window: int) -> np.ndarray:
    """`before` (a grey thumbnail) brought to `after`'s light: each pixel scaled by the median, over the `window`
    pixels square around it, of how much brighter `after` is than `before` (LIGHT_REACH)."""
    a, b = before.astype(np.float32), after.astype(np.float32)
    ratio = np.clip(np.log((b + 8) / (a + 8)) * LOG_STEPS + 128, 0, 255).astype(np.uint8)  # +8: black's noise
    gain = np.exp((cv2.medianBlur(ratio, max(3, window)).astype(np.float32) - 128) / LOG_STEPS)
    return np.clip(a * gain, 0, 255).astype(np.uint8)


class MotionGate:
    """Compares each frame's blurred grey thumbnail with the previous one; `moving(frame)` says if it changed."""

    def __init__(self, motion: float = 0.004, width: int = SMALL_WIDTH, level: int = DIFF_LEVEL) -> None:
        self.motion, self.width, self.level = motion, width, level
        self.prev: np.ndarray | None = None
        self.changed = 0.0
        """Fraction of the thumbnail that changed at the last frame."""

    def thumbnail(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        step = max(1, w // (2 * self.width))
        frame = frame[::step, ::step]  # a strided view: no copy of the full frame before the area resize
        small = cv2.resize(frame, (self.width, max(1, round(h * self.width / w))), interpolation=cv2.INTER_AREA)
        if small.ndim == 3:
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        return cv2.GaussianBlur(small, (5, 5), 0)

    def moving(self, frame: np.ndarray) -> bool:
        """True when this frame differs from the last one by more than the motion fraction (or comes first)."""
        small = self.thumbnail(frame)
        prev, self.prev = self.prev, small
        if prev is None or prev.shape != small.shape:
            self.changed = 1.0
            return True
        self.changed = float(np.count_nonzero(cv2.absdiff(small, prev) > self.level)) / small.size
        return self.changed > self.motion

    def changed_from(self, small: np.ndarray, reference: np.ndarray, where: np.ndarray | None = None,
                     tile_px: float = 0.0, frame_width: int = 0) -> float:
        """Fraction of a frame's thumbnail (`small`) that differs from an earlier thumbnail, counting only the pixels
        `where` is true (a mask from `near`; None: all of them). Given the tiles' width in pixels of frames
        `frame_width` wide, what the light explains (LIGHT_REACH) is not counted."""
        if reference.shape != small.shape:
            return 1.0
        if tile_px > 0 and frame_width > 0:
            reach = LIGHT_REACH * tile_px * self.width / frame_width
            reference = relit(reference, small, 2 * round(reach / 2) + 1)
        changed = cv2.absdiff(small, reference) > self.level
        return float(np.count_nonzero(changed if where is None else changed & where)) / reference.size

    def near(self, points_px, radius_px: float, frame_shape: tuple[int, ...]) -> np.ndarray:
        """A mask of the thumbnail: within `radius_px` of any of `points_px` (x, y pixels of a frame of
        `frame_shape`)."""
        h, w = frame_shape[:2]
        scale = self.width / w
        mask = np.zeros((max(1, round(h * self.width / w)), self.width), np.uint8)
        for x, y in points_px:
            cv2.circle(mask, (round(x * scale), round(y * scale)), max(1, round(radius_px * scale)), 1, -1)
        return mask.astype(bool)

    def reset(self) -> None:
        """Forget the last frame (after a gap in the stream: the next frame counts as motion)."""
        self.prev = None
