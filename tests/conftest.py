"""Fixtures shared by the test files."""

import gpiozero
import pytest
from gpiozero.pins.mock import MockFactory


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
