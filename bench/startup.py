"""How fast the command line starts: wall time of whole processes, in turns of a bare `python -c pass`.

    ./run.sh python bench/startup.py [--runs N] [--root DIR]

Runs each command N times (default 15), interleaved so that the machine's load falls on all alike, and prints
the median and the 90th percentile in ms, and the median in turns. `--root DIR` times the package of another
checkout (an export of an older commit, with `tantrix_pi/vision` and `tantrix_pi/calibration` linked to its
`vision/` and `calibration/`), run from there with this Python. Goals (issue 19): `tantrix-pi --version`
<= 4 turns, `tantrix-pi board check FILE` <= 8 turns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOALS = {"tantrix-pi --version": 4.0, "tantrix-pi board check FILE": 8.0}


def commands(board: Path) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "tantrix_pi"]
    return {"python -c pass": [sys.executable, "-c", "pass"],
            "tantrix-pi --version": [*cli, "--version"],
            "tantrix-pi board check FILE": [*cli, "board", "check", str(board)],
            "tantrix-pi --help": [*cli, "--help"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = ap.parse_args()
    runs = args.runs
    with tempfile.TemporaryDirectory() as folder:
        board = Path(folder) / "board.json"
        board.write_text(json.dumps({"format": "tantrix-board/1", "tiles": [{"tile": 1, "q": 0, "r": 0, "rot": 0}]}))
        todo = commands(board)
        times: dict[str, list[float]] = {name: [] for name in todo}
        for _ in range(runs):
            for name, argv in todo.items():
                start = time.perf_counter()
                subprocess.run(argv, cwd=args.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                times[name].append(time.perf_counter() - start)
    bare = statistics.median(times["python -c pass"])
    print(f"{'command':<30} {'median ms':>10} {'p90 ms':>8} {'turns':>6} {'goal':>6}")
    for name, t in times.items():
        median = statistics.median(t)
        p90 = statistics.quantiles(t, n=10)[-1] if len(t) > 1 else median
        goal = f"<= {GOALS[name]:g}" if name in GOALS else ""
        print(f"{name:<30} {median * 1000:>10.0f} {p90 * 1000:>8.0f} {median / bare:>6.1f} {goal:>6}")


if __name__ == "__main__":
    main()
