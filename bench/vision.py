"""The detector on photos with known truth: tiles right, boards exact, confident mistakes, time.

    ./run.sh python bench/vision.py ../shared/dataset/dev [--calibration PROFILE] [--limit N]
    ./run.sh python bench/vision.py --synthetic 40 [--seed 1]

A dataset folder is in the layout of dataset/dev (index.json, images/<id>.jpg and <id>.json truth).
`--synthetic N` renders N photos with the simulator over a wide range (warm to daylight, dim rooms,
glare, tilt up to 20 degrees, barrel distortion, tiles 40 px and up, every table texture, loose and
face-down tiles, hands over the board, boards cut by the frame) and scores them the same way. Boards are compared up
to a move and a turn of the whole grid. OpenCV runs on one thread (cv2.setNumThreads(1)), so the
times are for one core.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.board import Board, Placement  # noqa: E402
from tantrix_pi.errors import TantrixError  # noqa: E402
from tantrix_pi.grid import centre  # noqa: E402
from tantrix_pi.simulator import TABLES, random_board, render  # noqa: E402
from tantrix_pi.vision.evaluate import Accuracy, score  # noqa: E402

SIZES = ((1640, 1232), (2028, 1520), (1920, 1080), (4056, 3040))
FIRST_TABLES = ("wood", "dark_wood", "felt", "cloth", "laminate", "pattern")
"""The tables of the synthetic sets measured so far (docs/vision.md): the default, so that numbers stay comparable."""


def tables_arg(text: str) -> tuple[str, ...]:
    """--tables: "first" (FIRST_TABLES), "all" (every table the simulator draws) or names separated by commas."""
    names = FIRST_TABLES if text == "first" else TABLES if text == "all" else tuple(text.split(","))
    unknown = [n for n in names if n not in TABLES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown table {unknown[0]!r}: first, all, or some of {', '.join(TABLES)}")
    return names


def provenance(folder: Path) -> str:
    """What a Blender set is to the tile network: its (split, seed), whether the training's generator made it,
    and whether it is the locked test set (its files as bench/locked/ lists them)."""
    from locked import LABEL, match  # bench/locked.py

    from tantrix_pi.vision.training.scenes import render_set

    named = render_set(folder)
    if named is None:
        return ""
    lock = match(folder)
    if lock is not None:
        manifest, differ, listed = lock
        what = (f"{LABEL}, every file as {manifest.name} lists it" if not differ else
                f"the locked test set's seed, but {differ} of {listed} files differ from {manifest.name}: "
                "not the set as locked")
    elif named.held_out:
        what = "in-distribution validation, same generator as the training renders, other seeds"
    else:
        what = "a seed the training may have used"
    return f" ({named.split} seed {named.seed}: {what})"


def dataset(folder: Path, limit: int | None):
    """(name, group, image loader, truth) for each photo of a board in a dataset folder."""
    index = folder / "index.json"
    if index.exists():
        entries = [(e["id"], e.get("kind", ""), folder / e["image"], folder / e["truth"])
                   for e in json.loads(index.read_text())["images"]]
    else:
        entries = [(p.stem, "", p, p.with_suffix(".json")) for p in sorted((folder / "images").glob("*.jpg"))]
    photos = []
    for name, kind, image, truth in entries:
        data = json.loads(truth.read_text())
        if "board" in data:  # calibration views carry no board
            photos.append((name, kind, (lambda image=image: cv2.imread(str(image), cv2.IMREAD_COLOR)), data))
    return photos[:limit]


def synthetic(n: int, seed: int, tables: tuple[str, ...] = FIRST_TABLES):
    """(name, group, image loader, truth) for n photos rendered over a wide range of conditions."""
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        size = SIZES[int(rng.choice(len(SIZES), p=[0.4, 0.25, 0.2, 0.15]))]
        count = int(rng.choice([int(rng.integers(1, 8)), int(rng.integers(8, 30)), int(rng.integers(30, 57))]))
        board = random_board(rng, count)
        if len(board) > 2 and rng.random() < 0.2:  # a tile turned the wrong way: a real violation
            p = list(board)[int(rng.integers(len(board)))]
            board.remove(p.cell)
            board.place(Placement(p.tile, p.q, p.r, (p.rot + int(rng.integers(1, 6))) % 6))
        span = _span(board)
        fit = 0.8 * min(size) / span  # tile size at which the board fills most of the shorter side
        tile_px = float(min(rng.uniform(40, max(41.0, size[0] / 10)), max(40.0, fit)))
        spare = [t for t in range(1, 57) if t not in board.tiles]
        rng.shuffle(spare)
        n_loose = int(rng.integers(1, 7)) if rng.random() < 0.3 and len(spare) > 8 else 0
        n_down = int(rng.integers(1, 3)) if rng.random() < 0.2 and len(spare) > 4 else 0
        params = {
            "seed": int(seed * 100000 + i), "size": size, "tile_px": round(tile_px, 1),
            "yaw_deg": float(rng.uniform(0, 360)), "tilt_deg": float(rng.uniform(0, 20)),
            "light_k": float(rng.uniform(2700, 6500)), "awb": float(rng.uniform(0.3, 0.9)),
            "table": str(rng.choice(tables)),
            "glare": float(rng.uniform(0.2, 1.0)) if rng.random() < 0.4 else 0.0,
            "blur": float(rng.uniform(0.3, 1.6)), "noise": float(rng.uniform(0.5, 2.0)),
            "jpeg_quality": int(rng.integers(60, 96)),
            "loose": spare[:n_loose], "face_down": spare[n_loose:n_loose + n_down],
            "loose_style": "row" if rng.random() < 0.5 else "scattered",
            "k1": float(rng.uniform(-0.15, 0.0)),  # a Pi camera's barrel distortion, no calibration
        }
        if rng.random() < 0.15:  # a dim room: the camera's gain makes up for most of it, and the grain shows
            params["exposure"] = float(rng.uniform(0.4, 0.75))
            params["noise"] *= 2.0
        hard = rng.random()
        if hard < 0.1:
            params["occluder"] = "hand"
        elif hard < 0.2:  # the board's middle near a side of the frame: some tiles cut by the frame edge
            w, h = size
            params["center"] = [(0.12 * w, h / 2), (0.88 * w, h / 2), (w / 2, 0.12 * h), (w / 2, 0.88 * h)][i % 4]
        image, truth = render(board, **params)
        yield f"synth_{i:03d}", _condition(params), (lambda image=image: image), truth  # noqa: B023


def _facets(truth: dict) -> dict[str, str]:
    """The table and the light a photo was taken on, where its truth says (dataset truth or the simulator's)."""
    table_name = truth.get("table", {}).get("name") if isinstance(truth.get("table"), dict) else \
        truth.get("params", {}).get("table")
    light = truth.get("lighting", {}).get("name") if isinstance(truth.get("lighting"), dict) else None
    return {k: v for k, v in (("table", table_name), ("light", light)) if v}


def _span(board: Board) -> float:
    """The board's largest extent in tile widths (across flats), plus one."""
    pts = np.array([centre(p.cell, 1 / math.sqrt(3)) for p in board])
    return float(np.max(np.ptp(pts, axis=0))) + 1.0 if len(pts) else 1.0


def _condition(p: dict) -> str:
    """The hardest condition of a synthetic photo, to group the results by."""
    if p.get("occluder"):
        return "hand over the board"
    if p.get("center"):
        return "cut by the frame"
    if p["tile_px"] < 60:
        return "small tiles <60px"
    if p.get("exposure", 1.0) < 0.6:
        return "dim room"
    if p["light_k"] < 3500:
        return "warm light <3500K"
    if p["table"] in ("dark_wood", "pattern"):
        return "dark or patterned table"
    if p["glare"] > 0.5:
        return "strong glare"
    if p["tilt_deg"] > 12:
        return "tilt >12deg"
    return "other"


def _save(folder: Path, name: str, group: str, image: np.ndarray, truth: dict) -> dict:
    """Write one synthetic photo and its truth in the dataset layout; its index entry."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "images" / f"{name}.png"), image)
    (folder / "images" / f"{name}.json").write_text(json.dumps(truth))
    return {"id": name, "kind": group, "image": f"images/{name}.png", "truth": f"images/{name}.json"}


def size_arg(text: str) -> tuple[int, int]:
    """--resize: WxH."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give the size as WxH, e.g. 4056x3040") from None
    return w, h


