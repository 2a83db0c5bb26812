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
            if [ "$(id -u)" -eq 0 ]; then apt-get install -y python3-venv; else sudo apt-get install -y python3-venv; fi
        fi
        python3 -m venv --system-site-packages "$VENV"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".$1"
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
    *)
        setup ""
        exec "$VENV/bin/$job" "$@"
        ;;
esac
