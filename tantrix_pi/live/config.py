"""The service's configuration: a TOML file (tomllib) read into one frozen dataclass per section.

Each field of a section is a key: its default, the check a value from the file must pass and what a good
value looks like sit beside it (`key(...)`), as `vision/config.py` keeps the detector's tuning.
docs/config.md documents every key (a test compares the two). A typo or a wrong value raises
ConfigError, one line naming the key, which the command line turns into exit 2.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

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

Polygon = tuple[tuple[float, float], ...]
"""A hand zone's corners in order, (x, y) each."""


class ConfigError(TantrixError):
    """The configuration file is unreadable or names a key or value that cannot be."""


def key(default, check: Callable[[object], bool], want: str, choices: tuple = (),
        convert: Callable[[object], object] | None = None):
    """A config key: its `default`, the `check` a value from the file must pass, `want`: what a good value looks
    like (marked with N_, `{choices}` naming `choices`); `convert` makes the checked value the field's (lists
    become tuples unless it says otherwise)."""
    return field(default=default, metadata={"check": check, "want": want, "choices": choices,
                                            "convert": convert or _frozen})


def _frozen(v):
    return tuple(_frozen(x) for x in v) if isinstance(v, list) else v


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v):
    return (isinstance(v, int | float)) and not isinstance(v, bool)


def _size(v):
    return isinstance(v, list) and len(v) == 2 and all(_int(x) and 16 <= x <= 10000 for x in v)


def _pin(low: int):
    return lambda v: _int(v) and low <= v <= 27


def _zone(v):
    return isinstance(v, list) and len(v) >= 3 and all(
        isinstance(p, list) and len(p) == 2 and all(_num(x) and 0 <= x <= 1 for x in p) for p in v)


def _polygon(v) -> Polygon:
    return tuple((float(x), float(y)) for x, y in v)


@dataclass(frozen=True)
class CameraConfig:
    """[camera]: where frames come from."""

    source: str = key("picamera2", lambda v: v in SOURCES, N_("one of {choices}"), SOURCES)
    """picamera2 (the Pi camera), opencv (a USB webcam or a stream), folder (images in name order) or video."""
    device: int | str = key(0, lambda v: _int(v) and v >= 0 or isinstance(v, str) and v != "",
                            N_("a camera index (0, 1, ...) or a stream URL"))
    """opencv: the camera index or the stream's URL."""
    path: str = key("", lambda v: isinstance(v, str), N_("a folder of images or a video file"))
    """folder / video: what is replayed (needed for those sources)."""
    size: tuple[int, int] | None = key(None, _size, N_("[width, height] in pixels, e.g. [1640, 1232]"))
    """(width, height) of the frames; None: the sensor's default."""
    fps: float = key(0.0, lambda v: _num(v) and 0 <= v <= 240, N_("frames per second 0..240 (0: as fast as possible)"))
    """folder / video: replay rate; 0 as fast as the loop takes frames."""
    settle_s: float = key(2.0, lambda v: _num(v) and 0 <= v <= 30, N_("seconds 0..30"))
    """picamera2: seconds auto exposure and white balance run before they are locked."""
    mains_hz: int = key(50, lambda v: _int(v) and v in (0, 50, 60), N_("50, 60 or 0"))
    """picamera2: the mains frequency of the room's lamps; the exposure is locked to whole periods of their flicker
    (0: as auto exposure left it)."""


@dataclass(frozen=True)
class GateConfig:
    """[gate]: when a board counts as seen."""

    motion: float = key(0.004, lambda v: _num(v) and 0 < v < 1, N_("a fraction of the image between 0 and 1"))
    """Share of the thumbnail that may change between frames before the frame counts as motion (a hand)."""
    stable_frames: int = key(2, lambda v: _int(v) and 1 <= v <= 30, N_("a whole number 1..30"))
    """Consecutive still frames showing the same tiles before a board is committed."""
    min_confidence: float = key(CONFIDENT, lambda v: _num(v) and 0 < v <= 1, N_("a number in (0, 1]"))
    """A tile read less confidently than this is "can't read", never judged."""


