"""Solitaire as played (docs/rules.md section 5): tiles 1..14 drawn one at a time and placed touching and matching.

`Solitaire` is played like `Game`: `push(placement)` returns the draws the player makes next (or raises
`IllegalMove` naming every violation, changing nothing), `pop()` undoes, `outcome()` is the final score.
[our reading] of the rule's sentences, decided here and nowhere else:
- **Draws**: one tile at the start and one after each placement while the bag has tiles; each placement into
  a forced space earns one bonus draw, taken at once. The tiles drawn and not yet placed are the hand.
- **Must fill**: a placement that is not a fill is refused while a tile in the hand (the one placed
  included) fits an open forced space.
- **New forced spaces**: while the bag has tiles, a placement that makes forced spaces is refused unless
  each of them is fitted by a tile left in the hand; when no tile in the hand can be placed any other way,
  it is allowed. Once the bag is empty, forced spaces that no tile fills may be made.
- **The end**: all 14 tiles placed. The score is red's: twice its largest loop or its longest line,
  whichever is more; 28 (a red loop through all 14) is a perfect game.
With the hand unknown (a camera sees the table, not the hand) only what the table proves is refused: a
placed tile that would have filled an open forced space, or a forced space made that no tile still to come
fits although the placed tile had a place making none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tantrix_pi.board import Board, Placement
from tantrix_pi.game import MUST_FILL, NOT_IN_HAND, IllegalMove
from tantrix_pi.grid import Cell, fmt
from tantrix_pi.i18n import _, ngettext
from tantrix_pi.rules import (
    FORCED_NEIGHBOURS,
    Violation,
    fits,
    forced_space_report,
    forced_spaces,
    iter_legal_placements,
    why_illegal,
)
from tantrix_pi.scoring import Score, score

TILES = tuple(range(1, 15))
"""The tiles Solitaire is played with."""
COLOUR = "R"
"""The colour scored: a red loop through all 14 tiles is the goal."""
PERFECT = 2 * len(TILES)

# Rule names on top of those of tantrix_pi.rules and tantrix_pi.game.
TILE_SET = "solitaire-tiles"
UNFITTED_SPACE = "solitaire-unfitted-forced-space"


@dataclass(frozen=True)
class ToDraw:
    """What the player draws after a placement: `tiles` from the bag now, `bonus` of them for a filled forced
    space; `bag` tiles are left after that."""

    tiles: int
    bonus: int
    bag: int


@dataclass(frozen=True)
class SolitaireOutcome:
    """What a finished Solitaire scored: red's longest line, or twice its largest loop."""

    score: Score

    @property
    def points(self) -> int:
        return self.score.score

    @property
    def perfect(self) -> bool:
        """A red loop through all 14 tiles."""
        return self.points == PERFECT

    def summary(self) -> str:
        """One sentence with the score, as the referee says it."""
        path, points = self.score.path, self.points
        if path is None:
            return _("Solitaire over: there is no red line or loop, 0 points.")
        n = len(path)
        if self.perfect:
            return _("Solitaire over: a red loop through all {n} tiles scores {points}, a perfect game!").format(
                n=n, points=points)
        if path.loop:
            return ngettext("Solitaire over: the red loop of {n} tile scores {points}.",
                            "Solitaire over: the red loop of {n} tiles scores {points}.", n).format(n=n, points=points)
        return ngettext("Solitaire over: the red line of {n} tile scores {points}.",
                        "Solitaire over: the red line of {n} tiles scores {points}.", n).format(n=n, points=points)


@dataclass
class _State:
    hand: set[int] | None
    fills: int


