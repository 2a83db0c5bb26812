"""Building a live loop from the configuration: source, detector, store, sinks (shared by `run` and `demo`)."""

from __future__ import annotations

import logging
from pathlib import Path

from tantrix_pi.errors import TantrixError
from tantrix_pi.live.config import Config
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import ConsoleSink, JsonLinesSink, LogSink, Sink
from tantrix_pi.live.sources import (
    FrameSource,
    OpenCVSource,
    Picamera2Source,
    folder_source,
    video_source,
)

log = logging.getLogger("tantrix_pi.live")


class NotAvailable(TantrixError):
    """A part the service needs is not installed (the detector, a device library)."""


def make_source(cfg: Config) -> FrameSource:
    """The frame source the [camera] section names."""
    cam = cfg.camera
    if cam["source"] == "picamera2":
        return Picamera2Source(cam["size"], cam["settle_s"])
    if cam["source"] == "opencv":
        return OpenCVSource(cam["device"], cam["size"])
    if cam["source"] == "folder":
        return folder_source(cam["path"], cam["fps"])
    return video_source(cam["path"], cam["fps"])


def make_detector(profile_path: str = ""):
    """vision.detect bound to the calibration profile (none: the detector's defaults)."""
    try:
        from vision import detect
    except ImportError:
        raise NotAvailable("the detector (vision.detect) is not installed in this build") from None
    profile = None
    if profile_path:
        try:
            from calibration.profile import Profile
        except ImportError:
            raise NotAvailable("calibration is not installed in this build: leave paths.profile empty") from None
        profile = Profile.load(Path(profile_path))

    def run(image):
        return detect(image, profile=profile)

    return run


def setup_of(cfg: Config) -> Setup:
    """The game or puzzle the [mode] section describes."""
    kind = cfg.mode["kind"]
    if kind == "game":
        return Setup("game", cfg.player_letters)
    return Setup(kind, [], cfg.puzzle_spec)


def device_sinks(cfg: Config) -> list[Sink]:
    """Display and voice sinks from the devices package, when it is installed and configured."""
    out: list[Sink] = []
    if cfg.display["kind"] != "none":
        from tantrix_pi.live.sinks import DisplaySink

        d = cfg.display
        if d["kind"] == "png":
            options = {"model": d["model"]}
        elif d["kind"] in ("ssd1306", "sh1106"):
            options = {"i2c_address": d["i2c_address"], "rotate": d["rotate"]}
        else:
            options = {"rotate": d["rotate"]}
        # a screen that cannot be opened must not stop the referee: its frames go to PNGs instead
        out.append(DisplaySink.open(d["kind"], d["dir"] or str(cfg.state_dir / "display"), options))
    if cfg.voice["enabled"]:
        from tantrix_pi.live.sinks import VoiceSink

        out.append(VoiceSink.open(cfg.voice["language"]))
    return out


def standard_sinks(cfg: Config, console: bool = True) -> list[Sink]:
    """Console (or log), the JSON-lines stream and the devices."""
    return [ConsoleSink() if console else LogSink(), JsonLinesSink(cfg.events_path), *device_sinks(cfg)]


def setup_of_settings(settings) -> Setup:
    """The Setup a devices menu `Settings` describes."""
    if settings.mode == "game":
        return Setup("game", list(settings.colours))
    return Setup(settings.mode, [], settings.puzzle)


def start_buttons(cfg: Config, commands, stop) -> object | None:
    """Listen to the three buttons (devices package) in a thread that turns them into loop commands.

    `commands` is the loop's queue, `stop` a threading.Event; returns the Buttons (to close) or None when
    there are no buttons here (not a Pi, no gpiozero pin factory), which is logged, never fatal.
    """
    import threading

    try:
        from tantrix_pi.devices.buttons import Buttons
        from tantrix_pi.devices.menu import Menu, Settings
        from tantrix_pi.devices.screen import DeviceError
    except ImportError:
        log.warning("the devices package is not installed: no buttons")
        return None
    try:
        buttons = Buttons({k: cfg.buttons[k] for k in ("next", "back", "menu")})
    except DeviceError as e:
        log.warning("%s: the referee runs without buttons", e)
        return None
    letters = cfg.player_letters
    rainbow = {"green": "G", "yellow": "Y", "white": "W", "blue": "B", "red": "R"}[cfg.mode["rainbow"]]
    menu = Menu(Settings(mode=cfg.mode["kind"], discovery=cfg.mode["discovery"], rainbow=rainbow,
                         players=len(letters), seats=tuple(letters + [c for c in "RYGB" if c not in letters]),
                         voice=cfg.voice["enabled"]))

    def listen() -> None:
        import queue

        while not stop.is_set():
            try:
                event = buttons.events.get(timeout=0.5)
            except queue.Empty:
                continue
            was_open = menu.is_open or menu.step is not None
            for cmd in menu.handle(event):
                if cmd.name in ("end_turn", "undo", "new_game"):
                    commands.put((cmd.name, setup_of_settings(cmd.settings) if cmd.settings else None))
            if menu.is_open or menu.step is not None:
                commands.put(("screen", menu.screen()))
            elif was_open:
                commands.put(("screen", None))

    threading.Thread(target=listen, name="buttons", daemon=True).start()
    return buttons
