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

FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf  # the screens' font: it has č ř ő ű ł ż ñ

apt_install() {
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get install -y "$@" || { $sudo apt-get update && $sudo apt-get install -y "$@"; }
}

make_venv() {
    if ! python3 -c 'import ensurepip' 2>/dev/null; then
        echo "run.sh: python3 cannot make a venv here; installing Debian's python3-venv" >&2
        apt_install python3-venv
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
    if [ ! -e "$FONT" ]; then
        echo "run.sh: the display font is missing; installing Debian's fonts-dejavu-core" >&2
        apt_install fonts-dejavu-core
    fi
    [ -x "$VENV/bin/python" ] || make_venv
    cmp -s pyproject.toml "$VENV/.installed$1" && return
    [ -z "$1" ] && cmp -s pyproject.toml "$VENV/.installed[dev]" && return  # [dev] includes the package
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".$1"
    cp pyproject.toml "$VENV/.installed$1"
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
