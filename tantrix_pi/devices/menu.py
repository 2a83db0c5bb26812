"""The button menu: game settings and calibration steps, driven by button `Press`es, drawn as a `Screen`."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tantrix_pi import i18n
from tantrix_pi.devices.buttons import Press
from tantrix_pi.devices.screen import Screen
from tantrix_pi.game import MODES
from tantrix_pi.i18n import N_, _, colour_name, ngettext, pgettext, player_name
from tantrix_pi.tiles import BACK_COLOURS, COLOUR_NAMES, COLOURS

DISCOVERY = tuple(range(3, 31))
MULTIPLAYER = ("game", "gobble")

CALIBRATION_STEPS = (
    N_("Clear the table, then press next"),
    N_("Lay the calibration board flat in the middle, then press next"),
    N_("Lay one tile of each colour face up, then press next"),
)
"""Default steps (shown in the language of the moment); the calibration module may pass its own."""


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
    language: str = i18n.DEFAULT
    """What the referee says and shows everything in (a code of i18n.LANGUAGES)."""

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
class MenuAction:
    """What the main loop must do after a button: end_turn, undo, new_game, apply (settings changed),
    calibrate (run step `step`), calibration_cancelled, language (speak `settings.language` from now on)."""

    name: str
    settings: Settings | None = None
    step: int | None = None


class Menu:
    """Button events in, commands out: closed, next ends the turn and back undoes; menu opens the menu.

        menu = Menu(Settings(players=3))
        commands = menu.handle(Press.MENU)       # opens it; menu.screen() is what to show
        menu.handle(Press.NEXT)                  # changes the selected item's value

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
        self.web: Screen | None = None
        """The web page's start page (its address, QR code and pairing code), which the menu shows again on
        asking; None: no page runs."""
        self.showing_web = False

    # -- items ----------------------------------------------------------------------------------------
    def items(self) -> list[str]:
        """The item keys shown for the current settings, in order."""
        s = self.settings
        keys = ["mode"]
        if s.mode in ("discovery", "rainbow"):
            keys.append(s.mode)
        if s.mode in MULTIPLAYER:
            keys += ["players", *(f"seat{i}" for i in range(s.players))]
        return [*keys, "voice", "language", "calibrate", *(["web"] if self.web is not None else []), "new_game", "done"]

    def label(self, key: str) -> str:
        """The text of one item, in the language of the moment."""
        s = self.settings
        if key.startswith("seat"):
            i = int(key[4:])
            return _("Seat {n}: {player}").format(n=i + 1, player=player_name(s.seats[i]))
        if key == "mode":
            return _("Mode: {mode}").format(mode=mode_name(s.mode))
        if key == "discovery":
            return ngettext("Discovery: {n} tile", "Discovery: {n} tiles", s.discovery).format(n=s.discovery)
        if key == "rainbow":
            return _("Rainbow: {colour} backs").format(colour=colour_name(s.rainbow))
        if key == "players":
            return _("Players: {n}").format(n=s.players)
        if key == "voice":
            return _("Voice: on") if s.voice else _("Voice: off")
        if key == "language":
            return _("Language: {language}").format(language=i18n.LANGUAGES[s.language])
        return {"calibrate": _("Calibrate camera"), "web": _("Web page and pairing code"), "new_game": _("New game"),
                "done": _("Done")}[key]

    # -- events ---------------------------------------------------------------------------------------
    def handle(self, event: Press) -> list[MenuAction]:
        """Apply one button event; returns what the main loop must do now."""
        if event is Press.NEW_GAME:
            return self._close() + [MenuAction("new_game", self.settings)]
        if self.step is not None:
            return self._calibration(event)
        if self.showing_web:  # any button goes back to the menu
            self.showing_web = False
            return []
        if not self.is_open:
            if event is Press.MENU:
                self.is_open, self.index, self._opened_with, self.note = True, 0, self.settings, ""
                return []
            return [MenuAction("end_turn" if event is Press.NEXT else "undo")]
        if event is Press.MENU:
            self.index = (self.index + 1) % len(self.items())
            self.note = ""
            return []
        if event is Press.BACK:
            return self._close()
        return self._change(self.items()[self.index])

    def _change(self, key: str) -> list[MenuAction]:
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
        elif key == "language":
            self.settings = replace(s, language=_after(tuple(i18n.LANGUAGES), s.language))
            return [MenuAction("language", self.settings)]
        elif key == "calibrate":
            self.step, self.note, self.busy = 0, "", False
            return []
        elif key == "web":
            self.showing_web = True
            return []
        elif key == "new_game":
            return self._close() + [MenuAction("new_game", self.settings)]
        else:
            return self._close()
        self.settings = s
        return []

    def _close(self) -> list[MenuAction]:
        was_open, self.is_open, self.step = self.is_open, False, None
        changed = was_open and self.settings != self._opened_with
        self._opened_with = self.settings
        return [MenuAction("apply", self.settings)] if changed else []

    # -- calibration ----------------------------------------------------------------------------------
    def _calibration(self, event: Press) -> list[MenuAction]:
        if event is Press.BACK:
            self.step = None
            return [MenuAction("calibration_cancelled")]
        if event is Press.NEXT and not self.busy:
            self.busy, self.note = True, _("working...")
            return [MenuAction("calibrate", step=self.step)]
        return []

    def calibration_result(self, ok: bool, note: str = "") -> None:
        """The main loop's answer to a `calibrate` command: go on to the next step, or say what to redo."""
        if self.step is None:
            return
        self.busy = False
        if not ok:
            self.note = _("Try again: {note}").format(note=note) if note else _("Try again")
            return
        self.step += 1
        self.note = note
        if self.step == len(self.steps):
            self.step = None
            self.note = note or _("Calibration saved")

    # -- drawing --------------------------------------------------------------------------------------
    def screen(self) -> Screen | None:
        """The menu or calibration page to show, None when the game screen should show."""
        if self.step is not None:
            lines = (_(self.steps[self.step]), *([self.note] if self.note else ()))
            return Screen(title=_("Calibration {step}/{steps}").format(step=self.step + 1, steps=len(self.steps)),
                          lines=lines, progress=self.step / len(self.steps))
        if self.showing_web:
            return self.web
        if not self.is_open:
            return None
        return Screen(title=self.note or _("Menu"), lines=tuple(self.label(k) for k in self.items()),
                      selected=self.index)


def mode_name(mode: str) -> str:
    """What is played, as the menu shows it."""
    return {
        "game": pgettext("mode", "game"),
        "discovery": pgettext("mode", "Discovery"),
        "rainbow": pgettext("mode", "Rainbow"),
        "solitaire": pgettext("mode", "Solitaire"),
        "four-lines": pgettext("mode", "Four lines"),
        "four-loops": pgettext("mode", "Four loops"),
        "gobble": pgettext("mode", "Gobble"),
        "free": pgettext("mode", "free play"),
    }[mode]


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
