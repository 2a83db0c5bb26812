"""The table's web page without a browser: the SVG contract, the state the referee hands over, the live
stream (a slow client dropped, the referee never waiting), pairing and control, photo checks, replays."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import httpx2 as httpx
import numpy as np
import pytest
from live_fakes import detect_frame, scene_source
from starlette.testclient import TestClient

from tantrix_pi.board import Board, Placement
from tantrix_pi.cli import main
from tantrix_pi.live.camera import CameraWatch
from tantrix_pi.live.commands import Calibrating, NewGame, SetVoice
from tantrix_pi.live.config import GateConfig
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import load_record, placements, script, turn_ends
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import MemorySink, Sinks, View
from tantrix_pi.live.store import Notice, Store
from tantrix_pi.simulator import PLAIN, legal_board, render
from tantrix_pi.web.app import Site, make_app
from tantrix_pi.web.hub import CLIENT_QUEUE, Broadcaster, Hub
from tantrix_pi.web.pairing import MAX_FAILURES, Pairing
from tantrix_pi.web.photos import MAX_UPLOAD
from tantrix_pi.web.server import listen, serve
from tantrix_pi.web.svg import board_svg

SVG = "{http://www.w3.org/2000/svg}"


def tiles_of(svg: str) -> list[tuple[int, int, int, int]]:
    root = ET.fromstring(svg)
    return sorted((int(g.get("data-tile")), int(g.get("data-q")), int(g.get("data-r")), int(g.get("data-rot")))
                  for g in root.iter(f"{SVG}g") if g.get("class") == "tile")


# -- the board's SVG ------------------------------------------------------------------------------------
def test_every_tile_is_an_svg_element_with_its_number_cell_and_turn():
    board = legal_board(9, seed=4)
    svg = board_svg(board, forced=[(5, 5), (6, 5)], last=next(iter(board)).cell, doubted=[(4, 4)], turn_deg=30)
    assert tiles_of(svg) == sorted((p.tile, p.q, p.r, p.rot) for p in board)
    root = ET.fromstring(svg)
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tile"]
    assert all(len(g.findall(f"{SVG}path")) == 3 for g in groups)  # three arcs on every tile
    forced = [g for g in root.iter(f"{SVG}g") if g.get("class") == "forced"]
    assert [(g.get("data-letter"), g.get("data-q"), g.get("data-r")) for g in forced] == [("A", "5", "5"),
                                                                                         ("B", "6", "5")]
    assert [g.findtext(f"{SVG}text") for g in forced] == ["A", "B"]
    assert [g.findtext(f"{SVG}text") for g in root.iter(f"{SVG}g") if g.get("class") == "doubted"] == ["?"]
    assert "rotate(30 " in svg


def test_svg_arcs_follow_the_renderers_geometry():
    from tantrix_pi.render import arc_points
    from tantrix_pi.web.svg import SIZE

    p = Placement(1, 2, -1, 3)
    svg = board_svg(Board([p]))
    paths = [e.get("d") for e in ET.fromstring(svg).iter(f"{SVG}path")]
    from tantrix_pi.tiles import TILES

    for arc, d in zip(TILES[1].arcs, paths, strict=True):
        a, b = ((e + p.rot) % 6 for e in arc.edges)
        pts = arc_points(p.cell, a, b, SIZE)
        numbers = [float(x) for x in d.replace("M", " ").replace("A", " ").replace("L", " ").split()]
        assert numbers[:2] == pytest.approx(pts[0], abs=0.01) and numbers[-2:] == pytest.approx(pts[-1], abs=0.01)
        if len(pts) > 2:  # a curve: its radius is the distance of the middle point from the arc's circle centre
            mid = np.array(pts[len(pts) // 2])
            ends = np.array([pts[0], pts[-1]])
            r = numbers[2]
            chord = np.linalg.norm(ends[1] - ends[0])
            sagitta = r - np.sqrt(r * r - chord * chord / 4)
            assert np.linalg.norm(mid - ends.mean(axis=0)) == pytest.approx(sagitta, abs=0.02)


# -- a whole game through the loop into the hub -----------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The bundled game replayed through the live loop (fake camera) with the hub as one of its sinks."""
    rec = load_record()
    tmp = tmp_path_factory.mktemp("game")
    scenes = script(placements(rec), still=3, hand=1, illegal_at=9, turn_ends=turn_ends(rec))
    hub, memory = Hub(), MemorySink()
    store = Store(tmp / "state.db")
    loop = None
    loop = LiveLoop(scene_source(scenes, lambda: loop.commands), detect_frame, store, Setup("game", ["R", "Y"]),
                    Sinks([memory, hub]), gate=GateConfig(stable_frames=2))
    loop.run()
    return loop, hub, memory, rec


def test_api_state_is_the_referees_game(played):
    from tantrix_pi.record import from_dict, replay

    loop, hub, memory, rec = played
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        state = client.get("/api/state").json()
    board = Board.from_dict(state["board"])
    assert state["board"]["format"] == "tantrix-board/1" and board == loop.store.board(loop.game)
    assert len(board) == 56 and tiles_of(state["svg"]) == sorted((p.tile, p.q, p.r, p.rot) for p in board)
    engine, _ = replay(from_dict(rec))
    assert state["scores"] == {p: s.score for p, s in engine.scores().items()}
    assert state["over"] and state["winners"] == list(engine.outcome().winners) and state["bag_empty"]
    assert state["mode"] == "game" and state["players"] == ["R", "Y"] and state["turn"] in ("R", "Y")
    assert [(e["kind"], e["text"]) for e in state["events"]] == [(e.kind, e.text) for e in memory.events[-50:]]
    assert state["last"] == loop.store.moves(loop.game)[-1].placement.to_dict()
    assert state["seen"] > 0 and state["camera"]["up"]


def test_the_last_frame_read_is_drawn_with_what_was_seen_cut_to_the_board(photos):
    from tantrix_pi.vision import detect
    from tantrix_pi.web.table import board_crop

    hub = Hub()
    with TestClient(make_app(Site(hub))) as client:
        assert client.get("/api/seen.jpg").status_code == 404  # nothing seen yet: said, not a broken picture
        frame = cv2.imread(str(photos["game"]))
        hub.frame(frame, detect(frame))
        r = client.get("/api/seen.jpg")
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
    picture = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
    seen = hub.seen()
    board = board_crop(seen.frame, seen.detection)  # cut to the tiles seen, with a margin
    assert board.size < 0.8 * frame.size and picture.shape == board.shape
    assert np.abs(picture.astype(int) - board.astype(int)).mean() > 1  # what was seen is drawn on it
    xs = [t.center_px[0] for t in seen.detection.tiles]
    assert len(xs) == 7 and board.shape[1] >= max(xs) - min(xs) + seen.detection.tile_px  # every tile is in it


