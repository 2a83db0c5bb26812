"""hardware.md's table of camera heights is the one scripts/mounting.py computes."""

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_heights_table_in_hardware_md_matches_the_computation():
    mounting = runpy.run_path(str(ROOT / "scripts" / "mounting.py"))
    doc = (ROOT / "hardware.md").read_text()
    for line in mounting["HEADER"] + mounting["rows"]():
        assert line in doc, f"hardware.md is out of date; run scripts/mounting.py: {line}"


def test_heights_follow_the_geometry():
    m = runpy.run_path(str(ROOT / "scripts" / "mounting.py"))
    # a 90 degree field of view spans twice the height; a narrower one needs more height
    assert abs(m["height_for_field"](1000, 90) - 500) < 1e-9
    assert m["height_for_field"](616, 41) > m["height_for_field"](616, 67)
    assert abs(m["pinhole"](2 * 6.0, 6.0) - 90) < 1e-9
