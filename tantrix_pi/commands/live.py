"""`tantrix-pi run`, `tantrix-pi demo` and `tantrix-pi game export`: the live referee's commands."""

from __future__ import annotations

import json
import logging
import signal
import sys
from contextlib import ExitStack
from pathlib import Path

from tantrix_pi import i18n
from tantrix_pi.board import Board
from tantrix_pi.errors import EXIT_NO, EXIT_OK, TantrixError
from tantrix_pi.i18n import _
from tantrix_pi.live import config as config_mod
from tantrix_pi.live.store import Store, StoreError

log = logging.getLogger("tantrix_pi.live")


def register(cli) -> None:
    p = cli.top("run", cmd_run)
    p.add_argument("--config", metavar="FILE", help=_("TOML configuration (default: every default; docs/config.md)"))
    p = cli.top("demo", cmd_demo)
    p.add_argument("--out", default="demo-out", metavar="DIR",
                   help=_("where to write frames, GIF, events (demo-out)"))
    p.add_argument("--web", nargs="?", type=_port, const=8080, metavar="PORT",
                   help=_("serve the table's web page on PORT (8080) while the game replays, and after it until "
                          "Ctrl-C"))
    p.add_argument("--fps", type=_fps, metavar="N",
                   help=_("frames per second of the replay (default: as fast as it goes; 6 with --web)"))
    p.add_argument("--mqtt", type=broker_url, metavar="URL",
                   help=_("publish the game to the club's MQTT broker at URL (mqtt://HOST:1883; docs/club.md)"))
    p.add_argument("--table", type=table_name, default="demo", metavar="NAME",
                   help=_("the table's name on the club's page, with --mqtt (demo)"))
    game = cli.group("game")
    p = cli.command("export", _("Write the current (or last) game's record, as `game replay` reads it."), cmd_export,
                    parent=game)
    p.add_argument("--out", metavar="FILE", help=_("write here instead of stdout"))
    p.add_argument("--config", metavar="FILE", help=_("the service's configuration (for its state folder)"))
    p.add_argument("--state-dir", metavar="DIR", help=_("the state folder (overrides the configuration)"))


def _port(text: str) -> int:
    import argparse

    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(_("needs a TCP port 1..65535 (0: any free one), not {text!r}").format(
            text=text))
    return int(text)