def test_replay_steps_and_records_come_from_the_store(played, tmp_path):
    loop, hub, memory, rec = played
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        games = client.get("/api/games").json()["games"]
        steps = client.get(f"/api/games/{loop.game}/steps").json()["steps"]
        last = client.get(f"/api/games/{loop.game}/steps/{len(steps) - 1}").json()
        first = client.get(f"/api/games/{loop.game}/steps/1").json()
        record = client.get("/api/game").json()
        assert client.get(f"/api/games/{loop.game}/steps/{len(steps)}").status_code == 404
        assert client.get("/api/games/99").status_code == 404
    assert games[0]["game"] == loop.game and games[0]["tiles"] == 56
    assert steps[0]["tiles"] == 0 and steps[-1]["tiles"] == 56
    assert sum(len(s["events"]) for s in steps) == len(loop.store.events(loop.game))
    assert Board.from_dict(last["board"]) == loop.store.board(loop.game)
    assert len(tiles_of(first["svg"])) == 1 and first["events"][0]["kind"] == "placed"
    assert sum(s["events"].count(e.text) for s in steps for e in memory.events if e.kind == "illegal") == 1
    out = tmp_path / "record.json"
    assert main(["game", "export", "--state-dir", str(loop.store.path.parent), "--out", str(out)]) == 0
    assert record == json.loads(out.read_text())
    assert [m for m in record["moves"] if not m.get("end_turn")] == [m for m in rec["moves"] if not m.get("end_turn")]


# -- rulings on the board, the game as moves ---------------------------------------------------------------
@pytest.fixture(scope="module")
def illegal_moment(tmp_path_factory):
    """The bundled game played until its illegal tile lies on the table (the hub as the referee's View promises)."""
    from web_fakes import illegal_scene, play

    return play(tmp_path_factory.mktemp("illegal"), illegal_scene())


def test_an_illegal_tile_is_drawn_as_such_with_the_edge_it_does_not_match(illegal_moment):
    loop, hub, memory = illegal_moment
    ruled = next(e for e in reversed(memory.events) if e.kind == "illegal")
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        state = client.get("/api/state").json()
    root = ET.fromstring(state["svg"])
    illegal = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tile illegal"]
    assert [(int(g.get("data-tile")), int(g.get("data-q")), int(g.get("data-r"))) for g in illegal] == [
        (ruled.data["tile"], *ruled.data["cell"])]
    assert state["illegal"] == [{k: ruled.data[k] for k in ("tile", "cell", "rot", "violations")}]
    golden = [v for v in ruled.data["violations"] if v["rule"] == "golden-rule"]
    edges = [(e.get("data-q"), e.get("data-r")) for e in root.iter(f"{SVG}line") if e.get("class") == "mismatch"]
    assert golden and edges == [(str(c[0]), str(c[1])) for v in golden for c in v["cells"][1:]]
    blocked = {(int(e.get("data-q")), int(e.get("data-r"))) for e in root.iter(f"{SVG}polygon")
               if e.get("class") == "blocked"}
    named = {tuple(c) for v in ruled.data["violations"] if v["rule"] != "golden-rule" for c in v["cells"][1:]}
    assert blocked == named
    # the spaces only the illegal tile makes are not drawn as real ones
    forced = {(int(g.get("data-q")), int(g.get("data-r"))) for g in root.iter(f"{SVG}g") if g.get("class") == "forced"}
    from tantrix_pi import rules

    without = Board(p for p in loop.referee.board if p.tile != ruled.data["tile"])
    assert forced == set(rules.forced_spaces(without)) != set(rules.forced_spaces(loop.referee.board))


def test_the_moves_are_the_stored_ones_marked_forced_or_free(played):
    loop, hub, memory, rec = played
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        moves = client.get("/api/state").json()["moves"]
    stored = loop.store.moves(loop.game)
    assert [(m["n"], m["tile"], m["q"], m["r"], m["rot"], m["player"]) for m in moves] == [
        (n, s.placement.tile, s.placement.q, s.placement.r, s.placement.rot, s.player) for n, s in enumerate(stored, 1)]
    said = {e.data["tile"]: e.data["forced"] for e in memory.events if e.kind == "placed"}
    assert {m["tile"]: m["forced"] for m in moves} == said and 0 < sum(said.values()) < len(said)


def test_the_scores_come_with_their_lines_and_loops_drawn(played):
    from tantrix_pi import scoring

    loop, hub, _, _ = played
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        state = client.get("/api/state").json()
    board = loop.store.board(loop.game)
    for c in ("R", "Y"):
        s = scoring.score(board, c)
        assert state["breakdown"][c] == {"line": s.line, "loop": s.loop, "score": s.score}
        assert s.score == state["scores"][c]
        drawn = [e for e in ET.fromstring(state["svg"]).iter()
                 if e.get("class") == "path" and e.get("data-colour") == c]
        assert len(drawn) == 1 and int(drawn[0].get("data-length")) == len(s.path.cells)


def test_the_replay_counts_moves_and_shows_each_steps_scores_forced_spaces_and_ruling(played):
    loop, hub, memory, rec = played
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        answer = client.get(f"/api/games/{loop.game}/steps").json()
        steps, moves = answer["steps"], answer["moves"]
        ruled = next(i for i, s in enumerate(steps) if any(t.startswith("Illegal") for t in s["events"]))
        at = client.get(f"/api/games/{loop.game}/steps/{ruled}").json()
        after = client.get(f"/api/games/{loop.game}/steps/{ruled + 1}").json()
        last = client.get(f"/api/games/{loop.game}/steps/{len(steps) - 1}").json()
    assert len(steps) == 59 and len(moves) == 56 and steps[-1]["move"] == 56 == last["moves"]  # 58 boards
    assert [m["n"] for m in moves] == list(range(1, 57))
    assert [(m["tile"], m["q"], m["r"]) for m in moves] == [(p.tile, p.q, p.r) for p in
                                                            (m.placement for m in loop.store.moves(loop.game))]
    for m in moves:  # each move is on the board from its step on, and not before
        assert steps[m["step"]]["move"] >= m["n"] and steps[m["step"] - 1]["move"] < m["n"]
    assert last["scores"] == loop.referee.scores() and last["breakdown"]["R"]["score"] == last["scores"]["R"]
    assert at["illegal"] and 'class="tile illegal"' in at["svg"] and at["move"] == steps[ruled - 1]["move"]
    assert not after["illegal"] and 'illegal' not in after["svg"]
    from tantrix_pi import rules

    refused = at["illegal"][0]["tile"]
    board = Board.from_dict(at["board"])
    accepted = Board(p for p in board if p.tile != refused)
    assert [tuple(f["cell"]) for f in at["forced"]] == rules.forced_spaces(accepted)


