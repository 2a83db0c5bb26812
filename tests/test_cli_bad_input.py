"""Hostile input to every sub-command: one line on stderr naming the problem, exit 2, never a traceback."""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np
import pytest

from tantrix_pi.cli import main


def _board(tiles) -> str:
    return json.dumps({"format": "tantrix-board/1", "tiles": tiles})


FILES = {
    "empty.json": b"",
    "binary.json": bytes(range(256)),
    "list.json": b"[1, 2]",
    "string-number.json": _board([{"tile": "5", "q": 0, "r": 0, "rot": 0}]).encode(),
    "huge-tile.json": _board([{"tile": 10**30, "q": 0, "r": 0, "rot": 0}]).encode(),
    "negative-tile.json": _board([{"tile": -3, "q": 0, "r": 0, "rot": 0}]).encode(),
    "null-tile.json": _board([{"tile": None, "q": 0, "r": 0, "rot": 0}]).encode(),
    "far-cell.json": _board([{"tile": 1, "q": 0, "r": 0, "rot": 0},
                             {"tile": 2, "q": 0, "r": 10**6, "rot": 0}]).encode(),
    "nan-cell.json": b'{"format": "tantrix-board/1", "tiles": [{"tile": 1, "q": NaN, "r": 0, "rot": 0}]}',
    "good.json": _board([{"tile": 1, "q": 0, "r": 0, "rot": 0}]).encode(),
    "text.png": b"hello, not a picture",
    "syntax.toml": b"[camera\nx = 1\n",
    "typo.toml": b"[camrea]\nsource = 'folder'\n",
    "wrong-type.toml": b"[camera]\nfps = 'fast'\n",
    "out-of-range.toml": b"[mode]\ndiscovery = 31\n",
    "long-number.json": b'{"format": "tantrix-board/1", "tiles": [{"tile": ' + b"7" * 5000
                        + b', "q": 0, "r": 0, "rot": 0}]}',
    "deep.json": b"[" * 100_000 + b"]" * 100_000,
    "deep-record.json": b'{"format": "tantrix-game/1", "players": ["red", "blue"], "moves": '
                        + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "long-record.json": b'{"format": "tantrix-game/1", "players": ["red", "blue"], "moves": [{"player": "red", '
                        b'"tile": 1, "q": ' + b"1" * 5000 + b', "r": 0, "rot": 0}]}',
    "deep.toml": b"[mode]\nplayers = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "long.toml": b"[camera]\nfps = " + b"9" * 5000 + b"\n",
    "deep-sheet.json": b'{"charuco": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
}

