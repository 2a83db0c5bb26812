"""The loop's background jobs: one at a time, the answer (or the failure) back on the command queue."""

import queue
import threading

import numpy as np
import pytest
from live_fakes import B

from tantrix_pi.live import hints
from tantrix_pi.live.commands import CalibrationDone, HintReady
from tantrix_pi.live.jobs import Jobs
from tantrix_pi.live.store import Notice

FRAME = np.zeros((4, 4, 3), np.uint8)


@pytest.fixture
def held_hint(monkeypatch):
    """The solver's hint made to wait until the test releases it (set the event), then answer `seen`."""
    release, seen = threading.Event(), []

    def hint_event(puzzle, board, timeout):
        seen.append((puzzle, board, timeout))
        assert release.wait(10)
        return Notice("hint", "Hint: here.", {})

    monkeypatch.setattr(hints, "hint_event", hint_event)
    return release, seen


def test_a_hint_is_said_at_once_and_its_answer_comes_through_the_queue(held_hint):
    release, seen = held_hint
    answers = queue.Queue()
    jobs = Jobs(answers, hint_s=7.0)
    said = jobs.hint("discovery:3", B((1, 0, 0, 0)))
    assert [e.text for e in said] == ["Thinking about a hint..."]
    assert jobs.hint("discovery:3", B((1, 0, 0, 0))) == []  # asked again while thinking: nothing new
    assert answers.empty()  # the loop goes on meanwhile
    release.set()
    assert answers.get(timeout=10) == HintReady(Notice("hint", "Hint: here.", {}))
    assert seen == [("discovery:3", B((1, 0, 0, 0)), 7.0)]  # one solver run, with the configured time


def test_one_job_at_a_time(held_hint):
    release, _ = held_hint
    answers = queue.Queue()
    jobs = Jobs(answers, calibrate=lambda step, frame: (True, ""))
    jobs.hint("discovery:3", B())
    assert jobs.ask_calibration(0) == "busy with a hint: press next again"
    release.set()
    answers.get(timeout=10)
    jobs.done()
    assert jobs.ask_calibration(0) is None
    jobs.still(FRAME)
    assert [e.text for e in jobs.hint("discovery:3", B())] == ["Busy calibrating: ask for a hint afterwards."]
    assert answers.get(timeout=10) == CalibrationDone(True, "")


def test_a_calibration_step_runs_on_a_still_frame_unless_forgotten():
    answers, steps = queue.Queue(), []
    jobs = Jobs(answers, calibrate=lambda step, frame: steps.append(step) or (False, "no sheet in view"))
    jobs.still(FRAME)  # nothing asked: nothing runs
    assert jobs.running is None
    jobs.ask_calibration(1)
    jobs.forget_step()  # the menu left calibration before a still frame came
    jobs.still(FRAME)
    assert jobs.running is None
    jobs.ask_calibration(2)
    jobs.still(FRAME)
    assert answers.get(timeout=10) == CalibrationDone(False, "no sheet in view") and steps == [2]


def test_a_failing_job_comes_back_as_its_answer(monkeypatch, caplog):
    def broken(*_):
        raise RuntimeError("solver crashed")

    monkeypatch.setattr(hints, "hint_event", broken)
    answers = queue.Queue()
    jobs = Jobs(answers, calibrate=broken)
    jobs.hint("discovery:3", B())
    assert answers.get(timeout=10).event.text == "No hint: solver crashed"
    jobs.done()
    jobs.ask_calibration(0)
    jobs.still(FRAME)
    assert answers.get(timeout=10) == CalibrationDone(False, "solver crashed")
    assert "hint failed (RuntimeError: solver crashed)" in caplog.text


def test_no_calibration_installed_is_said():
    assert Jobs(queue.Queue()).ask_calibration(0) == "calibration is not installed"