def test_the_replay_says_who_plays_at_each_step(played):
    from tantrix_pi.live.replay import replay

    loop, _, _, _ = played
    steps = replay(loop.store, loop.game).steps
    ends = [(s, e) for s in steps for e in s.events if e.kind == "end_turn"]
    assert ends and all(s.to_move == e.data["next"] for s, e in ends)
    assert {s.to_move for s in steps[1:-1]} == {"R", "Y"} and steps[-1].to_move is None  # none once it is over


def test_the_replay_shows_the_fills_owed_and_the_turn_the_referee_announces(tmp_path):
    """The announcements of docs/live.md: `to_play` (who plays now) and `must_fill` (the spaces a player owes)."""
    from web_fakes import play

    loop, hub, _ = play(tmp_path, 60)
    space = loop.view().forced[0]
    loop.store.log_events(loop.game, [Notice("to_play", "", {"player": "Y"}),
                                      Notice("must_fill", "", {"player": "Y", "spaces": [space["cell"]]})])
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        steps = client.get(f"/api/games/{loop.game}/steps").json()["steps"]
        before, last = (client.get(f"/api/games/{loop.game}/steps/{i}").json() for i in (len(steps) - 2,
                                                                                          len(steps) - 1))
    assert loop.view().turn == "R" and last["to_move"] == "Y"
    assert last["must_fill"] == [{"player": "Y", "letter": space["letter"], "cell": space["cell"],
                                  "tiles": space["fits"]}]
    assert before["must_fill"] == []


def test_an_older_tile_taken_off_and_put_back_keeps_its_place_among_the_moves(tmp_path):
    from web_fakes import play

    from tantrix_pi.live.replay import replay

    loop, _, _ = play(tmp_path, 60)
    moves = replay(loop.store, loop.game).moves
    third = moves[2]
    board = loop.store.board(loop.game)
    loop.store.log_events(loop.game, [Notice("removed", "", {"tile": third["tile"], "cell": [third["q"], third["r"]]})])
    loop.store.commit(loop.game, board, events=[Notice("scores", "", {})])  # a step of its own, the board unchanged
    loop.store.log_events(loop.game, [Notice("restored", "", {"tile": third["tile"], "cell": [third["q"], third["r"]],
                                                             "rot": third["rot"]})])
    game = replay(loop.store, loop.game)
    assert [s.moves for s in game.steps[-2:]] == [len(moves) - 1, len(moves)]
    assert game.moves == moves


def test_the_game_list_names_the_winner(played):
    loop, hub, memory, rec = played
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        games = client.get("/api/games").json()["games"]
    over = next(e for e in memory.events if e.kind == "game_over")
    assert games[0]["winners"] == over.data["winners"] and games[0]["started"] > 0


# -- light: deltas, compression -------------------------------------------------------------------------
def tile_key(g) -> tuple:
    return tuple(int(g.get(f"data-{k}")) for k in ("tile", "q", "r", "rot")) + (g.get("class"),)


def apply(state: dict, delta: dict, tiles: dict, marks: list) -> None:
    """What the page's script does with a delta (common.js `follow`, board.js `drawBoard`)."""
    from tantrix_pi.web.hub import KEEP_EVENTS

    assert delta["from"] == state["version"]
    state.update(delta.get("set", {}))
    state["version"] = delta["version"]
    state["events"] = (state["events"] + delta.get("events", []))[-KEEP_EVENTS:]
    if "moves" in delta:
        state["moves"] = state["moves"][:delta["moves"]["from"]] + delta["moves"]["tail"]
    board = delta.get("svg", {})
    for n in board.get("remove", []):
        del tiles[n]
    for svg in board.get("add", []):
        tile = tile_key(ET.fromstring(svg))
        tiles[tile[0]] = tile
    if "marks" in board:
        marks[0] = board["marks"]


def test_after_the_first_message_the_stream_sends_what_changed_and_the_page_keeps_up(tmp_path, monkeypatch):
    """The whole game through a broadcaster: each delta applied to the first state gives the state of the moment;
    the deltas are small."""
    from web_fakes import play

    from tantrix_pi.web.state import PageState, delta

    # the fake referee plays the game as fast as it can: on a loaded machine this reader can fall the 8 messages
    # behind that get a browser dropped (and reconnected: the test below). Here every delta must arrive
    monkeypatch.setattr("tantrix_pi.web.hub.CLIENT_QUEUE", 10_000)

    async def scenario():
        hub = Hub()
        page = PageState(hub, tmp_path / "state.db")
        broadcaster = Broadcaster(hub, page.build, delta)
        broadcaster.start()
        client = broadcaster.subscribe()
        start = broadcaster.version
        messages = []

        def referee():
            play(tmp_path, None, hub)

        thread = threading.Thread(target=referee)
        thread.start()
        while thread.is_alive() or not client.queue.empty():
            try:
                messages.append(await asyncio.wait_for(client.queue.get(), 0.2))
            except TimeoutError:
                pass
        broadcaster.refresh()
        return messages, broadcaster, broadcaster.version - start

    messages, broadcaster, changes = asyncio.run(scenario())
    first = messages[0]
    assert first.startswith(b"event: state\n")
    state = json.loads(first.split(b"data: ", 1)[1])
    assert "board" not in state  # the picture has the tiles: the board is not sent twice
    root = ET.fromstring(state["svg"])
    tiles = {tile_key(g)[0]: tile_key(g) for g in root.iter(f"{SVG}g") if g.get("class") in ("tile", "tile illegal")}
    marks = [""]
    sizes = []
    for m in messages[1:]:
        assert m.startswith(b"event: delta\n")
        sizes.append(len(m))
        apply(state, json.loads(m.split(b"data: ", 1)[1]), tiles, marks)
    final = broadcaster.state
    assert {k: v for k, v in state.items() if k != "svg"} == {k: v for k, v in final.items()
                                                              if k not in ("svg", "board")}
    assert tiles == {n: tile_key(ET.fromstring(svg)) for n, svg in broadcaster.picture.tiles.items()}
    assert len(tiles) == 56 and marks[0] == broadcaster.picture.marks
    # a busy loop sends several changes in one delta (fewer, bigger messages): what is small is the bytes per change,
    # about 1.1 KB (the whole state each time would be some 20 KB)
    assert changes > 50 and sum(sizes) / changes <= 2000, (changes, sorted(sizes))


