"""The club: what it makes of the tables' messages (tantrix_pi/club/tables.py), and the whole chain with a real broker:
two tables playing, the broker killed and started again mid-game, the club's page in Chromium."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from broker import Listener, Mosquitto, free_port, needs_mosquitto, wait_for
from chromium import DESKTOP, browser, needs_chromium
from live_fakes import detect_frame, frame_of

from tantrix_pi.club.subscriber import Subscriber
from tantrix_pi.club.tables import Club
from tantrix_pi.live.config import broker_of
from tantrix_pi.live.feed import Feed
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.store import Notice, Outbox, Store

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def numbered(stream: str, seq: int) -> dict[str, str]:
    return {"stream": stream, "seq": str(seq)}


def event(text: str, t: float) -> bytes:
    return json.dumps({"t": t, "game": 1, "kind": "placed", "text": text, "data": {}}).encode()


def test_an_announcement_had_already_is_dropped_and_a_new_stream_starts_afresh():
    club = Club()
    assert club.receive("tantrix/t1/event", event("one", 1), numbered("a", 1))
    assert club.receive("tantrix/t1/event", event("two", 2), numbered("a", 2))
    assert not club.receive("tantrix/t1/event", event("one", 1), numbered("a", 1))  # sent again after a reconnection
    assert not club.receive("tantrix/t1/event", event("two", 2), numbered("a", 2))
    assert club.table("t1").events == 2 and club.table("t1").last["text"] == "two"
    assert club.receive("tantrix/t1/event", event("new database", 3), numbered("b", 1))  # the table's state.db anew
    assert club.table("t1").last["text"] == "new database"


def test_numbers_skipped_between_announcements_are_said_missed_once_but_not_those_a_game_message_took(caplog):
    club = Club()
    game = json.dumps({"game": 1, "over": {"scores": {"R": 3}, "winners": ["R"]}, "record": {}}).encode()
    with caplog.at_level(logging.WARNING, logger="tantrix_pi.club"):
        club.receive("tantrix/t1/game/1", game, numbered("a", 40))  # retained, from before the club started
        club.receive("tantrix/t1/event", event("first heard", 1), numbered("a", 57))  # a club started late: no gap
        club.receive("tantrix/t1/event", event("next", 2), numbered("a", 58))
        club.receive("tantrix/t1/game/2", game.replace(b'"game": 1', b'"game": 2'), numbered("a", 59))
        club.receive("tantrix/t1/event", event("game 3 begins", 3), numbered("a", 60))  # 59 was the game's
        club.receive("tantrix/t1/game/1", game, numbered("a", 40))  # the retained copy again, at a subscription
        assert club.table("t1").missed == 0 and caplog.records == []
        club.receive("tantrix/t1/event", event("after the drop", 4), numbered("a", 64))  # the broker dropped 61-63
        assert not club.receive("tantrix/t1/event", event("next", 2), numbered("a", 58))  # a duplicate is no gap
        club.receive("tantrix/t1/event", event("new database", 5), numbered("b", 9))  # a new stream: no gap
    assert club.table("t1").missed == 3 and club.table("t1").events == 5
    assert [r.getMessage() for r in caplog.records] == [
        "club: table t1: 3 messages of its stream a between numbers 60 and 64 never came (the broker drops what it "
        "keeps for the club past its max_queued_messages: raise it, docs/club.md)"]


def test_a_finished_game_is_kept_by_its_number_whatever_came_before_it_and_once():
    club = Club()
    club.receive("tantrix/t1/event", event("game 2 begins", 5), numbered("a", 5))
    finished = json.dumps({"game": 1, "over": {"scores": {"R": 3, "B": 2}, "winners": ["R"]}, "record": {}}).encode()
    assert club.receive("tantrix/t1/game/1", finished, numbered("a", 3))  # the broker's retained copy, sent after
    assert not club.receive("tantrix/t1/game/1", finished, numbered("a", 3))  # at the next subscription again
    assert list(club.table("t1").games) == [1] and [s.games for s in club.standings()] == [1, 1]


def test_a_table_is_online_while_its_flag_is_1_it_was_heard_lately_and_the_club_is_connected():
    clock = Clock()
    club = Club(quiet_s=90, clock=clock)
    club.link(True)
    club.receive("tantrix/t1/online", b"1")
    assert club.online(club.table("t1"))
    clock.now += 91  # no heartbeat for longer than quiet_s: the table went quiet
    assert not club.online(club.table("t1"))
    club.receive("tantrix/t1/online", b"1")
    assert club.online(club.table("t1"))
    club.link(False)
    assert not club.online(club.table("t1"))
    club.link(True)
    club.receive("tantrix/t1/online", b"0")  # its clean exit or its last will
    assert not club.online(club.table("t1"))


def test_standings_count_a_win_shared_in_a_tie_then_points():
    club = Club()
    games = [("t1", 1, {"R": 30, "B": 25}, ["R"]), ("t1", 2, {"R": 20, "B": 20}, ["R", "B"]),
             ("t2", 1, {"Y": 18, "G": 31}, ["G"])]
    for table, game, scores, winners in games:
        club.receive(f"tantrix/{table}/game/{game}", json.dumps({"game": game, "over": {
            "scores": scores, "winners": winners}, "record": {}}).encode(), numbered(table, game))
    got = [(s.table, s.player, s.games, s.wins, s.points) for s in club.standings()]
    assert got == [("t1", "R", 2, 1.5, 50), ("t2", "G", 1, 1.0, 31), ("t1", "B", 2, 0.5, 45), ("t2", "Y", 1, 0.0, 18)]


def test_a_message_no_feed_sends_is_ignored_with_one_line(caplog):
    club = Club()
    with caplog.at_level(logging.WARNING, "tantrix_pi.club"):
        assert not club.receive("tantrix/t1/state", b"not json")
        assert not club.receive("tantrix/t1/game/x", b'{"game": "x"}', numbered("a", 1))
        assert not club.receive("tantrix/a b/state", b"{}")  # not a table's name
        assert not club.receive("other/t1/state", b"{}")
    assert len(caplog.records) == 2 and all("\n" not in r.getMessage() for r in caplog.records)
    assert club.names() == ["t1"] and club.table("t1").state is None


# -- the club's session on a real broker --------------------------------------------------------------
class Heard(Club):
    """The club, with the text of every announcement it took, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.said: list[str] = []

    def receive(self, topic: str, payload: bytes, properties: dict[str, str] | None = None) -> bool:
        taken = super().receive(topic, payload, properties)
        if taken and topic.endswith("/event"):
            self.said.append(json.loads(payload)["text"])
        return taken


