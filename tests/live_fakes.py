"""Detections built by hand for the live referee's tests (no detector needed)."""

from __future__ import annotations

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import centre
from tantrix_pi.vision.detection import Detection, SeenTile, Unread


def seen(board: Board, k: int = 0, dq: int = 0, dr: int = 0, confidence: float = 0.95,
         override: dict | None = None, unsure: dict | None = None, unreadable=(), placed: bool = True,
         tile_px: float = 8.0, origin: tuple[float, float] = (800.0, 600.0), radius: float = 50.0) -> Detection:
    """A detection of `board` as the detector would give it in its own grid (turned k, moved by dq, dr).

    `override` maps a cell of `board` to the (tile, rot) misread there; `unsure` maps a cell to a confidence;
    `unreadable` cells hold something unread (a dict: with the detector's reason for each), which the detector placed
    on its grid when `placed`.
    `tile_px`: the tile width the detection reports (default: frame_of's 8-px squares, which the loop's
    motion measure counts in); the tiles' pixel positions: cell centres of circumradius `radius` px around
    `origin` (by default 87 px apart; `detect_frame` gives where `frame_of` draws them).
    """
    override, unsure = override or {}, unsure or {}
    tiles = []
    for p in board:
        if p.cell in override:
            p = Placement(override[p.cell][0], p.q, p.r, override[p.cell][1])
        x, y = centre(p.cell, radius)
        tiles.append(SeenTile(p.transformed(k, dq, dr), (origin[0] + x, origin[1] + y), unsure.get(p.cell, confidence)))
    unread = []
    why = unreadable if isinstance(unreadable, dict) else dict.fromkeys(unreadable, "colours unclear")
    for cell, reason in why.items():
        x, y = centre(cell, radius)
        where = Placement(1, cell[0], cell[1], 0).transformed(k, dq, dr).cell if placed else None
        unread.append(Unread((origin[0] + x, origin[1] + y), reason, cell=where))
    return Detection(tiles=tiles, unreadable=unread, tile_px=tile_px if tiles else 0.0)


def B(*ps: tuple[int, int, int, int]) -> Board:
    """A board from (tile, q, r, rot) tuples."""
    return Board(Placement(*p) for p in ps)


# -- frames that carry their board: a stand-in camera and detector for the loop's tests ---------------
import json  # noqa: E402

import numpy as np  # noqa: E402

FRAME = (120, 160)
HEADER = 6
"""Rows at the top of a fake frame that carry the board's JSON."""


ZONES = {p: ((x, y), (x + 0.5, y), (x + 0.5, y + 0.1), (x, y + 0.1))
         for p, (x, y) in {"R": (0.0, 0.88), "Y": (0.5, 0.88), "G": (0.0, 0.06), "B": (0.5, 0.06)}.items()}
"""Each seat's hand zone in a `frame_of` frame (fractions of it, as config [seats] gives them)."""


def frame_of(board: Board, hand: bool = False, seed: int = 0, hands: dict | None = None,
             shift: tuple[int, int] = (0, 0), shade: float = 0.0) -> np.ndarray:
    """A small BGR frame: tiles drawn as bright squares, the board's JSON in the top rows; a hand is a
    random blob over the middle (what the motion gate must catch). `hands`: the tiles lying in each seat's zone
    (ZONES), which the detector reads as loose tiles there. `shift`: the board pushed that many pixels (x, y).
    `shade`: a person's shadow over the right of the frame, from its middle on, takes that share of the light."""
    img = np.full((*FRAME, 3), 60, np.uint8)
    for p in board:
        x, y = centre(p.cell, 6.0)
        cx, cy = int(80 + shift[0] + x), int(60 + shift[1] + y)
        img[max(HEADER, cy - 4):cy + 4, max(0, cx - 4):cx + 4] = (40 * p.rot % 255, 5 * p.tile % 255, 200)
    shown = [] if hand else list(board)  # under a hand the detector would miss tiles: show it none
    tiles = [[p.tile, p.q, p.r, p.rot] for p in shown]
    shown_hands = {} if hands is None or hand else {p: sorted(h) for p, h in hands.items()}
    data = json.dumps({"tiles": tiles, "hands": shown_hands, "shift": shift} if shown_hands or any(shift)
                      else tiles).encode()
    for i, (p, h) in enumerate(sorted((hands or {}).items())):  # each hand's tiles as marks in its zone
        (x0, y0), *_ = ZONES[p]
        for j, t in enumerate(sorted(h)):
            img[int(y0 * FRAME[0]) + 2:int(y0 * FRAME[0]) + 6, int(x0 * FRAME[1]) + 2 + 12 * j:][:, :8] = (
                5 * t % 255, 30 * i, 90)
    if shade:
        edge = np.clip((np.arange(FRAME[1]) - 70) / 20, 0, 1)  # a soft edge around the middle
        light = 1 - shade * edge * edge * (3 - 2 * edge)
        img[:] = np.clip(img * light[None, :, None], 0, 255).astype(np.uint8)
    row = np.zeros(HEADER * FRAME[1] * 3, np.uint8)
    row[:2] = divmod(len(data), 256)
    row[2:2 + len(data)] = np.frombuffer(data, np.uint8)
    img[:HEADER] = row.reshape(HEADER, FRAME[1], 3)
    if hand:
        rng = np.random.default_rng(seed)
        img[20:110, 30:130] = rng.integers(0, 255, (90, 100, 3), dtype=np.uint8)
    return img


def detect_frame(img: np.ndarray, confidence: float = 0.95, on_board=(), lying=()) -> Detection:
    """Read back the board a `frame_of` frame carries (a hand hides it: nothing is read); `on_board` (the tiles the
    referee holds) and `lying` change nothing."""
    row = img[:HEADER].reshape(-1)
    n = int(row[0]) * 256 + int(row[1])
    try:
        data = json.loads(bytes(row[2:2 + n]).decode())
    except (UnicodeDecodeError, json.JSONDecodeError):
        return Detection()
    tiles, hands, (dx, dy) = (data["tiles"], data["hands"], data["shift"]) if isinstance(data, dict) else \
        (data, {}, (0, 0))
    det = seen(Board(Placement(*t) for t in tiles), confidence=confidence, origin=(80.0 + dx, 60.0 + dy), radius=6.0)
    for p, held in hands.items():
        (x0, y0), _, (x1, y1), _ = ZONES[p]
        det.loose += [Unread(((x0 + (x1 - x0) * (j + 0.5) / 7) * FRAME[1], (y0 + y1) / 2 * FRAME[0]), "loose", t)
                      for j, t in enumerate(held)]
    return det


def scene_frames(scenes) -> list[np.ndarray]:
    """Every frame of a recording script, in order."""
    out = []
    for i, s in enumerate(scenes):
        for j in range(s.frames):
            out.append(frame_of(s.board, s.hand, seed=1000 * i + j))
    return out


def scene_source(scenes, commands_of):
    """A replay of scenes that presses their buttons into the loop's command queue (`commands_of()`)."""
    from tantrix_pi.devices.sources import ReplaySource
    from tantrix_pi.live.commands import pressed

    def frames():
        for i, s in enumerate(scenes):
            for j in range(s.frames):
                yield frame_of(s.board, s.hand, seed=1000 * i + j)
            if s.press:
                commands_of().put(pressed(s.press))

    return ReplaySource(frames)
