"""The web server (uvicorn) on a thread of its own beside the referee's loop.

The listening socket is made before the thread starts, so a port in use is one line at once; under
systemd the socket comes ready-made from `tantrix-pi-web.socket` (socket activation: the service itself
may not open network sockets). If the server's thread dies, the error is logged and the referee goes on.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import socket
import threading

import uvicorn

from tantrix_pi.errors import TantrixError
from tantrix_pi.i18n import _

log = logging.getLogger("tantrix_pi.web")

SD_LISTEN_FDS_START = 3


class WebError(TantrixError):
    """The page cannot be served (the port is taken, the address is not this machine's)."""


def listen(bind: str, port: int) -> socket.socket:
    """A listening TCP socket on `bind`:`port` ("" or "::": every address, IPv4 and IPv6 alike)."""
    host = bind or "::"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError:  # no IPv6 here: every IPv4 address
        family, host = socket.AF_INET, "0.0.0.0" if host == "::" else host
        sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        where = bind or _("every address")
        if e.errno == errno.EADDRINUSE:
            raise WebError(_("web: port {port} on {where} is in use (another program, or another tantrix-pi)").format(
                port=port, where=where)) from None
        raise WebError(_("web: port {port} on {where} cannot be used ({error})").format(
            port=port, where=where, error=e.strerror)) from None
    sock.listen(128)
    return sock


def systemd_socket() -> socket.socket | None:
    """The listening socket systemd passed (LISTEN_FDS, for this process), if any."""
    if os.environ.get("LISTEN_PID") != str(os.getpid()) or not os.environ.get("LISTEN_FDS", "").isdigit():
        return None
    if int(os.environ["LISTEN_FDS"]) < 1:
        return None
    for name in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
        os.environ.pop(name, None)  # not for child processes
    return socket.socket(fileno=SD_LISTEN_FDS_START)


def addresses(sock: socket.socket) -> list[str]:
    """The page's address(es) to print: for an every-address socket, localhost, the machine's name on the
    local network (mDNS, as Raspberry Pi OS answers it) and its own IP addresses."""
    host, port = sock.getsockname()[:2]
    if host not in ("::", "0.0.0.0"):
        return [f"http://{'[' + host + ']' if ':' in host else host}:{port}/"]
    name = socket.gethostname()
    out = [f"http://localhost:{port}/", f"http://{name}.local:{port}/"]
    try:
        ips = {info[4][0] for info in socket.getaddrinfo(name, None, socket.AF_INET)}
    except OSError:
        ips = set()
    out += [f"http://{ip}:{port}/" for ip in sorted(ips) if not ip.startswith("127.")]
    return out


class WebServer:
    """uvicorn serving `app` on `sock`, on a daemon thread; `stop()` ends it."""

    def __init__(self, app, sock: socket.socket) -> None:
        self.sock = sock
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                                    timeout_graceful_shutdown=2))
        self.thread = threading.Thread(target=self._run, name="web", daemon=True)
        self.failed: BaseException | None = None
        self.site = None
        """What the routes serve from (`app.Site`), set by `serve`."""
        self.start_page = None
        """The display's page saying where the page is and the pairing code (devices `Screen`), set by `start`."""

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    def start(self) -> WebServer:
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            asyncio.run(self.server.serve(sockets=[self.sock]))
        except BaseException as e:  # the page is gone; the referee goes on without it
            self.failed = e
            log.error("the web page stopped (%s: %s); the referee goes on without it", type(e).__name__, e,
                      exc_info=True)

    def wait_started(self, timeout: float = 10.0) -> bool:
        """Whether the server is accepting connections within `timeout` seconds."""
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end and self.thread.is_alive():
            if self.server.started:
                return True
            time.sleep(0.02)
        return self.server.started

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.sock.close()


def serve(hub, sock: socket.socket, *, state_db=None, commands=None, detect=None, pairing=None,
          profile=None, seat=None) -> WebServer:
    """Serve the page of `hub` on `sock` from a new thread; logs (and returns in `.site`) the pairing code.
    `profile`: the calibration profile the guided calibration saves to (None: no guided calibration); `seat`:
    how its seats step takes the hand zones into use (`calibrate.Guide`; None: it cannot)."""
    from tantrix_pi.web.app import Site, make_app
    from tantrix_pi.web.pairing import Pairing

    guide = None
    if profile is not None:
        from tantrix_pi.web.calibrate import Guide

        guide = Guide(hub, profile, detect, seat=seat)
    site = Site(hub, state_db, commands, pairing or Pairing(), detect, guide, addresses(sock))
    server = WebServer(make_app(site), sock)
    server.site = site
    server.start()
    if not server.wait_started():
        raise WebError(_("web: the page could not start ({error})").format(error=server.failed or _("timed out")))
    log.info("web page at %s; pairing code %s", " ".join(addresses(sock)), site.pairing.code)
    return server


def hub_for(cfg):
    """The sink the web page reads from (a `Hub`), when the config's [web] is on; else None."""
    if not cfg.web.enabled:
        return None
    from tantrix_pi.web.hub import Hub

    return Hub()


def start(cfg, loop, hub, detect, profile=None, sock=None, seat=None):
    """The table's web page beside the loop (docs/web.md), or None when there is no hub ([web] is off) or
    its port is taken (logged: the referee runs without its page). `sock`: a listening socket to serve on
    (default: the one systemd passed, else one bound to [web] bind and port); `profile`: the calibration profile
    the page's guided calibration saves to; `seat`: how its seats step takes the hand zones into use
    (`commands.seats.seating`; None: it cannot)."""
    passed = systemd_socket() if sock is None else sock
    if hub is None:
        if passed is not None:
            passed.close()
        return None
    hub.show(loop.view())
    try:
        sock = passed if passed is not None else listen(cfg.web.bind, cfg.web.port)
        server = serve(hub, sock, state_db=loop.store.path, commands=loop.commands, detect=detect, profile=profile,
                       seat=seat)
    except WebError as e:
        log.error("%s: the referee runs without its web page", e)
        return None
    try:  # the display shows where the page is (and its QR code) and the code that pairs a phone, until the
        from tantrix_pi.devices.screen import Screen  # first announcement
        from tantrix_pi.live.commands import ShowScreen

        where = addresses(sock)[-1]
        server.start_page = Screen(title=_("Web page"), lines=(
            where, _("Pairing code {code}").format(code=server.site.pairing.code)), qr=where)
        loop.commands.put(ShowScreen(server.start_page))
    except ImportError:
        log.info("no devices package: the pairing code is only in this log")
    return server

