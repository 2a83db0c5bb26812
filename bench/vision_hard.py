"""The detector on boards the frame cuts and on boards a phone photographs at an angle.

    ./run.sh python bench/vision_hard.py [--seeds 3]

cut: a 20-tile legal board (tiles 80 px) whose middle lies at one edge of a 900x600 photo, each side in turn;
the board tiles the frame cuts are grouped by how many of their six edges lie in view (the middle of each
edge's colour window), and for each group: read right (number and turn), named at the frame edge ("cut by the
frame edge", or, with no tile face in view, "the board may go on beyond the frame edge");
confident wrong readings are counted over all tiles, and the photos that leave no doubt (a verdict would be
given on a board the frame cuts). oblique: a 24-tile board (tiles 110 px at the
middle) under a camera tilted 0-45 degrees from straight down, towards two azimuths: one board exact, the board
in one piece (no tile "beside the board, not on its grid", none loose), tiles right, confident wrong.
OpenCV runs on one thread (cv2.setNumThreads(1)).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.board import Board  # noqa: E402
from tantrix_pi.simulator import PLAIN, legal_board, render  # noqa: E402
from tantrix_pi.vision import detect  # noqa: E402
from tantrix_pi.vision.detection import CUT, EDGE, OFF_GRID  # noqa: E402
from tantrix_pi.vision.evaluate import align, score  # noqa: E402

CUT_SIZE = (900, 600)
SIDES = {"right": (880, 300), "bottom": (450, 580), "left": (20, 300), "top": (450, 20)}
TILTS = (0.0, 20.0, 30.0, 40.0, 45.0)
AZIMUTHS = (0.0, 35.0)


def edges_in_view(tile: dict, size) -> int | None:
    """How many of a tile's edges (the middle of each one's colour window, 0.77 of the way out) lie in a photo of
    `size`; None when the tile lies wholly in it or wholly out of it."""
    corners = np.array(tile["corners_px"])
    inside = ((corners >= 0) & (corners <= np.array(size) - 1)).all(axis=1)
    if inside.all() or not inside.any():
        return None
    windows = np.array(tile["center_px"]) + 0.77 * ((corners + np.roll(corners, -1, axis=0)) / 2 - tile["center_px"])
    return int(((windows >= 0) & (windows <= np.array(size) - 1)).all(axis=1).sum())


def timed(image):
    t0 = time.perf_counter()
    det = detect(image)
    return det, time.perf_counter() - t0


def cut_rows(seeds: int) -> None:
    got = {n: [0, 0, 0] for n in range(7)}  # edges in view: tiles, right, named cut
    wrong, undoubted, seconds = 0, 0, []
    for seed in range(1, seeds + 1):
        board = legal_board(20, seed=3 + seed)
        for centre in SIDES.values():
            image, truth = render(board, size=CUT_SIZE, tile_px=80.0, seed=seed, center=centre,
                                  yaw_deg=17.0 * seed, **{**PLAIN, "noise": 1.0})
            det, s = timed(image)
            seconds.append(s)
            wrong += len(score(det, truth).confident_wrong)
            undoubted += not det.doubts()
            k, dq, dr = align([t.placement for t in det.tiles], Board.from_dict(truth["board"]))
            at = {(p := t.placement.transformed(k, dq, dr)).cell: p for t in det.tiles}
            cuts = [u.center_px for u in det.unreadable if u.reason in (CUT, EDGE)]
            for t in (t for t in truth["tiles"] if t.get("on_board", True)):
                name = edges_in_view(t, CUT_SIZE)
                if name is None:
                    continue  # wholly in view
                p = at.get((t["q"], t["r"]))
                got[name][0] += 1
                got[name][1] += p is not None and p.tile == t["tile"] and p.rot == t["rot"]
                got[name][2] += any(math.dist(c, t["center_px"]) < 0.5 * t["across_flats_px"] for c in cuts)
    print(f"## cut: {len(seconds)} photos {CUT_SIZE[0]}x{CUT_SIZE[1]}, the board's middle at each edge, "
          f"{wrong} confident wrong, {undoubted} without a doubt, median {statistics.median(seconds):.3f} s\n")
    print("| edges in view | cut tiles | read right % | named cut % |")
    print("|---|---|---|---|")
    for name, (n, right, cut) in sorted(got.items(), reverse=True):
        if n:
            print(f"| {name} | {n} | {100 * right / n:.1f} | {100 * cut / n:.1f} |")


def oblique_rows(seeds: int) -> None:
    board = legal_board(24, seed=6)
    print("\n## oblique: 24 tiles, 1640x1232, tiles 110 px at the middle\n")
    print("| tilt deg | photos | boards exact | one board | tiles right % | confident wrong | median s |")
    print("|---|---|---|---|---|---|---|")
    for tilt in TILTS:
        exact = whole = right = tiles = wrong = 0
        seconds = []
        for azimuth in AZIMUTHS:
            for seed in range(1, seeds + 1):
                image, truth = render(board, size=(1640, 1232), tile_px=110.0, tilt_deg=tilt,
                                      tilt_azimuth_deg=azimuth, seed=seed, yaw_deg=10.0 * seed)
                det, s = timed(image)
                seconds.append(s)
                sc = score(det, truth)
                exact += det.board.same_as(Board.from_dict(truth["board"]))
                whole += not det.loose and all(u.reason != OFF_GRID for u in det.unreadable)
                right, tiles, wrong = right + sc.turn, tiles + sc.tiles, wrong + len(sc.confident_wrong)
        n = len(seconds)
        print(f"| {tilt:.0f} | {n} | {exact} | {whole} | {100 * right / tiles:.1f} | {wrong} | "
              f"{statistics.median(seconds):.3f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3, help="renders per case (default 3)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print("# frame-cut and oblique boards, detector tantrix_pi.vision:detect, OpenCV on 1 thread\n")
    cut_rows(args.seeds)
    oblique_rows(args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
