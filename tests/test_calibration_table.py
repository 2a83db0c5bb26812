import json

import cv2
import numpy as np
import pytest
from charuco_render import pose_looking_at, render

from tantrix_pi.calibration.charuco import BoardSpec, find
from tantrix_pi.calibration.profile import CameraModel, Profile
from tantrix_pi.calibration.table import WITNESS_DICTIONARY, TableError, measure, movement
from tantrix_pi.cli import main

SPEC = BoardSpec()
SIZE = (1024, 768)
K = np.array([[880.0, 0.0, 522.0], [0.0, 886.0, 379.0], [0.0, 0.0, 1.0]])
DIST = np.array([-0.12, 0.03, 0.0, 0.0, 0.0])
CAMERA = CameraModel(K, DIST, SIZE, 0.1, 9, "2026-01-01T00:00:00Z")
PX_MM = 5
TABLE_MM = (700, 500)
BOARD_AT_MM = (300, 200)
MARKERS_AT_MM = [(40, 40), (620, 40), (40, 420), (620, 420)]


def table_texture(with_sheet=True):
    """A grey table, the sheet at BOARD_AT_MM, four witness markers near the corners."""
    w, h = TABLE_MM
    tex = np.full((h * PX_MM, w * PX_MM), 140, np.uint8)
    if with_sheet:
        bw, bh = (round(x * PX_MM) for x in SPEC.size_mm)
        x0, y0 = BOARD_AT_MM[0] * PX_MM, BOARD_AT_MM[1] * PX_MM
        tex[y0 - 20 * PX_MM:y0 + bh + 20 * PX_MM, x0 - 20 * PX_MM:x0 + bw + 20 * PX_MM] = 250
        tex[y0:y0 + bh, x0:x0 + bw] = SPEC.board().generateImage((bw, bh), marginSize=0, borderBits=1)
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, WITNESS_DICTIONARY))
    for i, (mx, my) in enumerate(MARKERS_AT_MM):
        tex[(my - 5) * PX_MM:(my + 45) * PX_MM, (mx - 5) * PX_MM:(mx + 45) * PX_MM] = 250
        tex[my * PX_MM:(my + 40) * PX_MM, mx * PX_MM:(mx + 40) * PX_MM] = \
            cv2.aruco.generateImageMarker(d, i, 40 * PX_MM, borderBits=1)
    return cv2.GaussianBlur(tex, (0, 0), 1.0)


def photo(with_sheet=True, nudge=0.0, seed=0):
    """The table seen from 780 mm, tilted; `nudge` turns the camera by that many radians (about 9 px per 0.01)."""
    rvec, tvec = pose_looking_at(TABLE_MM, (nudge, 0.0), 780, (8, -6), 20)
    return render(table_texture(with_sheet), PX_MM, K, DIST, rvec, tvec, SIZE, np.random.default_rng(seed)), rvec, tvec


@pytest.fixture(scope="module")
def scene():
    image, rvec, tvec = photo()
    return image, rvec, tvec, Profile(camera=CAMERA, table=measure(image, SPEC, CAMERA))


def true_px(points_mm, rvec, tvec):
    obj = np.concatenate([np.asarray(points_mm, float), np.zeros((len(points_mm), 1))], 1)
    return cv2.projectPoints(obj, rvec, tvec, K, DIST)[0].reshape(-1, 2)


def test_table_frame_is_metric_unmirrored_and_faces_image_right(scene):
    _, rvec, tvec, profile = scene
    pts = np.array([[100.0, 100.0], [600.0, 120.0], [350.0, 420.0], [80.0, 400.0]])
    mm = profile.image_to_table(true_px(pts, rvec, tvec))
    for i in range(4):
        for j in range(i + 1, 4):
            assert np.linalg.norm(mm[i] - mm[j]) == pytest.approx(np.linalg.norm(pts[i] - pts[j]), abs=1.0)
    cross = lambda a, b: a[0] * b[1] - a[1] * b[0]  # noqa: E731
    assert np.sign(cross(mm[1] - mm[0], mm[2] - mm[0])) == np.sign(cross(pts[1] - pts[0], pts[2] - pts[0]))
    right = profile.table_to_image([[100.0, 0.0]]) - profile.table_to_image([[0.0, 0.0]])
    assert right[0, 0] > 0 and abs(right[0, 1]) < 0.05 * right[0, 0]
    centre = np.array(BOARD_AT_MM) + np.array(SPEC.size_mm) / 2
    assert np.allclose(profile.image_to_table(true_px([centre], rvec, tvec)), 0, atol=1.0)


