import sqlite3
import struct
import zlib

import cv2
import numpy as np
import pytest
from live_fakes import B

from tantrix_pi.board import Placement
from tantrix_pi.devices.sources import (
    CameraGone,
    EndOfRecording,
    OpenCVSource,
    Pacer,
    Picamera2Source,
    flicker_free,
    folder_source,
    video_source,
)
from tantrix_pi.live import config
from tantrix_pi.live.gate import MotionGate, changed_around, light_gain
from tantrix_pi.live.service import make_source
from tantrix_pi.live.store import Notice, Played, Store, StoreError
from tantrix_pi.live.tracker import HAND_BESIDE, LAID_SEEN, TURN_SEEN
from tantrix_pi.vision import photo


def table(shade=120, hand=None):
    img = np.full((240, 320, 3), shade, np.uint8)
    cv2.circle(img, (160, 120), 40, (0, 0, 200), -1)
    if hand is not None:
        cv2.ellipse(img, hand, (60, 30), 20, 0, 360, (150, 180, 220), -1)
    return img


# -- sources ---------------------------------------------------------------------------------------
def test_folder_source_replays_images_in_name_order(tmp_path):
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), table(shade=10 * i))
    (tmp_path / "notes.txt").write_text("not a frame")
    (tmp_path / "f1b.jpg").write_bytes(b"truncated")  # skipped with a warning
    src = folder_source(tmp_path, read=photo.load)
    src.open()
    shades = [int(src.read()[0, 0, 0]) for _ in range(3)]
    assert shades == [0, 10, 20]
    with pytest.raises(EndOfRecording):
        src.read()


