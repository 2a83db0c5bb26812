"""Where frames come from: the Pi camera, an OpenCV capture, or a recording replayed at a given rate.

Every source yields BGR uint8 arrays (OpenCV's order) through `read()`; a camera that is gone raises
`CameraGone`, which the live loop reports and retries.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _, listing

log = logging.getLogger("tantrix_pi.live")

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")

SENSOR_SIZES = {"imx477": (2028, 1520), "imx219": (1640, 1232), "imx708": (1640, 1232)}
"""Default capture size per sensor: HQ camera (imx477), Camera Module 2 (imx219) and 3 (imx708)."""


class CameraGone(TantrixError):
    """The camera cannot deliver frames (unplugged, busy, or the stream ended with an error)."""


class EndOfRecording(Exception):
    """A replayed recording has no more frames (not an error: the loop stops)."""


class FrameSource:
    """One small interface for every frame source: open(), read() -> BGR array, close()."""

    name = "source"

    def open(self) -> None:
        """Start delivering frames; raise CameraGone when that is impossible."""

    def read(self) -> np.ndarray:
        """The next frame (BGR uint8); CameraGone when none came, EndOfRecording after the last one."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the device."""

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *_) -> None:
        self.close()


class Pacer:
    """Sleeps so that successive frames come out at `fps` (0: as fast as they can be made)."""

    def __init__(self, fps: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.clock, self.sleep = clock, sleep
        self.next = None

    def wait(self) -> None:
        if not self.period:
            return
        now = self.clock()
        if self.next is not None and self.next > now:
            self.sleep(self.next - now)
            now = self.next
        self.next = now + self.period


def flicker_free(exposure_us: float, gain: float, mains_hz: float) -> tuple[int, float]:
    """An exposure time and analogue gain giving the same light as (`exposure_us`, `gain`) with the exposure a
    whole number of the light's flicker periods (half the mains period: 10 ms at 50 Hz), so that lamps on the
    mains make no bands; the gain takes up the difference. Unchanged when `mains_hz` is 0, or when even one
    period at the lowest gain (1) would let in more light than auto exposure chose (a very bright table)."""
    if not mains_hz:
        return round(exposure_us), gain
    period = 1e6 / (2 * mains_hz)
    light = exposure_us * gain
    periods = max(1, round(exposure_us / period))
    while periods > 1 and light / (periods * period) < 1.0:
        periods -= 1
    if light / (periods * period) < 1.0:
        return round(exposure_us), gain
    return round(periods * period), light / (periods * period)


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported only here), exposure and white balance locked.

    Auto exposure and white balance run for `settle_s`; their settled values are then fixed
    (AeEnable/AwbEnable off) so that colours do not drift while a hand passes over the table, the exposure
    rounded to whole flicker periods of lamps on `mains_hz` mains (`flicker_free`).
    """

    name = "picamera2"

    def __init__(self, size: tuple[int, int] | None = None, settle_s: float = 2.0, camera_num: int = 0,
                 mains_hz: float = 50.0) -> None:
        self.size, self.settle_s, self.camera_num, self.mains_hz = size, settle_s, camera_num, mains_hz
        self.cam = None
        self.locked: dict = {}

    def open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CameraGone(_("picamera2 is not installed: on Raspberry Pi OS run 'sudo apt install "
                               "python3-picamera2' and make the venv with --system-site-packages")) from None
        try:
            cam = Picamera2(self.camera_num)
            model = str(cam.camera_properties.get("Model", "")).lower()
            size = self.size or SENSOR_SIZES.get(model, (1640, 1232))
            # picamera2's "RGB888" stores pixels as B, G, R: exactly OpenCV's order.
            cam.configure(cam.create_video_configuration(main={"size": tuple(size), "format": "RGB888"}))
            cam.start()
            time.sleep(self.settle_s)
            md = cam.capture_metadata()
            self.locked = {"AeEnable": False, "AwbEnable": False}
            if "ColourGains" in md:
                self.locked["ColourGains"] = md["ColourGains"]
            if "ExposureTime" in md and "AnalogueGain" in md:
                self.locked["ExposureTime"], self.locked["AnalogueGain"] = flicker_free(
                    md["ExposureTime"], md["AnalogueGain"], self.mains_hz)
            cam.set_controls(self.locked)
        except Exception as e:  # libcamera raises RuntimeError, IndexError (no camera), OSError ...
            raise CameraGone(_("Pi camera {number}: {error}").format(number=self.camera_num, error=e)) from None
        self.cam = cam

    def read(self) -> np.ndarray:
        if self.cam is None:
            raise CameraGone(_("Pi camera is not open"))
        try:
            return self.cam.capture_array("main")
        except Exception as e:
            raise CameraGone(_("Pi camera {number}: {error}").format(number=self.camera_num, error=e)) from None

    def close(self) -> None:
        if self.cam is not None:
            try:
                self.cam.stop()
                self.cam.close()
            finally:
                self.cam = None


class OpenCVSource(FrameSource):
    """A USB webcam (an index) or a stream URL through cv2.VideoCapture."""

    name = "opencv"

    def __init__(self, device: int | str, size: tuple[int, int] | None = None) -> None:
        self.device, self.size = device, size
        self.cap = None

    def open(self) -> None:
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            raise CameraGone(_("camera {device!r} cannot be opened").format(device=self.device))
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self.cap = cap

    def read(self) -> np.ndarray:
        if self.cap is None:
            raise CameraGone(_("camera {device!r} is not open").format(device=self.device))
        ok, frame = self.cap.read()
        if not ok or frame is None:
            raise CameraGone(_("camera {device!r} returned no frame").format(device=self.device))
        return frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


class ReplaySource(FrameSource):
    """Frames from any iterable of arrays (a recording made on the fly), paced at `fps`."""

    name = "replay"

    def __init__(self, frames: Callable[[], Iterator[np.ndarray]], fps: float = 0.0) -> None:
        self.make, self.fps = frames, fps
        self.it: Iterator[np.ndarray] | None = None
        self.pacer = Pacer(fps)

    def open(self) -> None:
        self.it = iter(self.make())
        self.pacer = Pacer(self.fps)

    def read(self) -> np.ndarray:
        if self.it is None:
            self.open()
        self.pacer.wait()
        try:
            return next(self.it)
        except StopIteration:
            raise EndOfRecording() from None


def folder_source(folder: str | Path, fps: float = 0.0, *, read: Callable[[Path], np.ndarray]) -> ReplaySource:
    """The images of a folder, in name order, replayed at `fps`.

    `read` opens one file: the command line's guarded photo reader (`vision.photo.load`), which refuses with
    a TantrixError what is not a whole photo (truncated, corrupt, or a few kB claiming 20000x20000 pixels)
    before decoding it. Such a file is skipped with a warning, never used as a frame.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise CameraGone(_("{folder}: no such folder of frames").format(folder=folder))
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise CameraGone(_("{folder}: holds no images ({suffixes})").format(folder=folder,
                                                                           suffixes=listing(IMAGE_SUFFIXES)))

    def frames() -> Iterator[np.ndarray]:
        for p in files:
            try:
                img = read(p)
            except TantrixError as e:  # skipped, not CameraGone: reopening would replay the folder from its start
                log.warning("%s; frame skipped", e)
                continue
            yield img

    return ReplaySource(frames, fps)


