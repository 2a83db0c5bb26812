"""Who may run the table from a phone: the 6-digit code the display shows buys a token; reading is open.

The code is new at every start of the referee (and in its log; the display's menu shows it again). Wrong codes
are limited per client address: after `MAX_FAILURES` within `WINDOW_S` seconds every attempt from that address is
refused until the window has passed, so the million codes cannot be tried from the room's network, and one phone's
wrong codes do not lock another out.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque

from tantrix_pi.i18n import _

MAX_FAILURES = 5
WINDOW_S = 60.0


class TooManyAttempts(Exception):
    """Pairing is refused for a while after too many wrong codes; `retry_after` seconds."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(_("too many wrong codes: try again in {seconds:.0f} s").format(seconds=retry_after))
        self.retry_after = retry_after


class Pairing:
    """The pairing code and the tokens it gave out (kept in memory: a restart pairs afresh)."""

    def __init__(self, code: str | None = None, clock=time.monotonic) -> None:
        self.code = code if code is not None else f"{secrets.randbelow(1_000_000):06d}"
        self.clock = clock
        self._tokens: set[str] = set()
        self._failures: dict[str, deque[float]] = {}
        """Each client address's recent wrong codes (an address with none is not kept)."""
        self._lock = threading.Lock()

    def pair(self, code: str, client: str = "") -> str | None:
        """A new token for the right code, None for a wrong one; TooManyAttempts while refusing `client` (its
        address)."""
        now = self.clock()
        with self._lock:
            for address in list(self._failures):
                times = self._failures[address]
                while times and now - times[0] > WINDOW_S:
                    times.popleft()
                if not times:
                    del self._failures[address]
            failures = self._failures.get(client, ())
            if len(failures) >= MAX_FAILURES:
                raise TooManyAttempts(WINDOW_S - (now - failures[0]))
            if not hmac.compare_digest(str(code).strip().encode(), self.code.encode()):
                self._failures.setdefault(client, deque()).append(now)
                return None
            token = secrets.token_urlsafe(24)
            self._tokens.add(token)
            return token

    def allows(self, token: str | None) -> bool:
        """Whether `token` came from `pair`."""
        if not token:
            return False
        with self._lock:
            return any(hmac.compare_digest(token.encode(), t.encode()) for t in self._tokens)
