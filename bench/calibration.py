"""Camera calibration on rendered ChArUco views with known truth: recovered parameters beside the true ones.

    ./run.sh python bench/calibration.py ../shared/dataset/dev        (or the calibration/<setup> folder itself)

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

from tantrix_pi.calibration.camera import Uncertain, calibrate, collect  # noqa: E402
from tantrix_pi.calibration.charuco import BoardSpec, find  # noqa: E402
from tantrix_pi.calibration.profile import Profile  # noqa: E402
from tantrix_pi.calibration.table import measure, movement  # noqa: E402


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
    try:
        result, refused = calibrate(views, size, rejected, fix_k3=not fit_k3), None
    except Uncertain as e:  # measured all the same: how far off is a lens the views cannot pin down?
        result, refused = e.result, str(e)
    seconds = time.perf_counter() - t
    k_true = np.array(truths[0]["camera"]["K"])
    d_true = np.array(truths[0]["camera"]["dist"])
    k, d = result.matrix, result.dist
    w = size[0]
    print(f"\nviews used {len(result.views)}, rejected {len(result.rejected)}, RMS {result.rms:.3f} px, "
          f"per-view median {np.median([v.error_px for v in result.views]):.3f} px, {seconds:.2f} s "
          f"(detection + calibration)\n")
    u = result.uncertainty
    print("| parameter | recovered | true | error | uncertainty said (1 sd) | goal |")
    print("|---|---|---|---|---|---|")
    for name, got, true, sd in (("fx", k[0, 0], k_true[0, 0], u.fx), ("fy", k[1, 1], k_true[1, 1], u.fy)):
        print(f"| {name} | {got:.2f} | {true:.2f} | {100 * (got / true - 1):+.2f} % | {100 * sd:.2f} % | 1 % |")
    for name, got, true, sd in (("cx", k[0, 2], k_true[0, 2], u.cx), ("cy", k[1, 2], k_true[1, 2], u.cy)):
        print(f"| {name} | {got:.2f} | {true:.2f} | {100 * (got - true) / w:+.2f} % of width | {100 * sd:.2f} % "
              "| 1 % of width |")
    for i, name in enumerate(("k1", "k2", "p1", "p2", "k3")):
        goal = "0.02" if name == "k1" else ""
        print(f"| {name} | {d[i]:+.4f} | {d_true[i]:+.4f} | {d[i] - d_true[i]:+.4f} | | {goal} |")
    print(f"\nrefused: {refused}" if refused else "\naccepted: every intrinsic within its goal's uncertainty")
    for r in result.rejected:
        print(f"rejected {r.name}: {r.reason}")
    bench_table(folder, loaded, spec, result.model())


def scene_points(dataset: Path, setup: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(true table mm, true raw px) of every tile centre, on the table plane, in the photos taken by this set-up."""
    out = []
    for path in sorted((dataset / "images").glob("*.json")):
        truth = json.loads(path.read_text())
        cam = truth["camera"]
        if cam.get("setup") != setup:
            continue
        mm = np.array([t["table_xy_mm"] for t in truth["tiles"]], dtype=np.float64)
        obj = np.concatenate([mm, np.zeros((len(mm), 1))], axis=1)
        px, _ = cv2.projectPoints(obj, np.array(cam["pose"]["rvec"]), np.array(cam["pose"]["t_mm"]),
                                  np.array(cam["K"]), np.array(cam["dist"]))
        out.append((mm, px.reshape(-1, 2)))
    return out


def similarity_fit(src: np.ndarray, dst: np.ndarray) -> tuple[float, np.ndarray]:
    """Best dst ~ s R src + t (no reflection): the scale s and the residuals (mm)."""
    a, b = src - src.mean(axis=0), dst - dst.mean(axis=0)
    u, sv, vt = np.linalg.svd(b.T @ a)
    d = np.diag([1.0, np.sign(np.linalg.det(u @ vt))])
    r = u @ d @ vt
    s = float(np.trace(np.diag(sv) @ d) / (a ** 2).sum())
    return s, np.linalg.norm(b - s * a @ r.T, axis=1)


def bench_table(folder: Path, loaded, spec: BoardSpec, camera) -> None:
    """The table plane from each view of the sheet (with the recovered lens), judged on the set-up's tile photos."""
    dataset = folder.parents[1]
    points = scene_points(dataset, folder.name)
    print(f"\n### table plane, camera as recovered above; judged on {sum(len(m) for m, _ in points)} tile centres "
          f"in {len(points)} photos of the same set-up (residual: after the best similarity to the truth)\n")
    print("| sheet view | sheet tilt (truth) | px/mm | scale error | residual median mm | max mm | measure s |")
    print("|---|---|---|---|---|---|---|")
    profiles, scale_errs, medians = [], [], []
    for name, image in loaded:
        tilt = json.loads((folder / f"{name}.json").read_text())["board_pose"]["tilt_deg"]
        flat = tilt < 0.5
        t = time.perf_counter()
        profile = Profile(camera=camera, table=measure(image, spec, camera))
        seconds = time.perf_counter() - t
        profiles.append((name, image, profile))
        if not points:
            print(f"| {name} | {tilt:.1f} deg | {profile.table.px_per_mm:g} | | | | {seconds:.2f} |")
            continue
        true_mm = np.concatenate([m for m, _ in points])
        mine = np.concatenate([profile.image_to_table(px) for _, px in points])
        scale, residual = similarity_fit(true_mm, mine)
        if flat:
            scale_errs.append(100 * (scale - 1))
            medians.append(np.median(residual))
        print(f"| {name} | {tilt:.1f} deg{'' if flat else ' (propped up: not the table)'} "
              f"| {profile.table.px_per_mm:g} | {100 * (scale - 1):+.2f} % | {np.median(residual):.2f} "
              f"| {residual.max():.2f} | {seconds:.2f} |")
    if medians:
        print(f"| median of the {len(medians)} flat sheets | | | {np.median(scale_errs):+.2f} % "
              f"| {np.median(medians):.2f} | | |")
    held = sum(not movement(p, image, spec).moved for _, image, p in profiles)
    moved = sum(movement(p, other, spec).moved for i, (_, _, p) in enumerate(profiles)
                for j, (_, other) in enumerate(loaded) if i != j)
    pairs = len(profiles) * (len(profiles) - 1)
    print(f"\nmoved detection: same photo holds {held}/{len(profiles)}; sheet elsewhere flagged {moved}/{pairs}")


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
