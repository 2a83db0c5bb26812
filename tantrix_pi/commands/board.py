"""`tantrix-pi board show|check|score`: look at a board file, check it against the rules, score it."""

from __future__ import annotations

import argparse
import json

from tantrix_pi.board import Board
from tantrix_pi.errors import EXIT_NO, EXIT_OK
from tantrix_pi.game import bag_empty_at, player_colours
from tantrix_pi.grid import fmt, neighbour
from tantrix_pi.i18n import _, colour_name, ngettext
from tantrix_pi.puzzles import solo_faults
from tantrix_pi.rules import (
    closure_violations,
    forced_space_report,
    forced_space_text,
    four_sided_spaces,
    hopeless_spaces,
    reading_order,
)
from tantrix_pi.scoring import FOUR_VARIANTS, four, outcome
from tantrix_pi.tiles import ALL_NUMBERS


def register(cli) -> None:
    board = cli.group("board")
    p = cli.command("show", _("Print a board as text and optionally draw it to a PNG."), show, board)
    p.add_argument("file", help=_("a tantrix-board/1 file"))
    p.add_argument("--png", metavar="OUT", help=_("also draw the board (forced spaces lettered) to this PNG"))
    p.add_argument("--scale", type=_scale, default=40.0, help=_("pixels per hexagon radius in the PNG (default 40)"))
    p.add_argument("--json", action="store_true", help=_("print JSON instead of text"))
    p = cli.command("check", _("Check a board against the rules: mismatches, holes, forced spaces, restrictions."),
                    check, board)
    p.add_argument("file", help=_("a tantrix-board/1 file"))
    p.add_argument("--players", type=int, choices=(2, 3, 4),
                   help=_("number of players: the bag counts as empty once 56 - 6N tiles are down"))
    p.add_argument("--bag-empty", action="store_true", help=_("the bag is empty: the restrictions no longer apply"))
    p.add_argument("--json", action="store_true", help=_("print JSON instead of text"))
    p = cli.command("score", _("Score every colour: longest line, largest loop, score, the scoring path."), score,
                    board)
    p.add_argument("file", help=_("a tantrix-board/1 file"))
    how = p.add_mutually_exclusive_group()
    how.add_argument("--players", metavar="COLOURS", help=_("player colours, e.g. red,blue (default: all four)"))
    how.add_argument("--four", choices=FOUR_VARIANTS, help=_(
        "score the solo variant Four lines or Four loops: the sum over the four colours of the longest line "
        "(largest loop), in tiles; exit 1 when the board breaks the variant's rules (a mismatch, a hole, "
        "separate groups)"))
    p.add_argument("--json", action="store_true", help=_("print JSON instead of text"))


def _scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 4 <= value <= 400:
        raise argparse.ArgumentTypeError(_("needs pixels per hexagon radius, 4..400, not {text!r}").format(text=text))
    return value


