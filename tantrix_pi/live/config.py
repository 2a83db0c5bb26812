"""The service's configuration: a TOML file (tomllib) checked against one schema, with defaults.

docs/config.md documents every key. A typo or a wrong value raises ConfigError, one line naming the
key, which the command line turns into exit 2.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from tantrix_pi.errors import TantrixError
from tantrix_pi.game import MODES
from tantrix_pi.tiles import COLOUR_NAMES
from tantrix_pi.tomlfile import read_toml, state_directory
from tantrix_pi.vision.detection import CONFIDENT

PLAYER_COLOURS = ("red", "yellow", "green", "blue")
SOURCES = ("picamera2", "opencv", "folder", "video")
DISPLAYS = ("none", "png", "ssd1306", "sh1106", "st7789", "ili9341")
SPI_DISPLAYS = ("st7789", "ili9341")
I2C_KEYS = ("i2c_port", "i2c_address", "rotate")
SPI_KEYS = ("spi_port", "spi_device", "spi_speed_hz", "gpio_dc", "gpio_rst", "gpio_backlight", "rotate")
"""The [display] keys each bus's screens take (the devices package's open_display options)."""
RAINBOWS = ("green", "yellow", "white", "blue", "red")
COLOUR_LETTER = {name: letter for letter, name in COLOUR_NAMES.items()}


class ConfigError(TantrixError):
    """The configuration file is unreadable or names a key or value that cannot be."""


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v):
    return (isinstance(v, int | float)) and not isinstance(v, bool)


def _size(v):
    return isinstance(v, list) and len(v) == 2 and all(_int(x) and 16 <= x <= 10000 for x in v)


# section -> key -> (default, check, what a good value looks like)
SCHEMA: dict[str, dict[str, tuple]] = {  # docs/config.md lists the same keys (a test compares them)
    "camera": {
        "source": ("picamera2", lambda v: v in SOURCES, f"one of {', '.join(SOURCES)}"),
        "device": (0, lambda v: _int(v) and v >= 0 or isinstance(v, str) and v != "",
                   "a camera index (0, 1, ...) or a stream URL"),
        "path": ("", lambda v: isinstance(v, str), "a folder of images or a video file"),
        "size": (None, _size, "[width, height] in pixels, e.g. [1640, 1232]"),
        "fps": (0.0, lambda v: _num(v) and 0 <= v <= 240, "frames per second 0..240 (0: as fast as possible)"),
        "settle_s": (2.0, lambda v: _num(v) and 0 <= v <= 30, "seconds 0..30"),
    },
    "gate": {
        "motion": (0.004, lambda v: _num(v) and 0 < v < 1, "a fraction of the image between 0 and 1"),
        "stable_frames": (3, lambda v: _int(v) and 1 <= v <= 30, "a whole number 1..30"),
        "min_confidence": (CONFIDENT, lambda v: _num(v) and 0 < v <= 1, "a number in (0, 1]"),
    },
    "display": {
        "kind": ("none", lambda v: v in DISPLAYS, f"one of {', '.join(DISPLAYS)}"),
        "dir": ("", lambda v: isinstance(v, str), "a folder for the png display"),
        "model": ("st7789", lambda v: v in DISPLAYS[2:], f"one of {', '.join(DISPLAYS[2:])} (the png display's size)"),
        "rotate": (0, lambda v: _int(v) and 0 <= v <= 3, "quarter turns 0..3"),
        "page_seconds": (4.0, lambda v: _num(v) and 0.5 <= v <= 60, "seconds 0.5..60 a mono screen's page stays up"),
        "i2c_port": (1, lambda v: _int(v) and 0 <= v <= 20, "an I2C bus number (1 on a Pi)"),
        "i2c_address": (0x3C, lambda v: _int(v) and 0 <= v <= 0x7F, "an I2C address 0..0x7f"),
        "spi_port": (0, lambda v: _int(v) and 0 <= v <= 6, "an SPI bus number 0..6"),
        "spi_device": (0, lambda v: _int(v) and 0 <= v <= 2, "an SPI chip select 0..2"),
        "spi_speed_hz": (32_000_000, lambda v: _int(v) and 100_000 <= v <= 125_000_000,
                         "a bus speed in Hz, 100000..125000000"),
        "gpio_dc": (24, lambda v: _int(v) and 0 <= v <= 27, "a BCM pin 0..27"),
        "gpio_rst": (25, lambda v: _int(v) and 0 <= v <= 27, "a BCM pin 0..27"),
        "gpio_backlight": (18, lambda v: _int(v) and 0 <= v <= 27, "a BCM pin 0..27"),
    },
    "buttons": {
        "next": (17, lambda v: _int(v) and 2 <= v <= 27, "a BCM pin 2..27"),
        "back": (27, lambda v: _int(v) and 2 <= v <= 27, "a BCM pin 2..27"),
        "menu": (22, lambda v: _int(v) and 2 <= v <= 27, "a BCM pin 2..27"),
        "hold_s": (2.0, lambda v: _num(v) and 0.5 <= v <= 10, "seconds 0.5..10 menu is held for a new game"),
    },
    "voice": {
        "enabled": (False, lambda v: isinstance(v, bool), "true or false"),
        "language": ("en", lambda v: isinstance(v, str) and v != "", "an espeak-ng voice, e.g. en"),
        "words_per_minute": (160, lambda v: _int(v) and 80 <= v <= 450, "a whole number 80..450"),
    },
    "mode": {
        "kind": ("game", lambda v: v in MODES, f"one of {', '.join(MODES)}"),
        "players": (["red", "blue"], lambda v: isinstance(v, list) and 2 <= len(v) <= 4
                    and all(c in PLAYER_COLOURS for c in v) and len(set(v)) == len(v),
                    "2 to 4 different colours of red, yellow, green, blue, in seating order"),
        "discovery": (10, lambda v: _int(v) and 3 <= v <= 30, "a whole number 3..30"),
        "rainbow": ("green", lambda v: v in RAINBOWS, f"one of {', '.join(RAINBOWS)}"),
        "hint_s": (20.0, lambda v: _num(v) and 1 <= v <= 300, "seconds 1..300 the solver may think about a hint"),
    },
    "web": {
        "enabled": (True, lambda v: isinstance(v, bool), "true or false"),
        "port": (8080, lambda v: _int(v) and 1 <= v <= 65535, "a TCP port 1..65535"),
        "bind": ("", lambda v: isinstance(v, str) and " " not in v,
                 'an address of this machine ("127.0.0.1", "192.168.1.20"), or "" for every address'),
    },
    "paths": {
        "state_dir": ("/var/lib/tantrix-pi", lambda v: isinstance(v, str) and v != "", "a folder"),
        "profile": ("", lambda v: isinstance(v, str), "a calibration profile file, or empty"),
        "events": ("", lambda v: isinstance(v, str), "a JSON-lines file, or empty for STATE_DIR/events.jsonl"),
    },
}


@dataclass
class Config:
    """Every setting, by section: `cfg.camera["source"]`, `cfg.mode["players"]`, ..."""

    camera: dict = field(default_factory=dict)
    gate: dict = field(default_factory=dict)
    display: dict = field(default_factory=dict)
    buttons: dict = field(default_factory=dict)
    voice: dict = field(default_factory=dict)
    mode: dict = field(default_factory=dict)
    web: dict = field(default_factory=dict)
    paths: dict = field(default_factory=dict)

    @property
    def state_dir(self) -> Path:
        return Path(self.paths["state_dir"])

    @property
    def events_path(self) -> Path:
        return Path(self.paths["events"]) if self.paths["events"] else self.state_dir / "events.jsonl"

    @property
    def button_pins(self) -> dict[str, int]:
        """BCM pin of each button: next, back, menu."""
        return {k: self.buttons[k] for k in ("next", "back", "menu")}

    @property
    def display_options(self) -> dict:
        """The options the devices package's open_display takes for the configured screen."""
        d = self.display
        if d["kind"] == "png":
            return {"model": d["model"]}
        keys = I2C_KEYS if d["kind"] in ("ssd1306", "sh1106") else SPI_KEYS if d["kind"] in SPI_DISPLAYS else ()
        return {k: d[k] for k in keys}

    @property
    def player_letters(self) -> list[str]:
        """The players' colours as tile letters (R, Y, G, B) in seating order."""
        return [COLOUR_LETTER[c] for c in self.mode["players"]]

    @property
    def puzzle_spec(self) -> str | None:
        """The rules engine's puzzle name for a puzzle mode (`discovery:10`), None for the others."""
        kind = self.mode["kind"]
        if kind == "discovery":
            return f"discovery:{self.mode['discovery']}"
        if kind == "rainbow":
            return f"rainbow:{self.mode['rainbow']}"
        if kind == "solitaire":
            return "solitaire"
        return None


