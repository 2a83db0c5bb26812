"""`tantrix-pi detect/check/score` and photo loading: exit codes, one-line refusals, JSON, overlay."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tantrix_pi.board import Board
from tantrix_pi.cli import main
from tantrix_pi.simulator import PLAIN, Apart, legal_board, render
from tantrix_pi.vision import photo
from tantrix_pi.vision.detection import CONFIDENT


def write(tmp_path, name, img) -> str:
    path = str(tmp_path / name)
    assert cv2.imwrite(path, img)
    return path


@pytest.fixture(scope="module")
def board_photo(tmp_path_factory):
    board = legal_board(7, seed=1, avoid=(1,))
    image, _ = render(board, seed=1, size=(800, 600), tile_px=70.0, yaw_deg=12.0, **{**PLAIN, "noise": 1.0})
    path = str(tmp_path_factory.mktemp("photos") / "board.jpg")
    cv2.imwrite(path, image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return path, board


def test_detect_prints_the_board_json(board_photo, capsys, tmp_path):
    path, board = board_photo
    overlay = str(tmp_path / "seen.png")
    assert main(["detect", path, "--json", "--overlay", overlay]) == 0
    data = json.loads(capsys.readouterr().out)
    assert Board.from_dict(data).same_as(board)
    assert all(CONFIDENT <= t["confidence"] <= 1 for t in data["tiles"])
    drawn = cv2.imread(overlay)
    assert drawn is not None and drawn.shape == cv2.imread(path).shape
    assert np.abs(drawn.astype(int) - cv2.imread(path).astype(int)).sum() > 0


def test_score_names_the_winner(board_photo, capsys):
    path, _ = board_photo
    assert main(["score", path, "--players", "red,blue"]) == 0
    out = capsys.readouterr().out
    points = {line.split(":")[0]: int(line.rsplit("-> ", 1)[1]) for line in out.splitlines()[:-1]}
    assert set(points) == {"Red", "Blue"}
    best = [c for c in points if points[c] == max(points.values())]
    assert out.splitlines()[-1] == (f"{best[0]} wins" if len(best) == 1 else "A tie between Red and Blue")


def test_check_gives_a_verdict_with_reasons(board_photo, capsys):
    path, _ = board_photo
    assert main(["check", path, "--puzzle", "discovery:7"]) == 1  # these are not tiles 1..7
    out = capsys.readouterr().out
    assert "not solved" in out and "tile 1 is missing" in out


def test_check_refuses_a_doubtful_board(tmp_path, capsys):
    board = legal_board(5, seed=2)
    # cell (0, 0) 10 px from the right edge of the frame: the board runs off it
    image, _ = render(board, seed=2, size=(700, 500), tile_px=70.0, focus=(0, 0), center=(690, 250), **PLAIN)
    path = write(tmp_path, "cut.png", image)
    assert main(["check", path, "--puzzle", "discovery:5"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "frame" in err


def test_junk_far_from_the_board_does_not_stop_a_verdict(tmp_path, capsys):
    board = legal_board(12, seed=3, avoid=(1, 33))
    junk = [Apart(33, (800, 560), face_up=False),  # face down in a corner of the table
            Apart(1, (880, 300), 70.0)]  # cut by the frame edge, far from the board
    image, _ = render(board, seed=11, size=(900, 640), tile_px=70.0, yaw_deg=10.0, apart=junk,
                      **{**PLAIN, "noise": 1.0})
    path = write(tmp_path, "junk.png", image)
    assert main(["score", path, "--players", "red,blue"]) == 0
    assert main(["check", path, "--puzzle", "discovery:12"]) == 1
    assert "not solved" in capsys.readouterr().out


@pytest.mark.parametrize("content, words", [
    (b"", "empty"),
    (b"not an image at all", "not an image"),
    (b"\xff\xd8\xff\xe0" + bytes(200), "image"),
])
def test_bad_files_exit_2_with_one_line(tmp_path, capsys, content, words):
    path = tmp_path / "bad.jpg"
    path.write_bytes(content)
    assert main(["detect", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err


def test_truncated_tiny_blank_and_missing_files_exit_2(tmp_path, board_photo, capsys):
    data = open(board_photo[0], "rb").read()
    (tmp_path / "half.jpg").write_bytes(data[: len(data) // 2])
    cases = {
        str(tmp_path / "half.jpg"): "truncated",
        write(tmp_path, "one.png", np.zeros((1, 1, 3), np.uint8)): "too small",
        write(tmp_path, "grey.png", np.full((480, 640, 3), 120, np.uint8)): "blank",
        write(tmp_path, "black.jpg", np.zeros((480, 640, 3), np.uint8)): "blank",
        str(tmp_path / "nothing.jpg"): "no such file",
    }
    for path, words in cases.items():
        assert main(["detect", path]) == 2, path
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err


def test_enormous_dimensions_are_refused_from_the_header(tmp_path, capsys):
    # A valid PNG header claiming 100000 x 100000 pixels: refused before any decoding.
    import struct
    import zlib

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b"")
    path = tmp_path / "huge.png"
    path.write_bytes(png)
    assert main(["detect", str(path)]) == 2
    assert "enormous" in capsys.readouterr().err or "too large" in capsys.readouterr().err


def test_a_photo_without_tiles_exits_3(tmp_path, capsys):
    path = write(tmp_path, "table.png", render(Board(), seed=3, size=(800, 600), **{**PLAIN, "noise": 1.5})[0])
    assert main(["detect", path]) == 3
    assert "no tile" in capsys.readouterr().err


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=3000))
def test_random_bytes_are_refused_cleanly(data):
    try:
        img = photo.decode(data)
    except photo.PhotoError as e:
        assert "\n" not in str(e)
    else:
        assert img.ndim == 3 and img.dtype == np.uint8
