"""The state folder going wrong under the service: read-only, full, shared by two referees; the events stream."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys

import cv2
import pytest
from unprivileged import open_folder, run_cli

from tantrix_pi.board import Board
from tantrix_pi.cli import main
from tantrix_pi.live.store import Store
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


def service_config(folder, state, fps: float = 0.0) -> str:
    """A config for `run` on three photos of an empty table, its state in `state`."""
    frames = folder / "frames"
    frames.mkdir(exist_ok=True)
    image = render(Board(), seed=1, size=(320, 240))[0]
    for i in range(3):
        cv2.imwrite(str(frames / f"{i}.png"), image)
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
    config = service_config(tmp_path, state, fps=1.0)
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
    assert main(["run", "--config", config]) == 0  # once the first has stopped, the folder is free
