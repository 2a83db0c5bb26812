"""The club's feed (live/feed.py) against a real broker: what each topic carries, and that nothing is lost or sent twice
while the broker is away. `tantrix-pi demo --mqtt` is checked in tests/test_web_browser.py, on the replay its page
tests watch."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from broker import Listener, Mosquitto, free_port, needs_mosquitto, wait_for
from live_fakes import detect_frame, scene_source

from tantrix_pi.commands.live import club_feed
from tantrix_pi.live.config import FeedConfig, broker_of
from tantrix_pi.live.feed import Feed, FeedError, discovery
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import game_moves, script
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import JsonLinesSink, Sinks
from tantrix_pi.live.store import Notice, Outbox, Store

pytestmark = needs_mosquitto
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def broker(tmp_path):
    b = Mosquitto(tmp_path / "broker").start()
    yield b
    b.stop()


def said(text: str, n: int, game: int = 1) -> Notice:
    return Notice("placed", text, {"n": n}, game=game, at=1_800_000_000.0 + n)


def texts(messages) -> list[str]:
    return [json.loads(m.payload)["text"] for m in messages]


def test_a_game_goes_out_as_events_jsonl_holds_it_with_the_pages_state_retained_and_the_table_online(tmp_path, broker):
    listener = Listener(broker.url)
    store = Store(tmp_path / "state.db")
    sinks = club_feed(FeedConfig(mqtt=broker.url, table="t1"), store.path)
    hub, feed = sinks
    sink = Sinks([JsonLinesSink(tmp_path / "events.jsonl"), *sinks])
    loop = None
    loop = LiveLoop(scene_source(script(game_moves(3)[:6], still=4, hand=2, illegal_at=3), lambda: loop.commands),
                    detect_frame, store, Setup("game", ["R", "B"]), sink)
    feed.start()
    wait_for(lambda: [m.payload for m in listener.on("tantrix/t1/online")] == [b"1"], what="online 1")
    loop.run()
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    assert len(lines) > 8 and {json.loads(x)["kind"] for x in lines} >= {"placed", "illegal", "taken_back"}
    wait_for(lambda: len(listener.on("tantrix/t1/event")) >= len(lines), what="every announcement")
    assert [m.payload.decode() for m in listener.on("tantrix/t1/event")] == lines  # once each, in order, as written
    assert [int(m.properties["seq"]) for m in listener.on("tantrix/t1/event")] == list(range(1, len(lines) + 1))
    sink.close()
    late = Listener(broker.url, client_id="late")  # what a club that starts now is given
    wait_for(lambda: late.on("tantrix/t1/state") and late.on("tantrix/t1/online"), what="the retained messages")
    [state], [online] = late.on("tantrix/t1/state"), late.on("tantrix/t1/online")
    assert state.retain and online.retain and online.payload == b"0"  # said at the clean exit
    state = json.loads(state.payload)
    assert state["board"] == store.board(loop.game).to_dict() and state["game"] == loop.game
    assert state["events"][-1]["text"] == json.loads(lines[-1])["text"] and state["turn"] in ("R", "B")
    assert '<g class="tile" data-tile=' in state["svg"]


def test_while_the_broker_is_away_announcements_wait_in_the_state_database_and_go_out_once_in_order(tmp_path, broker):
    listener = Listener(broker.url)  # its session is kept by the broker across its restart
    store = Store(tmp_path / "state.db")
    feed = Feed(broker_of(broker.url), "t1", store.path).start()
    for n in range(3):
        feed.announce(said(f"before {n}", n))
    wait_for(lambda: len(listener.on("tantrix/t1/event")) == 3, what="the first three")
    broker.kill()
    wait_for(lambda: not feed.connected, what="the broker gone")
    for n in range(3, 6):
        feed.announce(said(f"away {n}", n))
    wait_for(lambda: len(Outbox(store.path).waiting()) == 3, what="three waiting in the state database")
    feed.close()  # the referee stops while the broker is away ...
    assert [m.topic for m in Outbox(store.path).waiting()] == ["event"] * 3
    feed = Feed(broker_of(broker.url), "t1", store.path).start()  # ... and starts again
    feed.announce(said("after the restart", 6))
    broker.start()
    wait_for(lambda: len(listener.once("tantrix/t1/event")) == 7, 40, what="all seven")
    assert texts(listener.once("tantrix/t1/event")) == ["before 0", "before 1", "before 2", "away 3", "away 4",
                                                       "away 5", "after the restart"]
    wait_for(lambda: not Outbox(store.path).waiting(), what="the outbox emptied by the acknowledgements")
    feed.close()


class Held(Feed):
    """A feed whose thread, once `hold` is set, stops in its next turn right after taking the referee's lines, until
    `go` is set."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.hold, self.held, self.go = False, threading.Event(), threading.Event()

    def _take_lines(self) -> None:
        super()._take_lines()
        if self.hold:
            self.hold = False
            self.held.set()
            self.go.wait()


def said_as_it_closes(feed: Held, event: Notice) -> None:
    """`event` announced between a turn's look at the lines and the rest of that turn, then the feed closed: the
    referee's last word as it stops, on a loaded machine."""
    feed.hold = True
    feed.show(None)  # wakes the feed for a turn with nothing new to take
    wait_for(feed.held.is_set, what="the feed's turn held after taking the lines")
    feed.announce(event)
    closing = threading.Thread(target=feed.close)
    closing.start()
    wait_for(lambda: feed._closing, what="close() called")
    feed.go.set()
    closing.join()


