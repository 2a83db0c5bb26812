"""The club's link to its broker: every table's messages (`tantrix/+/...`) into the `Club`, reconnecting by itself,
under a session the broker keeps while the club is away (its QoS 1 messages wait for the club: docs/club.md)."""

from __future__ import annotations

import logging
import socket

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tantrix_pi.club.tables import TOPICS, Club
from tantrix_pi.live.config import Broker
from tantrix_pi.live.feed import client_for

log = logging.getLogger("tantrix_pi.club")

SESSION_S = 24 * 3600
"""How long the broker keeps the club's session (its subscriptions and the events said meanwhile) after the club went
away: a club night or a tournament's day. A club away for longer starts again from what the broker retains."""


def default_client_id() -> str:
    """The club's client id unless given one (`--client-id`): one club per machine."""
    return f"tantrix-club-{socket.gethostname()}"


class Subscriber:
    """paho's client on a thread of its own: subscribes at every connection (the broker hands over what it keeps:
    each table's state, flag and finished games, and the events said while the club was away), gives each message to
    `club`, and tells it when the link is up."""

    def __init__(self, broker: Broker, club: Club, ca_file: str = "", client_id: str = "") -> None:
        self.broker, self.club = broker, club
        self.client_id = client_id or default_client_id()
        self.client = client_for(broker, self.client_id, ca_file)
        self.client.on_connect, self.client.on_disconnect = self._connected, self._disconnected
        self.client.on_connect_fail, self.client.on_message = self._unreachable, self._message
        self._away_said = False
        self._stopping = False

    def start(self) -> Subscriber:
        kept = Properties(PacketTypes.CONNECT)
        kept.SessionExpiryInterval = SESSION_S
        self.client.connect_async(self.broker.host, self.broker.port, clean_start=False, properties=kept)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        """Disconnect; the broker keeps the session SESSION_S for the next start with the same client id."""
        self._stopping = True
        self.client.disconnect()
        self.client.loop_stop()

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            self._away(f"the broker {self.broker} refused the club ({reason})")
            return
        # again when the broker kept the session: a club started again knows nothing, and a subscription is what makes
        # the broker send its retained messages
        client.subscribe(TOPICS)
        self._away_said = False
        log.info("club: following the tables on %s as %s (%s)", self.broker, self.client_id,
                 "the broker kept its session: what was said meanwhile comes first" if flags.session_present
                 else "a new session")
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