def game_over(game: int) -> Notice:
    over = {"scores": {"R": 12, "B": 9 + game}, "winners": ["R"], "termination": "all-placed"}
    return Notice("game_over", f"Game {game} over.", over, game=game, at=1_800_000_000.0 + 100 * game)


@needs_mosquitto
def test_a_club_started_again_under_its_client_id_is_given_what_was_said_while_it_was_away_once_in_order(tmp_path):
    broker = Mosquitto(tmp_path / "broker").start()
    store = Store(tmp_path / "state.db")
    feed = Feed(broker_of(broker.url), "t1", store.path).start()
    subscriber = None
    try:
        club = Heard()
        subscriber = Subscriber(broker_of(broker.url), club, client_id="club-under-test").start()
        wait_for(lambda: (t := club.table("t1")) and t.flag, what="the club subscribed (the table's retained flag)")
        first = store.new_game(Setup("game", ["R", "B"]).to_dict())
        feed.announce(Notice("placed", "before", {}, game=first, at=1_800_000_000.0))
        feed.announce(game_over(first))
        wait_for(lambda: club.said == ["before", "Game 1 over."] and club.table("t1").games, what="the club following")
        subscriber.stop()  # the club's machine restarted, or its Wi-Fi down
        second = store.new_game(Setup("game", ["R", "B"]).to_dict())
        away = [f"away {n}" for n in range(30)]
        for n, text in enumerate(away):
            feed.announce(Notice("placed", text, {"n": n}, game=second, at=1_800_000_100.0 + n))
        feed.announce(game_over(second))
        wait_for(lambda: feed.acknowledged == 3 + len(away) + 2, what="the broker has everything")
        club = Heard()  # a club started again knows nothing of before
        subscriber = Subscriber(broker_of(broker.url), club, client_id="club-under-test").start()
        wait_for(lambda: len(club.said) >= len(away) + 1 and len(club.table("t1").games) == 2,
                 what="what was said meanwhile")
        feed.announce(Notice("placed", "back", {}, game=second, at=1_800_000_200.0))
        wait_for(lambda: club.said[-1:] == ["back"], what="an announcement after the club came back")
        assert club.said == [*away, "Game 2 over.", "back"]  # each once, in order
        assert sorted(club.table("t1").games) == [1, 2]  # game 1 from the broker's retained copy
        assert [(s.player, s.games) for s in club.standings()] == [("R", 2), ("B", 2)]
        assert club.table("t1").missed == 0  # the kept session lost nothing: no gap said
    finally:
        if subscriber is not None:
            subscriber.stop()
        feed.close()
        broker.stop()


