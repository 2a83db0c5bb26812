"""`tantrix-pi demo`: a whole 2-player game, photographed by the project's renderer, through the live loop.

The recording is bundled as a game record plus render settings (`data/demo-game.json`); the frames are
drawn on the fly, deterministically, by `tantrix_pi.simulator.render`: each tile brought in by a hand (frames
with motion), the table still in between, and one illegal placement that the players take back. The
loop is the one `run` drives; only the source (this replay) and the state folder (a fresh one) differ.

`Demo` also makes the benches' recordings: a self-play game of 2-4 players with each player's tiles face up in a
hand zone along an edge of the frame, and what players do besides playing (`recording.Behaviours`).
"""

from __future__ import annotations

import math
import multiprocessing
import queue
import shutil
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.devices.sources import ReplaySource
from tantrix_pi.grid import SQRT3, axial, centre
from tantrix_pi.i18n import _
from tantrix_pi.live import config as config_mod
from tantrix_pi.live.commands import pressed
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import (
    GLARE,
    JUST_PLAY,
    REST_POINTS,
    Behaviours,
    Scene,
    hands_in_play,
    load_record,
    movers,
    placements,
    script,
    selfplay_record,
    turn_ends,
)
from tantrix_pi.live.service import NotAvailable, make_detector, setup_of
from tantrix_pi.live.sinks import ConsoleSink, JsonLinesSink, MemorySink, Sink, Sinks
from tantrix_pi.live.store import Store

STILL, HAND = 3, 1
"""Frames per still table and per hand pass in the demo recording (with the service's stable_frames 2 the first
still frame after a hand, motion to the gate, and the next commit the table; the third shows what was said)."""

ZONE_DEPTH = (0.18, 0.2)
"""How far a hand zone along a side of the frame reaches in: a share of the width (left and right zones) and
of the height (top and bottom)."""
SEATS = {2: ("bottom", "top"), 3: ("bottom", "left", "top"), 4: ("bottom", "left", "top", "right")}
"""Where each player's hand zone lies, in seating order, for 2, 3 and 4 players."""
SLOT_PITCH = 1.45
"""Centre-to-centre spacing of the tiles in a hand zone, in tile widths across flats: 0.3 tile apart at the
corners (they lie apart, never touching)."""
BOARD_MARGIN = 0.9
"""Share of the room left by the zones that the whole game's board may take, so its tiles keep clear of them."""


def edge_zones(players: list[str]) -> dict[str, list[list[float]]]:
    """A hand zone for each player (colour names, seating order) along an edge of the frame: polygons of [x, y]
    fractions of the frame, as the configuration's [seats] holds them."""
    dx, dy = ZONE_DEPTH
    band = {"bottom": (0.0, 1 - dy, 1.0, 1.0), "top": (0.0, 0.0, 1.0, dy),
            "left": (0.0, dy, dx, 1 - dy), "right": (1 - dx, dy, 1.0, 1 - dy)}
    out = {}
    for name, side in zip(players, SEATS[len(players)], strict=True):
        x0, y0, x1, y1 = band[side]
        out[name] = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    return out


def _inside(xy: tuple[float, float], zone: list[list[float]]) -> bool:
    """Whether a point (fractions of the frame) lies inside a zone polygon (the same)."""
    return cv2.pointPolygonTest(np.array(zone, np.float32), (float(xy[0]), float(xy[1])), False) >= 0


