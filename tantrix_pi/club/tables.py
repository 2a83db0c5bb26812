"""What the club knows of its tables, from the messages their feeds publish (live/feed.py): `Club.receive` takes each
message, the page reads `cards()` and `standings()`.

Each table's retained `state` (the table page's /api/state) gives its board, scores and turn; `event` its
announcements, of which a number of a stream already had is dropped (QoS 1 delivers at least once); `online` its flag;
`game/N` its finished games with their records, each kept by its number (the broker sends its retained copy again at
every subscription, after the events it kept for the club, which may be newer). A table is shown online while its flag
is 1 and it was heard from in the last QUIET_S seconds (it says it is online every HEARTBEAT_S while its referee runs).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tantrix_pi.live.config import TABLE_NAME
from tantrix_pi.live.feed import HEARTBEAT_S

log = logging.getLogger("tantrix_pi.club")

QUIET_S = 3 * HEARTBEAT_S
"""A table not heard from for this long is shown offline, whatever its flag says."""
TOPICS = [("tantrix/+/event", 1), ("tantrix/+/game/+", 1), ("tantrix/+/state", 0), ("tantrix/+/online", 0)]
"""What the club subscribes to, at which QoS: the broker keeps the QoS 1 ones for the club's session while it is away;
of the state (the whole board, every 0.1 s while it changes) and the flag, both retained, the last is all it needs."""


@dataclass
class Table:
    """One table as its messages tell it."""

    name: str
    state: dict | None = None
    """Its last state (the table page's /api/state)."""
    flag: bool = False
    """Its online flag: 1 while its referee runs, 0 after it stopped (or its broker connection died)."""
    heard: float = 0.0
    """When it was last heard from (the club's clock)."""
    last: dict | None = None
    """Its last announcement, as events.jsonl holds it."""
    events: int = 0
    """Announcements had, each once."""
    seen: dict[str, int] = field(default_factory=dict)
    """The highest number had of each stream of its announcements."""
    games_since: dict[str, set[int]] = field(default_factory=dict)
    """The numbers of each stream's game messages had since its last announcement (a stream numbers both)."""
    missed: int = 0
    """Messages that never came: numbers between two announcements that no game message had either (the broker
    dropped them, or the table's feed)."""
    games: dict[int, dict] = field(default_factory=dict)
    """Its finished games by number: {"game", "over": scores, winners, termination, "record"}."""
    version: int = 0
    """Counts its changes (the page sends a card again when it changed)."""

    def announcement(self) -> dict | None:
        """The newest announcement known: the last event, or the state's when that is newer (a club that started
        late has the retained state only)."""
        said = (self.state or {}).get("events") or []
        newest = said[-1] if said and isinstance(said[-1], dict) else None
        if self.last is None or newest is not None and newest.get("t", 0) > self.last.get("t", 0):
            return newest
        return self.last


def _numbered(properties: dict[str, str]) -> tuple[str, int] | None:
    """A message's stream and number (its MQTT v5 user properties), None when it carries none."""
    stream, seq = properties.get("stream"), properties.get("seq")
    return None if stream is None or seq is None or not seq.isdigit() else (stream, int(seq))


@dataclass(frozen=True)
class Standing:
    """One player's line in the standings: a seat of a table (the referee knows players by colour)."""

    table: str
    player: str
    """Colour letter (R, Y, G, B)."""
    games: int
    wins: float
    """1 a win, shared in a tie (two winners: 1/2 each)."""
    points: int
    """Scores added up over the games."""


class Club:
    """Every table heard of (thread-safe: paho's thread writes, the page's reads); `on_change(name)` after each
    change to a table."""

    def __init__(self, quiet_s: float = QUIET_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.quiet_s, self.clock = quiet_s, clock
        self._lock = threading.Lock()
        self._tables: dict[str, Table] = {}
        self.connected = False
        """Whether the club is connected to its broker (while it is not, every table is shown offline)."""
        self.on_change: Callable[[str | None], None] | None = None
        """Called with a table's name after it changed, None when the club's connection did."""

    def link(self, up: bool) -> None:
        """The club's own connection came up or went down."""
        with self._lock:
            self.connected = up
        self._changed(None)

    def receive(self, topic: str, payload: bytes, properties: dict[str, str] | None = None) -> bool:
        """Take one message (`properties`: its MQTT v5 user properties); whether it changed anything."""
        parts = topic.split("/", 2)
        if len(parts) < 3 or parts[0] != "tantrix" or not TABLE_NAME.fullmatch(parts[1]):
            return False
        name, what = parts[1], parts[2]
        try:
            with self._lock:
                table = self._tables.setdefault(name, Table(name))
                table.heard = self.clock()
                if not self._take(table, what, payload, properties or {}):
                    return False
                table.version += 1
        except (ValueError, TypeError, KeyError, AttributeError) as e:  # a message no feed of ours would send
            log.warning("club: ignoring a malformed %s message (%s: %s)", topic, type(e).__name__, e)
            return False
        self._changed(name)
        return True

    def _take(self, table: Table, what: str, payload: bytes, properties: dict[str, str]) -> bool:
        if what == "online":
            table.flag = payload == b"1"
            return True
        if what == "state":
            state = json.loads(payload)
            if not isinstance(state, dict):
                raise TypeError("the state is not an object")
            table.state = state
            return True
        if what == "event":
            if self._had(table, properties):
                return False
            table.last, table.events = json.loads(payload), table.events + 1
            return True
        if what.startswith("game/"):
            message = json.loads(payload)
            game = int(message["game"])
            self._game_numbered(table, properties)
            if table.games.get(game) == message:
                return False
            table.games[game] = message
            return True
        return False

    @staticmethod
    def _had(table: Table, properties: dict[str, str]) -> bool:
        """Whether a numbered announcement was had already (marking it had when not); numbers skipped since the last
        one that no game message took are said missed."""
        numbered = _numbered(properties)
        if numbered is None:
            return False  # not numbered: taken as it comes
        stream, n = numbered
        had = table.seen.get(stream)
        if had is not None and n <= had:
            return True
        games = table.games_since.pop(stream, set())
        if had is not None and (gap := n - had - 1 - sum(had < k < n for k in games)) > 0:
            table.missed += gap
            log.warning("club: table %s: %d messages of its stream %s between numbers %d and %d never came (the broker "
                        "drops what it keeps for the club past its max_queued_messages: raise it, docs/club.md)",
                        table.name, gap, stream, had, n)
        table.seen[stream] = n
        return False

    @staticmethod
    def _game_numbered(table: Table, properties: dict[str, str]) -> None:
        """Note a game message's number, if it is newer than the stream's last announcement (a retained copy the
        broker sends again is older)."""
        numbered = _numbered(properties)
        if numbered is not None and numbered[1] > table.seen.get(numbered[0], 0):
            table.games_since.setdefault(numbered[0], set()).add(numbered[1])

    def _changed(self, name: str | None) -> None:
        if self.on_change is not None:
            self.on_change(name)

    # -- what the page reads ------------------------------------------------------------------------
    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._tables)

    def table(self, name: str) -> Table | None:
        """A copy of one table as it is now."""
        with self._lock:
            t = self._tables.get(name)
            return None if t is None else Table(t.name, t.state, t.flag, t.heard, t.last, t.events, dict(t.seen),
                                                {k: set(v) for k, v in t.games_since.items()}, t.missed,
                                                dict(t.games), t.version)

    def online(self, table: Table) -> bool:
        """Whether a table is shown online: the club is connected, its flag is 1 and it was heard from lately."""
        return self.connected and table.flag and self.clock() - table.heard <= self.quiet_s

    def standings(self) -> list[Standing]:
        """Every seat that finished a game, best first: most wins, then most points."""
        rows: dict[tuple[str, str], list] = {}
        with self._lock:
            for t in self._tables.values():
                for game in t.games.values():
                    over = game.get("over") or {}
                    scores, winners = over.get("scores") or {}, over.get("winners") or []
                    for player, points in scores.items():
                        row = rows.setdefault((t.name, player), [0, 0.0, 0])
                        row[0] += 1
                        row[1] += 1 / len(winners) if player in winners else 0.0
                        row[2] += int(points)
        out = [Standing(table, player, g, w, p) for (table, player), (g, w, p) in rows.items()]
        return sorted(out, key=lambda s: (-s.wins, -s.points, s.table, s.player))
