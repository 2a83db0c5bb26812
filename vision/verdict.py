"""A verdict on the board in one photo: is the puzzle solved, what are the scores. `tantrix-pi check` / `score`
and the web page's `POST /api/check` / `/api/score` both answer through here, refusals included.

A photo whose board the detector doubts (`Detection.doubts`) gets no verdict (`Unsure`, exit code 3): a wrong
verdict is worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tantrix_pi.errors import EXIT_NO, EXIT_OK, EXIT_UNSURE, TantrixError
from tantrix_pi.grid import Cell
from tantrix_pi.i18n import _, ngettext, player_name
from tantrix_pi.tiles import COLOUR_NAMES


class Unsure(TantrixError):
    """The photo shows no tile, or tiles too doubtful to build a verdict on (exit code 3); `doubts` names them."""

    exit_code = EXIT_UNSURE

    def __init__(self, message: str, doubts=(), reason: str = "") -> None:
        super().__init__(message)
        self.doubts = tuple(doubts)
        self.reason = reason or message
        """Why, without the photo's name (for the overlay)."""

    def to_dict(self) -> dict:
        return {**super().to_dict(), "doubts": [
            {"kind": d.kind, "cell": list(d.cell) if d.cell is not None else None, "tile": d.tile,
             "pixel": [round(x, 1) for x in d.center_px], "detail": d.detail} for d in self.doubts]}


@dataclass
class Answer:
    """What `check` / `score` answer: the `--json` object, the text lines, what the overlay draws."""

    answer: dict
    lines: list[str]
    exit_code: int
    notes: list[str] = field(default_factory=list)
    paths: list[tuple[str, tuple[Cell, ...], bool]] = field(default_factory=list)
    """Scoring paths to draw: (colour, cells, is a loop)."""


def judgeable(det, name: str) -> None:
    """Raise Unsure naming every doubt of the photo `name`, or saying that no tile was found."""
    doubts = det.doubts()
    if det.tiles and not doubts:
        return
    # the doubts are the detector's own words (English until it gives them as codes)
    if det.tiles:
        reason = _("not sure enough to judge: {doubts}").format(doubts="; ".join(map(str, doubts)))
    elif det.loose:
        reason = ngettext("no board: only {n} loose tile", "no board: {n} loose tiles, none touching another "
                          "with matching colours", len(det.loose)).format(n=len(det.loose))
    else:
        reason = _("no tile found")
    raise Unsure(_("{path}: {reason}").format(path=name, reason=reason), doubts, reason)


def foreign_backs(det, goal) -> list[str]:
    """Why the puzzle `goal` cannot be solved, said before any face-down tile on the board is turned over: a back
    whose colour none of the puzzle's tiles has (Discovery 10's tiles have yellow, red and blue backs: a green
    or white back on its board is none of them)."""
    from tantrix_pi.grid import fmt
    from tantrix_pi.i18n import colour_name
    from tantrix_pi.tiles import TILES

    backs = {TILES[n].back for n in goal.tiles}
    return [_("the face-down tile at {cell} has a {colour} back: it is not one of {puzzle}'s tiles").format(
                cell=fmt(u.cell), colour=colour_name(u.back), puzzle=goal.title)
            for u in det.face_down
            if u.cell is not None and u.back is not None and u.back not in backs]  # a cell: on the board's grid


def check(det, goal, name: str) -> Answer:
    """Is the puzzle `goal` (a `puzzles.Puzzle`) solved by the board the detector read in photo `name`? A
    face-down tile on the board whose back is none of the puzzle's says no at once; any other doubt, no verdict."""
    foreign = foreign_backs(det, goal) if det.tiles else []
    if foreign:
        head = _("{puzzle}: not solved").format(puzzle=goal.title)
        answer = {"puzzle": goal.name, "solved": False, "reasons": foreign, "detection": det.to_dict()}
        return Answer(answer, [head, *(f"  {r}" for r in foreign)], EXIT_NO, [head, *foreign])
    judgeable(det, name)
    verdict = goal.check(det.board)
    head = (_("{puzzle}: solved") if verdict.solved else _("{puzzle}: not solved")).format(puzzle=goal.title)
    answer = {"puzzle": goal.name, "solved": verdict.solved, "reasons": list(verdict.reasons),
              "detection": det.to_dict()}
    return Answer(answer, [head, *(f"  {r}" for r in verdict.reasons)], EXIT_OK if verdict.solved else EXIT_NO,
                   [head, *verdict.reasons])


def score(det, colours: list[str], name: str) -> Answer:
    """The players' scores on the board the detector read in photo `name`, the winner named."""
    from tantrix_pi.scoring import outcome

    judgeable(det, name)
    over = outcome(det.board, colours)
    table = {c: over.scores[c] for c in colours}
    lines = [_("{player}: line {line}, loop {loop} -> {score}").format(player=player_name(c), line=s.line,
                                                                        loop=s.loop, score=s.score)
             for c, s in table.items()]
    paths = [(c, s.path.cells, s.path.loop) for c, s in table.items() if s.path is not None]
    answer = {"scores": {COLOUR_NAMES[c]: {"line": s.line, "loop": s.loop, "score": s.score}
                         for c, s in table.items()},
              "winners": [COLOUR_NAMES[w] for w in over.winners], "detection": det.to_dict()}
    return Answer(answer, [*lines, over.result()], EXIT_OK, [*lines, over.result()], paths)


def overlay(image: np.ndarray, det, notes=(), paths=()) -> np.ndarray:
    """The photo with what the detector saw, the notes on top and the scoring paths drawn."""
    from tantrix_pi.vision import overlay as draw

    img = draw.draw(image, det, notes)
    for colour, cells, loop in paths:
        draw.draw_path(img, det, cells, colour, loop)
    return img