class Solitaire:
    """A Solitaire in progress: the board, the fills made, and the hand if it is known."""

    def __init__(self, hand: Iterable[int] | None = None) -> None:
        """`hand`: the tiles drawn so far, when they are seen (None: unknown; the rules then judge the table only)."""
        self.board = Board()
        self.moves: list[Placement] = []
        """The placements in order."""
        self.fills = 0
        self.hand: set[int] | None = None
        self._history: list[_State] = []
        if hand is not None:
            for tile in hand:
                self.draw(tile)

    # -- state ---------------------------------------------------------------------------------
    @property
    def drawn(self) -> int:
        """Tiles the player has drawn, as the rules hand them out: one at the start, one per placement, one per
        fill, while the bag lasts."""
        return min(len(TILES), 1 + len(self.board) + self.fills)

    @property
    def bag(self) -> int:
        """Tiles still in the bag."""
        return len(TILES) - self.drawn

    @property
    def bag_empty(self) -> bool:
        return self.bag == 0

    def draw(self, tile: int) -> None:
        """The player drew `tile` (the hand becomes known)."""
        if tile not in TILES:
            raise IllegalMove([Violation(TILE_SET, _("Solitaire is played with tiles 1 to 14, not tile {tile}").format(
                tile=tile))])
        if tile in self.board.tiles or (self.hand is not None and tile in self.hand):
            raise IllegalMove([Violation(TILE_SET, _("tile {tile} was drawn already").format(tile=tile))])
        self.hand = (self.hand or set()) | {tile}

    def outcome(self) -> SolitaireOutcome | None:
        """The final score once all 14 tiles are down (a drawn tile always has some place touching and
        matching, so the game cannot stop sooner); None while it goes on."""
        if len(self.board) == len(TILES):
            return SolitaireOutcome(score(self.board, COLOUR))
        return None

    # -- play ----------------------------------------------------------------------------------
    def why_illegal(self, placement: Placement) -> list[Violation]:
        """Every reason `placement` may not be played now (empty: it may)."""
        p = placement
        if p.tile not in TILES:
            text = _("Solitaire is played with tiles 1 to 14, not tile {tile}")
            return [Violation(TILE_SET, text.format(tile=p.tile), (p.cell,))]
        out = why_illegal(self.board, p, bag_empty=True)  # touching and matching; the game's restrictions do not apply
        if self.hand is not None and p.tile not in self.hand and p.tile not in self.board.tiles:
            out.append(Violation(NOT_IN_HAND, _("tile {tile} has not been drawn").format(tile=p.tile), (p.cell,)))
        if out:
            return out
        held = self.hand if self.hand is not None else {p.tile}
        out += self._must_fill(p, held)
        unfitted = self._unfitted(p, held - {p.tile})
        if unfitted and not self._stuck_without(p, held):
            text = (_("tile {tile} makes {cell} a forced space that no tile left in the hand fits; that is allowed "
                      "only once the bag is empty") if self.hand is not None else
                    _("tile {tile} makes {cell} a forced space that no tile still to come fits; that is allowed only "
                      "once the bag is empty"))
            out += [Violation(UNFITTED_SPACE, text.format(tile=p.tile, cell=fmt(c)), (p.cell, c)) for c in unfitted]
        return out

    def push(self, placement: Placement) -> ToDraw:
        """Play `placement`; return what to draw now, or raise IllegalMove with every violation, changing nothing."""
        violations = self.why_illegal(placement)
        if violations:
            raise IllegalMove(violations, placement)
        fill = self.board.occupied_neighbours(placement.cell) >= FORCED_NEIGHBOURS
        before = self.drawn
        self._history.append(_State(None if self.hand is None else set(self.hand), self.fills))
        self.board.place(placement)
        self.moves.append(placement)
        if self.hand is not None:
            self.hand.discard(placement.tile)
        self.fills += fill
        tiles = self.drawn - before
        return ToDraw(tiles, min(int(fill), max(0, tiles - 1)), self.bag)

    def pop(self) -> Placement:
        """Undo the last placement and return it."""
        if not self._history:
            raise IndexError("no placement to undo")
        state = self._history.pop()
        last = self.moves.pop()
        self.board.remove(last.cell)
        self.hand, self.fills = state.hand, state.fills
        return last

    # -- the rules ------------------------------------------------------------------------------
    def _must_fill(self, p: Placement, held: set[int]) -> list[Violation]:
        """A placement that is no fill while a held tile fits an open forced space."""
        if self.board.occupied_neighbours(p.cell) >= FORCED_NEIGHBOURS:
            return []
        text = _("tile {tile} fits forced space {letter} at {cell}: it must go there first")
        return [Violation(MUST_FILL, text.format(tile=space.fits[0], letter=space.letter, cell=fmt(space.cell)),
                          (space.cell,))
                for space in forced_space_report(self.board, held) if space.fits]

    def _made(self, p: Placement) -> tuple[Board, list[Cell]]:
        """The board after `p` and the forced spaces `p` makes there (none once the bag is empty: they may be)."""
        after = self.board.copy()
        after.place(p)
        if self.bag_empty:
            return after, []
        return after, sorted(set(forced_spaces(after)) - set(forced_spaces(self.board)))

    def _unfitted(self, p: Placement, left: set[int]) -> list[Cell]:
        """Forced spaces `p` makes that none of `left` fits; with the hand unknown, none of the tiles to come."""
        after, made = self._made(p)
        if self.hand is None:
            left = set(TILES) - after.tiles
        return [c for c in made if not fits(after, c, left)]

    def _stuck_without(self, p: Placement, held: set[int]) -> bool:
        """True when no held tile had another placement keeping every rule: then a forced space nobody fits may
        be made. With the hand unknown only the placed tile is looked at, and only a placement that makes no
        forced space at all surely kept the rules."""
        for q in self._placements(held):
            if q == p or self._must_fill(q, held):
                continue
            after, made = self._made(q)
            if not made or (self.hand is not None and all(fits(after, c, held - {q.tile}) for c in made)):
                return False
        return True

    def _placements(self, tiles: Iterable[int]):
        """Every placement of `tiles` that touches and matches."""
        return iter_legal_placements(self.board, tiles, bag_empty=True)
