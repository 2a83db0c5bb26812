"""Where announcements go, behind one interface: console/log, a JSON-lines stream, the display, the voice."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from tantrix_pi.board import Board, Placement
from tantrix_pi.i18n import _
from tantrix_pi.live.store import Notice, set_aside

log = logging.getLogger("tantrix_pi.live")


@dataclass
class View:
    """What the referee would show now: last message, forced spaces, scores, whose turn, the board."""

    message: str = ""
    board: Board = field(default_factory=Board)
    forced: list[dict] = field(default_factory=list)
    """{"letter", "cell", "needs"} as in the `forced` event."""
    scores: dict[str, int] = field(default_factory=dict)
    turn: str | None = None
    last: Placement | None = None
    game: int = 0
    """The stored game's number."""
    mode: str = "game"
    players: list[str] = field(default_factory=list)
    puzzle: str | None = None
    doubted: list[tuple[int, int]] = field(default_factory=list)
    """Cells whose tile the camera cannot read (said in the last `unsure` event, until the next commit)."""
    bag_empty: bool = False
    winners: list[str] = field(default_factory=list)
    """Once the game is over: the player (or the players in a tie) with the best score."""
    illegal: list[dict] = field(default_factory=list)
    """The tiles lying on the table that the game does not accept: {"tile", "cell", "rot", "violations": [{"rule",
    "cells"}]} (the mismatching edge is the rule "golden-rule" with the neighbour's cell; a restriction names the
    cells it blocks). `forced` then holds only the forced spaces of the accepted tiles."""
    to_move: str | None = None
    """The colour letter of the player to play now (None outside a game or when the game is over)."""
    must_fill: list[dict] = field(default_factory=list)
    """Forced spaces a player must fill before going on: {"player", "letter", "cell", "tiles"}."""


class Sink:
    """Receives every event, in order, after it is stored; `show(view)` after each batch."""

    def announce(self, event: Notice) -> None:
        """One event, as soon as it is safe in the store."""

    def show(self, view: View) -> None:
        """The state after a batch of events (for screens)."""

    def screen(self, screen) -> None:
        """A page that is not the game (the buttons' menu: a devices `Screen`); screens only."""

    def tick(self) -> None:
        """Called once per frame from the main loop (a mono screen turns its page)."""

    def frame(self, frame, detection=None) -> None:
        """Every frame the loop reads, with the detector's reading when it ran on it (the web page's picture).
        The frame must not be changed; a sink keeps it, never copies or encodes it here."""

    def set_voice(self, on: bool) -> None:
        """Speaking switched on or off from the menu (voice sinks only)."""

    def set_language(self, code: str) -> None:
        """The referee speaks `code` from now on, switched from the menu (voice sinks only)."""

    def close(self) -> None:
        """Release what the sink holds."""


def event_line(event: Notice) -> str:
    """An announcement as one JSON object, as events.jsonl holds it and the club's feed sends it: time (when it was
    announced), game, kind, text, data."""
    at = event.at if event.at is not None else time.time()
    return json.dumps({"t": round(at, 3), "game": event.game, "kind": event.kind, "text": event.text,
                       "data": event.data})


class ConsoleSink(Sink):
    """Prints each announcement as one line (stdout is the journal under systemd)."""

    def __init__(self, stream=None) -> None:
        import sys

        self.stream = stream or sys.stdout

    def announce(self, event: Notice) -> None:
        print(event.text, file=self.stream, flush=True)


class LogSink(Sink):
    """Announcements as log records (INFO; illegal and unsure ones as WARNING)."""

    def announce(self, event: Notice) -> None:
        level = logging.WARNING if event.kind in ("illegal", "unsure", "removed", "camera", "storage") else logging.INFO
        log.log(level, "%s: %s", event.kind, event.text)


