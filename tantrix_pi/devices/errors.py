"""The error every device edge raises (display, buttons, voice), as gpiozero keeps its own in `exc`."""

from __future__ import annotations

from tantrix_pi.errors import TantrixError


class DeviceError(TantrixError):
    """A device that cannot be opened or a device setting that is wrong; one line saying which."""
