"""What the table shows now: the page's state, its live stream, and the last frame the detector read."""

from __future__ import annotations

import asyncio

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

    async def stream():
        try:
            while True:
                try:
                    message = await asyncio.wait_for(client.queue.get(), KEEP_ALIVE_S)
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                if message is None:  # fell behind and was dropped: the browser reconnects
                    return
                yield message
        finally:
            broadcaster.unsubscribe(client)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


class SeenPicture:
    """The last frame the detector read with what it saw drawn on it, drawn once per frame read."""

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

            self.data = await run_in_threadpool(lambda: jpeg(overlay.draw(seen.frame, seen.detection)))
            self.number = seen.number
        return picture(self.data)


def routes(site) -> list[Route]:
    return [Route("/api/state", state), Route("/api/events", events),
            Route("/api/seen.jpg", SeenPicture(site.hub).answer)]
