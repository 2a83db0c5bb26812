"""`tantrix-pi run` as systemd runs it: a subprocess, a config file, READY=1 and the watchdog, SIGTERM."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import pytest

from tantrix_pi import simulator
from tantrix_pi.board import Board
from tantrix_pi.live.recording import game_moves

ROOT = Path(__file__).resolve().parents[1]


def photos(folder: Path, moves) -> None:
    """Still tables and hands, as JPEG files in name order, drawn by the project's renderer."""
    n = 0
    board = Board()
    opts = {"seed": 3, "size": (800, 600), "tile_px": 80, "focus": (0.0, 0.0)}

    def shot(img, times):
        nonlocal n
        for _ in range(times):
            cv2.imwrite(str(folder / f"{n:04d}.jpg"), img)
            n += 1

    shot(simulator.render(board, **opts)[0], 3)
    for p in moves:
        shot(simulator.render(board, occluder=(300.0, 250.0), **opts)[0], 1)
        board.place(p)
        shot(simulator.render(board, **opts)[0], 4)


def config(tmp_path: Path, frames: Path, fps: float) -> Path:
    f = tmp_path / "config.toml"
    f.write_text(f'[camera]\nsource = "folder"\npath = "{frames}"\nfps = {fps}\n'
                 f'[paths]\nstate_dir = "{tmp_path / "state"}"\n')
    return f


