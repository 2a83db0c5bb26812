"""A game of Tantrix for 2-4 players (docs/rules.md sections 2 and 4).

`Game` is the core object the live referee drives, in the style of python-chess: `check(placement)` says what a
placement would be (who makes it, a fill or the free move, every violation) and changes nothing; `push(placement)`
plays it and returns what a referee announces (or raises `IllegalMove` naming every violation); `pop()` undoes
the last placement. A game is a list of plain values, `Move`, `Draw` and `TurnEnded`; its record file is
`tantrix_pi.record`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from tantrix_pi.board import Board, Placement
from tantrix_pi.errors import EXIT_NO, TantrixError
from tantrix_pi.i18n import _, listing, ngettext, player_name
from tantrix_pi.rules import (
    FORCED_NEIGHBOURS,
    ForcedSpace,
    Violation,
    can_place,
    fits,
    fmt,
    forced_space_report,
    forced_space_text,
    forced_spaces,
    legal_placements,
    why_illegal,
)
from tantrix_pi.scoring import Outcome, Score, Termination, outcome, points_text, scores
from tantrix_pi.tiles import ALL_NUMBERS, COLOUR_NAMES, COLOURS

HAND_SIZE = 6
MODES = ("game", "discovery", "rainbow", "solitaire", "four-lines", "four-loops", "gobble", "free")
"""What can be played at a table: a 2-4 player game, a solo puzzle, Gobble or free play (docs/rules.md)."""

# Rule names of the game on top of those of tantrix_pi.rules.
TURN_ORDER = "turn-order"
MUST_FILL = "must-fill"
NOT_IN_HAND = "not-in-hand"
GAME_OVER = "game-over"


class GameError(TantrixError, ValueError):
    """A game that cannot be set up, or a malformed game record: one line, exit code 2."""


class IllegalMove(TantrixError):
    """A placement (or end of turn) the rules refuse; `violations` names every reason."""

    exit_code = EXIT_NO

    def __init__(self, violations: Sequence[Violation], placement: Placement | None = None) -> None:
        self.violations = tuple(violations)
        self.placement = placement
        super().__init__("; ".join(v.message for v in self.violations))


def colour_code(text: str) -> str:
    """A player colour as R, Y, G or B, from the code or the name ('red')."""
    names = {name: code for code, name in COLOUR_NAMES.items() if code in COLOURS}
    code = text.upper() if isinstance(text, str) and text.upper() in COLOURS else names.get(str(text).lower())
    if code is None:
        raise GameError(_("unknown player colour {text!r}: use red, yellow, green, blue (or R, Y, G, B)").format(
            text=text))
    return code


def player_colours(text: str | None) -> list[str]:
    """The players' colour codes from 'red,blue' (names or codes, each once; --players, the web page's photo
    check); all four when empty."""
    if not text:
        return list(COLOURS)
    out = []
    for word in text.split(","):
        try:
            code = colour_code(word.strip())
        except GameError:
            raise GameError(_("players: {word!r} is not a colour (red, yellow, green, blue)").format(
                word=word.strip())) from None
        if code not in out:
            out.append(code)
    return out


def bag_empty_at(players: int) -> int:
    """Tiles on the table when the bag runs empty: every drawn tile is on the table or in a hand of six."""
    return len(ALL_NUMBERS) - HAND_SIZE * players


@dataclass(frozen=True)
class Move:
    """A placement and the player who made it; `fill` when it went into a forced space."""

    player: str
    placement: Placement
    fill: bool


@dataclass(frozen=True)
class Draw:
    """`player` drew `tile` from the bag to bring the hand back to six (hands known)."""

    player: str
    tile: int


@dataclass(frozen=True)
class TurnEnded:
    """`player` ended the turn (the referee's button)."""

    player: str


@dataclass(frozen=True)
class Hand:
    """From here on `player` is known to hold `tiles` (dealt, or seen on the table)."""

    player: str
    tiles: frozenset[int]


GameEvent = Move | Draw | TurnEnded | Hand
"""What a game is made of, in order."""


@dataclass(frozen=True)
class Judged:
    """What a placement would be in the game as it stands: who makes it, whether it fills a forced space, whether
    it begins the mover's turn (ending the previous player's), and every reason it may not be played."""

    placement: Placement
    player: str
    fill: bool
    passing: bool
    violations: tuple[Violation, ...]
    drawn: bool = False
    """The tile is one the mover drew since their hand was last seen (`Game.check(..., unseen=True)`)."""

    @property
    def legal(self) -> bool:
        return not self.violations


@dataclass(frozen=True)
class Announcement:
    """What the referee says after a placement was accepted (its forced spaces and words made when asked for)."""

    move: Move
    turn_passed: bool
    """This placement began the mover's turn (the previous player's turn ended with it)."""
    board: Board
    """The board just after the placement."""
    bag: int
    bag_emptied: bool
    over: bool
    to_move: str
    """Whose turn it is now (still the mover until their turn ends)."""
    closing: tuple[str, ...]
    """The lines said after the forced spaces: the bag, the result, who plays."""

    @cached_property
    def forced(self) -> tuple[ForcedSpace, ...]:
        return tuple(forced_space_report(self.board))

    @property
    def messages(self) -> tuple[str, ...]:
        p = self.move.placement
        said = (_("{player}: tile {tile} at {cell} turn {rot} fills a forced space") if self.move.fill
                else _("{player}: tile {tile} at {cell} turn {rot} (free move)"))
        return (said.format(player=player_name(self.move.player), tile=p.tile, cell=fmt(p.cell), rot=p.rot),
                *(forced_space_text(f) for f in self.forced), *self.closing)

    def __str__(self) -> str:
        return "\n".join(self.messages)

    def to_dict(self) -> dict:
        """The announcement as JSON-ready data (for `game replay --json` and the live referee's log)."""
        return {
            "player": self.move.player,
            "placement": self.move.placement.to_dict(),
            "kind": "fill" if self.move.fill else "free",
            "turn_passed": self.turn_passed,
            "forced_spaces": [{"letter": f.letter, "cell": list(f.cell), "needs": list(f.needs), "fits": list(f.fits)}
                              for f in self.forced],
            "bag": self.bag,
            "bag_emptied": self.bag_emptied,
            "over": self.over,
            "to_move": self.to_move,
            "messages": list(self.messages),
        }


@dataclass
class _State:
    turn: int
    free_done: bool
    hands: dict[str, set[int] | None]
    events: int


class Game:
    """A game in progress: players in seating order, the board, whose turn, the bag, and each hand if known.

    `events` holds the accepted moves, draws and ends of turn in order. A hand is None while unknown: then
    nothing is checked that needs it (the tile held, the forced fill owed).
    """

    def __init__(self, players: Iterable[str], hands: dict[str, Iterable[int]] | None = None) -> None:
        self.players = tuple(colour_code(p) for p in players)
        if not 2 <= len(self.players) <= 4 or len(set(self.players)) != len(self.players):
            raise GameError(_("a game needs 2-4 players of different colours, not {players}").format(
                players=list(self.players)))
        self.board = Board()
        self.hands: dict[str, set[int] | None] = dict.fromkeys(self.players)
        self.events: list[GameEvent] = []
        self._turn = 0
        self._free_done = False
        self._history: list[_State] = []
        self._owed_memo: tuple[tuple, list] | None = None
        for p, tiles in (hands or {}).items():
            self.set_hand(p, tiles)

    # -- state ---------------------------------------------------------------------------------
    @property
    def turn(self) -> str:
        """The colour of the player whose turn it is."""
        return self.players[self._turn]

    @property
    def next_player(self) -> str:
        """Who plays after the player to move (seating order; a player out of tiles is skipped)."""
        return self.players[self._next_turn()]

    @property
    def free_move_made(self) -> bool:
        """True once the player to move has made this turn's free move (only fills may follow)."""
        return self._free_done

    @property
    def bag(self) -> int:
        """Tiles still in the bag, counted from the tiles on the table."""
        return max(0, bag_empty_at(len(self.players)) - len(self.board))

    @property
    def bag_empty(self) -> bool:
        """True once the last tile has been drawn: the restrictions no longer apply."""
        return len(self.board) >= bag_empty_at(len(self.players))

    @property
    def moves(self) -> list[Move]:
        """The accepted placements in order."""
        return [e for e in self.events if isinstance(e, Move)]

    @property
    def dealt(self) -> dict[str, frozenset[int]] | None:
        """Every hand as it was before the first placement, when all were known then and none was set since: what a
        record carries (its draws follow in `events`); None otherwise."""
        hands: dict[str, frozenset[int]] = {}
        started = False
        for e in self.events:
            if isinstance(e, Move):
                started = True
            elif isinstance(e, Hand):
                if started:
                    return None
                hands[e.player] = e.tiles
        return hands if len(hands) == len(self.players) else None

    def is_over(self) -> bool:
        """True when all 56 tiles are on the table or no legal free move exists (a deadlock)."""
        return self.outcome() is not None

    def deadlocked(self) -> bool:
        """True when the player to move has no legal placement at all before their free move: the game is drawn.

        With unknown hands this needs every unplayed tile to be unplaceable.
        """
        if len(self.board) == len(ALL_NUMBERS) or self._free_done:
            return False
        return not can_place(self.board, self._candidates(self.turn), self.bag_empty)

    def turn_done(self) -> bool:
        """The player to move has made the free move, has drawn (their hand known and full again) and holds no
        tile that fits a forced space: their turn is over, whoever plays next."""
        held = self.hands[self.turn]
        return (self._free_done and held is not None and len(held) >= self.hand_size(self.turn)
                and not self.obligations(self.turn))

    @property
    def to_play(self) -> str:
        """Who is to play now: the next player once the mover's turn is known to be over, else the mover."""
        return self.next_player if self.turn_done() else self.turn

    def scores(self) -> dict[str, Score]:
        """Each player's score (their colour's longest line or twice its largest loop)."""
        return scores(self.board, self.players)

    def outcome(self) -> Outcome | None:
        """How the game ended (winners, scores, why), or None while it goes on (python-chess's `Board.outcome()`)."""
        if len(self.board) == len(ALL_NUMBERS):
            return outcome(self.board, self.players, Termination.ALL_PLACED)
        if self.deadlocked():
            return outcome(self.board, self.players, Termination.DEADLOCK, stuck=self.turn)
        return None

    def result(self) -> str:
        """One sentence: who won, a tie, a deadlock, or the game still running."""
        over = self.outcome()
        if over is not None:
            return over.summary()
        facts = {"n": len(self.board), "bag": self.bag, "player": player_name(self.turn),
                 "next": player_name(self.next_player),
                 "points": points_text({p: s.score for p, s in self.scores().items()})}
        if self._free_done:
            return ngettext("{n} tile on the table, {bag} in the bag; {player} has made the free move, {next} plays "
                            "next ({points})", "{n} tiles on the table, {bag} in the bag; {player} has made the free "
                            "move, {next} plays next ({points})", len(self.board)).format(**facts)
        return ngettext("{n} tile on the table, {bag} in the bag; {player} to play ({points})",
                        "{n} tiles on the table, {bag} in the bag; {player} to play ({points})",
                        len(self.board)).format(**facts)

    # -- hands ---------------------------------------------------------------------------------
    def set_hand(self, player: str, tiles: Iterable[int]) -> None:
        """Tell the game what `player` holds (from now on the tile held and the forced fill are checked)."""
        player = self._player(player)
        tiles = set(tiles)
        bad = sorted(t for t in tiles if t not in ALL_NUMBERS)
        if bad:
            raise GameError(_("unknown tile {tile} in {player}'s hand").format(tile=bad[0], player=player_name(player)))
        if len(tiles) > HAND_SIZE:
            raise GameError(_("{player} cannot hold {n} tiles: a hand has at most six").format(
                player=player_name(player), n=len(tiles)))
        on_board = sorted(tiles & self.board.tiles)
        if on_board:
            raise GameError(_("tile {tile} cannot be in {player}'s hand: it is on the table").format(
                tile=on_board[0], player=player_name(player)))
        for other, held in self.hands.items():
            if other != player and held and tiles & held:
                raise GameError(_("tile {tile} is already in {player}'s hand").format(
                    tile=min(tiles & held), player=player_name(other)))
        self.hands[player] = tiles
        self.events.append(Hand(player, frozenset(tiles)))

    def draw(self, player: str, tile: int) -> None:
        """`player` (hand known) drew `tile` from the bag; GameError when that cannot be (the bag is empty, the
        hand is full, the tile is on the table or in a hand). Draws before the first placement are the deal."""
        player = self._player(player)
        held = self.hands[player]
        if held is None:
            raise GameError(_("{player}'s hand is not known: a draw cannot be followed").format(
                player=player_name(player)))
        refusal = self.cannot_draw(player, tile)
        if refusal:
            raise GameError(refusal)
        if not self.moves:
            self.set_hand(player, held | {tile})
            return
        held.add(tile)
        self.events.append(Draw(player, tile))

    def cannot_draw(self, player: str, tile: int) -> str | None:
        """Why `player` (hand known) cannot draw `tile` now, or None when they can."""
        facts = {"player": player_name(player), "tile": tile}
        in_play = len(self.board) + sum(len(h) if h is not None else self.hand_size(p) for p, h in self.hands.items())
        if in_play >= len(ALL_NUMBERS):
            return _("{player} cannot draw tile {tile}: the bag is empty").format(**facts)
        if len(self.hands[player]) >= HAND_SIZE:
            return _("{player} cannot draw tile {tile}: the hand already holds six").format(**facts)
        if tile in self.board.tiles or self.holder(tile) is not None:
            return _("{player} cannot draw tile {tile}: it is in play").format(**facts)
        return None

    def holder(self, tile: int) -> str | None:
        """The player whose known hand holds `tile`, if any."""
        return next((p for p, held in self.hands.items() if held and tile in held), None)

    def hand_size(self, player: str) -> int:
        """Tiles `player` holds once they have drawn: six, less one per placement made once no draw followed."""
        last_draw = bag_empty_at(len(self.players))
        return HAND_SIZE - sum(1 for m in self.moves[last_draw:] if m.player == player)

    def obligations(self, player: str) -> list[tuple[Placement, ForcedSpace]]:
        """Forced spaces `player` must fill now: one legal placement from their hand for each (hand known)."""
        return [(fills[0], space) for space, fills in self.owed(player)]

    def owed(self, player: str) -> list[tuple[ForcedSpace, list[Placement]]]:
        """Each forced space `player` could fill now, with one legal placement of every held tile that fits it."""
        held = self.hands[player]
        if not held:
            return []
        # asked again and again of the same position (the move's check, the hints, the referee's news): remembered
        # for the last one, found by value, so no change of the game can leave it stale
        key = (frozenset(held), tuple(self.board.occupied.values()), self.bag_empty)
        if self._owed_memo is not None and self._owed_memo[0] == key:
            return list(self._owed_memo[1])
        out = []
        for space in forced_space_report(self.board, held):
            fills = [q for t in space.fits
                     if (q := next((q for q in fits(self.board, space.cell, [t])
                                    if not why_illegal(self.board, q, self.bag_empty)), None)) is not None]
            if fills:
                out.append((space, fills))
        self._owed_memo = (key, out)
        return list(out)

    def legal_moves(self) -> list[Placement]:
        """What the player to move may place now: fills first when they must, then a free move if not made yet."""
        legal = legal_placements(self.board, self._candidates(self.turn), self.bag_empty)
        forced = set(forced_spaces(self.board))
        if self._free_done or self.obligations(self.turn):
            return [p for p in legal if p.cell in forced]
        return legal

    # -- play ----------------------------------------------------------------------------------
    def check(self, placement: Placement, player: str | None = None, unseen: bool = False) -> Judged:
        """What `placement` by `player` would be, changing nothing. Without a player it is the one whose known hand
        holds the tile, else whoever's turn it is (a second free move passes the turn).

        `unseen`: the hands were last seen a moment ago (a live referee's camera): a tile from the bag that the mover
        places while their hand is short of six is the tile they drew since, not a tile they do not hold."""
        p = placement
        if len(self.board) == len(ALL_NUMBERS):
            return Judged(p, self.turn, False, False,
                          (Violation(GAME_OVER, _("the game is over: all 56 tiles are on the table")),))
        fill = p.cell not in self.board and self.board.occupied_neighbours(p.cell) >= FORCED_NEIGHBOURS
        current, nxt = self.turn, self.next_player
        player = self._player(player) if player is not None else self.holder(p.tile)
        violations: list[Violation] = []
        if player is None:
            passing = self._free_done and not fill
        elif player == current and not (nxt == current and self.turn_done()):  # else: alone with tiles, a new turn
            passing = False
            if self._free_done and not fill:
                violations.append(Violation(TURN_ORDER, _(
                    "{player} already made a free move this turn; only forced spaces may be filled").format(
                    player=player_name(current))))
        else:
            passing = True
            if not self._free_done:
                violations.append(Violation(TURN_ORDER, _(
                    "it is {player}'s turn and {player} has not made a free move yet").format(
                    player=player_name(current))))
            elif player != nxt:
                violations.append(Violation(TURN_ORDER, _("after {current} it is {next}'s turn, not {player}'s").format(
                    current=player_name(current), next=player_name(nxt), player=player_name(player))))
        if passing:
            violations += self._left_unfilled(current)
        mover = nxt if passing else current
        violations += why_illegal(self.board, p, self.bag_empty)
        held = self.hands[mover]
        drawn = False
        if held is not None:
            if p.tile not in held and unseen and len(held) < self.hand_size(mover):
                drawn = self.cannot_draw(mover, p.tile) is None
            if p.tile not in held and not drawn:
                violations.append(Violation(NOT_IN_HAND, _("tile {tile} is not in {player}'s hand").format(
                    tile=p.tile, player=player_name(mover))))
            if not fill:
                violations += [Violation(MUST_FILL, _(
                    "{player} holds tile {tile}, which fits forced space {letter} at {cell}: fill it first").format(
                    player=player_name(mover), tile=q.tile, letter=space.letter, cell=fmt(space.cell)), (space.cell,))
                    for q, space in self.obligations(mover)]
        return Judged(p, mover, fill, passing, tuple(violations), drawn)

    def push(self, placement: Placement, player: str | None = None, unseen: bool = False) -> Announcement:
        """Play `placement` (by `player`, as `check` decides without one; `unseen` as for `check`); return the
        announcement, or raise IllegalMove with every violation, leaving the game as it was."""
        judged = self.check(placement, player, unseen)
        if judged.violations:
            raise IllegalMove(judged.violations, placement)
        return self._play(judged)

    def _play(self, judged: Judged) -> Announcement:
        p, mover = judged.placement, judged.player
        was_empty = self.bag_empty
        self._snapshot()  # before the unseen draw, so that pop() takes that back too
        if judged.drawn:
            self.draw(mover, p.tile)
        self.board.place(p)
        if self.hands[mover] is not None:
            self.hands[mover].discard(p.tile)
        if judged.passing:
            self._turn = self._next_turn()
            self._free_done = False
        if not judged.fill:
            self._free_done = True
        move = Move(mover, p, judged.fill)
        self.events.append(move)
        out_of_tiles = self.hand_size(mover) == 0 and len(self.board) < len(ALL_NUMBERS)
        if out_of_tiles:
            self._turn = self._next_turn()
            self._free_done = False
        return self._announce(move, judged.passing, not was_empty and self.bag_empty, out_of_tiles)

    def end_turn(self, player: str | None = None) -> str:
        """End the turn of the player to move (the referee's button); return who plays next."""
        current = self.turn
        if player is not None and self._player(player) != current:
            raise IllegalMove([Violation(TURN_ORDER, _("it is {current}'s turn, not {player}'s").format(
                current=player_name(current), player=player_name(self._player(player))))])
        violations = []
        if not self._free_done:
            violations.append(Violation(TURN_ORDER, _("{player} has not made a free move yet").format(
                player=player_name(current))))
        violations += self._left_unfilled(current)
        if violations:
            raise IllegalMove(violations)
        self._snapshot()
        self.events.append(TurnEnded(current))
        self._turn = self._next_turn()
        self._free_done = False
        return self.turn

    def pop(self) -> Placement:
        """Undo the last placement (and any draw or end of turn after it); return it."""
        while self._history:
            state = self._history.pop()
            undone = self.events[state.events:]
            del self.events[state.events:]
            self._turn, self._free_done, self.hands = state.turn, state.free_done, state.hands
            move = next((e for e in undone if isinstance(e, Move)), None)
            if move is not None:
                self.board.remove(move.placement.cell)
                return move.placement
        raise IndexError("no placement to undo")

    # -- helpers -------------------------------------------------------------------------------
    def _snapshot(self) -> None:
        hands = {k: None if v is None else set(v) for k, v in self.hands.items()}
        self._history.append(_State(self._turn, self._free_done, hands, len(self.events)))

    def _player(self, player: str) -> str:
        code = colour_code(player)
        if code not in self.players:
            raise GameError(_("{player} is not playing (players: {players})").format(
                player=player_name(code), players=listing(player_name(p) for p in self.players)))
        return code

    def _next_turn(self) -> int:
        """Index of the next player in seating order who still holds tiles (at the end hands run out)."""
        for step in range(1, len(self.players) + 1):
            i = (self._turn + step) % len(self.players)
            if self.hand_size(self.players[i]) > 0:
                return i
        return self._turn

    def _candidates(self, player: str) -> set[int]:
        held = self.hands[player]
        return held if held is not None else set(ALL_NUMBERS) - self.board.tiles

    def _left_unfilled(self, player: str) -> list[Violation]:
        return [Violation(MUST_FILL, _("{player} must still fill forced space {letter} at {cell} (with tile {tile}) "
                                       "before the turn passes").format(
            player=player_name(player), letter=space.letter, cell=fmt(space.cell), tile=q.tile), (space.cell,))
                for q, space in self.obligations(player)]

    def _announce(self, move: Move, passing: bool, emptied: bool, out_of_tiles: bool) -> Announcement:
        who = player_name(move.player)
        lines = []
        if emptied:
            lines.append(_("the bag is empty: the restrictions no longer apply"))
        over = len(self.board) == len(ALL_NUMBERS)
        if over:
            lines.append(self.result())
        elif out_of_tiles:
            lines.append(_("{player} has played all tiles; {next} to play").format(player=who,
                                                                                   next=player_name(self.turn)))
        elif self._free_done:
            nxt = player_name(self.next_player)
            lines.append(_("{player} may fill forced spaces, then {next} plays").format(player=who, next=nxt)
                         if forced_spaces(self.board) else _("{next} to play").format(next=nxt))
        else:
            lines.append(_("{player}'s free move next").format(player=who))
        return Announcement(move, passing, self.board.copy(), self.bag, emptied, over, self.turn, tuple(lines))
