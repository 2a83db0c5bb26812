"""The pages a person opens: the live table, the big screen, the replay, the guided calibration (Jinja2
templates), each with the page's address and its QR code to share it."""

from __future__ import annotations

from importlib import resources
from urllib.parse import urlsplit

import jinja2
import segno
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from tantrix_pi import i18n
from tantrix_pi.web.hub import KEEP_EVENTS

WEB = resources.files("tantrix_pi.web")
LOCAL = ("localhost", "127.0.0.1", "::1")


def templates() -> Jinja2Templates:
    """The templates, their words in the language of the moment (`_`, `ngettext`, `pgettext`, the colour,
    player and language names)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(WEB / "templates"), autoescape=True,
                             extensions=["jinja2.ext.i18n"])
    env.install_gettext_callables(i18n._, i18n.ngettext, newstyle=False, pgettext=i18n.pgettext)
    env.globals.update(language=i18n.language, colour_name=i18n.colour_name, player_name=i18n.player_name,
                       languages=i18n.LANGUAGES, keep_events=KEEP_EVENTS)
    return Jinja2Templates(env=env)


def address(request: Request, addresses: list[str]) -> str:
    """The address another phone in the room opens: the one this browser used, unless that is this machine's
    own (localhost), then the server's address on the network."""
    here = f"{request.url.scheme}://{request.url.netloc}/"
    if urlsplit(here).hostname in LOCAL and addresses:
        return addresses[-1]
    return here


def qr_svg(text: str) -> str:
    """A QR code of `text` as inline SVG (segno; never a Micro QR code, which phones do not read)."""
    return segno.make_qr(text, error="m").svg_inline(scale=4, border=2, dark="#111", light="#fff")


def page(name: str):
    """A route rendering template `name` with the state now and the page's address."""

    async def render(request: Request) -> Response:
        app = request.app.state
        where = address(request, app.site.addresses)
        return app.templates.TemplateResponse(request, name, {
            "state": app.broadcaster.refresh(), "demo": app.site.commands is None, "address": where,
            "qr": qr_svg(where)})

    return render


def routes(site) -> list[Route]:
    out = [Route("/", page("index.html")), Route("/tv", page("tv.html")), Route("/replay", page("replay.html"))]
    if site.calibration is not None:
        out.append(Route("/calibrate", page("calibrate.html")))
    return out
