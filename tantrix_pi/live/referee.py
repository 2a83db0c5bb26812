"""The referee: what each committed table means, through the rules engine, and what to announce.

The table is the truth and the game follows it: every commit of the tracker (tiles laid, taken off, moved,
turned, misread) is judged as the players' actions it stands for, and the rules engine's game is always the one
built from the tables seen. Events: placements, illegal placements with the rule and cells, open forced spaces
lettered with the colours they need and the unplayed tiles that fit, bag empty, scores, game over and puzzle
verdicts. It never judges a tile the tracker is unsure of: those only ever reach it as `Unsure`, which it turns
into "can't read the tile at ...".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from tantrix_pi import rules, scoring
from tantrix_pi.board import Board, Placement
from tantrix_pi.game import HAND_SIZE, Game, GameError, IllegalMove, bag_empty_at
from tantrix_pi.grid import Cell, fmt
from tantrix_pi.i18n import _, colour_name, listing, ngettext, player_name
from tantrix_pi.live.engines import GameEngine, SolitaireEngine, engine_for
from tantrix_pi.live.hands import Sighting
from tantrix_pi.live.store import Notice, Played
from tantrix_pi.live.tracker import Change, Commit, Unclear
from tantrix_pi.solitaire import COLOUR, Solitaire
from tantrix_pi.tiles import ALL_NUMBERS, COLOUR_NAMES
from tantrix_pi.vision.detection import GLARE, REASON_CODES

REASONS = {code: text for text, code in REASON_CODES.items()}
"""The detector's words for each reason's code."""

FOUR_MODES = {"four-lines": "lines", "four-loops": "loops"}
"""The live modes of Four lines and Four loops, and the variant each scores."""


@dataclass
class Setup:
    """What is being played: a game for `players` (colour letters in seating order), a puzzle or free play."""

    mode: str = "game"
    players: list[str] = field(default_factory=lambda: ["R", "B"])
    puzzle: str | None = None

    def to_dict(self) -> dict:
        return {"mode": self.mode, "players": self.players, "puzzle": self.puzzle}

    @classmethod
    def from_dict(cls, d: dict) -> Setup:
        return cls(d.get("mode", "game"), list(d.get("players", ["R", "B"])), d.get("puzzle"))

    @property
    def is_game(self) -> bool:
        return self.mode == "game"

    @property
    def bag_empty_at(self) -> int:
        """Tiles on the table when the bag runs out (docs/rules.md section 2)."""
        return bag_empty_at(len(self.players))


def setup_of_settings(settings) -> Setup:
    """The Setup a devices menu `Settings` describes."""
    if settings.mode == "game":
        return Setup("game", list(settings.colours))
    return Setup(settings.mode, [], settings.puzzle)


def settings_of_setup(setup: Setup, settings):
    """The devices menu `Settings` showing `setup` (what it does not set is kept from `settings`)."""
    from dataclasses import replace

    from tantrix_pi.tiles import COLOUR_NAMES

    if setup.mode == "game":
        rest = tuple(c for c in settings.seats if c not in setup.players)
        return replace(settings, mode=setup.mode, players=len(setup.players), seats=(*setup.players, *rest))
    name = (setup.puzzle or "").split(":")
    if setup.mode == "discovery" and len(name) > 1:
        return replace(settings, mode="discovery", discovery=int(name[1]))
    if setup.mode == "rainbow" and len(name) > 1:
        letter = next(c for c, n in COLOUR_NAMES.items() if n == name[1])
        return replace(settings, mode="rainbow", rainbow=letter)
    return replace(settings, mode=setup.mode)


@dataclass
class Ruling:
    """What one commit means: moves to store, moves taken back (by seq), and events to announce."""

    added: list[Played] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    events: list[Notice] = field(default_factory=list)
    saved: bool = True
    """The rules engine's state changed (the store keeps it)."""


SEARCH_BUDGET = 400
"""Orders of a commit's new tiles tried (placements judged) before the rest are taken in their natural order."""


