"""The club's feed: every announcement and the table's state, published to an MQTT broker (docs/club.md).

Topics, each under `tantrix/TABLE/`:

| topic | what | QoS, retained |
|---|---|---|
| `event` | each announcement, exactly as events.jsonl writes it (`sinks.event_line`), in order | 1 |
| `state` | the table page's `/api/state` (board, scores, turn, the last announcements, ...) | 1, retained |
| `online` | `1` while the referee runs (again each HEARTBEAT_S), `0` as its will (at a clean exit too) | 1, retained |
| `game/N` | a finished game: `{"game", "over": the game_over event's data, "record": tantrix-game/1}` | 1, retained |

An event or game message carries two MQTT v5 user properties, `stream` (the state database's) and `seq` (its number
there, never counted back): QoS 1 delivers at least once, so a receiver drops a number of a stream it has had.

The referee's thread only puts lines on a queue and sets a flag. The feed's thread keeps each message in the state
database (`store.Outbox`) and hands it to paho, whose own thread talks to the broker, while the broker is there, at
most WINDOW at a time; the broker's acknowledgement takes it out again. While the broker is away (restarted, the
Wi-Fi down) the messages wait there, a restart of the referee too, and go out once, in order, when it is back. Past
KEEP waiting messages the oldest are dropped, and that is logged once.
"""

from __future__ import annotations

import json
import logging
import queue
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from paho.mqtt import client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _
from tantrix_pi.live.config import Broker
from tantrix_pi.live.sinks import Sink, View, event_line
from tantrix_pi.live.store import Notice, Outbox, Queued, Store, StoreError

log = logging.getLogger("tantrix_pi.feed")

HEARTBEAT_S = 30.0
"""`online` is published again this often while the referee's loop runs (a club shows a table silent for 3 beats as
offline)."""
KEEPALIVE_S = 30
"""MQTT keep-alive: a table gone silent is given up by the broker, which says its last will, after 1.5 times this."""
STATE_S = 0.1
"""The state is published at most this often (a commit's announcements and its view make one message)."""
WINDOW = 100
"""Messages handed to paho and not acknowledged yet, at most."""
KEEP = 10_000
"""Messages that may wait for the broker (some 40 games' announcements); past it the oldest are dropped."""
CLOSE_S = 3.0
"""At a clean exit, how long the waiting messages may take to go out (the rest go at the next start)."""
RECONNECT_S = (1, 10)
"""Seconds between tries to reach a broker that is away: from the first to the most (paho doubles it each time). A
try costs nothing; the most is how long after the broker is back a table may still wait (bench/club.py)."""


class FeedError(TantrixError):
    """The feed cannot be set up (a CA file that cannot be read)."""


