"""The buttons' menu calibration, run by the live loop on its own camera frames: table clear, table plane
from the calibration sheet, tile colours; each step saved into the calibration profile at once."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _, colour_name, ngettext, pgettext


class MenuCalibration:
    """`calibrate(step, frame) -> (ok, note)` for the menu's CALIBRATION_STEPS, saving to `profile_path`.

    `detect` (the live detector) checks that the table is clear in step 0; the sheet is the default
    ChArUco board of `tantrix-pi calibrate board` unless `spec` says otherwise.
    """

    def __init__(self, profile_path: str | Path, detect=None, spec=None) -> None:
        from tantrix_pi.calibration.charuco import BoardSpec

        self.path = Path(profile_path)
        self.detect = detect
        self.spec = spec or BoardSpec()

    def __call__(self, step: int, frame: np.ndarray) -> tuple[bool, str]:
        """Run one step on one frame; a step that cannot be done says why in one line (ok False)."""
        try:
            return (self._clear, self._table, self._colour)[step](frame)
        except TantrixError as e:
            return False, str(e)

    def _clear(self, frame: np.ndarray) -> tuple[bool, str]:
        if self.detect is not None:
            seen = self.detect(frame)
            n = len(seen.tiles) + len(seen.unreadable)
            if n:
                return False, ngettext("{n} tile still on the table", "{n} tiles still on the table", n).format(n=n)
        return True, _("table clear")

    def _table(self, frame: np.ndarray) -> tuple[bool, str]:
        from tantrix_pi.calibration import table
        from tantrix_pi.calibration.profile import Profile

        profile = Profile.load_or_new(self.path)
        plane = table.measure(frame, self.spec, profile.camera)
        profile.with_section(table=plane).save(self.path)
        x0, y0, x1, y1 = plane.view_mm
        return True, _("table seen: {width:.0f} x {height:.0f} mm").format(width=x1 - x0, height=y1 - y0)

    def _colour(self, frame: np.ndarray) -> tuple[bool, str]:
        from tantrix_pi.calibration import colour
        from tantrix_pi.calibration.profile import Profile

        profile = Profile.load_or_new(self.path)
        model, separation = colour.learn(frame)
        if separation.margin <= 0:
            a, b = (pgettext("colour", "black") if c == "black" else colour_name(c) for c in separation.pair)
            return False, _("{colour} and {other} look alike: better light, fewer reflections").format(colour=a,
                                                                                                     other=b)
        profile.with_section(colour=model).save(self.path)
        return True, _("Calibration saved")
