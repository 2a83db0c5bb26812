"""The table's web page in a real browser (Debian's chromium through chromium-driver, driven by selenium),
served by `tantrix-pi demo --web` while the bundled game replays; the same run publishes the game to a broker
(`--mqtt`, Debian's mosquitto), which one test checks beside the page (one replay of the whole game for both).

The rulings, the moves, sharing, languages and the page's options are tried on the bundled game stopped with
its illegal tile on the table (`web_fakes`: hand-made frames through the live loop).

Set TANTRIX_PI_SCREENSHOTS=DIR to keep the phone- and desktop-sized screenshots and the illegal moment
(docs/web.md shows them).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import broker as mqtt
import cv2
import pytest
from chromium import DESKTOP, PHONE, browser, needs_chromium

from tantrix_pi.simulator import PLAIN, legal_board, render

pytestmark = pytest.mark.xdist_group("browser")  # run first, on one worker (conftest.py): the replay starts once


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


def wait_for(condition, timeout: float = 60.0, step: float = 0.2):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"not within {timeout} s")


def live_page(driver, url: str) -> None:
    """Open the live page and wait until its script has drawn the state it came with (on a loaded machine the
    driver can hand back the page before that)."""
    driver.get(url)
    wait_for(lambda: driver.execute_script("return document.readyState === 'complete' && typeof current === 'object' "
                                           "&& document.getElementById('scores').childElementCount > 0"), 30)


@pytest.fixture(scope="module")
def demo_feed(tmp_path_factory):
    """A broker and a listener on it for the demo to publish to, as table t9; None without mosquitto."""
    if not mqtt.HAVE_MOSQUITTO:
        yield None
        return
    b = mqtt.Mosquitto(tmp_path_factory.mktemp("broker")).start()
    yield b, mqtt.Listener(b.url)
    b.stop()


@pytest.fixture(scope="module")
def demo(tmp_path_factory, demo_feed):
    """`tantrix-pi demo --web PORT` running, publishing to `demo_feed`'s broker as table t9 when there is one: (base
    URL, its log file, the pairing code)."""
    tmp = tmp_path_factory.mktemp("demo")
    port = free_port()
    log = (tmp / "demo.log").open("w")
    feed = [] if demo_feed is None else ["--mqtt", demo_feed[0].url, "--table", "t9"]
    # a suite started in the background (`nohup ... &`) hands its children SIGINT ignored: the demo gets Ctrl-C back
    proc = subprocess.Popen([sys.executable, "-m", "tantrix_pi", "demo", "--out", str(tmp / "out"), "--web", str(port),
                             "--fps", "20", *feed], stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    url = f"http://localhost:{port}/"

    def up():
        try:
            return api(url + "api/state")
        except OSError:
            assert proc.poll() is None, (tmp / "demo.log").read_text()
            return None

    wait_for(up, 60)
    code = wait_for(lambda: re.search(r"pairing code (\d{6})", (tmp / "demo.log").read_text()), 10)
    yield url, tmp / "demo.log", code.group(1)
    wait_for(lambda: api(url + "api/state")["over"], 240)
    wait_for(lambda: "the page stays at" in (tmp / "demo.log").read_text(), 60)
    proc.send_signal(signal.SIGINT)  # the demo serves until Ctrl-C, then ends well
    try:
        assert proc.wait(20) == 0
    finally:
        proc.kill()  # no-op once it has ended; else no demo outlives the test
    assert "all 56 placements recognised in order" in (tmp / "demo.log").read_text()
    log.close()


def shown(driver) -> tuple[list[tuple[int, int, int, int]], dict[str, str]]:
    tiles = driver.execute_script(
        "return [...document.querySelectorAll('#board g.tile')].map(g => [g.dataset.tile, g.dataset.q, "
        "g.dataset.r, g.dataset.rot].map(Number))")
    scores = driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('[data-score-colour]')]"
        ".map(e => [e.dataset.scoreColour, e.textContent]))")
    return sorted(map(tuple, tiles)), scores


@needs_chromium
def test_the_live_page_shows_the_replayed_game_as_it_progresses_to_its_end(demo):
    url, log, _ = demo
    with browser(PHONE) as phone:
        phone.get(url)
        counts, score_values = [], set()
        end = time.monotonic() + 240
        while time.monotonic() < end:
            tiles, scores = shown(phone)
            counts.append(len(tiles))
            score_values.add(tuple(sorted(scores.items())))
            if len(tiles) == 56 and "Game over" in phone.find_element("id", "status").text:
                break
            time.sleep(0.25)
        tiles, scores = shown(phone)
        state = api(url + "api/state")
        assert len(tiles) == 56
        assert tiles == sorted((t["tile"], t["q"], t["r"], t["rot"]) for t in state["board"]["tiles"])
        assert scores == {c: str(s) for c, s in state["scores"].items()} and set(scores) == {"R", "Y"}
        # the page followed the game: many board sizes and scores on the way, growing but for the tile taken back
        assert len(set(counts)) >= 10 and len(score_values) >= 5, (counts, score_values)
        drops = [a - b for a, b in zip(counts, counts[1:], strict=False) if b < a]
        assert all(d == 1 for d in drops) and len(drops) <= 1
        winner = {"R": "Red", "Y": "Yellow"}[state["winners"][0]]
        assert f"Game over: {winner} wins." in phone.find_element("id", "status").text
        assert phone.find_element("css selector", "#events li").text.endswith(state["events"][-1]["text"])
        assert not picture_fetched(phone)  # the camera's picture waits until it is opened
        phone.find_element("css selector", "#seen summary").click()
        assert wait_for(lambda: phone.execute_script("const i = document.getElementById('seen-img');"
                                                     "return i.complete && i.naturalWidth > 0"), 10)
        assert picture_fetched(phone)
        keep = os.environ.get("TANTRIX_PI_SCREENSHOTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            phone.set_window_size(PHONE[0], 2200)
            phone.save_screenshot(str(Path(keep) / "web-phone.png"))
            with browser(DESKTOP) as desktop:
                desktop.get(url)
                wait_for(lambda: len(shown(desktop)[0]) == 56, 10)
                desktop.save_screenshot(str(Path(keep) / "web-desktop.png"))


@needs_chromium
def test_a_photo_checked_in_the_browser_gets_the_verdict(demo, tmp_path):
    url, _, _ = demo
    image, _ = render(legal_board(6, seed=5), seed=5, size=(800, 600), tile_px=70.0, yaw_deg=8.0, **PLAIN)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    from tantrix_pi.cli import main

    with browser(PHONE) as driver:
        driver.get(url)
        driver.find_element("css selector", "#check-form input[type=file]").send_keys(str(photo))
        for box in driver.find_elements("css selector", "#check-form input[name=player]"):
            if box.is_selected() != (box.get_attribute("value") in "RG"):
                box.click()
        driver.find_element("css selector", "#check-form button").click()
        result = wait_for(lambda: driver.find_elements("css selector", "#check-result .winner, #check-result .refused"),
                          120)
        assert result[0].get_attribute("class") == "winner", result[0].text
        items = {e.get_attribute("data-check-colour"): e.text
                 for e in driver.find_elements("css selector", "#check-result [data-check-colour]")}
        overlay = driver.find_element("css selector", "#check-result img")
        assert overlay.get_attribute("src").startswith("data:image/jpeg")
        winner_line = result[0].text
    out = tmp_path / "cli.json"
    with open(out, "w") as f, contextlib.redirect_stdout(f):
        assert main(["score", str(photo), "--players", "red,green", "--json"]) == 0
    cli = json.loads(out.read_text())
    assert set(items) == set(cli["scores"]) == {"red", "green"}
    for colour, s in cli["scores"].items():
        assert items[colour] == f"{colour.capitalize()}: line {s['line']}, loop {s['loop']}, score {s['score']}"
    assert winner_line.endswith(" and ".join(w.capitalize() for w in cli["winners"]) + ".")


@needs_chromium
def test_control_without_pairing_is_refused_and_pairing_is_needed_first(demo):
    url, _, code = demo
    with browser(PHONE) as driver:
        driver.get(url)
        before = api(url + "api/state")["game"]
        driver.find_element("css selector", "button[data-action=end-turn]").click()
        result = driver.find_element("id", "control-result")
        wait_for(lambda: result.get_attribute("data-status") == "403", 10)
        assert "Pair this phone first" in result.text
        driver.find_element("css selector", "#pair-form input[name=code]").send_keys(code)
        driver.find_element("css selector", "#pair-form button").click()
        wait_for(lambda: result.get_attribute("data-status") == "200", 10)
        driver.find_element("css selector", "button[data-action=end-turn]").click()
        wait_for(lambda: result.get_attribute("data-status") == "409", 10)  # paired; the demo has nothing to run
        assert "demo" in result.text and api(url + "api/state")["game"] == before


@needs_chromium
def test_the_replay_slider_shows_the_board_at_every_step(demo):
    url, _, _ = demo
    wait_for(lambda: api(url + "api/state")["over"], 240)
    with browser(DESKTOP) as driver:
        driver.get(url + "replay")
        state = api(url + "api/state")
        steps = api(url + f"api/games/{state['game']}/steps")["steps"]
        wait_for(lambda: len(shown_in(driver, "#replay-board")) == 56, 20)
        chosen = driver.find_element("css selector", "#game-choice option:checked").text  # date, players, winner
        winner = {"R": "Red", "Y": "Yellow"}[state["winners"][0]]
        line = rf"Game {state['game']}, \w{{3}} \d{{1,2}}, \d{{4}}, .+: Red, Yellow, {winner} won"
        assert re.fullmatch(line, chosen), chosen
        slider = driver.find_element("id", "slider")
        assert int(slider.get_attribute("max")) == len(steps) - 1
        driver.execute_script("arguments[0].value = 1; arguments[0].dispatchEvent(new Event('input'))", slider)
        wait_for(lambda: len(shown_in(driver, "#replay-board")) == 1, 10)
        events = [e.text for e in driver.find_elements("css selector", "#step-events li")]
        assert events == steps[1]["events"] and events[0].endswith(".")


@mqtt.needs_mosquitto
def test_the_demo_plays_its_game_into_the_broker_as_the_table_named(demo, demo_feed):
    """(The demo's exit code and its verdict, all placements recognised, are the `demo` fixture's last checks.)"""
    _, log, _ = demo
    _, listener = demo_feed
    wait_for(lambda: "the page stays at" in log.read_text(), 240)  # the game over, its events all written
    assert "as table t9" in log.read_text()
    lines = (log.parent / "out" / "events.jsonl").read_text().splitlines()
    got = mqtt.wait_for(lambda: (m := listener.once("tantrix/t9/event")) and len(m) >= len(lines) and m, 30,
                        what="the demo's announcements")
    assert [m.payload.decode() for m in got] == lines and len(lines) > 20
    mqtt.wait_for(lambda: [m.payload for m in listener.on("tantrix/t9/online")][-1:] == [b"0"], 10,
                  what="online 0: it said goodbye as its game ended")
    state = json.loads(listener.on("tantrix/t9/state")[-1].payload)
    assert state["over"] and state["scores"] == json.loads(lines[-1])["data"]["scores"]


def shown_in(driver, where: str) -> list:
    return driver.find_elements("css selector", f"{where} g.tile")


def picture_fetched(driver) -> bool:
    return driver.execute_script("return performance.getEntriesByType('resource')"
                                 ".some(e => e.name.includes('/api/seen.jpg'))")


@pytest.fixture(scope="module")
def ruled(tmp_path_factory):
    """The page of the bundled game stopped with its illegal tile on the table: its base URL and the state."""
    sys.path.insert(0, str(Path(__file__).parent))
    from web_fakes import illegal_scene, play

    from tantrix_pi.web.server import listen, serve

    loop, hub, _ = play(tmp_path_factory.mktemp("ruled"), illegal_scene())
    server = serve(hub, listen("127.0.0.1", 0), state_db=loop.store.path)
    url = f"http://127.0.0.1:{server.port}/"
    yield url, api(url + "api/state")
    server.stop()


@needs_chromium
def test_an_illegal_tile_is_unmistakable_on_the_first_screen_of_a_phone(ruled):
    url, state = ruled
    with browser(PHONE) as phone:
        phone.get(url)
        banner = wait_for(lambda: phone.find_element("id", "board-ruling").is_displayed()
                          and phone.find_element("id", "board-ruling"))
        illegal = state["illegal"][0]
        assert banner.text == f"Tile {illegal['tile']} does not match its neighbour: take it back."
        assert banner.get_attribute("role") == "alert" and banner.rect["y"] + banner.rect["height"] < PHONE[1]
        tile = phone.find_element("css selector", f"#board g.tile.illegal[data-tile='{illegal['tile']}']")
        assert tile.get_attribute("data-q") == str(illegal["cell"][0])
        assert phone.find_elements("css selector", "#board line.mismatch")
        label = phone.find_element("css selector", "#board svg").get_attribute("aria-label")
        assert label.startswith("The board: ") and f"Tile {illegal['tile']} at " in label and "to play" in label
        assert phone.find_element("id", "status").get_attribute("aria-live") == "polite"
        keep = os.environ.get("TANTRIX_PI_SCREENSHOTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            phone.save_screenshot(str(Path(keep) / "web-illegal.png"))


@needs_chromium
def test_a_fill_owed_and_whose_turn_it_is_show_on_the_board_live_and_in_the_replay(tmp_path):
    """The View's `to_move` and `must_fill` and the `must_fill` announcement (docs/live.md), as the referee makes
    them: the banner, the space owed outlined, the player to move, and the banner gone once it is filled."""
    from dataclasses import replace

    sys.path.insert(0, str(Path(__file__).parent))
    from web_fakes import play

    from tantrix_pi.live.store import Notice
    from tantrix_pi.web.hub import Hub
    from tantrix_pi.web.server import listen, serve

    loop, _, _ = play(tmp_path, 60)
    view = loop.view()
    space = view.forced[0]
    owed = {"player": "Y", "letter": space["letter"], "cell": space["cell"], "tiles": space["fits"]}
    said = Notice("must_fill", f"Yellow must fill {space['letter']} first.", {"player": "Y", "spaces": [space["cell"]]})
    loop.store.log_events(loop.game, [said])
    hub = Hub()
    hub.show(replace(view, to_move="Y", must_fill=[owed]))
    hub.announce(said)
    server = serve(hub, listen("127.0.0.1", 0), state_db=loop.store.path)
    url = f"http://127.0.0.1:{server.port}/"
    cell = (str(space["cell"][0]), str(space["cell"][1]))
    with browser(PHONE) as driver:
        live_page(driver, url)
        banner = driver.find_element("id", "board-ruling")
        assert banner.is_displayed() and banner.text == banner_text(space)
        marked = driver.find_elements("css selector", "#board polygon.owed")
        assert [(m.get_attribute("data-q"), m.get_attribute("data-r")) for m in marked] == [cell]
        assert driver.find_element("id", "status").text == "Yellow to play."  # the referee's to_move, not turn
        assert "to-move" in driver.find_element("css selector", ".score.colour-Y").get_attribute("class")
        assert driver.find_element("css selector", "#events li.kind-must_fill").get_attribute("data-cells") == \
            ",".join(cell)
        wait_for(lambda: driver.find_element("id", "link").text == "Live")
        hub.show(replace(view, to_move="R", must_fill=[]))  # filled: the stream says so
        wait_for(lambda: not banner.is_displayed())
        assert not driver.find_elements("css selector", "#board polygon.owed")
        assert driver.find_element("id", "status").text == "Red to play."
        driver.get(url + "replay")  # the replay's last step, where it was said
        wait_for(lambda: driver.find_element("id", "replay-board-ruling").is_displayed())
        assert driver.find_element("id", "replay-board-ruling").text == banner_text(space)
        marked = driver.find_elements("css selector", "#replay-board polygon.owed")
        assert [(m.get_attribute("data-q"), m.get_attribute("data-r")) for m in marked] == [cell]
        server.stop()


def banner_text(space: dict) -> str:
    return f"Yellow must fill forced space {space['letter']} first."


@needs_chromium
def test_labels_letters_and_the_cells_an_announcement_names(ruled):
    url, state = ruled
    with browser(DESKTOP) as driver:
        live_page(driver, url)
        tiles = len(state["board"]["tiles"])
        driver.find_element("css selector", "input.show-labels").click()
        assert len(driver.find_elements("css selector", "#board g.labels text.tile-number")) == tiles
        driver.find_element("css selector", "input.show-letters").click()
        letters = driver.find_elements("css selector", "#board g.letters text")
        assert len(letters) == 3 * tiles and {e.text for e in letters} == {"R", "Y", "G", "B"}
        item = driver.find_element("css selector", "#events li.kind-illegal")
        driver.execute_script("arguments[0].focus()", item)
        named = {(e.get_attribute("data-q"), e.get_attribute("data-r"))
                 for e in driver.find_elements("css selector", "#board polygon.named")}
        cells = {(str(c[0]), str(c[1])) for v in state["illegal"][0]["violations"] for c in v["cells"]}
        assert named == cells
        driver.refresh()  # the options are kept
        assert len(driver.find_elements("css selector", "#board g.letters text")) == 3 * tiles


@needs_chromium
def test_the_moves_lead_into_the_replay_which_keeps_its_step_in_the_address(ruled):
    url, state = ruled
    with browser(DESKTOP) as driver:
        driver.get(url)
        wait_for(lambda: "lost" not in driver.find_element("id", "link").get_attribute("class")
                 and driver.find_element("id", "link").text == "Live")
        moves = driver.find_elements("css selector", "#moves li[data-move]")
        assert [int(m.get_attribute("data-move")) for m in moves] == [m["n"] for m in state["moves"]]
        assert [m.get_attribute("data-forced") for m in moves] == [str(m["forced"]).lower() for m in state["moves"]]
        moves[3].find_element("css selector", "a").click()
        wait_for(lambda: "step=" in driver.current_url)
        steps = api(url + f"api/games/{state['game']}/steps")
        fourth = steps["moves"][3]
        assert f"step={fourth['step']}" in driver.current_url
        wait_for(lambda: len(shown_in(driver, "#replay-board")) == fourth["n"])
        driver.find_element("id", "next").click()
        wait_for(lambda: f"step={fourth['step'] + 1}" in driver.current_url)
        driver.find_element("id", "previous").click()
        wait_for(lambda: f"step={fourth['step']}" in driver.current_url)
        assert driver.find_elements("css selector", "#scores [data-score-colour]")
        driver.get(url + f"replay?game={state['game']}&step={len(steps['steps']) - 1}")  # the illegal moment
        wait_for(lambda: driver.find_elements("css selector", "#replay-board g.tile.illegal"))
        assert driver.find_element("id", "replay-board-ruling").is_displayed()
        driver.find_element("id", "previous").click()  # before it: no ruling
        wait_for(lambda: not driver.find_elements("css selector", "#replay-board g.tile.illegal"))
        assert not driver.find_element("id", "replay-board-ruling").is_displayed()
        play = driver.find_element("id", "play")
        play.click()  # plays on to the last step, then stops
        assert play.text == "Pause"
        wait_for(lambda: f"step={len(steps['steps']) - 1}" in driver.current_url and play.text == "Play")
        assert driver.find_elements("css selector", "#replay-board g.tile.illegal")


@needs_chromium
def test_a_phone_reads_the_page_in_its_language_with_its_times(ruled):
    url, _ = ruled
    with browser(PHONE) as driver:
        driver.get(url + "?lang=cs")
        assert driver.find_element("tag name", "html").get_attribute("lang") == "cs"
        times = wait_for(lambda: [t.text for t in driver.find_elements("css selector", "#events time")])
        assert all(re.fullmatch(r"\d{1,2}:\d{2}:\d{2}", t) for t in times), times  # 24-hour, no AM/PM
        players = [e.text for e in driver.find_elements("css selector", "#check-players label")]
        assert players == ["Červený", "Žlutý", "Zelený", "Modrý"]
        assert driver.find_element("css selector", "#check-players input[value=Y]").is_selected()  # the game's
        driver.get(url)  # the choice is kept
        assert driver.find_element("tag name", "html").get_attribute("lang") == "cs"


@needs_chromium
def test_hidden_means_hidden(ruled):
    url, _ = ruled
    with browser(PHONE) as driver:
        driver.get(url)
        assert not driver.find_element("id", "seen-img").is_displayed() and not picture_fetched(driver)
        from selenium.webdriver.support.ui import Select

        Select(driver.find_element("id", "check-what")).select_by_value("discovery:10")
        assert not driver.find_element("id", "check-players").is_displayed()
        Select(driver.find_element("id", "check-what")).select_by_value("score")
        assert driver.find_element("id", "check-players").is_displayed()


@needs_chromium
def test_the_qr_code_reads_as_the_pages_address_and_the_big_screen_fills_the_screen(ruled, tmp_path):
    import numpy as np

    url, _ = ruled
    with browser((1920, 1080)) as driver:
        for page in ("", "tv"):
            driver.get(url + page)
            share = driver.find_element("css selector", "[data-qr]")
            picture = cv2.imdecode(np.frombuffer(share.find_element("css selector", ".qr").screenshot_as_png,
                                                 np.uint8), cv2.IMREAD_COLOR)
            text, _, _ = cv2.QRCodeDetector().detectAndDecode(picture)
            assert text == share.get_attribute("data-qr") == url
        board = driver.find_element("css selector", "#board svg").rect
        assert board["height"] > 800 and board["width"] > 800  # the old page drew it 700 px wide here
        assert driver.find_element("css selector", "[data-score-colour]").value_of_css_property("font-size") >= "30px"


@needs_chromium
def test_the_score_boxes_read_at_4_5_to_1(ruled):
    url, _ = ruled
    with browser(DESKTOP) as driver:
        live_page(driver, url)
        pairs = driver.execute_script(
            "return [...document.querySelectorAll('.score')].map(e => [getComputedStyle(e).color, "
            "getComputedStyle(e).backgroundColor])")

    def luminance(css):
        values = [int(v) / 255 for v in re.findall(r"\d+", css)[:3]]
        values = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
        return 0.2126 * values[0] + 0.7152 * values[1] + 0.0722 * values[2]

    assert len(pairs) == 2
    for ink, ground in pairs:
        a, b = sorted((luminance(ink), luminance(ground)))
        assert (b + 0.05) / (a + 0.05) >= 4.5, (ink, ground)