def test_what_is_said_between_a_turns_look_at_the_lines_and_close_goes_out(tmp_path, broker):
    listener = Listener(broker.url)
    store = Store(tmp_path / "state.db")
    feed = Held(broker_of(broker.url), "t1", store.path).start()
    feed.announce(said("first", 1))
    wait_for(lambda: feed.acknowledged == 1, what="the first acknowledged")  # nothing in flight
    said_as_it_closes(feed, said("last", 2))
    wait_for(lambda: len(listener.once("tantrix/t1/event")) == 2, 10, what="both announcements")
    assert texts(listener.once("tantrix/t1/event")) == ["first", "last"] and not Outbox(store.path).waiting()


def test_what_is_said_between_a_turns_look_at_the_lines_and_close_waits_in_the_state_database(tmp_path):
    store = Store(tmp_path / "state.db")
    feed = Held(broker_of(f"mqtt://127.0.0.1:{free_port()}"), "t1", store.path).start()  # no broker there
    feed.announce(said("first", 1))
    wait_for(lambda: len(Outbox(store.path).waiting()) == 1, what="the first waiting")
    said_as_it_closes(feed, said("last", 2))
    assert texts(Outbox(store.path).waiting()) == ["first", "last"]  # sent at the next start


def test_past_keep_waiting_messages_the_oldest_are_dropped_and_that_is_said_once(tmp_path, caplog):
    store = Store(tmp_path / "state.db")
    feed = Feed(broker_of(f"mqtt://127.0.0.1:{free_port()}"), "t1", store.path, keep=3).start()  # no broker there
    with caplog.at_level(logging.WARNING, "tantrix_pi.feed"):
        for n in range(5):
            feed.announce(said(f"a{n}", n))
        wait_for(lambda: [json.loads(m.payload)["text"] for m in Outbox(store.path).waiting()] == ["a2", "a3", "a4"],
                 what="the three newest kept")
        feed.announce(said("a5", 5))
        wait_for(lambda: [json.loads(m.payload)["text"] for m in Outbox(store.path).waiting()] == ["a3", "a4", "a5"],
                 what="the three newest kept")
    feed.close()
    dropped = [r for r in caplog.records if "the oldest are dropped" in r.getMessage()]
    assert len(dropped) == 1 and "\n" not in dropped[0].getMessage()


def test_a_finished_game_is_published_retained_with_its_result_and_record(tmp_path, broker):
    store = Store(tmp_path / "state.db")
    game = store.new_game(Setup("game", ["R", "B"]).to_dict())
    feed = Feed(broker_of(broker.url), "t2", store.path).start()
    over = {"scores": {"R": 12, "B": 9}, "winners": ["R"], "termination": "all-placed"}
    feed.announce(Notice("game_over", "Game over: Red 12, Blue 9. Red wins.", over, game=game, at=time.time()))
    wait_for(lambda: feed.acknowledged == 2, what="the broker has the event and the game")
    listener = Listener(broker.url)  # subscribed afterwards: given what the broker keeps
    [msg] = wait_for(lambda: listener.on(f"tantrix/t2/game/{game}"), what="the game's message")
    assert msg.retain and json.loads(msg.payload) == {"game": game, "over": over, "record": store.record(game)}
    feed.close()


def test_home_assistant_is_told_of_a_sensor_for_the_scores_and_one_for_the_turn(tmp_path, broker):
    import jinja2

    store = Store(tmp_path / "state.db")
    state = {"version": 1, "scores": {"R": 12, "B": 9}, "turn": "B"}
    listener = Listener(broker.url, "homeassistant/#")
    feed = Feed(broker_of(broker.url), "t3", store.path, state=lambda: state, home_assistant=True).start()
    wait_for(lambda: len(listener.got) == 2, what="two discovery messages")
    late = Listener(broker.url, "homeassistant/#", client_id="home-assistant")  # Home Assistant started later
    configs = wait_for(lambda: len(late.got) == 2 and late.got, what="the two kept")
    assert sorted(m.topic for m in configs) == sorted(t for t, _ in discovery("t3")) and all(m.retain for m in configs)
    env = jinja2.Environment()  # Home Assistant's templates are Jinja2 with value_json
    shown = {}
    for m in configs:
        c = json.loads(m.payload)
        assert c["state_topic"] == "tantrix/t3/state" and c["availability_topic"] == "tantrix/t3/online"
        shown[c["unique_id"]] = env.from_string(c["value_template"]).render(value_json=state)
    assert shown == {"tantrix_t3_scores": "R 12, B 9", "tantrix_t3_turn": "B"}
    feed.close()


def test_a_table_that_dies_is_said_offline_by_its_last_will(tmp_path, broker):
    Store(tmp_path / "state.db").close()
    script_ = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
               "from tantrix_pi.live.config import broker_of\nfrom tantrix_pi.live.feed import Feed\n"
               f"Feed(broker_of({broker.url!r}), 't4', {str(tmp_path / 'state.db')!r}, keepalive_s=1).start()\n"
               "time.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-c", script_])
    listener = Listener(broker.url)
    try:
        wait_for(lambda: [m.payload for m in listener.on("tantrix/t4/online")][-1:] == [b"1"], what="online")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    wait_for(lambda: [m.payload for m in listener.on("tantrix/t4/online")][-1:] == [b"0"], 10, what="the will")


def test_a_ca_file_that_cannot_be_read_is_one_line():
    with pytest.raises(FeedError) as e:
        Feed(broker_of("mqtts://u:p@127.0.0.1"), "t1", "state.db", ca_file="/nonexistent/ca.pem")
    assert "feed.ca_file" in str(e.value) and "\n" not in str(e.value)

