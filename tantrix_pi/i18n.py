"""The one language setting: what every message a person reads or hears is in (docs/languages.md).

Messages are marked in the code with `_()`, `ngettext()` and `pgettext()` (`N_()` for text kept in a
constant and translated where it is shown) and translated by the stdlib's gettext from the catalogues
compiled into `tantrix_pi/locale/` (`./run.sh catalogues` makes them with Babel). The language is chosen
once, `use(choose(option, configured))`: `--lang`, else the service's `language` key, else the gettext
environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), else English; the buttons' menu may switch it while
the service runs. A web request may speak a language of its own (`speaking(code)`: each phone reads the
page in its language) without changing the referee's. Machine fields (event kinds and data, `--json` keys,
records, the store) never pass through here.
"""

from __future__ import annotations

import argparse
import gettext
import logging
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

DOMAIN = "tantrix_pi"
ARGPARSE = "argparse"
"""The catalogue of Python's argparse's words (scripts/catalogues.py)."""
LOCALE_DIR = Path(__file__).with_name("locale")
DEFAULT = "en"
LANGUAGES = {"en": "English", "cs": "Čeština", "hu": "Magyar", "pl": "Polski", "es": "Español"}
"""The languages the referee speaks, each by its own name (as the menu shows it)."""
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""The variables gettext reads, in its order: the first one set decides."""

log = logging.getLogger(__name__)

_code = DEFAULT
_translation: gettext.NullTranslations = gettext.NullTranslations()
_warned: set[str] = set()
_speaking: ContextVar[tuple[str, gettext.NullTranslations] | None] = ContextVar("tantrix_pi_speaking", default=None)
"""The language of one context (a web request and the work it hands to threads), over the referee's."""


def code_of(name: str) -> str:
    """The language part of a language or locale name: 'cs_CZ.UTF-8' -> 'cs', 'C' and 'POSIX' -> 'en'."""
    lang = name.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].strip().lower()
    return DEFAULT if lang in ("c", "posix", "") else lang


def from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The language the gettext environment asks for (the first we speak of LANGUAGE's list), None if unset."""
    environ = os.environ if environ is None else environ
    for var in ENVIRONMENT:
        value = environ.get(var)
        if value:
            wanted = [code_of(v) for v in value.split(":") if v]
            return next((c for c in wanted if c in LANGUAGES), wanted[0] if wanted else None)
    return None


def choose(option: str | None = None, configured: str | None = None,
           environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: `--lang`, else the configured one, else the environment's, else English."""
    for given in (option, configured):
        if given:
            return code_of(given)
    return from_environment(environ) or DEFAULT


def _load(code: str) -> tuple[str, gettext.NullTranslations]:
    """(the language, its catalogue): English, with one warning, when `code` has no catalogue."""
    code = code_of(code)
    translation: gettext.NullTranslations = gettext.NullTranslations()
    if code != DEFAULT:
        try:
            translation = gettext.translation(DOMAIN, LOCALE_DIR, [code])
        except OSError:
            if code not in _warned:
                _warned.add(code)
                log.warning("tantrix-pi: no catalogue for language %r (there are %s); speaking English",
                            code, ", ".join(LANGUAGES))
            code = DEFAULT
    return code, translation


def use(code: str) -> str:
    """Speak `code` from now on and return the language in use: English, with one warning, when `code`
    has no catalogue."""
    global _code, _translation
    _code, _translation = _load(code)
    # argparse's own words (usage, "options", its errors) from their catalogue: argparse looks up its module's
    # `_` and `ngettext` each time it speaks
    words = gettext.translation(ARGPARSE, LOCALE_DIR, [_code], fallback=True)
    argparse._, argparse.ngettext = words.gettext, words.ngettext
    return _code


@contextmanager
def speaking(code: str) -> Iterator[str]:
    """Within the block (in this context only: one web request, and the threads it hands work to), speak
    `code` whatever the referee speaks; yields the language in use."""
    token = _speaking.set(_load(code))
    try:
        yield _speaking.get()[0]
    finally:
        _speaking.reset(token)


def _now() -> gettext.NullTranslations:
    here = _speaking.get()
    return here[1] if here is not None else _translation


def language() -> str:
    """The language in use ('en', 'cs', ...)."""
    here = _speaking.get()
    return here[0] if here is not None else _code


def _(message: str) -> str:
    """`message` in the current language."""
    return _now().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the count `n`, by the current language's plural rule."""
    return _now().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """`message` in the current language where `context` tells short words apart ('colour', 'player')."""
    return _now().pgettext(context, message)


def N_(message: str) -> str:
    """Mark `message` for the catalogue without translating it (it is translated where it is shown)."""
    return message


# -- words every module shares ---------------------------------------------------------------------
def colour_name(code: str) -> str:
    """The name of a colour (R, Y, G, B or W) as a word of its own: 'red', 'červená'."""
    return {
        "R": pgettext("colour", "red"),
        "Y": pgettext("colour", "yellow"),
        "G": pgettext("colour", "green"),
        "B": pgettext("colour", "blue"),
        "W": pgettext("colour", "white"),
    }[code]


def player_name(code: str) -> str:
    """A player, called by their colour like a name: 'Red', 'Červený'."""
    return {
        "R": pgettext("player", "Red"),
        "Y": pgettext("player", "Yellow"),
        "G": pgettext("player", "Green"),
        "B": pgettext("player", "Blue"),
    }[code]


def direction_name(d: int) -> str:
    """The short name of direction d (0..5 clockwise from north-east): 'NE', 'SV'."""
    return (
        pgettext("direction", "NE"),
        pgettext("direction", "E"),
        pgettext("direction", "SE"),
        pgettext("direction", "SW"),
        pgettext("direction", "W"),
        pgettext("direction", "NW"),
    )[d]


def listing(items: Iterable[object]) -> str:
    """Items in a list for reading: '5, 17, 33' (the comma serves every language we speak)."""
    return ", ".join(str(i) for i in items)
