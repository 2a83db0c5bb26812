"""The pages a person opens: the live table, the replay, the guided calibration (Jinja2 templates)."""

from __future__ import annotations

from importlib import resources

import jinja2
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from tantrix_pi import i18n

WEB = resources.files("tantrix_pi.web")


def templates() -> Jinja2Templates:
    """The templates, their words in the language of the moment (`_`, `ngettext`, `pgettext`, the colour and
    language names)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(WEB / "templates"), autoescape=True,
                             extensions=["jinja2.ext.i18n"])
    env.install_gettext_callables(i18n._, i18n.ngettext, newstyle=False, pgettext=i18n.pgettext)
    env.globals.update(language=i18n.language, colour_name=i18n.colour_name)
    return Jinja2Templates(env=env)


def page(name: str, **context):
    """A route rendering template `name` with the state now."""

    async def render(request: Request) -> Response:
        app = request.app.state
        return app.templates.TemplateResponse(request, name, {"state": app.broadcaster.refresh(),
                                                              "demo": app.site.commands is None, **context})

    return render


def routes(site) -> list[Route]:
    out = [Route("/", page("index.html")), Route("/replay", page("replay.html"))]
    if site.calibration is not None:
        out.append(Route("/calibrate", page("calibrate.html")))
    return out
