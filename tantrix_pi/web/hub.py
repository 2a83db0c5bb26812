"""The hand-off between the referee and the web page: a sink the loop writes to, which the server reads.

The referee's thread only ever appends to a few fields under a short lock and pokes the server's event
loop (`call_soon_threadsafe`): it never renders, encodes or waits for a client. The server's thread
takes a snapshot, builds the page's state once per change and hands the same bytes to every client's
bounded queue; a client whose queue is full is dropped (its browser reconnects and starts afresh).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from tantrix_pi.live.sinks import Sink, View
from tantrix_pi.live.store import Notice

log = logging.getLogger("tantrix_pi.web")

KEEP_EVENTS = 50
"""Announcements the page and `GET /api/state` show."""
CLIENT_QUEUE = 8
"""Messages a client may fall behind by before it is dropped."""
MAX_CLIENTS = 100


def event_record(event: Notice, at: float) -> dict:
    """An announcement as the JSON-lines stream writes it."""
    return {"t": round(at, 3), "kind": event.kind, "text": event.text, "data": event.data}


@dataclass
class Snapshot:
    """What the page shows, copied out of the hub in one go."""

    version: int
    view: View | None
    events: list[dict]
    camera: dict
    voice: bool | None
    seen: int
    """Which detected frame is the latest (0: none yet)."""


@dataclass
class LastFrame:
    """The last frame the detector read, with what it read (drawn lazily, in the server's thread)."""

    frame: np.ndarray
    detection: object
    number: int


class Hub(Sink):
    """The referee's announcements, views and frames, kept for the web server (thread-safe)."""

    def __init__(self, keep: int = KEEP_EVENTS) -> None:
        self._lock = threading.Lock()
        self._events: deque[dict] = deque(maxlen=keep)
        self._view: View | None = None
        self._camera = {"up": True, "text": ""}
        self._voice: bool | None = None
        self._version = 0
        self._seen: LastFrame | None = None
        self._seen_count = 0
        self._latest: tuple[int, np.ndarray] | None = None
        self._frames = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_change = None
        self._poked = False

    # -- the referee's side: cheap, never waits for the web ------------------------------------------
    def announce(self, event: Notice) -> None:
        record = event_record(event, time.time())
        with self._lock:
            self._events.append(record)
            if event.kind == "camera":
                self._camera = {"up": bool(event.data.get("up", False)), "text": event.text}
            self._version += 1
        self._poke()

    def show(self, view: View) -> None:
        with self._lock:
            self._view = view
            self._version += 1
        self._poke()

    def set_voice(self, on: bool) -> None:
        with self._lock:
            self._voice = on
            self._version += 1
        self._poke()

    def frame(self, frame: np.ndarray, detection=None) -> None:
        with self._lock:
            self._frames += 1
            self._latest = (self._frames, frame)
            if detection is not None:
                self._seen_count += 1
                self._seen = LastFrame(frame, detection, self._seen_count)

    def _poke(self) -> None:
        """Wake the server's loop once per burst of changes (a commit's events and its view)."""
        with self._lock:
            if self._poked or self._loop is None:
                return
            self._poked = True
            loop, callback = self._loop, self._on_change
        try:
            loop.call_soon_threadsafe(callback)
        except RuntimeError:  # the server's loop has stopped: the referee goes on without it
            with self._lock:
                self._loop = None

    # -- the server's side ---------------------------------------------------------------------------
    def attach(self, loop: asyncio.AbstractEventLoop, on_change) -> None:
        """Call `on_change()` in `loop` (the server's) after changes; None detaches."""
        with self._lock:
            self._loop, self._on_change, self._poked = loop, on_change, False

    def snapshot(self) -> Snapshot:
        with self._lock:
            self._poked = False
            return Snapshot(self._version, self._view, list(self._events), dict(self._camera), self._voice,
                            self._seen_count)

    def seen(self) -> LastFrame | None:
        with self._lock:
            return self._seen

    def latest(self) -> tuple[int, np.ndarray] | None:
        """(its number, counted from 1) the last frame read from the camera (the guided calibration's picture)."""
        with self._lock:
            return self._latest


@dataclass(eq=False)
class Client:
    """One browser on the event stream."""

    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(CLIENT_QUEUE))
    dropped: bool = False


class Broadcaster:
    """Builds the page's state once per change and hands every client what changed (in the server's loop).

    A new client gets the whole state (`event: state`); after that each change is one `event: delta` (the
    keys that changed, the new announcements, the board's changed parts: `state.delta`), the same bytes for
    every client. A client that falls behind is dropped: its browser reconnects and gets the whole state again.
    """

    def __init__(self, hub: Hub, build, delta=None) -> None:
        """`build(snapshot) -> (state, picture)` makes the state (`GET /api/state`) and the board's picture;
        `delta(state, picture, new state, new picture)` what changed between two (None: every message whole)."""
        self.hub, self.build, self.delta = hub, build, delta
        self.clients: set[Client] = set()
        self.version = -1
        self.message = b""
        self.state: dict = {}
        self.picture = None
        self.dropped = 0

    def start(self) -> None:
        self.hub.attach(asyncio.get_running_loop(), self.changed)
        self.refresh()

    def stop(self) -> None:
        self.hub.attach(None, None)
        for c in list(self.clients):
            self._drop(c)

    def refresh(self) -> dict:
        """The state now; when the hub changed, built again and what changed sent to every client."""
        snap = self.hub.snapshot()
        if snap.version == self.version:
            return self.state
        state, picture = self.build(snap)
        if self.delta is not None and self.version >= 0:
            change = self.delta(self.state, self.picture, state, picture)
            update = b"event: delta\ndata: " + json.dumps(change, separators=(",", ":")).encode() + b"\n\n"
        else:
            update = None
        self.state, self.picture, self.version = state, picture, snap.version
        streamed = {k: v for k, v in state.items() if k != "board"}  # the picture has the tiles
        self.message = b"event: state\ndata: " + json.dumps(streamed, separators=(",", ":")).encode() + b"\n\n"
        for c in list(self.clients):
            try:
                c.queue.put_nowait(update or self.message)
            except asyncio.QueueFull:
                self._drop(c)
        return self.state

    def changed(self) -> None:
        try:
            self.refresh()
        except Exception:  # a bug in building the page must not leave the hub poked forever
            log.exception("building the page's state failed")

    def subscribe(self) -> Client | None:
        """A new client with the current state queued, or None when there are too many."""
        if len(self.clients) >= MAX_CLIENTS:
            return None
        self.refresh()
        c = Client()
        c.queue.put_nowait(self.message)
        self.clients.add(c)
        return c

    def unsubscribe(self, c: Client) -> None:
        self.clients.discard(c)

    def _drop(self, c: Client) -> None:
        """A client that fell behind: its queue is emptied and closed; its stream ends."""
        c.dropped = True
        self.dropped += 1
        self.clients.discard(c)
        while not c.queue.empty():
            c.queue.get_nowait()
        c.queue.put_nowait(None)
