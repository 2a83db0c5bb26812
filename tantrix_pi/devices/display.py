"""The `Display`: shows a `Screen` on a luma device, as PNG files, or only in memory (tests, demo)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from tantrix_pi.devices import Closeable
from tantrix_pi.devices.errors import DeviceError
from tantrix_pi.devices.frames import colour_frame, mono_frame, mono_pages
from tantrix_pi.devices.screen import Screen
from tantrix_pi.i18n import _

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Model:
    """A supported display: its luma module and class, size, colour mode and bus."""

    name: str
    module: str
    size: tuple[int, int]
    mode: str
    bus: str


MODELS = {
    m.name: m
    for m in (
        Model("ssd1306", "luma.oled.device", (128, 64), "1", "i2c"),
        Model("sh1106", "luma.oled.device", (128, 64), "1", "i2c"),
        Model("st7789", "luma.lcd.device", (240, 240), "RGB", "spi"),
        Model("ili9341", "luma.lcd.device", (320, 240), "RGB", "spi"),
    )
}
"""The displays `open_display` knows, by the name used in the config."""

OPTIONS = {
    "i2c": {"i2c_port": 1, "i2c_address": 0x3C, "rotate": 0},
    "spi": {"spi_port": 0, "spi_device": 0, "gpio_dc": 24, "gpio_rst": 25, "gpio_backlight": 18,
            "spi_speed_hz": 32_000_000, "rotate": 0},
}
"""Settings each bus takes, with their defaults (BCM numbers for the gpio_* pins)."""


class MemoryDevice:
    """A stand-in for a luma device that keeps the last frame in `image` (the fake for tests and demos)."""

    def __init__(self, size: tuple[int, int], mode: str) -> None:
        self.size, self.mode = size, mode
        self.width, self.height = size
        self.image: Image.Image | None = None

    def display(self, image: Image.Image) -> None:
        self.image = image.copy()

    def cleanup(self) -> None:
        """Nothing to release."""


class PngDevice(MemoryDevice):
    """A device that writes every frame to DIR/frame-00001.png, frame-00002.png, ..."""

    def __init__(self, directory: str | Path, size: tuple[int, int], mode: str) -> None:
        super().__init__(size, mode)
        self.directory = Path(directory)
        if not self.directory.is_dir():  # as `board show --png` does: a mistyped path is not made
            raise DeviceError(_("display png:{folder}: no such folder").format(folder=directory))
        self.count = 0

    def display(self, image: Image.Image) -> None:
        super().display(image)
        self.count += 1
        image.save(self.directory / f"frame-{self.count:05d}.png")


class Display(Closeable):
    """A screen of the referee, drawn from `Screen` states on any luma-like device.

    An SSD1306/SH1106 OLED on I2C (SDA BCM 2, SCL BCM 3) or an ST7789/ILI9341 LCD on SPI0 (DC BCM 24,
    RST BCM 25, backlight BCM 18), or PNG files when there is none:

        with open_display("st7789") as display:       # or "ssd1306", "png:frames"; closed after the block
            display.show(Screen(message="Red to play", scores=(("R", 3), ("B", 5))))
            display.next_page()                       # mono screens: message, forced spaces, scores
    """

    def __init__(self, device, page_seconds: float = 4.0) -> None:
        self.device = device
        self.size = (device.width, device.height)
        self.mono = device.mode == "1"
        self.page_seconds = page_seconds
        self.screen = Screen()
        self.page = 0
        self._page_shown_at = time.monotonic()
        self._frame: Image.Image | None = None

    @property
    def pages(self) -> int:
        """How many pages the current screen has (always 1 on colour screens)."""
        return len(mono_pages(self.screen)) if self.mono else 1

    def show(self, screen: Screen) -> Image.Image:
        """Draw `screen` and send it to the device; a new message starts again at its first page.

        Showing the screen already shown sends nothing (the panel keeps it; no PNG is written again).
        """
        if screen == self.screen and self._frame is not None:
            return self._frame
        if screen.message != self.screen.message or screen.lines != self.screen.lines:
            self.page = 0
            self._page_shown_at = time.monotonic()
        self.screen = screen
        return self._refresh()

    def next_page(self) -> Image.Image:
        """Show the next page of a mono screen (a button press, or `tick` on a timer)."""
        self.page = (self.page + 1) % self.pages
        self._page_shown_at = time.monotonic()
        return self._refresh()

    def tick(self, now: float | None = None) -> Image.Image | None:
        """Turn the page when it has been up `page_seconds`; call it from the main loop."""
        now = time.monotonic() if now is None else now
        if self.pages > 1 and now - self._page_shown_at >= self.page_seconds:
            frame = self.next_page()
            self._page_shown_at = now
            return frame
        return None

    def close(self) -> None:
        """Release the device (luma clears and switches off the panel)."""
        self.device.cleanup()

    def _refresh(self) -> Image.Image:
        if self.mono:
            frame = mono_frame(self.screen, self.size, self.page)
        else:
            frame = colour_frame(self.screen, self.size)
        self.device.display(frame)
        self._frame = frame
        return frame


def open_display(spec: str, options: Mapping[str, object] | None = None,
                 fallback_dir: str | Path | None = None) -> Display:
    """A Display for `spec`: a model name, "png:DIR" (frames of `options["model"]`'s size) or "none".

    When the model's hardware cannot be opened and `fallback_dir` is given, frames go to PNGs there.
    """
    options = dict(options or {})
    if spec == "none" or spec.startswith("png:"):
        model = MODELS[_model_name(options.pop("model", "st7789"))]
        _check_options(model, options)
        device = (MemoryDevice(model.size, model.mode) if spec == "none"
                  else PngDevice(spec[4:] or ".", model.size, model.mode))
        return Display(device)
    model = MODELS[_model_name(spec)]
    _check_options(model, options)
    try:
        device = _luma_device(model, {**OPTIONS[model.bus], **options})
    except DeviceError as e:
        if fallback_dir is None:
            raise
        log.warning("%s; drawing frames to %s instead", e, fallback_dir)
        device = PngDevice(fallback_dir, model.size, model.mode)
    return Display(device)


def _model_name(name: object) -> str:
    if name not in MODELS:
        known = ", ".join([*MODELS, "png:DIR", "none"])
        raise DeviceError(_("display {name!r} is not supported: choose one of {known}").format(name=name, known=known))
    return str(name)


def _check_options(model: Model, options: Mapping[str, object]) -> None:
    for key, value in options.items():
        if key not in OPTIONS[model.bus]:
            raise DeviceError(_("display option {key!r} does not apply to {model}: use {options}").format(
                key=key, model=model.name, options=", ".join(OPTIONS[model.bus])))
        if not isinstance(value, int) or isinstance(value, bool):
            raise DeviceError(_("display option {key!r} must be a whole number, not {value!r}").format(
                key=key, value=value))
    if options.get("rotate", 0) not in range(4):
        raise DeviceError(_("display option 'rotate' is {value!r}: use 0..3 (quarter turns)").format(
            value=options["rotate"]))


def _luma_device(model: Model, o: Mapping[str, int]):
    """Open the real panel through luma; every failure becomes one DeviceError line."""
    try:
        import importlib

        from luma.core.error import DeviceNotFoundError, DevicePermissionError

        cls = getattr(importlib.import_module(model.module), model.name)
    except ImportError:
        raise DeviceError(_("display {model}: luma is not installed (pip install 'tantrix-pi[pi]')").format(
            model=model.name)) from None
    try:
        if model.bus == "i2c":
            from luma.core.interface.serial import i2c

            serial = i2c(port=o["i2c_port"], address=o["i2c_address"])
            return cls(serial, width=model.size[0], height=model.size[1], rotate=o["rotate"])
        from luma.core.interface.serial import spi

        serial = spi(port=o["spi_port"], device=o["spi_device"], gpio_DC=o["gpio_dc"], gpio_RST=o["gpio_rst"],
                     bus_speed_hz=o["spi_speed_hz"])
        return cls(serial, width=model.size[0], height=model.size[1], rotate=o["rotate"],
                   gpio_LIGHT=o["gpio_backlight"])
    except DevicePermissionError:
        raise DeviceError(_("display {model}: no permission on the {bus} device (add the user to the {bus} and "
                            "gpio groups)").format(model=model.name, bus=model.bus)) from None
    except DeviceNotFoundError:
        raise DeviceError(_not_found(model, o)) from None
    except ImportError as e:
        raise DeviceError(_("display {model}: Python module {module!r} is missing (pip install 'tantrix-pi[pi]'; "
                            "spidev: sudo apt install python3-spidev)").format(model=model.name,
                                                                              module=e.name)) from None
    except (OSError, RuntimeError) as e:
        raise DeviceError(_("display {model}: cannot open it ({error})").format(
            model=model.name, error=f"{e.__class__.__name__}: {e}")) from None


def _not_found(model: Model, o: Mapping[str, int]) -> str:
    """Why luma found no panel, with the command that tells more."""
    if model.bus == "i2c":
        if not Path(f"/dev/i2c-{o['i2c_port']}").exists():
            return _("display {model}: /dev/i2c-{port} does not exist (enable I2C: sudo raspi-config nonint do_i2c "
                     "0)").format(model=model.name, port=o["i2c_port"])
        return _("display {model}: nothing answers at I2C address {address:#04x} on bus {port} (see which address "
                 "it has: i2cdetect -y {port})").format(model=model.name, address=o["i2c_address"], port=o["i2c_port"])
    return _("display {model}: /dev/spidev{port}.{device} does not exist (enable SPI: sudo raspi-config nonint do_spi "
             "0)").format(model=model.name, port=o["spi_port"], device=o["spi_device"])