def _suggest(name: str, options) -> str:
    close = difflib.get_close_matches(name, list(options), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def from_dict(data: dict, where: str = "config") -> Config:
    """A Config from parsed TOML; ConfigError names the first unknown key or wrong value."""
    cfg = Config()
    for section in data:
        if section not in SCHEMA:
            raise ConfigError(f"{where}: unknown section [{section}]{_suggest(section, SCHEMA)}")
        if not isinstance(data[section], dict):
            raise ConfigError(f"{where}: '{section}' must be a [{section}] table")
    for section, keys in SCHEMA.items():
        given = data.get(section, {})
        for key in given:
            if key not in keys:
                raise ConfigError(f"{where}: unknown key {section}.{key}{_suggest(key, keys)}")
        values = {}
        for key, (default, check, want) in keys.items():
            if key in given:
                v = given[key]
                if not check(v):
                    raise ConfigError(f"{where}: {section}.{key} = {v!r} is wrong: expected {want}")
                values[key] = v
            else:
                values[key] = list(default) if isinstance(default, list) else default
        setattr(cfg, section, values)
    if cfg.camera["source"] in ("folder", "video") and not cfg.camera["path"]:
        raise ConfigError(f"{where}: camera.path is needed when camera.source = '{cfg.camera['source']}'")
    if cfg.display["kind"] == "png" and not cfg.display["dir"]:
        raise ConfigError(f"{where}: display.dir is needed when display.kind = 'png'")
    if cfg.display["kind"] in SPI_DISPLAYS:
        buttons = {pin: name for name, pin in cfg.button_pins.items()}
        for key in ("gpio_dc", "gpio_rst", "gpio_backlight"):
            if cfg.display[key] in buttons:
                raise ConfigError(f"{where}: display.{key} = {cfg.display[key]} is wrong: "
                                  f"BCM {cfg.display[key]} is buttons.{buttons[cfg.display[key]]}")
    pins = cfg.button_pins
    if len(set(pins.values())) < len(pins):
        raise ConfigError(f"{where}: buttons: two buttons share a pin ({pins})")
    if cfg.camera["size"] is not None:
        cfg.camera["size"] = tuple(cfg.camera["size"])
    return cfg


def load(path: str | Path | None) -> Config:
    """Read a config file (None: every default); the state dir is $STATE_DIRECTORY when the file names none."""
    data = {} if path is None else read_toml(path, ConfigError, "config file")
    cfg = from_dict(data, str(path) if path is not None else "config")
    state = state_directory()
    if state is not None and "state_dir" not in data.get("paths", {}):
        cfg.paths["state_dir"] = str(state)  # systemd's StateDirectory=
    return cfg
