"""Files the service reads and keeps: a TOML file read with one-line errors, and the state folder
systemd gives it ($STATE_DIRECTORY). Shared by the live config and the calibration profile."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _


def read_toml(path: str | os.PathLike, error: type[TantrixError], what: str, missing: str = "",
              corrupt: str = "") -> dict:
    """The parsed TOML at `path`; `error` with one line naming `what` the file is when it is missing
    (then `missing` says what to do), unreadable, or not TOML (then `corrupt` says what to do)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        # TRANSLATORS: {what} names the file ("config file"), translated on its own: keep it where a name fits.
        raise error(_advise(_("{path}: no such {what}").format(path=path, what=what), missing)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise error(_("{path}: cannot read the {what} ({error})").format(
            path=path, what=what, error=f"{e.__class__.__name__}: {e}")) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise error(_advise(_("{path}: the {what} is not valid TOML ({error})").format(path=path, what=what, error=e),
                            corrupt)) from None
    except (ValueError, RecursionError):  # a number longer than Python reads, or arrays nested thousands deep
        raise error(_advise(_("{path}: the {what} cannot be read: a number is too long or the values nest too "
                              "deeply").format(path=path, what=what), corrupt)) from None


def _advise(problem: str, advice: str) -> str:
    """A problem, then what to do about it when there is something to say."""
    return _("{problem}: {advice}").format(problem=problem, advice=advice) if advice else problem


def state_directory() -> Path | None:
    """The first of systemd's StateDirectory= folders ($STATE_DIRECTORY), None outside such a service."""
    state = os.environ.get("STATE_DIRECTORY")
    return Path(state.split(":")[0]) if state else None
