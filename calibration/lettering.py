"""Words drawn on the calibration's pictures (the printed sheet's caption, `calibrate check`'s status line), in the
language in use: DejaVu Sans through Pillow, the screens' font (OpenCV's Hershey fonts have no č, ő, ł or ñ)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw


def lines(text: str, size: int, width: int) -> list[str]:
    """`text` in lines no wider than `width` pixels at font size `size`."""
    from tantrix_pi.devices.frames import font, wrap

    return wrap(text, font(size), max(1, width), max_lines=1_000)


def draw(image: np.ndarray, rows: list[str], origin: tuple[int, int], size: int, colour, step: int | None = None
         ) -> None:
    """Draw `rows` on `image` (grey or BGR uint8, in place): the first row's baseline at `origin`, each next one
    `step` pixels lower (default: 1.5 times the font size); `colour` is a grey level or a BGR triple."""
    from tantrix_pi.devices.frames import font

    fnt = font(size)
    step = round(1.5 * size) if step is None else step
    page = Image.fromarray(image)
    pen = ImageDraw.Draw(page)
    fill = int(colour) if image.ndim == 2 else tuple(int(c) for c in colour)  # BGR stays BGR: Pillow copies channels
    x, y = origin
    for k, row in enumerate(rows):
        pen.text((x, y + k * step), row, fill=fill, font=fnt, anchor="ls")
    image[...] = np.asarray(page)
