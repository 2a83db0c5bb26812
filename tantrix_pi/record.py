"""Game records, `tantrix-game/1` (docs/game-record.md): a game's players, the hands as dealt when they were
seen, and its placements, draws and ends of turn in order; written by the live referee and `game export`,
checked move by move by `game replay`.

Like python-chess's PGN module beside its `Board`, this holds only the file format; the rules are `Game`'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tantrix_pi.board import BoardError, parse_json, placement_from_dict, read_text
from tantrix_pi.game import (
    HAND_SIZE,
    MODES,
    Announcement,
    Draw,
    Game,
    GameError,
    GameEvent,
    Hand,
    IllegalMove,
    Move,
    TurnEnded,
    colour_code,
)
from tantrix_pi.i18n import _, listing, player_name
from tantrix_pi.rules import fmt
from tantrix_pi.tiles import ALL_NUMBERS, COLOUR_NAMES

FORMAT = "tantrix-game/1"


@dataclass(frozen=True)
class Record:
    """A loaded game record: players in seating order, the hands as dealt (None: not seen) and the events.

    A Move's `fill` is decided when it is played (it depends on the board then), so it is False here.
    """

    players: tuple[str, ...]
    events: tuple[GameEvent, ...]
    hands: dict[str, tuple[int, ...]] | None = None

    def game(self) -> Game:
        """A new game of these players, with the hands as dealt when the record has them."""
        return Game(self.players, self.hands)


def entry(event: GameEvent) -> dict:
    """One event as a record's `moves` holds it (a `Hand` only in the referee's own state)."""
    name = COLOUR_NAMES[event.player]
    if isinstance(event, Move):
        return {"player": name, **event.placement.to_dict()}
    if isinstance(event, Draw):
        return {"player": name, "draw": event.tile}
    if isinstance(event, TurnEnded):
        return {"player": name, "end_turn": True}
    return {"player": name, "hand": sorted(event.tiles)}


def event_of(data: dict) -> GameEvent:
    """The event an `entry` wrote (no checks: for data this program wrote itself; an end of turn with no player is
    the turn of whoever is to move)."""
    player = colour_code(data["player"]) if data.get("player") else None
    if data.get("end_turn"):
        return TurnEnded(player)
    if "draw" in data:
        return Draw(player, data["draw"])
    if "hand" in data:
        return Hand(player, frozenset(data["hand"]))
    return Move(player, placement_from_dict(data, "move"), False)


def to_dict(game: Game, **extra) -> dict:
    """`game` as a record: players, the hands as dealt (when every one was seen), then its events in order;
    `extra` keys (mode, puzzle) go beside them. Without the hands as dealt, draws are left out too."""
    dealt = game.dealt
    kinds = (Move, Draw, TurnEnded) if dealt is not None else (Move, TurnEnded)
    out = {"format": FORMAT, "players": [COLOUR_NAMES[p] for p in game.players], **extra}
    if dealt is not None:
        out["hands"] = {COLOUR_NAMES[p]: sorted(tiles) for p, tiles in dealt.items()}
    out["moves"] = [entry(e) for e in game.events if isinstance(e, kinds)]
    return out


def save(game: Game, path: str | Path) -> None:
    Path(path).write_text(json.dumps(to_dict(game), indent=1) + "\n")


def from_dict(data: object) -> Record:
    """Read a `tantrix-game/1` record; GameError (exit 2) names the first problem found, hands that cannot be
    included (a tile dealt or drawn twice, a hand of seven, a draw of a tile in play or from an empty bag)."""
    if not isinstance(data, dict):
        raise GameError(_("a game record must hold a JSON object"))
    if data.get("format") != FORMAT:
        raise GameError(_("format is {found!r}, expected {wanted!r}").format(found=data.get("format"), wanted=FORMAT))
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
    hands = _hands(data.get("hands"), players)
    deck = _Deck(hands)
    events: list[GameEvent] = []
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
            events.append(TurnEnded(code))
            continue
        if "draw" in m:
            events.append(deck.draw(where, code, m["draw"]))
            continue
        try:
            p = placement_from_dict(m, where)
        except BoardError as e:
            raise GameError(str(e)) from None
        deck.place(where, code, p.tile, i)
        if p.cell in cells:
            raise GameError(_("{where}: two tiles in cell {cell} (first in moves[{first}])").format(
                where=where, cell=fmt(p.cell), first=cells[p.cell]))
        cells[p.cell] = i
        events.append(Move(code, p, False))
    return Record(players, tuple(events), hands)


def _hands(data: object, players: tuple[str, ...]) -> dict[str, tuple[int, ...]] | None:
    """The record's hands as dealt: six different tiles for every player, or no hands at all."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise GameError(_("'hands' must map each player to the six tiles they were dealt"))
    hands: dict[str, tuple[int, ...]] = {}
    for name, tiles in data.items():
        code = colour_code(name)
        if code not in players:
            raise GameError(_("hands: {player} is not one of the players").format(player=player_name(code)))
        if not isinstance(tiles, list) or len(tiles) != HAND_SIZE or len(set(map(str, tiles))) != HAND_SIZE \
                or not all(isinstance(t, int) and not isinstance(t, bool) and t in ALL_NUMBERS for t in tiles):
            raise GameError(_("hands: {player} must hold six different tiles of 1..56").format(
                player=player_name(code)))
        hands[code] = tuple(tiles)
    missing = [p for p in players if p not in hands]
    if missing:
        raise GameError(_("hands: {player}'s hand is missing (give every player's or none)").format(
            player=player_name(missing[0])))
    seen: dict[int, str] = {}
    for code, tiles in hands.items():
        for t in tiles:
            if t in seen:
                raise GameError(_("hands: tile {tile} is dealt to {first} and to {player}").format(
                    tile=t, first=player_name(seen[t]), player=player_name(code)))
            seen[t] = code
    return hands


