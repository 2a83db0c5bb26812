"""Random legal games played to the end: the bench, the tests and the bundled examples use them."""

from __future__ import annotations

import random
from collections.abc import Callable

from tantrix_pi.board import Placement
from tantrix_pi.game import HAND_SIZE, Announcement, Game
from tantrix_pi.tiles import ALL_NUMBERS, COLOURS


def random_game(players: int | list[str] = 2, seed: int = 0, stop: Callable[[Game], bool] | None = None,
                on_move: Callable[[Game, Announcement], None] | None = None) -> Game:
    """Deal from a shuffled bag and play random legal turns ("fills, one free move, fills") with known hands.

    Ends when all tiles are down, on a deadlock, or when `stop(game)` says so after a placement;
    `on_move(game, announcement)` runs after every placement.
    """
    rng = random.Random(seed)
    colours = list(COLOURS[:players]) if isinstance(players, int) else list(players)
    bag = list(ALL_NUMBERS)
    rng.shuffle(bag)
    game = Game(colours, {p: [bag.pop() for _ in range(HAND_SIZE)] for p in colours})

    def play(p: Placement) -> bool:
        announcement = game.push(p)
        if bag:
            game.draw(announcement.move.player, bag.pop())
        if on_move:
            on_move(game, announcement)
        return bool(stop and stop(game))

    def turn() -> bool:
        """One player's turn; False when the game stops (over, deadlock, or `stop`)."""
        player = game.turn
        for phase in ("fills", "free move", "fills"):
            if phase == "free move":
                free = game.legal_moves()
                if not free or play(rng.choice(free)):
                    return False
            else:
                while game.turn == player and (owed := game.obligations(player)):
                    if play(rng.choice(owed)[0]):
                        return False
            if len(game.board) == len(ALL_NUMBERS):
                return False
            if game.turn != player:
                return True
        game.end_turn()
        return True

    while turn():
        pass
    return game
