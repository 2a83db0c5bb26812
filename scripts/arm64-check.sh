#!/bin/sh
# Proof that tantrix-pi installs and passes its tests on a Pi's software: an arm64 Debian bookworm root
# (the base of 64-bit Raspberry Pi OS) made with debootstrap, run on this machine through qemu-user.
# Not part of CI (it takes a while).
#
#   sudo scripts/arm64-check.sh [ROOT]     ROOT defaults to /var/tmp/tantrix-arm64 (kept for re-runs)
#
# Steps: install debootstrap, qemu-user-static and binfmt-support if missing; register the aarch64
# interpreter with binfmt_misc; debootstrap the root once; copy this checkout (committed files only) into
# it; make a venv with --system-site-packages there; pip install '.[pi,dev]'; run pytest.
set -eu
ROOT=${1:-/var/tmp/tantrix-arm64}
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "arm64-check: run as root (debootstrap and chroot need it)" >&2; exit 2; }

need() { command -v "$1" >/dev/null 2>&1; }
if ! need debootstrap || ! need qemu-aarch64-static || ! need update-binfmts; then
    apt-get install -y debootstrap qemu-user-static binfmt-support
fi
if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64

if [ ! -x "$ROOT/usr/bin/python3" ]; then
    echo "arm64-check: debootstrap arm64 bookworm into $ROOT"
    debootstrap --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,python3-pip,python3-dev,gcc,libc6-dev,ca-certificates,git \
        bookworm "$ROOT"
fi

cleanup() {
    for m in dev/pts dev proc sys; do
        mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m"
    done
}
trap cleanup EXIT INT TERM
mount -t proc proc "$ROOT/proc"
mount -t sysfs sysfs "$ROOT/sys"
mount --bind /dev "$ROOT/dev"
mount --bind /dev/pts "$ROOT/dev/pts"
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# Trust what this machine trusts: its network may reach the package index through a proxy of its own.
cp -L /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"

rm -rf "$ROOT/opt/tantrix-pi-src"
mkdir -p "$ROOT/opt/tantrix-pi-src"
git -C "$SRC" archive HEAD | tar -x -C "$ROOT/opt/tantrix-pi-src"

# A clean environment: none of this machine's pip settings (local wheel folders, constraints) apply there.
env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt chroot "$ROOT" /bin/sh -eu -c '
    echo "arm64-check: inside: $(uname -m), $(python3 --version), Debian $(cat /etc/debian_version)"
    [ -x /opt/venv/bin/python ] || python3 -m venv --system-site-packages /opt/venv
    /opt/venv/bin/pip install --quiet --disable-pip-version-check "/opt/tantrix-pi-src[pi,dev]"
    /opt/venv/bin/pip list --disable-pip-version-check 2>/dev/null \
        | grep -i -E "^(numpy|opencv|scipy|pillow|gpiozero|luma|lgpio|pytest) " || true
    cd /opt/tantrix-pi-src
    /opt/venv/bin/python -c "import platform; print(\"arm64-check: python machine\", platform.machine())"
    /opt/venv/bin/python -m pytest -q -p no:cacheprovider
'
