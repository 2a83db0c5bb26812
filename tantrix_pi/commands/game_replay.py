"""`tantrix-pi game replay`: check a game record move by move and print what a referee would announce."""

from __future__ import annotations

import json

from tantrix_pi.errors import EXIT_NO, EXIT_OK
from tantrix_pi.game import Game, Move, ReplayError, load_record, replay_events
from tantrix_pi.tiles import COLOUR_NAMES


def register(cli) -> None:
    group = cli.group("game", "Games of 2-4 players: records and replays.")
    p = cli.command("replay", "Check a game record (tantrix-game/1) move by move, announcing as a referee would.",
                    replay, group)
    p.add_argument("record", help="a tantrix-game/1 record (docs/game-record.md)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def replay(args) -> int:
    record = load_record(args.record)
    game = Game(record.players)
    steps = []
    error = None
    try:
        for event, said in replay_events(game, record):
            if isinstance(event, Move):
                steps.append(said.to_dict())
                if not args.json:
                    print(f"{len(game.moves)}. " + str(said).replace("\n", "\n   "))
            else:
                steps.append({"player": event[1], "end_turn": True, "to_move": said})
                if not args.json:
                    print(f"   ({COLOUR_NAMES[event[1]]} ends the turn)")
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
            said = (f"{COLOUR_NAMES[what.player]}: tile {what.placement.tile} at ({what.placement.q},"
                    f"{what.placement.r}) turn {what.placement.rot}") if isinstance(what, Move) \
                else f"{COLOUR_NAMES[what[1]]} ends the turn"
            print(f"ILLEGAL (record entry {error.index + 1}) {said}:")
            for v in error.violations:
                print(f"   {v.message}")
        print(game.result())
    return EXIT_NO if error else EXIT_OK
