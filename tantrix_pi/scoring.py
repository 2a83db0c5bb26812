"""Lines and loops of each colour, player scores (docs/rules.md 2.6), who won (`Outcome`), Four lines / Four loops."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tantrix_pi.board import Board, Placement
from tantrix_pi.grid import Cell, neighbour, opposite
from tantrix_pi.i18n import _, colour_name, listing, player_name
from tantrix_pi.tiles import COLOURS


@dataclass(frozen=True)
class Path:
    """One line or loop of `colour`: its cells in path order (a loop starts at its smallest cell)."""

    colour: str
    cells: tuple[Cell, ...]
    loop: bool

    def __len__(self) -> int:
        return len(self.cells)


def _walk(cells: Mapping[Cell, Placement], start: Cell, out: int, colour: str) -> tuple[list[Cell], bool]:
    """Follow `colour` from `start` leaving through `out`: the cells passed and whether it came back."""
    passed = []
    cell = start
    while True:
        nxt = neighbour(cell, out)
        p = cells.get(nxt)
        back = opposite(out)
        if p is None or p.colour(back) != colour:
            return passed, False
        if nxt == start:
            return passed, True
        passed.append(nxt)
        out = p.info.other_end(back, p.rot)
        cell = nxt


def paths(board: Board, colour: str) -> list[Path]:
    """Every line and loop of `colour` on the board, longest first (ties: loops first, then by cells)."""
    cells = board.occupied
    seen: set[Cell] = set()
    out = []
    for start in sorted(cells):
        if start in seen:
            continue
        p = cells[start]
        edge = p.info.edges.find(colour)
        if edge < 0:
            continue
        one = (edge + p.rot) % 6
        a, b = sorted((one, p.info.other_end(one, p.rot)))  # the arc's ends as the tile lies, first direction first
        forward, closed = _walk(cells, start, a, colour)
        if closed:
            found = [start, *forward]
        else:
            backward, _ = _walk(cells, start, b, colour)
            found = [*reversed(backward), start, *forward]
            if found[-1] < found[0]:
                found.reverse()
        seen.update(found)
        out.append(Path(colour, tuple(found), closed))
    return sorted(out, key=lambda p: (-len(p), not p.loop, p.cells))


@dataclass(frozen=True)
class Score:
    """A colour's longest line, largest loop (in tiles), its score max(line, 2 x loop) and the path scored."""

    colour: str
    line: int
    loop: int
    score: int
    path: Path | None


def score(board: Board, colour: str) -> Score:
    """The score of one colour: the larger of its longest line and twice its largest loop."""
    found = paths(board, colour)
    line = max((p for p in found if not p.loop), key=len, default=None)
    loop = max((p for p in found if p.loop), key=len, default=None)
    n_line = len(line) if line else 0
    n_loop = len(loop) if loop else 0
    best = loop if loop and 2 * n_loop >= n_line else line
    return Score(colour, n_line, n_loop, max(n_line, 2 * n_loop), best)


def scores(board: Board, colours: Iterable[str] = COLOURS) -> dict[str, Score]:
    """Score of every colour asked for (default: all four)."""
    return {c: score(board, c) for c in colours}


class Termination(enum.Enum):
    """Why a game ended (python-chess's `Termination`)."""

    ALL_PLACED = "all-placed"
    """All 56 tiles are on the table (docs/rules.md 2.6)."""
    DEADLOCK = "deadlock"
    """The player to move has no legal placement at all: the game is drawn (docs/rules.md 2.4.2)."""
    COUNTED = "counted"
    """A board counted as it lies (a photo or a board file): the players say the game has ended."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended, as data: why, every colour's score, the players and who won (python-chess's `Outcome`)."""

    termination: Termination
    players: tuple[str, ...]
    """The players' colours in seating order."""
    scores: Mapping[str, Score]
    """The score of every colour (all four), players or not."""
    winners: tuple[str, ...]
    """The players with the highest score (several: a tie); none when the game is drawn."""
    stuck: str | None = None
    """The player to move who had no legal placement (deadlock only)."""

    @property
    def winner(self) -> str | None:
        """The one winner, or None for a tie or a draw."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def player_scores(self) -> dict[str, int]:
        """Each player's points, in seating order."""
        return {p: self.scores[p].score for p in self.players}

    def result(self) -> str:
        """Who won, in words: "Red wins", "A tie between Red and Blue" or "The game is drawn"."""
        names = [player_name(p) for p in self.winners]
        if not names:
            return _("The game is drawn")
        if len(names) == 1:
            return _("{player} wins").format(player=names[0])
        if len(names) == 2:
            return _("A tie between {player} and {other}").format(player=names[0], other=names[1])
        return _("A tie between {players} and {other}").format(players=listing(names[:-1]), other=names[-1])

    def summary(self) -> str:
        """One sentence with every player's points: "Game over: Red 20, Yellow 17. Red wins."."""
        points = points_text(self.player_scores)
        if self.termination is not Termination.DEADLOCK:
            return _("Game over: {points}. {result}.").format(points=points, result=self.result())
        if self.stuck:
            return _("Deadlock: {player} has no legal move; the game is drawn ({points}).").format(
                player=player_name(self.stuck), points=points)
        return _("Deadlock: no legal move is left; the game is drawn ({points}).").format(points=points)


def points_text(points: Mapping[str, int]) -> str:
    """Each player's points in seating order, as players read them: 'Red 12, Blue 9'."""
    return listing(_("{player} {points}").format(player=player_name(c), points=n) for c, n in points.items())


def outcome(board: Board, players: Iterable[str], termination: Termination = Termination.COUNTED,
            stuck: str | None = None) -> Outcome:
    """The outcome of `board` for `players`: the highest score among them wins (a deadlock is drawn)."""
    players = tuple(players)
    table = scores(board)
    best = max(table[p].score for p in players)
    won = () if termination is Termination.DEADLOCK else tuple(p for p in players if table[p].score == best)
    return Outcome(termination, players, table, won, stuck)


FOUR_VARIANTS = ("lines", "loops")
"""Four lines and Four loops (docs/rules.md section 5)."""


@dataclass(frozen=True)
class FourScore:
    """Four lines or Four loops: for each colour the path counted (its longest line, or largest loop), and the
    sum of their lengths in tiles."""

    variant: str
    """"lines" or "loops"."""
    paths: Mapping[str, Path | None]
    """The path counted for each of the four colours, None where the colour has no line (loop)."""

    @property
    def tiles(self) -> dict[str, int]:
        """The length in tiles counted for each colour."""
        return {c: len(p) if p is not None else 0 for c, p in self.paths.items()}

    @property
    def total(self) -> int:
        """The score: the sum over the four colours."""
        return sum(self.tiles.values())

    def summary(self) -> str:
        """One sentence: "Four lines: 23 (red 8, yellow 5, green 6, blue 4).", in the language of the moment."""
        counted = listing(_("{colour} {n}").format(colour=colour_name(c), n=n) for c, n in self.tiles.items())
        if self.variant == "loops":
            return _("Four loops: {total} ({counted}).").format(total=self.total, counted=counted)
        return _("Four lines: {total} ({counted}).").format(total=self.total, counted=counted)


def four(board: Board, variant: str) -> FourScore:
    """The Four lines (variant "lines") or Four loops ("loops") score of `board`."""
    if variant not in FOUR_VARIANTS:
        raise ValueError(f"Four {variant!r}: the variants are lines and loops")
    loops = variant == "loops"
    return FourScore(variant, {c: next((p for p in paths(board, c) if p.loop == loops), None) for c in COLOURS})
