"""`tantrix-pi puzzle check`: does a board solve Discovery N, a Rainbow puzzle or Solitaire, and if not, why."""

from __future__ import annotations

import json

from tantrix_pi.board import Board
from tantrix_pi.errors import EXIT_NO, EXIT_OK
from tantrix_pi.i18n import _
from tantrix_pi.puzzles import PUZZLE_HELP, puzzle


def register(cli) -> None:
    group = cli.group("puzzle")
    p = cli.command("check", _("Check a board against a puzzle's goal; name every reason it is not solved."),
                    check, group)
    p.add_argument("file", help=_("a tantrix-board/1 file"))
    p.add_argument("--puzzle", required=True, metavar="NAME", help=_(PUZZLE_HELP))
    p.add_argument("--json", action="store_true", help=_("print JSON instead of text"))


def check(args) -> int:
    goal = puzzle(args.puzzle)
    board = Board.load(args.file)
    verdict = goal.check(board)
    if args.json:
        print(json.dumps({"puzzle": goal.name, "solved": verdict.solved, "reasons": list(verdict.reasons)}))
    else:
        print((_("{puzzle}: solved") if verdict.solved else _("{puzzle}: not solved")).format(puzzle=goal.title))
        for reason in verdict.reasons:
            print(f"- {reason}")
    return EXIT_OK if verdict.solved else EXIT_NO
