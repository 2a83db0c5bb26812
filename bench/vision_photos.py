"""The detector on real photos of real tiles, against our own annotations (bench/photos/*.json).

    ./run.sh python bench/vision_photos.py ../shared/dataset/real-dev/photos

Each annotation names its photo (looked for in PHOTOS_DIR; the photos carry no licence and stay outside
the repository), the board as a board file, every loose tile with where it lies, and the tiles cut by the
frame. A photo is read exactly when the board is the same board (up to a move and a turn), every loose
tile is found with its number, every cut tile is reported and nothing is read wrong with confidence.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.vision import load_detector  # noqa: E402
from tantrix_pi.board import Board  # noqa: E402
from tantrix_pi.vision import photo  # noqa: E402
from tantrix_pi.vision.detection import CONFIDENT  # noqa: E402
from tantrix_pi.vision.evaluate import align  # noqa: E402

ANNOTATIONS = Path(__file__).parent / "photos"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("photos", type=Path, help="folder holding the annotated photos")
    ap.add_argument("--detector", default="tantrix_pi.vision:detect")
    args = ap.parse_args(argv)
    detect = load_detector(args.detector)
    if detect is None:
        return 1
    print(f"# real photos: annotations {ANNOTATIONS}, photos from {args.photos}, OpenCV on 1 thread\n")
    print("| photo | size | board tiles right | loose named | cut reported | confident wrong | exact | s |")
    print("|---|---|---|---|---|---|---|---|")
    exact = 0
    files = sorted(ANNOTATIONS.glob("*.json"))
    for f in files:
        truth = json.loads(f.read_text())
        image = photo.load(args.photos / truth["photo"])
        t0 = time.perf_counter()
        det = detect(image, None)
        seconds = time.perf_counter() - t0
        board = Board.from_dict(truth["board"])
        k, dq, dr = align([t.placement for t in det.tiles], board)
        seen = {t.placement.transformed(k, dq, dr): t.confidence for t in det.tiles}
        right = sum(board.get(p.cell) == p for p in seen)
        wrong = sum(c >= CONFIDENT and board.get(p.cell) != p for p, c in seen.items())
        width = det.tile_px or 50.0
        named = sum(any(u.tile == t["tile"] and math.dist(u.center_px, t["at_px"]) < 0.5 * width for u in det.loose)
                    for t in truth["loose"])
        cut = sum(any(math.dist(u.center_px, c["at_px"]) < 0.6 * width for u in det.unreadable)
                  for c in truth["cut"])
        ok = right == len(board) == len(seen) and named == len(truth["loose"]) and cut == len(truth["cut"]) \
            and not wrong
        exact += ok
        print(f"| {truth['photo']} | {image.shape[1]}x{image.shape[0]} | {right}/{len(board)} | "
              f"{named}/{len(truth['loose'])} | {cut}/{len(truth['cut'])} | {wrong} | {'yes' if ok else 'no'} | "
              f"{seconds:.2f} |")
    print(f"\n{exact} of {len(files)} photos read exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
