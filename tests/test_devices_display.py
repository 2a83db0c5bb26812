"""Frames of the Display checked by pixels on luma's dummy device, at every supported size."""

from dataclasses import replace

import numpy as np
import pytest
from luma.core.device import dummy
from PIL import Image, ImageDraw

from tantrix_pi import render
from tantrix_pi.board import Board, Placement
from tantrix_pi.devices.display import MODELS, Display, open_display
from tantrix_pi.devices.errors import DeviceError
from tantrix_pi.devices.frames import font, wrap
from tantrix_pi.devices.screen import PLAYER_RGB, Forced, Screen

COLOUR_MODELS = [m for m in MODELS.values() if m.mode == "RGB"]
MONO_MODELS = [m for m in MODELS.values() if m.mode == "1"]

BOARD = Board([Placement(1, 0, 0, 0), Placement(2, 1, 0, 0), Placement(3, 0, 1, 0)])
GAME = Screen(message="Blue to play", forced=(Forced("A", (1, 1), "RY"),), scores=(("R", 7), ("B", 12), ("Y", 3)),
              turn="B", board=BOARD, last=BOARD[(0, 1)])


def show(model, screen, **kw):
    device = dummy(width=model.size[0], height=model.size[1], mode=model.mode)
    display = Display(device, **kw)
    display.show(screen)
    return display, device


def rgb(device) -> np.ndarray:
    return np.asarray(device.image.convert("RGB"))


def contains_text(frame: Image.Image, text: str, size: int) -> bool:
    """True when `text`, drawn in the display's font at `size`, appears somewhere in the frame (light on dark).

    A word inside a line starts at a fraction of a pixel, so it is stamped at sixteen such starts."""
    mode = "1" if frame.mode == "1" else "L"
    bbox = font(size).getbbox(text)
    f = np.asarray(frame.convert(mode)) > (127 if mode == "L" else 0)
    for k in range(16):
        stamp = Image.new(mode, (bbox[2] + 2, bbox[3]), 0)
        ImageDraw.Draw(stamp).text((k / 16, 0), text, font=font(size), fill=255 if mode == "L" else 1)
        t = (np.asarray(stamp) > (127 if mode == "L" else 0))[bbox[1]:]
        lit = np.where(t.any(axis=0))[0]
        t = t[:, lit.min():lit.max() + 1]
        windows = np.lib.stride_tricks.sliding_window_view(f, t.shape)
        if (windows == t).all(axis=(2, 3)).any():
            return True
    return False


@pytest.mark.parametrize("model", COLOUR_MODELS, ids=lambda m: m.name)
def test_score_bar_has_each_players_colour_in_seating_order(model):
    _, device = show(model, GAME)
    px = rgb(device)
    w, h = model.size
    seg = w / 3
    y = h - 5
    for i, (colour, _) in enumerate(GAME.scores):
        x = int(i * seg + 6)
        assert tuple(px[y, x]) == PLAYER_RGB[colour], (colour, x, y)
    # the player to move (blue, second seat) is outlined in white, the others are not
    assert tuple(px[h - 2, int(seg + seg / 2)]) == (255, 255, 255)
    assert tuple(px[h - 2, int(seg / 2)]) == PLAYER_RGB["R"]


@pytest.mark.parametrize("model", COLOUR_MODELS, ids=lambda m: m.name)
def test_map_sits_between_message_and_scores_and_forced_colours_are_listed(model):
    _, device = show(model, GAME)
    px = rgb(device)
    h = model.size[1]
    rows = np.where((px == render.BACKGROUND).all(axis=2).any(axis=1))[0]  # the renderer's table colour
    assert rows.size and rows.min() >= round(h * 0.16) and rows.max() < h - round(h * 0.11)
    for colour in "RY":  # forced space A needs red and yellow: both swatches are drawn outside the score bar
        found = np.where((px[: int(h * 0.89)] == PLAYER_RGB[colour]).all(axis=2))
        assert found[0].size > 20, colour
    assert not (px[: int(h * 0.89)] == PLAYER_RGB["G"]).all(axis=2).any()


def near(px: np.ndarray, rgb: tuple[int, int, int], tolerance: int = 30) -> np.ndarray:
    return (np.abs(px.astype(int) - rgb) <= tolerance).all(axis=2)


