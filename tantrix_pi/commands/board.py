"""`tantrix-pi board show|check|score`: look at a board file, check it against the rules, score it."""

from __future__ import annotations

import argparse
import json

from tantrix_pi.board import Board
from tantrix_pi.errors import EXIT_NO, EXIT_OK
from tantrix_pi.game import bag_empty_at, player_colours
from tantrix_pi.grid import neighbour
from tantrix_pi.puzzles import solo_faults
from tantrix_pi.render import Highlights, render, save
from tantrix_pi.rules import (
    closure_violations,
    fmt,
    forced_space_report,
    four_sided_spaces,
    hopeless_spaces,
    needs_text,
    reading_order,
)
from tantrix_pi.scoring import FOUR_VARIANTS, four, outcome
from tantrix_pi.tiles import ALL_NUMBERS, COLOUR_NAMES


def register(cli) -> None:
    board = cli.group("board", "Look at a board file (tantrix-board/1), check it, score it.")
    p = cli.command("show", "Print a board as text and optionally draw it to a PNG.", show, board)
    p.add_argument("file")
    p.add_argument("--png", metavar="OUT", help="also draw the board (forced spaces lettered) to this PNG")
    p.add_argument("--scale", type=_scale, default=40.0, help="pixels per hexagon radius in the PNG (default 40)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p = cli.command("check", "Check a board against the rules: mismatches, holes, forced spaces, restrictions.",
                    check, board)
    p.add_argument("file")
    p.add_argument("--players", type=int, choices=(2, 3, 4),
                   help="number of players: the bag counts as empty once 56 - 6N tiles are down")
    p.add_argument("--bag-empty", action="store_true", help="the bag is empty: the restrictions no longer apply")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p = cli.command("score", "Score every colour: longest line, largest loop, score, the scoring path.", score, board)
    p.add_argument("file")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--players", metavar="COLOURS", help="player colours, e.g. red,blue (default: all four)")
    how.add_argument("--four", choices=FOUR_VARIANTS, help="score the solo variant Four lines or Four loops: the sum "
                     "over the four colours of the longest line (largest loop), in tiles; exit 1 when the board "
                     "breaks the variant's rules (a mismatch, a hole, separate groups)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def _scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 4 <= value <= 400:
        raise argparse.ArgumentTypeError(f"needs pixels per hexagon radius, 4..400, not {text!r}")
    return value


def text_view(board: Board, marks: dict | None = None) -> str:
    """The board as rows of hexagons: tile numbers, letters for forced spaces, 'o' for holes, '.' empty."""
    marks = marks or {}
    cells = board.cells | set(marks)
    if not cells:
        return "(empty board)"
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
        hl = Highlights(forced=[f.cell for f in forced], offending=board.mismatches(), holes=board.holes())
        save(render(board, hl, scale=args.scale), args.png)
    if args.json:
        print(json.dumps({"tiles": [p.to_dict() for p in board], "forced_spaces": [list(f.cell) for f in forced],
                          "png": args.png}))
        return EXIT_OK
    print(f"{args.file}: {len(board)} tiles")
    print(text_view(board, marks))
    for f in forced:
        print(f"forced space {f.letter} at {fmt(f.cell)} needs {needs_text(f.needs)}: "
              + (f"fits {', '.join(map(str, f.fits))}" if f.fits else "no unplayed tile fits"))
    if args.png:
        print(f"drawn to {args.png}")
    return EXIT_OK


def check(args) -> int:
    board = Board.load(args.file)
    bag_empty = args.bag_empty or (args.players is not None and len(board) >= bag_empty_at(args.players))
    report = _check_report(board, bag_empty)
    bad = _illegal(report)
    if args.json:
        print(json.dumps(report))
        return EXIT_NO if bad else EXIT_OK
    print(f"{args.file}: {len(board)} tiles" + (", bag empty: restrictions lifted" if bag_empty else ""))
    for m in report["mismatches"]:
        cell, d = tuple(m["cell"]), m["direction"]
        other = neighbour(cell, d)
        print(f"mismatch: {fmt(cell)} shows {COLOUR_NAMES[board[cell].colour(d)]} towards {fmt(other)}, which "
              f"shows {COLOUR_NAMES[board[other].colour((d + 3) % 6)]}")
    if not report["connected"]:
        print(f"not one Tantrix: {len(board.groups())} separate groups")
    for c in report["holes"]:
        print(f"hole at {fmt(tuple(c))}")
    for f in report["forced_spaces"]:
        cell = tuple(f["cell"])
        fits = "fits " + ", ".join(map(str, f["fits"])) if f["fits"] else "no unplayed tile fits"
        print(f"forced space {f['letter']} at {fmt(cell)} needs {needs_text(f['needs'])}: {fits}")
    for key, what in [("hopeless_spaces", "hopeless space (three links of one colour)"),
                      ("four_sided_spaces", "four-sided space"),
                      ("closure_violations", "filling the forced spaces would make a four-sided space at")]:
        for c in sorted((tuple(c) for c in report[key]), key=reading_order):
            print(f"{what} {fmt(c)}" if key == "closure_violations" else f"{what} at {fmt(c)}")
    print("illegal" if bad else "legal")
    return EXIT_NO if bad else EXIT_OK


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
    for c, s in over.scores.items():
        mark = "*" if c in over.winners else " "
        note = "" if c in players else "  (not playing)"
        print(f"{mark} {COLOUR_NAMES[c]:<6} line {s.line:>2}  loop {s.loop:>2}  score {s.score:>2}{note}")
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
    for c, n in result.tiles.items():
        path = result.paths[c]
        ends = f"  from {fmt(path.cells[0])} to {fmt(path.cells[-1])}" if n and not path.loop else ""
        print(f"  {COLOUR_NAMES[c]:<6} {n:>2}{ends}")
    print(result.summary())
    if len(board) < len(ALL_NUMBERS):
        print(f"{len(board)} of the {len(ALL_NUMBERS)} tiles are on the table: the variant is scored once all are")
    for fault in faults:
        print(f"does not count: {fault}")
    return EXIT_NO if faults else EXIT_OK
