"""The camera watch: a frame source kept delivering, and what it does said once."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tantrix_pi.devices.sources import CameraGone, FrameSource
from tantrix_pi.i18n import _
from tantrix_pi.live.sdnotify import Notifier
from tantrix_pi.live.store import Notice

log = logging.getLogger("tantrix_pi.live")

SLICE_S = 0.1
"""How long a back-off sleeps before it looks again whether the service is stopping."""


@dataclass(frozen=True)
class Sight:
    """What one read of the camera gave."""

    frame: np.ndarray | None = None
    """The frame; None: none (the camera is lost: `back_off()` before trying again)."""
    said: list[Notice] = field(default_factory=list)
    """What to announce: that the camera is lost (once per loss), or back (with the first frame after)."""
    stalled: bool = False
    """No frame came for longer than `stall_s`: the table may have changed unseen (it counts as motion)."""


class CameraWatch:
    """A frame source, watched: opened when needed; a loss said once, and the source tried again after 1, 2,
    4 ... up to `retry_max_s` seconds (from `retry_s`); the return said with the first frame that comes (a
    source that opens but gives nothing is still lost); a gap between frames longer than `stall_s` counts
    as motion. The notifier's status line says when the camera is lost.

        camera = CameraWatch(Picamera2Source())
        said = camera.open() if not camera.up else []  # camera.up: it opened
        sight = camera.read()  # EndOfRecording when a replayed recording has ended
        if sight.frame is None:
            camera.back_off()
    """

    def __init__(self, source: FrameSource, notifier: Notifier | None = None, *, retry_s: float = 1.0,
                 retry_max_s: float = 8.0, stall_s: float = 2.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.source = source
        self.notifier = notifier or Notifier(address="")
        self.retry_s, self.retry_max_s, self.stall_s = retry_s, retry_max_s, stall_s
        self.clock, self.sleep = clock, sleep
        self.up = False
        """Open."""
        self.lost = False
        """Lost and said so: "Camera is back." comes with the next frame read."""
        self.ever_up = False
        """Opened once (a later loss is "Camera lost", not "No camera")."""
        self.wait = retry_s
        """The back-off before the next try."""
        self.last_frame_at: float | None = None
        self.stopped = False

    def open(self) -> list[Notice]:
        """Open the source (`up` says whether it did); what to announce."""
        try:
            self.source.open()
        except CameraGone as e:
            return self._lost(e)
        self.up = self.ever_up = True
        return []

    def read(self) -> Sight:
        """The next frame, or what became of the camera; EndOfRecording passes through."""
        try:
            frame = self.source.read()
            if frame is None or not getattr(frame, "size", 0):
                raise CameraGone(_("the camera returned no image"))
        except CameraGone as e:
            return Sight(said=self._lost(e))
        said = []
        if self.lost:  # back only once a frame has come, not when a device merely opens
            self.lost = False
            said.append(Notice("camera", _("Camera is back."), {"up": True}))
        now = self.clock()
        stalled = self.last_frame_at is not None and now - self.last_frame_at > self.stall_s
        if stalled:
            log.warning("no frame for %.1f s: treating the table as changed", now - self.last_frame_at)
        self.last_frame_at = now
        return Sight(frame, said, stalled)

    def back_off(self) -> None:
        """Wait before trying a lost camera again, in slices of SLICE_S, so that `stop()` ends the wait."""
        until = self.clock() + self.wait
        while not self.stopped and (left := until - self.clock()) > 0:
            self.sleep(min(left, SLICE_S))

    def stop(self) -> None:
        """End a back-off now (a signal handler may call it): systemd's stop never waits out the camera's."""
        self.stopped = True

    def _lost(self, e: Exception) -> list[Notice]:
        """Said once per loss; each attempt that fails again waits twice as long, up to `retry_max_s`."""
        said = []
        if not self.lost:
            self.lost = True
            self.wait = self.retry_s
            text = _("Camera lost: {error}. Retrying.") if self.ever_up else _("No camera: {error}. Retrying.")
            said.append(Notice("camera", text.format(error=e), {"up": False}))
            self.notifier.status(f"camera lost: {e}")
        else:
            self.wait = min(self.retry_max_s, 2 * self.wait)
        if self.up:
            try:
                self.source.close()
            except Exception:  # the device is already gone; closing it can fail too
                log.debug("closing a lost camera failed", exc_info=True)
        self.up = False
        return said

    def close(self) -> None:
        """Close the source if it is open."""
        if self.up:
            self.source.close()
            self.up = False