def bomb_png(width: int, height: int) -> bytes:
    """A valid grey PNG of width x height pixels, a few kB on disk (zeros compress 1000 to 1)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer, row, parts = zlib.compressobj(9), bytes(width + 1), []
    parts += [packer.compress(row) for _ in range(height)]
    idat = b"".join(parts) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_the_service_reads_a_frame_folder_as_the_command_line_reads_a_photo(tmp_path, caplog):
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in (0, 2, 4):
        cv2.imwrite(str(frames / f"{i}.png"), table(shade=10 * i))
    (frames / "1.png").write_bytes(bomb_png(9000, 9000))  # 81 million pixels in a few kB
    ok, jpeg = cv2.imencode(".jpg", table(shade=30))
    (frames / "3.jpg").write_bytes(jpeg.tobytes()[: len(jpeg) * 2 // 3])  # cut off: OpenCV would still decode it
    cfg = config.from_dict({"camera": {"source": "folder", "path": str(frames)}})
    src = make_source(cfg)
    src.open()
    shades = [int(src.read()[0, 0, 0]) for _ in range(3)]
    assert shades == [0, 20, 40]
    with pytest.raises(EndOfRecording):
        src.read()
    skipped = [r.getMessage() for r in caplog.records if "frame skipped" in r.getMessage()]
    assert len(skipped) == 2 and "9000x9000 is too large" in skipped[0] and "truncated" in skipped[1]


def test_video_source_and_missing_inputs(tmp_path):
    path = tmp_path / "clip.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    for i in range(4):
        out.write(table(shade=40 * i))
    out.release()
    src = video_source(path)
    src.open()
    frames = [src.read() for _ in range(4)]
    assert [f.shape for f in frames] == [(240, 320, 3)] * 4
    with pytest.raises(EndOfRecording):
        src.read()
    with pytest.raises(CameraGone, match="no such video"):
        video_source(tmp_path / "nope.mp4")
    with pytest.raises(CameraGone, match="holds no images"):
        (tmp_path / "empty").mkdir()
        folder_source(tmp_path / "empty", read=photo.load)


def test_opencv_camera_that_is_not_there_is_camera_gone():
    src = OpenCVSource("/dev/video-that-does-not-exist")
    with pytest.raises(CameraGone):
        src.open()


def test_picamera2_missing_is_a_clear_camera_error(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as on a machine without it
    with pytest.raises(CameraGone, match="python3-picamera2"):
        Picamera2Source(settle_s=0).open()


def test_picamera2_settles_then_locks_exposure_and_white_balance(monkeypatch):
    import sys
    import types
    calls = {}

    class FakeCam:
        camera_properties = {"Model": "imx477"}

        def __init__(self, num):
            pass

        def create_video_configuration(self, main):
            calls["main"] = main
            return main

        def configure(self, c):
            pass

        def start(self):
            pass

        def capture_metadata(self):
            return {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.4), "Lux": 300}

        def set_controls(self, c):
            calls["controls"] = c

        def capture_array(self, name):
            return np.zeros((1520, 2028, 3), np.uint8)

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakeCam))
    src = Picamera2Source(settle_s=0, mains_hz=0)
    src.open()
    assert calls["main"] == {"size": (2028, 1520), "format": "RGB888"}
    assert calls["controls"] == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12000,
                                 "AnalogueGain": 2.5, "ColourGains": (1.9, 1.4)}
    assert src.read().shape == (1520, 2028, 3)
    Picamera2Source(settle_s=0).open()  # 50 Hz mains by default: 12 ms becomes one flicker period, 10 ms
    assert calls["controls"]["ExposureTime"] == 10000 and calls["controls"]["AnalogueGain"] == pytest.approx(3.0)


@pytest.mark.parametrize("exposure, gain, hz, locked", [
    (12000, 2.5, 50, (10000, 3.0)),        # the gain takes up what the rounding took off
    (26000, 1.0, 50, (20000, 1.3)),
    (26000, 1.0, 60, (25000, 26 / 25)),    # 8.3 ms periods
    (14000, 1.0, 50, (10000, 1.4)),        # rounded down: the gain can only rise from 1
    (16000, 1.0, 50, (10000, 1.6)),        # two periods would need a gain below 1
    (4000, 1.5, 50, (4000, 1.5)),          # a very bright table: even one period would overexpose
    (12000, 2.5, 0, (12000, 2.5)),
])
def test_the_locked_exposure_is_whole_flicker_periods_of_the_same_light(exposure, gain, hz, locked):
    time_us, new_gain = flicker_free(exposure, gain, hz)
    assert (time_us, new_gain) == (locked[0], pytest.approx(locked[1]))
    assert time_us * new_gain == pytest.approx(exposure * gain) and new_gain >= min(1.0, gain)


def test_pacer_spaces_frames_at_the_rate():
    now = [0.0]
    slept = []
    p = Pacer(10, clock=lambda: now[0], sleep=lambda s: (slept.append(round(s, 3)), now.__setitem__(0, now[0] + s)))
    for _ in range(3):
        p.wait()
        now[0] += 0.02  # 20 ms of work per frame
    assert slept == [0.08, 0.08]


# -- motion gate -----------------------------------------------------------------------------------
def test_motion_gate_skips_a_hand_and_passes_still_frames():
    g = MotionGate()
    rng = np.random.default_rng(1)

    def noisy(img):
        return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)

    assert g.moving(noisy(table()))  # the first frame has nothing to compare with
    assert not g.moving(noisy(table()))
    assert g.moving(noisy(table(hand=(60, 200))))
    assert g.moving(noisy(table(hand=(120, 160))))
    assert g.moving(noisy(table()))
    assert not g.moving(noisy(table()))


def test_a_tile_of_three_corner_arcs_turned_a_third_of_a_circle_changes_its_picture_though_not_its_grey():
    # the turn only moves each colour onto the next arc: red, green and blue of one grey level
    colours = [(0, 0, 230), (0, 117, 0), (220, 45, 55)]
    grey = cv2.cvtColor(np.uint8([colours]), cv2.COLOR_BGR2GRAY)[0]
    assert int(grey.max()) - int(grey.min()) <= 2

    def tile(turn: int) -> np.ndarray:
        img = np.full((120, 120, 3), 30, np.uint8)
        for k in range(3):
            a = np.radians(120 * k + 30)
            corner = (round(60 + 45 * np.cos(a)), round(60 + 45 * np.sin(a)))
            cv2.circle(img, corner, 22, colours[(k + turn) % 3], 7)
        return img

    rng = np.random.default_rng(2)

    def noisy(img):
        return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)

    assert changed_around(noisy(tile(0)), noisy(tile(1)), (60, 60), 50) >= TURN_SEEN
    assert changed_around(noisy(tile(0)), noisy(tile(0)), (60, 60), 50) < HAND_BESIDE



def test_a_lamp_switched_on_changes_no_spot_of_the_table_but_a_tile_laid_under_it_does():
    # paper with a pen circle and a board tile, first under a warm dim lamp, then a brighter white light; a tile is
    # laid at the same moment. Each channel of the whole picture scales alike: that is the light, not the table
    rng = np.random.default_rng(4)
    table = np.full((300, 400, 3), (150, 170, 180), np.uint8)
    cv2.circle(table, (80, 150), 30, (120, 60, 40), 3)
    tile = [(round(c + 40 * np.cos(a)), round(150 + 40 * np.sin(a))) for c in (200, 320)
            for a in np.radians(np.arange(0, 360, 60) + 30)]
    cv2.fillPoly(table, [np.int32(tile[:6])], (25, 25, 25))
    cv2.ellipse(table, (200, 150), (25, 25), 0, 200, 340, (40, 40, 220), 6)

    def shot(img, light):
        return np.clip(img * np.float32(light) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)

    laid = table.copy()
    cv2.fillPoly(laid, [np.int32(tile[6:])], (25, 25, 25))
    before, after = shot(table, (0.5, 0.75, 0.98)), shot(laid, (1.0, 1.0, 1.0))
    gain = light_gain(before, after)
    assert np.allclose(gain, (2.0, 1.33, 1.02), atol=0.05)
    assert abs(gain[2] - 1 / 0.98) < 0.01  # once the light changed, its small gains count too
    assert changed_around(before, after, (80, 150), 35) >= TURN_SEEN  # uncorrected, the lamp changes everything
    assert changed_around(before, after, (80, 150), 35, gain=gain) < LAID_SEEN
    assert changed_around(before, after, (200, 150), 35, gain=gain) < HAND_BESIDE
    assert changed_around(before, after, (320, 150), 35, gain=gain) >= TURN_SEEN
    # in the same light the gain is 1 and changes nothing
    again = shot(table, (0.5, 0.75, 0.98))
    assert np.allclose(light_gain(before, again), 1.0, atol=0.03)
    # a black table: what is lit is mostly tiles, and a hand coming in over them is no change of light
    black = np.full((300, 400, 3), 14, np.uint8)
    for x in range(40, 400, 60):
        cv2.rectangle(black, (x, 20), (x + 20, 280), (40, 200, 230), -1)
    hand = black.copy()
    cv2.rectangle(hand, (0, 100), (400, 200), (60, 90, 140), -1)
    assert np.array_equal(light_gain(shot(black, (1, 1, 1)), shot(hand, (1, 1, 1))), np.ones(3))
    # dark wood, its blue about as dark as what counts as lit: a tile taken off in a steady light is no change of it
    wood = np.full((300, 400, 3), (26, 40, 85), np.uint8)
    cv2.fillPoly(wood, [np.int32(tile[:6])], (25, 25, 25))
    bare = np.full((300, 400, 3), (26, 40, 85), np.uint8)
    assert np.array_equal(light_gain(shot(wood, (1, 1, 1)), shot(bare, (1, 1, 1))), np.ones(3))

def test_what_a_shadow_or_a_lamp_changes_is_not_counted_as_something_over_the_board_but_a_hand_is():
    # tiles in rows on a wood-brown table, in a thumbnail where a tile is 10 px wide
    rng = np.random.default_rng(5)
    table = np.full((120, 160), 120, np.uint8)
    for y in range(10, 110, 14):
        for x in range(10, 150, 14):
            table[y:y + 10, x:x + 10] = 25
            table[y + 4:y + 6, x:x + 10] = 200  # an arc across the tile
    gate = MotionGate(width=160)

    def noisy(img):
        return np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)

    def changed(after):
        return gate.changed_from(after, noisy(table), tile_px=10.0, frame_width=160)

    x = np.arange(160, dtype=np.float32)
    soft = np.clip((x - 60) / 30, 0, 1)
    shadow = noisy(table * (1 - 0.5 * soft)[None, :])  # a person leaning over: half the light, a soft edge
    assert gate.changed_from(shadow, noisy(table)) > 0.2  # compared as it is, half the picture changed
    assert changed(shadow) < 0.01
    assert changed(noisy(np.clip(table * 1.6, 0, 255))) < 0.01  # a lamp switched on
    hand = table.copy()
    hand[50:65, 50:160] = 150  # an arm in from the right, over the tiles: a tile and a half wide
    lit = changed(noisy(hand))
    assert lit > 0.7 * gate.changed_from(noisy(hand), noisy(table)) > 0.05
    assert changed(noisy(hand * (1 - 0.5 * soft)[None, :])) > 0.5 * lit  # in the shadow, too


# -- config ----------------------------------------------------------------------------------------
def test_config_defaults_and_values(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[camera]\nsource = "folder"\npath = "frames"\nfps = 5\n'
                 '[mode]\nkind = "discovery"\ndiscovery = 12\nplayers = ["green", "red", "blue"]\n')
    cfg = config.load(f)
    assert cfg.camera.source == "folder" and cfg.camera.fps == 5
    assert cfg.gate.stable_frames == 2
    assert cfg.mode.puzzle_spec == "discovery:12"
    assert cfg.mode.player_letters == ["G", "R", "B"]


@pytest.mark.parametrize("text, message", [
    ('[camera]\nsourse = "opencv"\n', "unknown key camera.sourse (did you mean 'source'?)"),
    ('[camra]\n', "unknown section [camra] (did you mean 'camera'?)"),
    ('[mode]\nplayers = ["red"]\n', "mode.players = ['red'] is wrong"),
    ('[mode]\ndiscovery = 31\n', "mode.discovery = 31 is wrong: expected a whole number 3..30"),
    ('[gate]\nstable_frames = true\n', "gate.stable_frames = True is wrong"),
    ('[camera]\nsource = "video"\n', "camera.path is needed"),
    ('[camera\n', "not valid TOML"),
])
def test_config_mistakes_name_the_key(tmp_path, text, message):
    f = tmp_path / "c.toml"
    f.write_text(text)
    with pytest.raises(config.ConfigError) as e:
        config.load(f)
    assert message in str(e.value)
    assert "\n" not in str(e.value)
    assert e.value.exit_code == 2


# -- store -----------------------------------------------------------------------------------------
def test_store_keeps_the_game_across_reopen(tmp_path):
    s = Store(tmp_path / "state.db")
    g = s.new_game({"mode": "game", "players": ["R", "B"]})
    b1 = B((1, 0, 0, 0))
    s.commit(g, b1, [Played(1, "R", Placement(1, 0, 0, 0), True)], [], [Notice("placed", "red placed tile 1", {})])
    b2 = B((1, 0, 0, 0), (5, 1, 0, 2))
    s.commit(g, b2, [Played(2, "B", Placement(5, 1, 0, 2), False)], [], [Notice("illegal", "no", {"rule": "match"})])
    s.commit(g, b1, [], [2], [Notice("taken_back", "tile 5 taken back", {})])
    s.close()
    s = Store(tmp_path / "state.db")
    assert s.current_game() == (g, {"mode": "game", "players": ["R", "B"]})
    assert s.board(g) == b1
    assert [m.placement.tile for m in s.moves(g)] == [1]
    assert [e.kind for e in s.events(g)] == ["placed", "illegal", "taken_back"]


def test_failed_commit_leaves_nothing_behind(tmp_path):
    s = Store(tmp_path / "state.db")
    g = s.new_game({})
    s.commit(g, B((1, 0, 0, 0)), [Played(1, "R", Placement(1, 0, 0, 0), True)])
    with pytest.raises(sqlite3.IntegrityError):  # a move number used twice
        s.commit(g, B((1, 0, 0, 0), (2, 1, 0, 0)), [Played(1, "B", Placement(2, 1, 0, 0), True)],
                 events=[Notice("placed", "x", {})])
    assert s.board(g) == B((1, 0, 0, 0)) and len(s.moves(g)) == 1 and s.events(g) == []


def test_corrupt_database_is_kept_aside_never_overwritten(tmp_path):
    db = tmp_path / "state.db"
    junk = b"this is not sqlite " * 500
    db.write_bytes(junk)
    with pytest.raises(StoreError, match="damaged"):
        Store(db, read_only=True)
    assert db.read_bytes() == junk
    s = Store(db)
    assert s.moved_aside is not None and s.moved_aside.read_bytes() == junk
    assert s.current_game() is None
