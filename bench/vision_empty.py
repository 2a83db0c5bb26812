"""The detector on tables with no tile: whatever lies there (a hand, a cup, a score pad, glare, shadows),
it must see no tile and report nothing unreadable.

    ./run.sh python bench/vision_empty.py [--seed 1] [--size 1640x1232]

Every table the simulator draws, under each condition below, photographed with the tile scale of a
typical set-up (the table's texture is drawn to scale for tiles of `--tile-px`). OpenCV on one thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench.vision import load_detector  # noqa: E402
from tantrix_pi.board import Board  # noqa: E402
from tantrix_pi.simulator import CLUTTER, TABLES, render  # noqa: E402

CONDITIONS = {
    "daylight": {"light_k": 6000.0},
    "warm lamp, dim": {"light_k": 2700.0, "awb": 0.2, "exposure": 0.45, "noise": 2.0},
    "hard glare": {"glare": 1.2, "glare_spots": 2},
    "a hand alone": {"occluder": (820.0, 600.0)},
    "clutter and shadow": {"clutter": list(CLUTTER), "cast_shadow": 0.6},
    "tilted, bent lens": {"tilt_deg": 22.0, "k1": -0.15},
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", default="1640x1232")
    ap.add_argument("--tile-px", type=float, default=70.0)
    ap.add_argument("--detector", default="tantrix_pi.vision:detect")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    detect = load_detector(args.detector)
    if detect is None:
        return 1
    print(f"# empty tables: {len(TABLES)} tables x {len(CONDITIONS)} conditions, {w}x{h}, detector "
          f"{args.detector}, OpenCV on 1 thread\n")
    found: dict[str, list[tuple[int, int, int, int]]] = defaultdict(list)
    times = []
    for i, table in enumerate(TABLES):
        for j, (condition, params) in enumerate(CONDITIONS.items()):
            image, _ = render(Board(), seed=args.seed * 1000 + 10 * i + j, size=(w, h), tile_px=args.tile_px,
                              table=table, **params)
            t0 = time.perf_counter()
            det = detect(image, None)
            times.append(time.perf_counter() - t0)
            counts = (len(det.tiles), len(det.unreadable), len(det.loose), len(det.face_down))
            found[table].append(counts)
            found[condition].append(counts)
            if any(counts):
                print(f"{table}, {condition}: {counts[0]} tiles, {counts[1]} unreadable, {counts[2]} loose, "
                      f"{counts[3]} face down")
    print("\n| table or condition | photos | tiles | unreadable | loose | face down |\n|---|---|---|---|---|---|")
    for name in [*TABLES, *CONDITIONS]:
        rows = np.array(found[name])
        print(f"| {name} | {len(rows)} | " + " | ".join(str(int(v)) for v in rows.sum(axis=0)) + " |")
    every = np.array([c for t in TABLES for c in found[t]])
    print(f"| all | {len(every)} | " + " | ".join(str(int(v)) for v in every.sum(axis=0)) + " |")
    print(f"\ntime per photo: median {np.median(times):.3f} s, p90 {np.percentile(times, 90):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
