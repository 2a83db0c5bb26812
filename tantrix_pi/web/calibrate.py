"""Guided calibration on the web page: the camera's live picture with the ChArUco corners drawn as they are
found, the views taken so far on a map (where the board was, how it leaned), and a warning while they are
too alike to pin the lens down; then the table plane and the tile colours, each saved to the profile; and the
seats: each player's hand zone found in the picture of the hands laid out (as `calibrate hands`), written to the
config and taken into use by the running referee.

While it runs the referee judges no move (the table shows the sheet, not a game); the detector takes the
profile's new sections from the next frame, as after the buttons' menu calibration.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _
from tantrix_pi.live.commands import Calibrating
from tantrix_pi.live.hands import SIDES, zones_from
from tantrix_pi.web.control import refused
from tantrix_pi.web.responses import NotJSON, error, jpeg, json_body, picture


class GuideError(TantrixError):
    """A calibration step that cannot be done now (answered 400 or 409 with this line)."""


CORNER_BGR = (0, 220, 0)


class Guide:
    """The guided calibration's state: the lens views taken so far (thread-safe)."""

    def __init__(self, hub, profile_path: str | Path, detect=None, spec=None,
                 seat: Callable[[dict, list[str]], str] | None = None) -> None:
        """`seat(zones, players)`: takes the hand zones found into use and says where they were kept (None: the
        seats cannot be set here)."""
        from tantrix_pi.calibration.charuco import BoardSpec

        self.hub, self.path, self.detect, self.seat = hub, Path(profile_path), detect, seat
        self.spec = spec or BoardSpec()
        self.views: list = []
        self.size: tuple[int, int] | None = None
        self.active = False
        self.note = ""
        self._lock = threading.Lock()
        self._preview: tuple[int, bytes] | None = None
        """(the hub's frame number, the preview drawn on that frame)."""

    def _frame(self) -> np.ndarray:
        return self._numbered()[1]

    def _numbered(self) -> tuple[int, np.ndarray]:
        latest = self.hub.latest()
        if latest is None:
            raise GuideError(_("no picture from the camera yet"))
        return latest

    # -- what the page shows ---------------------------------------------------------------------------
    def preview(self) -> bytes:
        """The latest frame with the board's corners drawn where they are found (JPEG)."""
        from tantrix_pi.calibration.charuco import find

        number, frame = self._numbered()
        if self._preview is not None and self._preview[0] == number:
            return self._preview[1]
        found = find(frame, self.spec)
        img = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame.copy()
        r = max(3, frame.shape[1] // 300)
        for x, y in found.image_points:
            cv2.circle(img, (int(round(x)), int(round(y))), r, CORNER_BGR, -1, cv2.LINE_AA)
        data = jpeg(img)
        self._preview = (number, data)
        return data

    def status(self) -> dict:
        """The views taken, their poses, and whether they can pin the lens down."""
        from tantrix_pi.calibration.camera import MIN_VIEWS, TILT_MIN_DEG, _solve, coverage

        with self._lock:
            views, size = list(self.views), self.size
        out = {"active": self.active, "views": len(views), "min_views": MIN_VIEWS, "tilt_min_deg": TILT_MIN_DEG,
               "size": list(size) if size else None, "poses": [], "warning": None, "ready": False, "note": self.note}
        if not views:
            return out
        matrix = dist = None
        if len(views) >= MIN_VIEWS:  # a provisional lens measures the tilts better than a nominal one
            try:
                solved = _solve(views, size, cv2.CALIB_FIX_K3)
                matrix, dist = solved.matrix, solved.dist
            except TantrixError:
                pass
        c = coverage(views, size, matrix, dist)
        out["poses"] = [{"name": p.name, "centre": list(p.centre), "tilt_deg": p.tilt_deg, "towards_deg": p.towards_deg}
                        for p in c.poses]
        if c.needed:
            out["warning"] = c.describe()
        out["ready"] = not c.needed and len(views) >= MIN_VIEWS
        out["tilted"], out["needed"] = c.tilted, c.needed
        return out

    # -- the steps -------------------------------------------------------------------------------------
    def take(self) -> None:
        """Keep the latest frame as a lens view when the board is well seen in it."""
        from tantrix_pi.calibration.camera import collect

        frame = self._frame()
        with self._lock:
            name = f"view{len(self.views) + 1}"
        found, rejected, size = collect([(name, frame)], self.spec)
        if rejected:
            raise GuideError(_("not taken: {reason}").format(reason=rejected[0].reason))
        with self._lock:
            if self.size is not None and size != self.size:
                raise GuideError(_("not taken: the camera's picture changed size ({width}x{height}); forget the "
                                   "views and start again").format(width=size[0], height=size[1]))
            self.size = size
            self.views.extend(found)

    def forget(self) -> None:
        with self._lock:
            self.views, self.size = [], None

    def save_lens(self) -> str:
        """Calibrate the lens from the views and save it; refused (one line) when they cannot constrain it."""
        from tantrix_pi.calibration import camera
        from tantrix_pi.calibration.profile import Profile

        with self._lock:
            views, size = list(self.views), self.size
        if size is None:
            raise GuideError(_("take views of the board first"))
        result = camera.calibrate(views, size)
        Profile.load_or_new(self.path).with_section(camera=result.model()).save(self.path)
        return _("lens saved: {views} views, RMS {rms:.2f} px, fx {fx:.0f}").format(
            views=len(result.views), rms=result.rms, fx=result.matrix[0, 0])

    def table_or_colour(self, step: int) -> str:
        """The table plane (1) or the tile colours (2) from the latest frame, saved to the profile."""
        from tantrix_pi.live.calibrating import MenuCalibration

        ok, note = MenuCalibration(self.path, self.detect, self.spec)(step, self._frame())
        if not ok:
            raise GuideError(note)
        return note

    def seats(self, first: str) -> str:
        """The hand zones of the game's players (seated clockwise from the `first` side of the picture) from the
        latest frame, taken into use; SeatsError (one line) when the hands are not laid out apart."""
        if self.seat is None:
            raise GuideError(_("the seats are set on the running referee only (tantrix-pi run)"))
        view = self.hub.snapshot().view
        if view is None or view.mode != "game":
            raise GuideError(_("the hand zones are a game's: start a game with its players first"))
        frame = self._frame()
        zones = zones_from(self.detect(frame), list(view.players), (frame.shape[1], frame.shape[0]), first)
        return self.seat(zones, list(view.players))


def routes(guide: Guide) -> list[Route]:
    """The guided calibration's API (its page is in `pages`)."""

    async def status(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(guide.status))

    async def preview(request: Request) -> Response:
        try:
            data = await run_in_threadpool(guide.preview)
        except GuideError as e:
            return error(404, str(e))
        return picture(data)

    async def act(request: Request) -> Response:
        no = refused(request)
        if no is not None:
            return no
        action = request.path_params["action"]
        if action in ("start", "stop"):
            guide.active = action == "start"
            request.app.state.site.commands.put(Calibrating(guide.active))
            guide.note = ""
            return JSONResponse(await run_in_threadpool(guide.status), status_code=202)
        try:
            body = await json_body(request, {})
        except NotJSON as e:
            return error(400, str(e))
        first = body.get("first", "bottom") if isinstance(body, dict) else None
        if first not in SIDES:
            return error(400, _("first: one of {sides}").format(sides=", ".join(SIDES)))
        work = {"take": guide.take, "forget": guide.forget, "save-lens": guide.save_lens,
                "table": lambda: guide.table_or_colour(1), "colour": lambda: guide.table_or_colour(2),
                "seats": lambda: guide.seats(first)}.get(action)
        if work is None:
            return error(404, _("unknown calibration step {action!r}").format(action=action))
        if not guide.active:
            return error(409, _("start the calibration first: the referee pauses while the table shows the sheet"))
        try:
            guide.note = await run_in_threadpool(work) or ""
        except TantrixError as e:  # GuideError, CalibrationError, the table's and colours' refusals: one line
            return error(400, str(e))
        return JSONResponse(await run_in_threadpool(guide.status))

    return [Route("/api/calibration", status),
            Route("/api/calibration/preview.jpg", preview),
            Route("/api/control/calibration/{action}", act, methods=["POST"])]