def zone_slots(zone: list[list[float]], size: tuple[int, int], tile_px: float, n: int = 6) -> list[tuple[float, float]]:
    """Image pixels of `n` tiles laid apart in a hand zone (fractions of a frame of `size`): rows of tiles
    `SLOT_PITCH` apart in the zone's box, centred; ValueError when they do not fit."""
    w, h = size
    pts = np.array(zone, float) * (w, h)
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    pitch = SLOT_PITCH * tile_px
    cols, rows = int((x1 - x0) // pitch), int((y1 - y0) // pitch)
    if cols * rows < n:
        raise ValueError(f"a hand zone of {x1 - x0:.0f} x {y1 - y0:.0f} px cannot hold {n} tiles of {tile_px:.0f} px "
                         "apart: give smaller tiles or a larger zone")
    cols = min(cols, n)
    rows = -(-n // cols)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return [(cx + (k % cols - (cols - 1) / 2) * pitch, cy + (k // cols - (rows - 1) / 2) * pitch) for k in range(n)]


def fit_tile_px(moves: list[Placement], size: tuple[int, int], zones: dict, yaw_deg: float = 0.0,
                gap: float = 0.03) -> float:
    """The tile size (px across flats) at which the whole game's board, its middle on the image centre, fits in
    the room the hand zones leave (`BOARD_MARGIN` of it), and six tiles lie apart in each zone."""
    w, h = size
    spans = [np.ptp(np.array(z, float), axis=0) for z in zones.values()]
    dx = max((sx for sx, sy in spans if sx < 1), default=0.0)  # zones along the left and right edges
    dy = max((sy for sx, sy in spans if sx >= 1), default=0.0)  # zones along the top and bottom
    a = np.radians(yaw_deg)
    pts = np.array([centre(p.cell) for p in moves]) @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    span = pts.max(axis=0) - pts.min(axis=0) + 2.0  # in circumradii, a whole tile beyond the outer centres
    s = BOARD_MARGIN * min(w * (1 - 2 * dx) / span[0], h * (1 - 2 * dy) / span[1])
    tile = s * SQRT3 * (1 - gap)
    for sx, sy in spans:  # rows of tiles that fit the zone: six in one, three in two, two in three or one column
        held = max(min(sx * w / cols, sy * h / (6 // cols)) for cols in (6, 3, 2, 1)) / SLOT_PITCH
        tile = min(tile, 0.999 * held)
    return float(tile)


class Shot(NamedTuple):
    """One photo of the recording: the board, the frame number (for the grain), how many frames show it, the
    button pressed after them, and the simulator's parameters beyond the recording's (a hand, its light, the
    cup, the tiles in the zones)."""

    board: Board
    frame: int
    times: int
    press: str | None
    options: dict


@dataclass
class Demo:
    """A recording: the game's placements, who made them, its scenes and how to photograph them."""

    moves: list[Placement]
    players: list[str]
    scenes: list[Scene]
    render: dict
    movers: list[str] = field(default_factory=list)
    """Who made each placement (colour letters)."""
    zones: dict[str, list[list[float]]] = field(default_factory=dict)
    """Each seat's hand zone: a polygon of [x, y] fractions of the frame (the configuration's [seats])."""
    _truth: dict | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def bundled(cls, still: int = STILL, hand: int = HAND, moves: int | None = None,
                behaviours: Behaviours = JUST_PLAY, **render) -> Demo:
        """The bundled game (its first `moves` placements), `render` overriding size, tile_px, ..."""
        rec = load_record()
        d = rec["demo"]
        render = {"seed": d["photo_seed"], "size": tuple(d["size"]), "yaw_deg": d["yaw_deg"],
                  "tile_px": d["tile_px"], **render}
        illegal = d["illegal_after"] if d["illegal_after"] < len(placements(rec)[:moves]) else None
        return cls.of_record(rec, still, hand, moves, behaviours, illegal_at=illegal, **render)

    @classmethod
    def selfplay(cls, players: int = 2, seed: int = 23, still: int = STILL, hand: int = HAND,
                 moves: int | None = None, behaviours: Behaviours = JUST_PLAY, hands: bool = True,
                 **render) -> Demo:
        """A random legal game of 2-4 `players` (`selfplay_record`), its first `moves` placements, with each
        player's tiles face up in a zone along an edge of the frame when `hands`; the tile size fits the board
        and the zones unless `render` gives one."""
        rec = selfplay_record(players, seed)
        render = {"seed": 7, "size": (1640, 1232), **render}
        return cls.of_record(rec, still, hand, moves, behaviours, zones=edge_zones(rec["players"]) if hands else {},
                             **render)

    @classmethod
    def of_record(cls, record: dict, still: int, hand: int, moves: int | None = None,
                  behaviours: Behaviours = JUST_PLAY, illegal_at: int | None = None, zones: dict | None = None,
                  **render) -> Demo:
        """A game record's first `moves` placements as scenes (with the hands in play when `zones`), the camera
        on the whole game's middle; `render`: the simulator's parameters. ValueError when six tiles do not fit
        apart in a zone."""
        moves_ = placements(record)[:moves]
        pts = np.array([centre(p.cell) for p in moves_])
        mx, my = (pts.min(axis=0) + pts.max(axis=0)) / 2  # the whole game's middle stays put in the photos
        focus = tuple(float(v) for v in axial(mx, my))
        render = {"focus": focus, **render}
        if "tile_px" not in render:
            render["tile_px"] = fit_tile_px(moves_, render["size"], zones or {}, render.get("yaw_deg", 0.0))
        for zone in (zones or {}).values():  # ValueError now, not in the middle of photographing
            zone_slots(zone, render["size"], render["tile_px"])
        in_play = hands_in_play(record)[:len(moves_) + 1] if zones else None
        if zones:  # a hand resting at the frame's edge rests beside the zones when an edge is free of them
            behaviours = replace(behaviours, rest_at=next(
                (xy for xy in REST_POINTS if not any(_inside(xy, z) for z in zones.values())), behaviours.rest_at))
        scenes = script(moves_, still, hand, illegal_at, turn_ends(record), behaviours, in_play)
        return cls(moves_, record["players"], scenes, render, movers(record)[:len(moves_)], dict(zones or {}))

    def shots(self) -> Iterator[Shot]:
        """Each photo of the recording: a still table is one photo shown for several frames."""
        w, h = self.render["size"]
        for i, scene in enumerate(self.scenes):
            options = self._around(scene)
            if scene.hand:
                for j in range(scene.frames):
                    t = (j + 1) / (scene.frames + 1)
                    reach = (w * (0.2 + 0.5 * t), h * (0.3 + 0.1 * (i % 4))) if scene.reach is None else \
                        self.cell_px(scene.reach, scene.push)
                    yield Shot(scene.board, i * 100 + j, 1, None, {**options, "occluder": reach})
            else:  # a still table: one photo, several frames
                if scene.rest is not None:
                    x, y = scene.rest
                    options["occluder"] = (w * x, h * y)
                    options["occluder_from"] = min((x, "left"), (1 - x, "right"), (y, "top"), (1 - y, "bottom"))[1]
                yield Shot(scene.board, i * 100, scene.frames, scene.press, options)

    def _around(self, scene: Scene) -> dict:
        """The simulator's parameters for what lies around the board in a scene: its light, the things standing
        on the table, the tiles in the zones."""
        from tantrix_pi.simulator import Apart, Clutter

        options: dict = {}
        nudged = {cell: self._push_of(cell, scene.push) for cell in scene.board.cells} if scene.push else {}
        for cell, by in scene.nudged:  # a tile knocked askew, then the board pushed: the two add up
            nudged[cell] = tuple(a + b for a, b in zip(nudged.get(cell, (0.0, 0.0, 0.0)), by, strict=True))
        if nudged:
            options["nudged"] = nudged
        if scene.knock is not None:
            options["knock"] = scene.knock
        if scene.shadow:
            options["cast_shadow"] = scene.shadow
        if scene.glare is not None:
            options.update(glare=GLARE, glare_xy=self.cell_px(scene.glare, scene.push))
        if scene.light is not None:
            options.update(light_k=scene.light.light_k, awb=scene.light.awb, exposure=scene.light.exposure)
        if scene.clutter:
            options["clutter"] = [Clutter(kind, self.cell_px(cell, scene.push)) for kind, cell in scene.clutter]
        if scene.hands:
            apart = []
            for seat, slots in scene.hands.items():
                at = zone_slots(self.zones[seat], self.render["size"], self.render["tile_px"], len(slots))
                seed = self.render.get("seed", 0)
                apart += [Apart(t, xy, hand_twist(seed, t)) for t, xy in zip(slots, at, strict=True) if t is not None]
            options["apart"] = apart
        return options

    def cell_px(self, cell: tuple[int, int], push: tuple[float, float, float] | None = None) -> tuple[float, float]:
        """The image pixel of a board cell's centre in the recording's photos (the camera stays put on its focus),
        with the board pushed across the table by `push` (a `Scene.push`)."""
        from tantrix_pi.simulator import cell_px, render_scene

        if self._truth is None:
            self._truth = render_scene(Board(), **self.render).truth
        if push is not None:
            x, y = centre(cell)
            dx, dy, _turn = self._push_of(cell, push)
            cell = axial(x + dx, y + dy)  # a point between cells: cell_px takes fractional axial coordinates
        return cell_px(self._truth, cell)

    def _push_of(self, cell: tuple[int, int], push: tuple[float, float, float]) -> tuple[float, float, float]:
        """How far the tile on `cell` lies off it with the board pushed by `push` (`recording.PUSH`: moved along the
        board's own axes and turned clockwise about the whole game's middle): (dx, dy circumradii, degrees), as the
        simulator's `nudged` takes it."""
        dx, dy, degrees = push
        (mx, my), (x, y) = centre(self.render["focus"]), centre(cell)
        c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
        u, v = x - mx, y - my
        return mx + c * u - s * v - x + dx * SQRT3, my + s * u + c * v - y + dy * SQRT3, degrees

    def zones_px(self) -> list[np.ndarray]:
        """The hand zones as image pixel polygons (what `vision.detect(..., zones=)` takes)."""
        w, h = self.render["size"]
        return [np.array(z, float) * (w, h) for z in self.zones.values()]

    def photograph(self, shot: Shot) -> np.ndarray:
        """One photo of the recording."""
        return photograph(shot, self.render)

    def frames(self, commands: queue.Queue | None = None, ahead: int = 3) -> Iterator[np.ndarray]:
        """Every frame of the recording, photographed `ahead` shots in advance by a worker process; the
        players' button presses go into `commands` (the loop's queue) when their scene has been shown."""
        shots = iter(self.shots())
        pending: deque = deque()
        # a fresh interpreter, not a fork: a forked child inherits OpenCV's thread pool without its threads (and any
        # lock another thread held), and hung in its first resize after the loop had run OpenCV on several threads
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            def submit() -> None:
                shot = next(shots, None)
                if shot is not None:
                    pending.append((pool.submit(photograph, shot, self.render), shot.times, shot.press))

            for _shot in range(ahead):
                submit()
            while pending:
                future, times, press = pending.popleft()
                submit()
                image = future.result()
                for _time in range(times):
                    yield image
                if press and commands is not None:
                    commands.put(pressed(press))


def hand_twist(seed: int, tile: int) -> float:
    """How a tile lying in a player's zone is turned (degrees, as seen in the image): any way, fixed by seed and
    tile."""
    return float(np.random.default_rng([seed & 0xFFFFFFFF, tile, 99]).uniform(0, 360))


def photograph(shot: Shot, render: dict) -> np.ndarray:
    """One photo of a recording by the simulator: its settings `render` and what the shot adds."""
    return rendered(shot, render)[0]


def rendered(shot: Shot, render: dict) -> tuple[np.ndarray, dict]:
    """`photograph`, and the simulator's truth about it (each tile's place, how much of it a hand hides)."""
    from tantrix_pi.simulator import render as draw

    options = {**render, **shot.options}
    knock = options.pop("knock", None)
    image, truth = draw(shot.board, frame=shot.frame, **options)
    if knock is not None:  # the camera turned a little on its arm: the whole picture moves (its edge repeats)
        dx, dy, degrees = knock
        h, w = image.shape[:2]
        m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), -degrees, 1.0)
        m[:, 2] += (dx * options["tile_px"], dy * options["tile_px"])
        image = cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    return image, truth


def run_demo(out: Path, console: bool = True, extra: Sink | None = None, moves: int | None = None,
             fps: float = 0.0, started=None) -> tuple[LiveLoop, Demo, float]:
    """Play the bundled recording (its first `moves` placements, `fps` frames a second, 0: as fast as it goes)
    into `out` (state, events, display frames, GIF); returns the loop, the recording and the seconds it took.
    `started(loop)` is called once the loop exists, before the first frame."""
    if out.exists():
        for name in ("state.db", "state.db-wal", "state.db-shm", "events.jsonl"):
            (out / name).unlink(missing_ok=True)
        shutil.rmtree(out / "display", ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    cfg = config_mod.from_dict({"camera": {"source": "folder", "path": "(bundled recording)"},
                                "display": {"kind": "png", "dir": str(out / "display")},
                                "mode": {"kind": "game", "players": load_record()["players"]},
                                "paths": {"state_dir": str(out)}}, "demo")
    demo = Demo.bundled(moves=moves)
    sinks: list[Sink] = [ConsoleSink() if console else MemorySink(), JsonLinesSink(cfg.events_path)]
    try:
        from tantrix_pi.live.sinks import DisplaySink

        sinks.append(DisplaySink.open("png", cfg.display.dir, {"model": cfg.display.model}))
    except ImportError:
        print(_("demo: the display package is not installed: no display frames"))
    if extra is not None:
        sinks.append(extra)
    try:
        detect = make_detector(cfg.paths.profile)
        import tantrix_pi.simulator  # noqa: F401  (the renderer that draws the recording)
    except ImportError as e:
        raise NotAvailable(_("the demo needs the detector and the photo renderer: {error}").format(error=e)) from None
    store = Store(cfg.state_dir / "state.db")
    sink = Sinks(sinks)
    source = ReplaySource(lambda: demo.frames(loop.commands), fps)
    loop = LiveLoop(source, detect, store, setup_of(cfg), sink, gate=cfg.gate)
    if started is not None:
        started(loop)
    t0 = time.perf_counter()
    loop.run()
    elapsed = time.perf_counter() - t0
    sink.close()
    make_gif(out / "display", out / "demo.gif")
    return loop, demo, elapsed


def make_gif(frames_dir: Path, gif: Path, ms: int = 700) -> bool:
    """An animated GIF of the display frames (Pillow); False when there are none."""
    from PIL import Image

    files = sorted(frames_dir.glob("*.png"))
    if not files:
        return False
    images = [Image.open(f).convert("RGB") for f in files]
    durations = [ms] * (len(images) - 1) + [3000]
    images[0].save(gif, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)
    return True
