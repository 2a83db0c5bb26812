"""The five languages: complete catalogues with their placeholders and plural forms, the one language
setting, the CLI and the live referee in every language, and screens that draw every letter."""

import gettext
import json
import logging
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from live_fakes import detect_frame, scene_frames

from scripts.catalogues import DOMAIN, KEYWORDS, LOCALE, METHODS, PLURAL_FORMS, SOURCES, catalogue
from tantrix_pi import i18n
from tantrix_pi.cli import main

ROOT = Path(__file__).resolve().parents[1]
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]
FORCED_SPACE = {"en": "forced space", "cs": "Nucené místo", "hu": "kötelező hely", "pl": "miejsce przymusu",
                "es": "engullido"}
"""What `board check` calls a forced space: the rule books' words (docs/languages.md)."""
LETTERS = {"cs": "čřěůž", "hu": "őűö", "pl": "łżąę", "es": "ñáé"}
"""Letters each language needs that Pillow's bundled font lacks."""


def po(lang: str):
    with open(catalogue(lang), "rb") as f:
        return read_po(f)


def entries(lang: str):
    return [m for m in po(lang) if m.id]


def keywords() -> dict:
    """Babel's keyword specs from scripts/catalogues.py's KEYWORDS."""
    out = {}
    for k in KEYWORDS:
        name, _, spec = k.partition(":")
        if not spec:
            out[name] = None
            continue
        parts = tuple((int(p[:-1]), "c") if p.endswith("c") else int(p) for p in spec.split(","))
        out[name] = parts if len(parts) > 1 else parts[0]
    return out


def plain(m) -> tuple:
    """A message as (context, id or ids, string or strings), the same whether read from a .po or a .mo."""
    return m.context, *(tuple(v) if isinstance(v, list | tuple) else v for v in (m.id, m.string))


def fields(text: str) -> set:
    """The placeholders of a brace-format string: (name, format spec, conversion) of each."""
    return {(name, spec, conv) for _, name, spec, conv in string.Formatter().parse(text) if name is not None}


# -- the catalogues ---------------------------------------------------------------------------------
def test_every_message_of_the_code_is_in_every_catalogue_and_nothing_else():
    in_code = {(ctx, msg[0] if isinstance(msg, tuple) else msg) for source in SOURCES
               for _, _, msg, _, ctx in extract_from_dir(source, METHODS, keywords=keywords(), comment_tags=())}
    assert len(in_code) > 300
    for lang in TRANSLATED:
        in_po = {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id) for m in entries(lang)}
        new, gone = sorted(in_code - in_po)[:5], sorted(in_po - in_code)[:5]
        assert in_po == in_code, f"{lang}: run ./run.sh catalogues (new in the code: {new}; gone from it: {gone})"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated(lang):
    missing = [m.id for m in entries(lang)
               if "fuzzy" in m.flags or not all(m.string if isinstance(m.string, tuple) else (m.string,))]
    assert not missing, f"{lang}: {len(missing)} messages untranslated or fuzzy, e.g. {missing[:5]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_translation_drops_or_adds_a_placeholder(lang):
    wrong = []
    for m in entries(lang):
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        want = set().union(*(fields(i) for i in ids))
        for text in m.string if isinstance(m.string, tuple) else (m.string,):
            if fields(text) != want:
                wrong.append((m.id, text))
                continue
            text.format(**{name: 1 for name, _, _ in want})  # well formed, and every format spec still applies
    assert not wrong, f"{lang}: placeholders differ: {wrong[:3]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_plural_forms_follow_gettexts_rule_for_the_language(lang):
    catalog = po(lang)
    assert catalog.plural_forms == PLURAL_FORMS[lang]
    plural = [m for m in entries(lang) if isinstance(m.id, tuple)]
    assert plural and all(len(m.string) == catalog.num_plurals for m in plural)


