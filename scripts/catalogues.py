"""Extract, update and compile the message catalogues with Babel: `./run.sh catalogues` (docs/languages.md).

1. extract every marked message of tantrix_pi/, vision/ and calibration/ into tantrix_pi/locale/tantrix_pi.pot;
2. update each language's tantrix_pi/locale/LANG/LC_MESSAGES/tantrix_pi.po from it (made when missing),
   keeping what is translated; a changed message comes back fuzzy, a new one empty;
3. compile each .po (and the hand-kept argparse.po, argparse's own words) to the .mo that ships inside the
   package (the runtime needs only the stdlib's gettext).

Translate the empty and fuzzy entries of the .po files, then run it again. tests/test_languages.py fails
while any message is missing, fuzzy, or drops or adds a placeholder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from babel.messages.frontend import CommandLineInterface

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (ROOT / "tantrix_pi", ROOT / "vision", ROOT / "calibration")
"""Where messages are marked: the package, vision/ and calibration/ (installed as tantrix_pi.vision and
tantrix_pi.calibration: the verdict words, the photo reader's and the set-up steps' refusals)."""
LOCALE = ROOT / "tantrix_pi" / "locale"
DOMAIN = "tantrix_pi"
ARGPARSE = "argparse"
"""Python's argparse's own words (usage, help headings, its errors): LANG/LC_MESSAGES/argparse.po, kept by hand
(argparse's messages are not in our code to extract), compiled beside ours."""
TEMPLATE = LOCALE / f"{DOMAIN}.pot"
MAPPING = ROOT / "scripts" / "babel.cfg"
"""Which files hold messages: Python code and the web page's Jinja templates."""
METHODS = [("**.py", "python"), ("**/templates/**.html", "jinja2")]
"""MAPPING as Babel's method map (for the tests' extraction)."""
KEYWORDS = ("_", "N_", "ngettext:1,2", "pgettext:1c,2")
"""The marking functions of tantrix_pi.i18n, as Babel's extract takes them."""
PLURAL_FORMS = {
    "en": "nplurals=2; plural=(n != 1);",
    "cs": "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;",
    "hu": "nplurals=2; plural=(n != 1);",
    "pl": "nplurals=3; plural=(n==1) ? 0 : (n%10>=2 && n%10<=4 && (n%100<12 || n%100>14)) ? 1 : 2;",
    "es": "nplurals=2; plural=(n != 1);",
}
"""gettext's plural rule of each language (tests/test_languages.py checks each catalogue's header)."""


def pybabel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])


def catalogue(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def main() -> int:
    from tantrix_pi.i18n import DEFAULT, LANGUAGES

    os.chdir(ROOT)  # the catalogues name source files from the repository's root
    LOCALE.mkdir(parents=True, exist_ok=True)
    keywords = [f"--keyword={k}" for k in KEYWORDS]
    pybabel("extract", f"--mapping={MAPPING}", "--no-default-keywords", *keywords, "--add-comments=TRANSLATORS:",
            "--add-location=file", "--sort-by-file", "--no-wrap", "--project=tantrix-pi",
            "--copyright-holder=tantrix-pi", f"--output-file={TEMPLATE}", *(source.name for source in SOURCES))
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue  # the messages are written in English
        po = catalogue(lang)
        if not po.exists():
            pybabel("init", f"--input-file={TEMPLATE}", f"--output-dir={LOCALE}", f"--domain={DOMAIN}",
                    f"--locale={lang}", "--no-wrap")
            _set_plural_forms(po, PLURAL_FORMS[lang])
        pybabel("update", f"--input-file={TEMPLATE}", f"--output-dir={LOCALE}", f"--domain={DOMAIN}",
                f"--locale={lang}", "--no-wrap", "--ignore-obsolete")
        pybabel("compile", f"--directory={LOCALE}", f"--domain={DOMAIN}", f"--locale={lang}", "--statistics")
        pybabel("compile", f"--directory={LOCALE}", f"--domain={ARGPARSE}", f"--locale={lang}", "--statistics")
    return 0


def _set_plural_forms(po: Path, rule: str) -> None:
    """Keep gettext's rule in the header (Babel writes CLDR's, which gives Spanish a third form for millions)."""
    lines = po.read_text(encoding="utf-8").splitlines(keepends=True)
    po.write_text("".join(f'"Plural-Forms: {rule}\\n"\n' if line.startswith('"Plural-Forms:') else line
                          for line in lines), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
