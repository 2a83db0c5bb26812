"""The service's configuration: a TOML file (tomllib) checked against one schema, with defaults.

docs/config.md documents every key. A typo or a wrong value raises ConfigError, one line naming the
key, which the command line turns into exit 2.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from tantrix_pi import i18n
from tantrix_pi.errors import TantrixError
from tantrix_pi.game import MODES
from tantrix_pi.i18n import N_, _
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


# section -> key -> (default, check, what a good value looks like[, the choices it names as {choices}])
SCHEMA: dict[str, dict[str, tuple]] = {  # docs/config.md lists the same keys (a test compares them)
    "camera": {
        "source": ("picamera2", lambda v: v in SOURCES, N_("one of {choices}"), SOURCES),
        "device": (0, lambda v: _int(v) and v >= 0 or isinstance(v, str) and v != "",
                   N_("a camera index (0, 1, ...) or a stream URL")),
        "path": ("", lambda v: isinstance(v, str), N_("a folder of images or a video file")),
        "size": (None, _size, N_("[width, height] in pixels, e.g. [1640, 1232]")),
        "fps": (0.0, lambda v: _num(v) and 0 <= v <= 240, N_("frames per second 0..240 (0: as fast as possible)")),
        "settle_s": (2.0, lambda v: _num(v) and 0 <= v <= 30, N_("seconds 0..30")),
    },
    "gate": {
        "motion": (0.004, lambda v: _num(v) and 0 < v < 1, N_("a fraction of the image between 0 and 1")),
        "stable_frames": (3, lambda v: _int(v) and 1 <= v <= 30, N_("a whole number 1..30")),
        "min_confidence": (CONFIDENT, lambda v: _num(v) and 0 < v <= 1, N_("a number in (0, 1]")),
    },
    "display": {
        "kind": ("none", lambda v: v in DISPLAYS, N_("one of {choices}"), DISPLAYS),
        "dir": ("", lambda v: isinstance(v, str), N_("a folder for the png display")),
        "model": ("st7789", lambda v: v in DISPLAYS[2:], N_("one of {choices} (the png display's size)"), DISPLAYS[2:]),
        "rotate": (0, lambda v: _int(v) and 0 <= v <= 3, N_("quarter turns 0..3")),
        "page_seconds": (4.0, lambda v: _num(v) and 0.5 <= v <= 60,
                         N_("seconds 0.5..60 a mono screen's page stays up")),
        "i2c_port": (1, lambda v: _int(v) and 0 <= v <= 20, N_("an I2C bus number (1 on a Pi)")),
        "i2c_address": (0x3C, lambda v: _int(v) and 0 <= v <= 0x7F, N_("an I2C address 0..0x7f")),
        "spi_port": (0, lambda v: _int(v) and 0 <= v <= 6, N_("an SPI bus number 0..6")),
        "spi_device": (0, lambda v: _int(v) and 0 <= v <= 2, N_("an SPI chip select 0..2")),
        "spi_speed_hz": (32_000_000, lambda v: _int(v) and 100_000 <= v <= 125_000_000,
                         N_("a bus speed in Hz, 100000..125000000")),
        "gpio_dc": (24, lambda v: _int(v) and 0 <= v <= 27, N_("a BCM pin 0..27")),
        "gpio_rst": (25, lambda v: _int(v) and 0 <= v <= 27, N_("a BCM pin 0..27")),
        "gpio_backlight": (18, lambda v: _int(v) and 0 <= v <= 27, N_("a BCM pin 0..27")),
    },
    "buttons": {
        "next": (17, lambda v: _int(v) and 2 <= v <= 27, N_("a BCM pin 2..27")),
        "back": (27, lambda v: _int(v) and 2 <= v <= 27, N_("a BCM pin 2..27")),
        "menu": (22, lambda v: _int(v) and 2 <= v <= 27, N_("a BCM pin 2..27")),
        "hold_s": (2.0, lambda v: _num(v) and 0.5 <= v <= 10, N_("seconds 0.5..10 menu is held for a new game")),
    },
    "voice": {
        "enabled": (False, lambda v: isinstance(v, bool), N_("true or false")),
        "language": ("", lambda v: isinstance(v, str),
                     N_("an espeak-ng voice, e.g. cs, or empty to speak the referee's language")),
        "words_per_minute": (160, lambda v: _int(v) and 80 <= v <= 450, N_("a whole number 80..450")),
    },
    "mode": {
        "kind": ("game", lambda v: v in MODES, N_("one of {choices}"), MODES),
        "players": (["red", "blue"], lambda v: isinstance(v, list) and 2 <= len(v) <= 4
                    and all(c in PLAYER_COLOURS for c in v) and len(set(v)) == len(v),
                    N_("2 to 4 different colours of red, yellow, green, blue, in seating order")),
        "discovery": (10, lambda v: _int(v) and 3 <= v <= 30, N_("a whole number 3..30")),
        "rainbow": ("green", lambda v: v in RAINBOWS, N_("one of {choices}"), RAINBOWS),
        "hint_s": (20.0, lambda v: _num(v) and 1 <= v <= 300, N_("seconds 1..300 the solver may think about a hint")),
    },
    "web": {
        "enabled": (True, lambda v: isinstance(v, bool), "true or false"),
        "port": (8080, lambda v: _int(v) and 1 <= v <= 65535, "a TCP port 1..65535"),
        "bind": ("", lambda v: isinstance(v, str) and " " not in v,
                 'an address of this machine ("127.0.0.1", "192.168.1.20"), or "" for every address'),
    },
    "paths": {
        "state_dir": ("/var/lib/tantrix-pi", lambda v: isinstance(v, str) and v != "", N_("a folder")),
        "profile": ("", lambda v: isinstance(v, str), N_("a calibration profile file, or empty")),
        "events": ("", lambda v: isinstance(v, str), N_("a JSON-lines file, or empty for STATE_DIR/events.jsonl")),
    },
}


TOP: dict[str, tuple] = {
    "language": ("", lambda v: isinstance(v, str) and (v == "" or i18n.code_of(v) in i18n.LANGUAGES),
                 N_("one of {choices}, or empty for the environment's language"), tuple(i18n.LANGUAGES)),
}
"""Keys outside any section (docs/config.md lists them under "Top level")."""


@dataclass
class Config:
    """Every setting, by section: `cfg.camera["source"]`, `cfg.mode["players"]`, ...; `cfg.language` on top."""

    camera: dict = field(default_factory=dict)
    gate: dict = field(default_factory=dict)
    display: dict = field(default_factory=dict)
    buttons: dict = field(default_factory=dict)
    voice: dict = field(default_factory=dict)
    mode: dict = field(default_factory=dict)
    web: dict = field(default_factory=dict)
    paths: dict = field(default_factory=dict)
    language: str = ""
    """The referee's language; empty: `--lang` or the environment decides (i18n.choose)."""

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