@pytest.mark.parametrize("lang, counts, words", [
    ("cs", (1, 2, 5, 22), ("kámen", "kameny", "kamenů", "kamenů")),
    ("pl", (1, 3, 12, 24), ("płytka", "płytki", "płytek", "płytki")),
    ("hu", (1, 5), ("lapka", "lapka")),
    ("es", (1, 5), ("ficha", "fichas")),
])
def test_counted_tiles_take_the_languages_plural_forms(lang, counts, words):
    i18n.use(lang)
    said = [i18n.ngettext("{file}: {n} tile", "{file}: {n} tiles", n).format(file="b.json", n=n) for n in counts]
    assert said == [f"b.json: {n} {word}" for n, word in zip(counts, words, strict=True)]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_shipped_compiled_catalogue_is_its_po_compiled(lang):
    mo = catalogue(lang).with_suffix(".mo")
    with open(mo, "rb") as f:
        compiled = {plain(m) for m in read_mo(f) if m.id}
    written = {plain(m) for m in entries(lang)}
    assert compiled == written, f"{mo} is stale: run ./run.sh catalogues"
    assert gettext.find(DOMAIN, LOCALE, [lang]) == str(mo)


def test_pyproject_ships_the_compiled_catalogues_inside_the_package():
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["package-data"]["tantrix_pi"]
    package = ROOT / "tantrix_pi"
    shipped = {p for pattern in patterns for p in package.glob(pattern)}
    assert {catalogue(lang).with_suffix(".mo") for lang in TRANSLATED} <= shipped


# -- the one setting --------------------------------------------------------------------------------
@pytest.mark.parametrize("environ, chosen", [
    ({"LANG": "cs_CZ.UTF-8"}, "cs"),
    ({"LC_MESSAGES": "hu_HU.UTF-8", "LANG": "cs_CZ.UTF-8"}, "hu"),
    ({"LC_ALL": "pl_PL.UTF-8", "LC_MESSAGES": "hu_HU"}, "pl"),
    ({"LANGUAGE": "de:es", "LC_ALL": "pl_PL.UTF-8"}, "es"),
    ({"LANGUAGE": "", "LANG": "es_ES@euro"}, "es"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({}, "en"),
])
def test_the_language_comes_from_the_gettext_environment_in_its_order(environ, chosen):
    assert i18n.choose(environ=environ) == chosen


def test_lang_and_the_configured_language_come_before_the_environment():
    env = {"LANG": "cs_CZ.UTF-8"}
    assert i18n.choose("hu", "pl", env) == "hu"
    assert i18n.choose(None, "pl", env) == "pl"
    assert i18n.choose(None, "", env) == "cs"


def test_a_language_without_catalogue_speaks_english_after_one_warning(caplog, monkeypatch, tmp_path):
    monkeypatch.setattr(i18n, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="tantrix_pi.i18n"):
        assert i18n.use("de") == "en"
        assert i18n.use("de") == "en"
    assert len(caplog.records) == 1 and "'de'" in caplog.records[0].getMessage()
    assert i18n.language() == "en" and i18n.pgettext("player", "Red") == "Red"
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)  # an install that lost its catalogues
    assert i18n.use("cs") == "en" and i18n.colour_name("R") == "red"
    assert len(caplog.records) == 2


def test_a_config_names_a_language_or_is_refused_in_one_line():
    from tantrix_pi.live.config import ConfigError, from_dict

    assert from_dict({"language": "cs"}).language == "cs"
    assert from_dict({"language": "cs_CZ.UTF-8"}).language == "cs_CZ.UTF-8"
    assert from_dict({}).language == ""
    with pytest.raises(ConfigError, match="language = 'klingon' is wrong: expected one of en, cs, hu, pl, es"):
        from_dict({"language": "klingon"})


# -- the command line -------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_board_check_names_the_forced_space_in_the_rule_books_words(lang, capsys):
    assert main(["--lang", lang, "board", "check", str(ROOT / "examples" / "game.json")]) == 0
    out = capsys.readouterr().out
    assert FORCED_SPACE[lang] in out and "(4,-1)" in out and "43, 47, 56" in out


