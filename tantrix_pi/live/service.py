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

        out.append(DisplaySink.open(cfg.display["kind"], cfg.display["dir"]))
    if cfg.voice["enabled"]:
        from tantrix_pi.live.sinks import VoiceSink

        out.append(VoiceSink.open(cfg.voice["language"]))
    return out


def standard_sinks(cfg: Config, console: bool = True) -> list[Sink]:
    """Console (or log), the JSON-lines stream and the devices."""
    return [ConsoleSink() if console else LogSink(), JsonLinesSink(cfg.events_path), *device_sinks(cfg)]
