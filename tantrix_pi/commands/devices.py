"""`tantrix-pi devices check`: try the display, the buttons and the voice on the real hardware."""

from __future__ import annotations

import argparse
import queue
import shutil
import time
from contextlib import ExitStack

from tantrix_pi import i18n
from tantrix_pi.devices.errors import DeviceError
from tantrix_pi.devices.screen import Forced, Screen
from tantrix_pi.errors import EXIT_NO, EXIT_OK
from tantrix_pi.i18n import _


def sample() -> Screen:
    """A frame with every player colour, a forced space and a message: what a game screen needs."""
    return Screen(message=_("tantrix-pi display check"), forced=(Forced("A", (0, 0), "RYGB"),),
                  scores=(("R", 1), ("Y", 2), ("G", 3), ("B", 4)), turn="G")


def register(cli) -> None:
    """Add `devices check`."""
    group = cli.group("devices")
    p = cli.command("check", _("Show a test frame, print button presses, say a sentence."), check, parent=group)
    p.add_argument("--display", metavar="SPEC",
                   help=_("ssd1306, sh1106, st7789, ili9341, png:DIR or none (default: no display)"))
    p.add_argument("--option", metavar="KEY=VALUE", action="append", default=[],
                   help=_("a display option, e.g. i2c_address=0x3d or rotate=2 (repeatable)"))
    p.add_argument("--buttons", metavar="NEXT,BACK,MENU", nargs="?", const="",
                   help=_("watch the buttons (BCM pins; default 17,27,22)"))
    p.add_argument("--voice", action="store_true", help=_("say a sentence through espeak-ng"))
    p.add_argument("--seconds", type=_seconds, default=20.0, help=_("how long to watch the buttons (default 20)"))


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(_("needs seconds, above 0 and up to 3600, not {text!r}").format(text=text))
    return value


def _options(pairs: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise DeviceError(_("--option {pair!r}: write KEY=VALUE").format(pair=pair))
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
        raise DeviceError(_("--buttons {text!r}: give three BCM numbers, e.g. 17,27,22").format(text=text)) from None
    if len(numbers) != 3:
        raise DeviceError(_("--buttons {text!r}: give three BCM numbers, e.g. 17,27,22").format(text=text))
    return dict(zip(("next", "back", "menu"), numbers, strict=True))


def check(args) -> int:
    """Open each device asked for, show what it does; exit 1 when the voice cannot speak."""
    from tantrix_pi.devices.buttons import Buttons
    from tantrix_pi.devices.display import open_display
    from tantrix_pi.devices.voice import open_voice

    if args.display is None and args.buttons is None and not args.voice:
        raise DeviceError(_("devices check: nothing to try: give --display SPEC, --buttons or --voice"))
    status = EXIT_OK
    with ExitStack() as opened:
        display = opened.enter_context(open_display(args.display, _options(args.option))) if args.display else None
        if display is not None:
            display.show(sample())
            w, h = display.size
            print((_("display: {spec} {width}x{height} mono, test frame shown") if display.mono
                   else _("display: {spec} {width}x{height} colour, test frame shown")).format(
                spec=args.display, width=w, height=h))
        if args.voice:
            if shutil.which("espeak-ng") is None:
                print(_("voice: espeak-ng is not installed (sudo apt install espeak-ng)"))
                status = EXIT_NO
            else:
                sentence = _("Tantrix referee voice check")
                with open_voice(True, language=i18n.language()) as voice:
                    voice.say(sentence)
                print(_("voice: said '{sentence}'").format(sentence=sentence))
        if args.buttons is not None:
            with Buttons(_pins(args.buttons)) as buttons:
                print(_("buttons: on BCM {pins}; press them (for {seconds:g} s)").format(pins=buttons.pins,
                                                                                          seconds=args.seconds))
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
        said = _("button: {name}").format(name=event.value)
        print(said)
        if display is not None:
            display.show(Screen(message=said, scores=sample().scores))
