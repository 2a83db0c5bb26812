"""`tantrix-pi calibrate hands PHOTO`: find each player's hand zone in a photo and write it to the config's [seats]."""

from __future__ import annotations

import json
from pathlib import Path

from tantrix_pi.errors import EXIT_OK, TantrixError
from tantrix_pi.game import player_colours
from tantrix_pi.i18n import _, player_name
from tantrix_pi.tiles import COLOUR_NAMES


class ConfigWriteError(TantrixError):
    """The config file cannot be read or written."""


def register(cli) -> None:
    group = cli.group("calibrate")
    p = cli.command("hands", _("Find each player's hand zone in a photo of the table with every hand laid out, and "
                               "write it to the config's [seats]."), cmd_hands, parent=group)
    p.add_argument("image", metavar="PHOTO", help=_("a photo from the referee's camera: each player's six tiles face "
                                                    "up in front of them"))
    p.add_argument("--players", required=True, help=_("the players' colours in seating order, e.g. red,blue,green"))
    p.add_argument("--first", choices=("bottom", "left", "top", "right"), default="bottom",
                   help=_("the side of the photo where the first player sits (default bottom); the others follow "
                          "clockwise as the camera sees the table"))
    p.add_argument("--config", metavar="FILE", help=_("the service's configuration to write [seats] into (made "
                                                      "when missing); without it the section is printed"))
    p.add_argument("--json", action="store_true", help=_("print the zones as JSON"))


def cmd_hands(args) -> int:
    from tantrix_pi.live.hands import zones_from
    from tantrix_pi.vision import detect
    from tantrix_pi.vision.photo import load

    players = player_colours(args.players)
    image = load(args.image)
    h, w = image.shape[:2]
    zones = zones_from(detect(image), players, (w, h), args.first)
    section = section_of(zones)
    if args.config:
        write_seats(Path(args.config), section)
    if args.json:
        print(json.dumps({"seats": section, "config": args.config}))
        return EXIT_OK
    for p, z in zones.items():
        xs, ys = [x for x, _y in z], [y for _x, y in z]
        print(_("{player}: x {x0:.2f}..{x1:.2f}, y {y0:.2f}..{y1:.2f} of the photo").format(
            player=player_name(p), x0=min(xs), x1=max(xs), y0=min(ys), y1=max(ys)))
    if args.config:
        print(_("[seats] written to {path}").format(path=args.config))
    else:
        print("\n[seats]")
        for name, z in section.items():
            print(f"{name} = {json.dumps(z)}")
    return EXIT_OK


def section_of(zones: dict) -> dict:
    """[seats] as the config writes it: colour name -> the zone's corners (fractions of the frame)."""
    return {COLOUR_NAMES[p].lower(): [list(xy) for xy in z] for p, z in zones.items()}


def write_seats(path: Path, section: dict) -> None:
    """Replace the [seats] section of the TOML config at `path` (made when missing), keeping the rest as it is."""
    import tomlkit

    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.TOMLKitError) as e:
        raise ConfigWriteError(_("{path}: cannot read the config file ({error})").format(path=path, error=e)) from None
    seats = tomlkit.table()
    for name, zone in section.items():
        seats[name] = zone
    doc["seats"] = seats
    try:
        path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    except OSError as e:
        raise ConfigWriteError(_("{path}: cannot write the config file ({error})").format(
            path=path, error=e.strerror)) from None


def seating(cfg, loop, profile: Path, config: str | None):
    """How the web page's seats step takes hand zones into use in `run`: found for a game's players, written to
    the `config` file's [seats] (when there is one) and given to the loop from its next frame (`service.reseat`:
    the hand watch and the detector, `profile` followed, as `run` makes them from a config)."""
    from tantrix_pi.live.service import reseat

    def seat(zones: dict, players: list[str]) -> str:
        section = section_of(zones)
        if config is not None:
            write_seats(Path(config), section)
        loop.commands.put(reseat(cfg, section, players, profile))
        names = ", ".join(player_name(p) for p in players)
        if config is None:
            return _("Seats set for {players}, until the referee stops (it runs without a config file to keep "
                     "them in).").format(players=names)
        return _("Seats set for {players} and written to {path}.").format(players=names, path=config)

    return seat
