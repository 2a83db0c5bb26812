"""The detector on real tile photographs: each cut-out pasted on a table, does it name the tile?

    ./run.sh python bench/vision_real.py ../shared/dataset/real-dev/tiles [--sizes 50,90,150] [--turns 2] [--limit N]

TILES_DIR holds RGBA cut-outs named `..._tileNN.png` (NN: the tile number). Each is scaled to each
size (pixels across flats), turned by a few random angles, pasted on a rendered empty table (the
simulator's; `--tables`, by default wood, dark wood, felt, cloth, laminate, pattern, under varied light)
and JPEG-compressed, then the detector reads the frame. The tile's turn in the cut-out is not known, so
only its number is checked: the number of the one tile on the detected board (or of a `loose` entry when
the board is empty).
OpenCV runs on one thread (cv2.setNumThreads(1)).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.vision import FIRST_TABLES, load_detector, tables_arg  # noqa: E402
from tantrix_pi.board import Board  # noqa: E402
from tantrix_pi.simulator import render  # noqa: E402
from tantrix_pi.vision.detection import CONFIDENT  # noqa: E402

FRAME = (1640, 1232)


def cutouts(folder: Path) -> list[tuple[int, Path]]:
    """(tile number, file) of every cut-out named like `..._tileNN.png`."""
    out = []
    for p in sorted(folder.glob("*.png")):
        m = re.search(r"tile(\d+)", p.stem)
        if m and 1 <= int(m.group(1)) <= 56:
            out.append((int(m.group(1)), p))
    return out


def paste(background: np.ndarray, rgba: np.ndarray, flats_px: float, angle: float, at: tuple[float, float],
          quality: int) -> np.ndarray:
    """The cut-out scaled to `flats_px` across flats, turned by `angle` degrees, laid on the background at `at`."""
    alpha = rgba[..., 3].astype(np.float32) / 255.0
    radius = math.sqrt(2.0 * alpha.sum() / (3.0 * math.sqrt(3.0)))  # from the hexagon's area
    scale = flats_px / (math.sqrt(3.0) * radius)
    ys, xs = np.nonzero(alpha > 0.5)
    m = cv2.getRotationMatrix2D((float(xs.mean()), float(ys.mean())), -angle, scale)
    m[:, 2] += np.array(at) - np.array([xs.mean(), ys.mean()])
    h, w = background.shape[:2]
    warped = cv2.warpAffine(rgba, m, (w, h), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                            borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255.0
    out = (background * (1 - a) + warped[..., :3] * a).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def reading(detection) -> tuple[int | None, float]:
    """The tile number the detector gives for a photo of one tile, and its confidence (None: no tile)."""
    if detection.tiles:
        best = max(detection.tiles, key=lambda t: t.confidence)
        return best.placement.tile, best.confidence
    named = [u for u in detection.loose if u.tile is not None]
    return (named[0].tile, 0.0) if named else (None, 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tiles", type=Path, help="folder of RGBA tile cut-outs named ..._tileNN.png")
    ap.add_argument("--sizes", default="50,90,150", help="tile sizes across flats in pixels (default 50,90,150)")
    ap.add_argument("--turns", type=int, default=2, help="random turns per cut-out and size (default 2)")
    ap.add_argument("--limit", type=int, help="only the first N cut-outs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tables", type=tables_arg, default=FIRST_TABLES, metavar="first|all|T1,T2",
                    help="tables to paste the tiles on (default: first, the six measured so far)")
    ap.add_argument("--detector", default="tantrix_pi.vision:detect",
                    help="module:function to bench (default: %(default)s)")
    args = ap.parse_args(argv)
    files = cutouts(args.tiles)[:args.limit]
    if not files:
        ap.error(f"{args.tiles}: no ..._tileNN.png cut-outs there")
    try:
        sizes = [float(s) for s in args.sizes.split(",")]
    except ValueError:
        ap.error(f"--sizes {args.sizes!r}: give numbers separated by commas")

    detect = load_detector(args.detector)
    if detect is None:
        return 1

    rng = np.random.default_rng(args.seed)
    backgrounds = []
    for i, table in enumerate(args.tables):
        image, _ = render(Board(), seed=args.seed * 100 + i, size=FRAME, table=table,
                          light_k=float(rng.uniform(3000, 6500)), jpeg_quality=None)
        backgrounds.append(image)
    print(f"# real tiles bench: {len(files)} cut-outs from {args.tiles}, sizes {args.sizes} px, {args.turns} turns "
          f"each, {FRAME[0]}x{FRAME[1]} frames, detector {args.detector}, OpenCV on 1 thread\n")

    stats: dict[float, Counter] = defaultdict(Counter)
    confusions: Counter = Counter()
    times = []
    for number, path in files:
        rgba = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if rgba is None or rgba.ndim != 3 or rgba.shape[2] != 4:
            print(f"skipped {path.name}: not an RGBA image")
            continue
        for size in sizes:
            for _ in range(args.turns):
                bg = backgrounds[int(rng.integers(len(backgrounds)))]
                at = (FRAME[0] / 2 + rng.uniform(-200, 200), FRAME[1] / 2 + rng.uniform(-150, 150))
                image = paste(bg, rgba, size, float(rng.uniform(0, 360)), at, int(rng.integers(70, 95)))
                t0 = time.perf_counter()
                try:
                    read, conf = reading(detect(image, None))
                except Exception as e:  # a bench reports a crash and goes on
                    stats[size]["crashed"] += 1
                    confusions[(number, type(e).__name__)] += 1
                    continue
                times.append(time.perf_counter() - t0)
                c = stats[size]
                c["n"] += 1
                if read == number:
                    c["right"] += 1
                elif read is None:
                    c["none"] += 1
                else:
                    c["wrong confident" if conf >= CONFIDENT else "wrong unsure"] += 1
                    confusions[(number, read)] += 1

    print("| size px | photos | identified % | wrong, confident | wrong, unsure | no tile | crashed |")
    print("|---|---|---|---|---|---|---|")
    total = Counter()
    for size in sizes:
        total.update(stats[size])
    for name, c in [*((f"{s:g}", stats[s]) for s in sizes), ("all", total)]:
        n = c["n"] + c["crashed"]
        pct = f"{100.0 * c['right'] / n:.1f}" if n else "-"
        print(f"| {name} | {n} | {pct} | {c['wrong confident']} | {c['wrong unsure']} | {c['none']} | {c['crashed']} |")
    if times:
        print(f"\ntime per frame: median {np.median(times):.3f} s, p90 {np.percentile(times, 90):.3f} s")
    if confusions:
        print("\nmost frequent mistakes (true tile -> read):")
        for (true, read), n in confusions.most_common(12):
            print(f"  {true} -> {read}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