class Referee:
    """Judges the commits of one game; built again from the stored table, moves and engine state after a restart.

    The table (`board`) is the truth: each commit is played as the players' actions it stands for on the mode's
    rules engine (`engine`, live/engines.py), which holds the tiles it accepted. A tile on the table that the
    engine does not hold is a stray (an illegal placement, an old tile moved): it waits to be taken back or laid
    where it may go, and is then that player's placement. A tile the engine holds that is not on the table is
    missing (an old tile taken off, which may come back).
    """

    def __init__(self, setup: Setup, board: Board | None = None, moves: list[Played] = (),
                 state: list[dict] | None = None, turn_ends: list[int] = (), hands_in_view: bool = False) -> None:
        """`moves`: the table's placements in order, as stored; `state`: the engine's (`Engine.state()`); a
        database from before states were stored has none: the legal moves and the ends of turn (`turn_ends`:
        after which move, by seq) are played again instead. `hands_in_view`: the camera watches a zone per seat
        (sightings come through `hands`)."""
        self.setup = setup
        self.hands_in_view = hands_in_view and setup.is_game
        self.sighted: dict[str, Sighting] = {}
        """The last settled sighting of each seat's zone."""
        self.turn_said: tuple | None = None
        """Who was last said to play, and what they must fill."""
        self.board = board.copy() if board is not None else Board()
        self.moves = list(moves)
        self.engine = engine_for(setup.mode, setup.players)
        for item in state if state is not None else _legacy_state(self.moves, turn_ends):
            self.engine.apply(item)
        self.forced_said = self._forced_key(self.forced())
        self.bag_was_empty = self.bag_empty
        self.scores_said = self.scores()
        self.over = self._finished()
        self.end_said = self._solo_over()
        """A Solitaire's or a Four lines / loops' end has been announced (until a tile is taken off again)."""

    # -- state ------------------------------------------------------------------------------------
    @property
    def game(self) -> Game | None:
        """The rules engine's game (None outside a game)."""
        return self.engine.game if isinstance(self.engine, GameEngine) else None

    @property
    def solo(self) -> Solitaire | None:
        return self.engine.solo if isinstance(self.engine, SolitaireEngine) else None

    @property
    def accepted(self) -> Board:
        """The tiles the rules accepted (the table less its strays, with its missing tiles)."""
        return self.engine.board

    def strays(self) -> list[Placement]:
        """Tiles on the table that the rules have not accepted there."""
        return [p for p in self.board if self.accepted.get(p.cell) != p]

    def missing(self) -> list[Placement]:
        """Accepted tiles that are not on the table."""
        return [p for p in self.accepted if self.board.get(p.cell) != p]

    def illegal(self) -> list[dict]:
        """Each stray with why it is not accepted (the rule and cells of each violation)."""
        out = []
        for p in self.strays():
            violations, _player = self.engine.judge(p) if p.tile not in self.accepted.tiles else ([], None)
            out.append({"tile": p.tile, "cell": list(p.cell), "rot": p.rot, "violations": violations_data(violations)})
        return out

    def state(self) -> list[dict]:
        """What the store keeps to build this referee again."""
        return self.engine.state()

    @property
    def bag_empty(self) -> bool:
        if self.solo is not None:
            return self.solo.bag_empty
        return self.setup.is_game and len(self.accepted) >= self.setup.bag_empty_at

    @property
    def four(self) -> str | None:
        """"lines" or "loops" in Four lines / Four loops, else None."""
        return FOUR_MODES.get(self.setup.mode)

    @property
    def next_seq(self) -> int:
        return max((m.seq for m in self.moves), default=0) + 1

    @property
    def turn(self) -> str | None:
        """The colour of the player to move (None outside a game)."""
        return self.game.turn if self.game is not None else None

    def forced(self) -> list[rules.ForcedSpace]:
        """The open forced spaces of the accepted tiles (those only a stray makes are none)."""
        return rules.forced_space_report(self.accepted)

    def _finished(self) -> bool:
        return self.setup.is_game and len(self.accepted) == len(ALL_NUMBERS)

    def _solo_over(self) -> bool:
        """A Solitaire with all its tiles down, or Four lines / loops with all 56."""
        if self.solo is not None:
            return self.solo.outcome() is not None
        return self.four is not None and len(self.board) == len(ALL_NUMBERS)

    @staticmethod
    def _forced_key(report) -> tuple:
        return tuple((f.cell, f.needs) for f in report)

    # -- judging ----------------------------------------------------------------------------------
    def unsure(self, u: Unclear) -> Ruling:
        """Say which tiles cannot be read, and why when the detector says; nothing is judged until they can. A tile
        washed out by glare stays so until the light changes: the players are told what to do."""
        glare = REASON_CODES[GLARE]
        glared = [c for c in u.cells if u.why.get(c) == glare]
        if glared and len(glared) == len(u.cells) and not u.where:  # short enough for the display's two lines
            text = ngettext("Glare hides the tile at {where}: move the lamp, or shade the tile.",
                            "Glare hides the tiles at {where}: move the lamp, or shade them.", len(glared)).format(
                where=listing([fmt(c) for c in glared]))
        else:
            where = [_("{cell} ({why})").format(cell=fmt(c), why=_(REASONS[u.why[c]])) if u.why.get(c) in REASONS
                     else fmt(c) for c in u.cells]
            where += [_("image position ({x:.0f},{y:.0f})").format(x=x, y=y) for x, y in u.where]
            text = ngettext("Can't read the tile at {where}: waiting for a clear view.",
                            "Can't read the tiles at {where}: waiting for a clear view.", len(where)).format(
                where=listing(where))
            if glared:
                text += " " + ngettext("Move the lamp, or shade the tile from it.",
                                       "Move the lamp, or shade the tiles from it.", len(glared))
        return Ruling(events=[Notice("unsure", text, {"cells": [list(c) for c in u.cells],
                                                      "px": [list(p) for p in u.where],
                                                      "why": [u.why.get(c, "") for c in u.cells]})])

    def commit(self, c: Commit) -> Ruling:
        """Judge a commit as the players' actions it stands for: misreadings put right first, then the tiles taken
        off (strays, then the newest first), then the tiles laid, in an order the players could have laid them."""
        out = Ruling()
        if self.solo is not None:
            self.engine.draws = []
        came_from = {ch.after.tile: ch for ch in c.changes if ch.kind in ("moved", "turned")}
        for ch in c.changes:
            if ch.kind == "corrected":
                self._correct(ch, out)
        lifted = [ch.before for ch in c.changes if ch.kind in ("removed", "moved", "turned")]
        for p in sorted(lifted, key=self._lift_order):
            self._lift(p, out, said=p.tile not in came_from)
        laid = [ch.after for ch in c.changes if ch.kind in ("placed", "moved", "turned")]
        for p in self._lay_order(laid, c.laid_order):
            self._lay(p, came_from.get(p.tile), out)
        assert self.board == c.board, "the referee's table follows the tracker's"
        self._follow_hands()
        self._after(out)
        if self.hands_in_view:
            self._turn_news(out)
        return out

    # -- the hands --------------------------------------------------------------------------------
    def hands(self, sightings: list[Sighting]) -> Ruling:
        """New sightings of the seats' zones: the hands they show (dealt before the first tile, then each draw),
        and what that changes for the player to move."""
        out = Ruling()
        self.sighted.update((s.player, s) for s in sightings)
        before = len(self.engine.state())
        if self.game is not None and self.hands_in_view:
            self._follow_hands()
            self._turn_news(out)
        out.saved = len(self.engine.state()) != before
        return out

    def _follow_hands(self) -> None:
        """What the sightings tell the game: a hand not known yet (a clear sighting while dealing, else once seen
        whole), and the tiles drawn since (new tiles in a zone while the hand has room: while dealing, the deal).
        A tile gone from a zone but not laid is still held (in a hand, out of view); a tile read in a zone that
        lies on the table, or in another hand, is a misreading and left out."""
        game = self.game
        if game is None:
            return
        for player, seen in self.sighted.items():
            if player not in game.players:
                continue
            others = set().union(*(h for p, h in game.hands.items() if h and p != player))
            tiles = set(seen.tiles) - self.board.tiles - self.accepted.tiles - others
            held = game.hands[player]
            try:
                if held is None:
                    if seen.clear and len(tiles) <= HAND_SIZE and (not game.moves
                                                                   or len(tiles) == game.hand_size(player)):
                        game.set_hand(player, tiles)
                else:
                    for t in sorted(tiles - held):
                        if game.cannot_draw(player, t) is None:
                            game.draw(player, t)
            except GameError:
                continue  # a sighting that cannot be (a misreading): the hand stays as it was known

    def must_fill(self, player: str | None = None) -> list[dict]:
        """What `player` (default: the one to play) must fill now, as far as their hand is seen: each forced space
        and the held tiles that fit it."""
        game = self.game
        if game is None:
            return []
        player = player or game.to_play
        return [{"player": player, "letter": space.letter, "cell": list(space.cell),
                 "tiles": [q.tile for q in fills]} for space, fills in game.owed(player)]

    def _turn_news(self, out: Ruling) -> None:
        """Say who is to play when a sighting ends the mover's turn (they have drawn and owe no fill), and what
        the player to play must fill whenever that changes."""
        game = self.game
        to_play = game.to_play
        owed = self.must_fill(to_play)
        key = (to_play, tuple((tuple(o["cell"]), tuple(o["tiles"])) for o in owed))
        if key == self.turn_said:
            return
        said_player = self.turn_said[0] if self.turn_said else None
        self.turn_said = key
        who = player_name(to_play)
        if owed:
            parts = [ngettext("{letter}: tile {tiles} fits", "{letter}: tiles {tiles} fit", len(o["tiles"])).format(
                letter=o["letter"], tiles=listing(o["tiles"])) for o in owed]
            out.events.append(Notice("must_fill", _("{player} must fill {spaces}.").format(
                player=who, spaces="; ".join(parts)), {"player": to_play, "spaces": owed}))
        elif to_play != said_player:
            out.events.append(Notice("to_play", _("{player} to play.").format(player=who), {"player": to_play}))

    def _lift_order(self, p: Placement) -> tuple[int, int]:
        """Strays first, then accepted tiles, the newest first: each is then the last one when it is taken."""
        order = self.engine.placements()
        return (1, -order.index(p)) if p in order else (0, 0)

    def _lay_order(self, laid: list[Placement], seen: tuple[Cell, ...] = ()) -> list[Placement]:
        """Tiles coming back to where they were accepted first, then the new ones in the order they were `seen` laid
        (`Commit.laid_order`) when the rules accept every one of them so, else in the order players most likely
        laid them: the rules accepting as many as possible, with as few turns passing and as many forced spaces
        filled as can be (then fills first and top to bottom), found by trying orders on the engine itself."""
        back = [p for p in laid if self.accepted.get(p.cell) == p]
        new = sorted((p for p in laid if p not in back and p.tile not in self.accepted.tiles),
                     key=lambda p: (self.accepted.occupied_neighbours(p.cell) < rules.FORCED_NEIGHBOURS, p.r, p.q))
        displaced = [p for p in laid if p not in back and p not in new]
        if len(new) <= 1:
            return back + new + displaced  # one new tile (most commits): no order to choose
        if {p.cell for p in new} <= set(seen):
            in_order = sorted(new, key=lambda p: seen.index(p.cell))
            if self._accepts(in_order):
                return back + in_order + displaced
        budget = [SEARCH_BUDGET]

        def best(todo: list[Placement]) -> tuple[tuple[int, int, int], list[Placement]]:
            """The best-liked run of `todo` the engine accepts in turn, from the engine as it stands."""
            found: tuple[tuple[int, int, int], list[Placement]] = ((0, 0, 0), [])
            for p in todo:
                if budget[0] <= 0:
                    break
                budget[0] -= 1
                try:
                    said = self.engine.push(p)
                except IllegalMove:
                    continue
                try:
                    (n, passes, fills), run = best([q for q in todo if q is not p])
                finally:
                    self.engine.pop()
                key = (n + 1, passes - bool(said and said.turn_passed), fills + bool(said and said.move.fill))
                if key > found[0]:
                    found = (key, [p, *run])
                if key == (len(todo), 0, len(todo)):
                    break
            return found

        with self._trying():
            _, order = best(new)
        return back + order + [p for p in new if p not in order] + displaced

    def _accepts(self, order: list[Placement]) -> bool:
        """Whether the rules accept every tile of `order`, laid in turn from the game as it stands (left as it was)."""
        pushed = 0
        with self._trying():
            try:
                for p in order:
                    self.engine.push(p)
                    pushed += 1
            except IllegalMove:
                return False
            finally:
                for _p in range(pushed):
                    self.engine.pop()
        return True

    @contextmanager
    def _trying(self) -> Iterator[None]:
        """Placements tried on the engine and taken back: Solitaire's draws are left as they were."""
        draws = list(self.engine.draws) if self.solo is not None else None
        try:
            yield
        finally:
            if draws is not None:
                self.engine.draws = draws

    def _lift(self, p: Placement, out: Ruling, said: bool) -> None:
        """A tile taken off the table: a stray or the last accepted tile is taken back; an older one is missing
        (it may come back). `said`: announce it (a tile that is laid again in the same commit is not)."""
        self.board.remove(p.cell)
        back = _("Tile {tile} taken back from {cell}.")
        if self.accepted.get(p.cell) != p:
            self._forget(p, out)
        elif self.engine.last() == p:
            self._forget(self.engine.pop(), out)
            while (last := self.engine.last()) is not None and self.board.get(last.cell) != last:
                self._forget(self.engine.pop(), out)  # taken off earlier, now the last one: taken back too
                out.events.append(Notice("taken_back", back.format(tile=last.tile, cell=fmt(last.cell)),
                                        {"tile": last.tile, "cell": list(last.cell)}))
        else:
            back = _("Tile {tile} was removed from {cell}: it was not the last tile played. Put it back.")
        if said:
            kind = "taken_back" if self.accepted.get(p.cell) != p else "removed"
            out.events.append(Notice(kind, back.format(tile=p.tile, cell=fmt(p.cell)),
                                    {"tile": p.tile, "cell": list(p.cell)}))

    def _forget(self, p: Placement, out: Ruling) -> None:
        """The table's move of placement `p` is gone (taken back)."""
        move = next((m for m in reversed(self.moves) if m.placement == p), None)
        if move is not None:
            self.moves.remove(move)
            out.removed.append(move.seq)

    def _lay(self, p: Placement, came: Change | None, out: Ruling) -> None:
        """A tile laid on the table: an accepted tile back in its place, an accepted tile laid elsewhere (a stray
        until it is back), or a placement judged by the rules."""
        self.board.place(p)
        facts = {"tile": p.tile, "cell": fmt(p.cell)}
        data = {"tile": p.tile, "cell": list(p.cell), "rot": p.rot}
        if came is not None:
            data["was"] = came.before.to_dict()
            facts["was"] = fmt(came.before.cell)
        if self.accepted.get(p.cell) == p:
            out.events.append(Notice("restored", _("Tile {tile} is back at {cell}.").format(**facts), data))
            return
        if p.tile in self.accepted.tiles:
            home = self.accepted[self.accepted.cell_of(p.tile)]
            self._record(p, None, False, out)
            text = (_("Tile {tile} at {cell} turned: it was not the last tile played. Turn it back.")
                    if home.cell == p.cell else
                    _("Tile {tile} moved to {cell}: it was not the last tile played. Put it back at {home}."))
            kind = "turned" if home.cell == p.cell else "moved"
            out.events.append(Notice(kind, text.format(**facts, home=fmt(home.cell)), {**data, "home": home.to_dict()}))
            return
        forced = self.accepted.occupied_neighbours(p.cell) >= rules.FORCED_NEIGHBOURS
        owed_before = bool(rules.forced_spaces(self.accepted))
        violations, player = self.engine.judge(p)
        unchecked = (self.hands_in_view and not forced and owed_before and not violations
                     and not self._hand_seen(player))
        if not violations:
            self.engine.push(p)
        self._record(p, player, not violations, out)
        data.update(player=player, forced=forced)
        if violations:
            text = (_("Illegal: tile {tile} at {cell} turned: {reasons}. Take it back.")
                    if came is not None and came.kind == "turned" else
                    _("Illegal: tile {tile} moved from {was} to {cell}: {reasons}. Take it back.")
                    if came is not None else
                    _("Illegal: tile {tile} at {cell} (forced space): {reasons}. Take it back.") if forced else
                    _("Illegal: tile {tile} at {cell}: {reasons}. Take it back."))
            out.events.append(Notice("illegal", text.format(**facts, reasons=reasons_text(violations)),
                                    {**data, "violations": violations_data(violations)}))
            return
        who = player_name(player) if player else None
        if came is not None and came.kind == "turned":
            text = (_("Tile {tile} at {cell} turned: {player} plays it so.") if who else
                    _("Tile {tile} at {cell} turned."))
        elif came is not None:
            text = (_("Tile {tile} moved from {was} to {cell}: {player} plays it there.") if who else
                    _("Tile {tile} moved from {was} to {cell}."))
        elif who:
            text = (_("{player} plays tile {tile} at {cell} (forced space).") if forced
                    else _("{player} plays tile {tile} at {cell}."))
        else:
            text = (_("Placed: tile {tile} at {cell} (forced space).") if forced
                    else _("Placed: tile {tile} at {cell}."))
        text = text.format(**facts, player=who)
        if self.game is not None:
            if unchecked:
                text = _("{said} (Not all of {player}'s hand is in view: whether a forced space had to be filled "
                         "first is not checked.)").format(said=text, player=who)
                data["unchecked"] = True
            text, data["next"] = self._who_next(text, player)
            self.turn_said = (data["next"], ())
        out.events.append(Notice("placed", text, data))

    def _hand_seen(self, player: str) -> bool:
        """Whether the whole of `player`'s hand is known (every tile they hold, their draw included)."""
        held = self.game.hands[player]
        return held is not None and len(held) >= self.game.hand_size(player)

    def _who_next(self, text: str, mover: str) -> tuple[str, str]:
        """A placement's words with who plays now: another player, or after the mover's fills."""
        game = self.game
        to_play = game.to_play
        if to_play != mover:
            return _("{said} {player} to play.").format(said=text, player=player_name(to_play)), to_play
        if game.free_move_made:
            return _("{said} Then {player}.").format(said=text, player=player_name(game.next_player)), mover
        return text, mover

    def _record(self, p: Placement, player: str | None, legal: bool, out: Ruling) -> None:
        move = Played(self.next_seq, player, p, legal)
        self.moves.append(move)
        out.added.append(move)

    def _correct(self, ch: Change, out: Ruling) -> None:
        """A tile that was misread: what the table held was `ch.after` all along. An accepted tile is put right in
        the engine's history (tiles the rules then refuse become strays); a stray is judged again as laid."""
        a, b = ch.before, ch.after
        data = {"tile": b.tile, "cell": list(b.cell), "rot": b.rot, "was": a.to_dict()}
        facts = {"tile": b.tile, "cell": fmt(b.cell), "was_tile": a.tile}
        text = (_("Correction: the tile at {cell} is tile {tile}.") if a.tile == b.tile
                else _("Correction: the tile at {cell} is tile {tile}, not tile {was_tile}.")).format(**facts)
        self.board.remove(a.cell)
        self.board.place(b)
        for i, m in enumerate(self.moves):
            if m.placement == a:
                self._rewrite(i, replace(m, placement=b), out)
        if self.accepted.get(a.cell) == a:
            state = [dict(item, **b.to_dict()) if _is(item, a) else item for item in self.engine.state()]
            self.engine = engine_for(self.setup.mode, self.setup.players)
            refused = [q for item in state if (q := self.engine.apply(item)) is not None]
            for i, m in enumerate(self.moves):
                if m.placement in refused:
                    self._rewrite(i, replace(m, legal=False), out)
            if b in refused:
                violations, _player = self.engine.judge(b)
                text = _("{text} It does not fit there: {reasons}. Take it back.").format(
                    text=text, reasons=reasons_text(violations))
                data["violations"] = violations_data(violations)
        else:
            violations, player = self.engine.judge(b)
            if not violations:
                self.engine.push(b)
            for i, m in enumerate(self.moves):
                if m.placement == b:
                    self._rewrite(i, replace(m, player=player, legal=not violations), out)
            if violations:
                text = _("{text} It does not fit there: {reasons}. Take it back.").format(
                    text=text, reasons=reasons_text(violations))
                data["violations"] = violations_data(violations)
        out.events.append(Notice("corrected", text, data))

    def _rewrite(self, i: int, move: Played, out: Ruling) -> None:
        """The game's move `i` becomes `move`: taken out of the store and written again, once in a commit."""
        self.moves[i] = move
        if move.seq not in out.removed:
            out.removed.append(move.seq)
        out.added[:] = [m for m in out.added if m.seq != move.seq] + [move]

    # -- the buttons ------------------------------------------------------------------------------
    def may_end_turn(self) -> bool:
        """Whether the player to move may end the turn now: the free move made and no fill owed."""
        game = self.game
        return game is not None and game.free_move_made and not game.obligations(game.turn)

    def mover_holds(self, laid: list[Placement]) -> bool | None:
        """Whose hand these tiles came from, as the hands in view tell: True when the player to move held every one,
        False when another player held one, None when no hand known tells."""
        game = self.game
        if game is None or not laid:
            return None
        holders = [next((pl for pl, held in game.hands.items() if held and p.tile in held), None) for p in laid]
        if any(h is not None and h != game.turn for h in holders):
            return False
        return True if all(h == game.turn for h in holders) else None

    def fill_forced(self, laid: list[Placement]) -> bool:
        """Whether every one of these tiles lies on a forced space of the accepted board."""
        forced = rules.forced_spaces(self.accepted)
        return bool(laid) and all(p.cell in forced for p in laid)

    def end_turn(self) -> Ruling:
        """The player to move ends the turn (the next button); refused, with the reason, when they may not."""
        if self.game is None:
            return Ruling()
        player = self.game.turn
        try:
            nxt = self.game.end_turn()
        except IllegalMove as e:
            text = _("{player} cannot end the turn yet: {reasons}.").format(player=player_name(player),
                                                                             reasons=reasons_text(e.violations))
            return Ruling(events=[Notice("refused", text, {"player": player,
                                                           "violations": violations_data(e.violations)})])
        after = self.moves[-1].seq if self.moves else 0
        text = _("{player} ends the turn: {next} to play.").format(player=player_name(player), next=player_name(nxt))
        return Ruling(events=[Notice("end_turn", text, {"player": player, "after": after, "next": nxt})])

    def undo(self) -> Ruling:
        """The back button: the camera decides what lies on the table, so say which tile to take off."""
        p = next(iter(self.strays()), None) or self.engine.last()
        if p is None:
            return Ruling(events=[Notice("hint", _("Nothing to undo: no tile has been played."), {})])
        return Ruling(events=[Notice("hint", _("To undo, take tile {tile} off {cell}.").format(
            tile=p.tile, cell=fmt(p.cell)), {"tile": p.tile, "cell": list(p.cell)})])

    def _after(self, out: Ruling) -> None:
        """Events about the whole board: forced spaces, bag empty, scores, game over, puzzle verdict."""
        report = self.forced()
        key = self._forced_key(report)
        if key != self.forced_said and report:
            parts = []
            for f in report:
                needs = "/".join(colour_name(c) for c in f.needs if c)
                part = (_("{letter} at {cell} needs {needs}, fits {tiles}") if f.fits
                        else _("{letter} at {cell} needs {needs}, fits no unplayed tile"))
                parts.append(part.format(letter=f.letter, cell=fmt(f.cell), needs=needs, tiles=listing(f.fits)))
            text = ngettext("Forced space: {spaces}.", "Forced spaces: {spaces}.", len(parts)).format(
                spaces="; ".join(parts))
            out.events.append(Notice("forced", text, {"spaces": forced_data(report)}))
        self.forced_said = key
        if self.setup.is_game:
            empty = self.bag_empty
            if empty and not self.bag_was_empty:
                out.events.append(Notice("bag_empty", _("The bag is empty: the restrictions no longer apply."),
                                        {"tiles": len(self.accepted)}))
            self.bag_was_empty = empty
            scores = self.scores()
            if scores != self.scores_said:
                self.scores_said = scores
                out.events.append(Notice("scores", _("Scores: {points}.").format(points=scoring.points_text(scores)),
                                        {"scores": scores}))
            if self._finished() and not self.over:
                self.over = True
                out.events.append(self._game_over())
            elif not self._finished():
                self.over = False
        elif self.solo is not None:
            out.events.extend(self._solitaire_events())
        elif self.four is not None:
            out.events.extend(self._four_events())
        elif self.setup.puzzle:
            out.events.extend(self._puzzle_verdict())

    def scores(self) -> dict[str, int]:
        """What is scored now: in a game each player's (the longer of their longest line and twice their largest
        loop); in Solitaire red's; in Four lines / loops each colour's line or loop; else nothing."""
        if self.setup.is_game:
            return {c: s.score for c, s in scoring.scores(self.accepted, self.setup.players).items()}
        if self.solo is not None:
            return {COLOUR: scoring.score(self.accepted, COLOUR).score}
        if self.four is not None:
            return scoring.four(self.board, self.four).tiles
        return {}

    def _solitaire_events(self) -> list[Notice]:
        """The draws the player makes now, the bag running empty, and the score once all 14 tiles are down."""
        out = []
        draws = self.engine.draws
        tiles, bonus = sum(d.tiles for d in draws), sum(d.bonus for d in draws)
        data = {"tiles": tiles, "bonus": bonus, "bag": self.solo.bag}
        if tiles and bonus:
            draw = ngettext("draw {n} tile", "draw {n} tiles", tiles).format(n=tiles)
            text = _("Bonus draw for the filled forced space: {draw}.") if bonus == 1 else ngettext(
                "Bonus draws for {n} filled forced spaces: {draw}.",  # n >= 2: the forms of 2-4 and of 5 and more
                "Bonus draws for {n} filled forced spaces: {draw}.", bonus)
            out.append(Notice("draw", text.format(n=bonus, draw=draw), data))
        elif tiles == 1:
            out.append(Notice("draw", _("Draw a tile."), data))
        elif tiles:
            out.append(Notice("draw", ngettext("Draw {n} tile.", "Draw {n} tiles.", tiles).format(n=tiles), data))
        if self.solo.bag_empty and not self.bag_was_empty:
            out.append(Notice("bag_empty", _("The bag is empty: place the tiles you hold; a forced space that no tile "
                                            "fits may now be made."), {"tiles": len(self.board)}))
        self.bag_was_empty = self.solo.bag_empty
        over = self.solo.outcome()
        if over is not None and not self.end_said:
            s = over.score
            out.append(Notice("solitaire_over", over.summary(), {"score": over.points, "line": s.line, "loop": s.loop,
                                                                "perfect": over.perfect}))
        self.end_said = over is not None
        return out

    def _four_events(self) -> list[Notice]:
        """Four lines / Four loops: the score whenever it changes, and the final one once all 56 tiles are down."""
        out = []
        result = scoring.four(self.board, self.four)
        if result.tiles != self.scores_said:
            self.scores_said = result.tiles
            out.append(Notice("scores", result.summary(), {"scores": result.tiles, "total": result.total,
                                                          "four": self.four}))
        over = len(self.board) == len(ALL_NUMBERS)
        if over and not self.end_said:
            from tantrix_pi.puzzles import solo_fault_data, solo_faults

            faults = solo_faults(self.board)
            text = _("All 56 tiles are down. {score}").format(score=result.summary())
            if faults:
                text = _("{text} It does not count: {faults}.").format(text=text, faults="; ".join(faults))
            out.append(Notice("four_over", text, {"four": self.four, "total": result.total, "scores": result.tiles,
                                                 "faults": solo_fault_data(self.board)}))
        self.end_said = over
        return out

    def outcome(self) -> scoring.Outcome | None:
        """How the game ended (who won, why), None while it goes on or outside a game."""
        if not self.over:
            return None
        return scoring.outcome(self.accepted, self.setup.players, scoring.Termination.ALL_PLACED)

    def _game_over(self) -> Notice:
        over = self.outcome()
        return Notice("game_over", over.summary(), {"scores": over.player_scores, "winners": list(over.winners),
                                                   "termination": over.termination.value})

    def _puzzle_verdict(self) -> list[Notice]:
        from tantrix_pi import puzzles

        puzzle = puzzles.puzzle(self.setup.puzzle)
        if len(self.board) < len(puzzle.tiles):
            return []
        verdict = puzzle.check(self.board)
        if verdict.solved:
            return [Notice("solved", _("{puzzle} solved!").format(puzzle=puzzle.title), {"puzzle": self.setup.puzzle})]
        return [Notice("not_solved", _("{puzzle} not solved: {reasons}.").format(
            puzzle=puzzle.title, reasons="; ".join(verdict.reasons)), {"puzzle": self.setup.puzzle})]


