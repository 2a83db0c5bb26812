"""The web page's cost to the referee and its speed: announcement-to-page latency with N phones on the event
stream, and the live loop's frame time with and without them.

    ./run.sh python bench/web.py [--moves 24] [--clients 20] [--size 1640x1232] [--rounds 5]

The bundled demo game (its first --moves placements) is photographed into temporary JPEGs first, then
replayed through the loop `tantrix-pi run` drives (service gate, real detector), --rounds times without the
page and with the page and --clients clients following /api/events, alternating. The clients
run in another process pinned to a core of its own (phones are other machines; the referee and its page's
thread share the other cores): each notes when every announcement reaches it; the latency is that time
minus the moment the referee announced it (the event's "t").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from live import HAND, STILL, write_frames  # noqa: E402  (bench/live.py)

from tantrix_pi.devices.sources import folder_source  # noqa: E402
from tantrix_pi.live.demo import Demo  # noqa: E402
from tantrix_pi.live.loop import LiveLoop  # noqa: E402
from tantrix_pi.live.referee import Setup  # noqa: E402
from tantrix_pi.live.service import make_detector  # noqa: E402
from tantrix_pi.live.sinks import MemorySink, Sink, Sinks  # noqa: E402
from tantrix_pi.live.store import Store  # noqa: E402


class FrameClock(Sink):
    """The loop calls tick() once per frame: the time between ticks is the frame time."""

    def __init__(self) -> None:
        self.ticks: list[float] = []

    def tick(self) -> None:
        self.ticks.append(time.perf_counter())

    def frame_ms(self) -> list[float]:
        return [1000 * (b - a) for a, b in zip(self.ticks, self.ticks[1:], strict=False)]


def follow(url: str, clients: int, ready, done, out) -> None:
    """(Another process) `clients` streams of /api/events; puts [(receive time - announce time) s, ...]."""
    import os

    import httpx2 as httpx

    if (os.cpu_count() or 1) > 1:  # the phones are other machines: keep their work off the referee's cores
        os.sched_setaffinity(0, {os.cpu_count() - 1})

    async def one(client, seen: set, delays: list, started):
        async with client.stream("GET", url) as stream:
            async for line in stream.aiter_lines():
                if not line.startswith("data: "):
                    continue
                now = time.time()
                state = json.loads(line[6:])
                if not started.is_set():  # the state at connection: what was announced before
                    seen.update((e["t"], e["text"]) for e in state["events"])
                    started.set()
                    continue
                for e in state["events"]:
                    if (e["t"], e["text"]) not in seen:
                        seen.add((e["t"], e["text"]))
                        delays.append(now - e["t"])

    async def main():
        delays: list[list[float]] = [[] for _ in range(clients)]
        started = [asyncio.Event() for _ in range(clients)]
        async with httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_connections=clients + 5)) as client:
            tasks = [asyncio.create_task(one(client, set(), delays[i], started[i])) for i in range(clients)]
            await asyncio.gather(*(s.wait() for s in started))
            ready.set()
            while not done.is_set():
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)  # the last announcements' messages
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        out.put([d for per in delays for d in per])

    asyncio.run(main())


def replay(folder: Path, tmp: Path, clients: int = 0) -> tuple[list[float], list[float], int]:
    """One replay of the photographed game; (frame ms, latencies ms, announcements made)."""
    clock, memory = FrameClock(), MemorySink()
    sinks: list[Sink] = [clock, memory]
    web = None
    if clients:
        from tantrix_pi.web.hub import Hub
        from tantrix_pi.web.server import listen, serve

        hub = Hub()
        sinks.append(hub)
    store = Store(tmp / f"state-{time.monotonic_ns()}.db")
    loop = LiveLoop(folder_source(folder), make_detector(), store, Setup("game", ["R", "Y"]), Sinks(sinks))
    latencies: list[float] = []
    if clients:
        hub.show(loop.view())
        web = serve(hub, listen("127.0.0.1", 0), state_db=store.path)
        ctx = multiprocessing.get_context("spawn")
        ready, done, out = ctx.Event(), ctx.Event(), ctx.Queue()
        proc = ctx.Process(target=follow, args=(f"http://127.0.0.1:{web.port}/api/events", clients, ready, done, out))
        proc.start()
        if not ready.wait(60):
            raise SystemExit("bench/web.py: the clients did not connect")
    loop.run()
    if clients:
        done.set()
        latencies = [1000 * d for d in out.get(timeout=60)]
        proc.join(30)
        web.stop()
    return clock.frame_ms(), latencies, len(memory.events)


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=24)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--size", default="1640x1232")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    demo = Demo.bundled(STILL, HAND, args.moves, size=(w, h), tile_px=110.0)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "frames"
        folder.mkdir()
        write_frames(demo, folder)
        if (os.cpu_count() or 1) > 1:  # the referee (and its page's thread) off the clients' core
            os.sched_setaffinity(0, set(range(os.cpu_count() - 1)))
        results = {0: [], args.clients: []}
        for _ in range(args.rounds):  # alternating, so that the machine's other load falls on both alike
            for n in (0, args.clients):
                results[n].append(replay(folder, Path(tmp), n))
    print(f"web page bench: {args.moves} placements of the demo game at {w}x{h}, real detector, "
          f"{args.clients} clients in another process, {args.rounds} rounds of each")
    print()
    print("| run | frames | frame ms (mean) | frame ms (median) | frame ms (p90) | announcements received |")
    print("|---|---|---|---|---|---|")
    means = {n: [] for n in results}
    for n, runs in results.items():
        for frames, lat, announced in runs:
            means[n].append(statistics.fmean(frames))
            got = f"{len(lat)} of {announced} x {n}" if n else "-"
            name = f"page, {n} clients on /api/events" if n else "without the page"
            print(f"| {name} | {len(frames) + 1} | {means[n][-1]:.1f} | {statistics.median(frames):.1f} "
                  f"| {pct(frames, 90):.1f} | {got} |")
    without, with_page = statistics.median(means[0]), statistics.median(means[args.clients])
    ratios = [w / o for o, w in zip(means[0], means[args.clients], strict=True)]  # each round's pair
    print()
    print(f"loop frame time, median of the runs' means: {without:.1f} ms without the page, {with_page:.1f} ms with "
          f"it; median of the rounds' ratios (with / without, run one after the other): "
          f"{100 * (statistics.median(ratios) - 1):+.1f} % (goal: at most +5 %)")
    lat = [x for _, lats, _ in results[args.clients] for x in lats]
    print()
    print("| announcement to page, ms | median | p90 | max |")
    print("|---|---|---|---|")
    print(f"| {args.clients} clients | {statistics.median(lat):.1f} | {pct(lat, 90):.1f} | {max(lat):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