class _Deck:
    """Where every tile of a record has gone so far, to refuse what cannot be (exit 2): a tile placed or drawn
    twice, a hand of seven, a draw from an empty bag. Whether a placed tile was held is the rules' question
    (exit 1), so a placement takes one tile from its player's hand whichever it is."""

    def __init__(self, hands: dict[str, tuple[int, ...]] | None) -> None:
        self.hands = hands
        self.used: set[int] = {t for tiles in (hands or {}).values() for t in tiles}
        """Tiles dealt or drawn so far."""
        self.size = {p: len(tiles) for p, tiles in (hands or {}).items()}
        self.placed: dict[int, int] = {}

    def place(self, where: str, player: str, tile: int, i: int) -> None:
        if tile in self.placed:
            raise GameError(_("{where}: tile {tile} is placed twice (first in moves[{first}])").format(
                where=where, tile=tile, first=self.placed[tile]))
        self.placed[tile] = i
        if self.hands is not None:
            self.size[player] -= 1

    def draw(self, where: str, player: str, tile: object) -> Draw:
        if self.hands is None:
            raise GameError(_("{where}: a draw needs the hands as dealt ('hands')").format(where=where))
        if not isinstance(tile, int) or isinstance(tile, bool) or tile not in ALL_NUMBERS:
            raise GameError(_("{where}: 'draw' must be a tile number 1..56").format(where=where))
        if tile in self.used or tile in self.placed:
            raise GameError(_("{where}: tile {tile} cannot be drawn: it is in play already").format(
                where=where, tile=tile))
        if len(self.used) + len(set(self.placed) - set(self.used)) >= len(ALL_NUMBERS):
            raise GameError(_("{where}: the bag is empty").format(where=where))
        if self.size[player] >= HAND_SIZE:
            raise GameError(_("{where}: {player} would hold seven tiles").format(where=where,
                                                                              player=player_name(player)))
        self.used.add(tile)
        self.size[player] += 1
        return Draw(player, tile)


def load(path: str | Path) -> Record:
    """Read a record file; one-line GameError/BoardError for anything malformed."""
    text = read_text(path)
    try:
        return from_dict(parse_json(text, GameError))
    except (GameError, BoardError) as e:
        raise type(e)(f"{path}: {e}") from None


class ReplayError(IllegalMove):
    """An illegal event in a record: which one (0-based `index`) and why."""

    def __init__(self, index: int, event: GameEvent, error: IllegalMove) -> None:
        self.index = index
        self.event = event
        super().__init__(error.violations, error.placement)


def replay_events(game: Game, record: Record) -> Iterator[tuple[GameEvent, Announcement | str | None]]:
    """Play a record's events on `game` one by one, yielding (event, the announcement of a placement, the next
    player after an end of turn, None after a draw); raise ReplayError at the first illegal event."""
    for i, event in enumerate(record.events):
        try:
            if isinstance(event, Move):
                yield event, game.push(event.placement, event.player)
            elif isinstance(event, Draw):
                game.draw(event.player, event.tile)
                yield event, None
            else:
                yield event, game.end_turn(event.player)
        except IllegalMove as e:
            raise ReplayError(i, event, e) from None


def replay(record: Record) -> tuple[Game, list[tuple[GameEvent, Announcement | str | None]]]:
    """Replay a whole record; return the game and every (event, what was said); ReplayError if one is illegal."""
    game = record.game()
    return game, list(replay_events(game, record))
