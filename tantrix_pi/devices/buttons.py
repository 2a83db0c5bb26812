"""Three push buttons read with gpiozero; their callbacks only put `Press`es on a queue for the main loop."""

from __future__ import annotations

import enum
import queue
import threading
import warnings
from collections.abc import Mapping

from tantrix_pi.devices import Closeable
from tantrix_pi.devices.errors import DeviceError
from tantrix_pi.i18n import _

DEFAULT_PINS = {"next": 17, "back": 27, "menu": 22}
"""BCM numbers: physical pins 11, 13 and 15, each wired through its button to a ground pin (9, 14 or 25)."""


class Press(enum.Enum):
    """What a button did."""

    NEXT = "next"
    """next / confirm, also the end of a turn"""
    BACK = "back"
    """back / undo"""
    MENU = "menu"
    """menu pressed and released before the hold time"""
    NEW_GAME = "new_game"
    """menu held for the hold time"""


class Buttons(Closeable):
    """Next, back and menu buttons, each between a GPIO pin and ground (internal pull-ups; BCM 17, 27, 22).

        with Buttons() as buttons:              # or Buttons({"next": 5, "back": 6, "menu": 13})
            event = buttons.events.get()        # Press.NEXT, Press.BACK, Press.MENU or Press.NEW_GAME
        # the pins are released here (or by buttons.close())

    A button counts as pressed or released once its pin has kept still for `debounce` seconds (contact
    bounce is ignored); holding menu for `hold_seconds` gives NEW_GAME instead of MENU (sent on release).
    """

    def __init__(self, pins: Mapping[str, int] | None = None, hold_seconds: float = 2.0, debounce: float = 0.03,
                 events: queue.Queue | None = None, pin_factory=None) -> None:
        self.pins = {**DEFAULT_PINS, **check_pins(pins or {})}
        if not 0 <= debounce < hold_seconds:
            raise DeviceError(_("buttons: debounce {seconds} s must be at least 0 and shorter than the hold time")
                              .format(seconds=debounce))
        self.events: queue.Queue[Press] = events if events is not None else queue.Queue()
        self.debounce = debounce
        self._timers: dict[str, threading.Timer] = {}
        self._down = dict.fromkeys(self.pins, False)
        self._held = False
        self._lock = threading.Lock()
        try:
            from gpiozero import Button
            from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback
        except ImportError:
            raise DeviceError(_("buttons: gpiozero is not installed")) from None
        self._buttons: dict[str, Button] = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PinFactoryFallback)  # the DeviceError below says it in one line
                for name, pin in self.pins.items():
                    button = Button(pin, pull_up=True, hold_time=hold_seconds, pin_factory=pin_factory)
                    self._buttons[name] = button
                    button.when_pressed = button.when_released = lambda _b, n=name: self._edge(n)
            self._buttons["menu"].when_held = lambda _b: self._held_menu()
        except BadPinFactory:
            self.close()
            raise DeviceError(_("buttons: no GPIO pins here (not a Raspberry Pi, or python3-lgpio is missing)")) \
                from None
        except GPIOZeroError as e:
            self.close()
            raise DeviceError(_("buttons on BCM {pins}: {error}").format(pins=sorted(self.pins.values()),
                                                                         error=e)) from None

    @property
    def down(self) -> frozenset[str]:
        """The buttons held down now, as debouncing has settled them."""
        return frozenset(name for name, down in self._down.items() if down)

    def _edge(self, name: str) -> None:
        """Any change of a pin: look at it again once it has kept still for the debounce time."""
        if not self.debounce:
            self._settled(name)
            return
        with self._lock:
            if name in self._timers:
                self._timers[name].cancel()
            timer = self._timers[name] = threading.Timer(self.debounce, self._settled, (name,))
            timer.daemon = True
            timer.start()

    def _settled(self, name: str) -> None:
        button = self._buttons.get(name)
        if button is None or button.is_pressed == self._down[name]:
            return
        self._down[name] = button.is_pressed
        if name != "menu":
            if self._down[name]:
                self.events.put(Press(name))
        elif self._down[name]:
            self._held = False
        elif not self._held:
            self.events.put(Press.MENU)

    def _held_menu(self) -> None:
        self._held = True
        self.events.put(Press.NEW_GAME)

    def close(self) -> None:
        """Release the pins."""
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
        for button in self._buttons.values():
            button.close()
        self._buttons = {}


class FakeButtons(Closeable):
    """Buttons for tests and the demo: `press(Press.NEXT)` queues the event as a real press would."""

    def __init__(self, events: queue.Queue | None = None) -> None:
        self.events: queue.Queue[Press] = events if events is not None else queue.Queue()

    def press(self, event: Press) -> None:
        """Queue `event` as if its button had been used."""
        self.events.put(event)

    def close(self) -> None:
        """Nothing to release."""


def check_pins(pins: Mapping[str, object]) -> dict[str, int]:
    """The pins of a [buttons] config table, or DeviceError naming the first wrong one."""
    out = {}
    for name, pin in pins.items():
        if name not in DEFAULT_PINS:
            raise DeviceError(_("buttons: unknown button {name!r}: use {names}").format(name=name,
                                                                                       names=", ".join(DEFAULT_PINS)))
        if not isinstance(pin, int) or isinstance(pin, bool) or pin not in range(2, 28):
            raise DeviceError(_("buttons: {name} pin {pin!r} is not a BCM GPIO number 2..27").format(name=name,
                                                                                                     pin=pin))
        out[name] = pin
    merged = {**DEFAULT_PINS, **out}
    if len(set(merged.values())) < len(merged):
        raise DeviceError(_("buttons: two buttons share a pin ({pins})").format(pins=merged))
    return out
