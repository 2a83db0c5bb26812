"""systemd's notify protocol: one datagram to $NOTIFY_SOCKET (READY=1, WATCHDOG=1, STATUS=...).

Outside systemd (no $NOTIFY_SOCKET) every call does nothing.
"""

from __future__ import annotations

import os
import socket
import time


class Notifier:
    """Sends sd_notify messages; `watchdog()` pings at most every `every` seconds."""

    def __init__(self, address: str | None = None, every: float | None = None) -> None:
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET")
        if self.address and self.address.startswith("@"):
            self.address = "\0" + self.address[1:]  # an abstract socket
        if every is None:
            usec = os.environ.get("WATCHDOG_USEC", "")
            every = int(usec) / 2e6 if usec.isdigit() else 1.0
        self.every = every
        self.last_ping = float("-inf")

    def send(self, message: str) -> bool:
        """Send one message; False when not under systemd or the socket is gone (never raises)."""
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.setblocking(False)  # a full queue must never stall the referee: the ping is dropped
                s.sendto(message.encode(), self.address)
            return True
        except OSError:
            return False

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def status(self, status: str) -> bool:
        return self.send(f"STATUS={status}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def watchdog(self, now: float | None = None) -> bool:
        """Ping the watchdog from the main loop (rate-limited)."""
        now = time.monotonic() if now is None else now
        if now - self.last_ping < self.every:
            return False
        self.last_ping = now
        return self.send("WATCHDOG=1")
