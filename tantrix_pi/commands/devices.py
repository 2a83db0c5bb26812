"""`tantrix-pi devices check`: try the display, the buttons and the voice on the real hardware."""

from __future__ import annotations

import argparse
import queue
import shutil
import time
from contextlib import ExitStack

from tantrix_pi.devices.errors import DeviceError
from tantrix_pi.devices.screen import Forced, Screen
from tantrix_pi.errors import EXIT_NO, EXIT_OK

SAMPLE = Screen(message="tantrix-pi display check", forced=(Forced("A", (0, 0), "RYGB"),),
                scores=(("R", 1), ("Y", 2), ("G", 3), ("B", 4)), turn="G")
"""A frame with every player colour, a forced space and a message: what a game screen needs."""


def register(cli) -> None:
    """Add `devices check`."""
    group = cli.group("devices", "Try the appliance's display, buttons and voice.")
    p = cli.command("check", "Show a test frame, print button presses, say a sentence.", check, parent=group)
    p.add_argument("--display", metavar="SPEC",
                   help="ssd1306, sh1106, st7789, ili9341, png:DIR or none (default: no display)")
    p.add_argument("--option", metavar="KEY=VALUE", action="append", default=[],
                   help="a display option, e.g. i2c_address=0x3d or rotate=2 (repeatable)")
    p.add_argument("--buttons", metavar="NEXT,BACK,MENU", nargs="?", const="",
                   help="watch the buttons (BCM pins; default 17,27,22)")
    p.add_argument("--voice", action="store_true", help="say a sentence through espeak-ng")
    p.add_argument("--seconds", type=_seconds, default=20.0, help="how long to watch the buttons (default 20)")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"needs seconds, above 0 and up to 3600, not {text!r}")
    return value


def _options(pairs: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise DeviceError(f"--option {pair!r}: write KEY=VALUE")
        try:
            out[key] = int(value, 0)
        except ValueError:
            out[key] = value
    return out


def _pins(text: str) -> dict[str, int]:
    if not text:
        return {}
    parts = text.split(",")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise DeviceError(f"--buttons {text!r}: give three BCM numbers, e.g. 17,27,22") from None
    if len(numbers) != 3:
        raise DeviceError(f"--buttons {text!r}: give three BCM numbers, e.g. 17,27,22")
    return dict(zip(("next", "back", "menu"), numbers, strict=True))


def check(args) -> int:
    """Open each device asked for, show what it does; exit 1 when the voice cannot speak."""
    from tantrix_pi.devices.buttons import Buttons
    from tantrix_pi.devices.display import open_display
    from tantrix_pi.devices.voice import open_voice

    status = EXIT_OK
    with ExitStack() as opened:
        display = opened.enter_context(open_display(args.display, _options(args.option))) if args.display else None
        if display is not None:
            display.show(SAMPLE)
            w, h = display.size
            print(f"display: {args.display} {w}x{h} {'mono' if display.mono else 'colour'}, test frame shown")
        if args.voice:
            if shutil.which("espeak-ng") is None:
                print("voice: espeak-ng is not installed (sudo apt install espeak-ng)")
                status = EXIT_NO
            else:
                with open_voice(True) as voice:
                    voice.say("Tantrix referee voice check")
                print("voice: said 'Tantrix referee voice check'")
        if args.buttons is not None:
            with Buttons(_pins(args.buttons)) as buttons:
                print(f"buttons: on BCM {buttons.pins}; press them (for {args.seconds:g} s)")
                _watch(buttons, display, time.monotonic() + args.seconds)
    return status


def _watch(buttons, display, end: float) -> None:
    """Print each button press until `end` and show it on the display (which turns its pages meanwhile)."""
    while (left := end - time.monotonic()) > 0:
        try:
            event = buttons.events.get(timeout=min(left, 0.5))
        except queue.Empty:
            if display is not None:
                display.tick()
            continue
        print(f"button: {event.value}")
        if display is not None:
            display.show(Screen(message=f"button: {event.value}", scores=SAMPLE.scores))