def test_the_environment_chooses_the_language_of_a_command_and_json_stays_machine(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in i18n.ENVIRONMENT} | {"LANG": "cs_CZ.UTF-8"}
    board = str(ROOT / "examples" / "game.json")
    run = [sys.executable, "-m", "tantrix_pi", "board", "check", board]
    said = subprocess.run(run, capture_output=True, text=True, env=env, cwd=ROOT)
    assert said.returncode == 0 and "Nucené místo A na (4,-1)" in said.stdout and "platné" in said.stdout
    english = subprocess.run([*run, "--json"], capture_output=True, text=True, env=os.environ, cwd=ROOT).stdout
    czech = subprocess.run([*run, "--json"], capture_output=True, text=True, env=env, cwd=ROOT).stdout
    assert json.loads(czech) == json.loads(english)
    bad = subprocess.run([*run[:-1], str(tmp_path / "none.json")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert bad.returncode == 2 and bad.stderr == f"tantrix-pi: {tmp_path / 'none.json'}: soubor neexistuje\n"


def test_a_game_record_replays_in_any_language(capsys):
    record = str(ROOT / "examples" / "game-record.json")
    out = {}
    for lang in ("cs", "es"):
        assert main(["--lang", lang, "game", "replay", record]) == 0
        out[lang] = capsys.readouterr().out
    assert "kámen" in out["cs"] and "na tahu je" in out["cs"]
    assert "ficha" in out["es"] and "juega" in out["es"]
    numbered = {lang: [line.split(".")[0] for line in text.splitlines() if re.match(r"\d+\. ", line)]
                for lang, text in out.items()}
    assert numbered["cs"] == numbered["es"] and len(numbered["cs"]) > 10


# -- the live referee -------------------------------------------------------------------------------
def referee_run(tmp_path, lang):
    from tantrix_pi.devices.sources import sequence_source
    from tantrix_pi.live.loop import LiveLoop
    from tantrix_pi.live.recording import game_moves, script
    from tantrix_pi.live.referee import Setup
    from tantrix_pi.live.sinks import MemorySink
    from tantrix_pi.live.store import Store

    i18n.use(lang)
    store = Store(tmp_path / lang / "state.db")
    sink = MemorySink()
    frames = scene_frames(script(game_moves(3), still=4, hand=2, illegal_at=9))
    loop = LiveLoop(sequence_source(frames), detect_frame, store, Setup(), sink)
    loop.run()
    return sink.events, store.events(loop.game), store


def test_the_live_referee_says_the_same_game_in_every_language(tmp_path):
    runs = {lang: referee_run(tmp_path, lang) for lang in i18n.LANGUAGES}
    said_en, stored_en, _ = runs["en"]
    kinds = [e.kind for e in said_en]
    assert {"placed", "forced", "illegal", "taken_back", "bag_empty", "scores", "game_over"} <= set(kinds)
    for lang, (said, stored, store) in runs.items():
        assert [e.kind for e in said] == kinds, lang
        assert [e.data for e in said] == [e.data for e in said_en], lang  # machine fields: the same in every language
        assert stored == stored_en  # and the store keeps only those
        columns = [c[1] for c in store.db.execute("PRAGMA table_info(events)")]
        assert "text" not in columns
        if lang != "en":
            differ = sum(a.text != b.text for a, b in zip(said, said_en, strict=True))
            assert differ == len(said), f"{lang}: {len(said) - differ} announcements left in English"
    from tantrix_pi.live.replay import said_steps

    played_in_czech = runs["cs"][2]
    for lang in ("es", "en"):  # the game stored in Czech, told again in Spanish and in English
        i18n.use(lang)
        again = [e for _, events in said_steps(played_in_czech, played_in_czech.last_game()[0]) for e in events]
        assert [(e.kind, e.text) for e in again] == [(e.kind, e.text) for e in runs[lang][0]]
    forced = {lang: next(e.text for e in said if e.kind == "forced") for lang, (said, _, _) in runs.items()}
    assert forced["cs"].startswith(("Nucené místo:", "Nucená místa:"))
    assert forced["hu"].startswith(("Kötelező hely:", "Kötelező helyek:"))
    assert forced["pl"].startswith(("Miejsce przymusu:", "Miejsca przymusu:"))
    assert forced["es"].startswith(("Engullido:", "Engullidos:"))


def test_solitaire_and_four_lines_are_said_in_every_language_with_the_same_data(tmp_path):
    from test_live_modes import run, solitaire_moves

    from tantrix_pi.live.recording import load_record, placements
    from tantrix_pi.live.referee import Setup

    game, _ = solitaire_moves(seed=2)
    plays = {"solitaire": (game.moves, Setup("solitaire", [], "solitaire")),
             "four-lines": (placements(load_record()), Setup("four-lines", [], None))}
    for mode, (moves, setup) in plays.items():
        runs = {}
        for lang in i18n.LANGUAGES:
            i18n.use(lang)
            runs[lang] = run(tmp_path / mode / lang, moves, setup)[1].events
        english = runs["en"]
        for lang, said in runs.items():
            assert [(e.kind, e.data) for e in said] == [(e.kind, e.data) for e in english], (mode, lang)
            if lang != "en":
                left = [e.text for e, en in zip(said, english, strict=True) if e.text == en.text]
                assert not left, f"{mode} {lang}: left in English: {left[:3]}"
    i18n.use("cs")
    said = {e.kind: e.text for e in run(tmp_path / "cs-again", game.moves, plays["solitaire"][1])[1].events}
    assert said["draw"] in ("Vytáhněte si kámen.", "Bonus za zaplněné nucené místo: vytáhněte si 2 kameny.")
    assert said["solitaire_over"].startswith("Konec solitéru:")
    over = next(e for e in runs["pl"] if e.kind == "four_over")
    assert over.text.startswith("Wszystkie 56 płytek leży na stole. Cztery linie: ")
    assert set(over.data["faults"]) == {"mismatches", "holes", "groups"}  # what keeps it from counting, as data


def test_a_store_of_schema_1_loses_its_words_and_keeps_its_game(tmp_path):
    import sqlite3

    from tantrix_pi.live.store import Store

    path = tmp_path / "state.db"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema', '1');
        CREATE TABLE games (id INTEGER PRIMARY KEY, started REAL NOT NULL, setup TEXT NOT NULL, ended REAL);
        INSERT INTO games VALUES (1, 0, '{"mode": "game", "players": ["R", "B"]}', NULL);
        CREATE TABLE events (id INTEGER PRIMARY KEY, game INTEGER NOT NULL, board INTEGER,
            kind TEXT NOT NULL, text TEXT NOT NULL, data TEXT NOT NULL, at REAL NOT NULL);
        INSERT INTO events VALUES (1, 1, NULL, 'end_turn', 'Red ends the turn: blue to play.',
            '{"player": "R", "after": 1, "next": "B"}', 0);
    """)
    db.commit()
    db.close()
    store = Store(path)
    assert store.current_game()[0] == 1
    assert [(e.kind, e.data["after"]) for e in store.events(1)] == [("end_turn", 1)]
    assert "text" not in [c[1] for c in store.db.execute("PRAGMA table_info(events)")]


def test_the_menu_switches_the_language_and_the_voice_follows_it(tmp_path):
    from tantrix_pi.devices.buttons import Press as Button
    from tantrix_pi.devices.menu import Menu, Settings
    from tantrix_pi.devices.voice import FakeVoice
    from tantrix_pi.live.sinks import Sinks, VoiceSink

    menu = Menu(Settings())
    menu.handle(Button.MENU)
    while menu.items()[menu.index] != "language":
        menu.handle(Button.MENU)
    assert menu.label("language") == "Language: English"
    (command,) = menu.handle(Button.NEXT)
    assert command.name == "language" and command.settings.language == "cs"
    follows, own = VoiceSink(FakeVoice()), VoiceSink(FakeVoice(language="en"), follows=False)
    Sinks([follows, own]).set_language(i18n.use(command.settings.language))
    assert menu.screen().lines[0] == "Režim: hra" and menu.label("language") == "Jazyk: Čeština"
    assert follows.voice.language == "cs" and own.voice.language == "en"


def test_the_voice_speaks_the_referees_language_unless_configured_otherwise(monkeypatch):
    from tantrix_pi.live.sinks import VoiceSink

    monkeypatch.setattr("shutil.which", lambda command: None)  # no espeak-ng here: a silent voice, same settings
    i18n.use("hu")
    assert VoiceSink.open("").voice.language == "hu"
    assert VoiceSink.open("es").voice.language == "es"


# -- the screens ------------------------------------------------------------------------------------
def words_with(lang: str, letters: str) -> str:
    """Real translations of the catalogue that hold each letter (the shortest one per letter)."""
    strings = [s for m in entries(lang) for s in (m.string if isinstance(m.string, tuple) else (m.string,))]
    picked = []
    for letter in letters:
        word = min((w for s in strings for w in s.split() if letter in w and "{" not in w), key=len)
        picked.append(word)
    return " ".join(picked)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("model", ["ssd1306", "st7789", "ili9341"])
def test_every_screen_draws_each_letter_of_every_language(lang, model):
    import numpy as np

    from tantrix_pi.devices.display import open_display
    from tantrix_pi.devices.screen import Screen

    display = open_display("none", {"model": model})
    text = words_with(lang, LETTERS[lang])
    assert set(LETTERS[lang]) <= set(text)
    frame = np.asarray(display.show(Screen(message=text)))
    for letter in LETTERS[lang]:
        missing_glyph = np.asarray(display.show(Screen(message=text.replace(letter, "\ue000"))))
        bare = np.asarray(display.show(Screen(message=text.replace(letter, "o"))))
        assert (frame != missing_glyph).any(), f"{model}: {letter!r} draws as a missing glyph"
        assert (frame != bare).any(), f"{model}: {letter!r} draws as nothing"


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_every_menu_line_fits_the_narrowest_screens_in_every_language(lang):
    from tantrix_pi.devices.frames import font
    from tantrix_pi.devices.menu import MODES, Menu, Settings

    i18n.use(lang)
    lines = set()
    for mode in MODES:
        for language in i18n.LANGUAGES:
            menu = Menu(Settings(mode=mode, players=4, discovery=30, language=language))
            lines |= {menu.label(key) for key in menu.items()}
    mono, colour = font(11), font(240 // 15)  # the ssd1306's menu font and the st7789's, as frames.py draws them
    too_wide = [line for line in lines if mono.getlength(line) > 128 - 2 or colour.getlength(line) > 240 - 12]
    assert not too_wide, f"{lang}: {too_wide}"


def test_the_web_page_speaks_the_tables_language_and_replays_a_game_in_it(tmp_path):
    from starlette.testclient import TestClient

    from tantrix_pi.web.app import Site, make_app
    from tantrix_pi.web.hub import Hub

    _, _, store = referee_run(tmp_path, "cs")  # a game played in Czech
    game = store.last_game()[0]
    for lang, heading, forced in (("hu", "Kötelező helyek", "Kötelező hely"), ("es", "Engullidos", "Engullido")):
        i18n.use(lang)
        with TestClient(make_app(Site(Hub(), store.path))) as client:
            page = client.get("/").text
            text = json.loads(re.search(r'<script type="application/json" id="text">(.*?)</script>', page, re.S)[1])
            steps = client.get(f"/api/games/{game}/steps").json()["steps"]
            refused = client.post("/api/control/end-turn", json={})
        assert f'<html lang="{lang}">' in page and f"<h2>{heading}</h2>" in page
        assert text["player"]["R"] == i18n.player_name("R") and text["no_forced"] != "No forced space."
        said = [t for s in steps for t in s["events"]]
        assert any(t.startswith(forced) for t in said)  # the stored game, told in the page's language
        assert refused.status_code == 403 and refused.json()["error"] == i18n._(
            "pair this phone first: enter the code the table's display shows")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_calibrate_group_and_argparse_own_words_speak_the_language(lang, capsys):
    ours = gettext.translation("tantrix_pi", LOCALE, [lang])
    words = gettext.translation("argparse", LOCALE, [lang])
    assert main(["--lang", lang, "calibrate", "colour", "--help"]) == 0
    out = capsys.readouterr().out
    flowing = " ".join(out.split())  # argparse wraps the help at the terminal's width
    for text in (ours.gettext("Learn white balance and the tile colours from a photo of face-up tiles."),
                 ours.gettext("take the photo with the camera"), words.gettext("usage: "),
                 words.gettext("options"), words.gettext("show this help message and exit")):
        assert " ".join(text.split()) in flowing, (text, out)
    assert "usage:" not in out and "show this help" not in out
    assert main(["--lang", lang, "calibrate"]) == 2
    err = capsys.readouterr().err
    assert words.gettext("the following arguments are required: %s") % "COMMAND" in err
    i18n.use("en")
