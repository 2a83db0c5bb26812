"""`tantrix-pi puzzle solve` and `puzzle hint`: solve a solo puzzle, or say how a partly built one goes on."""

from __future__ import annotations

import argparse
import json
import time

from tantrix_pi.board import Board
from tantrix_pi.commands.board import text_view
from tantrix_pi.errors import EXIT_NO, EXIT_OK
from tantrix_pi.i18n import N_, _, colour_name, ngettext
from tantrix_pi.puzzles import puzzle
from tantrix_pi.solver import count, hint, hinted, solve

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")

PUZZLE_HELP = N_("discovery:N (3..30, optionally discovery:N:COLOUR), rainbow:green|yellow|white|blue|red")


def register(cli) -> None:
    group = cli.group("puzzle")
    p = cli.command("solve", _("Solve a puzzle hole-free: one solution as a board file, or count them all."),
                    solve_command, group)
    p.add_argument("--puzzle", required=True, metavar="NAME", help=_(PUZZLE_HELP))
    p.add_argument("--count", action="store_true",
                   help=_("count every solution (up to a move and a turn of the whole board); for small puzzles"))
    p.add_argument("--json", action="store_true",
                   help=_("print the solution as a tantrix-board/1 file (or JSON count)"))
    p.add_argument("--png", metavar="OUT", help=_("also draw the solution to this PNG"))
    p.add_argument("--timeout", type=_seconds, metavar="S", default=120.0,
                   help=_("give up after S seconds (exit 3; default 120)"))
    p.add_argument("--seed", type=int, default=0, help=_("seed of the randomised search order (default 0)"))
    p = cli.command("hint", _("Can a partly built puzzle still be completed? One next placement, or what blocks it."),
                    hint_command, group)
    p.add_argument("file", help=_("the tiles placed so far: a tantrix-board/1 file, or a photo of the table "
                                  "(.jpg, .png, ...) read by the detector"))
    p.add_argument("--puzzle", required=True, metavar="NAME", help=_(PUZZLE_HELP))
    p.add_argument("--json", action="store_true", help=_("print JSON instead of text"))
    p.add_argument("--calibration", metavar="PROFILE",
                   help=_("camera calibration profile for a photo (as detect takes)"))
    p.add_argument("--png", metavar="OUT", help=_("also draw the board with the hinted tile to this PNG"))
    p.add_argument("--timeout", type=_seconds, metavar="S", default=60.0,
                   help=_("give up after S seconds (exit 3; default 60)"))


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(_("needs a number of seconds above 0, not {text!r}").format(text=text))
    return value


def _title(goal) -> str:
    if goal.loop:
        return _("{puzzle} ({colour} loop)").format(puzzle=goal.title, colour=colour_name(goal.colour))
    return _("{puzzle} ({colour} line through a pyramid of {rows} rows)").format(
        puzzle=goal.title, colour=colour_name(goal.colour), rows=goal.rows)


def _draw(board: Board, path: str, mark=None) -> None:
    from tantrix_pi.render import Highlights, render, save

    save(render(board, Highlights(last=mark)), path)


def solve_command(args) -> int:
    goal = puzzle(args.puzzle)
    started = time.monotonic()
    if args.count:
        n = count(goal, args.timeout)
        print(json.dumps({"puzzle": goal.name, "solutions": n}) if args.json
              else ngettext("{puzzle}: {n} solution", "{puzzle}: {n} solutions", n).format(puzzle=_title(goal), n=n))
        return EXIT_OK
    board = solve(goal, args.timeout, args.seed)
    seconds = time.monotonic() - started
    if board is None:
        print(json.dumps({"puzzle": goal.name, "solution": None}) if args.json
              else _("{puzzle}: no solution").format(puzzle=_title(goal)))
        return EXIT_NO
    if args.png:
        _draw(board, args.png)
    if args.json:
        print(json.dumps(board.to_dict(), indent=1))
    else:
        print(_("{puzzle}: solved in {seconds:.2f} s").format(puzzle=_title(goal), seconds=seconds))
        print(text_view(board))
        for p in board:
            print(f"  {p}")
    return EXIT_OK


def _placed(path: str, calibration: str | None) -> Board:
    """The tiles placed so far, from a board file or a photo; a photo that cannot be judged is refused."""
    if not path.lower().endswith(PHOTO_SUFFIXES):
        return Board.load(path)
    from tantrix_pi.commands.vision import judge_photo

    _, seen = judge_photo(path, calibration)
    return seen.board


def hint_command(args) -> int:
    goal = puzzle(args.puzzle)
    board = _placed(args.file, args.calibration)
    found = hint(goal, board, args.timeout)
    if args.png:
        shown = board.copy()
        if found.placement is not None:
            shown.place(found.placement)
        _draw(shown, args.png, found.placement.cell if found.placement else None)
    if args.json:
        print(json.dumps({
            "puzzle": goal.name,
            "solvable": found.solvable,
            "next": found.placement.to_dict() if found.placement else None,
            "blockers": [p.to_dict() for p in found.blockers],
            "reason": found.reason,
        }))
    elif found.placement is None and found.solvable:
        print(_("{puzzle}: already solved").format(puzzle=goal.title))
    elif found.solvable:
        print(_("{puzzle}: can still be completed ({reason})").format(puzzle=goal.title, reason=found.reason))
        print(_("next: {placement}").format(placement=hinted(board, found.placement)))
    else:
        print(_("{puzzle}: cannot be completed: {reason}").format(puzzle=goal.title, reason=found.reason))
    return EXIT_OK if found.solvable else EXIT_NO