class Listener:
    """systemd's side of sd_notify: collects the datagrams sent to `path`."""

    def __init__(self, path: str) -> None:
        self.got: list[str] = []
        self.done = threading.Event()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.1)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.is_set():
            try:
                self.got.append(self.sock.recv(200).decode())
            except TimeoutError:
                pass

    def wait_for(self, prefix: str, timeout: float = 60.0) -> bool:
        """Whether a datagram starting with `prefix` came within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(m.startswith(prefix) for m in list(self.got)):
                return True
            time.sleep(0.02)
        return False

    def close(self) -> list[str]:
        self.done.set()
        self.thread.join()
        self.sock.close()
        return self.got


def tantrix_pi(args, notify: str):
    env = {**os.environ, "NOTIFY_SOCKET": notify, "WATCHDOG_USEC": "200000", "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tantrix_pi", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def start_run(tmp_path: Path, moves, fps: float):
    """`tantrix-pi run` on photos of `moves` replayed at `fps`, with a Listener on its notify socket."""
    frames = tmp_path / "frames"
    frames.mkdir()
    photos(frames, moves)
    listener = Listener(str(tmp_path / "notify"))
    proc = tantrix_pi(["run", "--config", str(config(tmp_path, frames, fps))], str(tmp_path / "notify"))
    return frames, listener, proc


def test_run_referees_a_recording_like_a_service(tmp_path):
    moves = game_moves(5, 2)
    _, listener, proc = start_run(tmp_path, moves, 0)
    out, _ = proc.communicate(timeout=120)
    got = listener.close()
    assert proc.returncode == 0, out
    assert any(m.startswith("READY=1") for m in got) and "WATCHDOG=1" in got
    events = [json.loads(line) for line in (tmp_path / "state" / "events.jsonl").read_text().splitlines()]
    assert [e["data"]["tile"] for e in events if e["kind"] == "placed"] == [p.tile for p in moves]
    assert "Red plays tile" in out and "Traceback" not in out


def test_sigterm_stops_run_cleanly_and_the_game_resumes(tmp_path):
    moves = game_moves(5, 5)
    frames, listener, proc = start_run(tmp_path, moves, 4)
    # 4 frames a second, 28 frames: stop once the camera is up and the first tile is announced, however
    # slow the machine is to start (the signal handler is in place before READY=1)
    assert listener.wait_for("READY=1"), "no READY=1"
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if " plays tile " in line:
            break
    proc.send_signal(signal.SIGTERM)
    rest, _ = proc.communicate(timeout=60)
    out = "".join(lines) + rest
    got = listener.close()
    assert proc.returncode == 0, out
    assert "STOPPING=1" in got and "referee stopped" in out
    before = out.count(" plays tile ")
    assert 0 < before < len(moves), out
    # back up: the camera now sees the finished table; only the tiles not yet announced are announced
    final = tmp_path / "final"
    final.mkdir()
    last = sorted(frames.iterdir())[-1]
    for i in range(6):
        (final / f"{i:04d}.jpg").write_bytes(last.read_bytes())
    proc = tantrix_pi(["run", "--config", str(config(tmp_path, final, 0))], str(tmp_path / "notify2"))
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0 and "Resuming game 1" in out, out
    assert out.count(" plays tile ") == len(moves) - before and "removed" not in out, out


def test_a_hand_resting_over_a_photographed_board_yields_no_event(tmp_path):
    from tantrix_pi.devices.sources import sequence_source
    from tantrix_pi.live.loop import LiveLoop
    from tantrix_pi.live.referee import Setup
    from tantrix_pi.live.sinks import MemorySink
    from tantrix_pi.live.store import Store
    from tantrix_pi.vision import detect

    board = Board(game_moves(5, 8))
    opts = {"seed": 3, "size": (800, 600), "tile_px": 80, "focus": (0.0, 0.0)}
    table = simulator.render(board, **opts)[0]
    frames = [table] * 5
    for reach in ((330.0, 260.0), (420.0, 300.0)):  # the hand comes, rests, moves, rests, goes
        frames += [simulator.render(board, occluder=reach, **opts)[0]] * 8
    frames += [table] * 5
    sink = MemorySink()
    loop = LiveLoop(sequence_source(frames), detect, Store(tmp_path / "s.db"), Setup(), sink)
    loop.run()
    first = len(board)
    placed = [e for e in sink.events if e.kind == "placed"]
    assert len(placed) == first
    after = sink.events[sink.events.index(placed[-1]) + 1:]
    assert [e.kind for e in after if e.kind not in ("forced", "scores")] == []
    assert loop.stats.detected >= 12  # the resting hand was looked at, not just skipped


def test_demo_pipeline_on_the_first_tiles_of_the_bundled_game(tmp_path):
    from tantrix_pi.live.demo import run_demo
    from tantrix_pi.live.tracker import apply, register

    loop, demo, _ = run_demo(tmp_path / "out", console=False, moves=5)
    stored = [m.placement for m in loop.store.moves(loop.game)]
    t = register(Board(demo.moves), stored)
    assert [apply(t, p) for p in stored] == demo.moves
    events = (tmp_path / "out" / "events.jsonl").read_text().splitlines()
    assert sum('"kind": "placed"' in e for e in events) == 5
    assert loop.stats.skipped >= 5  # every tile came with a hand


def test_a_game_under_a_warm_lamp_on_dark_wood_announces_every_move(tmp_path):
    # the table darker than the tiles' rims, a 2700 K lamp the camera only half corrects, hands between moves
    from tantrix_pi.devices.sources import sequence_source
    from tantrix_pi.grid import neighbours
    from tantrix_pi.live.config import GateConfig
    from tantrix_pi.live.demo import Demo
    from tantrix_pi.live.loop import LiveLoop
    from tantrix_pi.live.referee import Setup
    from tantrix_pi.live.sinks import MemorySink
    from tantrix_pi.live.store import Store
    from tantrix_pi.live.tracker import apply_cell, register
    from tantrix_pi.vision import detect

    demo = Demo.bundled(4, 2, 6, table="dark_wood", light_k=2700.0, awb=0.3, exposure=0.75)
    frames = [demo.photograph(shot) for shot in demo.shots() for _ in range(shot.times)]
    sink = MemorySink()
    loop = LiveLoop(sequence_source(frames), detect, Store(tmp_path / "s.db"), Setup("game", ["R", "Y"]), sink,
                    gate=GateConfig(stable_frames=2))
    loop.run()
    assert [e.data["tile"] for e in sink.events if e.kind == "placed"] == [p.tile for p in demo.moves]
    final = Board(demo.moves)
    near = final.cells | {c for cell in final.cells for c in neighbours(cell)}
    t = register(final, list(loop.tracker.committed))
    unsure = [e for e in sink.events if e.kind == "unsure"]
    assert all(apply_cell(t, tuple(c)) in near for e in unsure for c in e.data["cells"])
    assert all(a.data != b.data for a, b in zip(unsure, unsure[1:], strict=False))


def test_a_tile_turned_between_two_frames_is_announced_as_turned_not_as_a_misread(tmp_path):
    # a quick hand (or a slow camera): no frame shows the hand that turned the illegal tile to its legal turn
    from tantrix_pi.devices.sources import sequence_source
    from tantrix_pi.live.demo import Demo
    from tantrix_pi.live.loop import LiveLoop
    from tantrix_pi.live.recording import Behaviours
    from tantrix_pi.live.referee import Setup
    from tantrix_pi.live.sinks import MemorySink
    from tantrix_pi.live.store import Store
    from tantrix_pi.live.tracker import apply, register
    from tantrix_pi.vision import detect

    demo = Demo.bundled(5, 0, 3, Behaviours(turned=2))
    frames = [demo.photograph(shot) for shot in demo.shots() for _ in range(shot.times)]
    sink = MemorySink()
    loop = LiveLoop(sequence_source(frames), detect, Store(tmp_path / "s.db"), Setup("game", ["R", "Y"]), sink)
    loop.run()
    said = [(e.kind, e.data.get("tile")) for e in sink.events if e.kind in ("placed", "illegal", "corrected")]
    last = demo.moves[2].tile
    assert said == [("placed", demo.moves[0].tile), ("placed", demo.moves[1].tile), ("illegal", last), ("placed", last)]
    assert "turned" in [e.text for e in sink.events if e.kind == "placed"][-1]
    stored = [m.placement for m in loop.store.moves(loop.game)]
    t = register(Board(demo.moves), stored)
    assert [apply(t, p) for p in stored] == demo.moves


@pytest.mark.parametrize("slip", [{"moved": 1}, {"turned": 1}])
def test_the_game_s_second_tile_laid_against_the_golden_rule_is_illegal_and_the_first_stays(tmp_path, slip):
    # two touching tiles whose colours do not meet are loose tiles to a photo check; to a referee holding the first of
    # them on the table they are its board (taken as loose, the first tile was announced taken back and the illegal
    # second never said). Then the second is moved, or turned, into place: the detector numbers its grid from where
    # the tiles lie, and the tile that stayed put in the picture tells which of the two moved (else the first was
    # taken for moved, and every later tile did not touch the board)
    from tantrix_pi.devices.sources import sequence_source
    from tantrix_pi.live.demo import Demo
    from tantrix_pi.live.loop import LiveLoop
    from tantrix_pi.live.recording import Behaviours
    from tantrix_pi.live.referee import Setup
    from tantrix_pi.live.sinks import MemorySink
    from tantrix_pi.live.store import Store
    from tantrix_pi.vision import detect

    demo = Demo.bundled(5, 2, 4, Behaviours(**slip), size=(1640, 1232), tile_px=110.0)
    frames = [demo.photograph(shot) for shot in demo.shots() for _ in range(shot.times)]
    sink = MemorySink()
    loop = LiveLoop(sequence_source(frames), detect, Store(tmp_path / "s.db"), Setup("game", ["R", "Y"]), sink)
    loop.run()
    said = [(e.kind, e.data.get("tile")) for e in sink.events
            if e.kind in ("placed", "illegal", "taken_back", "removed", "unsure")]
    tiles = [p.tile for p in demo.moves]
    assert said == [("placed", tiles[0]), ("illegal", tiles[1]), *[("placed", t) for t in tiles[1:]]]
    assert [m.placement.tile for m in loop.store.moves(loop.game)] == tiles
    assert all(m.legal for m in loop.store.moves(loop.game))


def test_the_first_tile_of_a_game_without_hand_zones_is_seen_among_the_face_up_hands(tmp_path):
    # the players' tiles lie face up along the frame's edges, but no zones were set: the first tile laid is one lone
    # tile among the hands' lone tiles, so a photo has no board. The referee saw the hands lying there while the table
    # was empty: the tile laid where none lay is the first (else it waited for the second, and both were credited to
    # the first player)
    from tantrix_pi.devices.sources import ReplaySource
    from tantrix_pi.live.demo import Demo
    from tantrix_pi.live.loop import LiveLoop
    from tantrix_pi.live.recording import letters
    from tantrix_pi.live.referee import Setup
    from tantrix_pi.live.service import make_detector
    from tantrix_pi.live.sinks import MemorySink
    from tantrix_pi.live.store import Store

    demo = Demo.selfplay(2, 203, 5, 2, 3, hands=True)
    sink = MemorySink()
    loop = LiveLoop(ReplaySource(lambda: demo.frames(loop.commands)), make_detector(""), Store(tmp_path / "s.db"),
                    Setup("game", letters(demo.players)), sink)
    loop.run()
    placed = [(e.data["tile"], e.data["player"]) for e in sink.events if e.kind == "placed"]
    assert placed == [(p.tile, who) for p, who in zip(demo.moves, demo.movers, strict=True)]
    assert not [e for e in sink.events if e.kind in ("illegal", "taken_back", "removed", "unsure")]