def text_view(board: Board, marks: dict | None = None) -> str:
    """The board as rows of hexagons: tile numbers, letters for forced spaces, 'o' for holes, '.' empty."""
    marks = marks or {}
    cells = board.cells | set(marks)
    if not cells:
        return _("(empty board)")
    rows = range(min(r for _, r in cells), max(r for _, r in cells) + 1)
    lo = min(2 * q + r for q, r in cells)
    hi = max(2 * q + r for q, r in cells)
    lines = []
    for r in rows:
        text = ""
        for col in range(lo + (lo - r) % 2, hi + 1, 2):
            cell = ((col - r) // 2, r)
            label = str(board[cell].tile) if cell in board else marks.get(cell, ".")
            text = text.ljust(3 * (col - lo)) + label.center(3)
        lines.append(f"r={r:>3} |{text.rstrip()}")
    return "\n".join(lines)


def _check_report(board: Board, bag_empty: bool) -> dict:
    forced = forced_space_report(board)
    return {
        "tiles": len(board),
        "bag_empty": bag_empty,
        "connected": board.is_connected(),
        "mismatches": [{"cell": list(c), "direction": d} for c, d in board.mismatches()],
        "holes": [list(c) for c in board.holes()],
        "forced_spaces": [{"letter": f.letter, "cell": list(f.cell), "needs": list(f.needs), "fits": list(f.fits)}
                          for f in forced],
        "hopeless_spaces": [list(c) for c in hopeless_spaces(board)],
        "four_sided_spaces": [list(c) for c in four_sided_spaces(board)],
        "closure_violations": [list(c) for c in closure_violations(board)],
    }


def _illegal(report: dict) -> bool:
    if report["mismatches"] or not report["connected"]:
        return True
    restricted = report["hopeless_spaces"] or report["four_sided_spaces"] or report["closure_violations"]
    return bool(restricted) and not report["bag_empty"]


def show(args) -> int:
    board = Board.load(args.file)
    forced = forced_space_report(board)
    marks = {f.cell: f.letter for f in forced} | {c: "o" for c in board.holes()}
    if args.png:
        from tantrix_pi.render import Highlights, render, save  # Pillow, for --png only (as puzzle solve --png)

        hl = Highlights(forced=[f.cell for f in forced], offending=board.mismatches(), holes=board.holes())
        save(render(board, hl, scale=args.scale), args.png)
    if args.json:
        print(json.dumps({"tiles": [p.to_dict() for p in board], "forced_spaces": [list(f.cell) for f in forced],
                          "png": args.png}))
        return EXIT_OK
    print(_tiles_in(args.file, board))
    print(text_view(board, marks))
    for f in forced:
        print(forced_space_text(f))
    if args.png:
        print(_("drawn to {path}").format(path=args.png))
    return EXIT_OK


def check(args) -> int:
    board = Board.load(args.file)
    bag_empty = args.bag_empty or (args.players is not None and len(board) >= bag_empty_at(args.players))
    report = _check_report(board, bag_empty)
    bad = _illegal(report)
    if args.json:
        print(json.dumps(report))
        return EXIT_NO if bad else EXIT_OK
    n = len(board)
    print(ngettext("{file}: {n} tile, bag empty: restrictions lifted", "{file}: {n} tiles, bag empty: restrictions "
                   "lifted", n).format(file=args.file, n=n) if bag_empty else _tiles_in(args.file, board))
    for m in report["mismatches"]:
        cell, d = tuple(m["cell"]), m["direction"]
        other = neighbour(cell, d)
        print(_("mismatch: {cell} shows {colour} towards {other}, which shows {other_colour}").format(
            cell=fmt(cell), colour=colour_name(board[cell].colour(d)), other=fmt(other),
            other_colour=colour_name(board[other].colour((d + 3) % 6))))
    if not report["connected"]:
        groups = len(board.groups())
        print(ngettext("not one Tantrix: {n} separate group", "not one Tantrix: {n} separate groups", groups).format(
            n=groups))
    for c in report["holes"]:
        print(_("hole at {cell}").format(cell=fmt(tuple(c))))
    for f in forced_space_report(board):
        print(forced_space_text(f))
    for key, what in [("hopeless_spaces", _("hopeless space (three links of one colour) at {cell}")),
                      ("four_sided_spaces", _("four-sided space at {cell}")),
                      ("closure_violations", _("filling the forced spaces would make a four-sided space at {cell}"))]:
        for c in sorted((tuple(c) for c in report[key]), key=reading_order):
            print(what.format(cell=fmt(c)))
    print(_("illegal") if bad else _("legal"))
    return EXIT_NO if bad else EXIT_OK


def _tiles_in(file: str, board: Board) -> str:
    return ngettext("{file}: {n} tile", "{file}: {n} tiles", len(board)).format(file=file, n=len(board))


def score(args) -> int:
    board = Board.load(args.file)
    if args.four:
        return score_four(board, args.four, args.json)
    players = player_colours(args.players)
    over = outcome(board, players)
    data = {
        "colours": {c: {"line": s.line, "loop": s.loop, "score": s.score,
                        "path": [list(x) for x in s.path.cells] if s.path else [],
                        "path_is_loop": bool(s.path and s.path.loop)} for c, s in over.scores.items()},
        "players": players,
        "winner": over.winner,
        "winners": list(over.winners),
        "four_lines": four(board, "lines").total,
        "four_loops": four(board, "loops").total,
    }
    if args.json:
        print(json.dumps(data))
        return EXIT_OK
    width = max(len(colour_name(c)) for c in over.scores)
    for c, s in over.scores.items():
        mark = "*" if c in over.winners else " "
        line = (_("{colour} line {line:>2}  loop {loop:>2}  score {score:>2}") if c in players
                else _("{colour} line {line:>2}  loop {loop:>2}  score {score:>2}  (not playing)"))
        print(mark, line.format(colour=colour_name(c).ljust(width), line=s.line, loop=s.loop, score=s.score))
    print(over.result())
    return EXIT_OK


def score_four(board: Board, variant: str, as_json: bool) -> int:
    """`board score --four lines|loops`: each colour's path counted, the total, and what keeps it from counting."""
    result, faults = four(board, variant), solo_faults(board)
    if as_json:
        print(json.dumps({"four": variant, "total": result.total, "tiles": len(board), "faults": faults,
                          "colours": {c: {"tiles": n, "path": [list(x) for x in result.paths[c].cells] if n else []}
                                      for c, n in result.tiles.items()}}))
        return EXIT_NO if faults else EXIT_OK
    width = max(len(colour_name(c)) for c in result.tiles)
    for c, n in result.tiles.items():
        path = result.paths[c]
        name = colour_name(c).ljust(width)
        print("  " + (_("{colour} {n:>2}  from {start} to {end}").format(
            colour=name, n=n, start=fmt(path.cells[0]), end=fmt(path.cells[-1])) if n and not path.loop
                      else f"{name} {n:>2}"))
    print(result.summary())
    if len(board) < len(ALL_NUMBERS):
        print(ngettext("{n} of the {all} tiles is on the table: the variant is scored once all are",
                       "{n} of the {all} tiles are on the table: the variant is scored once all are", len(board))
              .format(n=len(board), all=len(ALL_NUMBERS)))
    for fault in faults:
        print(_("does not count: {fault}").format(fault=fault))
    return EXIT_NO if faults else EXIT_OK