def _wanted(want: str, choices: tuple = ()) -> str:
    """What a good value looks like, in the language of the moment."""
    return _(want).format(choices=", ".join(choices))


def _suggest(name: str, options) -> str:
    close = difflib.get_close_matches(name, list(options), n=1)
    return _(" (did you mean '{name}'?)").format(name=close[0]) if close else ""


def from_dict(data: dict, where: str = "config") -> Config:
    """A Config from parsed TOML; ConfigError names the first unknown key or wrong value."""
    cfg = Config()
    for key, (_default, check, *want) in TOP.items():
        if key in data:
            if not check(data[key]):
                raise ConfigError(_("{where}: {key} = {value!r} is wrong: expected {want}").format(
                    where=where, key=key, value=data[key], want=_wanted(*want)))
            setattr(cfg, key, data[key])
    for section in data:
        if section in TOP:
            continue
        if section not in SCHEMA:
            raise ConfigError(_("{where}: unknown section [{section}]{suggestion}").format(
                where=where, section=section, suggestion=_suggest(section, [*SCHEMA, *TOP])))
        if not isinstance(data[section], dict):
            raise ConfigError(_("{where}: '{section}' must be a [{section}] table").format(where=where,
                                                                                         section=section))
    for section, keys in SCHEMA.items():
        given = data.get(section, {})
        for key in given:
            if key not in keys:
                raise ConfigError(_("{where}: unknown key {section}.{key}{suggestion}").format(
                    where=where, section=section, key=key, suggestion=_suggest(key, keys)))
        values = {}
        for key, (default, check, *want) in keys.items():
            if key in given:
                v = given[key]
                if not check(v):
                    raise ConfigError(_("{where}: {key} = {value!r} is wrong: expected {want}").format(
                        where=where, key=f"{section}.{key}", value=v, want=_wanted(*want)))
                values[key] = v
            else:
                values[key] = list(default) if isinstance(default, list) else default
        setattr(cfg, section, values)
    if cfg.camera["source"] in ("folder", "video") and not cfg.camera["path"]:
        raise ConfigError(_("{where}: camera.path is needed when camera.source = '{source}'").format(
            where=where, source=cfg.camera["source"]))
    if cfg.display["kind"] == "png" and not cfg.display["dir"]:
        raise ConfigError(_("{where}: display.dir is needed when display.kind = 'png'").format(where=where))
    if cfg.display["kind"] in SPI_DISPLAYS:
        buttons = {pin: name for name, pin in cfg.button_pins.items()}
        for key in ("gpio_dc", "gpio_rst", "gpio_backlight"):
            if cfg.display[key] in buttons:
                raise ConfigError(_("{where}: display.{key} = {pin} is wrong: BCM {pin} is buttons.{button}").format(
                    where=where, key=key, pin=cfg.display[key], button=buttons[cfg.display[key]]))
    pins = cfg.button_pins
    if len(set(pins.values())) < len(pins):
        raise ConfigError(_("{where}: buttons: two buttons share a pin ({pins})").format(where=where, pins=pins))
    if cfg.camera["size"] is not None:
        cfg.camera["size"] = tuple(cfg.camera["size"])
    return cfg


def load(path: str | Path | None) -> Config:
    """Read a config file (None: every default); the state dir is $STATE_DIRECTORY when the file names none."""
    data = {} if path is None else read_toml(path, ConfigError, _("config file"))
    cfg = from_dict(data, str(path) if path is not None else "config")
    state = state_directory()
    if state is not None and "state_dir" not in data.get("paths", {}):
        cfg.paths["state_dir"] = str(state)  # systemd's StateDirectory=
    return cfg
