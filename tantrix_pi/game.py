"""A game of Tantrix for 2-4 players (docs/rules.md sections 2 and 4), and its record file (docs/game-record.md).

`Game` is the core object the live referee drives, in the style of python-chess: `push(placement)` checks a
placement and returns what a referee announces (or raises `IllegalMove` naming every violation), `pop()`
undoes the last placement.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tantrix_pi.board import Board, BoardError, Placement, parse_json, placement_from_dict, read_text
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

RECORD_FORMAT = "tantrix-game/1"
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
class Announcement:
    """What the referee says after a placement was accepted."""

    move: Move
    turn_passed: bool
    """This placement began the mover's turn (the previous player's turn ended with it)."""
    forced: tuple[ForcedSpace, ...]
    bag: int
    bag_emptied: bool
    over: bool
    to_move: str
    """Whose turn it is now (still the mover until their turn ends)."""
    messages: tuple[str, ...]

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
    hands: dict[str, set[int]] | None
    events: int


class Game:
    """A game in progress: players in seating order, the board, whose turn, the bag, hands if known.

    `events` holds the accepted moves and ends of turn (("end_turn", player)) in order: what a record stores.
    """

    def __init__(self, players: Iterable[str], hands: dict[str, Iterable[int]] | None = None) -> None:
        self.players = tuple(colour_code(p) for p in players)
        if not 2 <= len(self.players) <= 4 or len(set(self.players)) != len(self.players):
            raise GameError(_("a game needs 2-4 players of different colours, not {players}").format(
                players=list(self.players)))
        self.board = Board()
        self.hands: dict[str, set[int]] | None = None
        if hands is not None:
            self.hands = {p: set() for p in self.players}
            for p, tiles in hands.items():
                self.set_hand(p, tiles)
        self.events: list = []
        self._turn = 0
        self._free_done = False
        self._history: list[_State] = []

    # -- state ---------------------------------------------------------------------------------
    @property
    def turn(self) -> str:
        """The colour of the player whose turn it is."""
        return self.players[self._turn]

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
                 "next": player_name(self.players[self._next_turn()]),
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
        """Tell the game what `player` holds (hands become known; the must-fill obligation is then checked)."""
        player = self._player(player)
        tiles = set(tiles)
        bad = sorted(t for t in tiles if t not in ALL_NUMBERS)
        if bad:
            raise GameError(_("unknown tile {tile} in {player}'s hand").format(tile=bad[0], player=player_name(player)))
        on_board = sorted(tiles & self.board.tiles)
        if on_board:
            raise GameError(_("tile {tile} cannot be in {player}'s hand: it is on the table").format(
                tile=on_board[0], player=player_name(player)))
        if self.hands is None:
            self.hands = {p: set() for p in self.players}
        for other, held in self.hands.items():
            if other != player and tiles & held:
                raise GameError(_("tile {tile} is already in {player}'s hand").format(
                    tile=min(tiles & held), player=player_name(other)))
        self.hands[player] = tiles

    def draw(self, player: str, tile: int) -> None:
        """`player` drew `tile` from the bag (hands known)."""
        player = self._player(player)
        held = set(self.hands[player]) if self.hands else set()
        self.set_hand(player, held | {tile})

    def hand_size(self, player: str) -> int:
        """Tiles `player` holds, counted from the moves: six, less one per placement made once no draw followed."""
        last_draw = bag_empty_at(len(self.players))
        return HAND_SIZE - sum(1 for k, m in enumerate(self.moves, start=1) if m.player == player and k > last_draw)

    def obligations(self, player: str) -> list[tuple[Placement, ForcedSpace]]:
        """Forced spaces `player` must fill now: one legal placement from their hand for each (hands known)."""
        if self.hands is None:
            return []
        out = []
        for space in forced_space_report(self.board, self.hands[player]):
            for p in fits(self.board, space.cell, self.hands[player]):
                if not why_illegal(self.board, p, self.bag_empty):
                    out.append((p, space))
                    break
        return out

    def legal_moves(self) -> list[Placement]:
        """What the player to move may place now: fills first when they must, then a free move if not made yet."""
        legal = legal_placements(self.board, self._candidates(self.turn), self.bag_empty)
        forced = set(forced_spaces(self.board))
        if self._free_done or self.obligations(self.turn):
            return [p for p in legal if p.cell in forced]
        return legal

    # -- play ----------------------------------------------------------------------------------
    def push(self, placement: Placement, player: str | None = None) -> Announcement:
        """Play `placement` (by `player`, default: whoever's turn it is, passing the turn on a second free
        move); return the announcement or raise IllegalMove with every violation, leaving the game as it was."""
        p = placement
        if len(self.board) == len(ALL_NUMBERS):
            raise IllegalMove([Violation(GAME_OVER, _("the game is over: all 56 tiles are on the table"))], p)
        fill = p.cell not in self.board and self.board.occupied_neighbours(p.cell) >= FORCED_NEIGHBOURS
        current = self.turn
        nxt = self.players[self._next_turn()]
        violations: list[Violation] = []
        passing = False
        if player is None:
            passing = self._free_done and not fill
        else:
            player = self._player(player)
            if player != current:
                if not self._free_done:
                    violations.append(Violation(TURN_ORDER, _(
                        "it is {player}'s turn and {player} has not made a free move yet").format(
                        player=player_name(current))))
                elif player != nxt:
                    violations.append(Violation(TURN_ORDER, _(
                        "after {current} it is {next}'s turn, not {player}'s").format(
                        current=player_name(current), next=player_name(nxt), player=player_name(player))))
                passing = True
            elif self._free_done and not fill:
                violations.append(self._free_move_made(current))
        if passing:
            violations += self._left_unfilled(current)
        mover = nxt if passing else current
        violations += why_illegal(self.board, p, self.bag_empty)
        if self.hands is not None:
            if p.tile not in self.hands[mover] and passing and player is None and p.tile in self.hands[current]:
                violations.append(self._free_move_made(current))
            elif p.tile not in self.hands[mover]:
                violations.append(Violation(NOT_IN_HAND, _("tile {tile} is not in {player}'s hand").format(
                    tile=p.tile, player=player_name(mover))))
            if not fill:
                violations += [Violation(MUST_FILL, _("{player} must first fill forced space {letter} at {cell} "
                                                      "(with tile {tile})").format(
                    player=player_name(mover), letter=space.letter, cell=fmt(space.cell), tile=q.tile), (space.cell,))
                               for q, space in self.obligations(mover)]
        if violations:
            raise IllegalMove(violations, p)

        was_empty = self.bag_empty
        self._history.append(_State(self._turn, self._free_done,
                                    None if self.hands is None else {k: set(v) for k, v in self.hands.items()},
                                    len(self.events)))
        self.board.place(p)
        if self.hands is not None:
            self.hands[mover].discard(p.tile)
        if passing:
            self._turn = self._next_turn()
            self._free_done = False
        if not fill:
            self._free_done = True
        move = Move(mover, p, fill)
        self.events.append(move)
        out_of_tiles = self.hand_size(mover) == 0 and len(self.board) < len(ALL_NUMBERS)
        if out_of_tiles:
            self._turn = self._next_turn()
            self._free_done = False
        return self._announce(move, passing, not was_empty and self.bag_empty, out_of_tiles)

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
        self._history.append(_State(self._turn, self._free_done,
                                    None if self.hands is None else {k: set(v) for k, v in self.hands.items()},
                                    len(self.events)))
        self.events.append(("end_turn", current))
        self._turn = self._next_turn()
        self._free_done = False
        return self.turn

    def pop(self) -> Placement:
        """Undo the last placement (and any end of turn after it); return it."""
        while self._history:
            state = self._history.pop()
            event = self.events[state.events]
            del self.events[state.events:]
            self._turn, self._free_done, self.hands = state.turn, state.free_done, state.hands
            if isinstance(event, Move):
                self.board.remove(event.placement.cell)
                return event.placement
        raise IndexError("no placement to undo")

    # -- helpers -------------------------------------------------------------------------------
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
        if self.hands is not None:
            return self.hands[player]
        return set(ALL_NUMBERS) - self.board.tiles

    def _left_unfilled(self, player: str) -> list[Violation]:
        return [Violation(MUST_FILL, _("{player} must still fill forced space {letter} at {cell} (with tile {tile}) "
                                       "before the turn passes").format(
            player=player_name(player), letter=space.letter, cell=fmt(space.cell), tile=q.tile), (space.cell,))
                for q, space in self.obligations(player)]

    @staticmethod
    def _free_move_made(player: str) -> Violation:
        return Violation(TURN_ORDER, _("{player} already made a free move this turn; only forced spaces may be "
                                       "filled").format(player=player_name(player)))

    def _announce(self, move: Move, passing: bool, emptied: bool, out_of_tiles: bool) -> Announcement:
        p = move.placement
        who = player_name(move.player)
        forced = tuple(forced_space_report(self.board))
        said = (_("{player}: tile {tile} at {cell} turn {rot} fills a forced space") if move.fill
                else _("{player}: tile {tile} at {cell} turn {rot} (free move)"))
        lines = [said.format(player=who, tile=p.tile, cell=fmt(p.cell), rot=p.rot)]
        lines += [forced_space_text(f) for f in forced]
        if emptied:
            lines.append(_("the bag is empty: the restrictions no longer apply"))
        over = len(self.board) == len(ALL_NUMBERS)
        if over:
            lines.append(self.result())
        elif out_of_tiles:
            lines.append(_("{player} has played all tiles; {next} to play").format(player=who,
                                                                                   next=player_name(self.turn)))
        elif self._free_done:
            nxt = player_name(self.players[self._next_turn()])
            lines.append(_("{player} may fill forced spaces, then {next} plays").format(player=who, next=nxt)
                         if forced else _("{next} to play").format(next=nxt))
        else:
            lines.append(_("{player}'s free move next").format(player=who))
        return Announcement(move, passing, forced, self.bag, emptied, over, self.turn, tuple(lines))

    # -- records -------------------------------------------------------------------------------
    def to_record(self) -> dict:
        """The game as a `tantrix-game/1` record: players, then placements and ends of turn in order."""
        out = []
        for e in self.events:
            if isinstance(e, Move):
                out.append({"player": COLOUR_NAMES[e.player], **e.placement.to_dict()})
            else:
                out.append({"player": COLOUR_NAMES[e[1]], "end_turn": True})
        return {"format": RECORD_FORMAT, "players": [COLOUR_NAMES[p] for p in self.players], "moves": out}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_record(), indent=1) + "\n")


@dataclass(frozen=True)
class Record:
    """A loaded game record: players in seating order and the events (Move or ("end_turn", player)).

    A Move's `fill` is decided when it is played (it depends on the board then), so it is False here.
    """

    players: tuple[str, ...]
    events: tuple


def record_from_dict(data: object) -> Record:
    """Read a `tantrix-game/1` record; GameError (exit 2) names the first problem found."""
    if not isinstance(data, dict):
        raise GameError(_("a game record must hold a JSON object"))
    if data.get("format") != RECORD_FORMAT:
        raise GameError(_("format is {found!r}, expected {wanted!r}").format(found=data.get("format"),
                                                                           wanted=RECORD_FORMAT))
    mode = data.get("mode", "game")
    if mode not in MODES:
        raise GameError(_("mode {mode!r} is not something played with Tantrix tiles: use one of {modes}").format(
            mode=mode, modes=listing(MODES)))
    if mode != "game":
        raise GameError(_("this is a record of {mode}, not of a game: only games of 2-4 players are replayed")
                        .format(mode=mode))
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise GameError(_("'players' must be a list of colours in seating order"))
    players = tuple(colour_code(p) for p in players)
    if not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        raise GameError(_("a game needs 2-4 players of different colours, not {players}").format(
            players=list(players)))
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise GameError(_("'moves' must be a list"))
    events = []
    tiles: dict[int, int] = {}
    cells: dict[tuple[int, int], int] = {}
    for i, m in enumerate(moves):
        where = f"moves[{i}]"
        if not isinstance(m, dict) or not isinstance(m.get("player"), str):
            raise GameError(_("{where} must be an object with a 'player'").format(where=where))
        code = colour_code(m["player"])
        if code not in players:
            raise GameError(_("{where}: {player} is not one of the players").format(where=where,
                                                                                    player=player_name(code)))
        if m.get("end_turn") is True:
            events.append(("end_turn", code))
            continue
        try:
            p = placement_from_dict(m, where)
        except BoardError as e:
            raise GameError(str(e)) from None
        if p.tile in tiles:
            raise GameError(_("{where}: tile {tile} is placed twice (first in moves[{first}])").format(
                where=where, tile=p.tile, first=tiles[p.tile]))
        if p.cell in cells:
            raise GameError(_("{where}: two tiles in cell {cell} (first in moves[{first}])").format(
                where=where, cell=fmt(p.cell), first=cells[p.cell]))
        tiles[p.tile] = i
        cells[p.cell] = i
        events.append(Move(code, p, False))
    return Record(players, tuple(events))


def load_record(path: str | Path) -> Record:
    """Read a record file; one-line GameError/BoardError for anything malformed."""
    text = read_text(path)
    try:
        return record_from_dict(parse_json(text, GameError))
    except (GameError, BoardError) as e:
        raise type(e)(f"{path}: {e}") from None


class ReplayError(IllegalMove):
    """An illegal event in a record: which one (0-based `index`) and why."""

    def __init__(self, index: int, event, error: IllegalMove) -> None:
        self.index = index
        self.event = event
        super().__init__(error.violations, error.placement)


def replay_events(game: Game, record: Record) -> Iterator[tuple[object, Announcement | str]]:
    """Play a record's events on `game` one by one, yielding (event, announcement or next player after an end
    of turn); raise ReplayError at the first illegal event."""
    for i, event in enumerate(record.events):
        try:
            if isinstance(event, Move):
                yield event, game.push(event.placement, event.player)
            else:
                yield event, game.end_turn(event[1])
        except IllegalMove as e:
            raise ReplayError(i, event, e) from None


def replay_game(record: Record) -> tuple[Game, list[tuple[object, Announcement | str]]]:
    """Replay a whole record; return the game and every (event, announcement); ReplayError if one is illegal."""
    game = Game(record.players)
    return game, list(replay_events(game, record))
