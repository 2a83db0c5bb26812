"""Buttons driven through gpiozero's MockFactory: press, bounce, hold; the menu model they drive."""

import time

import pytest

from tantrix_pi.devices.buttons import DEFAULT_PINS, Buttons, FakeButtons, Press
from tantrix_pi.devices.display import Display, MemoryDevice
from tantrix_pi.devices.errors import DeviceError
from tantrix_pi.devices.menu import Menu, MenuAction, Settings
from tantrix_pi.tiles import COLOURS


def drain(q) -> list[Press]:
    out = []
    while not q.empty():
        out.append(q.get_nowait())
    return out


def press(pin, down=0.0):
    pin.drive_low()
    if down:
        time.sleep(down)
    pin.drive_high()


def settle(buttons, timeout=10.0):
    """Wait until every pin has kept still for the debounce time and been looked at again."""
    deadline = time.monotonic() + timeout
    while any(t.is_alive() for t in list(buttons._timers.values())):
        assert time.monotonic() < deadline, "debounce timers never fired"
        time.sleep(0.005)


def test_next_and_back_queue_one_event_per_press(mock_factory):
    buttons = Buttons(debounce=0.0)
    press(mock_factory.pin(DEFAULT_PINS["next"]))
    press(mock_factory.pin(DEFAULT_PINS["back"]))
    press(mock_factory.pin(DEFAULT_PINS["next"]))
    assert drain(buttons.events) == [Press.NEXT, Press.BACK, Press.NEXT]
    buttons.close()


def test_a_with_block_releases_the_pins_even_when_it_fails(mock_factory):
    held = Buttons(debounce=0.0)
    with pytest.raises(DeviceError, match="buttons on BCM"):
        Buttons(debounce=0.0)  # the pins are taken
    held.close()
    with pytest.raises(RuntimeError), Buttons(debounce=0.0) as buttons:
        press(mock_factory.pin(DEFAULT_PINS["next"]))
        assert drain(buttons.events) == [Press.NEXT]
        raise RuntimeError("the loop failed")
    with Buttons(debounce=0.0) as again:  # released by the block: free to take again
        assert again.pins == DEFAULT_PINS


def test_contact_bounce_gives_a_single_press(mock_factory):
    buttons = Buttons(debounce=0.1)  # the chatter below must come within it even on a loaded machine
    pin = mock_factory.pin(DEFAULT_PINS["next"])
    for _ in range(4):  # chatter on closing: low/high within a millisecond
        pin.drive_low()
        pin.drive_high()
    pin.drive_low()
    settle(buttons)
    assert drain(buttons.events) == [Press.NEXT]
    for _ in range(3):  # chatter on release
        pin.drive_high()
        pin.drive_low()
    pin.drive_high()
    settle(buttons)
    assert drain(buttons.events) == []
    pin.drive_low()
    pin.drive_high()  # a glitch shorter than the debounce time is no press
    settle(buttons)
    assert drain(buttons.events) == []
    pin.drive_low()
    settle(buttons)
    pin.drive_high()
    settle(buttons)
    assert drain(buttons.events) == [Press.NEXT], "a real second press counts"


def test_menu_press_is_menu_and_holding_it_is_new_game(mock_factory):
    buttons = Buttons(hold_seconds=0.6, debounce=0.02)  # settling must not take the hold time, even when loaded
    pin = mock_factory.pin(DEFAULT_PINS["menu"])
    pin.drive_low()
    settle(buttons)
    assert drain(buttons.events) == [], "menu waits for release: it could become a hold"
    pin.drive_high()
    settle(buttons)
    assert drain(buttons.events) == [Press.MENU]
    pin.drive_low()
    assert buttons.events.get(timeout=10) == Press.NEW_GAME, "sent while still held"
    pin.drive_high()
    settle(buttons)
    assert drain(buttons.events) == [], "no menu event after a hold"


def test_pins_are_configurable_and_checked(mock_factory):
    buttons = Buttons({"next": 5, "back": 6, "menu": 13}, debounce=0.0)
    press(mock_factory.pin(6))
    press(mock_factory.pin(DEFAULT_PINS["back"]))  # the default pin is no longer a button
    assert drain(buttons.events) == [Press.BACK]
    buttons.close()
    again = Buttons({"next": 5, "back": 6, "menu": 13})  # close() released the pins
    again.close()
    for pins, words in [({"next": 27}, "share a pin"), ({"next": 40}, "2..27"), ({"ok": 4}, "unknown button"),
                        ({"menu": True}, "BCM")]:
        with pytest.raises(DeviceError, match=words):
            Buttons(pins)
    with pytest.raises(DeviceError, match="shorter than the hold"):
        Buttons(hold_seconds=0.1, debounce=0.2)


def test_fake_buttons_queue_like_the_real_ones():
    fake = FakeButtons()
    fake.press(Press.BACK)
    assert drain(fake.events) == [Press.BACK]


# -- the menu --------------------------------------------------------------------------------------
def test_closed_menu_maps_buttons_to_turn_undo_and_open():
    menu = Menu()
    assert menu.handle(Press.NEXT) == [MenuAction("end_turn")]
    assert menu.handle(Press.BACK) == [MenuAction("undo")]
    assert menu.screen() is None
    assert menu.handle(Press.MENU) == [] and menu.is_open
    assert menu.screen().lines[0] == "Mode: game" and menu.screen().selected == 0


