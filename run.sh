#!/bin/sh
# Set up the project's virtual environment (once) and run one job in it.
#   ./run.sh demo          the main job on its bundled default (no camera needed)
#   ./run.sh test          the test suite (lint included)
#   ./run.sh tantrix-pi …  any command of the package
# The venv sees the system's packages, so that Raspberry Pi OS's apt picamera2 and lgpio are used.
set -eu
cd "$(dirname "$0")"
VENV=.venv

setup() {
    if [ ! -x "$VENV/bin/python" ]; then
        if ! python3 -c 'import ensurepip' 2>/dev/null; then
            echo "run.sh: python3 cannot make a venv here; installing Debian's python3-venv" >&2
            as_root apt-get install -y python3-venv
        fi
        python3 -m venv --system-site-packages "$VENV"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".$1"
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

browser() {
    # The web page's tests drive Debian's chromium through its chromedriver (docs/web.md).
    [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && return 0
    command -v apt-get >/dev/null 2>&1 || { echo "run.sh: no apt-get: the browser tests will be skipped" >&2; return 0; }
    echo "run.sh: installing Debian's chromium and chromium-driver for the web page's browser tests" >&2
    as_root apt-get update -qq || true
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null ||
        echo "run.sh: chromium could not be installed: the browser tests will be skipped" >&2
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
    *)
        setup ""
        exec "$VENV/bin/$job" "$@"
        ;;
esac
