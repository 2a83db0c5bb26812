"""The photo reader's and the calibration's words in every language (issue 19): their refusals reach the command
line as one translated line, what they print and draw follows the language, and their messages are in the
catalogues. Each expected line is the catalogue's own translation, and differs from the English."""

import gettext
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from babel.messages.extract import extract_from_dir
from test_languages import TRANSLATED, keywords

from scripts.catalogues import LOCALE, METHODS, SOURCES
from tantrix_pi import i18n
from tantrix_pi.cli import main

ROOT = Path(__file__).resolve().parents[1]
ENGLISH = gettext.NullTranslations()


def words(lang: str) -> gettext.NullTranslations:
    """The shipped catalogue of `lang` (English: the messages as written)."""
    return ENGLISH if lang == "en" else gettext.translation("tantrix_pi", LOCALE, [lang])


def said(capsys) -> str:
    """The one error line the command printed (checked to be one line and no traceback)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    d = tmp_path_factory.mktemp("photos")
    (d / "text.png").write_text("not a picture at all\n")
    cv2.imwrite(str(d / "tiny.png"), np.zeros((8, 8, 3), np.uint8))
    cv2.imwrite(str(d / "strip.png"), np.random.default_rng(1).integers(0, 255, (40, 400, 3), dtype=np.uint8))
    cv2.imwrite(str(d / "noise.png"), np.random.default_rng(0).integers(0, 255, (120, 160, 3), dtype=np.uint8))
    # a smooth picture without the board: no marker candidates at all (in noise ArUco weighs ~540 of them against
    # each of the seven dictionaries it tries, ~5 s a photo, which tests/test_cli_bad_input.py pays once)
    cv2.imwrite(str(d / "blank.png"), np.broadcast_to(np.linspace(40, 220, 160, dtype=np.uint8)[None, :, None],
                                                      (120, 160, 3)).copy())
    return d


# -- the catalogues ---------------------------------------------------------------------------------
def test_the_catalogues_hold_the_messages_of_calibration_and_of_the_photo_reader():
    assert ROOT / "calibration" in SOURCES
    found = {(name, msg) for name, _, msg, _, _ in extract_from_dir(ROOT / "calibration", METHODS,
                                                                     keywords=keywords(), comment_tags=())}
    found |= {(name, msg) for name, _, msg, _, _ in extract_from_dir(ROOT / "vision", METHODS, keywords=keywords(),
                                                                      comment_tags=()) if name == "photo.py"}
    files = {name for name, _ in found}
    assert {"camera.py", "charuco.py", "colour.py", "live.py", "profile.py", "table.py", "photo.py"} <= files
    assert len(found) > 90
    for lang in TRANSLATED:
        ours = words(lang)
        for _, msg in found:
            english = msg if isinstance(msg, str) else msg[0]
            shown = ours.gettext(msg) if isinstance(msg, str) else ours.ngettext(msg[0], msg[1], 1)
            assert shown != english, (lang, english)


# -- the photo reader -------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_missing_photo_is_refused_in_the_language_in_one_line(lang, capsys, tmp_path):
    missing = tmp_path / "none.jpg"
    assert main(["--lang", lang, "detect", str(missing)]) == 2
    line = words(lang).gettext("{path}: no such file").format(path=missing)
    assert said(capsys) == f"tantrix-pi: {line}\n"
    assert line != f"{missing}: no such file"


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("photo, message, fields", [
    ("text.png", "{name}: not an image (unknown format)", {}),
    ("tiny.png", "{name}: {width}x{height} is too small to show any tile", {"width": 8, "height": 8}),
    ("strip.png", "{name}: {width}x{height} is a strip, not a photo of a table (at most {ratio:g}:1)",
     {"width": 400, "height": 40, "ratio": 5.0}),
])
def test_the_photo_readers_refusals_speak_the_language(lang, photo, message, fields, photos, capsys):
    path = str(photos / photo)
    assert main(["--lang", lang, "detect", path]) == 2
    line = words(lang).gettext(message).format(name=path, **fields)
    assert said(capsys) == f"tantrix-pi: {line}\n"
    assert line != message.format(name=path, **fields)


def test_a_missing_photo_is_refused_in_czech_by_the_installed_command(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in i18n.ENVIRONMENT}
    missing = tmp_path / "nonexistent.jpg"
    run = subprocess.run([sys.executable, "-m", "tantrix_pi", "--lang", "cs", "detect", str(missing)],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    line = words("cs").gettext("{path}: no such file").format(path=missing)
    assert run.returncode == 2 and run.stdout == "" and run.stderr == f"tantrix-pi: {line}\n"
    assert "no such file" not in run.stderr


# -- the calibration --------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_board_too_small_to_print_is_refused_in_the_language(lang, capsys, tmp_path):
    assert main(["--lang", lang, "calibrate", "board", "--squares", "2x2", "--out", str(tmp_path / "s.png")]) == 2
    line = words(lang).gettext("a ChArUco board needs at least 3x3 squares, not {x}x{y}").format(x=2, y=2)
    assert said(capsys) == f"tantrix-pi: {line}\n"
    assert line != "a ChArUco board needs at least 3x3 squares, not 2x2"
    assert main(["--lang", lang, "calibrate", "board", "--squares", "seven", "--out", str(tmp_path / "s.png")]) == 2
    line = words(lang).gettext("--squares {squares!r}: expected COLUMNSxROWS, e.g. 7x5").format(squares="seven")
    assert said(capsys) == f"tantrix-pi: {line}\n" and not (tmp_path / "s.png").exists()


@pytest.mark.parametrize("lang", ["es", "cs", "pl", "hu"])
def test_too_few_lens_views_are_refused_in_the_language_with_the_count_in_its_plural(lang, photos, capsys, tmp_path):
    blank = str(photos / "blank.png")
    assert main(["--lang", lang, "calibrate", "camera", blank, "--calibration", str(tmp_path / "p.toml")]) == 2
    ours = words(lang)
    why = ours.gettext("board not found: {why}").format(
        why=ours.gettext("no ArUco markers at all: is the board in view, lit and in focus?"))
    line = ours.ngettext("{n} usable view, at least {need} needed ({why}): take more photos of the board at different "
                         "angles", "{n} usable views, at least {need} needed ({why}): take more photos of the board at "
                         "different angles", 0).format(n=0, need=6, why=f"{blank}: {why}")
    assert said(capsys) == f"tantrix-pi: {line}\n"
    assert "usable view" not in line and "board not found" not in line and not (tmp_path / "p.toml").exists()


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_missing_profile_is_named_and_advised_in_the_language(lang, photos, capsys, tmp_path):
    profile = tmp_path / "none.toml"
    assert main(["--lang", lang, "calibrate", "check", str(photos / "noise.png"), "--calibration", str(profile)]) == 2
    ours = words(lang)
    problem = ours.gettext("{path}: no such {what}").format(path=profile, what=ours.gettext("calibration profile"))
    line = ours.gettext("{problem}: {advice}").format(problem=problem,
                                                     advice=ours.gettext("run `tantrix-pi calibrate camera` first"))
    assert said(capsys) == f"tantrix-pi: {line}\n"
    assert "calibration profile" not in line and "first" not in line


@pytest.mark.parametrize("lang", TRANSLATED)
def test_what_calibration_prints_follows_the_language(lang, capsys):
    from tantrix_pi.calibration.charuco import BoardSpec
    from tantrix_pi.calibration.live import capture
    from tantrix_pi.calibration.profile import Profile

    ours = words(lang)
    i18n.use(lang)
    described = Profile().describe()
    sections = ("camera", "table", "colour")
    assert described == "; ".join(ours.gettext(f"{section} not calibrated") for section in sections)
    assert described != "camera not calibrated; table not calibrated; colour not calibrated"
    assert BoardSpec().describe() == ours.gettext(
        "ChArUco {x}x{y} squares of {square:g} mm, markers {marker:g} mm, {dictionary}").format(
        x=7, y=5, square=30.0, marker=22.0, dictionary="DICT_5X5_100")
    assert capture(12, BoardSpec(), iter([])) == []  # no frame came: the progress bar's first line only
    bar = capsys.readouterr().err
    shown = ours.ngettext("{done}/{total} view", "{done}/{total} views", 12).format(done=0, total=12)
    assert f"] {shown}  {ours.gettext('show the board to the camera')}" in bar and "views" not in bar


def test_the_printed_sheet_and_the_check_overlay_draw_the_languages_letters():
    from tantrix_pi.calibration.charuco import BoardSpec, find, sheet
    from tantrix_pi.calibration.check import _caption

    pages = {}
    for lang in ("en", "cs"):
        i18n.use(lang)
        pages[lang] = sheet(BoardSpec()).image
    changed = np.nonzero((pages["en"] != pages["cs"]).any(axis=1))[0]
    board_bottom = round((210 - 5 * 30) / 2 / 25.4 * 300) + 5 * round(30 / 25.4 * 300)
    assert len(changed) and changed.min() > board_bottom  # the caption only: the board is the same
    assert len(find(pages["cs"], BoardSpec()).ids) == BoardSpec().corners
    drawn = {}
    for text in ("stůl změřen", "stul zmeren", "st\ue000l zm\ue000\ue000en"):
        out = np.zeros((120, 640, 3), np.uint8)
        _caption(out, text)
        drawn[text] = out
    assert (drawn["stůl změřen"] != drawn["stul zmeren"]).any()  # ů and ř are letters of their own ...
    assert (drawn["stůl změřen"] != drawn["st\ue000l zm\ue000\ue000en"]).any()  # ... not a missing glyph's box
