"""The live config's schema against its neighbours: the devices' display options, docs/config.md, and
the default config that systemd/install.sh writes."""

import re
import subprocess
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from tantrix_pi.live import config
from tantrix_pi.live.config import SECTIONS, ConfigError
from tantrix_pi.live.hands import in_pixels

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("kind", ["ssd1306", "sh1106", "st7789", "ili9341"])
def test_every_display_option_of_the_devices_package_is_configurable(kind):
    from tantrix_pi.devices.display import MODELS, OPTIONS, _check_options

    cfg = config.from_dict({"display": {"kind": kind}})
    assert cfg.display.options == OPTIONS[MODELS[kind].bus]  # the same keys, the same defaults
    _check_options(MODELS[kind], cfg.display.options)  # the devices package takes them as they are


def test_display_and_voice_settings_reach_the_devices(tmp_path):
    from tantrix_pi.live.service import device_sinks

    cfg = config.from_dict({"display": {"kind": "png", "dir": str(tmp_path / "d"), "model": "ssd1306",
                                        "page_seconds": 1.5},
                            "voice": {"words_per_minute": 200}, "paths": {"state_dir": str(tmp_path)}})
    display, voice = device_sinks(cfg)
    assert display.display.size == (128, 64) and display.display.page_seconds == 1.5
    assert voice.voice.enabled is False  # there, silent until the menu switches it on
    cfg = config.from_dict({"display": {"kind": "st7789", "rotate": 1, "spi_speed_hz": 8_000_000}})
    assert cfg.display.options["rotate"] == 1 and cfg.display.options["spi_speed_hz"] == 8_000_000


@pytest.mark.parametrize("data, says", [
    ({"display": {"spi_speed_hz": "fast"}}, "display.spi_speed_hz = 'fast' is wrong"),
    ({"display": {"gpio_dc": 40}}, "display.gpio_dc = 40 is wrong"),
    ({"display": {"rotation": 1}}, "unknown key display.rotation (did you mean 'rotate'?)"),
    ({"display": {"kind": "st7789", "gpio_dc": 17}}, "display.gpio_dc = 17 is wrong: BCM 17 is buttons.next"),
    ({"buttons": {"back": 17}}, "buttons: two buttons share a pin"),
    ({"voice": {"words_per_minute": 1000}}, "voice.words_per_minute = 1000 is wrong"),
    ({"mode": {"hint_s": 0}}, "mode.hint_s = 0 is wrong"),
])
def test_a_wrong_device_setting_is_one_line_naming_the_key(data, says):
    with pytest.raises(ConfigError) as e:
        config.from_dict(data)
    assert says in str(e.value) and "\n" not in str(e.value)


def default_config_of_install_sh() -> str:
    script = ROOT / "systemd" / "install.sh"
    body = re.search(r"^default_config\(\) \{\n.*?^\}\n", script.read_text(), re.S | re.M).group(0)
    return subprocess.run(["bash", "-c", body + "default_config"], capture_output=True, text=True,
                          check=True).stdout


def test_the_config_install_sh_writes_is_read_by_the_service_and_holds_the_defaults(tmp_path):
    text = default_config_of_install_sh()
    f = tmp_path / "config.toml"
    f.write_text(text)
    cfg = config.load(f)
    data = tomllib.loads(text)
    assert {"language", "camera", "display", "buttons", "voice", "mode"} <= set(data)
    defaults = config.from_dict({})
    for section, keys in data.items():
        if section in config.TOP:
            assert getattr(cfg, section) == getattr(defaults, section), section
            continue
        for key in keys:
            assert getattr(getattr(cfg, section), key) == getattr(getattr(defaults, section), key), f"{section}.{key}"


def documented_keys() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    section = None
    for line in (ROOT / "docs" / "config.md").read_text().splitlines():
        if m := re.match(r"## `\[(\w+)\]`", line):
            section = out.setdefault(m.group(1), set())
        elif line.startswith("## Top level"):
            section = out.setdefault("", set())
        elif section is not None and (m := re.match(r"\| `(\w+)` \|", line)):
            section.add(m.group(1))
    return out


