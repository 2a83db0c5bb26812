"""Does colour calibration help the detector under warm light? Rendered rooms, with and without the profile.

    ./run.sh python bench/colour_calibration.py [--boards 6] [--seed 1]

Each set-up is one room: a fixed light temperature, camera white balance (awb, the share of the cast
it removes), table, tile set (palette) and camera height. One calibration photo of some face-up tiles
is rendered there and the colour profile learned from it by `calibration.colour.learn` (the code path
of `tantrix-pi calibrate colour`); then N other boards are rendered in the same room and read by
`vision.detect` without a profile, with the learned colour-only profile (a refused calibration
leaves the detector uncalibrated), and with the true gains (the best white balance can do). Scored by
`vision.evaluate.score` as in bench/vision.py. The "true gains" are the 8-bit gains that undo the
rendered cast exactly (tantrix_pi/simulator/light.py multiplies 8-bit values by the square root of the linear cast).
OpenCV runs on one thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.calibration.colour import ColourError, learn  # noqa: E402
from tantrix_pi.calibration.profile import ColourCalibration, Profile  # noqa: E402
from tantrix_pi.simulator import PALETTES, kelvin_rgb, random_board, render  # noqa: E402
from tantrix_pi.vision import detect  # noqa: E402
from tantrix_pi.vision.evaluate import Accuracy, score  # noqa: E402

SETUPS = (
    # name, light K, awb, table, palette, tile px, exposure (a dim room the camera's gain did not make up for)
    ("warm 2700K awb .2 felt dim", 2700, 0.2, "felt", 0, 50, 0.7),
    ("warm 2900K awb .3 wood", 2900, 0.3, "wood", 2, 55, 0.85),
    ("warm 3000K awb .35 cloth dim", 3000, 0.35, "cloth", 0, 45, 0.7),
    ("warm 3300K awb .5 laminate", 3300, 0.5, "laminate", 1, 50, 0.85),
    ("neutral 5000K awb .6 wood dim", 5000, 0.6, "wood", 0, 50, 0.7),
    ("daylight 6500K awb .6 laminate", 6500, 0.6, "laminate", 2, 50, 0.85),
)


def room_seeds(palette: int, start: int):
    """Seeds whose rendered tile set is `palette` (render draws it first from the seed's stream 17
    when the tilt azimuth is given)."""
    seed = start
    while True:
        if int(np.random.default_rng([seed & 0xFFFFFFFF, 17]).integers(len(PALETTES))) == palette:
            yield seed
        seed += 1


def true_gains(light_k: float, awb: float) -> tuple[float, float, float]:
    """R, G, B gains on 8-bit values (green = 1) that undo the cast tantrix_pi/simulator/light.py renders."""
    cast = kelvin_rgb(light_k) ** (1.0 - awb)
    g = np.sqrt(cast[1] / cast)
    return tuple(round(float(x), 3) for x in g)


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}" if b else "-"


def row(name: str, scores: list[Accuracy], times: list[float]) -> str:
    tiles = sum(s.tiles for s in scores)
    return (f"| {name} | {len(scores)} | {tiles} | {pct(sum(s.turn for s in scores), tiles)} | "
            f"{pct(sum(s.exact for s in scores), len(scores))} | {pct(sum(s.unreadable for s in scores), tiles)} | "
            f"{sum(len(s.confident_wrong) for s in scores)} | {np.median(times) * 1000:.0f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=6, help="boards read per set-up")
    ap.add_argument("--seed", type=int, default=1, help="first seed of the rendered scenes")
    ap.add_argument("--each", action="store_true", help="also print tiles right per board and profile")
    ap.add_argument("--setups", help="only set-ups whose name contains this")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"# colour calibration bench: {args.boards} boards per set-up, seed {args.seed}, OpenCV on 1 thread\n")

    modes = ("without", "with", "true gains")
    results = {m: {} for m in modes}
    times = {m: {} for m in modes}
    gains_lines = []
    for name, light_k, awb, table, palette, tile_px, exposure in SETUPS:
        if args.setups and args.setups not in name:
            continue
        rng = np.random.default_rng([args.seed, light_k])
        seeds = room_seeds(palette, args.seed * 1000 + light_k)
        room = {"light_k": light_k, "awb": awb, "table": table, "tile_px": tile_px, "exposure": exposure, "k1": -0.08,
                "tilt_azimuth_deg": float(rng.uniform(0, 360))}
        calib_image, truth = render(random_board(rng, 10), seed=next(seeds), yaw_deg=float(rng.uniform(0, 360)),
                                    tilt_deg=float(rng.uniform(0, 10)), **room)
        assert truth["params"]["palette"] == palette
        try:
            model, sep = learn(calib_image)
            profile = Profile(colour=model)
            learned = model.white_balance
        except ColourError as e:
            profile, learned = None, f"refused ({e}): runs uncalibrated"
        gains_lines.append(f"| {name} | {learned} | {true_gains(light_k, awb)} |")
        oracle = Profile(colour=ColourCalibration(true_gains(light_k, awb), {}, ""))
        for mode in modes:
            results[mode][name], times[mode][name] = [], []
        for _ in range(args.boards):
            board = random_board(rng, int(rng.integers(5, 30)))
            image, truth = render(board, seed=next(seeds), yaw_deg=float(rng.uniform(0, 360)),
                                  tilt_deg=float(rng.uniform(0, 15)), blur=float(rng.uniform(0.4, 1.2)),
                                  noise=float(rng.uniform(0.5, 1.5)),
                                  glare=float(rng.uniform(0.2, 0.7)) if rng.random() < 0.4 else 0.0, **room)
            for mode, prof in zip(modes, (None, profile, oracle), strict=True):
                t0 = time.perf_counter()
                det = detect(image, prof)
                times[mode][name].append(time.perf_counter() - t0)
                results[mode][name].append(score(det, truth))
            if args.each:
                print(f"{name} board {len(results['with'][name])}: " + ", ".join(
                    f"{m} {results[m][name][-1].turn}/{results[m][name][-1].tiles}" for m in modes), flush=True)

    print("| set-up | learned gains R, G, B | true gains |\n|---|---|---|")
    print("\n".join(gains_lines))
    print("\n| set-up | profile | boards | tiles | tiles right % | boards exact % | unreadable % | "
          "confident wrong | median ms |\n|---|---|---|---|---|---|---|---|---|")
    for name in results["without"]:
        for mode in modes:
            print(row(f"{name} | {mode}", results[mode][name], times[mode][name]))
    for label, pick in (("all warm", lambda n: n.startswith("warm")), ("all", lambda n: True)):
        for mode in modes:
            sc = [s for n, ss in results[mode].items() if pick(n) for s in ss]
            tm = [t for n, ts in times[mode].items() if pick(n) for t in ts]
            if sc:
                print(row(f"**{label}** | {mode}", sc, tm))
    return 0


if __name__ == "__main__":
    sys.exit(main())
