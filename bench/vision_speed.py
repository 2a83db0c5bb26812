"""The detector's time per photo, stage by stage, on one core: what issue 18's speed target is measured by.

    ./run.sh python bench/vision_speed.py ../shared/dataset/wide [--repeat 3] [--big 8] [--pi-factor 10]

Each photo of the dataset folder (the layout of dataset/dev) is read `--repeat` times and each stage keeps its
fastest time (the machine is shared: the fastest run is the photo's own cost, the others add whatever else
ran); then the first `--big` photos enlarged to fit 4000x3000 (12 MP) the same way. OpenCV and onnxruntime run
on one thread, this one, so the time taken is the process's CPU time (`--clock cpu`, the default: other jobs
then slow it only through the caches and memory they share; on an idle core it is the wall time). The find
stage is split into the network's coarse pass (every copy of the whole photo, resizing included), its fine
pass (the tiles' regions) and the rest (peaks, hexagon fits, the bands' turn). The Pi 4 column is the median
times `--pi-factor`: an estimate, not a measurement (docs/vision.md says where the factor comes from).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tantrix_pi.vision.pipeline  # noqa: E402
from bench.vision import dataset, load_detector, resized  # noqa: E402
from tantrix_pi.vision.network import TileNetwork  # noqa: E402

CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
STAGES = ("coarse pass", "fine pass", "find, the rest", "grid", "read_edges", "decode", "assemble", "total")
BIG = (4000, 3000)


class TimedNetwork(TileNetwork):
    """The shipped network, timing its coarse passes (the whole photo) apart from its fine ones (regions)."""

    def __init__(self, clock) -> None:
        super().__init__()
        self.clock = clock
        self.spent: dict[str, float] = defaultdict(float)

    def maps(self, photo, scale, box=None):
        t = self.clock()
        out = super().maps(photo, scale, box)
        self.spent["coarse pass" if box is None else "fine pass"] += self.clock() - t
        return out


def stage_times(detect, network: TimedNetwork, image: np.ndarray) -> dict[str, float]:
    """Seconds per stage of one detection."""
    network.spent.clear()
    t = network.clock()
    det = detect(image, network=network)
    out = {"total": network.clock() - t, **det.timings, **network.spent}
    out["find, the rest"] = out.pop("find_tiles") - network.spent["coarse pass"] - network.spent["fine pass"]
    return out


def measure(detect, network: TimedNetwork, photos, repeat: int) -> dict[str, list[float]]:
    """Per stage, each photo's fastest time over `repeat` runs."""
    per_stage: dict[str, list[float]] = defaultdict(list)
    for _name, _group, load, _truth in photos:
        image = load()
        runs = [stage_times(detect, network, image) for _ in range(repeat)]
        for s in STAGES:
            per_stage[s].append(min(r.get(s, 0.0) for r in runs))
    return per_stage


def table(title: str, per_stage: dict[str, list[float]], pi_factor: float) -> None:
    n = len(per_stage["total"])
    print(f"\n{title} ({n} photos)\n")
    print(f"| stage | median ms | p90 ms | Pi 4 estimate, median ms (x {pi_factor:g}) |\n|---|---|---|---|")
    for s in STAGES:
        t = 1000 * np.array(per_stage[s])
        print(f"| {s} | {np.median(t):.1f} | {np.percentile(t, 90):.1f} | {pi_factor * np.median(t):.0f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", type=Path, help="folder in the layout of dataset/dev")
    ap.add_argument("--repeat", type=int, default=3, help="runs per photo, the fastest kept (default 3)")
    ap.add_argument("--big", type=int, default=8, help="how many photos to time enlarged to 12 MP (default 8)")
    ap.add_argument("--limit", type=int, help="only the first N photos")
    ap.add_argument("--pi-factor", type=float, default=10.0,
                    help="a Raspberry Pi 4 core's time over one core here (default 10: docs/vision.md)")
    ap.add_argument("--clock", choices=CLOCKS, default="cpu", help="the process's CPU time or wall time (default cpu)")
    args = ap.parse_args(argv)
    clock = CLOCKS[args.clock]
    tantrix_pi.vision.pipeline.time = SimpleNamespace(perf_counter=clock)  # the stages' own timings, on that clock
    if not (args.dataset / "images").is_dir():
        ap.error(f"{args.dataset}: no images/ folder there")
    detect = load_detector("tantrix_pi.vision:detect")  # OpenCV on one thread, so the network too
    if detect is None:
        return 1
    network = TimedNetwork(clock)
    photos = dataset(args.dataset, args.limit)
    stage_times(detect, network, photos[0][2]())  # the session's first run allocates; not timed
    print(f"# vision speed: {args.dataset}, one thread, {args.clock} time, fastest of {args.repeat} runs per photo")
    by_size = defaultdict(list)
    for p in photos:
        by_size[f"{p[3]['width']}x{p[3]['height']}"].append(p)
    for size, group in sorted(by_size.items(), key=lambda kv: -len(kv[1])):
        table(size, measure(detect, network, group, args.repeat), args.pi_factor)
    if args.big:
        big = [resized(p, BIG) for p in photos[:args.big]]
        table(f"12 MP: the first {len(big)} photos enlarged to fit {BIG[0]}x{BIG[1]}",
              measure(detect, network, big, args.repeat), args.pi_factor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
