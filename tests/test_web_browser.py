"""The table's web page in a real browser (Debian's chromium through chromium-driver, driven by selenium),
served by `tantrix-pi demo --web` while the bundled game replays.

Set TANTRIX_PI_SCREENSHOTS=DIR to keep the phone- and desktop-sized screenshots (docs/web.md shows them).
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
import tempfile
import time
import urllib.request
from pathlib import Path

import cv2
import pytest

from tantrix_pi.simulator import PLAIN, legal_board, render

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
pytestmark = pytest.mark.skipif(not (os.access(CHROMIUM, os.X_OK) and os.access(DRIVER, os.X_OK)),
                                reason="Debian's chromium and chromium-driver are not installed "
                                       "(./run.sh test installs them)")
PHONE, DESKTOP = (390, 844), (1280, 900)
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")
"""No network beyond the page: this machine's closed network refuses Chromium's background connections."""


def browser(size):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=options)


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


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """`tantrix-pi demo --web PORT` running: (base URL, its log file, the pairing code)."""
    tmp = tmp_path_factory.mktemp("demo")
    port = free_port()
    log = (tmp / "demo.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "tantrix_pi", "demo", "--out", str(tmp / "out"), "--web", str(port),
                             "--fps", "20"], stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
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
    assert proc.wait(20) == 0
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


def test_the_live_page_shows_the_replayed_game_as_it_progresses_to_its_end(demo):
    url, log, _ = demo
    phone = browser(PHONE)
    try:
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
        assert wait_for(lambda: phone.execute_script("const i = document.getElementById('seen-img');"
                                                     "return i.complete && i.naturalWidth > 0"), 10)
        keep = os.environ.get("TANTRIX_PI_SCREENSHOTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            phone.set_window_size(PHONE[0], 2200)
            phone.save_screenshot(str(Path(keep) / "web-phone.png"))
            desktop = browser(DESKTOP)
            try:
                desktop.get(url)
                wait_for(lambda: len(shown(desktop)[0]) == 56, 10)
                desktop.save_screenshot(str(Path(keep) / "web-desktop.png"))
            finally:
                desktop.quit()
    finally:
        phone.quit()


def test_a_photo_checked_in_the_browser_gets_the_verdict(demo, tmp_path):
    url, _, _ = demo
    image, _ = render(legal_board(6, seed=5), seed=5, size=(800, 600), tile_px=70.0, yaw_deg=8.0, **PLAIN)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    from tantrix_pi.cli import main

    driver = browser(PHONE)
    try:
        driver.get(url)
        driver.find_element("css selector", "#check-form input[type=file]").send_keys(str(photo))
        driver.find_element("css selector", "#check-form input[name=players]").clear()
        driver.find_element("css selector", "#check-form input[name=players]").send_keys("red,green")
        driver.find_element("css selector", "#check-form button").click()
        result = wait_for(lambda: driver.find_elements("css selector", "#check-result .winner, #check-result .refused"),
                          120)
        assert result[0].get_attribute("class") == "winner", result[0].text
        items = {e.get_attribute("data-check-colour"): e.text
                 for e in driver.find_elements("css selector", "#check-result [data-check-colour]")}
        overlay = driver.find_element("css selector", "#check-result img")
        assert overlay.get_attribute("src").startswith("data:image/jpeg")
        winner_line = result[0].text
    finally:
        driver.quit()
    out = tmp_path / "cli.json"
    with open(out, "w") as f, contextlib.redirect_stdout(f):
        assert main(["score", str(photo), "--players", "red,green", "--json"]) == 0
    cli = json.loads(out.read_text())
    assert set(items) == set(cli["scores"]) == {"red", "green"}
    for colour, s in cli["scores"].items():
        assert items[colour] == f"{colour.capitalize()}: line {s['line']}, loop {s['loop']}, score {s['score']}"
    assert winner_line.endswith(" and ".join(w.capitalize() for w in cli["winners"]) + ".")


def test_control_without_pairing_is_refused_and_pairing_is_needed_first(demo):
    url, _, code = demo
    driver = browser(PHONE)
    try:
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
    finally:
        driver.quit()


def test_the_replay_slider_shows_the_board_at_every_step(demo):
    url, _, _ = demo
    wait_for(lambda: api(url + "api/state")["over"], 240)
    driver = browser(DESKTOP)
    try:
        driver.get(url + "replay")
        steps = api(url + f"api/games/{api(url + 'api/state')['game']}/steps")["steps"]
        wait_for(lambda: len(shown_in(driver, "#replay-board")) == 56, 20)
        slider = driver.find_element("id", "slider")
        assert int(slider.get_attribute("max")) == len(steps) - 1
        driver.execute_script("arguments[0].value = 1; arguments[0].dispatchEvent(new Event('input'))", slider)
        wait_for(lambda: len(shown_in(driver, "#replay-board")) == 1, 10)
        events = [e.text for e in driver.find_elements("css selector", "#step-events li")]
        assert events == steps[1]["events"] and events[0].endswith(".")
    finally:
        driver.quit()


def shown_in(driver, where: str) -> list:
    return driver.find_elements("css selector", f"{where} g.tile")