# -- the whole chain ----------------------------------------------------------------------------------
class Table:
    """A referee playing the bundled game on fake frames, its feed to the broker; it stops at the frames in `stops`
    until it is let go on."""

    def __init__(self, name: str, folder: Path, url: str, stops: tuple[int, ...]) -> None:
        from tantrix_pi.commands.live import club_feed
        from tantrix_pi.devices.sources import ReplaySource
        from tantrix_pi.live.commands import pressed
        from tantrix_pi.live.config import COLOUR_LETTER, FeedConfig
        from tantrix_pi.live.loop import LiveLoop
        from tantrix_pi.live.recording import load_record, placements, script, turn_ends
        from tantrix_pi.live.referee import Setup
        from tantrix_pi.live.sinks import JsonLinesSink, Sinks
        from tantrix_pi.live.store import Store

        rec = load_record()
        scenes = script(placements(rec), still=4, hand=2, illegal_at=9, turn_ends=turn_ends(rec))
        self.name, self.events = name, folder / "events.jsonl"
        self.stopped = {n: threading.Event() for n in stops}
        self.go = {n: threading.Event() for n in stops}

        def frames():
            n = 0
            for i, s in enumerate(scenes):
                for j in range(s.frames):
                    if n in self.go:
                        self.stopped[n].set()
                        self.go[n].wait()
                    yield frame_of(s.board, s.hand, seed=1000 * i + j)
                    n += 1
                if s.press:
                    self.loop.commands.put(pressed(s.press))

        self.path = folder / "state.db"
        self.ready = threading.Event()

        def play() -> None:  # the referee's thread holds its own store, as `run` does
            store = Store(self.path)
            sinks = club_feed(FeedConfig(mqtt=url, table=name), store.path)
            self.feed, sink = sinks[-1], Sinks([JsonLinesSink(self.events), *sinks])
            setup = Setup("game", [COLOUR_LETTER[c] for c in rec["players"]])
            self.loop = LiveLoop(ReplaySource(frames), detect_frame, store, setup, sink)
            self.feed.start()
            self.ready.set()
            self.loop.run()
            sink.close()

        self.thread = threading.Thread(target=play, name=f"table-{name}")
        self.thread.start()
        wait_for(self.ready.is_set, 30, what=f"table {name} started")

    def stored(self):
        from tantrix_pi.live.store import Store

        return Store(self.path, read_only=True)

    def lines(self) -> list[str]:
        return self.events.read_text().splitlines() if self.events.exists() else []


