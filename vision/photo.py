"""Open a photo for the detector, refusing anything that is not a readable picture with one clear line."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from tantrix_pi.errors import TantrixError

MAX_PIXELS = 64_000_000
"""Largest image accepted (a 12 MP camera frame is 12.3 million pixels)."""
MAX_BYTES = 200_000_000
MIN_SIDE = 32


class PhotoError(TantrixError):
    """A file that is not a readable photo (exit code 2)."""


def load(path: str | Path) -> np.ndarray:
    """The photo at `path` as a BGR uint8 array; PhotoError for missing, empty, corrupt, truncated,
    tiny, enormous or blank (uniform) images."""
    p = Path(path)
    if not p.exists():
        raise PhotoError(f"{path}: no such file")
    if p.is_dir():
        raise PhotoError(f"{path}: is a directory, not a photo")
    try:
        data = p.read_bytes()
    except OSError as e:
        raise PhotoError(f"{path}: cannot read it ({e.strerror or e.__class__.__name__})") from None
    return decode(data, str(path))


def decode(data: bytes, name: str = "image") -> np.ndarray:
    """Decode encoded image bytes (JPEG, PNG, ...) with the same checks as `load`."""
    if not data:
        raise PhotoError(f"{name}: empty file")
    if len(data) > MAX_BYTES:
        raise PhotoError(f"{name}: {len(data) // 1_000_000} MB is too large for a photo")
    try:
        with Image.open(io.BytesIO(data)) as im:
            width, height = im.size
            fmt = im.format
            if fmt == "PNG":
                im.verify()
    except UnidentifiedImageError:
        raise PhotoError(f"{name}: not an image (unknown format)") from None
    except Image.DecompressionBombError:
        raise PhotoError(f"{name}: image dimensions are enormous") from None
    except (OSError, SyntaxError, ValueError) as e:
        raise PhotoError(f"{name}: corrupt or truncated image ({e})") from None
    if width * height > MAX_PIXELS:
        raise PhotoError(f"{name}: {width}x{height} is too large for a photo")
    if min(width, height) < MIN_SIDE:
        raise PhotoError(f"{name}: {width}x{height} is too small to show any tile")
    if fmt == "JPEG" and not data.rstrip(b"\0\r\n ").endswith(b"\xff\xd9"):
        raise PhotoError(f"{name}: truncated JPEG (no end marker)")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise PhotoError(f"{name}: corrupt image, it cannot be decoded")
    check_not_blank(image, name)
    return image


def check_not_blank(image: np.ndarray, name: str = "image") -> None:
    """PhotoError for a frame with nothing in it: one flat grey, black or white."""
    step = max(1, max(image.shape[:2]) // 512)
    sample = image[::step, ::step]
    if float(sample.std()) < 3.0 and float(np.ptp(sample)) < 40:
        raise PhotoError(f"{name}: blank frame (one flat colour), nothing to read")
