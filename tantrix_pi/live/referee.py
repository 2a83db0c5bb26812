"""The referee: what to announce after each committed change, through the rules engine.

It keeps the game as the table shows it (the committed board and the moves in order, with the player who
made each) and turns tracker changes into events: placements, illegal placements with the rule and
cells, open forced spaces lettered with the colours they need and the unplayed tiles that fit, bag
empty, scores, game over and puzzle verdicts. It never judges a tile the tracker is unsure of: those
only ever reach it as `Unsure`, which it turns into "can't read the tile at ...".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from tantrix_pi import rules, scoring
from tantrix_pi.board import Board, Placement
from tantrix_pi.game import Game, IllegalMove, bag_empty_at
from tantrix_pi.grid import fmt, neighbours
from tantrix_pi.i18n import _, colour_name, listing, ngettext, player_name
from tantrix_pi.live.store import Event, Move
from tantrix_pi.live.tracker import Change, Commit, Unsure
from tantrix_pi.solitaire import COLOUR, Draw, Solitaire
from tantrix_pi.tiles import ALL_NUMBERS

log = logging.getLogger("tantrix_pi.live")

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

    added: list[Move] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


class Referee:
    """Judges commits for one game; rebuilt from the stored board and moves after a restart.

    The physical board (`board`) holds every tile on the table, an illegal one included, and is what
    placements are judged against. In a game, the legal moves are also played on the rules engine's
    `Game`, which says whose turn it is ("fills, one free move, fills", hands unknown) and the result.
    """

    def __init__(self, setup: Setup, board: Board | None = None, moves: list[Move] = (),
                 turn_ends: list[int] = ()) -> None:
        """`turn_ends`: after which move (seq) a player ended the turn with the button, in order."""
        self.setup = setup
        self.board = board.copy() if board is not None else Board()
        self.moves = list(moves)
        self.turn_ends = list(turn_ends)
        self._rebuild_game()
        self.forced_said = self._forced_key(rules.forced_space_report(self.board))
        self.bag_was_empty = self.bag_empty
        self.scores_said = self.scores()
        self.over = self._finished()
        self.end_said = self._solo_over()
        """A Solitaire's or a Four lines / loops' end has been announced (until a tile is taken off again)."""
        self.draws: list[Draw] = []
        """A Solitaire's draws earned by the commit being judged."""

    # -- state ------------------------------------------------------------------------------------
    @property
    def bag_empty(self) -> bool:
        if self.solo is not None:
            return self.solo.bag_empty
        return self.setup.is_game and len(self.board) >= self.setup.bag_empty_at

    @property
    def four(self) -> str | None:
        """"lines" or "loops" in Four lines / Four loops, else None."""
        return FOUR_MODES.get(self.setup.mode)

    @property
    def next_seq(self) -> int:
        return max((m.seq for m in self.moves), default=0) + 1

    def _finished(self) -> bool:
        return self.setup.is_game and len(self.board) == len(ALL_NUMBERS)

    def _solo_over(self) -> bool:
        """A Solitaire with all its tiles down, or Four lines / loops with all 56."""
        if self.solo is not None:
            return self.solo.outcome() is not None
        return self.four is not None and len(self.board) == len(ALL_NUMBERS)

    @staticmethod
    def _forced_key(report) -> tuple:
        return tuple((f.cell, f.needs) for f in report)

    # -- judging ----------------------------------------------------------------------------------
    def unsure(self, u: Unsure) -> Ruling:
        """Say which tiles cannot be read; nothing is judged until they can."""
        where = [fmt(c) for c in u.cells] + [_("image position ({x:.0f},{y:.0f})").format(x=x, y=y)
                                             for x, y in u.where]
        text = ngettext("Can't read the tile at {where}: waiting for a clear view.",
                        "Can't read the tiles at {where}: waiting for a clear view.", len(where)).format(
            where=listing(where))
        return Ruling(events=[Event("unsure", text, {"cells": [list(c) for c in u.cells],
                                                      "px": [list(p) for p in u.where]})])

    def commit(self, c: Commit) -> Ruling:
        """Judge every change of a commit against the board before it, in an order a player could have played."""
        out = Ruling()
        self.draws = []
        before = self.board
        work = before.copy()
        placed = [ch.after for ch in c.changes if ch.kind == "placed"]
        for ch in c.changes:
            if ch.kind == "removed":
                self._removed(ch, work, out)
            elif ch.kind in ("turned", "moved", "corrected"):
                self._changed(ch, work, out)
        for p in self._play_order(work, placed):
            self._placed(p, work, out)
        assert work == c.board, "the referee's board follows the tracker's"
        self.board = work
        self._after(out)
        return out

    def _play_order(self, board: Board, placed: list[Placement]) -> list[Placement]:
        """Placements of one commit in an order each touches the board (forced fills first)."""
        todo, order, cells = list(placed), [], set(board.cells)
        while todo:
            forced = set(rules.forced_spaces(Board(q for q in board if q.cell in cells))) if cells else set()
            touching = [p for p in todo if not cells or any(n in cells for n in neighbours(p.cell))]
            pool = [p for p in touching if p.cell in forced] or touching or todo
            p = min(pool, key=lambda p: (p.r, p.q))
            todo.remove(p)
            order.append(p)
            cells.add(p.cell)
        return order

    @property
    def turn(self) -> str | None:
        """The colour of the player to move (None outside a game)."""
        return self.game.turn if self.game is not None else None

    def _rebuild_game(self) -> None:
        """The rules engine's game (or Solitaire) from the legal moves in order (after a restart, a removal or a
        change)."""
        self.game = Game(self.setup.players) if self.setup.is_game else None
        self.solo = Solitaire() if self.setup.mode == "solitaire" else None
        if self.solo is not None:
            for m in self.moves:
                if m.legal:
                    try:
                        self.solo.push(m.placement)
                    except IllegalMove:  # legal when played, not after a tile before it was taken off
                        log.info("move %d (%s) stays out of the Solitaire", m.seq, m.placement)
        if self.game is None:
            return
        ends = list(self.turn_ends)
        for m in self.moves:
            if m.legal:
                try:
                    self.game.push(m.placement)
                except IllegalMove:  # legal on the table with an illegal tile beside it: not in the game
                    log.info("move %d (%s) stays out of the game record", m.seq, m.placement)
            while ends and ends[0] == m.seq:
                ends.pop(0)
                try:
                    self.game.end_turn()
                except IllegalMove:
                    log.info("an end of turn after move %d no longer applies", m.seq)

    # -- the buttons ------------------------------------------------------------------------------
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
            return Ruling(events=[Event("refused", text, {"player": player,
                                                           "violations": violations_data(e.violations)})])
        after = self.moves[-1].seq if self.moves else 0
        self.turn_ends.append(after)
        text = _("{player} ends the turn: {next} to play.").format(player=player_name(player), next=player_name(nxt))
        return Ruling(events=[Event("end_turn", text, {"player": player, "after": after, "next": nxt})])

    def undo(self) -> Ruling:
        """The back button: the camera decides what lies on the table, so say which tile to take off."""
        if not self.moves:
            return Ruling(events=[Event("hint", _("Nothing to undo: no tile has been played."), {})])
        p = self.moves[-1].placement
        return Ruling(events=[Event("hint", _("To undo, take tile {tile} off {cell}.").format(
            tile=p.tile, cell=fmt(p.cell)), {"tile": p.tile, "cell": list(p.cell)})])

    def _placed(self, p: Placement, work: Board, out: Ruling) -> None:
        forced = p.cell in rules.forced_spaces(work)
        violations = self._violations(work, p)
        player = None
        if self.game is not None:
            player = self.game.turn
            if not violations:
                try:
                    player = self.game.push(p).move.player
                except IllegalMove as e:
                    violations = list(e.violations)
        elif self.solo is not None and not violations:
            try:
                self.draws.append(self.solo.push(p))
            except IllegalMove as e:
                violations = list(e.violations)
        work.place(p)
        move = Move(self.next_seq, player, p, not violations)
        self.moves.append(move)
        out.added.append(move)
        data = {"tile": p.tile, "cell": list(p.cell), "rot": p.rot, "player": player, "forced": forced}
        facts = {"tile": p.tile, "cell": fmt(p.cell)}
        if violations:
            text = (_("Illegal: tile {tile} at {cell} (forced space): {reasons}. Take it back.") if forced
                    else _("Illegal: tile {tile} at {cell}: {reasons}. Take it back."))
            out.events.append(Event("illegal", text.format(**facts, reasons=reasons_text(violations)),
                                    {**data, "violations": violations_data(violations)}))
            return
        if player:
            text = (_("{player} plays tile {tile} at {cell} (forced space).") if forced
                    else _("{player} plays tile {tile} at {cell}.")).format(**facts, player=player_name(player))
        else:
            text = (_("Placed: tile {tile} at {cell} (forced space).") if forced
                    else _("Placed: tile {tile} at {cell}.")).format(**facts)
        out.events.append(Event("placed", text, data))

    def _violations(self, board: Board, p: Placement) -> list:
        if self.setup.is_game:
            return rules.why_illegal(board, p, bag_empty=self.bag_empty_with(board))
        if self.setup.mode == "gobble":  # touch two tiles and match; no restrictions
            from tantrix_pi.puzzles import gobble_why_illegal

            return [v for v in gobble_why_illegal(board, p) if v.rule not in (rules.CELL_OCCUPIED, rules.TILE_PLACED)]
        # puzzles and free play: only the golden rule is judged tile by tile
        return [v for v in rules.why_illegal(board, p, bag_empty=True) if v.rule == rules.GOLDEN_RULE]

    def bag_empty_with(self, board: Board) -> bool:
        return self.setup.is_game and len(board) >= self.setup.bag_empty_at

    def _removed(self, ch: Change, work: Board, out: Ruling) -> None:
        p = ch.before
        work.remove(p.cell)
        move = next((m for m in reversed(self.moves) if m.placement == p), None)
        last = bool(self.moves) and move is self.moves[-1]
        if move is not None:
            self.moves.remove(move)
            out.removed.append(move.seq)
            if move.legal:
                self._rebuild_game()
        kind = "taken_back" if last else "removed"
        text = (_("Tile {tile} taken back from {cell}.") if last
                else _("Tile {tile} was removed from {cell}: it was not the last tile played."))
        out.events.append(Event(kind, text.format(tile=p.tile, cell=fmt(p.cell)),
                                {"tile": p.tile, "cell": list(p.cell)}))

    def _changed(self, ch: Change, work: Board, out: Ruling) -> None:
        a, b = ch.before, ch.after
        work.remove(a.cell)
        for i, m in enumerate(self.moves):
            if m.placement == a:
                self.moves[i] = Move(m.seq, m.player, b, m.legal)
                out.removed.append(m.seq)
                out.added.append(self.moves[i])
        violations = [] if ch.kind == "corrected" else self._violations(work, b)
        work.place(b)
        self._rebuild_game()
        data = {"tile": b.tile, "cell": list(b.cell), "rot": b.rot, "was": a.to_dict()}
        facts = {"tile": b.tile, "cell": fmt(b.cell), "was": fmt(a.cell), "was_tile": a.tile}
        if ch.kind == "corrected":
            text = (_("Correction: the tile at {cell} is tile {tile}.") if a.tile == b.tile
                    else _("Correction: the tile at {cell} is tile {tile}, not tile {was_tile}."))
            out.events.append(Event("corrected", text.format(**facts), data))
            return
        if violations:
            text = (_("Illegal: tile {tile} at {cell} turned: {reasons}.") if ch.kind == "turned"
                    else _("Illegal: tile {tile} moved from {was} to {cell}: {reasons}."))
            out.events.append(Event("illegal", text.format(**facts, reasons=reasons_text(violations)),
                                    {**data, "violations": violations_data(violations)}))
        else:
            text = (_("Tile {tile} at {cell} turned.") if ch.kind == "turned"
                    else _("Tile {tile} moved from {was} to {cell}."))
            out.events.append(Event(ch.kind, text.format(**facts), data))

    def _after(self, out: Ruling) -> None:
        """Events about the whole board: forced spaces, bag empty, scores, game over, puzzle verdict."""
        board = self.board
        report = rules.forced_space_report(board)
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
            out.events.append(Event("forced", text, {
                "spaces": [{"letter": f.letter, "cell": list(f.cell), "needs": list(f.needs), "fits": list(f.fits)}
                           for f in report]}))
        self.forced_said = key
        if self.setup.is_game:
            empty = self.bag_empty
            if empty and not self.bag_was_empty:
                out.events.append(Event("bag_empty", _("The bag is empty: the restrictions no longer apply."),
                                        {"tiles": len(board)}))
            self.bag_was_empty = empty
            scores = self.scores()
            if scores != self.scores_said:
                self.scores_said = scores
                out.events.append(Event("scores", _("Scores: {points}.").format(points=scoring.points_text(scores)),
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
            return {c: s.score for c, s in scoring.scores(self.board, self.setup.players).items()}
        if self.solo is not None:
            return {COLOUR: scoring.score(self.board, COLOUR).score}
        if self.four is not None:
            return scoring.four(self.board, self.four).tiles
        return {}

    def _solitaire_events(self) -> list[Event]:
        """The draws the player makes now, the bag running empty, and the score once all 14 tiles are down."""
        out = []
        tiles, bonus = sum(d.tiles for d in self.draws), sum(d.bonus for d in self.draws)
        data = {"tiles": tiles, "bonus": bonus, "bag": self.solo.bag}
        if tiles and bonus:
            draw = ngettext("draw {n} tile", "draw {n} tiles", tiles).format(n=tiles)
            text = _("Bonus draw for the filled forced space: {draw}.") if bonus == 1 else ngettext(
                "Bonus draws for {n} filled forced spaces: {draw}.",  # n >= 2: the forms of 2-4 and of 5 and more
                "Bonus draws for {n} filled forced spaces: {draw}.", bonus)
            out.append(Event("draw", text.format(n=bonus, draw=draw), data))
        elif tiles == 1:
            out.append(Event("draw", _("Draw a tile."), data))
        elif tiles:
            out.append(Event("draw", ngettext("Draw {n} tile.", "Draw {n} tiles.", tiles).format(n=tiles), data))
        if self.solo.bag_empty and not self.bag_was_empty:
            out.append(Event("bag_empty", _("The bag is empty: place the tiles you hold; a forced space that no tile "
                                            "fits may now be made."), {"tiles": len(self.board)}))
        self.bag_was_empty = self.solo.bag_empty
        over = self.solo.outcome()
        if over is not None and not self.end_said:
            s = over.score
            out.append(Event("solitaire_over", over.summary(), {"score": over.points, "line": s.line, "loop": s.loop,
                                                                "perfect": over.perfect}))
        self.end_said = over is not None
        return out

    def _four_events(self) -> list[Event]:
        """Four lines / Four loops: the score whenever it changes, and the final one once all 56 tiles are down."""
        out = []
        result = scoring.four(self.board, self.four)
        if result.tiles != self.scores_said:
            self.scores_said = result.tiles
            out.append(Event("scores", result.summary(), {"scores": result.tiles, "total": result.total,
                                                          "four": self.four}))
        over = len(self.board) == len(ALL_NUMBERS)
        if over and not self.end_said:
            from tantrix_pi.puzzles import solo_fault_data, solo_faults

            faults = solo_faults(self.board)
            text = _("All 56 tiles are down. {score}").format(score=result.summary())
            if faults:
                text = _("{text} It does not count: {faults}.").format(text=text, faults="; ".join(faults))
            out.append(Event("four_over", text, {"four": self.four, "total": result.total, "scores": result.tiles,
                                                 "faults": solo_fault_data(self.board)}))
        self.end_said = over
        return out

    def outcome(self) -> scoring.Outcome | None:
        """How the game ended (who won, why), None while it goes on or outside a game."""
        if not self.over:
            return None
        return scoring.outcome(self.board, self.setup.players, scoring.Termination.ALL_PLACED)

    def _game_over(self) -> Event:
        over = self.outcome()
        return Event("game_over", over.summary(), {"scores": over.player_scores, "winners": list(over.winners),
                                                   "termination": over.termination.value})

    def _puzzle_verdict(self) -> list[Event]:
        from tantrix_pi import puzzles

        puzzle = puzzles.puzzle(self.setup.puzzle)
        if len(self.board) < len(puzzle.tiles):
            return []
        verdict = puzzle.check(self.board)
        if verdict.solved:
            return [Event("solved", _("{puzzle} solved!").format(puzzle=puzzle.title), {"puzzle": self.setup.puzzle})]
        return [Event("not_solved", _("{puzzle} not solved: {reasons}.").format(
            puzzle=puzzle.title, reasons="; ".join(verdict.reasons)), {"puzzle": self.setup.puzzle})]


def new_game_event(game: int) -> Event:
    """What is said when game number `game` starts."""
    return Event("new_game", _("New game {game}: clear the table.").format(game=game), {"game": game})


def reasons_text(violations) -> str:
    """The reasons of a refusal, one after the other."""
    return "; ".join(v.message for v in violations)


def violations_data(violations) -> list[dict]:
    """The machine fields of each violation: its rule and cells (the words are in the event's text)."""
    return [{"rule": v.rule, "cells": [list(x) for x in v.cells]} for v in violations]