@dataclass(frozen=True)
class DisplayConfig:
    """[display]: the screen (docs/devices.md)."""

    kind: str = key("none", lambda v: v in DISPLAYS, N_("one of {choices}"), DISPLAYS)
    """none, png (frames into `dir`), or a screen: ssd1306, sh1106 (I2C OLEDs), st7789, ili9341 (SPI LCDs)."""
    dir: str = key("", lambda v: isinstance(v, str), N_("a folder for the png display"))
    """png: the frames' folder (needed for png); where a screen that cannot be opened draws instead."""
    model: str = key("st7789", lambda v: v in DISPLAYS[2:], N_("one of {choices} (the png display's size)"),
                     DISPLAYS[2:])
    """png: which screen's size and colours the frames have."""
    rotate: int = key(0, lambda v: _int(v) and 0 <= v <= 3, N_("quarter turns 0..3"))
    """Quarter turns of the picture."""
    page_seconds: float = key(4.0, lambda v: _num(v) and 0.5 <= v <= 60,
                              N_("seconds 0.5..60 a mono screen's page stays up"))
    """Mono screens: seconds each text page stays up."""
    i2c_port: int = key(1, lambda v: _int(v) and 0 <= v <= 20, N_("an I2C bus number (1 on a Pi)"))
    """OLEDs: the I2C bus."""
    i2c_address: int = key(0x3C, lambda v: _int(v) and 0 <= v <= 0x7F, N_("an I2C address 0..0x7f"))
    """OLEDs: the screen's I2C address."""
    spi_port: int = key(0, lambda v: _int(v) and 0 <= v <= 6, N_("an SPI bus number 0..6"))
    """LCDs: the SPI bus."""
    spi_device: int = key(0, lambda v: _int(v) and 0 <= v <= 2, N_("an SPI chip select 0..2"))
    """LCDs: the chip select."""
    spi_speed_hz: int = key(32_000_000, lambda v: _int(v) and 100_000 <= v <= 125_000_000,
                            N_("a bus speed in Hz, 100000..125000000"))
    """LCDs: the SPI clock."""
    gpio_dc: int = key(24, _pin(0), N_("a BCM pin 0..27"))
    """LCDs: BCM pin of data/command."""
    gpio_rst: int = key(25, _pin(0), N_("a BCM pin 0..27"))
    """LCDs: BCM pin of reset."""
    gpio_backlight: int = key(18, _pin(0), N_("a BCM pin 0..27"))
    """LCDs: BCM pin of the backlight."""

    @property
    def options(self) -> dict:
        """The options the devices package's open_display takes for this screen."""
        if self.kind == "png":
            return {"model": self.model}
        keys = I2C_KEYS if self.kind in ("ssd1306", "sh1106") else SPI_KEYS if self.kind in SPI_DISPLAYS else ()
        return {k: getattr(self, k) for k in keys}


@dataclass(frozen=True)
class ButtonsConfig:
    """[buttons]: the three buttons."""

    next: int = key(17, _pin(2), N_("a BCM pin 2..27"))
    """BCM pin of next: ends the turn (in a puzzle: asks for a hint)."""
    back: int = key(27, _pin(2), N_("a BCM pin 2..27"))
    """BCM pin of back: says which tile to take off to undo."""
    menu: int = key(22, _pin(2), N_("a BCM pin 2..27"))
    """BCM pin of menu: opens the menu; held, it starts a new game."""
    hold_s: float = key(2.0, lambda v: _num(v) and 0.5 <= v <= 10, N_("seconds 0.5..10 menu is held for a new game"))
    """Seconds menu is held for a new game."""

    @property
    def pins(self) -> dict[str, int]:
        """BCM pin of each button: next, back, menu."""
        return {"next": self.next, "back": self.back, "menu": self.menu}


@dataclass(frozen=True)
class VoiceConfig:
    """[voice]: spoken announcements (espeak-ng)."""

    enabled: bool = key(False, lambda v: isinstance(v, bool), N_("true or false"))
    """Speak from the start (the menu switches it on and off)."""
    language: str = key("", lambda v: isinstance(v, str),
                        N_("an espeak-ng voice, e.g. cs, or empty to speak the referee's language"))
    """The espeak-ng voice; empty: the referee's language."""
    words_per_minute: int = key(160, lambda v: _int(v) and 80 <= v <= 450, N_("a whole number 80..450"))
    """Speed of speech."""