@pytest.mark.parametrize("model", COLOUR_MODELS, ids=lambda m: m.name)
def test_map_letters_the_forced_space_and_marks_the_last_placement(model):
    h = model.size[1]
    top, bottom, width = round(h * 0.16), h - round(h * 0.11), h - round(h * 0.16) - round(h * 0.11)
    _, device = show(model, GAME)
    map_px = rgb(device)[top:bottom, :width]
    assert near(map_px, render.FORCED_RGB).sum() > 20, "forced space A drawn by the renderer"
    assert near(map_px, render.LAST_RGB, 10).sum() > 20, "last placement outlined"
    _, device = show(model, replace(GAME, forced=(), last=None))
    map_px = rgb(device)[top:bottom, :width]
    assert near(map_px, render.FORCED_RGB).sum() == 0 and near(map_px, render.LAST_RGB, 10).sum() == 0


@pytest.mark.parametrize("model", COLOUR_MODELS, ids=lambda m: m.name)
def test_colour_message_bar_shows_text_only_when_there_is_a_message(model):
    _, device = show(model, GAME)
    bar = rgb(device)[: int(model.size[1] * 0.15)]
    assert (bar > 200).all(axis=2).sum() > 30
    _, device = show(model, Screen(scores=GAME.scores))
    bar = rgb(device)[: int(model.size[1] * 0.15)]
    assert (bar > 200).all(axis=2).sum() == 0


@pytest.mark.parametrize("model", COLOUR_MODELS, ids=lambda m: m.name)
def test_colour_menu_highlights_the_selected_line(model):
    screen = Screen(title="Menu", lines=("Mode: game", "Players: 2", "Voice: off"), selected=1)
    _, device = show(model, screen)
    px = rgb(device)
    white_rows = np.where((px == 255).all(axis=2).sum(axis=1) > model.size[0] * 0.9)[0]
    assert white_rows.size > 5
    step = model.size[1] // 15 + 6
    top = round(model.size[1] * 0.16)
    assert top + step <= white_rows.min() < top + 2 * step


@pytest.mark.parametrize("model", MONO_MODELS, ids=lambda m: m.name)
def test_mono_pages_message_forced_scores_and_back(model):
    display, device = show(model, GAME)
    assert device.image.mode == "1" and device.image.size == model.size
    assert display.pages == 3
    assert contains_text(device.image, "Blue", 14) and contains_text(device.image, "play", 14)
    display.next_page()
    assert contains_text(device.image, "Forced", 12) and contains_text(device.image, "yellow", 11)
    display.next_page()
    assert contains_text(device.image, "Scores", 12)
    band = np.asarray(device.image, dtype=bool)[17 + 12:17 + 24]  # blue's row: the player to move
    assert band.mean() > 0.6 and (~band).sum() > 10, "blue's row is inverted, its text dark on light"
    assert contains_text(device.image, "Red", 11)
    display.next_page()
    assert display.page == 0 and contains_text(device.image, "Blue", 14)


@pytest.mark.parametrize("model", MONO_MODELS, ids=lambda m: m.name)
def test_mono_pages_turn_on_a_timer_and_a_new_message_starts_at_page_one(model):
    display, device = show(model, GAME, page_seconds=4.0)
    start = display._page_shown_at
    assert display.tick(start + 1.0) is None and display.page == 0
    assert display.tick(start + 4.5) is not None and display.page == 1
    display.show(GAME)
    assert display.page == 1, "the same message keeps its page"
    display.show(Screen(message="Red placed tile 9", scores=GAME.scores))
    assert display.page == 0 and contains_text(device.image, "tile", 14)


@pytest.mark.parametrize("model", MONO_MODELS, ids=lambda m: m.name)
def test_mono_long_message_wraps_inside_the_screen(model):
    words = "Forced space A must be filled before any other tile is placed"
    _, device = show(model, Screen(message=words))
    frame = np.asarray(device.image, dtype=bool)
    lit_rows = np.where(frame.any(axis=1))[0]
    assert lit_rows.max() - lit_rows.min() > 40, "several lines"
    assert contains_text(device.image, "Forced", 14) and contains_text(device.image, "must", 14)


