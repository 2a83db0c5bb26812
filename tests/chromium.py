"""Chromium for the browser tests (Debian's chromium through chromium-driver, driven by selenium): one per window
size and test process, wiped clean between tests."""

from __future__ import annotations

import contextlib
import os
import tempfile

import pytest

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
needs_chromium = pytest.mark.skipif(not (os.access(CHROMIUM, os.X_OK) and os.access(DRIVER, os.X_OK)),
                                    reason="Debian's chromium and chromium-driver are not installed "
                                           "(./run.sh test installs them)")
PHONE, DESKTOP = (390, 844), (1280, 900)
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")
"""No network beyond the page: this machine's closed network refuses Chromium's background connections."""


_started: dict[tuple[int, int], tuple] = {}
"""The chromium of each window size started in this process (with its profile folder): a start costs 1.4 s of
CPU, so each size starts once and every block gets it wiped clean."""


def _start(size):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.TemporaryDirectory(prefix="chromium-", ignore_cleanup_errors=True)
    for flag in (*FLAGS, f"--user-data-dir={profile.name}", f"--window-size={size[0]},{size[1]}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=options), profile


def _quit(size):
    driver, profile = _started.pop(size)
    driver.quit()
    profile.cleanup()


def quit_all() -> None:
    """Quit every chromium started (conftest.py does at the end of the session)."""
    for size in list(_started):
        _quit(size)


@contextlib.contextmanager
def browser(size):
    """A chromium of that window size as a first visitor sees the page: after the block its cookies, cache and the
    page's storage are cleared and its tabs closed for a blank one, so that no page (not one kept for the back
    button either) holds a stream open to a server the test stops (or, when that fails, it is quit)."""
    if size not in _started:
        _started[size] = _start(size)
    driver = _started[size][0]
    try:
        yield driver
    finally:
        try:
            if driver.current_url.startswith("http"):
                driver.execute_script("localStorage.clear(); sessionStorage.clear()")
            driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
            driver.execute_cdp_cmd("Network.clearBrowserCache", {})
            used = driver.window_handles
            driver.switch_to.new_window("tab")
            for handle in used:
                driver.switch_to.window(handle)
                driver.close()
            driver.switch_to.window(driver.window_handles[0])
            driver.set_window_size(*size)
        except Exception:
            _quit(size)
