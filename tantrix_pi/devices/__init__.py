"""The appliance's edges: camera frame sources, display, buttons, voice; each a small interface with a fake for tests.

Real back-ends (picamera2, luma, gpiozero pins, espeak-ng) are imported only when they are opened.
"""

from __future__ import annotations


class Closeable:
    """A device that lets go of what it holds on `close()`, and at the end of a `with` block (as gpiozero's do)."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *_) -> None:
        self.close()
