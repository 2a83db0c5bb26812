import numpy as np
import pytest

from tantrix_pi.calibration.profile import (
    COLOUR_NAMES,
    CameraModel,
    ColourCalibration,
    Profile,
    ProfileError,
    TablePlane,
    distort_pixels,
)

K = np.array([[900.0, 0.0, 645.0], [0.0, 905.0, 478.0], [0.0, 0.0, 1.0]])
DIST = np.array([-0.18, 0.04, 0.0, 0.0, 0.0])
SIZE = (1280, 960)


def full_profile() -> Profile:
    h = np.array([[2.1, 0.15, 640.0], [-0.12, 2.05, 470.0], [1e-5, 2e-5, 1.0]])
    return Profile(
        camera=CameraModel(K, DIST, SIZE, 0.12, 9, "2026-01-01T10:00:00Z"),
        table=TablePlane(h, 2.0, (-250.0, -180.0, 250.0, 180.0), SIZE, "2026-01-01T10:05:00Z",
                         {"corner_0": [1.0, 2.0, 640.0, 470.0]}),
        colour=ColourCalibration((1.2, 1.0, 0.8),
                                 {n: (50.0 + i, 10.0 * i, -5.0 * i) for i, n in enumerate(COLOUR_NAMES)},
                                 "2026-01-01T10:10:00Z"),
    )


def test_save_and_load_give_the_same_profile(tmp_path):
    p = full_profile()
    path = p.save(tmp_path / "sub" / "profile.toml")
    q = Profile.load(path)
    assert np.array_equal(q.camera.matrix, p.camera.matrix)
    assert np.array_equal(q.camera.dist, p.camera.dist)
    assert np.array_equal(q.table.homography, p.table.homography)
    assert q.table.view_mm == p.table.view_mm and q.table.reference == p.table.reference
    assert q.colour.prototypes == p.colour.prototypes and q.colour.white_balance == p.colour.white_balance
    assert q.camera.measured == "2026-01-01T10:00:00Z" and q.path == path


def test_sections_are_optional(tmp_path):
    Profile(colour=full_profile().colour).save(tmp_path / "p.toml")
    q = Profile.load(tmp_path / "p.toml")
    assert q.camera is None and q.table is None and q.colour is not None
    assert "camera not calibrated" in q.describe()
    image = np.zeros((10, 12, 3), np.uint8)
    assert q.undistort(image) is image
    with pytest.raises(ProfileError, match="table is not calibrated"):
        q.rectify(image)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace('format = "tantrix-pi-calibration/1"', 'format = "other/9"'), "'format'"),
        (lambda t: t.replace("rms_px = 0.12\n", ""), r"\[camera\] is missing 'rms_px'"),
        (lambda t: t.replace("dist = [", "dist = [1.0, "), r"\[camera\] 'dist'"),
        (lambda t: t.replace("px_per_mm = 2.0", "px_per_mm = -2.0"), r"\[table\] px_per_mm"),
        (lambda t: t.replace("black = [", "grey = ["), r"\[colour.lab\] is missing 'black'"),
        (lambda t: t.replace("[camera]", "[camera"), "not valid TOML .*calibrate again or delete it"),
    ],
)
def test_bad_profiles_name_the_field(tmp_path, edit, message):
    path = full_profile().save(tmp_path / "p.toml")
    path.write_text(edit(path.read_text()))
    with pytest.raises(ProfileError, match=message) as e:
        Profile.load(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)
    assert e.value.exit_code == 2


def test_missing_profile_says_what_to_do(tmp_path):
    with pytest.raises(ProfileError, match="no such calibration profile: run `tantrix-pi calibrate camera`"):
        Profile.load(tmp_path / "none.toml")
    assert Profile.load_or_new(tmp_path / "none.toml").camera is None


def test_table_and_image_points_round_trip():
    p = full_profile()
    mm = np.array([[0.0, 0.0], [120.0, -80.0], [-200.0, 150.0]])
    px = p.table_to_image(mm)
    assert np.allclose(p.image_to_table(px), mm, atol=1e-3)
    assert np.allclose(p.rectified_to_image(p.image_to_rectified(px)), px, atol=1e-3)


def test_rectified_view_puts_table_points_where_the_scale_says():
    p = full_profile()
    image = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    spots = np.array([[0.0, 0.0], [150.0, -100.0], [-180.0, 120.0]])
    for x, y in p.table_to_image(spots):
        image[int(round(y)) - 2:int(round(y)) + 3, int(round(x)) - 2:int(round(x)) + 3] = 255
    top = p.rectify(image)
    assert top.shape == (720, 1000)
    for mm in spots:
        expected = (mm - [-250.0, -180.0]) * 2.0
        x0, y0 = (expected - 12).astype(int)
        window = top[y0:y0 + 25, x0:x0 + 25].astype(float)
        ys, xs = np.nonzero(window > 60)
        w = window[ys, xs]
        centre = np.array([x0 + (xs * w).sum() / w.sum(), y0 + (ys * w).sum() / w.sum()])
        assert np.linalg.norm(centre - expected) < 1.5


def test_undistort_straightens_a_distorted_point():
    p = Profile(camera=full_profile().camera)
    image = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    corner = np.array([[100.0, 80.0]])
    x, y = distort_pixels(corner, K, DIST)[0]
    image[int(round(y)) - 2:int(round(y)) + 3, int(round(x)) - 2:int(round(x)) + 3] = 255
    flat = p.undistort(image)
    ys, xs = np.nonzero(flat > 60)
    assert abs(xs.mean() - 100) < 1.5 and abs(ys.mean() - 80) < 1.5
    with pytest.raises(ProfileError, match="1280x960 images, this one is 12x10"):
        p.undistort(np.zeros((10, 12), np.uint8))


def test_white_balance_applies_the_gains_to_red_green_blue():
    p = Profile(colour=full_profile().colour)
    bgr = np.full((4, 4, 3), (100, 150, 100), np.uint8)
    out = p.white_balance(bgr)
    assert tuple(out[0, 0]) == (80, 150, 120)


def test_rectify_fills_what_the_camera_does_not_see_with_the_table_colour():
    p = full_profile()
    wide = Profile(camera=p.camera, table=TablePlane(p.table.homography, 1.0, (-900.0, -900.0, 900.0, 900.0), SIZE,
                                                     p.table.measured))
    top = wide.rectify(np.full((SIZE[1], SIZE[0], 3), (90, 140, 200), np.uint8))
    assert (top[0, 0] == (90, 140, 200)).all() and (top[-1, -1] == (90, 140, 200)).all()


def test_nearest_prototype_and_its_margin():
    colour = full_profile().colour
    name, distance, margin = colour.nearest((51.5, 11.0, -4.0))
    assert name == "Y" and distance == pytest.approx(1.5)
    second = min(np.linalg.norm(np.array((51.5, 11.0, -4.0)) - p) for n, p in colour.prototypes.items() if n != "Y")
    assert margin == pytest.approx(second - distance)
