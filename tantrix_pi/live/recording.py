"""A played game as a script of table states: the demo's bundled recording and the tests' replays.

A `Scene` is what lies on the table for a few frames: a board, or a hand over it. `script(...)` turns a
game record (placements in order) into scenes: each tile is brought in by a hand (frames with motion),
then the table stays still long enough for the stability gate. One illegal placement can be played and
then taken back.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from importlib import resources

from tantrix_pi import rules
from tantrix_pi.board import Board, Placement
from tantrix_pi.tiles import ALL_NUMBERS

HAND = 6


@dataclass(frozen=True)
class Scene:
    """`frames` frames of the table showing `board`, with a hand over it when `hand`."""

    board: Board
    frames: int
    hand: bool = False
    note: str = ""


def play_random_game(seed: int, players: int = 2) -> list[tuple[int, Placement]]:
    """A whole legal game (every tile played), as (player index, placement) in order.

    Turns are "fills, one free move, fills" (docs/rules.md section 2); hands of six are refilled from a
    shuffled bag. A deadlocked game is dropped and the next seed tried.
    """
    for attempt in range(100):
        moves = _try_game(random.Random(seed * 1000 + attempt), players)
        if moves is not None:
            return moves
    raise RuntimeError(f"no complete game found from seed {seed}")


def _try_game(rng: random.Random, players: int) -> list[tuple[int, Placement]] | None:
    bag = list(ALL_NUMBERS)
    rng.shuffle(bag)
    hands = [[bag.pop() for _ in range(HAND)] for _ in range(players)]
    board = Board()
    moves: list[tuple[int, Placement]] = []

    def play(turn: int, p: Placement) -> None:
        board.place(p)
        hands[turn].remove(p.tile)
        moves.append((turn, p))
        if bag:
            hands[turn].append(bag.pop())

    def fills(turn: int) -> None:
        while True:
            forced = set(rules.forced_spaces(board))
            options = [p for p in rules.legal_placements(board, hands[turn], not bag) if p.cell in forced]
            if not options:
                return
            play(turn, rng.choice(options))

    turn = 0
    while len(board) < len(ALL_NUMBERS):
        fills(turn)
        if hands[turn]:
            free = rules.legal_placements(board, hands[turn], not bag)
            if not free:
                return None  # deadlock: try another shuffle
            play(turn, rng.choice(free))
            fills(turn)
        elif not any(hands):
            break
        turn = (turn + 1) % players
    return moves if len(board) == len(ALL_NUMBERS) else None


def an_illegal_placement(board: Board, tiles: list[int]) -> Placement:
    """A placement that touches the board but breaks the golden rule (a player's honest mistake)."""
    for cell in sorted(board.empty_neighbours()):
        for n in tiles:
            for rot in range(6):
                p = Placement(n, cell[0], cell[1], rot)
                if any(v.rule == rules.GOLDEN_RULE for v in rules.why_illegal(board, p)):
                    return p
    raise ValueError("no illegal placement found")


def script(moves: list[Placement], still: int = 4, hand: int = 3, illegal_at: int | None = None) -> list[Scene]:
    """Scenes of a game played tile by tile; after move `illegal_at` a wrong tile is laid and taken back."""
    scenes = [Scene(Board(), still, note="empty table")]
    board = Board()
    for i, p in enumerate(moves):
        if illegal_at is not None and i == illegal_at:
            wrong = an_illegal_placement(board, [m.tile for m in moves[i:]])
            bad = board.copy()
            bad.place(wrong)
            scenes += [Scene(board.copy(), hand, True, f"a hand brings tile {wrong.tile}"),
                       Scene(bad, still, note=f"illegal: tile {wrong.tile} at {wrong.cell}"),
                       Scene(bad, hand, True, "a hand takes it back"),
                       Scene(board.copy(), still + 3, note=f"tile {wrong.tile} taken back")]
        scenes.append(Scene(board.copy(), hand, True, f"a hand brings tile {p.tile}"))
        board.place(p)
        scenes.append(Scene(board.copy(), still, note=f"tile {p.tile} at {p.cell}"))
    return scenes


def load_record(name: str = "demo-game.json") -> dict:
    """A game record bundled with the package (`tantrix_pi/data/`)."""
    return json.loads(resources.files("tantrix_pi").joinpath(f"data/{name}").read_text())
