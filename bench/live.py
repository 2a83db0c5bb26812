"""Speed of the live loop on a replayed game: fps, placement-to-announcement latency, peak RSS, gate vs detector.

    ./run.sh python bench/live.py [--moves 16] [--size 1640x1232] [--tile-px 110] [--frames DIR]
                                  [--table dark_wood] [--light-k 2700] [--awb 0.3] [--exposure 0.7]

The bundled demo game (its first --moves placements, one illegal tile taken back when it falls inside)
is photographed by the simulator into a temporary folder of JPEGs first (a worker process: not timed,
not in the RSS), then replayed as fast as possible through the loop `tantrix-pi run` drives, with the
service's default gate (stable_frames 3). --frames DIR keeps the photos there for another run. --table and
the light options photograph the game on another table under another light (e.g. a warm lamp on dark
wood). Every "can't read" announcement is checked: it must name only cells of the board or next to it,
and never the same cells twice in a row.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from tantrix_pi.board import Board  # noqa: E402
from tantrix_pi.devices.sources import folder_source  # noqa: E402
from tantrix_pi.grid import neighbours  # noqa: E402
from tantrix_pi.live.demo import Demo  # noqa: E402
from tantrix_pi.live.loop import LiveLoop  # noqa: E402
from tantrix_pi.live.referee import Setup  # noqa: E402
from tantrix_pi.live.service import make_detector  # noqa: E402
from tantrix_pi.live.sinks import MemorySink  # noqa: E402
from tantrix_pi.live.store import Store  # noqa: E402
from tantrix_pi.live.tracker import apply_cell, register  # noqa: E402
from tantrix_pi.vision import photo  # noqa: E402

STILL, HAND = 5, 2


def write_frames(demo: Demo, folder: Path) -> None:
    """Photograph the recording into folder/00000.jpg, 00001.jpg, ..."""
    for n, image in enumerate(demo.frames()):
        cv2.imwrite(str(folder / f"{n:05d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])


class Timed(MemorySink):
    """Notes the wall time of every announcement."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def announce(self, event) -> None:
        super().announce(event)
        self.times.append(time.perf_counter())


def ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.1f}" if values else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=16)
    ap.add_argument("--size", default="1640x1232")
    ap.add_argument("--tile-px", type=float, default=110.0)
    ap.add_argument("--frames", type=Path, help="keep the photos in this folder")
    ap.add_argument("--table", help="the simulator's table to play on (default: the recording's)")
    ap.add_argument("--light-k", type=float, help="colour temperature of the light")
    ap.add_argument("--awb", type=float, help="share of the light's cast the camera's white balance removes")
    ap.add_argument("--exposure", type=float, help="light level (1: as recorded; 0.5 a dim room)")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    setting = {k: v for k, v in (("table", args.table), ("light_k", args.light_k), ("awb", args.awb),
                                 ("exposure", args.exposure)) if v is not None}
    demo = Demo.bundled(STILL, HAND, args.moves, size=(w, h), tile_px=args.tile_px, **setting)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.frames or Path(tmp) / "frames"
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        worker = multiprocessing.get_context("fork").Process(target=write_frames, args=(demo, folder))
        worker.start()
        worker.join()
        render_s = time.perf_counter() - t0
        # when each still scene's first frame is read, and when each commit's events are announced
        read_at: list[float] = []
        source = folder_source(folder, read=photo.load)
        inner = source.read

        def read():
            frame = inner()
            read_at.append(time.perf_counter())
            return frame

        source.read = read
        sink = Timed()
        detect = make_detector()
        loop = LiveLoop(source, detect, Store(Path(tmp) / "state.db"), Setup("game", ["R", "Y"]), sink)
        t0 = time.perf_counter()
        loop.run()
        wall = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    st = loop.stats
    # latency: from the first frame in which a changed table lies still to the commit that announced it
    starts, i = [], 0
    for scene in demo.scenes:
        if not scene.hand and scene.note != "empty table":
            starts.append(i)
        i += scene.frames
    commit_frames = st.frame_index_of_commit
    lat_frames, lat_ms = [], []
    for c in commit_frames:
        s = max((x for x in starts if x <= c), default=None)
        if s is None:
            continue
        lat_frames.append(c - s + 1)
        first_event = next(t for t in sink.times if t >= read_at[c])
        lat_ms.append(first_event - read_at[s])
    placed = sum(e.kind == "placed" for e in sink.events)
    moves = [e for e in sink.events if e.kind in ("placed", "illegal", "taken_back")]
    expected = len(demo.moves) + 2 * any(s.note.startswith("illegal") for s in demo.scenes)
    final = Board(demo.moves)
    near = final.cells | {c for cell in final.cells for c in neighbours(cell)}
    unsure = [e for e in sink.events if e.kind == "unsure"]
    t = register(final, list(loop.tracker.committed))  # the loop's cells in the recording's grid
    off_board = [c for e in unsure for c in e.data["cells"] if apply_cell(t, tuple(c)) not in near]
    repeats = sum(a.data == b.data for a, b in zip(unsure, unsure[1:], strict=False))
    print(f"live loop on {args.moves} placements of the demo game, {w}x{h}, tile {args.tile_px:.0f} px"
          f"{', ' + ', '.join(f'{k} {v}' for k, v in setting.items()) if setting else ''} "
          f"(photos rendered beforehand in {render_s:.1f} s)")
    print()
    print("| measure | value |")
    print("|---|---|")
    print(f"| frames replayed | {st.frames} ({st.skipped} skipped for motion, {st.detected} detected) |")
    print(f"| loop fps (all frames) | {st.frames / wall:.2f} |")
    print(f"| placements announced / recorded | {placed} / {len(demo.moves)} |")
    print(f"| move events (placed, illegal, taken back) announced / played | {len(moves)} / {expected} |")
    print(f"| \"can't read\" announcements | {len(unsure)} ({len(off_board)} cells away from the board, "
          f"{repeats} repeated) |")
    print(f"| latency, frames (median, max) | {statistics.median(lat_frames):.0f}, {max(lat_frames)} |")
    print(f"| latency, ms (median, max) | {ms(lat_ms)}, {1000 * max(lat_ms):.0f} |")
    print(f"| motion gate per frame, ms (median) | {ms(st.gate_s)} |")
    print(f"| full detection per frame, ms (median) | {ms(st.detect_s)} |")
    ratio = statistics.median(st.detect_s) / statistics.median(st.gate_s)
    print(f"| skipped motion frame vs detection | 1 : {ratio:.0f} |")
    print(f"| peak RSS, MB (goal <= 200) | {rss_mb:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
