"""The web page's cost to the referee and its speed: announcement-to-page latency with N phones on the event
stream, the live loop's frame time with and without them, and the bytes each phone receives.

    ./run.sh python bench/web.py [--moves 24] [--clients 20] [--size 1640x1232] [--rounds 5] [--camera-open 0]

The bundled demo game (its first --moves placements) is photographed into temporary JPEGs first, then
replayed through the loop `tantrix-pi run` drives (service gate, real detector), --rounds times without the
page and with the page and --clients clients following /api/events, alternating (without first in odd rounds,
with first in even ones, so that a load on the machine that grows or falls weighs on both alike). The clients
run in another process pinned to a core of its own (phones are other machines; the referee and its page's
thread share the other cores): each loads the page once, then notes when every announcement reaches it; the
latency is that time minus the moment the referee announced it (the event's "t"). Each counts the bytes it
receives as they come over the wire (compressed, when the server compresses) and as the page reads them:
the page and its scripts, the event stream, and, for the first --camera-open clients, the camera's picture
each time the state names a new one (as a page with "What the camera sees" open fetches it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
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
from tantrix_pi.vision import photo  # noqa: E402


class FrameClock(Sink):
    """The loop calls tick() once per frame: the time between ticks is the frame time."""

    def __init__(self) -> None:
        self.ticks: list[float] = []

    def tick(self) -> None:
        self.ticks.append(time.perf_counter())

    def frame_ms(self) -> list[float]:
        return [1000 * (b - a) for a, b in zip(self.ticks, self.ticks[1:], strict=False)]


ASSET = re.compile(rb'(?:src|href)="(?:https?://[^/"]+)?(/static/[^"]+)"')
"""The page's own scripts and style sheet, which a phone loads after the page."""


def follow(base: str, clients: int, camera_open: int, ready, done, out) -> None:
    """(Another process) `clients` phones on the page at `base`; puts (latencies s, bytes per phone)."""
    import os
    import zlib

    import httpx2 as httpx

    if (os.cpu_count() or 1) > 1:  # the phones are other machines: keep their work off the referee's cores
        os.sched_setaffinity(0, {os.cpu_count() - 1})

    async def load(client, path: str, got: dict) -> bytes:
        """`path` fetched as a browser does (gzip taken), its bytes over the wire counted; its body."""
        raw = b""
        async with client.stream("GET", base + path) as r:
            async for chunk in r.aiter_raw():
                raw += chunk
        got["page"] += len(raw)
        return zlib.decompress(raw, 31) if r.headers.get("content-encoding") == "gzip" else raw

    async def one(client, delays: list, got: dict, started, camera: bool):
        for path in ASSET.findall(await load(client, "/", got)):
            await load(client, path.decode(), got)
        seen, picture = set(), 0
        async with client.stream("GET", base + "/api/events") as stream:
            gzip = stream.headers.get("content-encoding") == "gzip"
            inflate = zlib.decompressobj(31) if gzip else None
            buffer = b""
            async for chunk in stream.aiter_raw():
                got["wire"] += len(chunk)
                buffer += inflate.decompress(chunk) if inflate else chunk
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    got["stream"] += len(block) + 2
                    fields = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line)
                    if b"data" not in fields:
                        continue
                    now = time.time()
                    message = json.loads(fields[b"data"])
                    full = fields.get(b"event") == b"state"
                    got["messages"].append(len(block) + 2)
                    events = message["events"] if full else message.get("events", [])
                    shown = (message if full else message.get("set", {})).get("seen", picture)
                    if not started.is_set():  # the state at connection: what was announced before
                        seen.update((e["t"], e["text"]) for e in events)
                        started.set()
                        continue
                    for e in events:
                        if (e["t"], e["text"]) not in seen:
                            seen.add((e["t"], e["text"]))
                            delays.append(now - e["t"])
                    if camera and shown and shown != picture:
                        picture = shown
                        r = await client.get(base + f"/api/seen.jpg?n={shown}")
                        got["picture"] += len(r.content)

    async def main():
        delays: list[list[float]] = [[] for _ in range(clients)]
        got = [{"page": 0, "wire": 0, "stream": 0, "picture": 0, "messages": []} for _ in range(clients)]
        started = [asyncio.Event() for _ in range(clients)]
        async with httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_connections=2 * clients + 5)) as client:
            tasks = [asyncio.create_task(one(client, delays[i], got[i], started[i], i < camera_open))
                     for i in range(clients)]
            await asyncio.gather(*(s.wait() for s in started))
            ready.set()
            while not done.is_set():
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)  # the last announcements' messages
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        out.put(([d for per in delays for d in per], got))

    asyncio.run(main())


