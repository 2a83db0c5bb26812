"""Camera calibration on rendered ChArUco views with known truth: recovered parameters beside the true ones.

    python3 bench/calibration.py ../shared/dataset/dev        (or the calibration/<setup> folder itself)

Each set-up folder (calibration/<setup>/*.jpg with a JSON of truth beside each image) is calibrated
on its own. Printed: detection (corners found, their distance to the true corners, median), then the
intrinsics recovered beside the truth, and the error in the units of the issue's goals.
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

from calibration.camera import calibrate, collect  # noqa: E402
from calibration.charuco import BoardSpec, find  # noqa: E402


def setups(root: Path) -> list[Path]:
    """Folders holding calibration views: root itself, or root/calibration/*."""
    if list(root.glob("*.jpg")):
        return [root]
    return sorted(p for p in (root / "calibration").glob("*") if p.is_dir())


def bench(folder: Path, fit_k3: bool) -> None:
    images = sorted(folder.glob("*.jpg"))
    truths = [json.loads(p.with_suffix(".json").read_text()) for p in images]
    spec = BoardSpec.load(images[0].with_suffix(".json"))
    print(f"\n## {folder.name}: {len(images)} views, {spec.describe()}\n")
    print("| view | corners | corner error median px | max px | detect s |")
    print("|---|---|---|---|---|")
    loaded, medians, times = [], [], []
    for path, truth in zip(images, truths, strict=True):
        image = cv2.imread(str(path))
        t = time.perf_counter()
        found = find(image, spec)
        times.append(time.perf_counter() - t)
        true_px = {c["id"]: np.array(c["px"]) for c in truth["charuco_corners"]}
        err = [np.linalg.norm(p - true_px[i]) for i, p in zip(found.ids, found.image_points, strict=True)]
        medians.append(np.median(err) if err else np.nan)
        print(f"| {path.stem} | {len(found.ids)}/{spec.corners} | {np.median(err):.3f} | {np.max(err):.3f} "
              f"| {times[-1]:.3f} |")
        loaded.append((path.stem, image))
    print(f"| median | | {np.nanmedian(medians):.3f} | | {np.median(times):.3f} |")

    t = time.perf_counter()
    views, rejected, size = collect(loaded, spec)
    result = calibrate(views, size, rejected, fix_k3=not fit_k3)
    seconds = time.perf_counter() - t
    k_true = np.array(truths[0]["camera"]["K"])
    d_true = np.array(truths[0]["camera"]["dist"])
    k, d = result.matrix, result.dist
    w = size[0]
    print(f"\nviews used {len(result.views)}, rejected {len(result.rejected)}, RMS {result.rms:.3f} px, "
          f"per-view median {np.median([v.error_px for v in result.views]):.3f} px, {seconds:.2f} s "
          f"(detection + calibration)\n")
    print("| parameter | recovered | true | error | goal |")
    print("|---|---|---|---|---|")
    for name, got, true in (("fx", k[0, 0], k_true[0, 0]), ("fy", k[1, 1], k_true[1, 1])):
        print(f"| {name} | {got:.2f} | {true:.2f} | {100 * (got / true - 1):+.2f} % | 1 % |")
    for name, got, true in (("cx", k[0, 2], k_true[0, 2]), ("cy", k[1, 2], k_true[1, 2])):
        print(f"| {name} | {got:.2f} | {true:.2f} | {100 * (got - true) / w:+.2f} % of width | 1 % of width |")
    for i, name in enumerate(("k1", "k2", "p1", "p2", "k3")):
        goal = "0.02" if name == "k1" else ""
        print(f"| {name} | {d[i]:+.4f} | {d_true[i]:+.4f} | {d[i] - d_true[i]:+.4f} | {goal} |")
    for r in result.rejected:
        print(f"rejected {r.name}: {r.reason}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", type=Path, help="the dataset (with calibration/<setup>/) or one set-up folder")
    ap.add_argument("--k3", action="store_true", help="also fit k3")
    args = ap.parse_args()
    folders = setups(args.dataset)
    if not folders:
        print(f"no calibration views under {args.dataset}", file=sys.stderr)
        return 2
    for folder in folders:
        bench(folder, args.k3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
