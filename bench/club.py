"""The club at scale and the feed's cost to a referee (docs/club.md).

    ./run.sh python bench/club.py [--tables 20] [--fps 5] [--moves 12] [--rounds 5] [--size 1640x1232]

1. --tables simulated tables, one game each (the bundled game, every table in its own referee loop on frames that
   carry their board, --fps frames a second: a tile every 1.2 s, far faster than people play; all of them in this one
   process, so that at 20 frames a second they starve their own feeds' threads), publish through their feeds into one
   broker (Debian's mosquitto on a loopback port) and go on until their feeds have sent everything; `tantrix-pi club`
   follows them, and a follower in another process, pinned to a core of its own (the tournament director's browser
   and any other subscriber are other machines), subscribes to every table's messages and reads the club page's event
   stream. Events per second are the announcements the broker delivered, from the first to the last; messages a game
   are every topic's (event, state, online, game/N) per table, the median over the tables; the latency is from the
   moment a referee announced something (the event's "t") to the club page's card showing it (its data-said); the
   club's memory is its peak RSS.
2. The outbox after an outage: the same tables start on the broker, which is killed (SIGKILL) once every feed is
   connected; the games are played to their end with the broker away, the feeds still running, then it is started
   again. Per table: the messages that waited, how long after the broker was back the feed was connected again (paho's
   back-off, feed.RECONNECT_S) and how long from then until its outbox was empty (the broker had acknowledged all).
3. A referee's frame time with and without its feed: the bundled game's first --moves placements photographed into
   JPEGs, replayed through the loop `tantrix-pi run` drives (service gate, real detector), --rounds times without and
   with the feed (to the broker, the club following), alternating, so that the machine's other load falls on both.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

from broker import Mosquitto, free_port, wait_for  # noqa: E402  (tests/broker.py)
from live import HAND, STILL, write_frames  # noqa: E402  (bench/live.py)
from live_fakes import detect_frame, frame_of  # noqa: E402  (tests/live_fakes.py)
from web import FrameClock, pct  # noqa: E402  (bench/web.py)

from tantrix_pi.commands.live import club_feed  # noqa: E402
from tantrix_pi.devices.sources import ReplaySource, folder_source  # noqa: E402
from tantrix_pi.live.commands import pressed  # noqa: E402
from tantrix_pi.live.config import COLOUR_LETTER, FeedConfig  # noqa: E402
from tantrix_pi.live.demo import Demo  # noqa: E402
from tantrix_pi.live.loop import LiveLoop  # noqa: E402
from tantrix_pi.live.recording import load_record, placements, script, turn_ends  # noqa: E402
from tantrix_pi.live.referee import Setup  # noqa: E402
from tantrix_pi.live.service import make_detector  # noqa: E402
from tantrix_pi.live.sinks import MemorySink, Sinks  # noqa: E402
from tantrix_pi.live.store import Store  # noqa: E402

SAID = re.compile(r'data-said="([0-9.]+)"')
CLUB_BROKER = "max_queued_messages 10000\n"
"""What docs/club.md adds to mosquitto's configuration for a club (beside its listener)."""


def drops(broker: Mosquitto) -> int:
    """How often the broker said it dropped messages for a subscriber that fell behind."""
    return broker.log.read_text().count("Outgoing messages are being dropped")


