"""The boot service: the unit passes `systemd-analyze verify`, and install.sh says what it would do."""

import configparser
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "tantrix-pi.service"
SOCKET = ROOT / "systemd" / "tantrix-pi-web.socket"
INSTALL = ROOT / "systemd" / "install.sh"
ANALYZE = shutil.which("systemd-analyze")
SYSTEM_UNITS = next((p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")) if p.is_dir()), None)
needs_systemd = pytest.mark.skipif(ANALYZE is None or SYSTEM_UNITS is None,
                                   reason="systemd-analyze or the system unit folder is not installed")


def unit(path: Path = UNIT) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str
    parser.read(path)
    return parser


def verify(text: str, tmp_path: Path, command: str = "verify") -> subprocess.CompletedProcess:
    """systemd-analyze `command` on `text` installed in a scratch root that has the ExecStart program."""
    exe = unit()["Service"]["ExecStart"].split()[0]
    root = tmp_path / "root"
    (root / exe.lstrip("/")).parent.mkdir(parents=True)
    (root / exe.lstrip("/")).write_text("#!/bin/sh\n")
    os.chmod(root / exe.lstrip("/"), 0o755)
    shutil.copytree(SYSTEM_UNITS, root / "usr/lib/systemd/system", symlinks=True)
    target = root / "etc/systemd/system" / UNIT.name
    target.parent.mkdir(parents=True)
    target.write_text(text)
    (target.parent / SOCKET.name).write_text(SOCKET.read_text())
    extra = ["--offline=true"] if command == "security" else []
    return subprocess.run([ANALYZE, command, *extra, f"--root={root}", str(target)], capture_output=True,
                          text=True, timeout=60)


@needs_systemd
def test_unit_passes_systemd_analyze_verify(tmp_path):
    result = verify(UNIT.read_text(), tmp_path)
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr


@needs_systemd
def test_verify_catches_a_broken_unit(tmp_path):
    broken = UNIT.read_text().replace("WatchdogSec=", "WatchdgSec=").replace("Restart=on-failure", "Restart=often")
    result = verify(broken, tmp_path)
    assert "WatchdgSec" in result.stderr and "often" in result.stderr


@needs_systemd
def test_unit_is_rated_well_hardened(tmp_path):
    result = verify(UNIT.read_text(), tmp_path, "security")
    level = re.search(r"Overall exposure level for tantrix-pi.service: ([0-9.]+)", result.stdout)
    assert level and float(level.group(1)) <= 1.3, result.stdout[-300:]  # as before the web page, or better


def test_the_web_page_comes_through_a_socket_unit_and_the_service_opens_no_network_socket():
    from tantrix_pi.live.config import WebConfig

    service, socket_unit = unit()["Service"], unit(SOCKET)
    assert service["Sockets"] == SOCKET.name and socket_unit["Socket"]["Service"] == UNIT.name
    assert socket_unit["Unit"]["PartOf"] == UNIT.name  # stopping the referee closes the page too
    assert socket_unit["Socket"]["ListenStream"] == str(WebConfig().port)
    assert set(service["RestrictAddressFamilies"].split()) == {"AF_UNIX", "AF_NETLINK"}
    assert service["IPAddressDeny"] == "any" and "IPAddressAllow" not in service
    assert socket_unit["Socket"]["IPAddressDeny"] == "any"
    import ipaddress

    for allowed in socket_unit["Socket"]["IPAddressAllow"].split():
        if allowed not in ("localhost", "link-local"):
            assert ipaddress.ip_network(allowed).is_private, allowed


def test_unit_runs_the_referee_as_a_watched_hardened_service():
    u = unit()
    service = u["Service"]
    assert service["ExecStart"] == "/opt/tantrix-pi/venv/bin/tantrix-pi run --config /etc/tantrix-pi/config.toml"
    assert service["Type"] == "notify" and int(service["WatchdogSec"]) > 0 and service["Restart"] == "on-failure"
    assert int(u["Unit"]["StartLimitBurst"]) > 0
    assert set("video gpio i2c spi audio".split()) <= set(service["SupplementaryGroups"].split())
    assert service["ProtectSystem"] == "strict" and service["NoNewPrivileges"] == "yes"
    allowed = {line.split()[0] for line in UNIT.read_text().splitlines() if line.startswith("DeviceAllow=")}
    allowed = {a.removeprefix("DeviceAllow=") for a in allowed}
    for group in ("video4linux", "media", "dma_heap", "gpiochip", "i2c", "spi", "vchiq"):
        assert f"char-{group}" in allowed, group


def dry_run(*args: str, config_dir: Path) -> str:
    env = {**os.environ, "TANTRIX_CONFIG_DIR": str(config_dir), "TANTRIX_PREFIX": str(config_dir.parent / "opt"),
           "TANTRIX_UNIT_DIR": str(config_dir.parent / "units")}
    result = subprocess.run(["sh", str(INSTALL), "--dry-run", "--no-apt", *args], capture_output=True, text=True,
                            env=env, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_install_dry_run_lists_every_step_and_changes_nothing(tmp_path):
    out = dry_run(config_dir=tmp_path / "etc")
    assert "python3 -m venv --system-site-packages" in out
    assert f"pip install --quiet --disable-pip-version-check --upgrade {ROOT}[pi]" in out
    assert "write the default" in out
    assert "systemctl enable tantrix-pi-web.socket tantrix-pi.service" in out
    assert f"tantrix-pi-web.socket {tmp_path / 'units'}/tantrix-pi-web.socket" in out
    # started at once where systemd runs; in a chroot or container only enabled for the next boot
    assert ("systemctl restart tantrix-pi-web.socket tantrix-pi.service" in out) == Path("/run/systemd/system").is_dir()
    assert "apt-get" not in out
    assert list(tmp_path.iterdir()) == []


def test_install_keeps_an_existing_config(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "config.toml").write_text("[display]\n")
    out = dry_run(config_dir=tmp_path / "etc")
    assert "keeping the existing" in out and "write the default" not in out


def test_uninstall_keeps_games_unless_purged(tmp_path):
    (tmp_path / "units").mkdir()
    (tmp_path / "units" / "tantrix-pi.service").write_text("")
    out = dry_run("--uninstall", config_dir=tmp_path / "etc")
    assert "systemctl disable" in out and "kept" in out
    assert "rm -rf /var/lib/tantrix-pi" not in out
    (tmp_path / "etc").mkdir()
    assert f"rm -rf {tmp_path / 'etc'}" in dry_run("--purge", config_dir=tmp_path / "etc")


def test_install_rejects_unknown_options():
    result = subprocess.run(["sh", str(INSTALL), "--frobnicate"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "unknown option --frobnicate" in result.stderr


def test_install_sh_functions_do_not_shadow_the_commands_it_runs():
    # a function named like a command (install, ...) would be called by `run install ...` instead
    names = re.findall(r"^([a-z_]+)\(\) \{", INSTALL.read_text(), flags=re.M)
    assert names and [n for n in names if shutil.which(n)] == []
