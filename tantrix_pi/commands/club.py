"""`tantrix-pi club`: every table's feed from the club's MQTT broker on one page (docs/club.md)."""

from __future__ import annotations

import logging
import signal
import sys

from tantrix_pi.commands.live import _port, broker_url
from tantrix_pi.errors import EXIT_OK
from tantrix_pi.i18n import _


def register(cli) -> None:
    p = cli.top("club", cmd_club)
    p.add_argument("--mqtt", required=True, type=broker_url, metavar="URL",
                   help=_("the club's broker: mqtt://HOST:1883 or mqtts://USER:PASSWORD@HOST:8883"))
    p.add_argument("--web", type=_port, default=8090, metavar="PORT", help=_("serve the page on PORT (8090)"))
    p.add_argument("--bind", default="", metavar="ADDRESS",
                   help=_("the address to serve on (default: every address of this machine)"))
    p.add_argument("--ca-file", default="", metavar="FILE",
                   help=_("mqtts: the certificate authority that signed the broker's (default: the system's)"))
    p.add_argument("--client-id", default="", metavar="ID",
                   help=_("the club's name on the broker: what the tables say while the club is away waits there "
                          "for its next start under the same name (default: tantrix-club-HOSTNAME)"))
    p.add_argument("--quiet", type=_seconds, metavar="S",
                   help=_("seconds without a word from a table before it is shown offline (default: 90, three of "
                          "its heartbeats)"))


def _seconds(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 1 <= value <= 3600:
        raise argparse.ArgumentTypeError(_("needs seconds 1..3600, not {text!r}").format(text=text))
    return value


def cmd_club(args) -> int:
    from tantrix_pi.club.app import make_app
    from tantrix_pi.club.subscriber import Subscriber
    from tantrix_pi.club.tables import QUIET_S, Club
    from tantrix_pi.live.config import broker_of
    from tantrix_pi.web.server import WebError, WebServer, addresses, listen

    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    broker = broker_of(args.mqtt)
    club = Club(quiet_s=args.quiet or QUIET_S)
    sock = listen(args.bind, args.web)  # a port in use is one line before anything starts
    subscriber = Subscriber(broker, club, args.ca_file, args.client_id)
    server = WebServer(make_app(club), sock)
    subscriber.start()
    server.start()
    try:
        if not server.wait_started():
            raise WebError(_("web: the page could not start ({error})").format(error=server.failed or _("timed out")))
        print(_("club: the page is at {addresses}; following the tables on {broker}").format(
            addresses=" | ".join(addresses(sock)), broker=broker), flush=True)
        signal.signal(signal.SIGTERM, lambda *_: setattr(server.server, "should_exit", True))
        try:
            server.thread.join()
        except KeyboardInterrupt:
            pass
    finally:
        server.stop()
        subscriber.stop()
    return EXIT_OK