def follow(url: str, page: str, tables: int, ready, out) -> None:
    """(Another process) every table's messages from the broker and the club page's cards; puts (event receive times,
    [(page time - announce time) s, ...], games over, {table: messages})."""
    import http.client

    from paho.mqtt import client as mqtt

    from tantrix_pi.live.config import broker_of

    if (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {os.cpu_count() - 1})
    received: list[float] = []
    messages: dict[str, int] = {}
    over: set[str] = set()
    offline: set[str] = set()
    delays: list[float] = []
    subscribed = threading.Event()
    broker = broker_of(url)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-follower", protocol=mqtt.MQTTv5)
    client.on_connect = lambda c, *_: c.subscribe("tantrix/+/#", qos=1)
    client.on_subscribe = lambda *_: subscribed.set()

    def message(c, userdata, msg) -> None:
        _, table, what = msg.topic.split("/", 2)
        messages[table] = messages.get(table, 0) + 1
        if what == "online" and msg.payload == b"0":
            offline.add(table)
        if what != "event":
            return
        received.append(time.time())
        if json.loads(msg.payload)["kind"] == "game_over":
            over.add(table)

    client.on_message = message
    client.connect(broker.host, broker.port)
    client.loop_start()
    subscribed.wait(30)
    host, port = page.split("//")[1].split("/")[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=600)
    conn.request("GET", "/api/events")
    stream = conn.getresponse()
    shown: dict[str, str] = {}
    ready.set()
    while len(over) < tables or any(not shown.get(t) for t in over):
        line = stream.readline()
        if not line:
            break
        if not line.startswith(b"data: "):
            continue
        now = time.time()
        data = json.loads(line[6:])
        said = SAID.search(data.get("html") or "")
        if "table" in data and said and shown.get(data["table"]) != said.group(1):
            if data["table"] in shown:  # not the card as it stood when the follower came
                delays.append(now - float(said.group(1)))
            shown[data["table"]] = said.group(1)
        if len(over) == tables and all(shown.get(t) for t in over):
            break
    # the feeds' last state and online 0 as they close: counted too
    wait_for(lambda: offline >= over, 60, what="every table's online 0")
    client.loop_stop()
    out.put((received, delays, len(over), messages))


def table_frames(loop_of):
    """The bundled game as fake frames (they carry their board), with the players' end-of-turn presses."""
    rec = load_record()
    scenes = script(placements(rec), still=4, hand=2, illegal_at=9, turn_ends=turn_ends(rec))

    def frames():
        for i, s in enumerate(scenes):
            for j in range(s.frames):
                yield frame_of(s.board, s.hand, seed=1000 * i + j)
            if s.press:
                loop_of().commands.put(pressed(s.press))

    return frames, Setup("game", [COLOUR_LETTER[c] for c in rec["players"]])


def play_table(name: str, folder: Path, url: str, fps: float, feeds: dict | None = None,
               played: threading.Semaphore | None = None, hold: threading.Event | None = None) -> None:
    """One table's game through its referee loop and its feed (put in `feeds` by name); with `hold`, the game's end is
    released on `played` and the feed closed only once `hold` is set."""
    folder.mkdir(parents=True, exist_ok=True)
    store = Store(folder / "state.db")
    sinks = club_feed(FeedConfig(mqtt=url, table=name), store.path)
    loop = None
    frames, setup = table_frames(lambda: loop)
    loop = LiveLoop(ReplaySource(frames, fps), detect_frame, store, setup, Sinks(sinks))
    for s in sinks:
        s.show(loop.view())
    if feeds is not None:
        feeds[name] = sinks[-1]
    sinks[-1].start()
    loop.run()
    if hold is not None:
        played.release()
        hold.wait()
    # a Pi's referee runs on after its game; closing at once would leave what waits for the next start
    wait_for(lambda: waiting_in(store.path) == 0, 300, what=f"table {name}'s outbox empty")
    Sinks(sinks).close()


def tables_playing(tmp: Path, tables: int, url: str, fps: float, **kw) -> list[threading.Thread]:
    threads = [threading.Thread(target=play_table, args=(f"t{i + 1:02d}", tmp / f"t{i + 1:02d}", url, fps), kwargs=kw)
               for i in range(tables)]
    for t in threads:
        t.start()
    return threads


