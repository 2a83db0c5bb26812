"""docs/vision.md quotes the detector's tuning numbers as vision/config.py has them (they had drifted: "0.86-1.28
widths" for a spacing of 0.88-1.16, "within three cells" for join_cells 2, a `coarse_side` no longer there).

The doc writes a tuning number as its name in backticks, then its value in brackets: `GridConfig.spacing`
(0.88-1.16), `FindConfig.min_width_px` (18 px), `CONFIDENT` (0.8). A bare field name works when one stage has it.
"""

import re
from dataclasses import fields
from pathlib import Path

import pytest

from tantrix_pi.vision import detection, photo
from tantrix_pi.vision.config import CONFIG

DOC = (Path(__file__).resolve().parents[1] / "docs" / "vision.md").read_text()
CONSTANTS = {"CONFIDENT": detection.CONFIDENT, "photo.MAX_ASPECT": photo.MAX_ASPECT}
STAGES = {type(getattr(CONFIG, f.name)).__name__: getattr(CONFIG, f.name) for f in fields(CONFIG)}
QUOTE = re.compile(r"`([A-Za-z_][\w.]*)`\s*\((\d[^)]*)\)")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
MUST_QUOTE = {"GridConfig.spacing", "GridConfig.direction_tolerance", "GridConfig.join_cells", "GridConfig.most_tilt",
              "FindConfig.coarse_sides", "FindConfig.fine_px", "FindConfig.min_width_px", "ReadConfig.sixfold",
              "ReadConfig.face_up_bands", "GridConfig.missing_face", "ReadConfig.least_band_chroma",
              "ReadConfig.back_edges", "DecodeConfig.margin_scale", "DecodeConfig.fit_scale",
              "DecodeConfig.adapt_min_tiles", "CONFIDENT", "photo.MAX_ASPECT"}


def names(stage) -> set[str]:
    return {f.name for f in fields(stage)}


def value_of(name: str):
    """The value a quoted name stands for, and its full name; KeyError when the code has no such number."""
    if name in CONSTANTS:
        return CONSTANTS[name], name
    stage, _, field = name.rpartition(".")
    owners = [stage] if stage else [s for s, cfg in STAGES.items() if field in names(cfg)]
    if len(owners) != 1 or owners[0] not in STAGES or field not in names(STAGES[owners[0]]):
        raise KeyError(name)
    return getattr(STAGES[owners[0]], field), f"{owners[0]}.{field}"


def quotes() -> list[tuple[str, str]]:
    return QUOTE.findall(DOC)


@pytest.mark.parametrize(("name", "text"), quotes())
def test_each_number_the_doc_quotes_is_the_code_s(name, text):
    try:
        value, _ = value_of(name)
    except KeyError:
        pytest.fail(f"docs/vision.md quotes `{name}` ({text}), a number vision's code does not have")
    want = [float(v) for v in (value if isinstance(value, tuple) else (value,))]
    got = [float(n) for n in NUMBER.findall(text)][: len(want)]
    assert got == pytest.approx(want), f"docs/vision.md: `{name}` ({text}), the code has {value}"


def test_the_doc_quotes_the_numbers_that_shape_a_board():
    quoted = set()
    for name, _ in quotes():
        try:
            quoted.add(value_of(name)[1])
        except KeyError:
            continue
    assert MUST_QUOTE <= quoted, f"docs/vision.md no longer quotes {sorted(MUST_QUOTE - quoted)}"


def test_a_config_name_in_the_doc_is_one_the_code_has():
    # `coarse_side` was renamed `coarse_sides` in the code and not in the doc
    for stage, field in re.findall(r"`(\w+Config)\.(\w+)`", DOC):
        assert stage in STAGES and field in names(STAGES[stage]), f"docs/vision.md names `{stage}.{field}`"
