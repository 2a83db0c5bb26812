"""What every route answers with: one line of JSON for what is wrong, and pictures as JPEG."""

from __future__ import annotations

import base64
import json

import cv2
import numpy as np
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _

PICTURE_WIDTH = 960
"""Width of the pictures the page shows (the camera's frame and the photo checks' overlays)."""
RETRY_AFTER_S = 5
"""What a busy answer (503) tells the browser to wait, seconds."""


def error(status: int, line: str, headers: dict | None = None) -> JSONResponse:
    """One line of JSON saying what is wrong."""
    return JSONResponse({"error": line}, status_code=status, headers=headers)


class NotJSON(TantrixError):
    """A request body that is not JSON the page would send (answered 400 with this line)."""


async def json_body(request: Request, empty=None):
    """The request's JSON body (`empty` when there is none and that is allowed); NotJSON when it is malformed, or
    beyond what the parser takes (a number of more than 4300 digits, nesting too deep)."""
    raw = await request.body()
    if not raw and empty is not None:
        return empty
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError and int's digit limit are ValueErrors
        raise NotJSON(_("the request body is not JSON")) from None


def busy(line: str) -> JSONResponse:
    """503 with Retry-After: the page cannot take this now."""
    return error(503, line, headers={"Retry-After": str(RETRY_AFTER_S)})


def jpeg(image: np.ndarray, width: int = PICTURE_WIDTH) -> bytes:
    """A picture for the page: at most `width` pixels wide, JPEG."""
    h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 82])
    return data.tobytes()


def data_url(image: np.ndarray) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg(image)).decode()


def picture(data: bytes) -> Response:
    """A JPEG drawn for this moment: never cached (the next one is another picture)."""
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})