def get(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


@needs_mosquitto
@needs_chromium
def test_two_tables_through_a_broker_killed_mid_game_every_event_once_in_order_and_the_club_page_shows_both(tmp_path):
    broker = Mosquitto(tmp_path / "broker").start()
    listener = Listener(broker.url)  # a subscriber that keeps every event (the broker keeps its session)
    port = free_port()
    club_log = (tmp_path / "club.log").open("w")
    club = subprocess.Popen([sys.executable, "-m", "tantrix_pi", "club", "--mqtt", broker.url, "--web", str(port),
                             "--bind", "127.0.0.1", "--client-id", "the-club"],
                            stdout=club_log, stderr=subprocess.STDOUT)
    page = f"http://127.0.0.1:{port}/"

    def club_state():
        assert club.poll() is None, (tmp_path / "club.log").read_text()
        try:
            return json.loads(get(page + "api/club"))
        except OSError:
            return None

    wait_for(lambda: (club_state() or {}).get("connected"), 30, what="the club connected")
    assert "as the-club (p5, c0," in broker.log.read_text()  # under its name, asking the broker to keep its session
    tables = [Table(name, tmp_path / name, broker.url, stops=(150, 300)) for name in ("t1", "t2")]
    browsers = contextlib.ExitStack()
    try:
        wait_for(lambda: all(t.stopped[150].is_set() for t in tables), 60, what="both tables at frame 150")
        for t in tables:  # everything said so far is out
            wait_for(lambda t=t: len(listener.once(f"tantrix/{t.name}/event")) == len(t.lines()), 30,
                     what=f"{t.name}'s first announcements")
        wait_for(lambda: sorted(c["name"] for c in (club_state() or {}).get("tables", []) if c["online"] and c["tiles"])
                 == ["t1", "t2"], 30, what="both tables online with tiles on the club's page")
        driver = browsers.enter_context(browser(DESKTOP))
        driver.get(page)
        shown_online(driver, tables)
        broker.kill()  # mid-game: the tables go on, their announcements wait
        wait_for(lambda: not any(t.feed.connected for t in tables), 30, what="the feeds see the broker gone")
        for t in tables:
            t.go[150].set()
        wait_for(lambda: all(t.stopped[300].is_set() for t in tables), 60, what="both tables at frame 300")
        for t in tables:
            assert Outbox(t.path).waiting(), f"{t.name}: nothing waits while the broker is away"
        broker.start()
        wait_for(lambda: all(t.feed.connected for t in tables), 60, what="the feeds back on the broker by themselves")
        for t in tables:
            t.go[300].set()
        for t in tables:
            t.thread.join(120)
            assert not t.thread.is_alive()
            lines = t.lines()
            assert json.loads(lines[-1])["kind"] == "game_over" and len(lines) > 100
            try:
                wait_for(lambda t=t, lines=lines: len(listener.once(f"tantrix/{t.name}/event")) >= len(lines), 60,
                         what=f"all of {t.name}'s announcements")
            except AssertionError:
                seqs = {int(m.properties["seq"]) for m in listener.on(f"tantrix/{t.name}/event")}
                raise AssertionError(f"missing {sorted(set(range(1, len(lines) + 1)) - seqs)}, sessions "
                                     f"{listener.sessions}, outbox {len(Outbox(t.path).waiting())}, "
                                     f"acknowledged {t.feed.acknowledged}; "
                                     f"{(tmp_path / 'broker' / 'mosquitto.log').read_text()[-3000:]}") from None
            got = listener.once(f"tantrix/{t.name}/event")
            assert [m.payload.decode() for m in got] == lines  # every one once, in order, as events.jsonl has it
            assert not Outbox(t.path).waiting()
        late = Listener(broker.url, client_id="late")  # what the broker keeps for one that comes now
        for t in tables:
            state = wait_for(lambda t=t: late.on(f"tantrix/{t.name}/state"), 30, what="the retained state")[-1]
            online = wait_for(lambda t=t: late.on(f"tantrix/{t.name}/online"), 30, what="the retained flag")[-1]
            state = json.loads(state.payload)
            assert state["board"] == t.stored().board(t.loop.game).to_dict() and state["over"]
            assert state["scores"] == t.loop.view().scores and online.payload == b"0"  # both exited cleanly
        final = wait_for(lambda: (s := club_state()) and len(s["standings"]) == 4 and not any(
            c["online"] for c in s["tables"]) and s, 60, what="the club's page at the end")
        for card in final["tables"]:
            t = next(t for t in tables if t.name == card["name"])
            assert card["tiles"] == 56 and [g["game"] for g in card["games"]] == [t.loop.game]
            assert json.loads(get(page + card["games"][0]["url"].lstrip("/"))) == t.stored().record(t.loop.game)
            assert card["message"] == json.loads(t.lines()[-1])["text"]
        shown_at_the_end(driver, tables)
        assert "never came" not in (tmp_path / "club.log").read_text()  # the broker killed mid-game lost nothing
    finally:
        for t in tables:
            for go in t.go.values():
                go.set()
        browsers.close()
        club.terminate()
        club.wait(20)
        club_log.close()
        listener.close()
        broker.stop()


def cards_shown(driver) -> dict[str, dict]:
    return driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#tables [data-table]')].map(c => [c.dataset.table, "
        "{online: c.dataset.online, tiles: c.querySelectorAll('svg g.tile[data-tile]').length, "
        "scores: Object.fromEntries([...c.querySelectorAll('[data-score-colour]')].map(s => [s.dataset.scoreColour, "
        "Number(s.textContent)])), status: c.querySelector('.status').textContent, "
        "message: c.querySelector('.message').textContent, "
        "records: c.querySelectorAll('.games a[download]').length}]))")


def shown_online(driver, tables) -> None:
    cards = wait_for(lambda: (c := cards_shown(driver)) and set(c) == {"t1", "t2"} and all(
        v["online"] == "true" and v["tiles"] > 0 for v in c.values()) and c, 30, what="both tables online on the page")
    for t in tables:
        assert cards[t.name]["status"].endswith("to play.") and set(cards[t.name]["scores"]) == {"R", "Y"}


def shown_at_the_end(driver, tables) -> None:
    cards = wait_for(lambda: (c := cards_shown(driver)) and all(
        v["online"] == "false" and v["tiles"] == 56 and v["records"] == 1 for v in c.values()) and c, 60,
        what="both finished games on the page")
    for t in tables:
        view = t.loop.view()
        assert cards[t.name]["scores"] == view.scores and cards[t.name]["status"].startswith("Game over:")
        assert cards[t.name]["message"] == json.loads(t.lines()[-1])["text"]
    rows = driver.execute_script("return [...document.querySelectorAll('#standings tbody tr')].map(r => "
                                 "[r.dataset.table, r.dataset.colour])")
    assert sorted(map(tuple, rows)) == [("t1", "R"), ("t1", "Y"), ("t2", "R"), ("t2", "Y")]
    keep = os.environ.get("TANTRIX_PI_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(keep) / "club-desktop.png"))

