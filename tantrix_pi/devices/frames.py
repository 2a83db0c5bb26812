"""Frames drawn with Pillow from a `Screen`: a colour layout for LCDs, text pages for mono OLEDs."""

from __future__ import annotations

import logging
from functools import lru_cache

import segno
from PIL import Image, ImageDraw, ImageFont

from tantrix_pi.devices.screen import PLAYER_RGB, Screen
from tantrix_pi.i18n import _, colour_name, player_name
from tantrix_pi.render import Highlights, render

log = logging.getLogger(__name__)

BACKGROUND = (0, 0, 0)
MESSAGE_BG = (40, 40, 48)
TEXT = (255, 255, 255)


FONT = "DejaVuSans.ttf"
"""The screens' font: Debian's DejaVu Sans (fonts-dejavu-core, which run.sh installs), found by Pillow in the
system's font folders. It has every letter of the languages the referee speaks (č ř ő ű ł ż ñ ...)."""


@lru_cache(maxsize=16)
def font(size: int) -> ImageFont.FreeTypeFont:
    """DejaVu Sans at `size` px; Pillow's bundled font (no č, ő, ł, ñ ...) with one warning when it is missing."""
    try:
        return ImageFont.truetype(FONT, size)
    except OSError:
        _font_missing()
        return ImageFont.load_default(size)


@lru_cache(maxsize=1)
def _font_missing() -> None:
    """Say once that the font is missing."""
    log.warning("display: font %s is missing (sudo apt install fonts-dejavu-core): letters such as č, ő, ł, ñ "
                "will not show", FONT)


def wrap(text: str, fnt: ImageFont.FreeTypeFont, width: int, max_lines: int) -> list[str]:
    """Words of `text` in lines no wider than `width`; the last kept line ends with an ellipsis if cut.

    A word wider than a line ("modrá/červená/modrá") is broken after a slash, else between letters."""
    lines: list[str] = []
    for word in (piece for w in text.split() for piece in _pieces(w, fnt, width)):
        if lines and fnt.getlength(lines[-1] + " " + word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1].rstrip(".") + "…"
    return lines