class VideoSource(FrameSource):
    """A video file replayed at `fps` (0: as fast as it decodes), through OpenCV."""

    name = "video"

    def __init__(self, path: str | Path, fps: float = 0.0) -> None:
        self.path, self.fps = Path(path), fps
        if not self.path.is_file():
            raise CameraGone(_("{path}: no such video file").format(path=self.path))
        self.cap = None
        self.pacer = Pacer(fps)
        self.read_any = False

    def open(self) -> None:
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise CameraGone(_("{path}: cannot be decoded as a video").format(path=self.path))
        self.cap, self.pacer, self.read_any = cap, Pacer(self.fps), False

    def read(self) -> np.ndarray:
        if self.cap is None:
            raise CameraGone(_("{path}: the video is not open").format(path=self.path))
        self.pacer.wait()
        ok, frame = self.cap.read()
        if not ok:
            if not self.read_any:
                raise CameraGone(_("{path}: not one frame of it can be decoded").format(path=self.path))
            raise EndOfRecording()
        self.read_any = True
        return frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


def video_source(path: str | Path, fps: float = 0.0) -> VideoSource:
    """The frames of a video file replayed at `fps` (0: as fast as they decode)."""
    return VideoSource(path, fps)


def sequence_source(frames: Sequence[np.ndarray], fps: float = 0.0) -> ReplaySource:
    """Frames already in memory (tests, benches)."""
    return ReplaySource(lambda: iter(frames), fps)
