"""The rules engine of each mode, as the referee drives it: the tiles it has accepted, in order.

One small interface over three engines: a game (`game.Game`: turns, hands, the restrictions), Solitaire
(`solitaire.Solitaire`), and `Tiles` for everything judged tile by tile (puzzles and free play: the golden
rule; Gobble: touch two and match). Each says what a placement would be (`judge`), plays it (`push`), takes
back the last one (`pop`), and writes and reads its state as plain data, so that the referee can store it
and build it again after a restart or a correction.
"""

from __future__ import annotations

from tantrix_pi.board import Board, Placement, placement_from_dict
from tantrix_pi.game import Announcement, Draw, Game, GameError, Hand, IllegalMove, Move, TurnEnded
from tantrix_pi.record import entry, event_of
from tantrix_pi.rules import CELL_OCCUPIED, GOLDEN_RULE, TILE_PLACED, Violation, why_illegal
from tantrix_pi.solitaire import Solitaire, ToDraw


class Engine:
    """The accepted tiles of one mode and its rules (a base: one subclass per kind of engine)."""

    board: Board

    def placements(self) -> list[Placement]:
        """The accepted placements in the order they were played."""
        raise NotImplementedError

    def judge(self, p: Placement) -> tuple[list[Violation], str | None]:
        """Every reason `p` may not be played now, and the player it would be (None outside a game)."""
        raise NotImplementedError

    def push(self, p: Placement) -> Announcement | None:
        """Play `p` (judged legal); IllegalMove otherwise, changing nothing. A game says what it was."""
        raise NotImplementedError

    def pop(self) -> Placement:
        """Take back the last accepted placement."""
        raise NotImplementedError

    def state(self) -> list[dict]:
        """Everything played, as JSON-ready entries in order."""
        raise NotImplementedError

    def apply(self, item: dict) -> Placement | None:
        """Play one entry of `state()` again; the placement when it is one the rules now refuse."""
        raise NotImplementedError

    def last(self) -> Placement | None:
        moves = self.placements()
        return moves[-1] if moves else None


class GameEngine(Engine):
    """A game of 2-4 players: who plays, fills and free moves, the restrictions, and the hands when seen."""

    def __init__(self, players: list[str]) -> None:
        self.game = Game(players)
        self.board = self.game.board

    def placements(self) -> list[Placement]:
        return [m.placement for m in self.game.moves]

    def judge(self, p: Placement) -> tuple[list[Violation], str | None]:
        judged = self.game.check(p, unseen=True)
        return list(judged.violations), judged.player

    def push(self, p: Placement) -> Announcement:
        return self.game.push(p, unseen=True)

    def pop(self) -> Placement:
        return self.game.pop()

    def state(self) -> list[dict]:
        return [entry(e) for e in self.game.events]

    def apply(self, item: dict) -> Placement | None:
        event = event_of(item)
        try:
            if isinstance(event, Move):
                self.game.push(event.placement, event.player)
            elif isinstance(event, Draw):
                self.game.draw(event.player, event.tile)
            elif isinstance(event, TurnEnded):
                self.game.end_turn(event.player)
            elif isinstance(event, Hand):
                self.game.set_hand(event.player, event.tiles)
        except (IllegalMove, GameError):
            return event.placement if isinstance(event, Move) else None
        return None


class SolitaireEngine(Engine):
    """Solitaire with the hand unseen: what to draw after each placement (`draws`, since the last `reset`)."""

    def __init__(self) -> None:
        self.solo = Solitaire()
        self.board = self.solo.board
        self.draws: list[ToDraw] = []

    def placements(self) -> list[Placement]:
        return list(self.solo.moves)

    def judge(self, p: Placement) -> tuple[list[Violation], str | None]:
        return self.solo.why_illegal(p), None

    def push(self, p: Placement) -> None:
        self.draws.append(self.solo.push(p))

    def pop(self) -> Placement:
        return self.solo.pop()

    def state(self) -> list[dict]:
        return [p.to_dict() for p in self.solo.moves]

    def apply(self, item: dict) -> Placement | None:
        p = placement_from_dict(item, "move")
        try:
            self.solo.push(p)
        except IllegalMove:
            return p
        return None


class Tiles(Engine):
    """Tiles judged one by one against those accepted: a puzzle or free play (the golden rule), or Gobble (touch
    two and match). Nothing else: a puzzle's whole arrangement is judged by its verdict."""

    def __init__(self, gobble: bool = False) -> None:
        self.board = Board()
        self.gobble = gobble
        self.moves: list[Placement] = []

    def placements(self) -> list[Placement]:
        return list(self.moves)

    def judge(self, p: Placement) -> tuple[list[Violation], str | None]:
        if self.gobble:
            from tantrix_pi.puzzles import gobble_why_illegal

            return gobble_why_illegal(self.board, p), None
        keep = (GOLDEN_RULE, CELL_OCCUPIED, TILE_PLACED)
        return [v for v in why_illegal(self.board, p, bag_empty=True) if v.rule in keep], None

    def push(self, p: Placement) -> None:
        violations, _ = self.judge(p)
        if violations:
            raise IllegalMove(violations, p)
        self.board.place(p)
        self.moves.append(p)

    def pop(self) -> Placement:
        p = self.moves.pop()
        self.board.remove(p.cell)
        return p

    def state(self) -> list[dict]:
        return [p.to_dict() for p in self.moves]

    def apply(self, item: dict) -> Placement | None:
        p = placement_from_dict(item, "move")
        try:
            self.push(p)
        except IllegalMove:
            return p
        return None


def engine_for(mode: str, players: list[str]) -> Engine:
    """A new engine for `mode` (a Setup's mode and players)."""
    if mode == "game":
        return GameEngine(players)
    if mode == "solitaire":
        return SolitaireEngine()
    return Tiles(gobble=mode == "gobble")
