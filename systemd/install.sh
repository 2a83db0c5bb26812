#!/bin/sh
# Install tantrix-pi as a boot service on Raspberry Pi OS (bookworm). Idempotent: run it again to update.
#
#   sudo systemd/install.sh               install or update, enable and (re)start the service
#   sudo systemd/install.sh --uninstall   stop and remove the service and its venv (config and games kept)
#   sudo systemd/install.sh --purge       --uninstall, and also remove the config, the games and the user
#   systemd/install.sh --dry-run ...      only print what would be done
#   --no-apt                              do not install Debian packages
#
# Layout: venv in /opt/tantrix-pi/venv (made with --system-site-packages, so that apt's picamera2 and
# lgpio are seen), config /etc/tantrix-pi/config.toml, state /var/lib/tantrix-pi, unit
# /etc/systemd/system/tantrix-pi.service, user and group tantrix-pi in the groups video gpio i2c spi audio.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${TANTRIX_PREFIX:-/opt/tantrix-pi}
CONFIG_DIR=${TANTRIX_CONFIG_DIR:-/etc/tantrix-pi}
UNIT_DIR=${TANTRIX_UNIT_DIR:-/etc/systemd/system}
STATE_DIR=/var/lib/tantrix-pi
SERVICE=tantrix-pi.service
SOCKET=tantrix-pi-web.socket
ACCOUNT=tantrix-pi
DEVICE_GROUPS="video gpio i2c spi audio"
APT_PACKAGES="python3-venv python3-pip python3-picamera2 python3-lgpio python3-spidev espeak-ng i2c-tools"

action=install
dry=0
apt=1
for arg in "$@"; do
    case "$arg" in
        --uninstall) action=uninstall ;;
        --purge) action=purge ;;
        --dry-run) dry=1 ;;
        --no-apt) apt=0 ;;
        -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    esac
done

# Every change goes through run: printed, and done unless --dry-run.
run() {
    echo "+ $*"
    [ "$dry" = 1 ] || "$@"
}
say() { echo "install.sh: $*"; }
systemd_running() { [ -d /run/systemd/system ]; }

if [ "$dry" = 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root (sudo), or with --dry-run" >&2
    exit 2
fi

default_config() {
    cat <<'TOML'
# tantrix-pi configuration, read by `tantrix-pi run --config /etc/tantrix-pi/config.toml`.
# These are the defaults; every key is optional. docs/config.md lists every key (display bus and pins,
# camera size, motion gate, paths). A wrong key or value stops the service with one line in
# `journalctl -u tantrix-pi` naming it.

[camera]
source = "picamera2"        # picamera2, opencv, folder or video
settle_s = 2.0              # seconds of auto exposure and white balance before they are locked

[display]
kind = "none"               # none, png, ssd1306, sh1106 (I2C OLEDs), st7789, ili9341 (SPI LCDs)
rotate = 0                  # quarter turns 0..3
i2c_address = 0x3C          # OLEDs: see `i2cdetect -y 1`
spi_speed_hz = 32000000     # LCDs: lower it when long wires garble the picture

[buttons]                   # BCM pins; each button goes from its pin to ground
next = 17
back = 27
menu = 22
hold_s = 2.0                # hold menu this long for a new game

[voice]
enabled = false             # espeak-ng (sudo apt install espeak-ng)
language = "en"

[mode]
kind = "game"               # game, discovery, rainbow, solitaire, gobble, free
players = ["red", "blue"]   # 2 to 4 of red, yellow, green, blue, in seating order
discovery = 10
rainbow = "green"

[web]                       # the table's page, http://PI:8080/ (docs/web.md)
enabled = true              # the port is tantrix-pi-web.socket's: systemctl edit tantrix-pi-web.socket
TOML
}

install_packages() {
    missing=""
    for p in $APT_PACKAGES; do
        dpkg -s "$p" >/dev/null 2>&1 && continue
        if apt-cache show "$p" >/dev/null 2>&1; then
            missing="$missing $p"
        else
            say "Debian package $p is not available here; skipping it"
        fi
    done
    if [ -n "$missing" ]; then
        run apt-get install -y $missing
    fi
}

do_install() {
    if [ "$apt" = 1 ]; then install_packages; fi
    if id -u "$ACCOUNT" >/dev/null 2>&1; then
        say "user $ACCOUNT exists"
    else
        run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "Tantrix referee" "$ACCOUNT"
    fi
    for g in $DEVICE_GROUPS; do
        if ! getent group "$g" >/dev/null; then
            say "group $g does not exist here (not Raspberry Pi OS?); $ACCOUNT is not added to it"
        elif ! id -nG "$ACCOUNT" 2>/dev/null | tr ' ' '\n' | grep -qx "$g"; then
            run usermod -a -G "$g" "$ACCOUNT"
        fi
    done

    if [ -x "$PREFIX/venv/bin/python" ]; then
        say "venv $PREFIX/venv exists"
    else
        run mkdir -p "$PREFIX"
        run python3 -m venv --system-site-packages "$PREFIX/venv"
    fi
    run "$PREFIX/venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$SRC[pi]"
    run install -m 0644 "$SRC/hardware.md" "$PREFIX/hardware.md"
    run install -D -m 0644 "$SRC/docs/web.md" "$PREFIX/docs/web.md"

    if [ -e "$CONFIG_DIR/config.toml" ]; then
        say "keeping the existing $CONFIG_DIR/config.toml"
    else
        run mkdir -p "$CONFIG_DIR"
        echo "+ write the default $CONFIG_DIR/config.toml"
        [ "$dry" = 1 ] || default_config > "$CONFIG_DIR/config.toml"
    fi

    run install -m 0644 "$SRC/systemd/$SERVICE" "$UNIT_DIR/$SERVICE"
    run install -m 0644 "$SRC/systemd/$SOCKET" "$UNIT_DIR/$SOCKET"
    if systemd_running; then
        run systemctl daemon-reload
        run systemctl enable "$SOCKET" "$SERVICE"
        run systemctl restart "$SOCKET" "$SERVICE"
        say "installed; follow it with: journalctl -u tantrix-pi -f; the page is at http://$(hostname).local:8080/"
    else
        run systemctl enable "$SOCKET" "$SERVICE"
        say "systemd is not running here (a chroot or a container): the service starts at the next boot"
    fi
}

do_uninstall() {
    if [ -e "$UNIT_DIR/$SERVICE" ]; then
        if systemd_running; then
            run systemctl disable --now "$SERVICE" "$SOCKET"
        else
            run systemctl disable "$SERVICE" "$SOCKET"
        fi
        run rm -f "$UNIT_DIR/$SERVICE" "$UNIT_DIR/$SOCKET"
        if systemd_running; then run systemctl daemon-reload; fi
    else
        say "no $UNIT_DIR/$SERVICE: the service is not installed"
    fi
    if [ -e "$PREFIX" ]; then run rm -rf "$PREFIX"; fi
    if [ "$action" = purge ]; then
        if [ -e "$CONFIG_DIR" ]; then run rm -rf "$CONFIG_DIR"; fi
        if [ -e "$STATE_DIR" ]; then run rm -rf "$STATE_DIR"; fi
        if id -u "$ACCOUNT" >/dev/null 2>&1; then run userdel "$ACCOUNT"; fi
    else
        say "kept $CONFIG_DIR and the saved games in $STATE_DIR (--purge removes them and the user)"
    fi
}

case "$action" in
    install) do_install ;;
    *) do_uninstall ;;
esac
