import queue
import threading
import time

import pytest

from tantrix_pi.live import config
from tantrix_pi.live.service import start_buttons

pytest.importorskip("tantrix_pi.devices.buttons")


def test_next_and_back_buttons_become_loop_commands():
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    Device.pin_factory = MockFactory()
    cfg = config.from_dict({"buttons": {"next": 5, "back": 6, "menu": 13}, "mode": {"players": ["green", "red"]}})
    commands: queue.Queue = queue.Queue()
    stop = threading.Event()
    buttons = start_buttons(cfg, commands, stop)
    try:
        for pin in (5, 6):
            Device.pin_factory.pin(pin).drive_low()
            time.sleep(0.1)
            Device.pin_factory.pin(pin).drive_high()
            time.sleep(0.1)
        got = [commands.get(timeout=2)[0], commands.get(timeout=2)[0]]
        assert got == ["end_turn", "undo"]
        Device.pin_factory.pin(13).drive_low()  # menu: its page goes to the screen through the loop
        time.sleep(0.1)
        Device.pin_factory.pin(13).drive_high()
        name, page = commands.get(timeout=2)
        assert name == "screen" and page.lines
    finally:
        stop.set()
        buttons.close()
        Device.pin_factory.reset()
