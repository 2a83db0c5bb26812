"""The three buttons, end to end: gpiozero mock pins -> Buttons -> the loop's Menu -> the referee's effect."""

import time

import pytest
from live_fakes import B, detect_frame, frame_of

from tantrix_pi.board import Board
from tantrix_pi.devices.sources import FrameSource
from tantrix_pi.devices.voice import FakeVoice
from tantrix_pi.live import config
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.service import setup_of, start_buttons
from tantrix_pi.live.sinks import MemorySink, Sinks, VoiceSink
from tantrix_pi.live.store import Store

PINS = {"next": 5, "back": 6, "menu": 13}


class Table(FrameSource):
    """A camera over a still table that shows `board` (the test changes it)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.hand = False
        self.frames = 0

    def read(self):
        time.sleep(0.005)
        self.frames += 1
        return frame_of(self.board, hand=self.hand, seed=self.frames)


class Rig:
    """A loop on a Table, its buttons on mock pins, a MemorySink (and a fake voice) to see what happened."""

    def __init__(self, tmp_path, factory, board: Board, sections: dict) -> None:
        self.cfg = config.from_dict({"buttons": {**PINS, "hold_s": 0.5}, **sections})
        self.sink, self.voice = MemorySink(), FakeVoice(enabled=self.cfg.voice.enabled)
        self.store = Store(tmp_path / "state.db")
        self.table = Table(board)
        self.loop = LiveLoop(self.table, detect_frame, self.store, setup_of(self.cfg),
                             Sinks([self.sink, VoiceSink(self.voice)]))
        self.factory = factory
        self.buttons = start_buttons(self.cfg, self.loop, pin_factory=self.factory)
        assert self.buttons is not None and self.loop.menu is not None

    def press(self, name: str, held: bool = False) -> None:
        """Press and release button `name` (`held`: until it has said so), then run one loop step."""
        pin = self.factory.pin(PINS[name])
        pin.drive_low()
        self.wait(lambda: name in self.buttons.down)
        if held:
            self.wait(lambda: not self.loop.buttons.empty())
        pin.drive_high()
        self.wait(lambda: name not in self.buttons.down)
        self.loop.step()

    @staticmethod
    def wait(condition, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, "the buttons never settled"
            time.sleep(0.002)

    def run_until(self, seen, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not seen():
            assert time.monotonic() < deadline, [e.text for e in self.sink.events]
            self.loop.step()

    def kinds(self) -> list[str]:
        return [e.kind for e in self.sink.events]

    def close(self) -> None:
        self.buttons.close()
        self.store.close()


@pytest.fixture
def rig(tmp_path, request, mock_factory):
    r = Rig(tmp_path, mock_factory, *request.param)
    yield r
    r.close()


ONE_TILE = B((21, 0, 0, 0))


@pytest.mark.parametrize("rig", [(ONE_TILE, {"mode": {"players": ["green", "red"]}})], indirect=True)
def test_next_back_and_holding_menu_reach_the_referee(rig):
    rig.run_until(lambda: "placed" in rig.kinds())
    rig.press("back")
    assert rig.sink.events[-1].text == "To undo, take tile 21 off (0,0)."
    rig.press("next")
    assert rig.sink.events[-1].text == "Green ends the turn: Red to play."
    first = rig.loop.game
    rig.press("menu", held=True)  # held: a new game, same settings
    assert rig.sink.events[-1].kind == "new_game" and rig.loop.game == first + 1
    assert rig.store.current_game() == (rig.loop.game, {"mode": "game", "players": ["G", "R"], "puzzle": None})


@pytest.mark.parametrize("rig", [(Board(), {})], indirect=True)
def test_menu_pages_reach_the_screen_and_a_changed_mode_starts_that_game(rig):
    rig.press("menu")
    page = rig.sink.screens[-1]
    assert page.title == "Menu" and page.lines[0] == "Mode: game" and page.selected == 0
    rig.press("next")  # changes the mode
    assert rig.sink.screens[-1].lines[:2] == ("Mode: Discovery", "Discovery: 10 tiles")
    views = len(rig.sink.views)
    rig.press("back")  # closes the menu: the settings apply
    assert rig.sink.events[-1].kind == "new_game"
    assert rig.store.current_game()[1] == {"mode": "discovery", "players": [], "puzzle": "discovery:10"}
    assert rig.loop.referee.setup.puzzle == "discovery:10"
    assert len(rig.sink.views) > views  # the game screen is back


@pytest.mark.parametrize("rig", [(Board(), {})], indirect=True)
def test_while_the_menu_is_open_its_page_stays_on_the_screen(rig):
    rig.press("menu")
    views = len(rig.sink.views)
    rig.table.board = ONE_TILE
    rig.run_until(lambda: "placed" in rig.kinds())  # announced, but the screen keeps the menu
    assert len(rig.sink.views) == views
    rig.press("back")
    assert rig.sink.views[-1].board == ONE_TILE


@pytest.mark.parametrize("rig", [(ONE_TILE, {})], indirect=True)
def test_voice_switched_on_from_the_menu_speaks_without_a_new_game(rig):
    rig.run_until(lambda: "placed" in rig.kinds())
    rig.press("back")
    assert rig.voice.said == []  # the config leaves the voice off
    rig.press("menu")
    while rig.sink.screens[-1].lines[rig.sink.screens[-1].selected] != "Voice: off":
        rig.press("menu")  # menu walks down the items
    rig.press("next")
    assert rig.sink.screens[-1].lines[rig.sink.screens[-1].selected] == "Voice: on"
    game = rig.loop.game
    rig.press("back")
    assert rig.loop.game == game and "new_game" not in rig.kinds()
    rig.press("back")
    assert rig.voice.said == ["To undo, take tile 21 off (0,0)."]


@pytest.mark.parametrize("rig", [(Board(), {})], indirect=True)
def test_calibration_from_the_menu_runs_on_the_loops_frames_with_progress(rig):
    calls = []

    def calibrate(step, frame):
        calls.append((step, frame.shape))
        return (False, "no sheet in view") if len(calls) == 1 else (True, "")

    rig.loop.jobs.calibrate = calibrate
    rig.loop.step()  # a first frame
    rig.press("menu")
    while rig.sink.screens[-1].lines[rig.sink.screens[-1].selected] != "Calibrate camera":
        rig.press("menu")
    rig.press("next")
    assert rig.sink.screens[-1].title == "Calibration 1/3" and rig.sink.screens[-1].progress == 0
    rig.table.hand = True  # the hand that presses next is still over the table: wait for it to go
    rig.press("next")
    for _ in range(5):
        rig.loop.step()
    assert calls == []
    rig.table.hand = False
    rig.run_until(lambda: "Try again: no sheet in view" in rig.sink.screens[-1].lines)
    rig.press("next")
    rig.run_until(lambda: rig.sink.screens[-1].title == "Calibration 2/3")
    assert rig.sink.screens[-1].progress == pytest.approx(1 / 3)
    assert calls == [(0, frame_of(Board()).shape)] * 2
    # while calibrating, what happens on the table is no move
    rig.table.board = ONE_TILE
    for _ in range(8):
        rig.loop.step()
    assert "placed" not in rig.kinds()
    rig.press("back")  # calibration cancelled: back to the menu, then out; the tile is seen now
    assert rig.sink.screens[-1].title == "Menu"
    rig.press("back")
    rig.run_until(lambda: "placed" in rig.kinds())


@pytest.mark.parametrize("rig", [(B((1, 0, 0, 0)), {"mode": {"kind": "discovery", "discovery": 3}})],
                         indirect=True)
def test_in_a_puzzle_next_asks_the_solver_in_the_background(rig, monkeypatch):
    from tantrix_pi import puzzles, solver

    rig.run_until(lambda: "placed" in rig.kinds())
    board = rig.loop.referee.board.copy()
    real = solver.hint

    def slow_hint(pz, b, timeout=None):
        time.sleep(1.0)
        return real(pz, b, timeout=timeout)

    monkeypatch.setattr(solver, "hint", slow_hint)
    frames = rig.loop.stats.frames
    t0 = time.monotonic()
    rig.press("next")
    assert rig.sink.events[-1].text == "Thinking about a hint..."
    rig.run_until(lambda: rig.kinds()[-1] == "hint")
    assert time.monotonic() - t0 >= 1.0 and rig.loop.stats.frames - frames >= 10  # frames went on meanwhile
    said = rig.sink.events[-1]
    expected = real(puzzles.puzzle("discovery:3"), board, timeout=10)
    assert said.data["next"] == expected.placement.to_dict() and said.data["solvable"]
    p = expected.placement
    assert said.text.startswith(f"Hint: tile {p.tile} at ({p.q},{p.r}) turn {p.rot}")
    assert rig.sink.views[-1].message == said.text  # on the screen's message line too


def test_a_hint_names_the_tile_that_blocks_the_puzzle():
    from tantrix_pi.live.hints import hint_event

    said = hint_event("discovery:3", B((1, 0, 0, 0), (9, 1, 0, 0)), timeout=10)
    assert not said.data["solvable"] and "take away tile 9 at (1,0)" in said.text


def test_the_main_loop_turns_a_mono_screens_pages(tmp_path):
    from tantrix_pi.devices.display import Display, MemoryDevice
    from tantrix_pi.devices.screen import Forced, Screen
    from tantrix_pi.live.referee import Setup
    from tantrix_pi.live.sinks import DisplaySink

    display = Display(MemoryDevice((128, 64), "1"), page_seconds=0.05)
    loop = LiveLoop(Table(Board()), detect_frame, Store(tmp_path / "s.db"), Setup(), DisplaySink(display))
    display.show(Screen(message="Red to play", forced=(Forced("A", (1, 0), "RY"),), scores=(("R", 3), ("B", 5))))
    assert display.pages > 1
    pages = set()
    for _ in range(3 * display.pages):
        time.sleep(0.06)
        loop.step()
        pages.add(display.page)
    assert pages == set(range(display.pages))


def test_the_menu_starts_from_the_configured_puzzle_so_closing_it_unchanged_keeps_the_game():
    from tantrix_pi.live.referee import setup_of_settings
    from tantrix_pi.live.service import menu_of

    for mode in ({"kind": "rainbow", "rainbow": "white"}, {"kind": "discovery", "discovery": 7},
                 {"kind": "game", "players": ["yellow", "green", "red"]}, {"kind": "gobble"}):
        cfg = config.from_dict({"mode": mode})
        assert setup_of_settings(menu_of(cfg).settings) == setup_of(cfg), mode


def test_every_puzzle_the_menu_offers_is_one_the_rules_engine_knows():
    from tantrix_pi.devices.menu import DISCOVERY, MODES, Settings
    from tantrix_pi.puzzles import puzzle
    from tantrix_pi.tiles import BACK_COLOURS

    offered = {Settings(mode=m, rainbow=c, discovery=d).puzzle for m in MODES for c in BACK_COLOURS for d in DISCOVERY}
    names = {puzzle(p).name for p in offered - {None}}
    assert len(names) == len(DISCOVERY) + len(BACK_COLOURS) + 1  # every Discovery, every Rainbow, Solitaire
