"""The live loop's background jobs: a puzzle hint or a menu calibration step, at most one at a time."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

import numpy as np

from tantrix_pi.board import Board
from tantrix_pi.i18n import _
from tantrix_pi.live.commands import CalibrationDone, Command, HintReady
from tantrix_pi.live.store import Notice

log = logging.getLogger("tantrix_pi.live")

Calibrate = Callable[[int, np.ndarray], tuple[bool, str]]
"""Runs menu calibration step i on a frame: (ok, what to tell the players)."""


class Jobs:
    """Slow work beside the loop, on a thread, one job at a time: a solver hint (given `hint_s` seconds) or a
    menu calibration step (`calibrate`, run on the first still frame after it is asked for). The answer comes
    back through `answers` (the loop's command queue) as a HintReady or a CalibrationDone, also when the job
    fails, so the loop never waits for it; the loop calls `done()` when it takes the answer.

        jobs = Jobs(loop.commands, hint_s=20.0, calibrate=MenuCalibration(profile_path, detect))
        said = jobs.hint("discovery:10", board)  # "Thinking about a hint..."; later HintReady(event) is queued
    """

    def __init__(self, answers: queue.Queue[Command], hint_s: float = 20.0, calibrate: Calibrate | None = None):
        self.answers, self.hint_s, self.calibrate = answers, hint_s, calibrate
        self.running: str | None = None
        """The job running ("hint" or "calibrate"), or None."""
        self.step: int | None = None
        """A calibration step asked for, waiting for a still frame (the hand that pressed next may be in view)."""

    def hint(self, puzzle: str, board: Board) -> list[Notice]:
        """Ask the solver for a hint on `board` (the job keeps it: give a copy) towards `puzzle`; what to say
        meanwhile (nothing while a hint is already being thought about)."""
        from tantrix_pi.live.hints import hint_event

        if self.running == "hint":
            return []
        if self.running is not None:
            return [Notice("status", _("Busy calibrating: ask for a hint afterwards."), {})]
        timeout = self.hint_s
        self._start("hint", lambda: HintReady(hint_event(puzzle, board, timeout)),
                    lambda e: HintReady(Notice("hint", _("No hint: {error}").format(error=e), {})))
        return [Notice("status", _("Thinking about a hint..."), {"puzzle": puzzle})]

    def ask_calibration(self, step: int) -> str | None:
        """Run calibration step `step` on the next still frame; None, or why it cannot run."""
        if self.calibrate is None:
            return _("calibration is not installed")
        if self.running is not None:
            return _("busy with a hint: press next again")
        self.step = step
        return None

    def still(self, frame: np.ndarray) -> None:
        """A still frame while the menu calibrates: the step asked for (if any) runs on it."""
        if self.step is not None and self.running is None:
            step, calibrate, self.step = self.step, self.calibrate, None
            self._start("calibrate", lambda: CalibrationDone(*calibrate(step, frame)),
                        lambda e: CalibrationDone(False, str(e)))

    def forget_step(self) -> None:
        """The menu left calibration: a step asked for that has not run yet never will."""
        self.step = None

    def done(self) -> None:
        """The running job's answer has been taken: another may start."""
        self.running = None

    def _start(self, job: str, work: Callable[[], Command], failed: Callable[[Exception], Command]) -> None:
        def run() -> None:
            try:
                answer = work()
            except Exception as e:  # a failing job is reported, never kills the referee
                log.error("%s failed (%s: %s)", job, type(e).__name__, e, exc_info=True)
                answer = failed(e)
            self.answers.put(answer)

        self.running = job
        threading.Thread(target=run, name=job, daemon=True).start()
