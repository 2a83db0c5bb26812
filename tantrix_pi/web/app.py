"""The web page's routes (Starlette): reading is open to anyone on the network, running the table needs pairing.

| route | what |
|---|---|
| `GET /` | the live page (board, scores, announcements, the camera's picture, photo check, controls) |
| `GET /replay`, `GET /calibrate` | the replay view with its slider; the guided calibration |
| `GET /api/state` | the page's state (board as tantrix-board/1, scores, forced, turn, mode, last 50 events) |
| `GET /api/events` | Server-Sent Events: one `state` message now and after every change |
| `GET /api/seen.jpg` | the last frame the detector read, with what it saw drawn on it |
| `GET /api/game`, `/api/games`, `/api/games/N`, `/api/games/N/steps[/I]` | records and replays |
| `POST /api/check`, `POST /api/score` | a photo's verdict, as `tantrix-pi check` / `score --json` |
| `POST /api/pair`, `POST /api/control/ACTION` | pairing, then the table's controls (token needed) |
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import queue
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import cv2
import jinja2
import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from tantrix_pi import i18n
from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _
from tantrix_pi.web.hub import Broadcaster, Hub
from tantrix_pi.web.pairing import Pairing, TooManyAttempts
from tantrix_pi.web.state import PageState

log = logging.getLogger("tantrix_pi.web")

MAX_UPLOAD = 20_000_000
"""Largest photo upload accepted, bytes."""
PHOTO_CHECKS = 2
"""Photo checks that may run at once; more get 503 with Retry-After."""
RETRY_AFTER_S = 5
CHECK_TIMEOUT_S = 120.0
"""A photo check still running after this is answered 504 (its slot stays taken until it ends)."""
KEEP_ALIVE_S = 15.0
PICTURE_WIDTH = 960
"""Width of the pictures the page shows (the camera's frame and the photo checks' overlays)."""

WEB = resources.files("tantrix_pi.web")


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
    calibration: object | None = None
    """The guided calibration (`tantrix_pi.web.calibrate.Guide`), None when calibration cannot run here."""
    checks_running: int = 0


def error(status: int, line: str, headers: dict | None = None) -> JSONResponse:
    """One line of JSON saying what is wrong."""
    return JSONResponse({"error": line}, status_code=status, headers=headers)


def paired(request: Request, site: Site) -> JSONResponse | None:
    """The refusal of a control request from a phone that is not paired (403), or to a demo (409); None: go on."""
    auth = request.headers.get("authorization", "")
    token = auth[7:] if auth.lower().startswith("bearer ") else None
    if not site.pairing.allows(token):
        return error(403, _("pair this phone first: enter the code the table's display shows"))
    if site.commands is None:
        return error(409, _("this is the demo's recording: there is nothing to run"))
    return None


def jpeg(image: np.ndarray, width: int = PICTURE_WIDTH) -> bytes:
    """A picture for the page: at most `width` pixels wide, JPEG."""
    h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 82])
    return data.tobytes()


def data_url(image: np.ndarray) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg(image)).decode()


def page_words(env: jinja2.Environment) -> jinja2.Environment:
    """The templates' words in the referee's language of the moment (`_`, `ngettext`, `pgettext`, the colour
    and language names): a page is written in the language the table speaks when it is asked for."""
    env.install_gettext_callables(i18n._, i18n.ngettext, newstyle=False, pgettext=i18n.pgettext)
    env.globals.update(language=i18n.language, colour_name=i18n.colour_name)
    return env


def make_app(site: Site) -> Starlette:
    """The Starlette application serving `site`."""
    page_state = PageState(site.hub)
    broadcaster = Broadcaster(site.hub, page_state.build)
    templates = Jinja2Templates(env=page_words(jinja2.Environment(loader=jinja2.FileSystemLoader(WEB / "templates"),
                                                                  autoescape=True, extensions=["jinja2.ext.i18n"])))
    seen_cache: dict = {}

    @asynccontextmanager
    async def lifespan(app):
        broadcaster.start()
        try:
            yield
        finally:
            broadcaster.stop()

    def page(request: Request, name: str, **context) -> Response:
        return templates.TemplateResponse(request, name, {"state": broadcaster.refresh(), **context})

    async def index(request: Request) -> Response:
        return page(request, "index.html", demo=site.commands is None)

    async def replay_page(request: Request) -> Response:
        return page(request, "replay.html")

    async def state(request: Request) -> Response:
        return JSONResponse(broadcaster.refresh())

    async def events(request: Request) -> Response:
        client = broadcaster.subscribe()
        if client is None:
            return error(503, _("too many pages are following the table: try again later"),
                         headers={"Retry-After": str(RETRY_AFTER_S)})

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

    async def seen_picture(request: Request) -> Response:
        seen = site.hub.seen()
        if seen is None:
            return error(404, _("the camera has not seen a still table yet"))
        if seen_cache.get("number") != seen.number:
            from tantrix_pi.vision import overlay

            data = await run_in_threadpool(lambda: jpeg(overlay.draw(seen.frame, seen.detection)))
            seen_cache.update(number=seen.number, data=data)
        return Response(seen_cache["data"], media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    # -- games -------------------------------------------------------------------------------------
    def store():
        from tantrix_pi.live.store import Store, StoreError

        if site.state_db is None:
            raise StoreError(_("no game database here"))
        return Store(site.state_db, read_only=True)

    async def read_store(work) -> Response:
        from tantrix_pi.live.store import StoreError

        def run():
            s = store()
            try:
                return work(s)
            finally:
                s.close()

        try:
            return JSONResponse(await run_in_threadpool(run))
        except StoreError as e:
            return error(404, str(e))

    def game_number(request: Request) -> int | None:
        return request.path_params.get("game")

    async def current_game(request: Request) -> Response:
        def work(s):
            game = s.current_game() or s.last_game()
            if game is None:
                from tantrix_pi.live.store import StoreError

                raise StoreError(_("no game recorded yet"))
            return s.record(game[0])

        return await read_store(work)

    async def games(request: Request) -> Response:
        return await read_store(lambda s: {"games": s.games()})

    async def game(request: Request) -> Response:
        return await read_store(lambda s: s.record(game_number(request)))

    async def steps(request: Request) -> Response:
        from tantrix_pi.live.replay import said_steps

        def work(s):
            n = game_number(request)
            return {"game": n, "setup": s.setup(n),
                    "steps": [{"tiles": len(b), "events": [e.text for e in ev]} for b, ev in said_steps(s, n)]}

        return await read_store(work)

    async def step(request: Request) -> Response:
        from tantrix_pi.live.replay import said_steps
        from tantrix_pi.live.store import StoreError
        from tantrix_pi.web.svg import board_svg

        i = request.path_params["step"]

        def work(s):
            all_steps = said_steps(s, game_number(request))
            if not 0 <= i < len(all_steps):
                raise StoreError(_("game {game} has no step {step} (0..{last})").format(
                    game=game_number(request), step=i, last=len(all_steps) - 1))
            board, evs = all_steps[i]
            before = all_steps[i - 1][0] if i else board
            added = sorted(board.cells - before.cells)
            last = added[-1] if len(added) == 1 else None
            return {"step": i, "board": board.to_dict(), "svg": board_svg(board, last=last),
                    "events": [{"kind": e.kind, "text": e.text, "data": e.data} for e in evs]}

        return await read_store(work)

    # -- photo checks ------------------------------------------------------------------------------
    async def photo(request: Request, kind: str) -> Response:
        if site.detect is None:
            return error(503, _("photo checks need the detector, which is not installed here"))
        length = request.headers.get("content-length")
        if length is None or not length.isdigit():
            return error(411, _("send the photo as a form upload with its length"))
        if int(length) > MAX_UPLOAD:
            return error(413, _("the upload is {size} MB: at most {most} MB").format(size=int(length) // 1_000_000,
                                                                               most=MAX_UPLOAD // 1_000_000))
        if site.checks_running >= PHOTO_CHECKS:
            return error(503, _("two photos are being checked already: try again in a few seconds"),
                         headers={"Retry-After": str(RETRY_AFTER_S)})
        site.checks_running += 1
        try:
            try:
                form = await request.form(max_files=1, max_fields=4)
            except Exception as e:  # a malformed multipart body: python-multipart / Starlette say why
                site.checks_running -= 1
                return error(400, _("not a form upload: {error}").format(error=e))
            upload = form.get("image")
            if upload is None or isinstance(upload, str):
                site.checks_running -= 1
                return error(400, _("no photo: send it as the form field 'image'"))
            data = await upload.read()
            spec = str(form.get("puzzle" if kind == "check" else "players") or "")
        except BaseException:
            site.checks_running -= 1
            raise
        job = asyncio.ensure_future(run_in_threadpool(judge_photo, kind, data, upload.filename or "photo", spec,
                                                      site.detect))
        job.add_done_callback(lambda _: setattr(site, "checks_running", site.checks_running - 1))
        try:
            status, answer = await asyncio.wait_for(asyncio.shield(job), CHECK_TIMEOUT_S)
        except TimeoutError:
            return error(504, _("the photo took over {seconds:.0f} s to read: try a smaller photo").format(
                seconds=CHECK_TIMEOUT_S))
        return JSONResponse(answer, status_code=status)

    async def check(request: Request) -> Response:
        return await photo(request, "check")

    async def score(request: Request) -> Response:
        return await photo(request, "score")

    # -- pairing and control -----------------------------------------------------------------------
    async def pair(request: Request) -> Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return error(400, _("send {example}").format(example='{"code": "123456"}'))
        code = body.get("code", "") if isinstance(body, dict) else ""
        try:
            token = site.pairing.pair(str(code))
        except TooManyAttempts as e:
            return error(429, str(e), headers={"Retry-After": f"{e.retry_after:.0f}"})
        if token is None:
            return error(403, _("wrong pairing code: it is on the table's display and in the referee's log"))
        return JSONResponse({"token": token})

    async def control(request: Request) -> Response:
        from tantrix_pi.web.control import ControlError, command

        refused = paired(request, site)
        if refused is not None:
            return refused
        try:
            body = await request.json() if await request.body() else {}
        except (json.JSONDecodeError, UnicodeDecodeError):
            return error(400, _("the request body is not JSON"))
        try:
            queued = command(request.path_params["action"], body, site.hub.snapshot().view)
        except ControlError as e:
            return error(400, str(e))
        for cmd in queued:
            site.commands.put(cmd)
        return JSONResponse({"queued": [cmd.name for cmd in queued]}, status_code=202)

    routes = [
        Route("/", index),
        Route("/replay", replay_page),
        Route("/api/state", state),
        Route("/api/events", events),
        Route("/api/seen.jpg", seen_picture),
        Route("/api/game", current_game),
        Route("/api/games", games),
        Route("/api/games/{game:int}", game),
        Route("/api/games/{game:int}/steps", steps),
        Route("/api/games/{game:int}/steps/{step:int}", step),
        Route("/api/check", check, methods=["POST"]),
        Route("/api/score", score, methods=["POST"]),
        Route("/api/pair", pair, methods=["POST"]),
        Route("/api/control/{action}", control, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(WEB / "static")), name="static"),
    ]
    if site.calibration is not None:
        from tantrix_pi.web.calibrate import routes as calibration_routes

        routes[2:2] = calibration_routes(site, templates, broadcaster)
    return Starlette(routes=routes, lifespan=lifespan)


def judge_photo(kind: str, data: bytes, name: str, spec: str, detect) -> tuple[int, dict]:
    """(HTTP status, answer) for one uploaded photo: the CLI's `--json` answer with its exit code and the
    overlay; a refusal (exit 3) is 422 with the CLI's `--json` refusal (its line, exit code and doubts), bad input
    (exit 2) is 400 with its line."""
    from tantrix_pi.game import player_colours
    from tantrix_pi.puzzles import puzzle
    from tantrix_pi.vision import photo
    from tantrix_pi.vision.verdict import Unsure, check, overlay, score

    try:
        if kind == "check":
            if not spec:
                return 400, {"error": _("choose the puzzle (puzzle: discovery:N, rainbow:COLOUR or solitaire)"),
                             "exit_code": 2}
            goal = puzzle(spec)
        else:
            colours = player_colours(spec or None)
        image = photo.decode(data, name)
        det = detect(image)
        try:
            verdict = check(det, goal, name) if kind == "check" else score(det, colours, name)
        except Unsure as e:
            return 422, {**e.to_dict(), "overlay": data_url(overlay(image, det, [e.reason]))}
        return 200, {**verdict.answer, "exit_code": verdict.exit_code,
                     "overlay": data_url(overlay(image, det, verdict.notes, verdict.paths))}
    except TantrixError as e:
        return 400, e.to_dict()
