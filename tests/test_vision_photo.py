"""Photos as phones write them (bytes after the JPEG's end marker, HEIC, EXIF turns), and pictures of odd shapes:
read like the same picture saved plainly, or refused in one line; never a crash."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import textwrap

import cv2
import numpy as np
import pytest
from PIL import Image

from tantrix_pi.board import Board
from tantrix_pi.cli import main
from tantrix_pi.simulator import PLAIN, legal_board, render
from tantrix_pi.vision import detect, photo

BOARD = legal_board(6, seed=4)


@pytest.fixture(scope="module")
def plain_jpeg() -> bytes:
    image, _ = render(BOARD, seed=4, size=(800, 600), tile_px=70.0, yaw_deg=7.0, **{**PLAIN, "noise": 1.0})
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return buf.tobytes()


def samsung_trailer() -> bytes:
    """What a Samsung camera writes after the end marker: tagged blocks, their directory ("SEFH"), its size, "SEFT"."""
    block = b"\x00\x00\x01\x0a\x0e\x00\x00\x00Image_UTC_Data1733140000000"
    directory = b"SEFH" + struct.pack("<III", 106, 1, 0x0a01) + struct.pack("<II", len(block) + 16, len(block))
    return block + directory + struct.pack("<I", len(directory)) + b"SEFT"


def motion_photo_video() -> bytes:
    """An MP4 as a motion photo appends it: boxes whose bytes may hold JPEG markers by chance."""
    rng = np.random.default_rng(7)
    payload = rng.integers(0, 256, 4000, dtype=np.uint8).tobytes() + b"\xff\xd8\xff\xe0\xff\xd9" * 3
    ftyp = struct.pack(">I", 24) + b"ftypmp42" + struct.pack(">I", 0) + b"isommp42"
    return ftyp + struct.pack(">I", 8 + len(payload)) + b"mdat" + payload


@pytest.mark.parametrize("tail", [samsung_trailer(), motion_photo_video()], ids=["samsung-trailer", "motion-photo"])
def test_bytes_after_the_end_marker_are_no_truncation(plain_jpeg, tail):
    plain = photo.decode(plain_jpeg)
    phone = photo.decode(plain_jpeg + tail, "phone.jpg")
    assert np.array_equal(phone, plain)
    assert detect(phone).board.same_as(BOARD)


def test_a_truncated_jpeg_is_still_refused_even_with_a_trailer(plain_jpeg):
    with pytest.raises(photo.PhotoError, match="truncated"):
        photo.decode(plain_jpeg[: len(plain_jpeg) // 2], "half.jpg")


def test_a_heic_photo_is_read_like_the_same_picture_and_its_exif_turn_applied(plain_jpeg, tmp_path, capsys):
    plain = photo.decode(plain_jpeg)
    rgb = Image.fromarray(np.ascontiguousarray(plain[..., ::-1]))
    buf = io.BytesIO()
    rgb.save(buf, format="HEIF", quality=95)
    heic = photo.decode(buf.getvalue(), "IMG_0001.HEIC")
    assert heic.shape == plain.shape and np.abs(heic.astype(int) - plain).mean() < 4
    assert detect(heic).board.same_as(BOARD)
    # stored sideways with EXIF orientation 6 (turn 90 degrees clockwise to view), as a phone held upright
    turned = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6
    rgb.transpose(Image.Transpose.ROTATE_90).save(turned, format="HEIF", quality=95, exif=exif.tobytes())
    path = tmp_path / "IMG_0002.HEIC"
    path.write_bytes(turned.getvalue())
    upright = photo.load(path)
    assert upright.shape == plain.shape and np.abs(upright.astype(int) - plain).mean() < 4
    assert main(["detect", str(path), "--json"]) == 0


def test_a_jpegs_exif_turn_is_applied(plain_jpeg):
    plain = photo.decode(plain_jpeg)
    sideways = Image.fromarray(np.ascontiguousarray(np.rot90(plain, 1)[..., ::-1]))  # 90 degrees anticlockwise
    exif = Image.Exif()
    exif[0x0112] = 6
    buf = io.BytesIO()
    sideways.save(buf, format="JPEG", quality=95, exif=exif.tobytes())
    upright = photo.decode(buf.getvalue() + samsung_trailer())
    assert upright.shape == plain.shape and np.abs(upright.astype(int) - plain).mean() < 4


@pytest.mark.parametrize("size", [(20000, 100), (100, 20000), (3000, 32)])
def test_a_strip_is_refused_in_one_line(tmp_path, capsys, size):
    rng = np.random.default_rng(1)
    strip = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    path = tmp_path / "strip.png"
    cv2.imwrite(str(path), strip)
    assert main(["detect", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "strip" in err, err
    with pytest.raises(photo.PhotoError, match="strip"):
        detect(strip)


@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_a_black_and_white_photo_is_refused_in_one_line_and_its_colour_twin_read(plain_jpeg, tmp_path, capsys, mode):
    colour = Image.open(io.BytesIO(plain_jpeg))
    grey = tmp_path / "grey.jpg"
    colour.convert("L").convert(mode).save(grey, quality=90)  # a phone's mono filter keeps three equal channels
    assert main(["detect", str(grey)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "black-and-white" in err, err
    assert detect(photo.decode(plain_jpeg, "colour.jpg")).board.same_as(BOARD)


@pytest.mark.parametrize("picture, error", [(None, TypeError), ([[1, 2], [3, 4]], TypeError),
                                            (np.zeros((300, 400, 2), np.uint8), ValueError),
                                            (np.zeros((1, 300, 400, 3), np.uint8), ValueError)],
                         ids=["None", "list", "two channels", "a batch"])
def test_detect_names_what_it_takes_when_given_no_picture(picture, error):
    with pytest.raises(error, match="picture"):
        detect(picture)


def test_a_one_channel_picture_is_read_as_grey():
    grey = cv2.cvtColor(render(BOARD, seed=4, size=(400, 300), tile_px=40.0, **PLAIN)[0], cv2.COLOR_BGR2GRAY)
    assert detect(grey[..., None]).to_dict() == detect(grey).to_dict()


def test_a_photo_then_a_strip_then_odd_sizes_never_crash_the_process():
    # cv2.dnn died with SIGSEGV on a 16 x 448 input after a square one, and said widths of 10^7 px on
    # other shapes after others: each run here in a process of its own, many times over.
    script = textwrap.dedent("""
        import numpy as np
        from tantrix_pi.simulator import PLAIN, legal_board, render
        from tantrix_pi.vision import detect, photo
        from tantrix_pi.vision.network import shipped
        board = legal_board(6, seed=4)
        picture = render(board, seed=4, size=(800, 600), tile_px=70.0, **PLAIN)[0]
        rng = np.random.default_rng(0)
        net = shipped()
        for i in range(12):
            assert detect(picture).board.same_as(board)
            try:
                detect(np.ascontiguousarray(np.tile(picture[250:350], (1, 25, 1))))
            except photo.PhotoError:
                pass
            for h, w in ((16, 448), (448, 16), (32, 16), (16, 2048), (256, 256), (48, 1104)):
                out = net.run(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
                assert np.isfinite(out).all() and np.abs(out).max() < 200, (h, w, np.abs(out).max())
        print("ok")
    """)
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]


@pytest.mark.parametrize("size", [(32, 32), (33, 160), (4000, 3000)])
def test_tiny_and_large_photos_are_read_without_a_crash(size):
    image, _ = render(Board(), seed=2, size=size, tile_px=40.0, **PLAIN)
    det = detect(image)
    assert det.tiles == [] and det.loose == []
