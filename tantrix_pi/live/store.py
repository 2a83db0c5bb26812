"""The game's memory: every committed board, move and event in SQLite, written before it is announced.

Only machine fields are stored (an event's kind and data, never its words), so a game played in one
language is told in another after a restart, in a replay or an export (`live/replay.py`). One file in
the state directory. Each commit is one transaction (WAL, synchronous=FULL), so a crash, kill -9 or
power cut leaves either the whole change or none of it, and the service resumes the same game. A
database file that SQLite cannot read is renamed aside (never overwritten) and reported.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tantrix_pi.board import Board, Placement
from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _

SCHEMA_VERSION = 3
"""1 stored each event's text too; 2 keeps machine fields only (the text column is dropped on opening); 3 adds
the rules engine's state after each change (a schema-2 game is rebuilt from its legal moves)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, started REAL NOT NULL, setup TEXT NOT NULL, ended REAL);
CREATE TABLE IF NOT EXISTS boards (
    id INTEGER PRIMARY KEY, game INTEGER NOT NULL REFERENCES games(id), board TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS moves (
    game INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, player TEXT,
    tile INTEGER NOT NULL, q INTEGER NOT NULL, r INTEGER NOT NULL, rot INTEGER NOT NULL,
    legal INTEGER NOT NULL, PRIMARY KEY (game, seq));
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY, game INTEGER NOT NULL REFERENCES games(id), board INTEGER REFERENCES boards(id),
    kind TEXT NOT NULL, data TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS states (
    id INTEGER PRIMARY KEY, game INTEGER NOT NULL REFERENCES games(id), state TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS feed (
    id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, payload TEXT NOT NULL, retain INTEGER NOT NULL);
"""
"""`feed`: the club feed's messages its broker has not acknowledged yet (`Outbox`), as they are sent: the words
as said. An older tantrix-pi leaves the table alone, so it needs no new schema version."""


class StoreError(TantrixError):
    """The state database cannot be used (unreadable, corrupt, read-only, from a newer version, in use)."""


class WriteError(StoreError):
    """A change that could not be written (the disk is full, the file became read-only): none of it was kept."""

    def __init__(self, path: Path, reason: str) -> None:
        self.reason = reason
        super().__init__(_("{path}: cannot save the game ({reason})").format(path=path, reason=reason))


@dataclass(frozen=True)
class Played:
    """One placement of the game in order, with the player who made it and whether it was legal."""

    seq: int
    player: str | None
    placement: Placement
    legal: bool


@dataclass(frozen=True)
class Notice:
    """Something the referee announced: a kind (`placed`, `illegal`, ...), its text and its data.

    `kind` and `data` are machine fields, the same in every language; `text` is what a person reads or
    hears, in the language of the moment.
    """

    kind: str
    text: str
    data: dict
    game: int | None = None
    """The stored game it belongs to (the live loop sets it before announcing)."""
    at: float | None = None
    """When it was announced, seconds since the epoch (the live loop sets it: every sink writes the same time)."""


@dataclass(frozen=True)
class Stored:
    """An event as the store keeps it: its kind and data, and the board it came with (None: no new board)."""

    kind: str
    data: dict
    board: int | None = None


class Store:
    """The SQLite state of the current game; `commit` writes a board, move changes and events at once."""

    def __init__(self, path: str | Path, read_only: bool = False, lock: bool = False) -> None:
        """Open (or create) the database for the referee, who must be able to write it (a corrupt file is renamed
        aside); `lock`: this process is the one referee of the file until `close()` (`tantrix-pi run`).

        `read_only` only reads an existing database, never changing it: `game export` (a damaged file is
        StoreError, never moved; a folder it cannot write is fine) and the web page's thread beside the
        referee's writes (WAL lets it read without ever making the referee wait)."""
        self.path = Path(path)
        self.moved_aside: Path | None = None
        self.lock = None
        self._copy: tempfile.TemporaryDirectory | None = None
        if read_only:
            if not self.path.exists():
                raise StoreError(_("{path}: no game recorded here").format(path=self.path))
            self.db = self._open_read_only()
            self.fresh = False
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(_("{folder}: cannot make the state folder ({error})").format(
                folder=self.path.parent, error=e.strerror)) from None
        if lock:
            self.lock = _hold_lock(self.path)
        try:
            self.db = self._open()
        except sqlite3.OperationalError as e:  # cannot open or lock the file: not damage, keep it as it is
            raise StoreError(_("{path}: cannot open the state database ({error})").format(
                path=self.path, error=e)) from None
        except sqlite3.DatabaseError:
            self.moved_aside = self._aside()
            self.db = self._open()
        self._check_writable()
        self.fresh = self.last_game() is None
        """No game was ever stored here (a new file, or a damaged or emptied one replaced)."""

    def _open_read_only(self) -> sqlite3.Connection:
        """The database opened without writing anything, even in a read-only folder."""
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=5.0)
            try:
                db.execute("SELECT 1 FROM games LIMIT 1")  # a damaged file fails here too (DatabaseError)
            except sqlite3.OperationalError:  # WAL needs its -shm file: a folder we cannot write has none
                db.close()
                db = self._open_private_copy()
        except sqlite3.OperationalError as e:
            raise StoreError(_("{path}: cannot read the state database ({error})").format(
                path=self.path, error=e)) from None
        except sqlite3.DatabaseError as e:
            raise StoreError(_("{path}: the state database is damaged ({error}); the service moves it aside "
                               "on its next start").format(path=self.path, error=e)) from None
        return db

    def _open_private_copy(self) -> sqlite3.Connection:
        """The database and its write-ahead log copied into a private folder and read there, every change the log
        holds included (SQLite reads a WAL only beside its -shm file, which it cannot make in a read-only folder)."""
        self._copy = tempfile.TemporaryDirectory(prefix="tantrix-export-")
        copy = Path(self._copy.name) / self.path.name
        try:
            for suffix in ("", "-wal"):
                side = self.path.with_name(self.path.name + suffix)
                if side.exists():
                    shutil.copyfile(side, copy.with_name(copy.name + suffix))
        except OSError as e:
            self._copy.cleanup()
            raise StoreError(_("{path}: cannot read the state database ({error})").format(
                path=self.path, error=e.strerror)) from None
        db = sqlite3.connect(copy, isolation_level=None)
        db.execute("SELECT 1 FROM games LIMIT 1")
        return db

    def _check_writable(self) -> None:
        """StoreError now, not at the first move, when the database cannot be written (a read-only file)."""
        try:
            with self._tx():
                self.db.execute("UPDATE meta SET value = value WHERE 0")  # refused by a read-only database
        except WriteError as e:
            self.close()
            raise StoreError(_("{path}: the referee cannot write its state database ({reason}): give the "
                               "service's user write access to it and to its folder").format(
                path=self.path, reason=e.reason)) from None

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        try:
            ok = db.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise sqlite3.DatabaseError(f"integrity check: {ok}")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is not None and int(row[0]) > SCHEMA_VERSION:
                db.close()
                raise StoreError(_("{path}: written by a newer tantrix-pi (schema {schema})").format(
                    path=self.path, schema=row[0]))
            if row is None or int(row[0]) < SCHEMA_VERSION:  # a new file, or schema 1: its words go, its facts stay
                if "text" in [c[1] for c in db.execute("PRAGMA table_info(events)")]:
                    db.execute("ALTER TABLE events DROP COLUMN text")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _aside(self) -> Path:
        aside = set_aside(self.path, "corrupt")
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                side.rename(aside.with_name(aside.name + suffix))
        return aside

    def close(self) -> None:
        self.db.close()
        if self._copy is not None:
            self._copy.cleanup()
        if self.lock is not None:
            self.lock.close()  # the lock goes with the file descriptor
            self.lock = None

    # -- games ----------------------------------------------------------------------------------
    def current_game(self) -> tuple[int, dict] | None:
        """(id, setup) of the game still running, if any."""
        row = self.db.execute("SELECT id, setup FROM games WHERE ended IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def new_game(self, setup: dict) -> int:
        """End any running game and start a new one with `setup` (mode, players)."""
        with self._tx():
            self.db.execute("UPDATE games SET ended=? WHERE ended IS NULL", (time.time(),))
            cur = self.db.execute("INSERT INTO games (started, setup) VALUES (?, ?)", (time.time(), json.dumps(setup)))
        return cur.lastrowid

    def last_game(self) -> tuple[int, dict] | None:
        """(id, setup) of the most recent game, running or ended."""
        row = self.db.execute("SELECT id, setup FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def games(self) -> list[dict]:
        """Every game, newest first: number, setup, start and end (seconds since the epoch), tiles."""
        rows = self.db.execute("SELECT id, setup, started, ended, (SELECT COUNT(*) FROM moves m WHERE m.game=g.id) "
                               "FROM games g ORDER BY id DESC").fetchall()
        return [{"game": i, "setup": json.loads(s), "started": a, "ended": b, "tiles": n} for i, s, a, b, n in rows]

    def setup(self, game: int) -> dict:
        """The setup a game was started with; StoreError when there is no such game."""
        row = self.db.execute("SELECT setup FROM games WHERE id=?", (game,)).fetchone()
        if row is None:
            raise StoreError(_("{path}: there is no game {game}").format(path=self.path, game=game))
        return json.loads(row[0])

    def record(self, game: int) -> dict:
        """The `tantrix-game/1` record of a stored game. A game: its players, the hands as dealt when they were
        seen, then every accepted placement, draw and end of turn in order (what the rules engine holds). A
        puzzle or free play: every placement on the table in order, with `"legal": false` on a refused one."""
        from tantrix_pi.tiles import COLOUR_NAMES

        setup = self.setup(game)
        state = self.state(game)
        if setup.get("mode", "game") == "game" and state is not None:
            from tantrix_pi import record
            from tantrix_pi.live.engines import GameEngine

            engine = GameEngine(setup["players"])
            for item in state:
                engine.apply(item)
            return record.to_dict(engine.game, mode="game", puzzle=None)
        players = [COLOUR_NAMES[c] for c in setup.get("players", [])]
        ends = [e.data for e in self.events(game) if e.kind == "end_turn"]
        moves = [{"player": COLOUR_NAMES[e["player"]], "end_turn": True} for e in ends if e["after"] == 0]
        for m in self.moves(game):
            move = {"player": COLOUR_NAMES[m.player] if m.player else None, **m.placement.to_dict()}
            if not m.legal:
                move["legal"] = False
            moves.append(move)
            moves += [{"player": COLOUR_NAMES[e["player"]], "end_turn": True} for e in ends if e["after"] == m.seq]
        return {"format": "tantrix-game/1", "players": players, "mode": setup.get("mode", "game"),
                "puzzle": setup.get("puzzle"), "moves": moves}

    def steps(self, game: int) -> list[tuple[Board, list[Stored]]]:
        """The game as it was seen: the empty table, then each committed board, each with the events
        announced with it (and those that came with no board, until the next one)."""
        self.setup(game)
        steps: list[tuple[Board, list[Stored]]] = [(Board(), [])]
        index: dict[int, int] = {}
        for board_id, text in self.db.execute("SELECT id, board FROM boards WHERE game=? ORDER BY id", (game,)):
            index[board_id] = len(steps)
            steps.append((Board.from_json(text), []))
        current = 0
        for event in self.events(game):
            if event.board is not None:
                current = index.get(event.board, current)
            steps[current][1].append(event)
        return steps

    # -- state ------------------------------------------------------------------------------------
    def board(self, game: int) -> Board:
        """The last committed board of a game (empty before the first commit)."""
        row = self.db.execute("SELECT board FROM boards WHERE game=? ORDER BY id DESC LIMIT 1", (game,)).fetchone()
        return Board() if row is None else Board.from_json(row[0])

    def moves(self, game: int) -> list[Played]:
        rows = self.db.execute("SELECT seq, player, tile, q, r, rot, legal FROM moves WHERE game=? ORDER BY seq",
                               (game,)).fetchall()
        return [Played(s, pl, Placement(t, q, r, rot), bool(lg)) for s, pl, t, q, r, rot, lg in rows]

    def state(self, game: int) -> list[dict] | None:
        """The rules engine's state after the game's last change (None: a game stored before states were)."""
        row = self.db.execute("SELECT state FROM states WHERE game=? ORDER BY id DESC LIMIT 1", (game,)).fetchone()
        return None if row is None else json.loads(row[0])

    def events(self, game: int) -> list[Stored]:
        """The kind and data of every event of a game, in order."""
        rows = self.db.execute("SELECT kind, data, board FROM events WHERE game=? ORDER BY id", (game,)).fetchall()
        return [Stored(k, json.loads(d), b) for k, d, b in rows]

    def commit(self, game: int, board: Board, added: list[Played] = (), removed: list[int] = (),
               events: list[Notice] = (), state: list[dict] | None = None) -> None:
        """Write a committed board, the moves it adds or takes back (by seq), its events and the rules engine's
        state after it, atomically."""
        now = time.time()
        with self._tx():
            self._state(game, state, now)
            cur = self.db.execute("INSERT INTO boards (game, board, at) VALUES (?, ?, ?)", (game, board.to_json(), now))
            board_id = cur.lastrowid
            for seq in removed:
                self.db.execute("DELETE FROM moves WHERE game=? AND seq=?", (game, seq))
            for m in added:
                p = m.placement
                self.db.execute("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                (game, m.seq, m.player, p.tile, p.q, p.r, p.rot, int(m.legal)))
            for e in events:
                self.db.execute("INSERT INTO events (game, board, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                                (game, board_id, e.kind, json.dumps(e.data), now))

    def log_events(self, game: int, events: list[Notice], state: list[dict] | None = None) -> None:
        """Store events that come with no new board (a tile that cannot be read, an end of turn: with the rules
        engine's state after it)."""
        now = time.time()
        with self._tx():
            self._state(game, state, now)
            for e in events:
                self.db.execute("INSERT INTO events (game, board, kind, data, at) VALUES (?, NULL, ?, ?, ?)",
                                (game, e.kind, json.dumps(e.data), now))

    def _state(self, game: int, state: list[dict] | None, now: float) -> None:
        if state is not None:
            self.db.execute("INSERT INTO states (game, state, at) VALUES (?, ?, ?)", (game, json.dumps(state), now))

    @contextmanager
    def _tx(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception; a write SQLite refuses is WriteError."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            yield
            self.db.execute("COMMIT")
        except BaseException as e:
            if self.db.in_transaction:  # SQLite may have rolled back itself (a full disk)
                self.db.execute("ROLLBACK")
            if isinstance(e, sqlite3.OperationalError):
                raise WriteError(self.path, str(e)) from None
            raise


@dataclass(frozen=True)
class Queued:
    """A message of the club's feed waiting for its broker: its number in the stream, topic (under the table's),
    payload and whether the broker keeps it."""

    id: int
    topic: str
    payload: str
    retain: bool = False


class Outbox:
    """The feed's messages its broker has not acknowledged, kept in the state database so that they go out after a
    restart too; numbered in one stream that never counts back (`stream` names it: a new database starts another).

    It has a connection of its own for the feed's thread, which never makes the referee wait: its writes are not
    synced to the disk themselves (the referee's next commit syncs them) and take the database for microseconds.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        with self._tx():
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('feed_stream', lower(hex(randomblob(8))))")
        self.stream: str = self.db.execute("SELECT value FROM meta WHERE key='feed_stream'").fetchone()[0]
        """This database's stream of messages (the receivers' key, with the number, for what they have had)."""

    def waiting(self) -> list[Queued]:
        """Every message still to be acknowledged, oldest first."""
        rows = self.db.execute("SELECT id, topic, payload, retain FROM feed ORDER BY id").fetchall()
        return [Queued(i, t, p, bool(r)) for i, t, p, r in rows]

    def next_id(self) -> int:
        """The number the next message takes (one more than any message ever kept, acknowledged ones too)."""
        row = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name='feed'").fetchone()
        return (row[0] if row else 0) + 1

    def add(self, messages: list[Queued]) -> None:
        """Keep these messages (numbered by the caller, from next_id on) until `done`."""
        with self._tx():
            self.db.executemany("INSERT INTO feed VALUES (?, ?, ?, ?)",
                                [(m.id, m.topic, m.payload, int(m.retain)) for m in messages])

    def done(self, ids: list[int]) -> None:
        """The broker has these (or they were given up): forget them."""
        with self._tx():
            self.db.executemany("DELETE FROM feed WHERE id=?", [(i,) for i in ids])

    def close(self) -> None:
        self.db.close()

    _tx = Store._tx


def set_aside(path: Path, label: str) -> Path:
    """Rename `path` to PATH.LABEL-DATE (never over another file) and return the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.{label}-{stamp}")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.{label}-{stamp}-{n}")
        n += 1
    path.rename(aside)
    return aside


def _hold_lock(db: Path):
    """An exclusive lock on DB.lock for as long as the returned file stays open; StoreError naming the process
    that holds it when another referee already runs on this database."""
    path = db.with_name(db.name + ".lock")
    try:
        # unbuffered: a write that fails leaves nothing for close() to retry; not truncated before it is locked
        f = open(os.open(path, os.O_RDWR | os.O_CREAT, 0o644), "r+b", buffering=0)  # noqa: SIM115
    except OSError as e:
        raise StoreError(_("{path}: cannot make the lock file ({error})").format(path=path, error=e.strerror)) \
            from None
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().decode(errors="replace").strip() or "?"
        f.close()
        raise StoreError(_("{path}: another tantrix-pi run (process {process}) is refereeing with this state "
                           "database; stop it first, or give this one its own paths.state_dir").format(
            path=db, process=holder)) from None
    try:
        f.write(f"{os.getpid()}\n".encode())
        f.truncate()
    except OSError as e:  # a full disk: no room even for the process number
        f.close()
        raise StoreError(_("{path}: cannot write the lock file ({error})").format(path=path, error=e.strerror)) \
            from None
    return f