def resized(photo, size: tuple[int, int]):
    """A (name, group, loader, truth) photo scaled to fit `size` (its shape kept), its truth's pixel positions
    with it."""
    name, group, load, truth = photo
    f = min(size[0] / truth["width"], size[1] / truth["height"])
    w, h = round(truth["width"] * f), round(truth["height"] * f)

    def scaled(p):
        return [p[0] * f, p[1] * f]

    tiles = [{**t, "center_px": scaled(t["center_px"]), "corners_px": [scaled(c) for c in t["corners_px"]],
              "across_flats_px": t["across_flats_px"] * f} for t in truth["tiles"]]
    return (name, group, lambda: cv2.resize(load(), (w, h), interpolation=cv2.INTER_CUBIC),
            {**truth, "tiles": tiles, "width": w, "height": h})


def load_detector(spec: str):
    """The detect function named 'module:function', with OpenCV on one thread; None (said why) if there is none."""
    cv2.setNumThreads(1)
    module, _, name = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), name or "detect")
    except (ImportError, AttributeError) as e:
        print(f"no detector {spec!r} to bench: {e}")
        return None


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}" if b else "-"


def table(rows: list[tuple[str, list[Accuracy], int]]) -> None:
    print("| group | images | tiles | right % | right %, glare excused | number % | cell % | hidden | "
          "boards exact % | exact %, glare excused | confident wrong | unreadable % | extra tiles | crashed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, scores, crashed in rows:
        tiles = sum(s.tiles for s in scores)
        excused = sum(s.excused for s in scores)
        images = len(scores) + crashed
        print(f"| {name} | {images} | {tiles} | {pct(sum(s.turn for s in scores), tiles)} | "
              f"{pct(sum(s.turn for s in scores), tiles - excused)} | {pct(sum(s.number for s in scores), tiles)} | "
              f"{pct(sum(s.cell for s in scores), tiles)} | {sum(s.hidden for s in scores)} | "
              f"{pct(sum(s.exact for s in scores), images)} | {pct(sum(s.fairly_exact for s in scores), images)} | "
              f"{sum(len(s.confident_wrong) for s in scores)} | {pct(sum(s.unreadable for s in scores), tiles)} | "
              f"{sum(s.extra for s in scores)} | {crashed} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", type=Path, help="folder in the layout of dataset/dev")
    ap.add_argument("--calibration", type=Path, help="calibration profile passed to the detector")
    ap.add_argument("--limit", type=int, help="only the first N images")
    ap.add_argument("--synthetic", type=int, metavar="N", help="score N rendered photos instead")
    ap.add_argument("--seed", type=int, default=1, help="seed of the synthetic photos")
    ap.add_argument("--tables", type=tables_arg, default=FIRST_TABLES, metavar="first|all|T1,T2",
                    help="tables of the synthetic photos (default: first, the six measured so far)")
    ap.add_argument("--save", type=Path, metavar="DIR",
                    help="also write the synthetic photos there, in the dataset layout (PNG)")
    ap.add_argument("--each", action="store_true", help="also print one line per image")
    ap.add_argument("--resize", type=size_arg, metavar="WxH",
                    help="scale every photo to fit this size first, its shape kept (4056x3040: 12 MP)")
    ap.add_argument("--detector", default="tantrix_pi.vision:detect",
                    help="module:function to bench (default: %(default)s)")
    args = ap.parse_args(argv)
    if (args.dataset is None) == (args.synthetic is None):
        ap.error("give a DATASET_DIR or --synthetic N (one of them)")
    if args.dataset is not None and not (args.dataset / "images").is_dir():
        ap.error(f"{args.dataset}: no images/ folder there")

    detect = load_detector(args.detector)
    if detect is None:
        return 1
    profile = None
    if args.calibration is not None:
        try:
            from tantrix_pi.calibration.profile import Profile

            profile = Profile.load(args.calibration)
        except (ImportError, TantrixError) as e:
            print(f"cannot use the calibration profile {args.calibration}: {e}")
            return 2

    photos = synthetic(args.synthetic, args.seed, args.tables) if args.synthetic else dataset(args.dataset, args.limit)
    if args.resize:
        photos = [resized(p, args.resize) for p in photos]
    source = f"{args.synthetic} synthetic photos (seed {args.seed})" if args.synthetic else str(args.dataset)
    if args.dataset is not None:
        source += provenance(args.dataset)
    print(f"# vision bench: {source}, detector {args.detector}, OpenCV on 1 thread (cv2.setNumThreads(1))\n",
          flush=True)

    saved = []
    groups: dict[str, list[Accuracy]] = defaultdict(list)
    crashes: dict[str, int] = defaultdict(int)
    times: dict[str, list[float]] = defaultdict(list)
    wrong: list[str] = []
    errors: list[str] = []
    facets: dict[str, dict[str, list[Accuracy]]] = defaultdict(lambda: defaultdict(list))
    stages: dict[str, list[float]] = defaultdict(list)
    for name, group, load, truth in photos:
        image = load()
        if args.save and args.synthetic:
            saved.append(_save(args.save, name, group, image, truth))
        t0 = time.perf_counter()
        try:
            detection = detect(image, profile)
        except Exception as e:  # a bench reports a crash and goes on
            crashes[group] += 1
            errors.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            continue
        elapsed = time.perf_counter() - t0
        times[f"{image.shape[1]}x{image.shape[0]}"].append(elapsed)
        s = score(detection, truth)
        groups[group].append(s)
        for facet, value in _facets(truth).items():
            facets[facet][value].append(s)
        for stage_name, seconds in detection.timings.items():
            stages[stage_name].append(seconds)
        if args.each:
            print(f"{name} [{group}] {s.turn}/{s.tiles} right, {s.cell} cells, {s.extra} extra, "
                  f"{s.unreadable} unreadable ({s.excused} excused), {len(s.confident_wrong)} confident wrong, "
                  f"board {'exact' if s.exact else 'exact with glare excused' if s.fairly_exact else 'not exact'}, "
                  f"{elapsed:.2f} s", flush=True)
        wrong += [f"{name}: {w}" for w in s.confident_wrong]

    if saved:
        (args.save / "index.json").write_text(json.dumps({"format": "tantrix-pi-synth-index/1", "images": saved},
                                                         indent=1))
    every = [s for ss in groups.values() for s in ss]
    rows = [("all", every, sum(crashes.values()))]
    if len(set(groups) | set(crashes)) > 1:
        rows += [(g or "-", groups.get(g, []), crashes.get(g, 0)) for g in sorted(set(groups) | set(crashes))]
    table(rows)
    for facet, by_value in facets.items():
        print(f"\nby {facet}:\n")
        table([(v, by_value[v], 0) for v in sorted(by_value)])

    loose = [sum(s.loose[i] for s in every) for i in (0, 1)]
    down = [sum(s.face_down[i] for s in every) for i in (0, 1)]
    legal = [s for s in every if s.legal]
    print(f"\nloose tiles found: {loose[0]} of {loose[1]} ({sum(s.loose_named for s in every)} with the right number); "
          f"face-down tiles found: {down[0]} of {down[1]}")
    print(f"false violations on legal boards: {sum(s.false_violations > 0 for s in legal)} of {len(legal)} boards "
          f"({sum(s.false_violations for s in legal)} mismatched edges among confident tiles)")

    print("\n| resolution | images | median s | p90 s |\n|---|---|---|---|")
    for res in sorted(times, key=lambda r: int(r.split("x")[0]) * int(r.split("x")[1])):
        t = np.array(times[res])
        print(f"| {res} | {len(t)} | {np.median(t):.3f} | {np.percentile(t, 90):.3f} |")
    if stages:
        print("\n| stage | median ms | p90 ms |\n|---|---|---|")
        for name, t in stages.items():
            print(f"| {name} | {1000 * np.median(t):.1f} | {1000 * np.percentile(t, 90):.1f} |")
    if wrong:
        print(f"\nconfident but wrong ({len(wrong)}):")
        for w in wrong[:30]:
            print(f"  {w}")
    if errors:
        print(f"\ndetector crashed on {len(errors)} images:")
        for e in errors[:10]:
            print(f"  {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
