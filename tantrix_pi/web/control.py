"""Running the table from a paired phone: pairing, then what the buttons' menu does, as commands for the live loop.

Each request becomes one or more commands (`tantrix_pi.live.commands`) on the loop's queue; the loop carries them
out between frames, and what follows (a new game, a refused end of turn, a hint) is announced as usual.

| action | body | does |
|---|---|---|
| `new-game` | `{}` or a mode as in `[mode]` (`{"kind": "game", "players": ["red", "blue"]}`) | a new game |
| `settings` | a mode as in `[mode]`, and/or `{"voice": true}` | a new game when the mode changed; voice |
| `end-turn` | | the player to move ends the turn (the next button) |
| `undo` | | which tile to take off to undo (the back button) |
| `hint` | | a solver hint in a Discovery or Rainbow puzzle |
| `voice` | `{"on": true}` | speaking on or off |
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _
from tantrix_pi.live.commands import AskHint, Command, EndTurn, NewGame, SetVoice, Undo
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import View
from tantrix_pi.web.pairing import TooManyAttempts
from tantrix_pi.web.responses import NotJSON, error, json_body


class ControlError(TantrixError):
    """A control request that cannot be carried out (answered 400 with this line)."""


ACTIONS = ("new-game", "settings", "end-turn", "undo", "hint", "voice")


def setup_of_body(body: dict) -> Setup:
    """The game or puzzle a request describes, checked as the `[mode]` section of the config is."""
    from tantrix_pi.live import config
    from tantrix_pi.live.service import setup_of

    mode = {k: v for k, v in body.items() if k != "voice"}
    try:
        return setup_of(config.from_dict({"mode": mode}, "request"))
    except config.ConfigError as e:
        raise ControlError(str(e).replace("request: mode.", "")) from None


def command(action: str, body, view: View | None) -> list[Command]:
    """The loop commands for one control request."""
    if action not in ACTIONS:
        raise ControlError(_("unknown action {action!r}: one of {actions}").format(action=action,
                                                                                   actions=", ".join(ACTIONS)))
    if not isinstance(body, dict):
        raise ControlError(_("the request body must be a JSON object"))
    if action in ("end-turn", "undo", "hint"):
        return [{"end-turn": EndTurn, "undo": Undo, "hint": AskHint}[action]()]
    if action == "voice":
        if not isinstance(body.get("on"), bool):
            raise ControlError(_("send {on} or {off}").format(on='{"on": true}', off='{"on": false}'))
        return [SetVoice(body["on"])]
    if "voice" in body and not isinstance(body["voice"], bool):
        raise ControlError(_("voice must be true or false"))
    described = {k: v for k, v in body.items() if k != "voice"}
    current = Setup(view.mode, list(view.players), view.puzzle) if view is not None else None
    setup = setup_of_body(body) if described else current
    out: list[Command] = []
    if action == "new-game" or (setup is not None and setup != current):
        out.append(NewGame(setup))
    if "voice" in body:
        out.append(SetVoice(body["voice"]))
    return out


def refused(request: Request) -> Response | None:
    """The refusal of a control request from a phone that is not paired (403), or to a demo (409); None: go on."""
    site = request.app.state.site
    auth = request.headers.get("authorization", "")
    token = auth[7:] if auth.lower().startswith("bearer ") else None
    if not site.pairing.allows(token):
        return error(403, _("pair this phone first: enter the code the table's display shows"))
    if site.commands is None:
        return error(409, _("this is the demo's recording: there is nothing to run"))
    return None


async def pair(request: Request) -> Response:
    try:
        body = await json_body(request)
    except NotJSON:
        return error(400, _("send {example}").format(example='{"code": "123456"}'))
    code = body.get("code", "") if isinstance(body, dict) else ""
    try:
        token = request.app.state.site.pairing.pair(str(code), request.client.host if request.client else "")
    except TooManyAttempts as e:
        return error(429, str(e), headers={"Retry-After": f"{e.retry_after:.0f}"})
    if token is None:
        return error(403, _("wrong pairing code: it is on the table's display and in the referee's log"))
    return JSONResponse({"token": token})


async def control(request: Request) -> Response:
    no = refused(request)
    if no is not None:
        return no
    try:
        body = await json_body(request, {})
    except NotJSON as e:
        return error(400, str(e))
    site = request.app.state.site
    try:
        queued = command(request.path_params["action"], body, site.hub.snapshot().view)
    except ControlError as e:
        return error(400, str(e))
    for cmd in queued:
        site.commands.put(cmd)
    return JSONResponse({"queued": [cmd.name for cmd in queued]}, status_code=202)


def routes() -> list[Route]:
    return [Route("/api/pair", pair, methods=["POST"]), Route("/api/control/{action}", control, methods=["POST"])]
