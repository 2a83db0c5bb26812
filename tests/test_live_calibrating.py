"""The menu's calibration steps as the live loop runs them: on one camera frame, saved to the profile."""

from live_fakes import B, detect_frame, frame_of
from test_calibration_table import SPEC, photo

from tantrix_pi.calibration.profile import Profile
from tantrix_pi.live.calibrating import MenuCalibration


def test_the_table_must_be_clear_first(tmp_path):
    calibrate = MenuCalibration(tmp_path / "profile.toml", detect_frame)
    assert calibrate(0, frame_of(B((7, 0, 0, 0), (8, 1, 0, 0)))) == (False, "2 tiles still on the table")
    assert calibrate(0, frame_of(B())) == (True, "table clear")
    assert not (tmp_path / "profile.toml").exists()


def test_the_sheet_step_saves_the_table_plane_or_says_why_not(tmp_path):
    path = tmp_path / "profile.toml"
    calibrate = MenuCalibration(path, spec=SPEC)
    ok, note = calibrate(1, photo(with_sheet=False)[0])
    assert not ok and "the sheet is not seen well enough" in note and not path.exists()
    ok, note = calibrate(1, photo()[0])
    assert ok and note.startswith("table seen: ")
    assert Profile.load(path).table is not None


def test_the_detector_follows_the_profile_file(tmp_path, monkeypatch):
    import os

    import numpy as np

    from tantrix_pi import vision
    from tantrix_pi.live.service import make_detector

    got = []
    monkeypatch.setattr(vision, "detect", lambda image, profile=None, on_board=(), lying=(): got.append(profile))
    path = tmp_path / "profile.toml"
    detect = make_detector("", follow=path)
    image = np.zeros((8, 8, 3), np.uint8)
    detect(image)
    assert got == [None]  # no calibration yet: the detector's defaults
    Profile(path=path).save(path)
    detect(image)
    assert isinstance(got[-1], Profile)  # the menu saved a step: used from the next frame
    first = got[-1]
    path.write_text("[camera\n")
    os.utime(path, ns=(1, 1))  # a new time stamp, whatever the clock's resolution
    detect(image)
    assert got[-1] is first  # a damaged file: the last good calibration stays