def test_pages_and_json_are_compressed_and_the_stream_too(played):
    import zlib

    loop, hub, _, _ = played
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        page = client.get("/", headers={"Accept-Encoding": "gzip"})
        state = client.get("/api/state", headers={"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip" and state.headers["content-encoding"] == "gzip"
    server = serve(hub, listen("127.0.0.1", 0))
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=5) as client, \
                client.stream("GET", "/api/events", headers={"Accept-Encoding": "gzip"}) as stream:
            assert stream.headers["content-encoding"] == "gzip"
            inflate, got, wire = zlib.decompressobj(31), b"", 0
            for chunk in stream.iter_raw():  # each message can be read as soon as it comes
                wire += len(chunk)
                got += inflate.decompress(chunk)
                if got.endswith(b"\n\n"):
                    break
    finally:
        server.stop()
    message = json.loads(got.split(b"data: ", 1)[1])
    assert message["scores"] == state.json()["scores"] and wire < len(got) / 3


# -- each phone its language, sharing ----------------------------------------------------------------------
def test_each_phone_reads_the_page_in_its_own_language(played):
    from tantrix_pi import i18n
    from tantrix_pi.grid import fmt

    loop, hub, _, _ = played
    i18n.use("cs")  # the table speaks Czech
    with TestClient(make_app(Site(hub, loop.store.path))) as client:
        table = client.get("/")
        phone = client.get("/", headers={"Accept-Language": "hu-HU,hu;q=0.9,en;q=0.5"})
        unknown = client.get("/", headers={"Accept-Language": "de-DE,de;q=0.9"})
        refused = client.post("/api/control/end-turn", json={}, headers={"Accept-Language": "pl"})
        asked = client.get("/replay?lang=es", headers={"Accept-Language": "hu"})
        kept = client.get("/api/games/1/steps/1", headers={"Accept-Language": "hu"})  # the cookie ?lang= set
    assert '<html lang="cs">' in table.text and '<html lang="hu">' in phone.text
    assert '<html lang="cs">' in unknown.text  # a language the referee does not speak: the table's
    assert '<html lang="es">' in asked.text and "lang=es" in asked.headers["set-cookie"]
    placed = kept.json()["events"][0]
    with i18n.speaking("es"):
        assert placed["text"].startswith(i18n._("{player} plays tile {tile} at {cell}.").format(
            player=i18n.player_name(placed["data"]["player"]), tile=placed["data"]["tile"],
            cell=fmt(placed["data"]["cell"])))  # then who plays, in the same language
    with i18n.speaking("pl"):
        assert refused.json()["error"] == i18n._("pair this phone first: enter the code the table's display shows")
    assert i18n.language() == "cs"  # the referee speaks on in the table's language


def test_the_page_shows_its_address_and_a_qr_code_of_it(played):
    loop, hub, _, _ = played
    site = Site(hub, loop.store.path, addresses=["http://localhost:8080/", "http://192.168.1.20:8080/"])
    with TestClient(make_app(site), base_url="http://tantrix.local:8080") as client:
        there = client.get("/").text
        tv = client.get("/tv").text
    with TestClient(make_app(site), base_url="http://localhost:8080") as client:
        here = client.get("/").text
    assert 'data-qr="http://tantrix.local:8080/"' in there and 'data-qr="http://tantrix.local:8080/"' in tv
    assert 'data-qr="http://192.168.1.20:8080/"' in here  # this machine's own name is of no use to a phone
    assert re.search(r'data-qr="[^"]+">\s*<div class="qr"[^>]*><svg', here)


# -- the hand-off: the referee never waits, a slow client is dropped --------------------------------------
def view(n: int = 0) -> View:
    return View(f"message {n}", Board([Placement(1, 0, 0, n % 6)]), [], {"R": n}, "R", game=1, players=["R", "B"])


def test_a_slow_client_is_dropped_and_the_others_get_every_change():
    async def scenario():
        hub = Hub()
        broadcaster = Broadcaster(hub, lambda snap: ({"version": snap.version}, None))
        broadcaster.start()
        slow, quick = broadcaster.subscribe(), broadcaster.subscribe()
        got = [await quick.queue.get()]
        for n in range(3 * CLIENT_QUEUE):
            threading.Thread(target=hub.show, args=(view(n),)).start()  # from other threads, as the referee does
            await asyncio.sleep(0.01)
            got.append(await asyncio.wait_for(quick.queue.get(), 1))
        assert slow.dropped and slow not in broadcaster.clients and broadcaster.dropped == 1
        assert await slow.queue.get() is None  # its stream ends; the browser reconnects
        versions = [json.loads(m.split(b"data: ")[1])["version"] for m in got]
        assert versions == sorted(set(versions)) and len(versions) == 3 * CLIENT_QUEUE + 1
        broadcaster.stop()

    asyncio.run(scenario())


def test_the_referee_never_waits_for_the_page():
    hub = Hub()
    loop = asyncio.new_event_loop()  # attached but never run: a web side that is stuck
    hub.attach(loop, lambda: None)
    t0 = time.perf_counter()
    for n in range(2000):
        hub.announce(Notice("placed", f"Placed {n}", {}))
        hub.show(view(n))
    assert (time.perf_counter() - t0) / 4000 < 0.001
    loop.close()  # a web side that is gone
    hub.announce(Notice("placed", "after", {}))
    assert hub.snapshot().events[-1]["text"] == "after" and len(hub.snapshot().events) == 50


def test_a_broken_page_never_stops_the_referee(tmp_path, caplog):
    from live_fakes import scene_frames

    from tantrix_pi.devices.sources import sequence_source
    from tantrix_pi.live.recording import game_moves

    class Broken(Hub):
        def show(self, view):
            raise RuntimeError("page bug")

    memory = MemorySink()
    moves = game_moves(3, 6)
    loop = LiveLoop(sequence_source(scene_frames(script(moves, still=3, hand=1))), detect_frame,
                    Store(tmp_path / "s.db"), Setup(), Sinks([Broken(), memory]),
                    gate=GateConfig(stable_frames=2))
    loop.run()
    assert [e.data["tile"] for e in memory.events if e.kind == "placed"] == [p.tile for p in moves]
    assert "Broken failed (RuntimeError: page bug)" in caplog.text


def test_the_live_stream_delivers_an_announcement_within_a_second():
    hub = Hub()
    hub.show(view(1))
    server = serve(hub, listen("127.0.0.1", 0))
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=5) as client, \
                client.stream("GET", "/api/events") as stream:
            lines = stream.iter_lines()
            first = next(line for line in lines if line.startswith("data: "))
            assert json.loads(first[6:])["scores"] == {"R": 1}
            t0 = time.perf_counter()
            hub.announce(Notice("illegal", "Illegal: tile 5 at (1,0): no.", {"tile": 5}))
            message = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
            assert time.perf_counter() - t0 < 1.0
            assert message["events"][-1]["text"] == "Illegal: tile 5 at (1,0): no."
    finally:
        server.stop()