def new_game_event(game: int) -> Notice:
    """What is said when game number `game` starts."""
    return Notice("new_game", _("New game {game}: clear the table.").format(game=game), {"game": game})


def reasons_text(violations) -> str:
    """The reasons of a refusal, one after the other."""
    return "; ".join(v.message for v in violations)


def violations_data(violations) -> list[dict]:
    """The machine fields of each violation: its rule and cells (the words are in the event's text)."""
    return [{"rule": v.rule, "cells": [list(x) for x in v.cells]} for v in violations]



def forced_data(report) -> list[dict]:
    """The machine fields of open forced spaces: letter, cell, the colours they need, the unplayed tiles that fit."""
    return [{"letter": f.letter, "cell": list(f.cell), "needs": list(f.needs), "fits": list(f.fits)} for f in report]


def _legacy_state(moves: list[Played], turn_ends: list[int]) -> list[dict]:
    """An engine state from a database of before states were stored: its legal moves and ends of turn."""
    out = []
    ends = list(turn_ends)
    for m in moves:
        if m.legal:
            move = m.placement.to_dict()
            out.append({"player": COLOUR_NAMES[m.player], **move} if m.player else move)
        while ends and ends[0] == m.seq:
            out.append({"player": None, "end_turn": True})
            ends.pop(0)
    return out


def _is(item: dict, p: Placement) -> bool:
    """Whether an engine state's entry is placement `p`."""
    return all(item.get(k) == v for k, v in p.to_dict().items())
