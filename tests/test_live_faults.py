"""The state folder going wrong under the service: read-only, full, shared by two referees; the events stream."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys

import cv2
import pytest
from live_fakes import detect_frame, scene_frames
from unprivileged import open_folder, run_cli

from tantrix_pi.board import Board
from tantrix_pi.cli import main
from tantrix_pi.devices.sources import EndOfRecording, FrameSource
from tantrix_pi.live.commands import NewGame
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import game_moves, script
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.saving import SaveQueue
from tantrix_pi.live.sinks import MemorySink
from tantrix_pi.live.store import Played, Store, WriteError
from tantrix_pi.simulator import render


@pytest.fixture
def shared():
    """A folder the unprivileged child may use (removed afterwards)."""
    folder = open_folder()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def signals():
    """`run` installs its own SIGTERM/SIGINT handlers: put pytest's back afterwards."""
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGTERM, before[0])
    signal.signal(signal.SIGINT, before[1])


def service_config(folder, state, fps: float = 0.0, photos: int = 3) -> str:
    """A config for `run` on `photos` photos of an empty table, its state in `state`."""
    frames = folder / "frames"
    frames.mkdir(exist_ok=True)
    image = render(Board(), seed=1, size=(320, 240))[0]
    for i in range(photos):
        cv2.imwrite(str(frames / f"{i:02d}.png"), image)
    cfg = folder / "config.toml"
    cfg.write_text(f'[camera]\nsource = "folder"\npath = "{frames}"\nfps = {fps}\n[paths]\nstate_dir = "{state}"\n')
    cfg.chmod(0o644)
    return str(cfg)


def stored_game(state) -> None:
    store = Store(state / "state.db")
    game = store.new_game({"mode": "game", "players": ["R", "B"], "puzzle": None})
    store.commit(game, Board())
    store.close()


def rehearsal(argv, folder, tmp_path):
    """`argv` on a copy of `folder` (see run_cli)."""
    copy = tmp_path / "rehearsal"
    shutil.copytree(folder, copy)
    for p in copy.rglob("*.toml"):
        p.write_text(p.read_text().replace(str(folder), str(copy)))
    return [a.replace(str(folder), str(copy)) for a in argv]


def test_a_read_only_state_database_is_refused_at_start_in_one_line(shared, tmp_path):
    state = shared / "state"
    state.mkdir(mode=0o777)
    state.chmod(0o777)
    stored_game(state)
    (state / "state.db").chmod(0o444)
    argv = ["run", "--config", service_config(shared, state)]
    code, out, err = run_cli(argv, rehearsal(argv, shared, tmp_path))
    assert code == 2, err
    assert err.count("\n") == 1 and "cannot write its state database (attempt to write a readonly database)" in err
    assert "Resuming" not in out


def test_game_export_reads_a_state_folder_it_cannot_write(shared, tmp_path):
    state = shared / "state"
    state.mkdir(mode=0o755)  # root's: the child can read it but make no file in it (no -wal, no -shm)
    state.chmod(0o755)
    stored_game(state)
    assert sorted(p.name for p in state.iterdir()) == ["state.db"]
    (state / "state.db").chmod(0o644)
    argv = ["game", "export", "--state-dir", str(state)]
    code, out, err = run_cli(argv, rehearsal(argv, shared, tmp_path))
    assert (code, err) == (0, "")
    assert json.loads(out)["players"] == ["red", "blue"]
    assert sorted(p.name for p in state.iterdir()) == ["state.db"]


