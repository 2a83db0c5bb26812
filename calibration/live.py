"""Taking calibration views from the camera: picamera2 on the Pi, else the first OpenCV video device."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import numpy as np

from calibration.camera import min_corners
from calibration.charuco import BoardSpec, find
from tantrix_pi.errors import TantrixError

TIMEOUT_S = 180.0
MIN_MOVE = 0.08
"""A new view must move the board's centre by this share of the image width, or turn it, to count."""


class CameraError(TantrixError):
    """No camera to take views with."""


def frames() -> Iterator[np.ndarray]:
    """BGR frames from the Pi camera (picamera2, imported only now) or else from OpenCV's device 0."""
    try:
        from picamera2 import Picamera2
    except ImportError:
        Picamera2 = None
    if Picamera2 is not None:
        cam = Picamera2()
        # picamera2's "RGB888" is stored B, G, R per pixel: OpenCV's order as it comes.
        cam.configure(cam.create_still_configuration(main={"format": "RGB888"}))
        cam.start()
        time.sleep(1.0)  # let exposure and white balance settle before the first frame
        try:
            while True:
                yield cam.capture_array()
        finally:
            cam.stop()
    import cv2

    cap = cv2.VideoCapture(0)
    if not cap.isOpened():
        raise CameraError("no camera found (neither picamera2 nor a video device): give photos instead of --live")
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                raise CameraError("the camera stopped delivering frames")
            yield frame
    finally:
        cap.release()


def capture(n: int, spec: BoardSpec, source: Iterator[np.ndarray] | None = None) -> list[tuple[str, np.ndarray]]:
    """N views in which the board is well seen and placed differently each time, with a progress bar."""
    if n < 1:
        raise CameraError("--live needs a number of views, e.g. --live 12")
    source = source if source is not None else frames()
    need = min_corners(spec)
    taken: list[tuple[str, np.ndarray]] = []
    poses: list[np.ndarray] = []
    start = time.monotonic()
    _progress(0, n, "show the board to the camera")
    for frame in source:
        if time.monotonic() - start > TIMEOUT_S:
            raise CameraError(f"only {len(taken)} of {n} views in {TIMEOUT_S:.0f} s: is the board in view and lit?")
        found = find(frame, spec)
        if len(found.ids) < need:
            continue
        pose = _pose_key(found.image_points, frame.shape[1])
        if any(np.linalg.norm(pose - p) < MIN_MOVE for p in poses):
            continue
        poses.append(pose)
        taken.append((f"live{len(taken) + 1}", frame))
        _progress(len(taken), n, "move or tilt the board for the next view")
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
    print(f"\r[{bar:<30}] {done}/{total} views  {hint}", end="", file=sys.stderr, flush=True)