@pytest.mark.parametrize("model", MODELS.values(), ids=lambda m: m.name)
def test_png_display_writes_every_frame_at_the_models_size(tmp_path, model):
    display = open_display(f"png:{tmp_path}", {"model": model.name})
    display.show(GAME)
    display.show(GAME)  # unchanged: nothing new to send
    display.show(Screen(message="Game over"))
    files = sorted(tmp_path.glob("frame-*.png"))
    assert [f.name for f in files] == ["frame-00001.png", "frame-00002.png"]
    first = Image.open(files[0])
    assert first.size == model.size and first.mode == model.mode


@pytest.mark.parametrize("model", MODELS.values(), ids=lambda m: m.name)
def test_a_with_block_clears_and_releases_the_panel(model):
    device = dummy(width=model.size[0], height=model.size[1], mode=model.mode)
    with Display(device) as display:
        display.show(GAME)
        assert rgb(device).any()
    assert not rgb(device).any()  # luma's cleanup blanked the panel


def test_missing_hardware_falls_back_to_png_only_when_asked(tmp_path):
    with pytest.raises(DeviceError, match="i2c-99"):
        open_display("ssd1306", {"i2c_port": 99})
    display = open_display("ssd1306", {"i2c_port": 99}, fallback_dir=tmp_path)
    display.show(Screen(message="hello"))
    assert Image.open(tmp_path / "frame-00001.png").size == (128, 64)


@pytest.mark.parametrize("spec, options, words", [
    ("oled", {}, "not supported"),
    ("ssd1306", {"gpio_dc": 24}, "'gpio_dc' does not apply"),
    ("st7789", {"rotate": 5}, "0..3"),
    ("st7789", {"spi_port": "0"}, "whole number"),
    ("png:x", {"model": "epaper"}, "not supported"),
])
def test_bad_display_settings_get_one_line_naming_them(spec, options, words):
    with pytest.raises(DeviceError, match=words) as e:
        open_display(spec, options)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("model", MODELS.values(), ids=lambda m: m.name)
def test_calibration_text_wraps_and_shows_progress(model):
    step = "Lay the calibration board flat in the middle, then press next"
    _, device = show(model, Screen(title="Calibration 2/3", lines=(step,), progress=1 / 3))
    px = np.asarray(device.image.convert("L")) > 128
    w, h = model.size
    row = px[h - 4] if model.mode == "1" else px[h - round(h * 0.11) - 10]
    assert row[6:int(w * 0.3)].all() and not row[int(w * 0.4):w - 8].any(), "a third of the bar is filled"
    size = 11 if model.mode == "1" else h // 15
    for word in ("Lay", "middle,", "press"):  # each line of the wrapped step is on the screen
        assert contains_text(device.image, word, size), word


def test_a_word_wider_than_the_screen_is_broken_after_a_slash_or_between_letters():
    text = "Nucená místa: A na (0,-1) (barvy: modrá/červená/modrá/zelená), pasují: 1, 10, 36. " + "x" * 40
    lines = wrap(text, font(14), 126, 20)
    assert all(font(14).getlength(line) <= 126 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert any(line.endswith("/") for line in lines)


def read_qr(frame: Image.Image) -> str:
    """What a phone's camera reads in the frame (each pixel blown up, as a panel's pixels are to a camera)."""
    import cv2

    grey = np.asarray(frame.convert("L"))
    return cv2.QRCodeDetector().detectAndDecode(cv2.resize(grey, None, fx=4, fy=4,
                                                           interpolation=cv2.INTER_NEAREST))[0]


@pytest.mark.parametrize("model", list(MODELS.values()), ids=lambda m: m.name)
@pytest.mark.parametrize("address", ["http://192.168.1.20:8080/", "http://tantrix-pi.local:8080/"])
def test_the_web_pages_start_page_shows_its_address_as_a_qr_code(model, address):
    screen = Screen(title="Web page", lines=(address, "Pairing code 123456"), qr=address)
    display, device = show(model, screen)
    if model.mode == "1":  # the lines first, then the code on a page of its own
        assert display.pages == 2 and read_qr(device.image) == "" and contains_text(device.image, "Pairing code", 11)
        display.next_page()
    else:
        assert contains_text(device.image, "Pairing code", model.size[1] // 15)
    assert read_qr(device.image) == address
    _, device = show(model, replace(screen, qr=""))
    assert read_qr(device.image) == ""
