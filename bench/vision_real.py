"""The detector on real tile photographs: each cut-out pasted on a table, does it name the tile?

    ./run.sh python bench/vision_real.py ../shared/dataset/real-dev/tiles [--session 1] [--sizes 40,...] [--limit N]

TILES_DIR holds RGBA cut-outs named `..._tileNN.png` (NN: the tile number). Each is scaled to each
size (pixels across flats), turned at random, pasted on a rendered empty table of each kind (`KINDS`:
light, dark, wooden, patterned; the simulator's tables under varied light) and JPEG-compressed, then the
detector reads the frame. The tile's turn in the cut-out is not known, so
only its number is checked: the number of the one tile on the detected board (or of a `loose` entry when
the board is empty). "identified" counts only confident right reads; a right number read unsure is counted
apart. `--session` picks one photo session (`sessionN_` files): session 1 is never trained on
(vision/training/scenes.py HELD_OUT_SESSIONS), session 0 is.
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

from bench.vision import load_detector  # noqa: E402
from tantrix_pi.board import Board  # noqa: E402
from tantrix_pi.simulator import render  # noqa: E402
from tantrix_pi.vision.detection import CONFIDENT  # noqa: E402

FRAME = (1640, 1232)


def cutouts(folder: Path, session: int | None = None) -> list[tuple[int, Path]]:
    """(tile number, file) of every cut-out named like `..._tileNN.png` (of `sessionN_` only, when given)."""
    out = []
    for p in sorted(folder.glob(f"session{session}_*.png" if session is not None else "*.png")):
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


KINDS = {"light": ("white", "laminate", "paper"), "dark": ("black", "dark_wood", "felt"),
         "wooden": ("wood", "dark_wood"), "patterned": ("pattern", "checks", "stripes", "carpet")}
"""The tables each cut-out is pasted on: one photo per kind of table, its table drawn from the kind."""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tiles", type=Path, help="folder of RGBA tile cut-outs named ..._tileNN.png")
    ap.add_argument("--sizes", default="40,60,90,150,250,400",
                    help="tile sizes across flats in pixels (default %(default)s)")
    ap.add_argument("--session", type=int, default=1,
                    help="the photo session (sessionN_ files; default %(default)s, never trained on); -1: every file")
    ap.add_argument("--limit", type=int, help="only the first N cut-outs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--detector", default="tantrix_pi.vision:detect",
                    help="module:function to bench (default: %(default)s)")
    args = ap.parse_args(argv)
    files = cutouts(args.tiles, None if args.session < 0 else args.session)[:args.limit]
    if not files:
        ap.error(f"{args.tiles}: no ..._tileNN.png cut-outs of session {args.session} there")
    try:
        sizes = [float(s) for s in args.sizes.split(",")]
    except ValueError:
        ap.error(f"--sizes {args.sizes!r}: give numbers separated by commas")

    detect = load_detector(args.detector)
    if detect is None:
        return 1

    rng = np.random.default_rng(args.seed)
    backgrounds = {}
    for i, table in enumerate(sorted({t for kind in KINDS.values() for t in kind})):
        backgrounds[table], _ = render(Board(), seed=args.seed * 100 + i, size=FRAME, table=table,
                                       light_k=float(rng.uniform(3000, 6500)), jpeg_quality=None)
    kinds = ", ".join(f"{k}: {'/'.join(v)}" for k, v in KINDS.items())
    print(f"# real tiles bench: {len(files)} cut-outs of session {args.session} from {args.tiles}, "
          f"sizes {args.sizes} px, one photo per kind "
          f"of table ({kinds}), {FRAME[0]}x{FRAME[1]} frames, detector {args.detector}, OpenCV on 1 thread\n")

    by_size: dict[str, Counter] = defaultdict(Counter)
    by_kind: dict[str, Counter] = defaultdict(Counter)
    confusions: Counter = Counter()
    times = []
    for number, path in files:
        rgba = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if rgba is None or rgba.ndim != 3 or rgba.shape[2] != 4:
            print(f"skipped {path.name}: not an RGBA image")
            continue
        for size in sizes:
            for kind, tables in KINDS.items():
                bg = backgrounds[tables[int(rng.integers(len(tables)))]]
                room = np.array(FRAME) / 2 - size
                at = tuple(np.array(FRAME) / 2 + rng.uniform(-1, 1, 2) * np.minimum([200, 150], room))
                image = paste(bg, rgba, size, float(rng.uniform(0, 360)), at, int(rng.integers(70, 95)))
                outcome = _read(detect, image, number, times, confusions)
                for c in (by_size[f"{size:g}"], by_kind[kind]):
                    c[outcome] += 1
    for title, rows in (("size px", by_size), ("table", by_kind)):
        print(f"| {title} | photos | identified % | right, unsure | wrong, confident | wrong, unsure | no tile | "
              "crashed |")
        print("|---|---|---|---|---|---|---|---|")
        total: Counter = Counter()
        for c in rows.values():
            total.update(c)
        for name, c in [*rows.items(), ("all", total)]:
            n = sum(c.values())
            print(f"| {name} | {n} | {100.0 * c['right'] / n:.1f} | {c['right unsure']} | {c['wrong confident']} | "
                  f"{c['wrong unsure']} | "
                  f"{c['none']} | {c['crashed']} |")
        print()
    if times:
        print(f"time per frame: median {np.median(times):.3f} s, p90 {np.percentile(times, 90):.3f} s")
    if confusions:
        print("\nmost frequent mistakes (true tile -> read):")
        for (true, read), n in confusions.most_common(12):
            print(f"  {true} -> {read}: {n}")
    return 0


def _read(detect, image: np.ndarray, number: int, times: list, confusions: Counter) -> str:
    """How the detector fares on one photo of tile `number`: right or wrong (each confident or unsure), none,
    crashed."""
    t0 = time.perf_counter()
    try:
        read, conf = reading(detect(image, None))
    except Exception as e:  # a bench reports a crash and goes on
        confusions[(number, type(e).__name__)] += 1
        return "crashed"
    times.append(time.perf_counter() - t0)
    if read == number:
        return "right" if conf >= CONFIDENT else "right unsure"
    if read is None:
        return "none"
    confusions[(number, read)] += 1
    return "wrong confident" if conf >= CONFIDENT else "wrong unsure"


if __name__ == "__main__":
    sys.exit(main())