# (argv with {d} for the folder of test files, expected exit code, words the one stderr line must hold)
CASES = [
    (["board", "show", "{d}/missing.json"], 2, "missing.json: no such file"),
    (["board", "show", "{d}/folder"], 2, "folder: cannot read it"),
    (["board", "show", "{d}/empty.json"], 2, "empty.json: not JSON"),
    (["board", "check", "{d}/binary.json"], 2, "binary.json: not a text file"),
    (["board", "score", "{d}/list.json"], 2, "must hold a JSON object"),
    (["board", "show", "{d}/string-number.json"], 2, "tile must be a whole number, not '5'"),
    (["board", "show", "{d}/huge-tile.json"], 2, "tiles are numbered 1..56"),
    (["board", "check", "{d}/negative-tile.json"], 2, "unknown tile -3"),
    (["board", "score", "{d}/null-tile.json"], 2, "not None"),
    (["board", "show", "{d}/far-cell.json"], 2, "r = 1000000 is off the table"),
    (["board", "show", "{d}/nan-cell.json"], 2, "q must be a whole number, not nan"),
    (["board", "show", "{d}/long-number.json"], 2, "long-number.json: not JSON that can be read: a number has more"),
    (["board", "check", "{d}/deep.json"], 2, "deep.json: not JSON that can be read: it is nested too deeply"),
    (["puzzle", "check", "{d}/deep.json", "--puzzle", "discovery:3"], 2, "nested too deeply"),
    (["game", "replay", "{d}/deep-record.json"], 2, "deep-record.json: not JSON that can be read"),
    (["game", "replay", "{d}/long-record.json"], 2, "long-record.json: not JSON that can be read: a number"),
    (["run", "--config", "{d}/deep.toml"], 2, "deep.toml: the config file cannot be read"),
    (["run", "--config", "{d}/long.toml"], 2, "long.toml: the config file cannot be read"),
    (["calibrate", "camera", "{d}/noise.png", "--board", "{d}/deep-sheet.json"], 2, "nested too deeply"),
    (["board", "show", "{d}/good.json", "--png", "{d}/good.json/x.png"], 2, "cannot write the picture"),
    (["board", "show", "{d}/good.json", "--png", "{d}/folder"], 2, "folder: cannot write the picture"),
    (["board", "show", "{d}/good.json", "--scale", "-1"], 2, "--scale"),
    (["puzzle", "check", "{d}/good.json", "--puzzle", "discovery:99"], 2, "from 3 to 30"),
    (["puzzle", "check", "{d}/good.json", "--puzzle", "rainbow:pink"], 2, "unknown puzzle 'rainbow:pink'"),
    (["puzzle", "solve", "--puzzle", "discovery:3", "--timeout", "-1"], 2, "--timeout"),
    (["puzzle", "solve", "--puzzle", "discovery:3", "--png", "{d}/good.json/x.png"], 2, "cannot write the picture"),
    (["puzzle", "hint", "{d}/text.png", "--puzzle", "discovery:3"], 2, "text.png: not an image"),
    (["puzzle", "hint", "{d}/tiny.png", "--puzzle", "discovery:3"], 2, "too small"),
    (["game", "replay", "{d}/empty.json"], 2, "empty.json: not JSON"),
    (["game", "replay", "{d}/good.json"], 2, "expected 'tantrix-game/1'"),
    (["game", "replay", "{d}/folder"], 2, "cannot read it"),
    (["game", "export", "--state-dir", "{d}/corrupt"], 2, "state database is damaged"),
    (["game", "export", "--config", "{d}/syntax.toml"], 2, "not valid TOML"),
    (["game", "export", "--config", "{d}/typo.toml"], 2, "did you mean 'camera'"),
    (["run", "--config", "{d}/wrong-type.toml"], 2, "camera.fps = 'fast' is wrong"),
    (["run", "--config", "{d}/out-of-range.toml"], 2, "mode.discovery = 31"),
    (["run", "--config", "{d}/missing.toml"], 2, "no such config file"),
    (["run", "--config", "{d}/events-folder.toml"], 2, "paths.events: {d}/folder is a folder; name a file"),
    (["run", "--config", "{d}/folder"], 2, "cannot read the config file"),
    (["detect", "{d}/missing.png"], 2, "missing.png: no such file"),
    (["detect", "{d}/folder"], 2, "is a directory"),
    (["detect", "{d}/empty.json"], 2, "empty file"),
    (["detect", "{d}/text.png"], 2, "not an image"),
    (["detect", "{d}/truncated.jpg"], 2, "truncated"),
    (["detect", "{d}/tiny.png"], 2, "1x1 is too small"),
    (["check", "{d}/tiny.png"], 2, "required: --puzzle"),
    (["check", "{d}/tiny.png", "--puzzle", "rainbow:pink"], 2, "unknown puzzle"),
    (["score", "{d}/tiny.png", "--players", "purple"], 2, "'purple' is not a colour"),
    (["demo", "--out", "{d}/good.json"], 2, "not a folder"),
    (["demo", "--out", "{d}/missing/demo"], 2, "--out {d}/missing/demo: cannot make the folder (No such file"),
    (["calibrate", "board", "--out", "{d}/good.json/x.png"], 2, "cannot write it"),
    (["calibrate", "markers", "--out", "{d}/good.json/x.png"], 2, "cannot write it"),
    (["calibrate", "camera", "{d}/truncated.jpg"], 2, "truncated"),
    (["calibrate", "camera", "--live", "-3"], 2, "--live"),
    (["calibrate", "camera", "{d}/noise.png", "--calibration", "{d}/p.toml"], 2, "noise.png: board not found"),
    (["calibrate", "table", "{d}/text.png"], 2, "not an image"),
    (["calibrate", "table", "{d}/tiny.png", "--px-per-mm", "-1"], 2, "--px-per-mm"),
    (["calibrate", "table", "{d}/noise.png"], 2, "the sheet is not seen well enough"),
    (["calibrate", "colour", "{d}/missing.png"], 2, "no such file"),
    (["devices", "check", "--seconds", "-1"], 2, "--seconds"),
    (["devices", "check"], 2, "devices check: nothing to try: give --display SPEC, --buttons or --voice"),
    (["devices", "check", "--display", "purple"], 2, "not supported"),
    (["devices", "check", "--display", "png:{d}/missing/frames"], 2, "png:{d}/missing/frames: no such folder"),
    (["calibrate", "board", "--out", "{d}/missing/sheet.png"], 2, "sheet.png: cannot write it (No such file"),
    (["calibrate", "markers", "--out", "{d}/missing/markers.pdf"], 2, "markers.pdf: cannot write it (No such file"),
    (["board", "show", "{d}/good.json", "--png", "{d}/missing/b.png"], 2, "b.png: cannot write the picture (No such"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    for name, data in FILES.items():
        (d / name).write_bytes(data)
    (d / "folder").mkdir()
    (d / "events-folder.toml").write_text(f'[paths]\nstate_dir = "{d}/state-e"\nevents = "{d}/folder"\n')
    (d / "corrupt").mkdir()
    (d / "corrupt" / "state.db").write_bytes(b"not a database at all " * 200)
    cv2.imwrite(str(d / "tiny.png"), np.zeros((1, 1, 3), np.uint8))
    noise = np.random.default_rng(0).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    cv2.imwrite(str(d / "noise.png"), noise)
    ok, jpeg = cv2.imencode(".jpg", noise)
    (d / "truncated.jpg").write_bytes(jpeg.tobytes()[: len(jpeg) // 2])
    return d


@pytest.mark.parametrize(("argv", "code", "words"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_line_and_exit_code(files, argv, code, words, capsys, monkeypatch):
    monkeypatch.setenv("STATE_DIRECTORY", str(files / "state"))
    assert main([a.format(d=files) for a in argv]) == code
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert words.format(d=files) in lines[0]
    assert not (files / "missing").exists()  # an output path in a folder that is not there makes no folder


def test_corrupt_state_database_is_kept(files, capsys):
    before = (files / "corrupt" / "state.db").read_bytes()
    main(["game", "export", "--state-dir", str(files / "corrupt")])
    assert (files / "corrupt" / "state.db").read_bytes() == before


class ClosedPipe:
    """A stdout whose reader has gone away, like `tantrix-pi ... | head -1` after its line."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_output_into_a_closed_pipe_stops_quietly(files, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["board", "score", str(files / "good.json")]) == 0
    assert capsys.readouterr().err == ""


def test_version(capsys):
    from importlib.metadata import version

    import tantrix_pi

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"tantrix-pi {tantrix_pi.__version__}\n"
    assert version("tantrix-pi") == tantrix_pi.__version__  # one version, in the package, read by pyproject.toml


def test_a_refusal_with_json_is_json_on_stdout_too(tmp_path, capsys):
    from tantrix_pi.board import Board
    from tantrix_pi.simulator import PLAIN, legal_board, render

    # cell (0, 0) 10 px from the right edge of the frame: the board runs off it
    image, _ = render(legal_board(5, seed=2), seed=2, size=(700, 500), tile_px=70.0, focus=(0, 0), center=(690, 250),
                      **PLAIN)
    cut = str(tmp_path / "cut.png")
    cv2.imwrite(cut, image)
    for argv in (["check", cut, "--puzzle", "discovery:5", "--json"], ["score", cut, "--json"],
                 ["puzzle", "hint", cut, "--puzzle", "discovery:5", "--json"]):
        assert main(argv) == 3
        captured = capsys.readouterr()
        refusal = json.loads(captured.out)
        assert refusal["exit_code"] == 3 and refusal["error"] in captured.err
        assert refusal["doubts"] and all(d["kind"] in ("unsure", "face down", "unreadable") for d in refusal["doubts"])
        assert all(d["cell"] is None or d["cell"][0] in range(-6, 7) for d in refusal["doubts"])

    empty = str(tmp_path / "table.png")
    cv2.imwrite(empty, render(Board(), seed=3, size=(800, 600), **{**PLAIN, "noise": 1.5})[0])
    assert main(["detect", empty, "--json"]) == 3
    assert json.loads(capsys.readouterr().out) == {"error": f"{empty}: no tile found", "exit_code": 3, "doubts": []}


@pytest.mark.parametrize("section, key", [("paths", "state_dir"), ("paths", "profile"), ("paths", "events"),
                                          ("display", "dir"), ("web", "bind")])
def test_a_nul_byte_in_a_config_string_is_one_line_naming_the_key(tmp_path, capsys, section, key):
    frames = tmp_path / "frames"
    frames.mkdir()
    sections = {"camera": {"source": '"folder"', "path": f'"{frames}"'}, "paths": {"state_dir": f'"{tmp_path}"'},
                "display": {"kind": '"png"', "dir": f'"{tmp_path / "png"}"'}, "web": {}}
    sections[section][key] = r'"here\u0000there"'
    cfg = tmp_path / "config.toml"
    cfg.write_text("".join(f"[{name}]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items())
                           for name, keys in sections.items()))
    assert main(["run", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{section}.{key} = 'here\\x00there' is wrong: expected text without a NUL" in err
