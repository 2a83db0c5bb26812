"""docs/live.md quotes the referee's timing numbers as the code has them: a name in backticks, then its value in
brackets (`tracker.OCCLUSION_PATIENCE` (30))."""

import re
from pathlib import Path

from tantrix_pi.live import presses, tracker

DOC = (Path(__file__).resolve().parents[1] / "docs" / "live.md").read_text()
CONSTANTS = {"tracker.REMOVAL_EXTRA": tracker.REMOVAL_EXTRA, "tracker.OCCLUSION_REACH": tracker.OCCLUSION_REACH,
             "tracker.OCCLUSION_PATIENCE": tracker.OCCLUSION_PATIENCE, "presses.PATIENCE": presses.PATIENCE,
             "tracker.TURN_SEEN": tracker.TURN_SEEN, "tracker.TURN_REACH": tracker.TURN_REACH,
             "tracker.HAND_BESIDE": tracker.HAND_BESIDE}
QUOTE = re.compile(r"`([\w.]+)`\s*\((\d+(?:\.\d+)?)\)")


def test_every_timing_number_the_doc_quotes_is_the_codes():
    quoted = [(name, float(value)) for name, value in QUOTE.findall(DOC) if name in CONSTANTS]
    assert {name for name, _ in quoted} == set(CONSTANTS)
    assert [(name, value) for name, value in quoted if value != CONSTANTS[name]] == []
