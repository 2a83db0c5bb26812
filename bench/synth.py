"""How fast the simulator renders a frame: median and p90 by resolution, board size and options, one OpenCV thread.

    ./run.sh python bench/synth.py [--frames 12]

Each row renders `--frames` photos (three seeds, the tables in turn, varied light, glare, 12 degrees of
tilt, loose tiles) after three untimed frames that fill the per-size tile cache, as a recording would.
The "busy" rows add what a training set draws: a hand, three pieces of clutter, a cast shadow, three
glare spots and wider hand-placed offsets. Times are wall-clock and CPU time of this process
(cv2.setNumThreads(1)).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.simulator import TABLES, random_board, render_scene  # noqa: E402

BUSY = {"occluder": "hand", "clutter": ["cup", "coin", "pad"], "cast_shadow": 0.5, "glare_spots": 3, "jitter": 2.0,
        "gap": 0.08}
CASES = (((1640, 1232), 56, 70.0, {}), ((1640, 1232), 20, 110.0, {}), ((1640, 1232), 56, 70.0, BUSY),
         ((2028, 1520), 56, 85.0, {}), ((4056, 3040), 56, 170.0, {}), ((4056, 3040), 56, 170.0, BUSY))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=12, help="frames timed per row (default 12: every table once)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print("# simulator render time per frame, OpenCV on 1 thread (cv2.setNumThreads(1))\n")
    print("| resolution | tiles | tile px | options | frames | median ms | p90 ms | median CPU ms |")
    print("|---|---|---|---|---|---|---|---|")
    for size, count, tile_px, options in CASES:
        board = random_board(np.random.default_rng(count), count)
        spare = [t for t in range(1, 57) if t not in board.tiles][:3]
        wall, cpu = [], []
        for i in range(-3, args.frames):  # three untimed frames draw the tiles of seeds 0..2 into the cache
            t0, c0 = time.perf_counter(), time.process_time()
            render_scene(board, seed=i % 3, size=size, tile_px=tile_px, table=TABLES[i % len(TABLES)], tilt_deg=12,
                         yaw_deg=15.0 * i, light_k=3000 + 500 * (i % 6), glare=0.5, loose=spare, **options)
            if i >= 0:
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
        w, c = np.array(wall) * 1000, np.array(cpu) * 1000
        print(f"| {size[0]}x{size[1]} | {len(board)} | {tile_px:g} | {'busy' if options else 'default'} | {len(w)} | "
              f"{np.median(w):.0f} | {np.percentile(w, 90):.0f} | {np.median(c):.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