def client_for(broker: Broker, client_id: str, ca_file: str = "") -> mqtt.Client:
    """A paho client (MQTT v5) for `broker`, with its user, password and TLS, that tries again by itself."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    if broker.user:
        client.username_pw_set(broker.user, broker.password)
    if broker.tls:
        try:
            client.tls_set(ca_certs=ca_file or None)
        except (OSError, ssl.SSLError) as e:
            raise FeedError(_("feed.ca_file: cannot read the broker's certificate authority {path} ({error})")
                            .format(path=ca_file, error=getattr(e, "strerror", None) or e)) from None
    client.reconnect_delay_set(*RECONNECT_S)
    return client


def message_properties(stream: str, seq: int) -> Properties:
    """The PUBLISH properties of a numbered message: JSON, and its stream and number."""
    props = Properties(PacketTypes.PUBLISH)
    props.ContentType = "application/json"
    props.UserProperty = [("stream", stream), ("seq", str(seq))]
    return props


class Feed(Sink):
    """A sink that publishes the table to an MQTT broker from a thread of its own; the referee never waits for it.

        feed = Feed(cfg.feed.broker, "t1", state_dir / "state.db", state=lambda: page.build(hub.snapshot())[0])
        loop = LiveLoop(..., Sinks([hub, feed, ...]))   # started by start(), let go by close()
    """

    def __init__(self, broker: Broker, table: str, state_db: str | Path, state: Callable[[], dict] | None = None, *,
                 ca_file: str = "", home_assistant: bool = False, heartbeat_s: float = HEARTBEAT_S,
                 keepalive_s: int = KEEPALIVE_S, keep: int = KEEP) -> None:
        """`state`: the table page's state now (its `version` tells a new one), read on the feed's thread; None:
        no state topic. The state database must exist (the loop's Store made it)."""
        self.broker, self.table, self.state_db, self.state = broker, table, Path(state_db), state
        self.home_assistant, self.heartbeat_s, self.keepalive_s, self.keep = (home_assistant, heartbeat_s,
                                                                              keepalive_s, keep)
        self.topic = f"tantrix/{table}/"
        self.client = client_for(broker, f"tantrix-table-{table}", ca_file)
        self.client.will_set(self.topic + "online", "0", qos=1, retain=True)
        self.client.max_inflight_messages_set(WINDOW)
        self.client.on_connect, self.client.on_disconnect = self._connected, self._disconnected
        self.client.on_connect_fail, self.client.on_publish = self._unreachable, self._acknowledged
        self.connected = False
        """Whether paho last said it is connected (set on its thread)."""
        self._lines: queue.SimpleQueue = queue.SimpleQueue()
        self._acks: queue.SimpleQueue = queue.SimpleQueue()
        self._wake = threading.Event()
        self._dirty = True
        self._ticked = True
        self._closing = False
        self._stopped = False
        """The feed's thread has ended: nothing is queued any more."""
        self._fresh = False
        self._away_said = False
        self.thread = threading.Thread(target=self._run, name=f"feed-{table}", daemon=True)
        # the feed's thread alone from here on
        self.outbox: Outbox | None = None
        self.waiting: deque[Queued] = deque()
        """Messages not yet handed to paho, oldest first."""
        self.inflight: dict[int, Queued] = {}
        """paho's message id -> the message it has and the broker has not acknowledged."""
        self.stream = ""
        self.next_id = 1
        self.acknowledged = 0
        """Messages the broker has acknowledged since the start."""
        self._state_version = None
        self._state_at = self._beat_at = 0.0
        self._full_said = self._outbox_said = False

    def start(self) -> Feed:
        """Connect (in the background: a broker that is away is tried again) and start publishing."""
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=self.keepalive_s)
        self.client.loop_start()
        self.thread.start()
        return self

    # -- the referee's side: a queue and a flag, never the network -----------------------------------
    def announce(self, event: Notice) -> None:
        if self._stopped:
            return
        self._lines.put((event, event_line(event)))
        self._changed()

    def show(self, view: View) -> None:
        self._changed()

    def set_voice(self, on: bool) -> None:
        self._changed()

    def tick(self) -> None:
        self._ticked = True

    def _changed(self) -> None:
        self._dirty = True
        self._wake.set()

    def close(self) -> None:
        """Send what waits (CLOSE_S at most), say `online` 0 and disconnect; what is left goes at the next start."""
        self._closing = True
        self._wake.set()
        if self.thread.is_alive():
            self.thread.join(CLOSE_S + 3.0)
        self.client.loop_stop()

    # -- paho's thread ---------------------------------------------------------------------------------
    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:  # paho tries again, as when the broker is away
            self._away(f"the broker {self.broker} refused table {self.table} ({reason}"
                       + ("; check the user and password in [feed] mqtt)" if reason.value in (134, 135) else ")"))
            return
        self.connected, self._fresh, self._away_said = True, True, False
        log.info("feed: table %s publishes to %s", self.table, self.broker)
        self._wake.set()

    def _disconnected(self, client, userdata, flags, reason, properties) -> None:
        was, self.connected = self.connected, False
        if was and not self._closing:
            self._away(f"lost the broker {self.broker} ({reason})")
        self._wake.set()

    def _unreachable(self, client, userdata) -> None:
        self._away(f"cannot reach the broker {self.broker}")

    def _away(self, what: str) -> None:
        if not self._away_said:
            self._away_said = True
            log.warning("feed: %s: table %s's announcements wait in %s and go out when it is back", what,
                        self.table, self.state_db.name)

    def _acknowledged(self, client, userdata, mid, reason, properties) -> None:
        self._acks.put((mid, reason))
        self._wake.set()

    # -- the feed's thread -----------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._open()
            deadline = None
            while True:
                self._wake.wait(self._timeout())
                self._wake.clear()
                # read before the lines: the referee says nothing after close(), so all it said is taken below
                closing = self._closing
                self._take_lines()
                self._take_acks()
                if self.connected:
                    self._send()
                if closing:
                    deadline = deadline or time.monotonic() + CLOSE_S
                    sent = not (self.waiting or self.inflight or self._state_due())
                    if not self.connected or sent or time.monotonic() > deadline:
                        break
            self._goodbye()
        except Exception:  # the feed is gone; the referee goes on without it
            log.exception("feed: table %s stopped publishing", self.table)
        finally:
            self._stopped = True
            if self.outbox is not None:
                self.outbox.close()

    def _open(self) -> None:
        try:
            self.outbox = Outbox(self.state_db)
            self.waiting.extend(self.outbox.waiting())
            self.stream, self.next_id = self.outbox.stream, self.outbox.next_id()
        except Exception as e:  # sqlite3.Error, OSError: the feed still runs, from memory
            self.outbox = None
            self.stream = f"{time.time_ns():x}"
            log.error("feed: cannot keep waiting messages in %s (%s): they wait in memory only", self.state_db, e)
        if self.waiting:
            log.info("feed: %d messages of table %s waited from before; they go out first", len(self.waiting),
                     self.table)

    def _timeout(self) -> float:
        """Seconds until the next heartbeat, or the next state when one waits."""
        now = time.monotonic()
        due = self._beat_at + self.heartbeat_s
        if self._state_due():
            due = min(due, self._state_at + STATE_S)
        if self._closing:
            return 0.1
        return max(0.0, min(due - now, self.heartbeat_s)) if self.connected else self.heartbeat_s

    def _take_lines(self) -> None:
        new: list[Queued] = []
        while True:
            try:
                event, line = self._lines.get_nowait()
            except queue.Empty:
                break
            new.append(self._numbered("event", line))
            if event.kind == "game_over" and event.game is not None:
                record = self._finished(event)
                if record is not None:
                    new.append(self._numbered(f"game/{event.game}", record, retain=True))
        if not new:
            return
        self._keep(new)
        self.waiting.extend(new)
        if len(self.waiting) > self.keep:
            dropped = [self.waiting.popleft() for _ in range(len(self.waiting) - self.keep)]
            self._forget([m.id for m in dropped])
            if not self._full_said:
                self._full_said = True
                log.warning("feed: %d messages of table %s wait for the broker %s: the oldest are dropped from now "
                            "on (the games stay in the state database: `tantrix-pi game export`)", self.keep,
                            self.table, self.broker)

    def _numbered(self, topic: str, payload: str, retain: bool = False) -> Queued:
        self.next_id += 1
        return Queued(self.next_id - 1, topic, payload, retain)

    def _finished(self, event: Notice) -> str | None:
        """The game/N message of a game that is over: its result and its record, from the state database."""
        try:
            store = Store(self.state_db, read_only=True)
            try:
                record = store.record(event.game)
            finally:
                store.close()
        except StoreError as e:
            log.error("feed: no record of game %d to publish (%s)", event.game, e)
            return None
        return json.dumps({"game": event.game, "over": event.data, "record": record})

    def _keep(self, messages: list[Queued]) -> None:
        if self.outbox is None:
            return
        try:
            self.outbox.add(messages)
            self._outbox_said = False
        except Exception as e:  # a full disk: they wait in memory, and are lost if the referee stops meanwhile
            if not self._outbox_said:
                self._outbox_said = True
                log.error("feed: cannot keep waiting messages in %s (%s): they wait in memory only", self.state_db, e)

    def _forget(self, ids: list[int]) -> None:
        if self.outbox is not None and ids:
            try:
                self.outbox.done(ids)
            except Exception as e:  # sent again after a restart: the receivers drop what they have had
                log.debug("feed: could not forget %d sent messages (%s)", len(ids), e)

    def _take_acks(self) -> None:
        done = []
        while True:
            try:
                mid, reason = self._acks.get_nowait()
            except queue.Empty:
                break
            message = self.inflight.pop(mid, None)
            if message is None:
                continue
            if reason.is_failure:  # the broker will not take it (not authorised): sending it again does not help
                log.error("feed: the broker %s refused %s%s (%s)", self.broker, self.topic, message.topic, reason)
            done.append(message.id)
        self.acknowledged += len(done)
        self._forget(done)

    def _send(self) -> None:
        now = time.monotonic()
        if self._fresh:
            self._fresh = False
            self._beat_at = now
            self.client.publish(self.topic + "online", "1", qos=1, retain=True)
            if self.home_assistant:
                for topic, config in discovery(self.table):
                    self.client.publish(topic, json.dumps(config), qos=1, retain=True)
            self._state_version = None  # a broker that was away may have lost it
        elif now - self._beat_at >= self.heartbeat_s:
            self._beat_at = now
            if self._ticked:  # the referee's loop has run since the last beat
                self._ticked = False
                self.client.publish(self.topic + "online", "1", qos=1, retain=True)
        while self.waiting and len(self.inflight) < WINDOW:
            m = self.waiting.popleft()
            info = self.client.publish(self.topic + m.topic, m.payload, qos=1, retain=m.retain,
                                       properties=message_properties(self.stream, m.id))
            self.inflight[info.mid] = m
        if self._state_due() and (now - self._state_at >= STATE_S or self._closing):
            self._dirty = False
            self._state_at = now
            state = self.state()
            if state.get("version") != self._state_version:
                self._state_version = state.get("version")
                props = Properties(PacketTypes.PUBLISH)
                props.ContentType = "application/json"
                self.client.publish(self.topic + "state", json.dumps(state, separators=(",", ":")), qos=1,
                                    retain=True, properties=props)

    def _state_due(self) -> bool:
        """A state waits to be built and published (a change, or a broker that may have lost it)."""
        return self.state is not None and (self._dirty or self._state_version is None)

    def _goodbye(self) -> None:
        if not self.connected:
            return  # the broker says the last will itself
        # the broker says the will (online 0) at this disconnection too: a 0 of our own could wait behind a backlog
        # in paho and be dropped with it, leaving the table online
        self.client.disconnect(reasoncode=ReasonCode(PacketTypes.DISCONNECT, "Disconnect with will message"))
        if self.waiting or self.inflight:
            log.info("feed: %d messages of table %s go out at the next start", len(self.waiting) + len(self.inflight),
                     self.table)


def discovery(table: str) -> list[tuple[str, dict]]:
    """Home Assistant's MQTT discovery messages for a table: a sensor for the scores and one for the turn."""
    device = {"identifiers": [f"tantrix_{table}"], "name": _("Tantrix table {table}").format(table=table),
              "manufacturer": "tantrix-pi"}
    base = {"state_topic": f"tantrix/{table}/state", "availability_topic": f"tantrix/{table}/online",
            "payload_available": "1", "payload_not_available": "0", "device": device}
    scores = "{% for c, s in value_json.scores.items() %}{{ c }} {{ s }}{{ ', ' if not loop.last }}{% endfor %}"
    return [
        (f"homeassistant/sensor/tantrix_{table}/scores/config",
         {**base, "name": _("Scores"), "unique_id": f"tantrix_{table}_scores", "value_template": scores,
          "json_attributes_topic": f"tantrix/{table}/state",
          "json_attributes_template": "{{ value_json.scores | tojson }}"}),
        (f"homeassistant/sensor/tantrix_{table}/turn/config",
         {**base, "name": _("Turn"), "unique_id": f"tantrix_{table}_turn",
          "value_template": "{{ value_json.turn or '' }}"}),
    ]