def _fps(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 240:
        raise argparse.ArgumentTypeError(_("needs frames per second 0..240 (0: as fast as it goes), not {text!r}")
                                         .format(text=text))
    return value


def broker_url(text: str) -> str:
    import argparse

    from tantrix_pi.live.config import broker_of

    if broker_of(text) is None:
        raise argparse.ArgumentTypeError(_("needs a broker's URL, mqtt://HOST:1883 or mqtts://USER:PASSWORD@HOST:8883, "
                                           "not {text!r}").format(text=text))
    return text


def table_name(text: str) -> str:
    import argparse

    from tantrix_pi.live.config import TABLE_NAME

    if not TABLE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(_("needs a name of 1 to 32 letters, digits, - or _, such as t1, not {text!r}")
                                         .format(text=text))
    return text


def club_feed(feed: config_mod.FeedConfig, state_db: Path, hub=None) -> list:
    """The sinks of the club's feed ([feed], docs/club.md), none without a broker: the feed last (`start()` it once the
    state database exists), which publishes the page's state as the page's `hub` has it, or, when the page is off
    (None), as a hub of its own before it does."""
    if feed.broker is None:
        return []
    from tantrix_pi.live.feed import Feed
    from tantrix_pi.web.hub import Hub
    from tantrix_pi.web.state import PageState

    own = [Hub()] if hub is None else []
    hub = hub or own[0]
    page = PageState(hub)
    return [*own, Feed(feed.broker, feed.table, state_db, state=lambda: page.build(hub.snapshot())[0],
                       ca_file=feed.ca_file, home_assistant=feed.home_assistant)]


class StopRequest:
    """SIGTERM / SIGINT caught from the start of `run`: remembered until the loop exists, then passed on."""

    def __init__(self) -> None:
        self.requested = False
        self.loop = None
        signal.signal(signal.SIGTERM, self)
        signal.signal(signal.SIGINT, self)

    def __call__(self, *_) -> None:
        self.requested = True
        if self.loop is not None:
            self.loop.stop()

    def attach(self, loop) -> None:
        """From now on a signal stops `loop` (at once if one already came)."""
        self.loop = loop
        if self.requested:
            loop.stop()


def cmd_run(args) -> int:
    stop_request = StopRequest()  # before anything slow: systemd may stop us while we start
    from tantrix_pi.commands.seats import seating
    from tantrix_pi.live.loop import LiveLoop
    from tantrix_pi.live.sdnotify import Notifier
    from tantrix_pi.live.service import (
        hand_watch,
        make_detector,
        make_source,
        setup_of,
        standard_sinks,
        start_buttons,
    )
    from tantrix_pi.live.sinks import Sinks
    from tantrix_pi.web import server as web_server

    cfg = config_mod.load(args.config)
    i18n.use(i18n.choose(args.lang, cfg.language))
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    profile_path = cfg.profile_path
    if profile_path.exists():
        log.info("calibration profile %s", profile_path)
    else:
        log.info("no calibration profile at %s: the detector's defaults until `tantrix-pi calibrate ... --config` "
                 "writes one there", profile_path)
    hands = hand_watch(cfg)
    detect = make_detector(cfg.paths.profile, follow=profile_path, zones=hands.zones if hands else None)
    with ExitStack() as opened:  # whatever fails to start, what was opened is closed (the state lock freed)
        store = Store(cfg.state_dir / "state.db", lock=True)
        opened.callback(store.close)
        if store.moved_aside:
            log.error("the state database was damaged: kept aside as %s; starting a new game", store.moved_aside)
        hub = web_server.hub_for(cfg)
        feed = club_feed(cfg.feed, store.path, hub)
        sink = Sinks([*standard_sinks(cfg, fresh=store.fresh), *([hub] if hub is not None else []), *feed])
        opened.callback(sink.close)
        loop = LiveLoop(make_source(cfg), detect, store, setup_of(cfg), sink, gate=cfg.gate, hint_s=cfg.mode.hint_s,
                        notifier=Notifier(), hands=hands)
        stop_request.attach(loop)
        if feed:  # the feed's first state is the game as it stands
            view = loop.view()
            for s in [hub, *feed]:
                if s is not None:
                    s.show(view)
            feed[-1].start()
        web = web_server.start(cfg, loop, hub, detect, profile_path, seat=seating(cfg, loop, profile_path, args.config))
        if web is not None:
            opened.callback(web.stop)
        buttons = start_buttons(cfg, loop)
        if buttons is not None:
            opened.callback(buttons.close)
            loop.jobs.calibrate = menu_calibration(profile_path, detect)
            if web is not None and loop.menu is not None:
                loop.menu.web = web.start_page
        log.info("referee started: game %d (%s), camera %s", loop.game, "resumed" if loop.resumed else "new",
                 cfg.camera.source)
        loop.run()
    log.info("referee stopped after %d frames", loop.stats.frames)
    return EXIT_OK


def menu_calibration(profile_path: Path, detect):
    """The menu's calibration steps on the loop's frames, or None when calibration is not installed."""
    try:
        from tantrix_pi.live.calibrating import MenuCalibration

        return MenuCalibration(profile_path, detect)
    except ImportError:
        log.warning("calibration is not installed: the menu cannot calibrate")
        return None


def cmd_demo(args) -> int:
    from tantrix_pi.live.demo import run_demo
    from tantrix_pi.live.sinks import Sinks

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise TantrixError(_("--out {path}: not a folder (the demo writes frames, GIF and events into a folder)")
                           .format(path=out))
    try:
        out.mkdir(exist_ok=True)  # the folder itself, not missing ones above it: as board show --png
    except OSError as e:
        raise TantrixError(_("--out {path}: cannot make the folder ({error})").format(path=out,
                                                                                     error=e.strerror)) from None
    web = hub = None
    if args.web is not None:
        from tantrix_pi.web.hub import Hub
        from tantrix_pi.web.server import addresses, listen, serve

        hub = Hub()
        sock = listen("", args.web)  # before the replay: a port in use is one line at once
    fps = args.fps if args.fps is not None else 6.0 if args.web is not None else 0.0
    feed = club_feed(config_mod.FeedConfig(mqtt=args.mqtt or "", table=args.table), out / "state.db", hub)
    extra = [*([hub] if hub is not None else []), *feed]

    def started(loop) -> None:
        nonlocal web
        if hub is not None:
            from tantrix_pi.live.service import make_detector

            hub.show(loop.view())
            web = serve(hub, sock, state_db=loop.store.path, detect=make_detector(""), profile=out / "profile.toml")
            print(_("demo: the table's page is at {addresses} (pairing code {code})").format(
                addresses=" | ".join(addresses(sock)), code=web.site.pairing.code), flush=True)
        if feed:  # after the hub has the game: the feed's first state is the game as it stands
            for s in feed:
                s.show(loop.view())
            feed[-1].start()
            print(_("demo: the game goes to the broker {broker} as table {table}").format(broker=feed[-1].broker,
                                                                                         table=args.table), flush=True)

    loop, demo, elapsed = run_demo(out, extra=Sinks(extra) if extra else None, fps=fps, started=started)
    code = _demo_verdict(out, loop, demo, elapsed)
    if web is not None:
        print(_("demo: the game is over; the page stays at http://localhost:{port}/ until Ctrl-C").format(
            port=web.port), flush=True)  # said before the wait, also into a pipe or a log file
        try:
            web.thread.join()
        except KeyboardInterrupt:
            pass
        finally:
            web.stop()
    return code


def _demo_verdict(out: Path, loop, demo, elapsed: float) -> int:
    """Print what the demo did; exit 0 when every recorded placement was recognised in order."""
    from tantrix_pi.live.tracker import apply, register

    stored = [m.placement for m in loop.store.moves(loop.game)]
    s = loop.stats
    print(_("demo: {frames} frames in {seconds:.1f} s ({fps:.1f} fps): {skipped} skipped for motion, {detected} "
            "detected, {commits} boards committed").format(frames=s.frames, seconds=elapsed, fps=s.frames / elapsed,
                                                         skipped=s.skipped, detected=s.detected, commits=s.commits))
    frames = len(list((out / "display").glob("*.png")))
    print(_("demo: wrote {out}/display/ ({frames} display frames), {out}/demo.gif, {out}/events.jsonl, "
            "{out}/state.db").format(out=out, frames=frames))
    # the camera has its own grid: compare the stored moves with the record after laying one on the other
    t = register(Board(demo.moves), stored)
    seen = [apply(t, p) for p in stored]
    if seen == demo.moves:
        print(_("demo: all {n} placements recognised in order, as recorded").format(n=len(demo.moves)))
        return EXIT_OK
    wrong = [f"#{i + 1} {p}" for i, (p, q) in enumerate(zip(seen, demo.moves, strict=False)) if p != q]
    print(_("demo: {stored} placements stored for {recorded} recorded; differing: {wrong}").format(
        stored=len(seen), recorded=len(demo.moves), wrong=", ".join(wrong[:5])))
    return EXIT_NO


def cmd_export(args) -> int:
    if args.state_dir:
        state = Path(args.state_dir)
    else:
        state = config_mod.load(args.config).state_dir
    db = state / "state.db"
    if not db.exists():
        raise StoreError(_("{path}: no game recorded here (is the state folder right?)").format(path=db))
    store = Store(db, read_only=True)
    try:
        game = store.current_game() or store.last_game()
        if game is None:
            raise StoreError(_("{path}: no game recorded yet").format(path=db))
        text = json.dumps(store.record(game[0]), indent=1) + "\n"
    finally:
        store.close()
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as e:
            raise TantrixError(_("{path}: cannot write it ({error})").format(path=args.out, error=e.strerror)) from None
    else:
        sys.stdout.write(text)
    return EXIT_OK