def rss_kb(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text()
    return {k: int(re.search(rf"{k}:\s+(\d+)", status).group(1)) for k in ("VmHWM", "VmRSS")}


def club_at_scale(tmp: Path, tables: int, fps: float) -> None:
    broker = Mosquitto(tmp / "broker", extra=CLUB_BROKER).start()
    port = free_port()
    page = f"http://127.0.0.1:{port}/"
    club = subprocess.Popen([sys.executable, "-m", "tantrix_pi", "club", "--mqtt", broker.url, "--web", str(port),
                             "--bind", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import urllib.request

        wait_for(lambda: _up(urllib.request, page + "api/club"), 30, what="the club's page")
        idle = rss_kb(club.pid)
        ctx = multiprocessing.get_context("spawn")
        ready, out = ctx.Event(), ctx.Queue()
        follower = ctx.Process(target=follow, args=(broker.url, page, tables, ready, out))
        follower.start()
        if not ready.wait(60):
            raise SystemExit("bench/club.py: the follower did not start")
        t0 = time.time()
        for t in tables_playing(tmp / "scale", tables, broker.url, fps):
            t.join()
        played = time.time() - t0
        received, delays, finished, messages = out.get(timeout=300)
        follower.join(30)
        used = rss_kb(club.pid)
        dropped = drops(broker)
    finally:
        club.terminate()
        club.wait(20)
        broker.stop()
    span = max(received) - min(received)
    print(f"club at scale: {tables} tables, the bundled game each ({len(received) // max(finished, 1)} "
          f"announcements a game), {fps:g} frames a second each, one mosquitto, `tantrix-pi club`, a follower on a "
          f"core of its own; all games played in {played:.1f} s, {finished} of {tables} seen finished")
    print()
    print("| events delivered | events/s (first to last) | messages a game (median) | club page latency median ms "
          "| p90 ms | max ms | club RSS idle MB | club peak RSS MB | broker drops |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {len(received)} | {len(received) / span:.0f} | {statistics.median(messages.values()):.0f} "
          f"| {1000 * statistics.median(delays):.0f} | {1000 * pct(delays, 90):.0f} | {1000 * max(delays):.0f} "
          f"| {idle['VmRSS'] / 1024:.0f} | {used['VmHWM'] / 1024:.0f} | {dropped} |")


def waiting_in(path: Path) -> int:
    """Messages in a state database's outbox (read alone, as the feed's thread writes it)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        return db.execute("SELECT count(*) FROM feed").fetchone()[0]
    finally:
        db.close()


def finished_in(path: Path) -> bool:
    """Whether a state database's outbox holds its game's result (the feed's last message of a game)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        return db.execute("SELECT count(*) FROM feed WHERE topic LIKE 'game/%'").fetchone()[0] > 0
    finally:
        db.close()


def outbox_drain(tmp: Path, tables: int, fps: float) -> None:
    logging.getLogger("tantrix_pi.feed").setLevel(logging.ERROR)  # "lost the broker": each table's, as meant
    broker = Mosquitto(tmp / "broker-drain", extra=CLUB_BROKER).start()
    feeds: dict = {}
    played, hold = threading.Semaphore(0), threading.Event()
    threads = tables_playing(tmp / "drain", tables, broker.url, fps, feeds=feeds, played=played, hold=hold)
    rows = []
    try:
        wait_for(lambda: len(feeds) == tables and all(f.connected for f in feeds.values()), 60,
                 what="every feed connected")
        broker.kill()
        away = time.monotonic()
        for _ in threads:
            played.acquire()
        wait_for(lambda: all(finished_in(f.state_db) for f in feeds.values()), 60, what="every game's end kept")
        waited = {n: waiting_in(f.state_db) for n, f in feeds.items()}
        broker.start()
        back = time.monotonic()
        connected: dict[str, float] = {}
        drained: dict[str, float] = {}

        def all_out() -> bool:
            now = time.monotonic()
            for n, f in feeds.items():
                if n not in connected and f.connected:
                    connected[n] = now
                if n in connected and n not in drained and waiting_in(f.state_db) == 0:
                    drained[n] = now
            return len(drained) == tables

        wait_for(all_out, 300, step=0.02, what="every outbox empty")
        rows = [(waited[n], connected[n] - back, drained[n] - connected[n]) for n in sorted(feeds)]
    finally:
        hold.set()
        for t in threads:
            t.join(60)
        broker.stop()
    print(f"the outbox after an outage: {tables} tables, the broker killed once every feed was connected, the games "
          f"played to their end without it ({back - away:.1f} s away), then started again")
    print()
    print("| | messages waiting | broker back to feed connected s | connected to outbox empty s | drain messages/s |")
    print("|---|---|---|---|---|")
    for label, pick in (("median", statistics.median), ("max", max)):
        print(f"| {label} | {pick(r[0] for r in rows):.0f} | {pick(r[1] for r in rows):.1f} "
              f"| {pick(r[2] for r in rows):.2f} | {pick(r[0] / max(r[2], 1e-3) for r in rows):.0f} |")


def _up(request, url: str) -> bool:
    try:
        request.urlopen(url, timeout=2).read()
        return True
    except OSError:
        return False


def replay(folder: Path, tmp: Path, url: str | None) -> tuple[list[float], int]:
    """One replay of the photographed game through the service's loop, with the feed to `url` or without; (frame
    ms, messages the broker acknowledged)."""
    clock, memory = FrameClock(), MemorySink()
    store = Store(tmp / f"state-{time.monotonic_ns()}.db")
    feed = club_feed(FeedConfig(mqtt=url, table="bench"), store.path) if url else []
    loop = LiveLoop(folder_source(folder, read=lambda p: __import__("cv2").imread(str(p))), make_detector(), store,
                    Setup("game", ["R", "Y"]), Sinks([clock, memory, *feed]))
    if feed:
        for s in feed:
            s.show(loop.view())
        feed[-1].start()
    loop.run()
    if feed:
        feed[-1].close()
    return clock.frame_ms(), feed[-1].acknowledged if feed else 0


def feed_cost(tmp: Path, moves: int, rounds: int, size: tuple[int, int]) -> None:
    demo = Demo.bundled(STILL, HAND, moves, size=size, tile_px=110.0)
    folder = tmp / "frames"
    folder.mkdir()
    write_frames(demo, folder)
    broker = Mosquitto(tmp / "broker-cost").start()
    port = free_port()
    club = subprocess.Popen([sys.executable, "-m", "tantrix_pi", "club", "--mqtt", broker.url, "--web", str(port),
                             "--bind", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results: dict[bool, list] = {False: [], True: []}
    try:
        for _ in range(rounds):  # in turns
            for with_feed in (False, True):
                results[with_feed].append(replay(folder, tmp, broker.url if with_feed else None))
    finally:
        club.terminate()
        club.wait(20)
        broker.stop()
    print(f"a referee's frame time: {moves} placements of the demo game at {size[0]}x{size[1]}, real detector, "
          f"{rounds} rounds without and with the feed, in turns")
    print()
    print("| run | frames | frame ms (mean) | frame ms (median) | frame ms (p90) | messages acknowledged |")
    print("|---|---|---|---|---|---|")
    means: dict[bool, list[float]] = {False: [], True: []}
    for with_feed, runs in results.items():
        for frames, acknowledged in runs:
            means[with_feed].append(statistics.fmean(frames))
            print(f"| {'with the feed' if with_feed else 'without the feed'} | {len(frames) + 1} "
                  f"| {means[with_feed][-1]:.1f} | {statistics.median(frames):.1f} | {pct(frames, 90):.1f} "
                  f"| {acknowledged if with_feed else '-'} |")
    ratios = [w / o for o, w in zip(means[False], means[True], strict=True)]
    print()
    print(f"frame time, median of the runs' means: {statistics.median(means[False]):.1f} ms without the feed, "
          f"{statistics.median(means[True]):.1f} ms with it; median of the rounds' ratios (with / without, run one "
          f"after the other): {100 * (statistics.median(ratios) - 1):+.1f} % (goal: at most +5 %, or within noise: "
          f"the rounds' ratios range {100 * (min(ratios) - 1):+.1f} .. {100 * (max(ratios) - 1):+.1f} %)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--fps", type=float, default=5.0)
    ap.add_argument("--moves", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--size", default="1640x1232")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        club_at_scale(Path(tmp), args.tables, args.fps)
        print()
        outbox_drain(Path(tmp), args.tables, args.fps)
        print()
        feed_cost(Path(tmp), args.moves, args.rounds, (w, h))
    return 0


if __name__ == "__main__":
    sys.exit(main())
