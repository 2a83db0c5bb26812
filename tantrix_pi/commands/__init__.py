"""Sub-commands of `tantrix-pi`: every module here defines `register(cli)`.

COMMANDS gives each top-level command its one line of help and the modules that add it, so that a command line
builds (and imports) only its own command's parser (`board check` never loads OpenCV) and `tantrix-pi --help`
lists every command without importing any. tests/test_commands.py checks it against what every module registers.
"""

from dataclasses import dataclass

from tantrix_pi.i18n import N_


@dataclass(frozen=True)
class Subcommand:
    help: str
    """One line, in English (shown in the chosen language)."""
    modules: tuple[str, ...]


COMMANDS = {
    "board": Subcommand(N_("Look at a board file (tantrix-board/1), check it, score it."), ("board",)),
    "calibrate": Subcommand(N_("Measure the camera, the table plane and the colours once per set-up."),
                         ("calibrate", "seats")),
    "club": Subcommand(N_("Follow every table on the club's MQTT broker and serve the club's page: a card per table, "
                       "the standings, each finished game's record."), ("club",)),
    "devices": Subcommand(N_("Try the appliance's display, buttons and voice."), ("devices",)),
    "game": Subcommand(N_("Games of 2-4 players: records and replays."), ("game_replay", "live")),
    "run": Subcommand(N_("Watch the table through the camera and referee the game (the service)."), ("live",)),
    "demo": Subcommand(N_("Replay the bundled recording of a 2-player game through the live referee."), ("live",)),
    "puzzle": Subcommand(N_("Solo puzzles: Discovery 3..30, the five Rainbow puzzles, Solitaire."),
                      ("puzzle_check", "solve")),
    "detect": Subcommand(N_("Read the board in a photo of the table (tiles, turns, confidence)."), ("vision",)),
    "check": Subcommand(N_("Is the puzzle in the photo solved? Refuses to judge a doubtful photo (exit 3)."),
                     ("vision",)),
    "score": Subcommand(N_("End-of-game scores of the board in a photo; refuses a doubtful photo (exit 3)."),
                     ("vision",)),
}
