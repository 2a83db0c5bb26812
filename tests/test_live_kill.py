import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from live_fakes import frame_of  # noqa: F401  (the driver imports the same fakes)
from live_kill_driver import game

from tantrix_pi.live.store import Store

DRIVER = Path(__file__).with_name("live_kill_driver.py")
FPS = 40.0
MOVES = 8
SEED = 19


def announced(events: Path) -> int:
    """How many placements the referees have announced (and so stored) so far."""
    if not events.exists():
        return 0
    kinds = []
    for line in events.read_text().splitlines():
        try:
            kinds.append(json.loads(line)["kind"])
        except json.JSONDecodeError:  # the line a killed referee was writing
            pass
    return sum(kind in ("placed", "illegal") for kind in kinds)


def wait_until(condition, proc, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, "the referee ended before the condition"
        assert time.monotonic() < deadline, "the condition never came"
        time.sleep(0.005)


def test_kill_minus_nine_at_random_moments_loses_and_doubles_no_move(tmp_path):
    # each kill comes after the k-th placement is announced, a seeded fraction of a frame later: between the
    # commits of a placement and during them, wherever the machine's speed puts the referee then
    rng = random.Random(SEED)
    kills = sorted(rng.sample(range(1, MOVES), 3))
    jitter = [rng.uniform(0.0, 2.0 / FPS) for _ in kills]
    args = [sys.executable, str(DRIVER), str(tmp_path), str(time.time() + 0.5), str(FPS), str(MOVES)]
    proc = subprocess.Popen(args)
    for k, extra in zip(kills, jitter, strict=True):
        wait_until(lambda k=k: announced(tmp_path / "events.jsonl") >= k, proc)
        time.sleep(extra)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc = subprocess.Popen(args)
    assert proc.wait(timeout=120) == 0
    store = Store(tmp_path / "state.db")
    game_id, _ = store.current_game()
    stored = [m.placement for m in store.moves(game_id)]
    assert sorted(stored) == sorted(game(MOVES)), f"killed after placements {kills}"
    assert len(set(stored)) == len(stored), f"killed after placements {kills}"
    placed = [e.data["tile"] for e in store.events(game_id) if e.kind in ("placed", "illegal")]
    assert sorted(placed) == sorted(p.tile for p in game(MOVES))  # each placement announced exactly once
