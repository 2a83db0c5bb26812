"""`tantrix-pi devices check`: a test frame, button presses printed, one-line errors."""

import threading
import time

from PIL import Image

from tantrix_pi.cli import main
from tantrix_pi.devices.screen import PLAYER_RGB


def test_check_draws_the_sample_frame_with_every_player_colour(tmp_path, capsys):
    assert main(["devices", "check", "--display", f"png:{tmp_path}", "--option", "model=ili9341"]) == 0
    frame = Image.open(tmp_path / "frame-00001.png")
    assert frame.size == (320, 240)
    colours = {c for _, c in frame.getcolors(maxcolors=100_000)}
    assert all(rgb in colours for rgb in PLAYER_RGB.values())
    assert "320x240 colour" in capsys.readouterr().out


def test_check_reports_a_missing_display_in_one_line(capsys):
    assert main(["devices", "check", "--display", "ssd1306", "--option", "i2c_port=99"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "/dev/i2c-99" in err


def test_check_prints_button_presses_and_shows_them(tmp_path, capsys, mock_factory):
    def presser():
        pin = mock_factory.pin(5)
        while pin.when_changed is None:  # until the command watches the buttons
            time.sleep(0.01)
        pin.drive_low()  # held down: the press counts once it has kept still for the debounce time

    thread = threading.Thread(target=presser, daemon=True)
    thread.start()
    code = main(["devices", "check", "--display", f"png:{tmp_path}", "--buttons", "5,6,13", "--seconds", "3"])
    assert code == 0
    assert "button: next" in capsys.readouterr().out
    assert len(list(tmp_path.glob("frame-*.png"))) == 2


def test_check_rejects_bad_pins_and_options(capsys):
    assert main(["devices", "check", "--buttons", "5,6"]) == 2
    assert main(["devices", "check", "--display", "none", "--option", "rotate"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
