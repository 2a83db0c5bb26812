"""Photo checks: a photo of a table judged as `tantrix-pi check` / `score --json` judge it, two at a time."""

from __future__ import annotations

import asyncio

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _
from tantrix_pi.web.responses import busy, data_url, error

MAX_UPLOAD = 20_000_000
"""Largest photo upload accepted, bytes."""
PHOTO_CHECKS = 2
"""Photo checks that may run at once; more get 503 with Retry-After."""
CHECK_TIMEOUT_S = 120.0
"""A photo check still running after this is answered 504 (its slot stays taken until it ends)."""


def slots() -> asyncio.Semaphore:
    """The photo checks' slots (made in the server's loop, at start)."""
    return asyncio.Semaphore(PHOTO_CHECKS)


async def photo(request: Request, kind: str) -> Response:
    site = request.app.state.site
    if site.detect is None:
        return error(503, _("photo checks need the detector, which is not installed here"))
    length = request.headers.get("content-length")
    if length is None or not length.isdigit():
        return error(411, _("send the photo as a form upload with its length"))
    if int(length) > MAX_UPLOAD:
        return error(413, _("the upload is {size} MB: at most {most} MB").format(size=int(length) // 1_000_000,
                                                                           most=MAX_UPLOAD // 1_000_000))
    checks: asyncio.Semaphore = request.app.state.photo_checks
    if checks.locked():
        return busy(_("two photos are being checked already: try again in a few seconds"))
    await checks.acquire()  # free: taken at once, before anything else can run
    job = asyncio.ensure_future(judged(request, kind, checks))
    try:
        return await asyncio.wait_for(asyncio.shield(job), CHECK_TIMEOUT_S)
    except TimeoutError:
        return error(504, _("the photo took over {seconds:.0f} s to read: try a smaller photo").format(
            seconds=CHECK_TIMEOUT_S))


async def judged(request: Request, kind: str, checks: asyncio.Semaphore) -> Response:
    """The upload read and judged; its slot is given back when this ends, answered in time or not."""
    try:
        try:
            form = await request.form(max_files=1, max_fields=4)
        except Exception as e:  # a malformed multipart body: python-multipart / Starlette say why
            return error(400, _("not a form upload: {error}").format(error=e))
        upload = form.get("image")
        if upload is None or isinstance(upload, str):
            return error(400, _("no photo: send it as the form field 'image'"))
        data = await upload.read()
        spec = str(form.get("puzzle" if kind == "check" else "players") or "")
        status, answer = await run_in_threadpool(judge_photo, kind, data, upload.filename or "photo", spec,
                                                 request.app.state.site.detect)
        return JSONResponse(answer, status_code=status)
    finally:
        checks.release()


async def check(request: Request) -> Response:
    return await photo(request, "check")


async def score(request: Request) -> Response:
    return await photo(request, "score")


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
        photo.check_in_colour(image, name)
        det = detect(image)
        try:
            verdict = check(det, goal, name) if kind == "check" else score(det, colours, name)
        except Unsure as e:
            return 422, {**e.to_dict(), "overlay": data_url(overlay(image, det, [e.reason]))}
        return 200, {**verdict.answer, "exit_code": verdict.exit_code,
                     "overlay": data_url(overlay(image, det, verdict.notes, verdict.paths))}
    except TantrixError as e:
        return 400, e.to_dict()


def routes() -> list[Route]:
    return [Route("/api/check", check, methods=["POST"]), Route("/api/score", score, methods=["POST"])]
