"""Taking calibration views from the camera, through the live referee's frame sources (one camera code path):
picamera2 on the Pi (same size as the service, exposure and white balance locked), else OpenCV's device 0."""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Iterator

import numpy as np

from tantrix_pi.calibration.camera import min_corners
from tantrix_pi.calibration.charuco import BoardSpec, find
from tantrix_pi.devices.sources import CameraGone, FrameSource, OpenCVSource, Picamera2Source
from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _, ngettext

TIMEOUT_S = 180.0
MIN_MOVE = 0.08
"""A new view must move the board's centre by this share of the image width, or turn it, to count."""


class CameraError(TantrixError):
    """No camera to take views with."""


def camera_source() -> FrameSource:
    """The Pi camera when picamera2 is installed (the service's default size, so the lens model fits the
    frames the referee sees; AWB and exposure settled, then locked), else OpenCV's video device 0."""
    if importlib.util.find_spec("picamera2") is not None:
        return Picamera2Source()
    return OpenCVSource(0)


def frames(source: FrameSource | None = None) -> Iterator[np.ndarray]:
    """BGR frames from `source` (default: `camera_source()`), opened now and closed when the caller stops."""
    source = source if source is not None else camera_source()
    try:
        source.open()
    except CameraGone as e:
        raise CameraError(_("no camera ({error}): give photos instead of --live").format(error=e)) from None
    try:
        while True:
            try:
                yield source.read()
            except CameraGone as e:
                raise CameraError(_("the camera stopped delivering frames: {error}").format(error=e)) from None
    finally:
        source.close()


def capture(n: int, spec: BoardSpec, source: Iterator[np.ndarray] | None = None) -> list[tuple[str, np.ndarray]]:
    """N views in which the board is well seen and placed differently each time, with a progress bar."""
    if n < 1:
        raise CameraError(_("--live needs a number of views, e.g. --live 12"))
    source = source if source is not None else frames()
    need = min_corners(spec)
    taken: list[tuple[str, np.ndarray]] = []
    poses: list[np.ndarray] = []
    start = time.monotonic()
    _progress(0, n, _("show the board to the camera"))
    for frame in source:
        if time.monotonic() - start > TIMEOUT_S:
            raise CameraError(ngettext("only {taken} of {n} view in {seconds:.0f} s: is the board in view and lit?",
                                       "only {taken} of {n} views in {seconds:.0f} s: is the board in view and lit?",
                                       n).format(taken=len(taken), n=n, seconds=TIMEOUT_S))
        found = find(frame, spec)
        if len(found.ids) < need:
            continue
        pose = _pose_key(found.image_points, frame.shape[1])
        if any(np.linalg.norm(pose - p) < MIN_MOVE for p in poses):
            continue
        poses.append(pose)
        taken.append((f"live{len(taken) + 1}", frame))
        _progress(len(taken), n, _("move or tilt the board for the next view"))
        if len(taken) == n:
            break
    print(file=sys.stderr)
    return taken


def _pose_key(points: np.ndarray, width: int) -> np.ndarray:
    """Where the board is and how big it looks, in units of the image width."""
    centre = points.mean(axis=0) / width
    spread = points.std(axis=0) / width
    return np.concatenate([centre, spread])


def _progress(done: int, total: int, hint: str) -> None:
    bar = "#" * round(30 * done / total)
    views = ngettext("{done}/{total} view", "{done}/{total} views", total).format(done=done, total=total)
    print(f"\r[{bar:<30}] {views}  {hint}", end="", file=sys.stderr, flush=True)
