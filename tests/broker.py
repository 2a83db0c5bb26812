"""A real MQTT broker for the tests: Debian's mosquitto on a loopback port, with what each test needs to see.

.ci/run and ./run.sh test install mosquitto; without it the tests that need a broker are skipped, naming it.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
HAVE_MOSQUITTO = os.access(MOSQUITTO, os.X_OK)
needs_mosquitto = pytest.mark.skipif(not HAVE_MOSQUITTO,
                                     reason="Debian's mosquitto is not installed (.ci/run, ./run.sh test install it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout: float = 30.0, step: float = 0.05, what: str = "the condition"):
    """The condition's first true value, polled every `step` seconds; AssertionError after `timeout`."""
    end = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(step)


class Mosquitto:
    """mosquitto on 127.0.0.1:`port`, keeping its sessions and retained messages in `folder` after every change (so
    that a broker killed with SIGKILL comes back with them, as one configured for a club does: docs/club.md)."""

    def __init__(self, folder: Path, port: int | None = None, extra: str = "") -> None:
        self.folder, self.port = folder, port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.conf = folder / "mosquitto.conf"
        # `user`: started as root, mosquitto stays root here instead of becoming a user who cannot write the folder
        self.conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                             f"persistence_location {folder}/\nautosave_interval 1\nautosave_on_changes true\n"
                             f"user {getpass.getuser()}\n{extra}")
        self.proc: subprocess.Popen | None = None
        self.log = folder / "mosquitto.log"

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        with self.log.open("a") as log:
            self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT)

        def listening() -> bool:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                return False

        wait_for(listening, 10, what="mosquitto listening")
        return self

    def kill(self) -> None:
        """SIGKILL: the broker is gone at once, as in a power cut."""
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


@dataclass
class Received:
    """One message as a subscriber got it."""

    topic: str
    payload: bytes
    retain: bool
    properties: dict = field(default_factory=dict)
    """Its MQTT v5 user properties."""


class Listener:
    """A subscriber to `topics` with a session the broker keeps while it is away (QoS 1 messages wait for it), that
    reconnects by itself; every message in `got`, in order."""

    def __init__(self, url: str, topics: str = "tantrix/#", client_id: str = "test-listener") -> None:
        from paho.mqtt import client as mqtt
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        from tantrix_pi.live.config import broker_of

        broker = broker_of(url)
        self.got: list[Received] = []
        self.subscribed = threading.Event()
        self.sessions: list[bool] = []
        """At each connection: whether the broker still had this listener's session."""
        self._lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        self.client.reconnect_delay_set(1, 1)
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 3600

        def connected(client, userdata, flags, reason, properties):
            self.sessions.append(flags.session_present)
            client.subscribe(topics, qos=1)

        def subscribed(client, userdata, mid, reasons, properties):
            self.subscribed.set()

        def message(client, userdata, msg):
            props = dict(getattr(msg.properties, "UserProperty", []) or [])
            with self._lock:
                self.got.append(Received(msg.topic, msg.payload, msg.retain, props))

        self.client.on_connect, self.client.on_subscribe, self.client.on_message = connected, subscribed, message
        self.client.connect_async(broker.host, broker.port, clean_start=False, properties=props)
        self.client.loop_start()
        wait_for(self.subscribed.is_set, 10, what="the listener subscribed")

    def on(self, topic: str) -> list[Received]:
        with self._lock:
            return [m for m in self.got if m.topic == topic]

    def once(self, topic: str) -> list[Received]:
        """The messages of `topic` with a repeated (stream, seq) left out: what a receiver keeps."""
        seen, out = set(), []
        for m in self.on(topic):
            key = (m.properties.get("stream"), m.properties.get("seq"))
            if key not in seen:
                seen.add(key)
                out.append(m)
        return out

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