def test_rectified_view_is_square_at_the_stated_scale(scene):
    image, _, _, profile = scene
    top = profile.rectify(image)
    assert (top.shape[1], top.shape[0]) == profile.table.rectified_size
    found = find(top, SPEC)
    assert len(found.ids) == SPEC.corners
    # Fit board mm -> rectified px: a similarity with scale px_per_mm, no shear.
    affine, _ = cv2.estimateAffine2D(np.ascontiguousarray(found.object_points[:, :2]), found.image_points)
    sx, sy = np.linalg.norm(affine[:, 0]), np.linalg.norm(affine[:, 1])
    assert sx == pytest.approx(profile.table.px_per_mm, rel=0.005)
    assert sy == pytest.approx(profile.table.px_per_mm, rel=0.005)
    assert abs(np.dot(affine[:, 0], affine[:, 1]) / (sx * sy)) < 0.005


def test_nothing_moved_then_the_camera_moved(scene):
    _, _, _, profile = scene
    again, _, _ = photo(seed=5)
    held = movement(profile, again, SPEC)
    assert not held.moved and held.seen == SPEC.corners + 4
    nudged, _, _ = photo(nudge=0.006, seed=6)
    moved = movement(profile, nudged, SPEC)
    assert moved.moved and "moved" in moved.describe()


def test_witness_markers_tell_a_move_with_the_sheet_gone(scene):
    _, _, _, profile = scene
    play, _, _ = photo(with_sheet=False, seed=7)
    held = movement(profile, play)
    assert held.seen == 4 and not held.moved
    nudged, _, _ = photo(with_sheet=False, nudge=0.006, seed=8)
    assert movement(profile, nudged).moved


def test_no_sheet_is_a_clear_error():
    play, _, _ = photo(with_sheet=False)
    with pytest.raises(TableError, match="not seen well enough"):
        measure(play, SPEC, CAMERA)


def test_cli_table_then_check_says_it_moved(scene, tmp_path, capsys):
    path = tmp_path / "profile.toml"
    Profile(camera=CAMERA).save(path)
    image, _, _, _ = scene
    cv2.imwrite(str(tmp_path / "sheet.png"), image)
    assert main(["calibrate", "table", str(tmp_path / "sheet.png"), "--calibration", str(path)]) == 0
    assert "reference" in path.read_text()
    nudged, _, _ = photo(nudge=0.006, seed=9)
    cv2.imwrite(str(tmp_path / "later.png"), nudged)
    capsys.readouterr()
    code = main(["calibrate", "check", str(tmp_path / "later.png"), "--calibration", str(path),
                 "--out", str(tmp_path / "overlay.png")])
    out = capsys.readouterr()
    assert code == 1 and "moved" in out.out
    assert cv2.imread(str(tmp_path / "overlay.png")).shape[:2] == (SIZE[1], SIZE[0])
    assert main(["calibrate", "check", str(tmp_path / "sheet.png"), "--calibration", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["moved"] is False and result["points"] == SPEC.corners + 4 and result["colour"] is None


def test_witness_page_carries_the_four_markers():
    from tantrix_pi.calibration.table import find_witnesses, witness_sheet

    page, dpi = witness_sheet("letter")
    assert set(find_witnesses(cv2.resize(page, None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA))) == {
        "marker_0", "marker_1", "marker_2", "marker_3"}
    assert page.shape[1] == pytest.approx(279.4 * dpi / 25.4, abs=1)


def test_profile_from_a_known_homography_can_be_turned_upright(scene):
    from tantrix_pi.calibration.table import plane_from_homography

    _, rvec, tvec, _ = scene
    r = cv2.Rodrigues(rvec)[0]
    h = K @ np.column_stack([r[:, 0], r[:, 1], tvec])
    plane = plane_from_homography(h, SIZE, CAMERA, upright=True)
    profile = Profile(camera=CAMERA, table=plane)
    a, b = profile.table_to_image([[0.0, 0.0], [50.0, 0.0]])
    assert abs(b[1] - a[1]) < 0.02 * abs(b[0] - a[0]) and b[0] > a[0]
    pts = np.array([[100.0, 100.0], [600.0, 120.0]])
    mm = profile.image_to_table(true_px(pts, rvec, tvec))
    assert np.linalg.norm(mm[1] - mm[0]) == pytest.approx(np.linalg.norm(pts[1] - pts[0]), abs=0.5)
