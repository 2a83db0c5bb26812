"""The club's page (Starlette, as the table's page): every table's card, the standings, each finished game's record.

| route | what |
|---|---|
| `GET /` | the page: a card per table (`data-table="NAME"`, its board as the table page draws it), the standings |
| `GET /api/club` | the same as JSON: whether the club is connected to its broker, each table's card, the standings |
| `GET /api/events` | Server-Sent Events: every card, the standings and the link now, then each one that changed |
| `GET /api/tables/NAME/games/N` | a finished game's record (tantrix-game/1), to download |
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from contextlib import asynccontextmanager
from importlib import resources
from urllib.parse import quote

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from tantrix_pi import i18n
from tantrix_pi.club.page import Cards, standings_rows
from tantrix_pi.club.tables import Club
from tantrix_pi.i18n import _

log = logging.getLogger("tantrix_pi.club")

CLUB = resources.files("tantrix_pi.club")
CLIENT_QUEUE = 256
"""Messages a page may fall behind by before it is dropped (its browser reconnects and is sent everything)."""
RECHECK_S = 1.0
"""How often the cards are looked at again without a message (a table that went quiet turns offline)."""
KEEP_ALIVE_S = 15.0


def sse(kind: str, data: dict) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class Pages:
    """Sends what changed to every page on /api/events, from the server's event loop (paho's thread only pokes it)."""

    def __init__(self, club: Club, render) -> None:
        """`render(template, **context) -> str`: one of the page's parts as HTML."""
        self.club, self.render = club, render
        self.cards = Cards(club)
        self.clients: set[asyncio.Queue] = set()
        self._sent: dict[str, tuple[int, bool]] = {}
        self._standings = None
        self._link: bool | None = None
        self._lock = threading.Lock()
        self._poked = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ticker: asyncio.Task | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.club.on_change = self._poke
        self._ticker = self._loop.create_task(self._recheck())

    def stop(self) -> None:
        self.club.on_change = None
        if self._ticker is not None:
            self._ticker.cancel()
        for q in list(self.clients):
            self._drop(q)

    def _poke(self, name=None) -> None:
        with self._lock:
            if self._poked or self._loop is None:
                return
            self._poked = True
        try:
            self._loop.call_soon_threadsafe(self.changed)
        except RuntimeError:  # the server has stopped
            pass

    async def _recheck(self) -> None:
        while True:
            await asyncio.sleep(RECHECK_S)
            self.changed()

    def card_html(self, name: str) -> str | None:
        table = self.club.table(name)
        return None if table is None else self.render("card.html", card=self.cards.card(table))

    def standings_html(self) -> str:
        return self.render("standings.html", standings=standings_rows(self.club.standings()))

    def everything(self) -> list[bytes]:
        """Every card, the standings and the link: what a page that has just connected is sent."""
        out = [sse("link", {"connected": self.club.connected})]
        out += [sse("card", {"table": n, "html": self.card_html(n)}) for n in self.club.names()]
        return [*out, sse("standings", {"html": self.standings_html()})]

    def changed(self) -> None:
        with self._lock:
            self._poked = False
        try:
            messages = self._news()
        except Exception:  # a bug in drawing a card must not stop the page
            log.exception("club: drawing the page failed")
            return
        for q in list(self.clients):
            for m in messages:
                try:
                    q.put_nowait(m)
                except asyncio.QueueFull:
                    self._drop(q)
                    break

    def _news(self) -> list[bytes]:
        out = []
        if self.club.connected != self._link:
            self._link = self.club.connected
            out.append(sse("link", {"connected": self._link}))
        for name in self.club.names():
            table = self.club.table(name)
            key = (table.version, self.club.online(table))
            if self._sent.get(name) != key:
                self._sent[name] = key
                out.append(sse("card", {"table": name, "html": self.card_html(name)}))
        standings = self.club.standings()
        if standings != self._standings:
            self._standings = standings
            out.append(sse("standings", {"html": self.standings_html()}))
        return out

    def subscribe(self) -> asyncio.Queue:
        q: asyncio.Queue = asyncio.Queue(CLIENT_QUEUE)
        for m in self.everything():
            q.put_nowait(m)
        self.clients.add(q)
        return q

    def _drop(self, q: asyncio.Queue) -> None:
        self.clients.discard(q)
        while not q.empty():
            q.get_nowait()
        q.put_nowait(None)


def make_app(club: Club) -> Starlette:
    """The Starlette application of the club's page."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(CLUB / "templates"), autoescape=True,
                             extensions=["jinja2.ext.i18n"])
    env.install_gettext_callables(i18n._, i18n.ngettext, newstyle=False, pgettext=i18n.pgettext)
    env.globals.update(language=i18n.language)
    templates = Jinja2Templates(env=env)
    pages = Pages(club, lambda name, **context: env.get_template(name).render(**context))

    @asynccontextmanager
    async def lifespan(app):
        pages.start()
        try:
            yield
        finally:
            pages.stop()

    async def index(request: Request) -> Response:
        cards = [pages.cards.card(club.table(n)) for n in club.names()]
        return templates.TemplateResponse(request, "club.html", {
            "cards": cards, "standings": standings_rows(club.standings()), "connected": club.connected})

    async def state(request: Request) -> Response:
        return JSONResponse({"connected": club.connected,
                             "tables": [pages.cards.card(club.table(n)) for n in club.names()],
                             "standings": standings_rows(club.standings())})

    async def events(request: Request) -> Response:
        q = pages.subscribe()

        async def stream():
            try:
                while True:
                    try:
                        message = await asyncio.wait_for(q.get(), KEEP_ALIVE_S)
                    except TimeoutError:
                        yield b": keep-alive\n\n"
                        continue
                    if message is None:  # fell behind: the browser reconnects and is sent everything
                        return
                    yield message
            finally:
                pages.clients.discard(q)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def record(request: Request) -> Response:
        name, game = request.path_params["table"], request.path_params["game"]
        table = club.table(name)
        finished = table.games.get(game) if table is not None else None
        if finished is None or not isinstance(finished.get("record"), dict):
            return JSONResponse({"error": _("table {table} has no finished game {game}").format(table=name, game=game)},
                                status_code=404)
        return JSONResponse(finished["record"], headers={  # a table's name may hold any letter: RFC 6266's UTF-8 form
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}-game-{game}.json"})

    return Starlette(routes=[
        Route("/", index),
        Route("/api/club", state),
        Route("/api/events", events),
        Route("/api/tables/{table}/games/{game:int}", record),
        Mount("/static", StaticFiles(directory=str(CLUB / "static")), name="static"),
    ], lifespan=lifespan)