class JsonLinesSink(Sink):
    """One JSON object per event (time, game, kind, text, data), appended to a file and flushed each line.

    `afresh`: the events already in the file belong to another database (a new, damaged or emptied state.db,
    whose game numbers start again at 1), so the file is moved aside to FILE.old-DATE first.
    """

    def __init__(self, path: str | Path, afresh: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if afresh and self.path.is_file() and self.path.stat().st_size:
            log.warning("the events in %s are of another state database: kept as %s", self.path,
                        set_aside(self.path, "old"))
        self.file = self.path.open("a", encoding="utf-8")

    def announce(self, event: Notice) -> None:
        self.file.write(event_line(event) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class MemorySink(Sink):
    """Keeps events, views and menu pages in lists (tests, benches, the demo)."""

    def __init__(self) -> None:
        self.events: list[Notice] = []
        self.views: list[View] = []
        self.screens: list = []
        self.voice_on: list[bool] = []
        self.languages: list[str] = []

    def screen(self, screen) -> None:
        self.screens.append(screen)

    def set_voice(self, on: bool) -> None:
        self.voice_on.append(on)

    def set_language(self, code: str) -> None:
        self.languages.append(code)

    def announce(self, event: Notice) -> None:
        self.events.append(event)

    def show(self, view: View) -> None:
        self.views.append(view)


class Sinks(Sink):
    """Several sinks as one; a sink that fails is reported once and skipped, never stops the referee."""

    def __init__(self, sinks: list[Sink]) -> None:
        self.sinks = list(sinks)
        self.failed: set[int] = set()

    def _each(self, method: str, *args) -> None:
        for s in self.sinks:
            try:
                getattr(s, method)(*args)
            except Exception as e:  # a broken screen or speaker must not lose the game
                if id(s) not in self.failed:
                    self.failed.add(id(s))
                    log.error("%s failed (%s: %s); the referee goes on without it until it recovers",
                              type(s).__name__, type(e).__name__, e)
                    log.debug("sink failure", exc_info=True)
            else:
                self.failed.discard(id(s))

    def announce(self, event: Notice) -> None:
        self._each("announce", event)

    def show(self, view: View) -> None:
        self._each("show", view)

    def tick(self) -> None:
        self._each("tick")

    def frame(self, frame, detection=None) -> None:
        self._each("frame", frame, detection)

    def screen(self, screen) -> None:
        self._each("screen", screen)

    def set_voice(self, on: bool) -> None:
        self._each("set_voice", on)

    def set_language(self, code: str) -> None:
        self._each("set_language", code)

    def close(self) -> None:
        """Close every sink; one that cannot (an events file on a full disk) is reported, never raised."""
        for s in self.sinks:
            try:
                s.close()
            except Exception as e:
                log.error("%s could not close (%s: %s)", type(s).__name__, type(e).__name__, e)


SPOKEN = ("illegal", "unsure", "forced", "bag_empty", "game_over", "solved", "not_solved", "taken_back", "camera",
          "hint", "storage", "draw", "solitaire_over", "four_over", "must_fill", "removed", "moved", "turned")
"""Event kinds worth saying aloud (placements and scores are on the screen)."""


class DisplaySink(Sink):
    """The devices package's Display (luma screen or PNG frames), fed a Screen after each batch."""

    def __init__(self, display) -> None:
        self.display = display

    @classmethod
    def open(cls, kind: str, directory: str = "", options: dict | None = None) -> DisplaySink:
        """`kind` a model or "png" (frames to `directory`, made when missing: the service's own folder; also the
        fallback for a screen that is missing)."""
        from tantrix_pi.devices.display import open_display
        from tantrix_pi.devices.errors import DeviceError

        if directory:
            try:
                Path(directory).mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise DeviceError(_("display.dir {folder}: cannot make the folder ({error})").format(
                    folder=directory, error=e.strerror)) from None
        spec = f"png:{directory}" if kind == "png" else kind
        return cls(open_display(spec, options, fallback_dir=directory or None))

    def tick(self) -> None:
        self.display.tick()

    def screen(self, screen) -> None:
        self.display.show(screen)

    def show(self, view: View) -> None:
        from tantrix_pi.devices.screen import Forced, Screen

        forced = tuple(Forced(f["letter"], tuple(f["cell"]), "".join(c for c in f["needs"] if c))
                       for f in view.forced)
        self.display.show(Screen(message=view.message, forced=forced, scores=tuple(view.scores.items()),
                                 turn=view.turn, board=view.board, last=view.last))

    def close(self) -> None:
        self.display.close()


class VoiceSink(Sink):
    """The devices package's voice (espeak-ng, never blocking), for the kinds in SPOKEN.

    It speaks the referee's language (espeak-ng has a voice of each) and follows the menu's switch, unless
    it was given a voice of its own (`follows` False).
    """

    def __init__(self, voice, follows: bool = True) -> None:
        self.voice = voice
        self.follows = follows

    @classmethod
    def open(cls, language: str = "", enabled: bool = True, words_per_minute: int = 160) -> VoiceSink:
        """espeak-ng in `language` (empty: the referee's), speaking from the start or only once the menu
        switches it on."""
        from tantrix_pi import i18n
        from tantrix_pi.devices.voice import open_voice

        voice = open_voice(enabled, language=language or i18n.language(), words_per_minute=words_per_minute)
        return cls(voice, follows=not language)

    def announce(self, event: Notice) -> None:
        if event.kind in SPOKEN:
            self.voice.say(event.text)

    def set_voice(self, on: bool) -> None:
        self.voice.enabled = on

    def set_language(self, code: str) -> None:
        if self.follows:
            self.voice.language = code

    def close(self) -> None:
        self.voice.close()
