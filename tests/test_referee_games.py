"""The referee through whole games with the slips real players make (tests/table_play.py): the game it keeps is
always the one the tables it saw build, a slip costs at most its own announcements, never a cascade, and a
legal placement is never called illegal."""

from __future__ import annotations

import os
import random

import pytest
from table_play import BOARD_KINDS, HAND_SLIPS, SLIPS, referee_sees, reference_game, table_script

from tantrix_pi.game import Game, Move, TurnEnded
from tantrix_pi.live.referee import Setup

GAMES = int(os.environ.get("TANTRIX_PI_GAMES", "480"))
"""Random games played through (2-4 players, each cut at a random length, a slip every few moves). 480 in the suite
(every slip at least 8 times in every block); before a release `TANTRIX_PI_GAMES=2400 pytest
tests/test_referee_games.py` plays more (docs/live.md)."""


def replay_blind(ref: Game) -> Game:
    """The reference game as a referee without hands builds it: the placements and the presses of end of turn."""
    game = Game(ref.players)
    for e in ref.events:
        if isinstance(e, Move):
            game.push(e.placement, e.player)
        elif isinstance(e, TurnEnded):
            game.end_turn(e.player)
    return game


def faults(segments, referee, ref: Game, hands: bool) -> list[str]:
    """Everything that breaks what must hold, as sentences (empty: all held)."""
    out = []
    for n, seg in enumerate(segments):
        said = [e for e in seg.events if e.kind not in BOARD_KINDS and e.kind != "end_turn"]
        for e in said:
            if e.kind == "illegal" and (seg.wrong is None or (e.data["tile"], tuple(e.data["cell"]), e.data["rot"])
                                        != (seg.wrong.tile, seg.wrong.cell, seg.wrong.rot)):
                out.append(f"segment {n} ({seg.kind}): a legal placement called illegal: {e.text}")
        wanted = [p for p in (seg.move, seg.also) if p is not None]
        placed = [(e.data["tile"], tuple(e.data["cell"]), e.data["rot"]) for e in said if e.kind == "placed"]
        for p in wanted:
            if (p.tile, p.cell, p.rot) not in placed:
                out.append(f"segment {n} ({seg.kind}): move {p} not announced: {[e.text for e in seg.events]}")
        if len(said) - len(wanted) > seg.extra:
            out.append(f"segment {n} ({seg.kind}): {len(said) - len(wanted)} announcements beyond the moves "
                       f"(at most {seg.extra}): {[e.text for e in said]}")
    blind = ref if hands else replay_blind(ref)
    game = referee.game
    if game.board != blind.board or referee.board != blind.board:
        out.append("the final board differs from the reference")
    if hands:
        if game.to_play != blind.to_play:
            out.append(f"{game.to_play} to play, in the reference {blind.to_play}")
        if game.hands != blind.hands:
            out.append(f"hands {game.hands}, in the reference {blind.hands}")
    elif (game.turn, game.free_move_made) != (blind.turn, blind.free_move_made):
        out.append(f"turn {game.turn}/{game.free_move_made}, reference {blind.turn}/{blind.free_move_made}")
    if sorted((m.player, m.placement) for m in game.moves) != sorted((m.player, m.placement) for m in blind.moves):
        out.append("the moves or who made them differ from the reference")
    if referee.strays() or referee.missing():
        out.append(f"strays {referee.strays()} and missing {referee.missing()} at the end")
    return out


def play(seed: int) -> tuple[list[str], dict[str, int]]:
    """One random game: every other four seeds with the hands in view (no end-of-turn presses then)."""
    rng = random.Random(seed)
    hands = (seed // 4) % 2 == 1
    players = rng.choice([2, 3, 4])
    ref = reference_game(players, seed, rng.choice([None, rng.randint(4, 40)]))
    segments = table_script(ref, rng, slips=max(1, len(ref.board) // 4), presses=not hands, hands=hands)
    referee, _ = referee_sees(segments, Setup("game", list(ref.players)), hands=hands)
    kinds = {}
    for seg in segments:
        kinds[seg.kind] = kinds.get(seg.kind, 0) + 1
    return faults(segments, referee, ref, hands), kinds


BLOCKS = 12
"""The games in blocks of every twelfth seed (a failing block names fewer games to look through)."""


@pytest.mark.parametrize("block", range(BLOCKS))
def test_random_games_with_slips_end_as_the_reference_and_cost_one_announcement_a_slip(block):
    total: dict[str, int] = {}
    for seed in range(block, GAMES, BLOCKS):
        found, kinds = play(seed)
        assert not found, f"seed {seed}: " + "; ".join(found[:3])
        for k, v in kinds.items():
            total[k] = total.get(k, 0) + v
    assert all(total.get(slip, 0) > 0 for slip in SLIPS + HAND_SLIPS), total