def test_a_port_in_use_is_one_line(tmp_path, capsys):
    taken = listen("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        assert main(["demo", "--out", str(tmp_path / "d"), "--web", str(port)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"port {port}" in err and "in use" in err
    finally:
        taken.close()


# -- pairing and control ---------------------------------------------------------------------------
@pytest.fixture
def table():
    hub, commands = Hub(), queue.Queue()
    hub.show(View(board=Board(), game=1, mode="game", players=["R", "B"]))
    site = Site(hub, commands=commands, pairing=Pairing("123456"))
    with TestClient(make_app(site)) as client:
        yield client, commands, site


def test_control_without_pairing_is_refused_and_changes_nothing(table):
    client, commands, _ = table
    for action in ("new-game", "settings", "end-turn", "undo", "voice"):
        r = client.post(f"/api/control/{action}", json={"on": True})
        assert r.status_code == 403 and "pair" in r.json()["error"]
        r = client.post(f"/api/control/{action}", json={}, headers={"Authorization": "Bearer forged"})
        assert r.status_code == 403
    assert commands.empty()


def test_pairing_gives_a_token_and_wrong_codes_are_limited(table):
    client, commands, site = table
    assert client.post("/api/pair", json={"code": "000000"}).status_code == 403
    token = client.post("/api/pair", json={"code": "123456"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    r = client.post("/api/control/new-game", json={"kind": "game", "players": ["green", "red", "blue"]}, headers=auth)
    assert r.status_code == 202 and commands.get_nowait() == NewGame(Setup("game", ["G", "R", "B"]))
    r = client.post("/api/control/settings", json={"kind": "discovery", "discovery": 7, "voice": True}, headers=auth)
    assert r.status_code == 202
    assert [commands.get_nowait(), commands.get_nowait()] == [NewGame(Setup("discovery", [], "discovery:7")),
                                                             SetVoice(True)]
    r = client.post("/api/control/settings", json={"voice": False}, headers=auth)  # same game: voice only
    assert r.json() == {"queued": ["voice"]} and commands.get_nowait() == SetVoice(False) and commands.empty()
    r = client.post("/api/control/new-game", json={"kind": "game", "players": ["red", "red"]}, headers=auth)
    assert r.status_code == 400 and "players" in r.json()["error"] and commands.empty()
    for _ in range(MAX_FAILURES):
        client.post("/api/pair", json={"code": "654321"})
    r = client.post("/api/pair", json={"code": "123456"})  # even the right code, while refusing
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0


def test_a_paired_phone_starts_a_new_game_on_the_running_referee(tmp_path):
    from live_fakes import frame_of

    from tantrix_pi.devices.sources import sequence_source

    hub, memory = Hub(), MemorySink()
    store = Store(tmp_path / "state.db")
    loop = LiveLoop(sequence_source([frame_of(Board())] * 6), detect_frame, store, Setup(), Sinks([hub, memory]))
    hub.show(loop.view())
    site = Site(hub, store.path, loop.commands, Pairing("111111"))
    with TestClient(make_app(site)) as client:
        token = client.post("/api/pair", json={"code": "111111"}).json()["token"]
        r = client.post("/api/control/new-game", json={"kind": "rainbow", "rainbow": "red"},
                        headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 202
        loop.run()
        state = client.get("/api/state").json()
    assert store.current_game()[1] == {"mode": "rainbow", "players": [], "puzzle": "rainbow:red"}
    assert [e.kind for e in memory.events] == ["new_game"]
    assert state["game"] == loop.game == 2 and state["mode"] == "rainbow"
    from tantrix_pi.puzzles import puzzle

    assert state["puzzle"] == {"name": "rainbow:red", "title": puzzle("rainbow:red").title,
                               "tiles": len(puzzle("rainbow:red").tiles), "placed": 0, "verdict": None}


def test_the_demo_has_nothing_to_control(played):
    _, hub, _, _ = played
    site = Site(hub, pairing=Pairing("222222"))
    with TestClient(make_app(site)) as client:
        token = client.post("/api/pair", json={"code": "222222"}).json()["token"]
        r = client.post("/api/control/end-turn", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 409 and "demo" in r.json()["error"]


# -- photo checks: the CLI's answers -------------------------------------------------------------------
@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    from tantrix_pi.puzzles import puzzle
    from tantrix_pi.solver import solve

    tmp = tmp_path_factory.mktemp("photos")
    solved = solve(puzzle("discovery:5"), timeout=30)
    out = {}
    cut = {"focus": (0, 0), "center": (690, 250), "size": (700, 500)}  # the board runs off the frame's edge
    for name, board, kw in (("solved", solved, {}), ("game", legal_board(7, seed=1, avoid=(1,)), {}),
                            ("cut", legal_board(5, seed=2), cut)):
        kw = {"size": (800, 600), **kw}
        image, _ = render(board, seed=3, tile_px=70.0, yaw_deg=10.0, **{**PLAIN, "noise": 1.0}, **kw)
        path = tmp / f"{name}.jpg"
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        out[name] = path
    return out


@pytest.fixture(scope="module")
def checker():
    from tantrix_pi.vision import detect

    site = Site(Hub(), detect=detect)
    with TestClient(make_app(site)) as client:
        yield client, site


def cli_json(capsys, args) -> tuple[int, dict | str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else captured.err.strip()


@pytest.mark.parametrize("photo, kind, field, value, expected", [
    ("solved", "check", "puzzle", "discovery:5", 0),
    ("game", "check", "puzzle", "discovery:7", 1),
    ("game", "score", "players", "red,blue", 0),
    ("cut", "check", "puzzle", "discovery:5", 3),
])
def test_photo_checks_answer_as_the_cli_does(photos, checker, capsys, photo, kind, field, value, expected):
    client, _ = checker
    path = photos[photo]
    code, cli = cli_json(capsys, [kind, str(path), f"--{field}", value, "--json"])
    assert code == expected
    r = client.post(f"/api/{kind}", files={"image": (path.name, path.read_bytes(), "image/jpeg")},
                    data={field: value})
    answer = r.json()
    assert answer["exit_code"] == code
    assert answer["overlay"].startswith("data:image/jpeg;base64,")
    if code == 3:  # refused: the CLI's --json refusal, its line naming the upload instead of the path
        assert r.status_code == 422 and answer["doubts"] == cli["doubts"] and answer["doubts"]
        assert answer["error"] == cli["error"].replace(str(path), path.name)
    else:
        assert r.status_code == 200
        assert {k: v for k, v in answer.items() if k not in ("exit_code", "overlay")} == cli
    if photo == "solved":
        assert answer["solved"] is True and code == 0


def test_bad_uploads_get_400_with_one_line(photos, checker):
    import struct
    import zlib

    client, _ = checker

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0))
    bomb += chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b"")
    jpeg = photos["game"].read_bytes()
    grey = cv2.imencode(".jpg", cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE))[1].tobytes()
    cases = {"pdf.jpg": (b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n" * 20, "not an image"),
             "half.jpg": (jpeg[: len(jpeg) // 2], "truncated"),
             "bomb.png": (bomb, "enormous"),
             "grey.jpg": (grey, "black-and-white")}
    for name, (data, words) in cases.items():
        r = client.post("/api/score", files={"image": (name, data, "image/jpeg")}, data={"players": "red,blue"})
        assert r.status_code == 400, name
        assert words in r.json()["error"] and "\n" not in r.json()["error"] and r.json()["exit_code"] == 2
    r = client.post("/api/check", files={"image": ("a.jpg", jpeg, "image/jpeg")}, data={"puzzle": "discovery:99"})
    assert r.status_code == 400 and "discovery" in r.json()["error"]
    r = client.post("/api/score", content=b"x" * 100, headers={"Content-Length": str(MAX_UPLOAD + 1),
                                                               "Content-Type": "multipart/form-data; boundary=x"})
    assert r.status_code == 413 and "20 MB" in r.json()["error"]
    r = client.post("/api/score", files={"photo": ("a.jpg", jpeg, "image/jpeg")})
    assert r.status_code == 400 and "image" in r.json()["error"]


def test_at_most_two_photo_checks_run_at_once(photos):
    from tantrix_pi.vision import detect

    release, running = threading.Event(), []

    def slow_detect(image, on_board=(), lying=()):
        running.append(1)
        release.wait(10)
        return detect(image)

    server = serve(Hub(), listen("127.0.0.1", 0), detect=slow_detect)
    data = photos["game"].read_bytes()
    url = f"http://127.0.0.1:{server.port}/api/score"
    answers = []

    def post():
        answers.append(httpx.post(url, files={"image": ("g.jpg", data, "image/jpeg")}, timeout=30))

    try:
        busy = [threading.Thread(target=post) for _ in range(2)]
        for t in busy:
            t.start()
        end = time.monotonic() + 10
        while len(running) < 2 and time.monotonic() < end:
            time.sleep(0.02)
        third = httpx.post(url, files={"image": ("g.jpg", data, "image/jpeg")}, timeout=30)
        assert third.status_code == 503 and int(third.headers["retry-after"]) > 0 and "\n" not in third.json()["error"]
        release.set()
        for t in busy:
            t.join(30)
        assert [a.status_code for a in answers] == [200, 200]
        fourth = httpx.post(url, files={"image": ("g.jpg", data, "image/jpeg")}, timeout=30)
        assert fourth.status_code == 200  # the slots are free again
    finally:
        release.set()
        server.stop()


def qr_in(picture: Path) -> str:
    """The text of the QR code in a display's frame ("" for none, or a frame still being written)."""
    image = cv2.imread(str(picture))
    if image is None:
        return ""
    return cv2.QRCodeDetector().detectAndDecode(cv2.resize(image, None, fx=3, fy=3,
                                                           interpolation=cv2.INTER_NEAREST))[0]


def test_run_serves_the_page_on_the_socket_systemd_passes(tmp_path):
    import signal
    import subprocess
    import sys

    frames = tmp_path / "frames"
    frames.mkdir()
    image, _ = render(legal_board(4, seed=7), seed=7, size=(800, 600), tile_px=70.0, **PLAIN)
    cv2.imwrite(str(frames / "000.jpg"), image)
    for i in range(1, 300):  # a minute at 5 fps: the service still runs when the test has seen what it needs
        os.link(frames / "000.jpg", frames / f"{i:03d}.jpg")
    taken = listen("127.0.0.1", 0)  # the config's port is busy: only the passed socket can serve
    passed = listen("127.0.0.1", 0)
    config = tmp_path / "config.toml"
    screen = tmp_path / "display"
    screen.mkdir()
    config.write_text(f'[camera]\nsource = "folder"\npath = "{frames}"\nfps = 5\n'
                      f'[web]\nport = {taken.getsockname()[1]}\n[paths]\nstate_dir = "{tmp_path / "state"}"\n'
                      f'[display]\nkind = "png"\ndir = "{screen}"\n')
    script = f'exec 3<&{passed.fileno()}; LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" -m tantrix_pi run --config "$1"'
    proc = subprocess.Popen(["bash", "-c", script, sys.executable, str(config)], pass_fds=(passed.fileno(),),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = passed.getsockname()[1]
        url = f"http://127.0.0.1:{port}/api/state"
        end, state = time.monotonic() + 30, None
        while state is None and time.monotonic() < end and proc.poll() is None:
            try:
                state = httpx.get(url, timeout=2).json()
            except httpx.TransportError:
                time.sleep(0.2)
        assert state is not None and state["mode"] == "game" and state["players"] == ["R", "B"]
        # the display's start page: the page's address, and a QR code of it for a phone to open
        shown = set()
        while not any(shown) and time.monotonic() < end and proc.poll() is None:
            shown = {qr_in(f) for f in sorted(screen.glob("*.png"))[:3]}
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=30)[0]
        taken.close()
        passed.close()
    assert proc.returncode == 0, out
    assert "pairing code" in out and "in use" not in out
    frames_written = sorted(screen.glob("*.png"))
    assert f"http://127.0.0.1:{port}/" in shown, (shown, len(frames_written), [qr_in(f) for f in frames_written[:6]],
                                                   end - time.monotonic(), out[-3000:])


# -- the code ------------------------------------------------------------------------------------------
def test_the_web_modules_import_no_circle():
    """Every import between tantrix_pi.web's modules, those inside functions too, goes one way."""
    import ast
    from graphlib import CycleError, TopologicalSorter

    import tantrix_pi.web

    folder = Path(tantrix_pi.web.__file__).parent
    graph = {}
    for path in folder.glob("*.py"):
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tantrix_pi.web"):
                imported |= ({node.module.split(".")[2]} if node.module.count(".") >= 2
                             else {a.name for a in node.names})
        graph[path.stem] = imported - {path.stem}
    assert len(graph) >= 10
    try:
        list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        pytest.fail(f"import circle: {e.args[1]}")


def test_the_calibration_preview_follows_the_frames_even_in_a_reused_buffer(tmp_path):
    """A camera that fills the same buffer again: a new frame number, a new preview."""
    from test_calibration_camera import FLAT, SPEC, views

    from tantrix_pi.web.calibrate import Guide

    hub = Hub()
    guide = Guide(hub, tmp_path / "profile.toml", spec=SPEC)
    _, sheet = next(iter(views(FLAT, seed=4)))
    buffer = np.full_like(sheet, 128)
    hub.frame(buffer)

    def green(jpeg: bytes) -> int:
        img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), 1)
        return int(((img[..., 1] > 180) & (img[..., 0] < 80) & (img[..., 2] < 80)).sum())

    assert green(guide.preview()) == 0
    buffer[...] = sheet  # the same array, the sheet in view now
    hub.frame(buffer)
    assert green(guide.preview()) > 100


# -- guided calibration ----------------------------------------------------------------------------------
def test_guided_calibration_warns_while_the_views_are_too_alike_and_refuses_to_save_them(tmp_path):
    from test_calibration_camera import FLAT, POSES, SPEC, views

    from tantrix_pi.calibration.profile import Profile
    from tantrix_pi.web.calibrate import Guide

    hub, commands = Hub(), queue.Queue()
    profile = tmp_path / "profile.toml"
    site = Site(hub, commands=commands, pairing=Pairing("333333"), calibration=Guide(hub, profile, spec=SPEC))
    with TestClient(make_app(site)) as client:
        auth = {"Authorization": "Bearer " + client.post("/api/pair", json={"code": "333333"}).json()["token"]}
        assert client.post("/api/control/calibration/take").status_code == 403
        assert client.post("/api/control/calibration/take", headers=auth).status_code == 409  # not started
        assert client.post("/api/control/calibration/start", headers=auth).status_code == 202
        assert commands.get_nowait() == Calibrating(True)
        hub.frame(np.full((768, 1024, 3), 128, np.uint8))
        r = client.post("/api/control/calibration/take", headers=auth)
        assert r.status_code == 400 and "not taken: board not found" in r.json()["error"]
        for _, image in views(FLAT, seed=4):
            hub.frame(image)
            status = client.post("/api/control/calibration/take", headers=auth).json()
        preview = cv2.imdecode(np.frombuffer(client.get("/api/calibration/preview.jpg").content, np.uint8), 1)
        green = (preview[..., 1] > 180) & (preview[..., 0] < 80) & (preview[..., 2] < 80)
        assert green.sum() > 100  # the corners found, drawn
        assert status["views"] == 8 and len(status["poses"]) == 8 and not status["ready"]
        assert "the views need more tilt" in status["warning"] and "take 3 more" in status["warning"]
        r = client.post("/api/control/calibration/save-lens", headers=auth)
        assert r.status_code == 400 and "the views need more tilt" in r.json()["error"] and not profile.exists()
        for _, image in views([POSES[1], POSES[2], POSES[5]], seed=5):
            hub.frame(image)
            status = client.post("/api/control/calibration/take", headers=auth).json()
        assert status["warning"] is None and status["ready"] and status["tilted"] >= 3
        r = client.post("/api/control/calibration/save-lens", headers=auth)
        assert r.status_code == 200 and "lens saved: 11 views" in r.json()["note"]
        assert Profile.load(profile).camera.views == 11
        hub.frame(np.full((768, 1024, 3), 128, np.uint8))  # the sheet is not on the table: said in one line
        r = client.post("/api/control/calibration/table", headers=auth)
        assert r.status_code == 400 and "\n" not in r.json()["error"] and r.json()["error"]
        assert client.post("/api/control/calibration/stop", headers=auth).status_code == 202
        assert commands.get_nowait() == Calibrating(False)


def test_while_the_page_calibrates_no_move_is_judged(tmp_path):
    from live_fakes import frame_of

    from tantrix_pi.devices.sources import ReplaySource
    from tantrix_pi.live.recording import game_moves

    moves = game_moves(5, 2)
    memory = MemorySink()
    loop = None

    def frames():
        for board in (Board(), Board(moves[:1])):
            loop.commands.put(Calibrating(len(board) == 0))
            for _ in range(4):
                yield frame_of(Board() if len(board) == 0 else board)
        for _ in range(4):
            yield frame_of(Board(moves[:2]))

    loop = LiveLoop(ReplaySource(frames), detect_frame, Store(tmp_path / "s.db"), Setup(), memory,
                    gate=GateConfig(stable_frames=2))
    loop.commands.put(Calibrating(True))
    loop.run()
    placed = [e.data["tile"] for e in memory.events if e.kind == "placed"]
    assert placed == [moves[0].tile, moves[1].tile]


def test_the_referees_loss_of_the_camera_shows_on_the_page(tmp_path):
    from live_fakes import frame_of
    from test_live_loop import FlakyCamera

    clock = [0.0]
    camera = FlakyCamera([frame_of(Board())] * 6, {2: "raise"}, clock)
    hub = Hub()
    loop = LiveLoop(CameraWatch(camera, clock=lambda: clock[0], sleep=lambda s: clock.__setitem__(0, clock[0] + s)),
                    detect_frame, Store(tmp_path / "s.db"), Setup(), hub)
    seen = []
    with TestClient(make_app(Site(hub))) as client:
        while loop.step():
            seen.append(client.get("/api/state").json()["camera"])
    assert {"up": False, "text": "Camera lost: camera unplugged. Retrying."} in seen
    assert seen[-1] == {"up": True, "text": "Camera is back."}


def test_the_seats_step_finds_each_hand_writes_the_config_and_the_running_referee_watches_them(tmp_path,
                                                                                               monkeypatch):
    from dataclasses import replace

    from live_fakes import ZONES, frame_of

    from tantrix_pi.commands.seats import seating
    from tantrix_pi.devices.sources import ReplaySource
    from tantrix_pi.live import config as config_mod
    from tantrix_pi.live import service
    from tantrix_pi.live.hands import in_pixels
    from tantrix_pi.vision.detection import in_polygon
    from tantrix_pi.web.calibrate import Guide

    held = {"Y": set(range(1, 7)), "R": set(range(7, 13))}
    table = [frame_of(Board(), hands={"Y": held["Y"]})]  # one hand laid out so far

    def sized(image, on_board=(), lying=()):  # frame_of's tiles are 8 px wide, hands alone too
        return replace(detect_frame(image), tile_px=8.0)

    given = {}

    def make_detector(profile_path="", follow=None, zones=None):  # the service's, on frame_of frames
        given.update(zones=zones, follow=follow)
        return sized

    monkeypatch.setattr(service, "make_detector", make_detector)
    config = tmp_path / "config.toml"
    config.write_text('language = "en"  # kept\n\n[mode]\nplayers = ["yellow", "red"]\n')
    cfg = config_mod.load(config)
    hub = Hub()
    def frames():
        while True:
            yield table[0]

    loop = LiveLoop(ReplaySource(frames), detect_frame, Store(tmp_path / "s.db"),
                    Setup("game", ["Y", "R"]), Sinks([MemorySink(), hub]), gate=GateConfig(stable_frames=2))
    hub.show(loop.view())
    profile = tmp_path / "profile.toml"
    guide = Guide(hub, profile, sized, seat=seating(cfg, loop, profile, config))
    site = Site(hub, commands=loop.commands, pairing=Pairing("444444"), calibration=guide)
    with TestClient(make_app(site)) as client:
        auth = {"Authorization": "Bearer " + client.post("/api/pair", json={"code": "444444"}).json()["token"]}
        assert client.post("/api/control/calibration/start", headers=auth).status_code == 202
        loop.step()
        assert client.post("/api/control/calibration/seats").status_code == 403  # paired phones only
        r = client.post("/api/control/calibration/seats", headers=auth)
        assert r.status_code == 400 and r.json()["error"].startswith("1 groups of tiles found for 2 players")
        r = client.post("/api/control/calibration/seats", json={"first": "middle"}, headers=auth)
        assert r.status_code == 400 and "bottom" in r.json()["error"]
        table[0] = frame_of(Board(), hands=held)  # both hands laid out
        loop.step()
        r = client.post("/api/control/calibration/seats", headers=auth)
        assert r.status_code == 200 and r.json()["note"] == f"Seats set for Yellow, Red and written to {config}."
        assert client.post("/api/control/calibration/stop", headers=auth).status_code == 202
    written = config.read_text()
    assert written.startswith('language = "en"  # kept') and 'players = ["yellow", "red"]' in written
    seats = config_mod.load(config).seats.zones
    size = (table[0].shape[1], table[0].shape[0])
    for p, tiles in held.items():  # each seat's zone holds its tiles and no other's
        inside = {u.tile for u in detect_frame(table[0]).loose if in_polygon(in_pixels(seats[p], size), u.center_px)}
        assert inside == tiles and set(ZONES[p]) != set(seats[p])
    assert loop.hands is None and loop.referee.game.hands["Y"] is None
    for _ in range(4):  # the referee takes them into use between frames, without a restart
        loop.step()
    assert loop.hands.zones == seats and given["zones"] == seats and given["follow"] == profile
    assert loop.detect is sized and loop.referee.hands_in_view
    assert {p: loop.referee.game.hands[p] for p in held} == held  # the hands as dealt, read in the new zones


def test_a_body_the_parser_cannot_take_and_a_game_number_sqlite_cannot_hold_are_one_line_4xx(table, tmp_path):
    client, commands, site = table
    huge, deep = b'{"code": ' + b"9" * 5000 + b"}", b"[" * 100_000 + b"]" * 100_000
    auth = {"Authorization": "Bearer " + client.post("/api/pair", json={"code": "123456"}).json()["token"]}
    for body in (huge, deep, b"\xff"):
        for url, headers in (("/api/pair", {}), ("/api/control/end-turn", auth)):
            r = client.post(url, content=body, headers={"Content-Type": "application/json", **headers})
            assert r.status_code == 400 and "\n" not in r.json()["error"] and r.json()["error"]
    assert commands.empty()
    store = Store(tmp_path / "state.db")
    store.close()
    with TestClient(make_app(Site(Hub(), tmp_path / "state.db"))) as reader:
        for path in ("", "/steps", "/steps/0"):
            r = reader.get("/api/games/" + "9" * 30 + path)
            assert r.status_code == 404 and r.json()["error"] == f"there is no game {'9' * 30}"


def test_one_phones_wrong_codes_do_not_lock_another_out(table):
    client, _, site = table
    for _ in range(MAX_FAILURES):
        client.post("/api/pair", json={"code": "654321"})
    assert client.post("/api/pair", json={"code": "123456"}).status_code == 429
    with TestClient(make_app(site), client=("192.168.1.31", 50000)) as other:
        r = other.post("/api/pair", json={"code": "123456"})
    assert r.status_code == 200 and r.json()["token"]
