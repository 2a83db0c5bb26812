"""Fixtures shared by the test files."""

import os

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