def test_docs_config_md_lists_exactly_the_schemas_keys():
    schema = {s: {f.name for f in fields(cls)} for s, cls in SECTIONS.items()}
    assert documented_keys() == {"": set(config.TOP), **schema}


def test_config_and_profile_take_the_state_folder_from_systemd_alike(tmp_path, monkeypatch):
    from tantrix_pi.calibration.profile import default_path

    monkeypatch.setenv("STATE_DIRECTORY", f"{tmp_path}/state:{tmp_path}/other")
    assert config.load(None).state_dir == tmp_path / "state"
    assert default_path() == tmp_path / "state" / "profile.toml"
    f = tmp_path / "c.toml"
    f.write_text(f'[paths]\nstate_dir = "{tmp_path}/mine"\n')
    assert config.load(f).state_dir == tmp_path / "mine"  # the file's own choice wins
    f.write_text("[paths]\nstate_dir = 3\n")
    with pytest.raises(ConfigError, match="paths.state_dir = 3 is wrong"):
        config.load(f)


def test_seats_give_each_colour_its_hand_zone_in_fractions_and_in_pixels():
    assert config.from_dict({}).seats.zones == {}  # no zones unless configured
    cfg = config.from_dict({"mode": {"players": ["red", "blue"]},
                            "seats": {"red": [[0, 0.8], [1, 0.8], [1.0, 1], [0.0, 1.0]],
                                      "green": [[0.0, 0.0], [0.25, 0.0], [0.0, 0.5]]}})  # green does not play
    assert cfg.seats.zones == {"R": ((0.0, 0.8), (1.0, 0.8), (1.0, 1.0), (0.0, 1.0)),
                               "G": ((0.0, 0.0), (0.25, 0.0), (0.0, 0.5))}
    assert in_pixels(cfg.seats.zones["R"], (640, 480)).tolist() == [[0, 384], [640, 384], [640, 480], [0, 480]]
    assert in_pixels(cfg.seats.zones["G"], (640, 480)).tolist() == [[0, 0], [160, 0], [0, 240]]


@pytest.mark.parametrize("zone, says", [
    ([[0, 0], [1, 0]], "seats.red = [[0, 0], [1, 0]] is wrong: expected 3 or more [x, y] points"),
    ([[0, 0], [1.2, 0], [1, 1]], "seats.red = [[0, 0], [1.2, 0], [1, 1]] is wrong: expected 3 or more"),
    ([[0, 0], [1, 0], "x"], "is wrong: expected 3 or more [x, y] points, each a fraction 0..1"),
    ([[0, 0], [1, 1], [1, 0], [0, 1]], "seats.red = [[0, 0], [1, 1], [1, 0], [0, 1]] is wrong: expected a polygon "
                                       "whose sides do not cross"),  # a bow tie
    ([[0, 0], [0.5, 0.5], [1, 1]], "expected a polygon whose sides do not cross"),  # a line, no area
    ([[0, 0], [1, 0], [0.5, 0], [0.5, 1]], "expected a polygon whose sides do not cross"),  # a side folds back
    ([[0, 0], [0, 0], [1, 0], [0, 1]], "expected a polygon whose sides do not cross"),  # a corner twice
    ([[0, 0], [1, 0], [1, 1], [0.5, 0], [0, 1]], "expected a polygon whose sides do not cross"),  # a corner on a side
])
def test_a_hand_zone_that_cannot_be_is_one_line_naming_the_key(zone, says):
    with pytest.raises(ConfigError) as e:
        config.from_dict({"seats": {"red": zone}})
    assert says in str(e.value) and "\n" not in str(e.value)


def test_a_zone_shaped_like_a_hand_along_the_edge_is_taken():
    l_shape = [[0, 0.7], [0.3, 0.7], [0.3, 0.9], [1, 0.9], [1, 1], [0, 1]]  # not convex, its sides meet nowhere
    assert len(config.from_dict({"seats": {"blue": l_shape}}).seats.zones["B"]) == 6