def replay(folder: Path, tmp: Path, clients: int = 0, camera_open: int = 0) -> tuple[list[float], list[float], int,
                                                                                    list[dict]]:
    """One replay of the photographed game; (frame ms, latencies ms, announcements made, bytes per phone)."""
    clock, memory = FrameClock(), MemorySink()
    sinks: list[Sink] = [clock, memory]
    web = None
    if clients:
        from tantrix_pi.web.hub import Hub
        from tantrix_pi.web.server import listen, serve

        hub = Hub()
        sinks.append(hub)
    store = Store(tmp / f"state-{time.monotonic_ns()}.db")
    loop = LiveLoop(folder_source(folder, read=photo.load), make_detector(), store, Setup("game", ["R", "Y"]),
                    Sinks(sinks))
    latencies: list[float] = []
    received: list[dict] = []
    if clients:
        hub.show(loop.view())
        web = serve(hub, listen("127.0.0.1", 0), state_db=store.path)
        ctx = multiprocessing.get_context("spawn")
        ready, done, out = ctx.Event(), ctx.Event(), ctx.Queue()
        proc = ctx.Process(target=follow, args=(f"http://127.0.0.1:{web.port}", clients, camera_open, ready, done,
                                                      out))
        proc.start()
        if not ready.wait(60):
            raise SystemExit("bench/web.py: the clients did not connect")
    loop.run()
    if clients:
        done.set()
        delays, received = out.get(timeout=60)
        latencies = [1000 * d for d in delays]
        proc.join(30)
        web.stop()
    return clock.frame_ms(), latencies, len(memory.events), received


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=24)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--size", default="1640x1232")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--camera-open", type=int, default=0,
                    help="how many of the clients fetch the camera's picture whenever it changes")
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
        for k in range(args.rounds):  # alternating, first one then the other, so that the machine's other load
            for n in (0, args.clients)[::1 if k % 2 == 0 else -1]:  # (and its drift) falls on both alike
                results[n].append(replay(folder, Path(tmp), n, args.camera_open))
    print(f"web page bench: {args.moves} placements of the demo game at {w}x{h}, real detector, "
          f"{args.clients} clients in another process ({args.camera_open} with the camera's picture open), "
          f"{args.rounds} rounds of each")
    print()
    print("| run | frames | frame ms (mean) | frame ms (median) | frame ms (p90) | announcements received |")
    print("|---|---|---|---|---|---|")
    means = {n: [] for n in results}
    for n, runs in results.items():
        for frames, lat, announced, _ in runs:
            means[n].append(statistics.fmean(frames))
            got = f"{len(lat)} of {announced} x {n}" if n else "-"
            name = f"page, {n} clients on /api/events" if n else "without the page"
            print(f"| {name} | {len(frames) + 1} | {means[n][-1]:.1f} | {statistics.median(frames):.1f} "
                  f"| {pct(frames, 90):.1f} | {got} |")
    without, with_page = statistics.median(means[0]), statistics.median(means[args.clients])
    ratios = [w / o for o, w in zip(means[0], means[args.clients], strict=True)]  # each round's pair, run together
    print()
    print(f"loop frame time, median of the runs' means: {without:.1f} ms without the page, {with_page:.1f} ms with "
          f"it; median of the rounds' ratios (with / without, run one after the other): "
          f"{100 * (statistics.median(ratios) - 1):+.1f} % (goal: at most +5 %)")
    lat = [x for _, lats, _, _ in results[args.clients] for x in lats]
    print()
    print("| announcement to page, ms | median | p90 | max |")
    print("|---|---|---|---|")
    print(f"| {args.clients} clients | {statistics.median(lat):.1f} | {pct(lat, 90):.1f} | {max(lat):.1f} |")
    phones = [p for _, _, _, got in results[args.clients] for p in got]
    messages = [m for p in phones for m in p["messages"]]
    kb = [m / 1000 for p in phones for m in p["messages"][1:]]  # after the first, full, message
    print()
    print("| bytes per phone per game (median of the phones) | KB |")
    print("|---|---|")
    for name, key in (("the page and its scripts, over the wire", "page"),
                      ("the event stream, over the wire", "wire"), ("the event stream, as read", "stream"),
                      ("the camera's picture", "picture")):
        print(f"| {name} | {statistics.median(p[key] for p in phones) / 1000:.1f} |")
    total = [p["page"] + p["wire"] + p["picture"] for p in phones]
    print(f"| all over the wire | {statistics.median(total) / 1000:.1f} |")
    print()
    print(f"event stream messages: {len(messages) // len(phones)} per phone; the first {messages[0] / 1000:.1f} KB, "
          f"the others median {statistics.median(kb):.2f} KB, p90 {pct(kb, 90):.2f} KB, max {max(kb):.2f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
