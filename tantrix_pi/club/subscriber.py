"""The club's link to its broker: every table's messages (`tantrix/+/#`) into the `Club`, reconnecting by itself."""

from __future__ import annotations

import logging
import os
import socket

from tantrix_pi.club.tables import TOPICS, Club
from tantrix_pi.live.config import Broker
from tantrix_pi.live.feed import client_for

log = logging.getLogger("tantrix_pi.club")


class Subscriber:
    """paho's client on a thread of its own: subscribes at every connection (the broker hands over what it keeps:
    each table's state, flag and finished games), gives each message to `club`, and tells it when the link is up."""

    def __init__(self, broker: Broker, club: Club, ca_file: str = "") -> None:
        self.broker, self.club = broker, club
        self.client = client_for(broker, f"tantrix-club-{socket.gethostname()}-{os.getpid()}", ca_file)
        self.client.on_connect, self.client.on_disconnect = self._connected, self._disconnected
        self.client.on_connect_fail, self.client.on_message = self._unreachable, self._message
        self._away_said = False
        self._stopping = False

    def start(self) -> Subscriber:
        self.client.connect_async(self.broker.host, self.broker.port)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        self._stopping = True
        self.client.disconnect()
        self.client.loop_stop()

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            self._away(f"the broker {self.broker} refused the club ({reason})")
            return
        client.subscribe(TOPICS, qos=1)
        self._away_said = False
        log.info("club: following the tables on %s", self.broker)
        self.club.link(True)

    def _disconnected(self, client, userdata, flags, reason, properties) -> None:
        if self.club.connected and not self._stopping:
            self._away(f"lost the broker {self.broker} ({reason})")
        self.club.link(False)

    def _unreachable(self, client, userdata) -> None:
        self._away(f"cannot reach the broker {self.broker}")

    def _away(self, what: str) -> None:
        if not self._away_said:
            self._away_said = True
            log.warning("club: %s: trying again; the page shows every table offline meanwhile", what)

    def _message(self, client, userdata, message) -> None:
        props = dict(getattr(message.properties, "UserProperty", None) or [])
        self.club.receive(message.topic, message.payload, props)