def test_a_second_run_on_the_same_state_folder_is_refused(tmp_path, capsys):
    state = tmp_path / "state"
    config = service_config(tmp_path, state, fps=1.0, photos=60)  # a minute: still running when the second starts
    first = subprocess.Popen([sys.executable, "-m", "tantrix_pi", "run", "--config", config], text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for line in first.stdout:  # the first holds the folder from before it says so
            if "referee started" in line or "Traceback" in line:
                break
        assert "referee started" in line
        assert main(["run", "--config", config]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"another tantrix-pi run (process {first.pid}) is refereeing" in err
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)
    assert first.returncode == 0
    again = tmp_path / "again"
    again.mkdir()
    assert main(["run", "--config", service_config(again, state)]) == 0  # once the first has stopped, it is free


class FillingDisk(FrameSource):
    """Frames of a game, with the state disk filling up at frame `full` and space freed at frame `freed`
    (SQLite's page limit: the same "database or disk is full" a full SD card gives)."""

    def __init__(self, frames, store, full, freed):
        self.frames, self.store, self.full, self.freed = list(frames), store, full, freed
        self.i = 0

    def read(self):
        if self.i == len(self.frames):
            raise EndOfRecording()
        if self.i == self.full:  # no page more: the game fills what space its pages have left, then no more
            pages = self.store.db.execute("PRAGMA page_count").fetchone()[0]
            self.store.db.execute(f"PRAGMA max_page_count = {pages}")
        if self.i == self.freed:
            self.store.db.execute("PRAGMA max_page_count = 1000000")
        self.i += 1
        return self.frames[self.i - 1]


def test_a_full_state_disk_keeps_the_game_in_memory_and_on_the_screen_until_it_is_saved(tmp_path):
    moves = game_moves(3)[:24]
    frames = scene_frames(script(moves, still=4, hand=2))
    store = Store(tmp_path / "state.db")
    sink = MemorySink()
    per_move = len(frames) // len(moves)
    loop = LiveLoop(FillingDisk(frames, store, full=0, freed=20 * per_move), detect_frame, store, Setup(), sink,
                    saves=SaveQueue(retry_s=0.0))
    loop.run()
    said = [e.text for e in sink.events if e.kind == "storage"]
    assert said == ["Can't save the game (database or disk is full): refereeing goes on from memory until it can "
                    "be saved.", "The game is saved again."]
    first, last = (i for i, e in enumerate(sink.events) if e.kind == "storage")
    placed_meanwhile = [e.data["tile"] for e in sink.events[first:last] if e.kind == "placed"]
    assert len(placed_meanwhile) >= 3  # refereed from memory while nothing could be written
    shown = [v.message for v in sink.views]
    k = next(i for i, message in enumerate(shown) if message.startswith("Can't save the game"))
    assert shown[k + 1].startswith("Can't save the game")  # the message stays up while moves are announced
    assert [e.data["tile"] for e in sink.events if e.kind == "placed"] == [p.tile for p in moves]
    assert [m.placement for m in store.moves(loop.game)] == moves  # nothing lost once space came back
    assert [e.kind for e in store.events(loop.game)].count("placed") == len(moves)
    store.close()
    resumed = Store(tmp_path / "state.db")
    assert resumed.board(loop.game) == Board(moves)


def test_a_new_game_is_refused_while_the_game_cannot_be_saved(tmp_path):
    store = Store(tmp_path / "state.db")
    frames = scene_frames(script(game_moves(3)[:24], still=4, hand=2))
    loop = LiveLoop(FillingDisk(frames, store, full=0, freed=10 ** 6), detect_frame, store, Setup(), MemorySink())
    while not loop.saves.waiting:
        assert loop.step(), "the disk never filled"
    game = loop.game
    loop.commands.put(NewGame())
    loop.step()
    assert loop.game == game and store.current_game()[0] == game
    assert loop.sink.events[-1].kind == "refused"
    assert "No new game while the game cannot be saved (database or disk is full)" in loop.sink.events[-1].text


def test_the_save_queue_tries_what_waits_every_retry_s_oldest_first_and_says_it_once(tmp_path):
    clock, full, written = [0.0], [True], []

    def write(n):
        def run():
            if full[0]:
                raise WriteError(tmp_path / "state.db", "database or disk is full")
            written.append(n)
        return run

    saves = SaveQueue(retry_s=1.0, clock=lambda: clock[0])
    assert [e.data for e in saves.save(write(1))] == [{"saved": False, "reason": "database or disk is full"}]
    assert saves.save(write(2)) == [] and saves.reason == "database or disk is full"  # said once
    clock[0] = 0.9
    assert not saves.due()
    clock[0] = 1.0
    assert saves.due() and saves.flush() == [] and not saves.due()  # still full: the next try a second later
    full[0] = False
    clock[0] = 2.0
    assert saves.due() and [e.text for e in saves.flush()] == ["The game is saved again."]
    assert written == [1, 2] and saves.reason is None and not saves.waiting


@pytest.mark.parametrize("damage", ["corrupt", "empty"])
def test_after_a_damaged_or_emptied_database_the_new_game_starts_a_new_event_stream(tmp_path, damage):
    from test_live_run import photos

    frames = tmp_path / "frames"
    frames.mkdir()
    moves = game_moves(5, 3)
    photos(frames, moves)
    state = tmp_path / "state"
    config = tmp_path / "config.toml"
    config.write_text(f'[camera]\nsource = "folder"\npath = "{frames}"\n[paths]\nstate_dir = "{state}"\n')

    def stream(path):
        return [json.loads(line) for line in path.read_text().splitlines()]

    assert main(["run", "--config", str(config)]) == 0
    first = stream(state / "events.jsonl")
    assert {e["game"] for e in first} == {1}
    db = state / "state.db"
    db.write_bytes(b"not a database " * 100 if damage == "corrupt" else b"")
    assert main(["run", "--config", str(config)]) == 0
    second = stream(state / "events.jsonl")
    assert [e["data"]["tile"] for e in second if e["kind"] == "placed"] == [p.tile for p in moves]  # once each
    assert {e["game"] for e in second} == {1}
    [old] = state.glob("events.jsonl.old-*")
    assert stream(old) == first


def test_a_full_state_disk_at_start_stops_run_in_one_line(tmp_path, capsys):
    state = tmp_path / "state"
    state.mkdir()
    (state / "state.db.lock").symlink_to("/dev/full")  # every write to it: ENOSPC, as on a full card
    assert main(["run", "--config", service_config(tmp_path, state)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "state.db.lock: cannot write the lock file (No space left on device)" in err


def test_an_events_file_on_a_full_disk_costs_no_traceback_at_exit(tmp_path, capsys, caplog):
    from test_live_run import photos

    frames = tmp_path / "frames"
    frames.mkdir()
    photos(frames, game_moves(1, 2)[:1])
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[camera]\nsource = "folder"\npath = "{frames}"\n[web]\nenabled = false\n'
                   f'[paths]\nstate_dir = "{tmp_path / "state"}"\nevents = "/dev/full"\n')
    assert main(["run", "--config", str(cfg)]) == 0  # the game is saved: stopping is an ordinary stop
    out, err = capsys.readouterr()
    assert "plays tile" in out and err == ""
    failed = [r.getMessage() for r in caplog.records if "JsonLinesSink failed" in r.getMessage()]
    assert len(failed) == 1 and "No space left on device" in failed[0]  # said once, at the first write
    assert any("JsonLinesSink could not close" in r.getMessage() for r in caplog.records)


def test_game_export_reads_the_write_ahead_log_of_a_folder_it_cannot_write(shared, tmp_path):
    live = shared / "live"
    live.mkdir()
    store = Store(live / "state.db")
    game = store.new_game({"mode": "free", "players": [], "puzzle": None})
    moves = game_moves(2)[:12]
    for seq, p in enumerate(moves):
        store.commit(game, Board(moves[:seq + 1]), added=[Played(seq, None, p, True)])
    state = shared / "state"  # a copy taken while the referee ran: the last moves are in state.db-wal only
    state.mkdir(mode=0o755)
    state.chmod(0o755)
    for name in ("state.db", "state.db-wal"):
        shutil.copy(live / name, state / name)
        (state / name).chmod(0o644)
    store.close()
    argv = ["game", "export", "--state-dir", str(state)]
    code, out, err = run_cli(argv, rehearsal(argv, shared, tmp_path))
    assert (code, err) == (0, "")
    assert [m["tile"] for m in json.loads(out)["moves"]] == [p.tile for p in moves]
    assert sorted(p.name for p in state.iterdir()) == ["state.db", "state.db-wal"]  # nothing written there
