#!/bin/sh
# Proof that tantrix-pi installs and passes its tests on a Pi's software: an arm64 Debian bookworm root
# (the base of 64-bit Raspberry Pi OS) made with debootstrap, run on this machine through qemu-user.
# Not part of CI (it takes a while).
#
#   sudo scripts/arm64-check.sh [--install-too] [ROOT]
#
# ROOT defaults to /var/tmp/tantrix-arm64 and is kept for re-runs. --install-too then also runs
# systemd/install.sh there twice (it must be idempotent), tries `tantrix-pi devices check` as the service
# user, and undoes it all with --purge (systemctl only enables units inside a chroot; it starts nothing).
#
# Steps: install debootstrap, qemu-user-static and binfmt-support if missing; register the aarch64
# interpreter with binfmt_misc; debootstrap the root once; copy this checkout (committed files only) into
# it; make a venv with --system-site-packages there; pip install '.[pi,dev]'; run pytest.
set -eu
INSTALL_TOO=0
if [ "${1:-}" = --install-too ]; then INSTALL_TOO=1; shift; fi
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
inside() {
    env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive PIP_CERT=/etc/ssl/certs/ca-certificates.crt chroot "$ROOT" /bin/sh -eu -c "$1"
}

inside '
    echo "arm64-check: inside: $(uname -m), $(python3 --version), Debian $(cat /etc/debian_version)"
    [ -x /opt/venv/bin/python ] || python3 -m venv --system-site-packages /opt/venv
    /opt/venv/bin/pip install --quiet --disable-pip-version-check "/opt/tantrix-pi-src[pi,dev]"
    /opt/venv/bin/pip list --disable-pip-version-check 2>/dev/null \
        | grep -i -E "^(numpy|opencv-python-headless|scipy|pillow|gpiozero|luma\.[a-z]+|lgpio|pytest) " || true
    cd /opt/tantrix-pi-src
    /opt/venv/bin/python -c "import platform; print(\"arm64-check: python machine\", platform.machine())"
    /opt/venv/bin/python -m pytest -p no:cacheprovider -rs
'
[ "$INSTALL_TOO" = 1 ] || exit 0

inside '
    printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    if ! command -v systemctl >/dev/null; then apt-get update -q && apt-get install -y -q systemd; fi
    src=/opt/tantrix-pi-src
    echo "arm64-check: install.sh, first run"
    $src/systemd/install.sh
    echo "arm64-check: install.sh, second run (idempotent)"
    $src/systemd/install.sh
    echo "arm64-check: enabled: $(systemctl is-enabled tantrix-pi.service); $(id tantrix-pi)"
    head -2 /etc/tantrix-pi/config.toml
    runuser -u tantrix-pi -- /opt/tantrix-pi/venv/bin/tantrix-pi devices check --display png:/tmp/frames \
        --option model=ssd1306
    echo "arm64-check: install.sh --purge"
    $src/systemd/install.sh --purge
    if id tantrix-pi 2>/dev/null || [ -e /opt/tantrix-pi ] || [ -e /etc/systemd/system/tantrix-pi.service ]; then
        echo "arm64-check: --purge left something behind" >&2; exit 1
    fi
    rm -f /usr/sbin/policy-rc.d
'
