"""Sub-commands of `tantrix-pi`: every module here defines `register(cli)`.

MODULES names the modules that add each top-level command, so that a command line builds (and imports) only
its own command's parser: `board check` never loads OpenCV. tests/test_commands.py checks it against what
every module registers.
"""

MODULES = {
    "board": ("board",),
    "calibrate": ("calibrate", "seats"),
    "check": ("vision",),
    "club": ("club",),
    "demo": ("live",),
    "detect": ("vision",),
    "devices": ("devices",),
    "game": ("game_replay", "live"),
    "puzzle": ("puzzle_check", "solve"),
    "run": ("live",),
    "score": ("vision",),
}
