"""The detector with and without calibration, on rendered table photos with known truth.

    ./run.sh python bench/calibration_vision.py ../shared/dataset/dev --calibration profile.toml --setup calib_dev

Modes: `none` (the raw photo), `truth` (a profile built from each photo's true camera and table
homography, turned upright: what a perfect calibration would give), and `measured` (the profile
given with --calibration, on the photos of its camera set-up only). With `--warm R,G,B` every photo
is first lit by a coloured light (linear gains on R, G, B) and a fourth mode, `colour`, applies the
white balance that `calibrate colour` learns from the first of those photos. Needs `vision.detect`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.board import Board  # noqa: E402
from tantrix_pi.calibration.colour import ColourError, learn  # noqa: E402
from tantrix_pi.calibration.profile import CameraModel, Profile  # noqa: E402
from tantrix_pi.calibration.table import plane_from_homography  # noqa: E402


def truth_profile(truth: dict) -> Profile:
    """The profile a perfect calibration of this photo's camera and table would give."""
    cam = truth["camera"]
    size = (truth["width"], truth["height"])
    camera = CameraModel(np.array(cam["K"]), np.array(cam["dist"]), size, 0.0, 0, "truth")
    plane = plane_from_homography(np.array(truth["homography_table_to_px"]), size, camera, upright=True)
    return Profile(camera=camera, table=plane)


def lit(image: np.ndarray, gains: np.ndarray | None) -> np.ndarray:
    """The photo under a light of another colour: linear-light gains on R, G, B (gamma 2.2)."""
    if gains is None:
        return image
    linear = (image.astype(np.float32) / 255) ** 2.2 * gains[::-1].astype(np.float32)
    return (np.clip(linear, 0, 1) ** (1 / 2.2) * 255).round().astype(np.uint8)


def colour_profile(paths: list[Path], gains: np.ndarray) -> Profile:
    """The colour calibration learned from the first photo it works on."""
    for path in paths:
        try:
            model, sep = learn(lit(cv2.imread(str(path.with_suffix(".jpg"))), gains))
        except ColourError:
            continue
        print(f"colour calibration from {path.stem}: gains {model.white_balance}; {sep.describe()}\n")
        return Profile(colour=model)
    raise SystemExit("no photo to learn the colours from")


def main() -> int:
    from tantrix_pi.vision import detect

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--calibration", type=Path, help="a measured profile")
    ap.add_argument("--setup", default="calib_dev", help="the camera set-up the measured profile belongs to")
    ap.add_argument("--limit", type=int, default=0, help="only the first N photos")
    ap.add_argument("--warm", help="light every photo with these linear R,G,B gains, e.g. 1.6,1,0.5")
    args = ap.parse_args()
    measured = Profile.load(args.calibration) if args.calibration else None
    paths = sorted((args.dataset / "images").glob("*.json"))[: args.limit or None]
    gains = np.array([float(x) for x in args.warm.split(",")]) if args.warm else None
    colour = colour_profile(paths, gains) if gains is not None else None
    results: dict[str, list[tuple[bool, int, int, float]]] = {"none": [], "truth": [], "measured": []}
    if colour is not None:
        results["colour"] = []
    print("| photo | tilt deg | " + " | ".join(results) + " |")
    print("|---|---|---|---|---|" + "---|" * (len(results) - 3))
    for path in paths:
        truth = json.loads(path.read_text())
        image = lit(cv2.imread(str(path.with_suffix(".jpg"))), gains)
        board = Board.from_dict(truth["board"])
        want = {p["tile"] for p in truth["board"]["tiles"]}
        modes = {"none": None, "truth": truth_profile(truth)}
        if measured is not None and truth["camera"].get("setup") == args.setup:
            modes["measured"] = measured
        cells = []
        for mode in results:
            if mode not in modes and mode != "colour":
                cells.append("")
                continue
            t = time.perf_counter()
            try:
                # The detector does not apply white balance itself (yet): the colour mode does it first.
                det = detect(colour.white_balance(image), None) if mode == "colour" else detect(image, modes[mode])
                ok, found = det.board.same_as(board), len(want & {s.placement.tile for s in det.tiles})
            except Exception as e:  # a crash is a result here, not the end of the bench
                print(f"{path.stem} {mode}: {type(e).__name__}: {str(e)[:100]}", file=sys.stderr)
                ok, found = False, 0
            seconds = time.perf_counter() - t
            results[mode].append((ok, found, len(want), seconds))
            cells.append(f"{'ok' if ok else 'WRONG'} {found}/{len(want)}")
        print(f"| {path.stem} | {truth['camera']['pose']['tilt_deg']:.1f} | " + " | ".join(cells) + " |")
    print("\n| mode | photos | same board | tiles found | median s (first call builds the maps) |")
    print("|---|---|---|---|---|")
    for mode, rows in results.items():
        if rows:
            print(f"| {mode} | {len(rows)} | {sum(r[0] for r in rows)} | {sum(r[1] for r in rows)}/"
                  f"{sum(r[2] for r in rows)} | {np.median([r[3] for r in rows]):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
