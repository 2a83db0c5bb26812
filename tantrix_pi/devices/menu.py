"""The button menu: game settings and calibration steps, driven by button `Event`s, drawn as a `Screen`."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tantrix_pi.devices.buttons import Event
from tantrix_pi.devices.screen import Screen
from tantrix_pi.game import MODES
from tantrix_pi.tiles import BACK_COLOURS, COLOUR_NAMES, COLOURS

DISCOVERY = tuple(range(3, 31))
MULTIPLAYER = ("game", "gobble")

CALIBRATION_STEPS = (
    "Clear the table, then press next",
    "Lay the calibration board flat in the middle, then press next",
    "Lay one tile of each colour face up, then press next",
)
"""Default steps; the calibration module may pass its own."""


@dataclass(frozen=True)
class Settings:
    """What the menu sets: mode (with its puzzle), players and their colours in seating order, voice."""

    mode: str = "game"
    discovery: int = 10
    rainbow: str = "R"
    players: int = 2
    seats: tuple[str, ...] = ("R", "B", "Y", "G")
    """All four colours in seating order; the first `players` play."""
    voice: bool = False

    @property
    def colours(self) -> tuple[str, ...]:
        """The playing colours in seating order (empty for puzzles and free play)."""
        return self.seats[:self.players] if self.mode in MULTIPLAYER else ()

    @property
    def puzzle(self) -> str | None:
        """The puzzle name the rules engine takes ("discovery:10", "rainbow:red", "solitaire"), if any."""
        if self.mode == "discovery":
            return f"discovery:{self.discovery}"
        if self.mode == "rainbow":
            return f"rainbow:{COLOUR_NAMES[self.rainbow]}"
        return "solitaire" if self.mode == "solitaire" else None


@dataclass(frozen=True)
class Command:
    """What the main loop must do after a button: end_turn, undo, new_game, apply (settings changed),
    calibrate (run step `step`), calibration_cancelled."""

    name: str
    settings: Settings | None = None
    step: int | None = None


class Menu:
    """Button events in, commands out: closed, next ends the turn and back undoes; menu opens the menu.

        menu = Menu(Settings(players=3))
        commands = menu.handle(Event.MENU)       # opens it; menu.screen() is what to show
        menu.handle(Event.NEXT)                  # changes the selected item's value

    In the menu: menu goes to the next item, next changes its value (or runs it), back closes the menu.
    Holding menu starts a new game from anywhere.
    """

    def __init__(self, settings: Settings | None = None, calibration_steps: tuple[str, ...] = CALIBRATION_STEPS):
        self.settings = settings or Settings()
        self.steps = calibration_steps
        self.is_open = False
        self.index = 0
        self.step: int | None = None
        """The calibration step shown, None outside calibration."""
        self.busy = False
        self.note = ""
        self._opened_with = self.settings

    # -- items ----------------------------------------------------------------------------------------
    def items(self) -> list[str]:
        """The item keys shown for the current settings, in order."""
        s = self.settings
        keys = ["mode"]
        if s.mode in ("discovery", "rainbow"):
            keys.append(s.mode)
        if s.mode in MULTIPLAYER:
            keys += ["players", *(f"seat{i}" for i in range(s.players))]
        return [*keys, "voice", "calibrate", "new_game", "done"]

    def label(self, key: str) -> str:
        """The text of one item."""
        s = self.settings
        if key.startswith("seat"):
            i = int(key[4:])
            return f"Seat {i + 1}: {COLOUR_NAMES[s.seats[i]]}"
        return {
            "mode": f"Mode: {s.mode}",
            "discovery": f"Discovery: {s.discovery} tiles",
            "rainbow": f"Rainbow: {COLOUR_NAMES[s.rainbow]} backs",
            "players": f"Players: {s.players}",
            "voice": f"Voice: {'on' if s.voice else 'off'}",
            "calibrate": "Calibrate camera",
            "new_game": "New game",
            "done": "Done",
        }[key]

    # -- events ---------------------------------------------------------------------------------------
    def handle(self, event: Event) -> list[Command]:
        """Apply one button event; returns what the main loop must do now."""
        if event is Event.NEW_GAME:
            return self._close() + [Command("new_game", self.settings)]
        if self.step is not None:
            return self._calibration(event)
        if not self.is_open:
            if event is Event.MENU:
                self.is_open, self.index, self._opened_with, self.note = True, 0, self.settings, ""
                return []
            return [Command("end_turn" if event is Event.NEXT else "undo")]
        if event is Event.MENU:
            self.index = (self.index + 1) % len(self.items())
            self.note = ""
            return []
        if event is Event.BACK:
            return self._close()
        return self._change(self.items()[self.index])

    def _change(self, key: str) -> list[Command]:
        s = self.settings
        if key == "mode":
            s = replace(s, mode=_after(MODES, s.mode))
        elif key == "discovery":
            s = replace(s, discovery=_after(DISCOVERY, s.discovery))
        elif key == "rainbow":
            s = replace(s, rainbow=_after(BACK_COLOURS, s.rainbow))
        elif key == "players":
            s = replace(s, players=_after((2, 3, 4), s.players))
        elif key.startswith("seat"):
            s = replace(s, seats=_next_colour(s.seats, int(key[4:])))
        elif key == "voice":
            s = replace(s, voice=not s.voice)
        elif key == "calibrate":
            self.step, self.note, self.busy = 0, "", False
            return []
        elif key == "new_game":
            return self._close() + [Command("new_game", self.settings)]
        else:
            return self._close()
        self.settings = s
        return []

    def _close(self) -> list[Command]:
        was_open, self.is_open, self.step = self.is_open, False, None
        changed = was_open and self.settings != self._opened_with
        self._opened_with = self.settings
        return [Command("apply", self.settings)] if changed else []

    # -- calibration ----------------------------------------------------------------------------------
    def _calibration(self, event: Event) -> list[Command]:
        if event is Event.BACK:
            self.step = None
            return [Command("calibration_cancelled")]
        if event is Event.NEXT and not self.busy:
            self.busy, self.note = True, "working..."
            return [Command("calibrate", step=self.step)]
        return []

    def calibration_result(self, ok: bool, note: str = "") -> None:
        """The main loop's answer to a `calibrate` command: go on to the next step, or say what to redo."""
        if self.step is None:
            return
        self.busy = False
        if not ok:
            self.note = f"Try again: {note}" if note else "Try again"
            return
        self.step += 1
        self.note = note
        if self.step == len(self.steps):
            self.step = None
            self.note = note or "Calibration saved"

    # -- drawing --------------------------------------------------------------------------------------
    def screen(self) -> Screen | None:
        """The menu or calibration page to show, None when the game screen should show."""
        if self.step is not None:
            lines = (self.steps[self.step], *([self.note] if self.note else ()))
            return Screen(title=f"Calibration {self.step + 1}/{len(self.steps)}", lines=lines,
                          progress=self.step / len(self.steps))
        if not self.is_open:
            return None
        return Screen(title=self.note or "Menu", lines=tuple(self.label(k) for k in self.items()), selected=self.index)


def _after(values: tuple, value):
    """The value after `value` in `values`, wrapping round."""
    return values[(values.index(value) + 1) % len(values)] if value in values else values[0]


def _next_colour(seats: tuple[str, ...], i: int) -> tuple[str, ...]:
    """Seat i takes the next colour; the seat that had it takes seat i's old colour (no colour twice)."""
    new = _after(COLOURS, seats[i])
    out = list(seats)
    j = out.index(new)
    out[i], out[j] = new, seats[i]
    return tuple(out)