def test_menu_changes_players_and_seats_and_applies_on_close():
    menu = Menu()
    menu.handle(Press.MENU)
    while menu.items()[menu.index] != "players":
        menu.handle(Press.MENU)
    menu.handle(Press.NEXT)
    assert menu.settings.players == 3 and "Seat 3: Yellow" in menu.screen().lines
    menu.handle(Press.MENU)  # seat 1
    menu.handle(Press.NEXT)  # red -> yellow, which seat 3 had: they swap
    assert menu.settings.colours == ("Y", "B", "R")
    commands = menu.handle(Press.BACK)
    assert commands == [MenuAction("apply", Settings(players=3, seats=("Y", "B", "R", "G")))]
    assert not menu.is_open
    menu.handle(Press.MENU)
    assert menu.handle(Press.BACK) == [], "nothing changed, nothing to apply"


def test_seat_colours_stay_a_permutation_whatever_is_pressed():
    menu = Menu(Settings(players=4))
    menu.handle(Press.MENU)
    for i in range(60):
        menu.handle(Press.MENU if i % 3 else Press.NEXT)
        if not menu.is_open:
            menu.handle(Press.MENU)
        assert sorted(menu.settings.seats) == sorted(COLOURS)


def test_modes_show_their_own_items_and_name_the_puzzle():
    menu = Menu()
    menu.handle(Press.MENU)
    menu.handle(Press.NEXT)  # game -> discovery
    assert menu.settings.puzzle == "discovery:10" and menu.items()[1] == "discovery"
    assert "players" not in menu.items() and menu.settings.colours == ()
    menu.handle(Press.MENU)
    menu.handle(Press.NEXT)
    assert menu.settings.puzzle == "discovery:11"
    menu.index = 0
    menu.handle(Press.NEXT)  # -> rainbow
    assert menu.settings.puzzle == "rainbow:red" and menu.screen().lines[1] == "Rainbow: red backs"


def test_holding_menu_starts_a_new_game_from_anywhere():
    menu = Menu()
    assert menu.handle(Press.NEW_GAME) == [MenuAction("new_game", Settings())]
    menu.handle(Press.MENU)
    menu.handle(Press.NEXT)
    commands = menu.handle(Press.NEW_GAME)
    assert [c.name for c in commands] == ["apply", "new_game"] and not menu.is_open


def test_voice_item_toggles():
    menu = Menu()
    menu.handle(Press.MENU)
    menu.index = menu.items().index("voice")
    menu.handle(Press.NEXT)
    assert menu.handle(Press.BACK) == [MenuAction("apply", Settings(voice=True))]


def test_calibration_steps_wait_for_results_and_show_progress():
    menu = Menu(calibration_steps=("clear the table", "lay the board"))
    menu.handle(Press.MENU)
    menu.index = menu.items().index("calibrate")
    menu.handle(Press.NEXT)
    screen = menu.screen()
    assert screen.title == "Calibration 1/2" and screen.lines[0] == "clear the table" and screen.progress == 0
    assert menu.handle(Press.NEXT) == [MenuAction("calibrate", step=0)]
    assert menu.handle(Press.NEXT) == [], "busy: a second press does not start the step twice"
    menu.calibration_result(False, "table not found")
    assert menu.screen().lines == ("clear the table", "Try again: table not found")
    assert menu.handle(Press.NEXT) == [MenuAction("calibrate", step=0)]
    menu.calibration_result(True)
    assert menu.screen().title == "Calibration 2/2" and menu.screen().progress == 0.5
    menu.handle(Press.NEXT)
    menu.calibration_result(True)
    assert menu.step is None and menu.is_open and menu.screen().title == "Calibration saved"


def test_back_cancels_calibration():
    menu = Menu()
    menu.handle(Press.MENU)
    menu.index = menu.items().index("calibrate")
    menu.handle(Press.NEXT)
    assert menu.handle(Press.BACK) == [MenuAction("calibration_cancelled")]
    assert menu.step is None and menu.screen().title == "Menu"


def test_buttons_drive_the_menu_drawn_on_a_mono_display(mock_factory):
    buttons = Buttons(debounce=0.0)
    menu = Menu()
    device = MemoryDevice((128, 64), "1")
    display = Display(device)
    press(mock_factory.pin(DEFAULT_PINS["menu"]))
    press(mock_factory.pin(DEFAULT_PINS["next"]))
    for event in drain(buttons.events):
        menu.handle(event)
        display.show(menu.screen())
    assert menu.settings.mode == "discovery"
    assert device.image is not None and device.image.size == (128, 64)
    assert display.screen.lines[0] == "Mode: Discovery"


def test_the_menu_shows_the_web_pages_address_and_pairing_code_again():
    from tantrix_pi.devices.screen import Screen

    menu = Menu()
    assert "web" not in menu.items()  # no page runs
    menu.web = Screen(title="Web page", lines=("http://192.168.1.20:8080/", "Pairing code 123456"),
                      qr="http://192.168.1.20:8080/")
    menu.handle(Press.MENU)
    menu.index = menu.items().index("web")
    assert menu.label("web") == "Web page and pairing code"
    assert menu.handle(Press.NEXT) == [] and menu.screen() is menu.web
    assert menu.handle(Press.BACK) == [] and menu.is_open and menu.screen().title == "Menu"  # back to the menu
    menu.handle(Press.NEXT)
    assert menu.handle(Press.NEXT) == [] and menu.screen().title == "Menu", "any button goes back"