def _pieces(word: str, fnt: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """`word` cut into pieces no wider than `width`: after its last fitting slash, else its last fitting letter."""
    pieces = []
    while fnt.getlength(word) > width and len(word) > 1:
        cut = next((k for k in range(len(word) - 1, 1, -1) if fnt.getlength(word[:k]) <= width), 1)
        slash = word.rfind("/", 0, cut)
        cut = slash + 1 if slash > 0 else cut
        pieces.append(word[:cut])
        word = word[cut:]
    return [*pieces, word]


# -- colour screens -------------------------------------------------------------------------------
def colour_frame(screen: Screen, size: tuple[int, int]) -> Image.Image:
    """The colour layout: message on top, map (or menu) in the middle, score bar at the bottom."""
    w, h = size
    img = Image.new("RGB", size, BACKGROUND)
    d = ImageDraw.Draw(img)
    msg_h, score_h = round(h * 0.16), round(h * 0.11)
    title = screen.title or screen.message
    _message_bar(d, title, (0, 0, w, msg_h), h // 16)
    middle = (0, msg_h, w, h - score_h)
    if screen.lines or screen.progress is not None:
        _menu_area(d, screen, middle, h // 15)
    else:
        _map_area(img, d, screen, middle)
    _score_bar(d, screen, (0, h - score_h, w, h))
    return img


def _message_bar(d: ImageDraw.ImageDraw, text: str, box: tuple[int, int, int, int], size: int) -> None:
    x0, y0, x1, y1 = box
    d.rectangle(box, fill=MESSAGE_BG)
    fnt = font(size)
    lines = wrap(text, fnt, x1 - x0 - 8, 2)
    top = y0 + (y1 - y0 - len(lines) * (size + 2)) // 2
    for i, line in enumerate(lines):
        d.text((x0 + 4, top + i * (size + 2)), line, font=fnt, fill=TEXT)


def _map_area(img: Image.Image, d: ImageDraw.ImageDraw, screen: Screen, box) -> None:
    """The engine's drawing of the board (forced spaces lettered, last placement outlined) and the forced list."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    panel = w - h if w > h * 1.2 else 0
    row = 0 if panel or not screen.forced else max(16, h // 9)
    map_box = (x0, y0, x1 - panel, y1 - row)
    if screen.board is not None and len(screen.board):
        forced = tuple(f.cell for f in sorted(screen.forced, key=lambda f: (len(f.letter), f.letter)))
        marks = Highlights(forced=forced, last=screen.last.cell if screen.last else None)
        img.paste(render(screen.board, marks, size=(map_box[2] - map_box[0], map_box[3] - map_box[1])), map_box[:2])
    if panel:
        _forced_list(d, screen, (x1 - panel, y0, x1, y1), vertical=True)
    elif row:
        _forced_list(d, screen, (x0, y1 - row, x1, y1), vertical=False)


def _forced_list(d: ImageDraw.ImageDraw, screen: Screen, box, vertical: bool) -> None:
    """Each forced space as its letter followed by a swatch of every colour it needs."""
    x0, y0, x1, y1 = box
    step = 22 if vertical else y1 - y0
    x, y = x0 + 4, y0 + 3
    for f in screen.forced:
        size = step - 6
        if vertical:
            size = min(size, (x1 - x0 - 8) // (1 + len(f.colours)))
        if vertical and y + step > y1 or not vertical and x + size * (1 + len(f.colours)) > x1:
            break
        d.text((x, y), f.letter, font=font(step - 6), fill=TEXT)
        sx = x + step - 6
        for c in f.colours:
            d.rectangle((sx, y + 2, sx + size - 4, y + step - 8), fill=PLAYER_RGB[c])
            sx += size
        if vertical:
            y += step
        else:
            x = sx + size // 2


def _score_bar(d: ImageDraw.ImageDraw, screen: Screen, box) -> None:
    """Equal segments in seating order, each filled with its player's colour and showing the points."""
    x0, y0, x1, y1 = box
    if not screen.scores:
        return
    seg = (x1 - x0) / len(screen.scores)
    fnt = font(max(10, (y1 - y0) * 2 // 3))
    for i, (colour, points) in enumerate(screen.scores):
        a, b = round(x0 + i * seg), round(x0 + (i + 1) * seg) - 1
        rgb = PLAYER_RGB[colour]
        d.rectangle((a, y0, b, y1 - 1), fill=rgb)
        ink = (0, 0, 0) if sum(rgb) > 400 else TEXT
        d.text(((a + b) / 2, (y0 + y1) / 2), str(points), font=fnt, fill=ink, anchor="mm")
        if colour == screen.turn:
            d.rectangle((a, y0, b, y1 - 1), outline=TEXT, width=2)


def _fitted(lines, selected: int | None, fnt: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """Menu lines and tabbed lines as they are; other text (calibration steps) wrapped to the width."""
    if selected is not None:
        return list(lines)
    return [part for line in lines for part in ([line] if "\t" in line else wrap(line, fnt, width, 4))]


def _menu_area(d: ImageDraw.ImageDraw, screen: Screen, box, size: int) -> None:
    x0, y0, x1, y1 = box
    if screen.qr:  # on the right, the lines beside it
        side = min(y1 - y0, (x1 - x0) * 2 // 5)
        qr_code(d, screen.qr, (x1 - side, y0 + (y1 - y0 - side) // 2, x1, y0 + (y1 - y0 + side) // 2),
                BACKGROUND, TEXT)
        x1 -= side
    fnt = font(size)
    step = size + 6
    bar = 14 if screen.progress is not None else 0
    visible = max(1, (y1 - y0 - bar - 4) // step)
    lines = _fitted(screen.lines, screen.selected, fnt, x1 - x0 - 12)
    first = _window(screen.selected, len(lines), visible)
    for i, line in enumerate(lines[first:first + visible]):
        y = y0 + 4 + i * step
        if first + i == screen.selected:
            d.rectangle((x0 + 2, y - 2, x1 - 3, y + step - 4), fill=TEXT)
            d.text((x0 + 6, y), line, font=fnt, fill=BACKGROUND)
        else:
            d.text((x0 + 6, y), line, font=fnt, fill=TEXT)
    if screen.progress is not None:
        _progress(d, (x0 + 4, y1 - bar - 2, x1 - 5, y1 - 4), screen.progress, TEXT)


def qr_code(d: ImageDraw.ImageDraw, text: str, box, dark, light) -> None:
    """A QR code of `text` (segno) as large as `box` allows in whole pixels per module: dark modules on a light
    square with a quiet zone of two modules (one when two would leave modules of a single pixel)."""
    matrix = segno.make_qr(text, error="m").matrix
    n = len(matrix)
    x0, y0, x1, y1 = box
    side = min(x1 - x0, y1 - y0)
    scale = side // (n + 4) if side // (n + 4) >= 2 else side // (n + 2)
    if not scale:
        return
    left, top = x0 + (x1 - x0 - side) // 2, y0 + (y1 - y0 - side) // 2
    d.rectangle((left, top, left + side - 1, top + side - 1), fill=light)
    left, top = left + (side - n * scale) // 2, top + (side - n * scale) // 2
    for j, row in enumerate(matrix):
        for i, module in enumerate(row):
            if module:
                d.rectangle((left + i * scale, top + j * scale, left + (i + 1) * scale - 1,
                             top + (j + 1) * scale - 1), fill=dark)


def _window(selected: int | None, count: int, visible: int) -> int:
    """First line to show so that the selected line is visible."""
    if selected is None or count <= visible:
        return 0
    return min(max(0, selected - visible // 2), count - visible)


def _progress(d: ImageDraw.ImageDraw, box, fraction: float, ink) -> None:
    x0, y0, x1, y1 = box
    d.rectangle(box, outline=ink)
    fill = round((x1 - x0) * min(1.0, max(0.0, fraction)))
    if fill:
        d.rectangle((x0, y0, x0 + fill, y1), fill=ink)


# -- mono screens ---------------------------------------------------------------------------------
def mono_pages(screen: Screen) -> list[tuple[str, list[str], int | None]]:
    """Text pages (title, lines, highlighted line) for a small mono screen: message, forced spaces, scores.

    A menu or calibration screen is one page; with a QR code (`Screen.qr`) a second page, with no lines, shows it.
    A tab in a line right-aligns what follows it.
    """
    if screen.lines or screen.progress is not None:
        return [(screen.title, list(screen.lines), screen.selected)] + ([(screen.title, [], None)] if screen.qr else [])
    pages: list[tuple[str, list[str], int | None]] = [("", [screen.message] if screen.message else [], None)]
    if screen.forced:
        pages.append((_("Forced spaces"), [f"{f.letter}: {' '.join(colour_name(c) for c in f.colours)}"
                                           for f in screen.forced], None))
    if screen.scores:
        colours = [c for c, _points in screen.scores]
        turn = colours.index(screen.turn) if screen.turn in colours else None
        pages.append((_("Scores"), [f"{player_name(c)}\t{p}" for c, p in screen.scores], turn))
    return pages


def mono_frame(screen: Screen, size: tuple[int, int], page: int) -> Image.Image:
    """One text page in black and white; dots in the top right corner tell which page of how many."""
    w, h = size
    img = Image.new("1", size, 0)
    d = ImageDraw.Draw(img)
    pages = mono_pages(screen)
    title, lines, selected = pages[page % len(pages)]
    y = 0
    if len(pages) > 1:
        for i in range(len(pages)):
            cx = w - 4 - 6 * (len(pages) - 1 - i)
            d.ellipse((cx - 2, 0, cx + 2, 4), fill=1 if i == page % len(pages) else 0, outline=1)
        y = 6
    if screen.qr and not lines:  # the QR code's page: the code as high as the screen, its title beside it
        qr_code(d, screen.qr, (0, 0, h, h), 0, 1)
        for i, line in enumerate(wrap(title, font(12), w - h - 4, (h - y) // 14)):
            d.text((h + 3, y + i * 14), line, font=font(12), fill=1)
        return img
    if title:
        d.text((0, 0), title, font=font(12), fill=1)
        d.line((0, 14, w - 1, 14), fill=1)
        y = 17
    bar = 8 if screen.progress is not None else 0
    if not title and len(lines) == 1:
        fnt = font(14)
        for i, line in enumerate(wrap(lines[0], fnt, w - 2, (h - y) // 16)):
            d.text((0, y + i * 16), line, font=fnt, fill=1)
    else:
        fnt, step = font(11), 12
        visible = max(1, (h - y - bar) // step)
        lines = _fitted(lines, selected, fnt, w - 4)
        first = _window(selected, len(lines), visible)
        for i, line in enumerate(lines[first:first + visible]):
            top = y + i * step
            ink = 1
            if first + i == selected:
                d.rectangle((0, top, w - 1, top + step - 1), fill=1)
                ink = 0
            left, _tab, right = line.partition("\t")
            d.text((2, top), left, font=fnt, fill=ink)
            if right:
                d.text((w - 3, top), right, font=fnt, fill=ink, anchor="ra")
    if bar:
        _progress(d, (0, h - bar, w - 1, h - 1), screen.progress, 1)
    return img