@dataclass(frozen=True)
class ModeConfig:
    """[mode]: what is played."""

    kind: str = key("game", lambda v: v in MODES, N_("one of {choices}"), MODES)
    """game (2-4 players), a puzzle (discovery, rainbow), solitaire, four-lines, four-loops, gobble or free."""
    players: tuple[str, ...] = key(("red", "blue"), lambda v: isinstance(v, list) and 2 <= len(v) <= 4
                                   and all(c in PLAYER_COLOURS for c in v) and len(set(v)) == len(v),
                                   N_("2 to 4 different colours of red, yellow, green, blue, in seating order"))
    """game: the players' colours in seating order, first to play first."""
    discovery: int = key(10, lambda v: _int(v) and 3 <= v <= 30, N_("a whole number 3..30"))
    """Discovery puzzle size."""
    rainbow: str = key("green", lambda v: v in RAINBOWS, N_("one of {choices}"), RAINBOWS)
    """Rainbow puzzle colour."""
    hint_s: float = key(20.0, lambda v: _num(v) and 1 <= v <= 300,
                        N_("seconds 1..300 the solver may think about a hint"))
    """Puzzles: seconds the solver may think about a hint."""

    @property
    def player_letters(self) -> list[str]:
        """The players' colours as tile letters (R, Y, G, B) in seating order."""
        return [COLOUR_LETTER[c] for c in self.players]

    @property
    def puzzle_spec(self) -> str | None:
        """The rules engine's puzzle name for a puzzle mode (`discovery:10`), None for the others."""
        if self.kind == "discovery":
            return f"discovery:{self.discovery}"
        if self.kind == "rainbow":
            return f"rainbow:{self.rainbow}"
        if self.kind == "solitaire":
            return "solitaire"
        return None


_ZONE = N_("3 or more [x, y] points, each a fraction 0..1 of the frame's width and height")


@dataclass(frozen=True)
class SeatsConfig:
    """[seats]: each player's hand zone, where their six tiles lie face up (docs/live.md); none by default."""

    red: Polygon | None = key(None, _zone, _ZONE, convert=_polygon)
    """Red's hand zone: its corners in order, as fractions of the frame's width and height."""
    yellow: Polygon | None = key(None, _zone, _ZONE, convert=_polygon)
    """Yellow's hand zone."""
    green: Polygon | None = key(None, _zone, _ZONE, convert=_polygon)
    """Green's hand zone."""
    blue: Polygon | None = key(None, _zone, _ZONE, convert=_polygon)
    """Blue's hand zone."""

    @property
    def zones(self) -> dict[str, Polygon]:
        """Colour letter (R, Y, G, B) -> that player's zone, for the colours that have one."""
        return {COLOUR_LETTER[c]: z for c in PLAYER_COLOURS if (z := getattr(self, c)) is not None}


@dataclass(frozen=True)
class WebConfig:
    """[web]: the table's web page (docs/web.md)."""

    enabled: bool = key(True, lambda v: isinstance(v, bool), "true or false")
    """Serve the page from the referee's process."""
    port: int = key(8080, lambda v: _int(v) and 1 <= v <= 65535, "a TCP port 1..65535")
    """TCP port of the page (under systemd: the socket unit's)."""
    bind: str = key("", lambda v: isinstance(v, str) and " " not in v,
                    'an address of this machine ("127.0.0.1", "192.168.1.20"), or "" for every address')
    """The address to listen on; empty: every address."""


@dataclass(frozen=True)
class Broker:
    """An MQTT broker as a `mqtt://` or `mqtts://` URL names it: host, port, TLS, user and password."""

    host: str
    port: int
    tls: bool = False
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    def __str__(self) -> str:
        """The URL without its password (for logs and pages)."""
        user = f"{self.user}@" if self.user else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{host}:{self.port}"


def broker_of(url: str) -> Broker | None:
    """The broker a `mqtt://[USER[:PASSWORD]@]HOST[:PORT]` or `mqtts://...` URL names (ports 1883 and 8883 by
    default); None when it is not such a URL."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or parts.path not in ("", "/") or parts.query:
        return None
    tls = parts.scheme == "mqtts"
    return Broker(parts.hostname, port or (8883 if tls else 1883), tls,
                  unquote(parts.username) if parts.username else None,
                  unquote(parts.password) if parts.password is not None else None)


TABLE_NAME = re.compile(r"[\w-]{1,32}")
"""A table's name: one level of the MQTT topics (letters, digits, - and _)."""


@dataclass(frozen=True)
class FeedConfig:
    """[feed]: the club's MQTT broker this table publishes to (docs/club.md); none by default."""

    mqtt: str = key("", lambda v: isinstance(v, str) and (v == "" or broker_of(v) is not None),
                    N_("a broker's URL, mqtt://HOST:1883 or mqtts://USER:PASSWORD@HOST:8883, or empty for none"))
    """The broker's URL; empty: no feed."""
    table: str = key("", lambda v: isinstance(v, str) and (v == "" or TABLE_NAME.fullmatch(v) is not None),
                     N_("a name of 1 to 32 letters, digits, - or _, such as t1"))
    """This table's name in the topics (tantrix/TABLE/...) and on the club's page; needed with `mqtt`."""
    ca_file: str = key("", lambda v: isinstance(v, str), N_("a CA certificate file (PEM), or empty for the system's"))
    """mqtts: the certificate of the authority that signed the broker's; empty: the system's authorities."""
    home_assistant: bool = key(False, lambda v: isinstance(v, bool), N_("true or false"))
    """Also publish Home Assistant's MQTT discovery messages (a sensor each for the scores and the turn)."""

    @property
    def broker(self) -> Broker | None:
        """The broker to publish to, None without one."""
        return broker_of(self.mqtt) if self.mqtt else None


