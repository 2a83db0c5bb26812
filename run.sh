#!/bin/sh
# Set up the project's virtual environment (once) and run one job in it.
#   ./run.sh demo          the main job on its bundled default (no camera needed)
#   ./run.sh test          the test suite (lint included)
#   ./run.sh tantrix-pi …  any command of the package (or just its sub-command: ./run.sh detect photo.jpg)
#   ./run.sh python …      Python in the venv (e.g. ./run.sh python bench/rules.py)
#   ./run.sh catalogues    extract, update and compile the language catalogues (docs/languages.md)
# The venv sees the system's packages only where Raspberry Pi OS's apt picamera2 or lgpio are present
# (they do not come from PyPI); anywhere else it is a clean venv, so a dependency that pyproject.toml
# forgets to list fails here instead of being borrowed from the system.
set -eu
cd "$(dirname "$0")"
VENV=.venv

FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf

make_venv() {
    if ! python3 -c 'import ensurepip' 2>/dev/null; then
        echo "run.sh: python3 cannot make a venv here; installing Debian's python3-venv" >&2
        as_root apt-get install -y python3-venv
    fi
    if python3 -c 'import importlib.util as u, sys; sys.exit(not (u.find_spec("picamera2") or u.find_spec("lgpio")))'
    then
        python3 -m venv --system-site-packages "$VENV"
    else
        python3 -m venv "$VENV"
    fi
}

# Install the package (editable) with extra $1 once, and again only when pyproject.toml changes.
setup() {
    font
    [ -x "$VENV/bin/python" ] || make_venv
    cmp -s pyproject.toml "$VENV/.installed$1" && return
    [ -z "$1" ] && cmp -s pyproject.toml "$VENV/.installed[dev]" && return  # [dev] includes the package
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".$1"
    cp pyproject.toml "$VENV/.installed$1"
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

font() {
    # The screens' font, with every letter of the five languages (č ř ő ű ł ż ñ): Debian's DejaVu Sans.
    [ -e "$FONT" ] && return 0
    echo "run.sh: installing Debian's fonts-dejavu-core (the screens' font)" >&2
    as_root apt-get install -y fonts-dejavu-core ||
        { as_root apt-get update -qq && as_root apt-get install -y fonts-dejavu-core; }
}

browser() {
    # The web pages' tests drive Debian's chromium through its chromedriver (docs/web.md); the club's run Debian's
    # mosquitto as their MQTT broker (docs/club.md).
    [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && [ -x /usr/sbin/mosquitto ] && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "run.sh: no apt-get: the browser and broker tests will be skipped" >&2
        return 0
    fi
    echo "run.sh: installing Debian's chromium, chromium-driver and mosquitto for the browser and broker tests" >&2
    as_root apt-get update -qq || true
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver mosquitto >/dev/null ||
        echo "run.sh: chromium or mosquitto could not be installed: their tests will be skipped" >&2
}

job="${1:-demo}"
[ $# -gt 0 ] && shift
case "$job" in
    demo)
        setup ""
        exec "$VENV/bin/tantrix-pi" demo "$@"
        ;;
    test)
        setup "[dev]"
        browser
        exec "$VENV/bin/python" -m pytest "$@"
        ;;
    catalogues)
        setup "[dev]"
        exec "$VENV/bin/python" scripts/catalogues.py "$@"
        ;;
    *)
        setup ""
        if [ -x "$VENV/bin/$job" ]; then exec "$VENV/bin/$job" "$@"; fi
        exec "$VENV/bin/tantrix-pi" "$job" "$@"
        ;;
esac
