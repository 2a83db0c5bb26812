"""`tantrix-pi demo`: a whole 2-player game, photographed by the project's renderer, through the live loop.

The recording is bundled as a game record plus render settings (`data/demo-game.json`); the frames are
drawn on the fly, deterministically, by `tantrix_pi.simulator.render`: each tile brought in by a hand (frames
with motion), the table still in between, and one illegal placement that the players take back. The
loop is the one `run` drives; only the source (this replay) and the state folder (a fresh one) differ.
"""

from __future__ import annotations

import multiprocessing
import queue
import shutil
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tantrix_pi.board import Board, Placement
from tantrix_pi.devices.sources import ReplaySource
from tantrix_pi.grid import axial, centre
from tantrix_pi.i18n import _
from tantrix_pi.live import config as config_mod
from tantrix_pi.live.commands import pressed
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import Scene, load_record, placements, script, turn_ends
from tantrix_pi.live.service import NotAvailable, make_detector, setup_of
from tantrix_pi.live.sinks import ConsoleSink, JsonLinesSink, MemorySink, Sink, Sinks
from tantrix_pi.live.store import Store

STILL, HAND = 3, 1
"""Frames per still table and per hand pass in the demo recording (the demo runs with stable_frames 2: the
first still frame after a hand is motion, the next two agree)."""


@dataclass
class Demo:
    """The demo's recording: the game's placements and how to photograph it."""

    moves: list[Placement]
    players: list[str]
    scenes: list[Scene]
    render: dict

    @classmethod
    def bundled(cls, still: int = STILL, hand: int = HAND, moves: int | None = None, **render) -> Demo:
        """The bundled game (its first `moves` placements), `render` overriding size, tile_px, ..."""
        rec = load_record()
        moves = placements(rec)[:moves]
        d = rec["demo"]
        pts = np.array([centre(p.cell) for p in moves])
        mx, my = (pts.min(axis=0) + pts.max(axis=0)) / 2  # the whole game's middle stays put in the photos
        focus = tuple(float(v) for v in axial(mx, my))
        render = {"seed": d["photo_seed"], "size": tuple(d["size"]), "yaw_deg": d["yaw_deg"],
                  "tile_px": d["tile_px"], "focus": focus, **render}
        illegal = d["illegal_after"] if d["illegal_after"] < len(moves) else None
        return cls(moves, rec["players"], script(moves, still, hand, illegal, turn_ends(rec)), render)

    def shots(self) -> Iterator[tuple[Board, tuple[float, float] | None, int, int, str | None]]:
        """(board, hand reach or None, frame number, times shown, button pressed after) for each photo."""
        w, h = self.render["size"]
        for i, scene in enumerate(self.scenes):
            if scene.hand:
                for j in range(scene.frames):
                    t = (j + 1) / (scene.frames + 1)
                    yield scene.board, (w * (0.2 + 0.5 * t), h * (0.3 + 0.1 * (i % 4))), i * 100 + j, 1, None
            else:  # a still table: one photo, several frames
                yield scene.board, None, i * 100, scene.frames, scene.press

    def frames(self, commands: queue.Queue | None = None, ahead: int = 3) -> Iterator[np.ndarray]:
        """Every frame of the recording, photographed `ahead` shots in advance by a worker process; the
        players' button presses go into `commands` (the loop's queue) when their scene has been shown."""
        shots = iter(self.shots())
        pending: deque = deque()
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            def submit() -> None:
                shot = next(shots, None)
                if shot is not None:
                    board, reach, frame, times, press = shot
                    pending.append((pool.submit(photograph, board, reach, frame, self.render), times, press))

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


def photograph(board: Board, reach: tuple[float, float] | None, frame: int, options: dict) -> np.ndarray:
    """One photo of the demo's table by the simulator (a hand reaching to `reach` when given)."""
    from tantrix_pi.simulator import render

    return render(board, occluder=reach, frame=frame, **options)[0]


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
                                "gate": {"stable_frames": 2},
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
