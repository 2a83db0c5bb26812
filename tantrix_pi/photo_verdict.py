"""A verdict on the board in one photo: is the puzzle solved, what are the scores. `tantrix-pi check` / `score`
and the web page's `POST /api/check` / `/api/score` both answer through here, refusals included.

A photo whose board tiles the detector doubts gets no verdict (`Unsure`, exit code 3): a wrong verdict is
worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tantrix_pi.errors import EXIT_NO, EXIT_OK, EXIT_UNSURE, TantrixError
from tantrix_pi.grid import Cell
from tantrix_pi.tiles import COLOUR_NAMES


class Unsure(TantrixError):
    """The photo shows no tile, or tiles too doubtful to build a verdict on (exit code 3)."""

    exit_code = EXIT_UNSURE

    def __init__(self, message: str, note: str) -> None:
        super().__init__(message)
        self.note = note
        """What the overlay says about it."""


@dataclass
class Verdict:
    """What `check` / `score` answer: the `--json` object, the text lines, what the overlay draws."""

    answer: dict
    lines: list[str]
    exit_code: int
    notes: list[str] = field(default_factory=list)
    paths: list[tuple[str, tuple[Cell, ...], bool]] = field(default_factory=list)
    """Scoring paths to draw: (colour, cells, is a loop)."""


def where(cell: Cell, px) -> str:
    return f"({cell[0]},{cell[1]}) at pixel ({px[0]:.0f},{px[1]:.0f})"


def refuse_if_unsure(det, name: str, label: str) -> None:
    """Raise Unsure naming every doubtful board tile of the photo `name`."""
    doubts = [f"tile {t.placement.tile}? {where(t.placement.cell, t.center_px)} (confidence {t.confidence:.2f})"
              for t in det.unsure()]
    doubts += [f"unreadable tile at pixel ({u.center_px[0]:.0f},{u.center_px[1]:.0f}): {u.reason}"
               for u in det.unreadable]
    doubts += [f"face-down tile at pixel ({u.center_px[0]:.0f},{u.center_px[1]:.0f})"
               for u in det.face_down if u.reason == "face down"]
    if not det.tiles or doubts:
        reason = "not sure enough to judge: " + "; ".join(doubts) if det.tiles else "no tile found"
        raise Unsure(f"{name}: {reason}", f"{label}: {reason[:90]}")


def check(det, goal, name: str) -> Verdict:
    """Is the puzzle `goal` (a `puzzles.Puzzle`) solved by the board the detector read in photo `name`?"""
    refuse_if_unsure(det, name, "no verdict")
    verdict = goal.check(det.board)
    head = f"{goal.name}: {'solved' if verdict.solved else 'not solved'}"
    answer = {"puzzle": goal.name, "solved": verdict.solved, "reasons": list(verdict.reasons),
              "detection": det.to_dict()}
    return Verdict(answer, [head, *(f"  {r}" for r in verdict.reasons)], EXIT_OK if verdict.solved else EXIT_NO,
                   [head, *verdict.reasons])


def score(det, colours: list[str], name: str) -> Verdict:
    """The players' scores on the board the detector read in photo `name`, the winner named."""
    from tantrix_pi.scoring import scores

    refuse_if_unsure(det, name, "no scores")
    table = scores(det.board, colours)
    best = max(s.score for s in table.values())
    winners = [COLOUR_NAMES[c] for c, s in table.items() if s.score == best]
    result = ("winner: " if len(winners) == 1 else "tie: ") + ", ".join(winners)
    lines = [f"{COLOUR_NAMES[c]}: line {s.line}, loop {s.loop} -> {s.score}" for c, s in table.items()]
    paths = [(c, s.path.cells, s.path.loop) for c, s in table.items() if s.path is not None]
    answer = {"scores": {COLOUR_NAMES[c]: {"line": s.line, "loop": s.loop, "score": s.score}
                         for c, s in table.items()},
              "winners": winners, "detection": det.to_dict()}
    return Verdict(answer, [*lines, result], EXIT_OK, [*lines, result], paths)


def overlay(image: np.ndarray, det, notes=(), paths=()) -> np.ndarray:
    """The photo with what the detector saw, the notes on top and the scoring paths drawn."""
    from tantrix_pi.vision import overlay as draw

    img = draw.draw(image, det, notes)
    for colour, cells, loop in paths:
        draw.draw_path(img, det, cells, colour, loop)
    return img
