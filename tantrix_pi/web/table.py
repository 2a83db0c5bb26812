"""What the table shows now: the page's state, its live stream, and the last frame the detector read."""

from __future__ import annotations

import asyncio
import zlib

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tantrix_pi.i18n import _
from tantrix_pi.web.responses import busy, error, jpeg, picture

KEEP_ALIVE_S = 15.0
"""A comment on an idle stream this often keeps the connection open through proxies and phones' sleep."""


async def state(request: Request) -> Response:
    return JSONResponse(request.app.state.broadcaster.refresh())


async def events(request: Request) -> Response:
    broadcaster = request.app.state.broadcaster
    client = broadcaster.subscribe()
    if client is None:
        return busy(_("too many pages are following the table: try again later"))

    gzip = "gzip" in request.headers.get("accept-encoding", "")
    # one compressor per stream, flushed after each message: the browser reads every message as it comes
    packer = zlib.compressobj(6, zlib.DEFLATED, 31) if gzip else None

    def packed(message: bytes) -> bytes:
        return packer.compress(message) + packer.flush(zlib.Z_SYNC_FLUSH) if packer else message

    async def stream():
        try:
            while True:
                try:
                    message = await asyncio.wait_for(client.queue.get(), KEEP_ALIVE_S)
                except TimeoutError:
                    yield packed(b": keep-alive\n\n")
                    continue
                if message is None:  # fell behind and was dropped: the browser reconnects
                    if packer:
                        yield packer.flush()
                    return
                yield packed(message)
        finally:
            broadcaster.unsubscribe(client)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Vary": "Accept-Encoding"}
    if gzip:
        headers["Content-Encoding"] = "gzip"
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


CROP_MARGIN = 1.5
"""Tile widths of table kept around the tiles seen when the camera's picture is cut to the board."""


def board_crop(image: np.ndarray, detection) -> np.ndarray:
    """The part of the picture that holds what the detector saw (tiles and unread things), with a margin; the
    whole picture when it saw nothing."""
    points = [t.center_px for t in detection.tiles] + [u.center_px for u in detection.unreadable]
    if not points:
        return image
    h, w = image.shape[:2]
    margin = CROP_MARGIN * max(detection.tile_px, 20.0)
    xs, ys = [x for x, _ in points], [y for _, y in points]
    x0, x1 = (int(np.clip(v, 0, w)) for v in (min(xs) - margin, max(xs) + margin))
    y0, y1 = (int(np.clip(v, 0, h)) for v in (min(ys) - margin, max(ys) + margin))
    return image[y0:y1, x0:x1] if x1 - x0 > 1 and y1 - y0 > 1 else image


class SeenPicture:
    """The last frame the detector read with what it saw drawn on it, cut to the board, drawn once per frame
    read (and only when a page asks: the page asks while its "What the camera sees" is open)."""

    def __init__(self, hub) -> None:
        self.hub = hub
        self.number = 0
        self.data = b""

    async def answer(self, request: Request) -> Response:
        seen = self.hub.seen()
        if seen is None:
            return error(404, _("the camera has not seen a still table yet"))
        if seen.number != self.number:
            from tantrix_pi.vision import overlay

            self.data = await run_in_threadpool(
                lambda: jpeg(board_crop(overlay.draw(seen.frame, seen.detection), seen.detection)))
            self.number = seen.number
        return picture(self.data)


def routes(site) -> list[Route]:
    return [Route("/api/state", state), Route("/api/events", events),
            Route("/api/seen.jpg", SeenPicture(site.hub).answer)]
