"""`tantrix-pi game replay`: check a game record move by move and print what a referee would announce."""

from __future__ import annotations

import json

from tantrix_pi.errors import EXIT_NO, EXIT_OK
from tantrix_pi.game import Draw, Move
from tantrix_pi.grid import fmt
from tantrix_pi.i18n import _, player_name
from tantrix_pi.record import ReplayError, load, replay_events


def register(cli) -> None:
    group = cli.group("game")
    p = cli.command("replay", _("Check a game record (tantrix-game/1) move by move, announcing as a referee would."),
                    replay, group)
    p.add_argument("record", help=_("a tantrix-game/1 record (docs/game-record.md)"))
    p.add_argument("--json", action="store_true", help=_("print JSON instead of text"))


def replay(args) -> int:
    record = load(args.record)
    game = record.game()
    steps = []
    error = None
    try:
        for event, said in replay_events(game, record):
            if isinstance(event, Move):
                steps.append(said.to_dict())
                if not args.json:
                    print(f"{len(game.moves)}. " + str(said).replace("\n", "\n   "))
            elif isinstance(event, Draw):
                steps.append({"player": event.player, "draw": event.tile})
                if not args.json:
                    print("  ", _("({player} draws tile {tile})").format(player=player_name(event.player),
                                                                       tile=event.tile))
            else:
                steps.append({"player": event.player, "end_turn": True, "to_move": said})
                if not args.json:
                    print("  ", _("({player} ends the turn)").format(player=player_name(event.player)))
    except ReplayError as e:
        error = e
    if args.json:
        out = {"moves": steps, "legal": error is None, "result": game.result(),
               "scores": {p: s.score for p, s in game.scores().items()}}
        if error:
            out["illegal"] = {"index": error.index, "violations": [
                {"rule": v.rule, "message": v.message, "cells": [list(c) for c in v.cells]} for v in error.violations]}
        print(json.dumps(out))
    else:
        if error:
            what = error.event
            if isinstance(what, Move):
                p = what.placement
                said = _("ILLEGAL (record entry {n}) {player}: tile {tile} at {cell} turn {rot}:").format(
                    n=error.index + 1, player=player_name(what.player), tile=p.tile, cell=fmt(p.cell), rot=p.rot)
            else:
                said = _("ILLEGAL (record entry {n}) {player} ends the turn:").format(
                    n=error.index + 1, player=player_name(what.player))
            print(said)
            for v in error.violations:
                print(f"   {v.message}")
        print(game.result())
    return EXIT_NO if error else EXIT_OK
