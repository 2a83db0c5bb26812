"""Open a photo for the detector, refusing anything that is not a readable picture with one clear line.

Photos are decoded by Pillow (with pillow-heif for HEIC/HEIF, an iPhone's default) and turned upright by their
EXIF orientation. A JPEG is truncated when its picture ends early, not when bytes follow its end marker:
phones write there (Samsung's "SEFT" trailer, the MP4 of a Google or Samsung motion photo).
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _

MAX_PIXELS = 64_000_000
"""Largest image accepted (a 12 MP camera frame is 12.3 million pixels)."""
MAX_BYTES = 200_000_000
MIN_SIDE = 32
MAX_ASPECT = 5.0
"""Longest side over shortest accepted: a panorama of a table is 4:1 at most, a 21:9 phone frame 2.3:1; a thin
strip shows no board."""
GREY_SPREAD = 12
"""A picture whose colour channels lie at most this far apart (8-bit) everywhere is black and white: a grey photo
saved in colour (JPEG too) measured 0, the colour photos of dev, wide and real-dev 94 and more."""


class PhotoError(TantrixError):
    """A file that is not a readable photo (exit code 2)."""


def load(path: str | Path) -> np.ndarray:
    """The photo at `path` as a BGR uint8 array; PhotoError for missing, empty, corrupt, truncated,
    tiny, enormous, strip-shaped or blank (uniform) images."""
    p = Path(path)
    if not p.exists():
        raise PhotoError(_("{path}: no such file").format(path=path))
    if p.is_dir():
        raise PhotoError(_("{path}: is a directory, not a photo").format(path=path))
    try:
        data = p.read_bytes()
    except OSError as e:
        raise PhotoError(_("{path}: cannot read it ({error})").format(
            path=path, error=e.strerror or e.__class__.__name__)) from None
    return decode(data, str(path))


def decode(data: bytes, name: str | None = None) -> np.ndarray:
    """Decode encoded image bytes (JPEG, PNG, HEIC, ...) with the same checks as `load` (`name`: what the errors
    call it, by default "image" in the language in use)."""
    name = _unnamed(name)
    if not data:
        raise PhotoError(_("{name}: empty file").format(name=name))
    if len(data) > MAX_BYTES:
        raise PhotoError(_("{name}: {mb} MB is too large for a photo").format(name=name, mb=len(data) // 1_000_000))
    _heif_opener()
    try:
        with Image.open(io.BytesIO(data)) as im:
            check_shape(*im.size, name)
            im.load()  # a picture that ends early raises here ("image file is truncated")
            ImageOps.exif_transpose(im, in_place=True)
            image = _bgr(im)
    except UnidentifiedImageError:
        raise PhotoError(_("{name}: not an image (unknown format)").format(name=name)) from None
    except Image.DecompressionBombError:
        raise PhotoError(_("{name}: image dimensions are enormous").format(name=name)) from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise PhotoError(_("{name}: corrupt or truncated image ({error})").format(
            name=name, error=str(e).splitlines()[0] if str(e) else repr(e))) from None
    check_not_blank(image, name)
    return image


def check_shape(width: int, height: int, name: str | None = None) -> None:
    """PhotoError for a picture too big, too small or too thin (`MAX_ASPECT`) to show a board."""
    name = _unnamed(name)
    if width * height > MAX_PIXELS:
        raise PhotoError(_("{name}: {width}x{height} is too large for a photo").format(
            name=name, width=width, height=height))
    if min(width, height) < MIN_SIDE:
        raise PhotoError(_("{name}: {width}x{height} is too small to show any tile").format(
            name=name, width=width, height=height))
    if max(width, height) > MAX_ASPECT * min(width, height):
        raise PhotoError(_("{name}: {width}x{height} is a strip, not a photo of a table (at most {ratio:g}:1)").format(
            name=name, width=width, height=height, ratio=MAX_ASPECT))


def check_not_blank(image: np.ndarray, name: str | None = None) -> None:
    """PhotoError for a frame with nothing in it: one flat grey, black or white."""
    name = _unnamed(name)
    sample = _thumbnail(image).reshape(-1, 1)
    if float(cv2.meanStdDev(sample)[1][0, 0]) < 3.0 and float(np.ptp(sample)) < 40:  # numpy's std: 5 MB of floats
        raise PhotoError(_("{name}: blank frame (one flat colour), nothing to read").format(name=name))


def check_in_colour(image: np.ndarray, name: str | None = None) -> None:
    """PhotoError for a black-and-white picture (its channels at most `GREY_SPREAD` apart anywhere): the tiles are
    told apart by their colours alone (a calibration chart is black and white: only photos of tiles are asked)."""
    if int(np.ptp(_thumbnail(image), axis=2).max()) <= GREY_SPREAD:
        raise PhotoError(_("{name}: a black-and-white photo: the tiles' colours cannot be read").format(
            name=_unnamed(name)))


def _thumbnail(image: np.ndarray) -> np.ndarray:
    """Every n-th pixel of each row and column, so that the longer side keeps some 512."""
    step = max(1, max(image.shape[:2]) // 512)
    return np.ascontiguousarray(image[::step, ::step])


def _unnamed(name: str | None) -> str:
    """What an error calls a picture that has no file name."""
    # TRANSLATORS: a picture without a file name, where a message names the file ("image: empty file")
    return _("image") if name is None else name


@cache
def _heif_opener() -> None:
    """Let Pillow open HEIC/HEIF (once per process)."""
    from pillow_heif import register_heif_opener

    register_heif_opener()


def _bgr(im: Image.Image) -> np.ndarray:
    """A Pillow image of any mode as BGR uint8 (16-bit greys scaled down, transparency dropped)."""
    if im.mode in ("I;16", "I;16B", "I;16L", "I"):
        grey = np.asarray(im, dtype=np.float64)
        scale = 255.0 / 65535.0 if grey.max() > 255 else 1.0
        return cv2.cvtColor(np.clip(grey * scale, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    rgb = np.asarray(im if im.mode == "RGB" else im.convert("RGB"))
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