@dataclass(frozen=True)
class PathsConfig:
    """[paths]: the state folder and the files in it."""

    state_dir: str = key("/var/lib/tantrix-pi", lambda v: isinstance(v, str) and v != "", N_("a folder"))
    """Holds state.db, its lock and, by default, events.jsonl."""
    profile: str = key("", lambda v: isinstance(v, str), N_("a calibration profile file, or empty"))
    """The detector's calibration profile; empty: STATE_DIR/profile.toml when it exists."""
    events: str = key("", lambda v: isinstance(v, str), N_("a JSON-lines file, or empty for STATE_DIR/events.jsonl"))
    """The JSON-lines event stream; empty: STATE_DIR/events.jsonl."""


@dataclass(frozen=True)
class ServiceConfig:
    """Every setting, by section: `cfg.camera.source`, `cfg.mode.players`, ...; `cfg.language` on top."""

    language: str = key("", lambda v: isinstance(v, str) and (v == "" or i18n.code_of(v) in i18n.LANGUAGES),
                        N_("one of {choices}, or empty for the environment's language"), tuple(i18n.LANGUAGES))
    """The referee's language; empty: `--lang` or the environment decides (i18n.choose)."""
    camera: CameraConfig = field(default_factory=CameraConfig)
    gate: GateConfig = field(default_factory=GateConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    mode: ModeConfig = field(default_factory=ModeConfig)
    seats: SeatsConfig = field(default_factory=SeatsConfig)
    web: WebConfig = field(default_factory=WebConfig)
    feed: FeedConfig = field(default_factory=FeedConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)

    @property
    def state_dir(self) -> Path:
        return Path(self.paths.state_dir)

    @property
    def profile_path(self) -> Path:
        """The calibration profile the detector reads (it may not exist yet) and `calibrate` writes."""
        return Path(self.paths.profile) if self.paths.profile else self.state_dir / "profile.toml"

    @property
    def events_path(self) -> Path:
        return Path(self.paths.events) if self.paths.events else self.state_dir / "events.jsonl"


SECTIONS: dict[str, type] = {f.name: f.default_factory for f in fields(ServiceConfig)
                             if f.default_factory is not MISSING}
"""Section name -> its dataclass, in the file's order (docs/config.md lists the same keys)."""
TOP = tuple(f.name for f in fields(ServiceConfig) if f.name not in SECTIONS)
"""Keys outside any section (docs/config.md lists them under "Top level")."""


def _wanted(want: str, choices: tuple = ()) -> str:
    """What a good value looks like, in the language of the moment."""
    return _(want).format(choices=", ".join(choices))


def _suggest(name: str, options) -> str:
    close = difflib.get_close_matches(name, list(options), n=1)
    return _(" (did you mean '{name}'?)").format(name=close[0]) if close else ""


def _wrong(where: str, name: str, value, want: str, choices: tuple = ()) -> ConfigError:
    return ConfigError(_("{where}: {key} = {value!r} is wrong: expected {want}").format(
        where=where, key=name, value=value, want=_wanted(want, choices)))


def _values(cls: type, given: dict, where: str, prefix: str = "") -> dict:
    """The checked, converted values of the keys of `cls` that `given` names."""
    values = {}
    for f in fields(cls):
        if f.name in given:
            v, m = given[f.name], f.metadata
            if isinstance(v, str) and "\0" in v:  # no file, address or language has one (the OS refuses them)
                raise _wrong(where, prefix + f.name, v, N_("text without a NUL character"))
            if not m["check"](v):
                raise _wrong(where, prefix + f.name, v, m["want"], m["choices"])
            values[f.name] = m["convert"](v)
    return values


def from_dict(data: dict, where: str = "config") -> ServiceConfig:
    """A ServiceConfig from parsed TOML; ConfigError names the first unknown key or wrong value."""
    top = _values(ServiceConfig, {k: v for k, v in data.items() if k in TOP}, where)
    for section in data:
        if section in TOP:
            continue
        if section not in SECTIONS:
            raise ConfigError(_("{where}: unknown section [{section}]{suggestion}").format(
                where=where, section=section, suggestion=_suggest(section, [*SECTIONS, *TOP])))
        if not isinstance(data[section], dict):
            raise ConfigError(_("{where}: '{section}' must be a [{section}] table").format(where=where,
                                                                                         section=section))
    sections = {}
    for section, cls in SECTIONS.items():
        given = data.get(section, {})
        names = [f.name for f in fields(cls)]
        for name in given:
            if name not in names:
                raise ConfigError(_("{where}: unknown key {section}.{key}{suggestion}").format(
                    where=where, section=section, key=name, suggestion=_suggest(name, names)))
        sections[section] = cls(**_values(cls, given, where, f"{section}."))
    cfg = ServiceConfig(**top, **sections)
    _check_together(cfg, data, where)
    return cfg


def _check_together(cfg: ServiceConfig, data: dict, where: str) -> None:
    """The checks that take more than one key."""
    if cfg.camera.source in ("folder", "video") and not cfg.camera.path:
        raise ConfigError(_("{where}: camera.path is needed when camera.source = '{source}'").format(
            where=where, source=cfg.camera.source))
    if cfg.display.kind == "png" and not cfg.display.dir:
        raise ConfigError(_("{where}: display.dir is needed when display.kind = 'png'").format(where=where))
    if cfg.feed.mqtt and not cfg.feed.table:
        raise ConfigError(_("{where}: feed.table is needed when feed.mqtt is set (the table's name on the club's "
                            "page, such as t1)").format(where=where))
    pins = cfg.buttons.pins
    if cfg.display.kind in SPI_DISPLAYS:
        buttons = {pin: name for name, pin in pins.items()}
        for name in ("gpio_dc", "gpio_rst", "gpio_backlight"):
            pin = getattr(cfg.display, name)
            if pin in buttons:
                raise ConfigError(_("{where}: display.{key} = {pin} is wrong: BCM {pin} is buttons.{button}").format(
                    where=where, key=name, pin=pin, button=buttons[pin]))
    if len(set(pins.values())) < len(pins):
        raise ConfigError(_("{where}: buttons: two buttons share a pin ({pins})").format(where=where, pins=pins))
    for colour in PLAYER_COLOURS:
        zone = getattr(cfg.seats, colour)
        if zone is not None and not simple(zone):
            raise _wrong(where, f"seats.{colour}", data["seats"][colour],
                         N_("a polygon whose sides do not cross, around some area"))


def simple(polygon: Polygon) -> bool:
    """Whether a polygon's sides meet only where neighbours share a corner, and it encloses some area."""
    n = len(polygon)
    sides = [(polygon[i], polygon[(i + 1) % n]) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            (a, b), (c, d) = sides[i], sides[j]
            if j == i + 1 and _folds(a, b, d) or i == 0 and j == n - 1 and _folds(c, a, b):
                return False
            if j not in (i + 1, i + n - 1) and _meet(a, b, c, d):
                return False
    area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in sides) / 2
    return abs(area) > 1e-9


def _turn(p, q, r) -> int:
    """Which way p -> q -> r turns: 1 left, -1 right, 0 straight on."""
    cross = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return 0 if abs(cross) < 1e-12 else 1 if cross > 0 else -1


def _folds(p, s, q) -> bool:
    """Whether neighbouring sides p-s and s-q overlap: one has no length, or the second goes straight back."""
    if p == s or q == s:
        return True
    return _turn(p, s, q) == 0 and (p[0] - s[0]) * (q[0] - s[0]) + (p[1] - s[1]) * (q[1] - s[1]) > 0


def _meet(a, b, c, d) -> bool:
    """Whether the segments a-b and c-d cross or touch."""
    t1, t2, t3, t4 = _turn(a, b, c), _turn(a, b, d), _turn(c, d, a), _turn(c, d, b)
    if t1 * t2 < 0 and t3 * t4 < 0:
        return True
    return any(t == 0 and _within(p, q, r) for t, (p, q, r) in
               ((t1, (a, b, c)), (t2, (a, b, d)), (t3, (c, d, a)), (t4, (c, d, b))))


def _within(p, q, r) -> bool:
    """Whether r, on the line p-q, lies between p and q."""
    return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])


def load(path: str | Path | None) -> ServiceConfig:
    """Read a config file (None: every default); the state dir is $STATE_DIRECTORY when the file names none."""
    data = {} if path is None else read_toml(path, ConfigError, _("config file"))
    cfg = from_dict(data, str(path) if path is not None else "config")
    state = state_directory()
    if state is not None and "state_dir" not in data.get("paths", {}):
        cfg = replace(cfg, paths=replace(cfg.paths, state_dir=str(state)))  # systemd's StateDirectory=
    return cfg
