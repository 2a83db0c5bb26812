"""The web page's application: what its routes serve from (`Site`) and the routes put together.

Reading is open to anyone on the network; running the table needs pairing.

| module | routes |
|---|---|
| `pages.py` | `GET /` (the live page), `/replay`, `/calibrate` |
| `table.py` | `GET /api/state`, `/api/events` (Server-Sent Events), `/api/seen.jpg` |
| `games.py` | `GET /api/game`, `/api/games`, `/api/games/N`, `/api/games/N/steps[/I]`: records and replays |
| `photos.py` | `POST /api/check`, `/api/score`: a photo's verdict, as `tantrix-pi check` / `score --json` |
| `control.py` | `POST /api/pair`, `/api/control/ACTION`: pairing, then the table's controls (token needed) |
| `calibrate.py` | `GET /api/calibration[/preview.jpg]`, `POST /api/control/calibration/ACTION` |

Each route finds what it needs in `request.app.state`: `site`, `broadcaster`, `templates`, `photo_checks`.
Each request speaks the phone's language (`language.py`); pages and JSON are gzipped for browsers that take
it (the event stream compresses itself, message by message: `table.py`).
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from tantrix_pi.web import calibrate, control, games, pages, photos, table
from tantrix_pi.web.hub import Broadcaster, Hub
from tantrix_pi.web.language import Language
from tantrix_pi.web.pairing import Pairing
from tantrix_pi.web.state import PageState, delta


@dataclass
class Site:
    """What the routes serve from: the referee's hub, its database, its command queue, the pairing."""

    hub: Hub
    state_db: Path | None = None
    commands: queue.Queue | None = None
    """The live loop's command queue; None: nothing to control (the demo replays a recording)."""
    pairing: Pairing = field(default_factory=Pairing)
    detect: Callable | None = None
    """The detector for photo checks (the referee's, with its calibration)."""
    calibration: calibrate.Guide | None = None
    """The guided calibration, None when calibration cannot run here."""
    addresses: list[str] = field(default_factory=list)
    """The page's addresses on the network (`server.addresses`), the one to share last."""


def make_app(site: Site) -> Starlette:
    """The Starlette application serving `site`."""
    broadcaster = Broadcaster(site.hub, PageState(site.hub, site.state_db).build, delta)

    @asynccontextmanager
    async def lifespan(app):
        app.state.photo_checks = photos.slots()
        broadcaster.start()
        try:
            yield
        finally:
            broadcaster.stop()

    routes = [*pages.routes(site), *table.routes(site), *games.routes(), *photos.routes(), *control.routes(),
              *(calibrate.routes(site.calibration) if site.calibration is not None else []),
              Mount("/static", StaticFiles(directory=str(pages.WEB / "static")), name="static")]
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(GZipMiddleware, minimum_size=500), Middleware(Language)])
    app.state.site, app.state.broadcaster, app.state.templates = site, broadcaster, pages.templates()
    return app
