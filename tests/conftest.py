"""Fixtures shared by the test files."""

import os

import chromium
import gpiozero
import pytest
from gpiozero.pins.mock import MockFactory

from tantrix_pi import i18n

os.environ["LANGUAGE"] = "en"  # commands run by the tests speak English whatever the machine's locale


@pytest.fixture(autouse=True)
def english():
    """Every test starts in English (tests of the other languages switch with i18n.use)."""
    i18n.use("en")
    yield
    i18n.use("en")


@pytest.fixture(autouse=True, scope="session")
def chromiums_quit():
    """The browsers the tests started (`chromium.browser`, one per window size) end with the session."""
    yield
    chromium.quit_all()


@pytest.fixture
def mock_factory():
    """gpiozero's MockFactory as every device's pin factory for one test (drive pins with `.pin(n).drive_low()`)."""
    saved = gpiozero.Device.pin_factory
    gpiozero.Device.pin_factory = factory = MockFactory()
    try:
        yield factory
    finally:
        factory.reset()
        gpiozero.Device.pin_factory = saved


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: a worker more than the cores, since the suite spends about a fifth of its time waiting on brokers,
    browsers and the commands it starts; another worker computes meanwhile."""
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(items):
    """Tests of an `xdist_group` (a costly module fixture, started once in each worker that runs them) go first and
    together: worksteal gives the first worker the front of the list and moves tests from the back, so they stay on
    that worker, and do not end the run with one worker busy and the others idle."""
    items.sort(key=lambda item: item.get_closest_marker("xdist_group") is None)
