"""What the live loop is asked to do between frames: one small frozen value per command.

The buttons' menu, the web page, the demo's recorded presses and the loop's own background jobs put them
on `LiveLoop.commands`; the loop carries them out in order before it reads the next frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from tantrix_pi.live.hands import HandWatch
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.store import Notice


@dataclass(frozen=True)
class EndTurn:
    """The player to move ends the turn (the next button)."""

    name: ClassVar[str] = "end_turn"


@dataclass(frozen=True)
class Undo:
    """Say which tile to take off to undo the last placement (the back button)."""

    name: ClassVar[str] = "undo"


@dataclass(frozen=True)
class NewGame:
    """Start a new game of `setup` (None: the one being played, again)."""

    setup: Setup | None = None
    name: ClassVar[str] = "new_game"


@dataclass(frozen=True)
class ShowScreen:
    """Show `page` (a devices Screen) on the display; None: show the game again."""

    page: object | None = None
    name: ClassVar[str] = "screen"


@dataclass(frozen=True)
class SetVoice:
    """Speaking on or off."""

    on: bool
    name: ClassVar[str] = "voice"


@dataclass(frozen=True)
class Calibrating:
    """The web page's guided calibration started (on) or stopped: while on, no frame is judged."""

    on: bool
    name: ClassVar[str] = "calibrating"


@dataclass(frozen=True)
class UseSeats:
    """The seats' hand zones calibrated again (the web page): from the next frame the hands are read by `hands`
    (None: no zones) and the tiles found by `detect`, the detector given the same zones."""

    hands: HandWatch | None
    detect: Callable
    name: ClassVar[str] = "seats"


@dataclass(frozen=True)
class AskHint:
    """Ask the solver for a hint on the puzzle being built (in the background; ignored outside puzzles)."""

    name: ClassVar[str] = "hint"


@dataclass(frozen=True)
class HintReady:
    """The hint job's answer: what to say."""

    event: Notice
    name: ClassVar[str] = "hinted"


@dataclass(frozen=True)
class CalibrationDone:
    """A menu calibration step's answer: whether it worked, and what to tell the players."""

    ok: bool
    note: str
    name: ClassVar[str] = "calibrated"


Command = (EndTurn | Undo | NewGame | ShowScreen | SetVoice | Calibrating | UseSeats | AskHint | HintReady
           | CalibrationDone)
"""Anything `LiveLoop.commands` carries; `name` says which in logs and the web page's answers."""

PRESSES = {"end_turn": EndTurn, "undo": Undo}
"""A recording's button press (`Scene.press`) -> the command it gives."""


def pressed(press: str) -> Command:
    """The command of a button press named in a recording."""
    return PRESSES[press]()
