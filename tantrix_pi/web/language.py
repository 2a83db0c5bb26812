"""Each phone reads the page in its own language: `?lang=` (kept in a cookie), else the browser's
Accept-Language, else the table's language. The referee speaks on in the table's."""

from __future__ import annotations

from http.cookies import SimpleCookie

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tantrix_pi import i18n

COOKIE = "lang"


def accepted(header: str) -> list[str]:
    """The languages of an Accept-Language header, most wanted first (`cs-CZ,cs;q=0.9,en;q=0.5`)."""
    wanted = []
    for i, part in enumerate(header.split(",")):
        name, _, params = part.strip().partition(";")
        try:
            q = float(params.strip()[2:]) if params.strip().startswith("q=") else 1.0
        except ValueError:
            q = 0.0
        if name and name != "*" and q > 0:
            wanted.append((-q, i, i18n.code_of(name)))
    return [code for _, _, code in sorted(wanted)]


def choose(request: Request) -> str:
    """The language this request is answered in."""
    asked = request.query_params.get("lang") or request.cookies.get(COOKIE)
    for code in ([i18n.code_of(asked)] if asked else []) + accepted(request.headers.get("accept-language", "")):
        if code in i18n.LANGUAGES:
            return code
    return i18n.language()


class Language:
    """ASGI middleware: the request, and the work it hands to threads, speak its language; `?lang=` is kept."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        asked = request.query_params.get("lang")
        keep = asked if asked and i18n.code_of(asked) in i18n.LANGUAGES else None

        async def send_kept(message: Message) -> None:
            if keep and message["type"] == "http.response.start":
                cookie = SimpleCookie()
                cookie[COOKIE] = i18n.code_of(keep)
                cookie[COOKIE].update({"path": "/", "max-age": 365 * 24 * 3600, "samesite": "lax"})
                message.setdefault("headers", []).append((b"set-cookie", cookie.output(header="").strip().encode()))
            await send(message)

        with i18n.speaking(choose(request)):
            await self.app(scope, receive, send_kept)
