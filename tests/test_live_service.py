import json
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
from live_fakes import detect_frame, scene_frames
from live_kill_driver import DRIVER_PATH, game

from tantrix_pi.cli import main
from tantrix_pi.devices.sources import sequence_source
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import script
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sdnotify import Notifier
from tantrix_pi.live.sinks import MemorySink
from tantrix_pi.live.store import Store


def test_bad_config_is_one_line_and_exit_2(tmp_path, capsys):
    f = tmp_path / "config.toml"
    f.write_text('[camera]\nsource = "picamera2"\n[mode]\nkind = "chess"\n')
    assert main(["run", "--config", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mode.kind = 'chess' is wrong" in err


def test_missing_config_file(tmp_path, capsys):
    assert main(["run", "--config", str(tmp_path / "nope.toml")]) == 2
    assert "no such config file" in capsys.readouterr().err


def played(tmp_path, moves=5, illegal_at=None):
    frames = scene_frames(script(game(moves), still=4, hand=2, illegal_at=illegal_at))
    store = Store(tmp_path / "state.db")
    loop = LiveLoop(sequence_source(frames), detect_frame, store, Setup(), MemorySink())
    loop.run()
    store.close()
    return loop


def test_game_export_writes_the_record(tmp_path, capsys):
    played(tmp_path, 5)
    out = tmp_path / "record.json"
    assert main(["game", "export", "--state-dir", str(tmp_path), "--out", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["players"] == ["red", "blue"]
    assert [(m["tile"], m["q"], m["r"], m["rot"]) for m in rec["moves"]] == \
        [(p.tile, p.q, p.r, p.rot) for p in game(5)]
    assert rec["moves"][0]["player"] == "red"
    assert main(["game", "replay", str(out)]) == 0  # the engine accepts the exported record move by move
    capsys.readouterr()
    assert main(["game", "export", "--state-dir", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out) == rec


def test_game_export_of_a_corrupt_database_keeps_it(tmp_path, capsys):
    db = tmp_path / "state.db"
    db.write_bytes(b"\x00garbage" * 300)
    assert main(["game", "export", "--state-dir", str(tmp_path)]) == 2
    assert "damaged" in capsys.readouterr().err
    assert db.read_bytes() == b"\x00garbage" * 300
    assert main(["game", "export", "--state-dir", str(tmp_path / "empty")]) == 2


def test_service_moves_a_corrupt_database_aside_and_starts_fresh(tmp_path):
    db = tmp_path / "state.db"
    db.write_bytes(b"not a database" * 200)
    loop = played(tmp_path, 2)
    assert loop.store.moved_aside is not None
    assert loop.store.moved_aside.read_bytes() == b"not a database" * 200
    assert len(Store(db).moves(loop.game)) == 2


def test_sd_notify_datagrams(tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.bind(path)
        s.settimeout(2)
        n = Notifier(path, every=1.0)
        assert n.ready("camera up")
        assert s.recv(100) == b"READY=1\nSTATUS=camera up"
        assert n.watchdog(now=10.0) and not n.watchdog(now=10.5) and n.watchdog(now=11.2)
        assert [s.recv(100), s.recv(100)] == [b"WATCHDOG=1", b"WATCHDOG=1"]
    assert not Notifier("").ready()  # outside systemd: nothing, no error


def test_loop_sends_ready_when_the_camera_is_up_and_pings_the_watchdog(tmp_path):
    path = str(tmp_path / "notify")
    got = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.bind(path)
        s.settimeout(0.1)
        done = threading.Event()

        def listen():
            while True:
                try:
                    got.append(s.recv(200).decode())
                except TimeoutError:
                    if done.is_set():
                        return

        listener = threading.Thread(target=listen)
        listener.start()
        frames = scene_frames(script(game(2), still=4, hand=2))

        def slow_detect(img, on_board=(), lying=()):
            time.sleep(0.002)  # let the listener keep up, as systemd would
            return detect_frame(img)

        loop = LiveLoop(sequence_source(frames, fps=200), slow_detect, Store(tmp_path / "s.db"), Setup(),
                        MemorySink(), notifier=Notifier(path, every=0.0))
        loop.run()
        done.set()
        listener.join()
    assert got[0] == "WATCHDOG=1" and got[1].startswith("READY=1")
    assert got.count("WATCHDOG=1") >= len(frames) and got[-1] == "STOPPING=1"


@pytest.mark.skipif(sys.platform != "linux", reason="signals")
def test_sigterm_stops_cleanly(tmp_path):
    t0 = time.time()
    proc = subprocess.Popen([sys.executable, DRIVER_PATH, str(tmp_path), str(t0), "20", "6", "--say-ready"],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"  # the handler is in place: however slow the start, stop now
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0 and out.startswith("stopped after")
    store = Store(tmp_path / "state.db")
    assert store.current_game() is not None  # the database was closed cleanly and opens


def test_state_folder_that_cannot_be_made_is_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["game", "export", "--state-dir", str(blocker / "state")]) == 2
    with pytest.raises(Exception) as e:
        Store(blocker / "state" / "state.db")
    assert "cannot make the state folder" in str(e.value) and e.value.exit_code == 2


def test_a_sigterm_while_starting_stops_the_loop_once_it_exists(tmp_path):
    import os

    from tantrix_pi.commands.live import StopRequest

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        request = StopRequest()
        os.kill(os.getpid(), signal.SIGTERM)  # systemd stops the service before the camera is even opened
        loop = LiveLoop(sequence_source(scene_frames(script(game(2), still=4, hand=2))), detect_frame,
                        Store(tmp_path / "state.db"), Setup(), MemorySink())
        request.attach(loop)
        assert loop.run() == 0  # not one frame read
    finally:
        signal.signal(signal.SIGTERM, before[0])
        signal.signal(signal.SIGINT, before[1])
