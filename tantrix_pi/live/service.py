"""Building a live loop from the configuration: source, detector, store, sinks (shared by `run` and `demo`)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from tantrix_pi import i18n
from tantrix_pi.devices.sources import (
    FrameSource,
    OpenCVSource,
    Picamera2Source,
    folder_source,
    video_source,
)
from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _
from tantrix_pi.live.commands import UseSeats
from tantrix_pi.live.config import COLOUR_LETTER, ConfigError, ServiceConfig, from_dict
from tantrix_pi.live.hands import HandWatch, Zone, in_pixels
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import ConsoleSink, JsonLinesSink, LogSink, Sink
from tantrix_pi.tiles import COLOUR_NAMES

log = logging.getLogger("tantrix_pi.live")


class NotAvailable(TantrixError):
    """A part the service needs is not installed (the detector, a device library)."""


def make_source(cfg: ServiceConfig) -> FrameSource:
    """The frame source the [camera] section names."""
    cam = cfg.camera
    if cam.source == "picamera2":
        return Picamera2Source(cam.size, cam.settle_s, mains_hz=cam.mains_hz)
    if cam.source == "opencv":
        return OpenCVSource(cam.device, cam.size)
    if cam.source == "folder":
        from tantrix_pi.vision import photo

        return folder_source(cam.path, cam.fps, read=photo.load)
    return video_source(cam.path, cam.fps)


def make_detector(profile_path: str = "", follow: str | Path | None = None, zones: Mapping[str, Zone] | None = None):
    """vision.detect bound to the calibration profile (none: the detector's defaults) and the seats' hand zones.

    With `follow`, the profile at that path is read again whenever the file changes (a calibration from
    the buttons' menu takes effect on the next frame); it may not exist yet.
    """
    try:
        from tantrix_pi.vision import detect
    except ImportError:
        raise NotAvailable(_("the detector (vision.detect) is not installed in this build")) from None
    path = Path(profile_path) if profile_path else None
    if path is not None or follow is not None:
        try:
            from tantrix_pi.calibration.profile import Profile
        except ImportError:
            raise NotAvailable(_("calibration is not installed in this build: leave paths.profile empty")) from None
    loaded = {"stamp": None, "profile": Profile.load(path) if path is not None else None}
    followed = Path(follow) if follow is not None else None

    def run(image, on_board: Collection[int] = (), lying: Sequence[tuple[float, float]] = ()):
        if followed is not None:
            try:
                stamp = followed.stat().st_mtime_ns
            except OSError:
                stamp = None
            if stamp is not None and stamp != loaded["stamp"]:
                loaded["stamp"] = stamp
                try:
                    loaded["profile"] = Profile.load(followed)
                    log.info("calibration profile %s loaded", followed)
                except TantrixError as e:  # a damaged profile must not stop the referee: keep the last one
                    log.error("%s; the detector keeps its previous calibration", e)
        if not zones:
            return detect(image, profile=loaded["profile"], on_board=on_board, lying=lying)
        size = (image.shape[1], image.shape[0])
        return detect(image, profile=loaded["profile"], zones=[in_pixels(z, size) for z in zones.values()],
                      on_board=on_board, lying=lying)

    return run


def hand_watch(cfg: ServiceConfig) -> HandWatch | None:
    """The watch over the playing seats' hand zones in a game ([seats]), None without them."""
    zones = {c: z for c, z in cfg.seats.zones.items() if c in cfg.mode.player_letters}
    return HandWatch(zones, cfg.gate.stable_frames) if zones and cfg.mode.kind == "game" else None


def reseat(cfg: ServiceConfig, section: dict, players: list[str], profile_path: Path) -> UseSeats:
    """The command that takes new hand zones into use in the running referee (`section`: [seats] as
    `commands.seats.section_of` gives it) for a game of `players` (colour letters): the hand watch and the
    detector as `run` makes them from a config with these seats."""
    seated = replace(cfg, seats=from_dict({"seats": section}).seats,
                     mode=replace(cfg.mode, kind="game", players=tuple(COLOUR_NAMES[p].lower() for p in players)))
    hands = hand_watch(seated)
    return UseSeats(hands, make_detector(cfg.paths.profile, follow=profile_path, zones=hands.zones if hands else None))


def setup_of(cfg: ServiceConfig) -> Setup:
    """The game or puzzle the [mode] section describes."""
    kind = cfg.mode.kind
    if kind == "game":
        return Setup("game", cfg.mode.player_letters)
    return Setup(kind, [], cfg.mode.puzzle_spec)


def device_sinks(cfg: ServiceConfig) -> list[Sink]:
    """Display and voice sinks from the devices package, when it is installed and configured.

    The voice sink is there whenever the devices package is, silent until enabled (the menu may switch it on).
    """
    try:
        from tantrix_pi.live.sinks import DisplaySink, VoiceSink
    except ImportError:
        log.warning("the devices package is not installed: no display, no voice")
        return []
    out: list[Sink] = []
    d = cfg.display
    if d.kind != "none":
        # a screen that cannot be opened must not stop the referee: its frames go to PNGs instead
        sink = DisplaySink.open(d.kind, d.dir or str(cfg.state_dir / "display"), d.options)
        sink.display.page_seconds = d.page_seconds
        out.append(sink)
    v = cfg.voice
    out.append(VoiceSink.open(v.language, v.enabled, v.words_per_minute))
    return out


def standard_sinks(cfg: ServiceConfig, console: bool = True, fresh: bool = False) -> list[Sink]:
    """Console (or log), the JSON-lines stream and the devices; `fresh`: the state database is new (see
    JsonLinesSink's `afresh`)."""
    return [ConsoleSink() if console else LogSink(), events_sink(cfg, fresh), *device_sinks(cfg)]


def events_sink(cfg: ServiceConfig, fresh: bool = False) -> JsonLinesSink:
    """The JSON-lines stream at paths.events; ConfigError (one line) when that cannot be a file we append to."""
    path = cfg.events_path
    if path.is_dir():
        raise ConfigError(_("paths.events: {path} is a folder; name a file for the event stream, such as {file}")
                          .format(path=path, file=path / "events.jsonl"))
    try:
        return JsonLinesSink(path, afresh=fresh)
    except OSError as e:
        raise ConfigError(_("paths.events: cannot write the event stream {path} ({error})").format(
            path=path, error=e.strerror)) from None


def menu_of(cfg: ServiceConfig):
    """The devices Menu, starting from the configured mode, players and voice."""
    from tantrix_pi.devices.menu import Menu, Settings

    letters = cfg.mode.player_letters
    return Menu(Settings(mode=cfg.mode.kind, discovery=cfg.mode.discovery,
                         rainbow=COLOUR_LETTER[cfg.mode.rainbow],
                         players=len(letters), seats=tuple(letters + [c for c in "RYGB" if c not in letters]),
                         voice=cfg.voice.enabled, language=i18n.language()))


def start_buttons(cfg: ServiceConfig, loop, pin_factory=None) -> object | None:
    """The three buttons (devices package) feeding `loop.buttons`, and the menu they drive as `loop.menu`.

    The buttons' callbacks only queue events; the loop runs them through the menu between frames. Returns
    the Buttons (to close) or None when there are no buttons here (not a Pi, no gpiozero pin factory),
    which is logged, never fatal.
    """
    try:
        from tantrix_pi.devices.buttons import Buttons
        from tantrix_pi.devices.errors import DeviceError
    except ImportError:
        log.warning("the devices package is not installed: no buttons")
        return None
    try:
        buttons = Buttons(cfg.buttons.pins, hold_seconds=cfg.buttons.hold_s, events=loop.buttons,
                          pin_factory=pin_factory)
    except DeviceError as e:
        log.warning("%s: the referee runs without buttons", e)
        return None
    loop.menu = menu_of(cfg)
    return buttons

