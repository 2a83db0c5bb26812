"""A played game as a script of table states: the demo's bundled recording and the tests' replays.

A `Scene` is what lies on the table for a few frames: a board, or a hand over it. `script(...)` turns a
game record (placements in order) into scenes: each tile is brought in by a hand (frames with motion),
then the table stays still long enough for the stability gate. One illegal placement can be played and
then taken back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from tantrix_pi import rules
from tantrix_pi.board import Board, Placement


@dataclass(frozen=True)
class Scene:
    """`frames` frames of the table showing `board`, with a hand over it when `hand`; `press` names a
    button command ("end_turn") a player gives once the scene's frames have been shown."""

    board: Board
    frames: int
    hand: bool = False
    note: str = ""
    press: str | None = None


def an_illegal_placement(board: Board, tiles: list[int]) -> Placement:
    """A placement that touches the board but breaks the golden rule (a player's honest mistake)."""
    for cell in sorted(board.empty_neighbours()):
        for n in tiles:
            for rot in range(6):
                p = Placement(n, cell[0], cell[1], rot)
                if any(v.rule == rules.GOLDEN_RULE for v in rules.why_illegal(board, p)):
                    return p
    raise ValueError("no illegal placement found")


def script(moves: list[Placement], still: int = 4, hand: int = 3, illegal_at: int | None = None,
           turn_ends: frozenset[int] = frozenset()) -> list[Scene]:
    """Scenes of a game played tile by tile; after move `illegal_at` a wrong tile is laid and taken back;
    after each move (index) in `turn_ends` the player presses "end of turn"."""
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
        scenes.append(Scene(board.copy(), still, note=f"tile {p.tile} at {p.cell}",
                            press="end_turn" if i in turn_ends else None))
    return scenes


def load_record(name: str = "demo-game.json") -> dict:
    """A game record bundled with the package (`tantrix_pi/data/`)."""
    return json.loads(resources.files("tantrix_pi").joinpath(f"data/{name}").read_text())


def turn_ends(record: dict) -> frozenset[int]:
    """Indices of the placements after which a record's player ended the turn with the button."""
    out, n = set(), 0
    for m in record["moves"]:
        if m.get("end_turn"):
            out.add(n - 1)
        else:
            n += 1
    return frozenset(out)


def placements(record: dict) -> list[Placement]:
    """The placements of a `tantrix-game/1` record in order (ends of turn left out)."""
    return [Placement(m["tile"], m["q"], m["r"], m["rot"]) for m in record["moves"] if not m.get("end_turn")]


def game_moves(seed: int, n: int | None = None) -> list[Placement]:
    """The first n placements of a random legal 2-player game (tantrix_pi.selfplay), for tests and benches."""
    from tantrix_pi.selfplay import random_game

    return [m.placement for m in random_game(2, seed=seed).moves][:n]
