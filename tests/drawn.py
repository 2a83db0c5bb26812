"""Plain OpenCV drawings of Tantrix tiles on a table, for the vision tests (no photo realism, exact truth)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from tantrix_pi.board import Board
from tantrix_pi.grid import centre, edge_angle
from tantrix_pi.tiles import TILES

PAINT = {"R": (40, 40, 215), "Y": (30, 210, 240), "G": (60, 165, 40), "B": (205, 115, 30)}
"""BGR of the four band colours."""


class Scene:
    """A table of `size` (w, h) with the board grid turned by `angle` degrees, `tile_px` across flats."""

    def __init__(self, size=(800, 600), tile_px=70.0, angle=0.0, origin=None, table=(150, 185, 205), seed=0):
        self.rng = np.random.default_rng(seed)
        w, h = size
        self.image = np.empty((h, w, 3), np.uint8)
        self.image[:] = table
        noise = self.rng.normal(0, 4, self.image.shape)
        self.image = np.clip(self.image + noise, 0, 255).astype(np.uint8)
        self.s = tile_px / math.sqrt(3)
        self.angle = angle
        self.origin = np.array(origin if origin is not None else (w / 2, h / 2), dtype=float)

    def to_px(self, gx: float, gy: float) -> np.ndarray:
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return self.origin + self.s * rot @ np.array([gx, gy])

    def tile(self, number: int, at_px, rot: int, twist: float = 0.0, face_up: bool = True) -> None:
        """Draw tile `number` turned `rot` sixths with its centre at pixel `at_px` (plus `twist` degrees)."""
        c = np.array(at_px, dtype=float)
        s = self.s * 0.975
        a0 = self.angle + twist
        angles = [math.radians(a0 - 30 + 60 * i) for i in range(6)]
        corners = [c + s * np.array([math.cos(a), math.sin(a)]) for a in angles]
        cv2.fillConvexPoly(self.image, np.round(np.array(corners) * 16).astype(np.int32), (28, 28, 30),
                           cv2.LINE_AA, shift=4)
        if not face_up:
            colour = PAINT.get(TILES[number].back, (235, 235, 235))
            cv2.putText(self.image, str(number), tuple(int(v) for v in c - [s * 0.35, -s * 0.2]),
                        cv2.FONT_HERSHEY_SIMPLEX, s / 40, colour, max(1, int(s / 15)), cv2.LINE_AA)
            return
        inr = s * math.sqrt(3) / 2
        width = max(2, int(round(0.13 * s * math.sqrt(3))))
        for arc in TILES[number].arcs:
            pts = []
            da, db = ((e + rot) % 6 for e in arc.edges)
            na = np.array([math.cos(math.radians(edge_angle(da) + a0)), math.sin(math.radians(edge_angle(da) + a0))])
            nb = np.array([math.cos(math.radians(edge_angle(db) + a0)), math.sin(math.radians(edge_angle(db) + a0))])
            p0, p3 = c + inr * na, c + inr * nb
            p1, p2 = p0 - 0.55 * inr * na, p3 - 0.55 * inr * nb
            for t in np.linspace(0, 1, 24):
                pts.append((1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3)
            cv2.polylines(self.image, [np.round(np.array(pts) * 16).astype(np.int32)], False, PAINT[arc.colour],
                          width, cv2.LINE_AA, shift=4)

    def board(self, board: Board, twist: float = 0.0) -> None:
        """Draw every placement of `board` on its cell, each tile twisted by up to `twist` degrees."""
        for p in board:
            gx, gy = centre(p.cell)
            self.tile(p.tile, self.to_px(gx, gy), p.rot, twist * float(self.rng.uniform(-1, 1)))

    def light(self, bgr_gain=(1.0, 1.0, 1.0), blur: float = 0.0, noise: float = 0.0) -> np.ndarray:
        """The drawing under a coloured light, optionally blurred and noisy."""
        img = self.image.astype(np.float32) * np.array(bgr_gain, dtype=np.float32)
        if blur:
            img = cv2.GaussianBlur(img, (0, 0), blur)
        if noise:
            img += self.rng.normal(0, noise, img.shape).astype(np.float32)
        return np.clip(img, 0, 255).astype(np.uint8)


def spiral_board(numbers, rots=None) -> Board:
    """A compact board of the given tiles placed on cells spiralling out from (0, 0)."""
    from tantrix_pi.board import Placement
    from tantrix_pi.grid import distance

    cells = sorted(((q, r) for q in range(-4, 5) for r in range(-4, 5) if distance((0, 0), (q, r)) <= 4),
                   key=lambda c: (distance((0, 0), c), math.atan2(c[1], c[0] + c[1] / 2)))
    rots = rots or [(3 * i) % 6 for i in range(len(numbers))]
    return Board(Placement(n, q, r, k) for n, (q, r), k in zip(numbers, cells, rots, strict=False))


def legal_board(n: int, seed: int = 0, avoid=()) -> Board:
    """A board of n tiles whose touching edges agree (as real boards are laid), without the tiles `avoid`."""
    from tantrix_pi.simulator import random_board

    for k in range(100):
        board = random_board(np.random.default_rng([seed, k]), n)
        if len(board) == n and not board.tiles & set(avoid):
            return board
    raise AssertionError("no such board")
