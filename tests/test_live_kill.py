import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from live_fakes import frame_of  # noqa: F401  (the driver imports the same fakes)
from live_kill_driver import HOLD_S, game, script

from tantrix_pi.live.store import Store

DRIVER = Path(__file__).with_name("live_kill_driver.py")
FPS = 40.0
MOVES = 8


def test_kill_minus_nine_at_random_moments_loses_and_doubles_no_move(tmp_path):
    frames = sum(s.frames for s in script(game(MOVES), still=10, hand=4))
    duration = frames / FPS
    t0 = time.time() + 0.5
    rng = random.Random(os.getpid())
    kills = sorted(rng.uniform(0.8, duration - 0.5) for _ in range(3))
    args = [sys.executable, str(DRIVER), str(tmp_path), str(t0), str(FPS), str(MOVES)]
    proc = subprocess.Popen(args)
    for at in kills:
        time.sleep(max(0.0, t0 + at - time.time()))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc = subprocess.Popen(args)
    assert proc.wait(timeout=duration + HOLD_S + 30) == 0
    store = Store(tmp_path / "state.db")
    game_id, _ = store.current_game()
    stored = [m.placement for m in store.moves(game_id)]
    assert sorted(stored) == sorted(game(MOVES)), f"killed at {kills} s"
    assert len(set(stored)) == len(stored), f"killed at {kills} s"
    placed = [e.data["tile"] for e in store.events(game_id) if e.kind in ("placed", "illegal")]
    assert sorted(placed) == sorted(p.tile for p in game(MOVES))  # each placement announced exactly once
