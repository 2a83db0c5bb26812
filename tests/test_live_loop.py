import io

import numpy as np
import pytest
from live_fakes import B, detect_frame, frame_of, scene_frames, scene_source

from tantrix_pi import rules
from tantrix_pi.board import Board
from tantrix_pi.devices.sources import CameraGone, FrameSource, sequence_source
from tantrix_pi.live.camera import CameraWatch
from tantrix_pi.live.commands import EndTurn, NewGame, Undo
from tantrix_pi.live.loop import LiveLoop
from tantrix_pi.live.recording import Scene, game_moves, script
from tantrix_pi.live.referee import Setup
from tantrix_pi.live.sinks import ConsoleSink, MemorySink, Sinks
from tantrix_pi.live.store import Store

GAME = game_moves(3)


def run_loop(tmp_path, frames, setup=None, **kw):
    store = Store(tmp_path / "state.db")
    sink = MemorySink()
    loop = LiveLoop(sequence_source(frames), detect_frame, store, setup or Setup(), sink, **kw)
    loop.run()
    return loop, sink, store


def kinds(sink):
    return [e.kind for e in sink.events]


def test_replay_announces_each_placement_once_and_the_illegal_one_taken_back(tmp_path):
    moves = GAME[:8]
    loop, sink, store = run_loop(tmp_path, scene_frames(script(moves, still=4, hand=2, illegal_at=5)))
    placed = [e.data["tile"] for e in sink.events if e.kind == "placed"]
    assert placed == [p.tile for p in moves]
    illegal = [e for e in sink.events if e.kind == "illegal"]
    assert len(illegal) == 1 and illegal[0].data["violations"][0]["rule"] == "golden-rule"
    # the sequence around the mistake: placed 5th, illegal, taken back, placed 6th
    seq = [(e.kind, e.data.get("tile")) for e in sink.events if e.kind in ("placed", "illegal", "taken_back")]
    bad = illegal[0].data["tile"]
    assert seq[4:8] == [("placed", moves[4].tile), ("illegal", bad), ("taken_back", bad), ("placed", moves[5].tile)]
    assert [m.placement for m in store.moves(loop.game)] == moves
    assert store.board(loop.game) == B(*[(p.tile, p.q, p.r, p.rot) for p in moves])
    assert [e.kind for e in store.events(loop.game)] == kinds(sink)  # everything announced was stored
    assert "scores" in kinds(sink)


def test_the_view_names_the_illegal_tile_and_draws_no_forced_space_of_its_own(tmp_path):
    moves = GAME[:8]
    loop, sink, _store = run_loop(tmp_path, scene_frames(script(moves, still=4, hand=2, illegal_at=5)))
    at = next(i for i, e in enumerate(sink.events) if e.kind == "illegal")
    bad = sink.events[at].data
    view = next(v for v in sink.views if v.illegal)
    assert view.illegal == [{"tile": bad["tile"], "cell": bad["cell"], "rot": bad["rot"],
                             "violations": bad["violations"]}]
    accepted = Board(p for p in view.board if p.tile != bad["tile"])
    assert [f["cell"] for f in view.forced] == [list(f.cell) for f in rules.forced_space_report(accepted)]
    assert view.to_move in ("R", "B") and sink.views[-1].illegal == []


def test_a_hand_over_the_board_never_yields_an_event(tmp_path):
    board = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:5]])
    frames = [frame_of(board)] * 5
    for k in range(40):  # a hand wanders over the table, never still
        frames.append(frame_of(board, hand=True, seed=k))
    frames += [frame_of(board)] * 5
    store = Store(tmp_path / "state.db")
    sink = MemorySink()
    LiveLoop(sequence_source(frames[:5]), detect_frame, store, Setup(), sink).run()
    before = len(sink.events)
    loop = LiveLoop(sequence_source(frames), detect_frame, store, Setup(), sink)
    loop.run()
    assert kinds(sink)[before:] == ["resumed"]
    assert loop.stats.skipped >= 40


def test_a_hand_resting_still_over_the_board_is_not_a_removal(tmp_path):
    board = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:5]])
    resting = frame_of(board, hand=True, seed=7)  # the same picture frame after frame: the gate sees no motion
    frames = [frame_of(B())] * 3 + [frame_of(board)] * 5 + [resting] * 20 + [frame_of(board)] * 5
    store = Store(tmp_path / "state.db")
    sink = MemorySink()
    loop = LiveLoop(sequence_source(frames), detect_frame, store, Setup("free", []), sink)
    loop.run()
    assert [k for k in kinds(sink) if k != "forced"] == ["placed"] * 5
    assert loop.stats.detected >= 15  # the resting hand was looked at, and seen for what it is
    assert store.board(loop.game) == board


def test_a_hand_resting_beside_the_board_and_gone_does_not_hold_up_the_next_placement(tmp_path):
    board = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:5]])
    more = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:6]])
    beside = frame_of(board)
    beside[90:, :30] = 255  # a hand resting still at the frame's edge, well clear of the board
    frames = ([frame_of(B())] * 3 + [frame_of(board)] * 5 + [beside] * 6 + [frame_of(more, hand=True, seed=1)]
              + [frame_of(more)] * 4)  # the hand at the edge gone as the sixth tile is laid
    _, sink, _ = run_loop(tmp_path, frames, Setup("free", []))
    placed = [e.data["tile"] for e in sink.events if e.kind == "placed"]
    assert sorted(placed[:5]) == sorted(p.tile for p in GAME[:5]) and placed[5:] == [GAME[5].tile]


def test_a_board_pushed_as_a_tile_is_laid_is_committed_in_step(tmp_path):
    # the hand laying the sixth tile pushed the whole board: the picture differs from the table as committed all
    # over the board, because it moved, not because a hand rests over it (taken so, nothing was committed for
    # OCCLUSION_PATIENCE detections, and the moves laid meanwhile were committed together, out of turn)
    board = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:5]])
    more = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:6]])
    frames = ([frame_of(B())] * 3 + [frame_of(board)] * 5 + [frame_of(more, hand=True, seed=1)]
              + [frame_of(more, shift=(7, 5))] * 3 + [frame_of(more, hand=True, seed=2)])
    loop, sink, store = run_loop(tmp_path, frames, Setup("free", []))
    placed = [e.data["tile"] for e in sink.events if e.kind == "placed"]
    assert sorted(placed[:5]) == sorted(p.tile for p in GAME[:5]) and placed[5:] == [GAME[5].tile]
    assert loop.stats.board_moved >= 2 and store.board(loop.game) == more


def test_a_tile_laid_by_a_player_leaning_over_the_board_is_committed_in_step(tmp_path):
    # the player's shadow falls across the board as the sixth tile is laid and stays: the picture differs from the
    # table as committed over half the board, because the light there changed, not because a hand rests over it
    # (taken so, nothing was committed for OCCLUSION_PATIENCE detections)
    board = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:5]])
    more = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:6]])
    frames = ([frame_of(B())] * 3 + [frame_of(board)] * 5 + [frame_of(more, hand=True, seed=1)]
              + [frame_of(more, shade=0.5)] * 3 + [frame_of(more, hand=True, seed=2)])
    loop, sink, store = run_loop(tmp_path, frames, Setup("free", []))
    placed = [e.data["tile"] for e in sink.events if e.kind == "placed"]
    assert placed[5:] == [GAME[5].tile] and store.board(loop.game) == more


def test_a_real_removal_is_still_seen(tmp_path):
    board = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:5]])
    less = B(*[(p.tile, p.q, p.r, p.rot) for p in GAME[:4]])
    frames = [frame_of(board)] * 5 + [frame_of(board, hand=True, seed=1)] + [frame_of(less)] * 8
    _, sink, _ = run_loop(tmp_path, frames, Setup("free", []))
    gone = [e.data["tile"] for e in sink.events if e.kind in ("removed", "taken_back")]
    assert gone == [GAME[4].tile]


class FlakyCamera(FrameSource):
    """Plays frames, but raises, returns nothing or stalls where told (fault injection)."""

    def __init__(self, frames, faults, clock):
        self.frames, self.faults, self.clock = frames, faults, clock
        self.i = 0
        self.opened = 0
        self.down_until = -1.0

    def open(self):
        if self.clock[0] < self.down_until:
            raise CameraGone("no camera on /dev/video0")
        self.opened += 1

    def read(self):
        from tantrix_pi.devices.sources import EndOfRecording

        if self.i >= len(self.frames):
            raise EndOfRecording()
        fault = self.faults.pop(self.i, None)
        if fault == "raise":
            self.down_until = self.clock[0] + 3.0  # unplugged for 3 s
            raise CameraGone("camera unplugged")
        if fault == "none":
            return None
        if fault == "stall":
            self.clock[0] += 10.0
        frame = self.frames[self.i]
        self.i += 1
        self.clock[0] += 0.1
        return frame


def test_camera_faults_are_reported_and_recovered_without_losing_a_move(tmp_path):
    moves = GAME[:6]
    frames = scene_frames(script(moves, still=6, hand=2))
    clock = [0.0]
    cam = FlakyCamera(frames, {7: "raise", 15: "none", 25: "stall", 33: "raise"}, clock)
    store = Store(tmp_path / "state.db")
    sink = MemorySink()

    def sleep(s):
        clock[0] += s

    loop = LiveLoop(CameraWatch(cam, clock=lambda: clock[0], sleep=sleep, retry_s=1.0), detect_frame, store, Setup(),
                    sink)
    loop.run()
    texts = [e.text for e in sink.events if e.kind == "camera"]
    assert texts[0] == "Camera lost: camera unplugged. Retrying."
    assert "Camera is back." in texts
    assert sum(t.startswith("Camera lost") for t in texts) == 3
    assert [m.placement for m in store.moves(loop.game)] == moves
    assert cam.opened == 4  # the first open and three recoveries


def test_no_camera_at_start_is_said_once_and_retried(tmp_path):
    clock = [0.0]
    cam = FlakyCamera([frame_of(B())] * 2, {}, clock)
    cam.down_until = 2.5
    sink = MemorySink()
    loop = LiveLoop(CameraWatch(cam, clock=lambda: clock[0], sleep=lambda s: clock.__setitem__(0, clock[0] + s)),
                    detect_frame, Store(tmp_path / "s.db"), Setup(), sink)
    loop.run()
    assert [e.text for e in sink.events] == ["No camera: no camera on /dev/video0. Retrying.", "Camera is back."]
    assert cam.opened == 1


def test_an_undecodable_video_is_said_once_and_retried_ever_more_slowly(tmp_path):
    from tantrix_pi.devices.sources import video_source

    clip = tmp_path / "clip.mp4"
    clip.write_bytes(bytes(range(256)) * 400)  # a file, but no video OpenCV can decode
    clock, waits = [0.0], []

    def sleep(s):
        clock[0] += s

    sink = MemorySink()
    loop = LiveLoop(CameraWatch(video_source(clip), clock=lambda: clock[0], sleep=sleep), detect_frame,
                    Store(tmp_path / "s.db"), Setup(), sink)
    while clock[0] < 120:
        before = clock[0]
        loop.step()
        waits.append(clock[0] - before)
    assert [e.text for e in sink.events] == [f"No camera: {clip}: cannot be decoded as a video. Retrying."]
    assert waits[:6] == pytest.approx([1.0, 2.0, 4.0, 8.0, 8.0, 8.0])  # not 2 events a second into events.jsonl


class Flapping(FrameSource):
    """Opens every time, but gives no frame for its first `broken` reads (a stream that connects, then fails)."""

    def __init__(self, frames, broken):
        self.frames, self.broken, self.reads = list(frames), broken, 0

    def read(self):
        from tantrix_pi.devices.sources import EndOfRecording

        self.reads += 1
        if self.reads <= self.broken:
            raise CameraGone("stream ended")
        if not self.frames:
            raise EndOfRecording()
        return self.frames.pop(0)


def test_a_source_that_opens_but_gives_no_frame_is_lost_once_and_back_once(tmp_path):
    clock = [0.0]
    sink = MemorySink()
    camera = CameraWatch(Flapping([frame_of(B())] * 3, broken=6), clock=lambda: clock[0],
                         sleep=lambda s: clock.__setitem__(0, clock[0] + s))
    loop = LiveLoop(camera, detect_frame, Store(tmp_path / "s.db"), Setup(), sink)
    loop.run()
    assert [e.text for e in sink.events] == ["Camera lost: stream ended. Retrying.", "Camera is back."]
    assert loop.stats.frames == 3


def test_a_detector_crash_on_one_frame_skips_it(tmp_path):
    moves = GAME[:3]
    frames = scene_frames(script(moves, still=5, hand=2))
    calls = [0]

    def flaky(img, on_board=(), lying=()):
        calls[0] += 1
        if calls[0] == 4:
            raise ValueError("odd frame")
        return detect_frame(img)

    store = Store(tmp_path / "s.db")
    loop = LiveLoop(sequence_source(frames), flaky, store, Setup(), MemorySink())
    loop.run()
    assert loop.stats.detector_errors == 1
    assert [m.placement for m in store.moves(loop.game)] == moves


def test_camera_back_within_five_seconds(tmp_path):
    clock = [0.0]
    frames = [frame_of(B())] * 3
    cam = FlakyCamera(frames, {1: "raise"}, clock)
    cam_back_at = []
    sink = MemorySink()

    class Watch(MemorySink):
        def announce(self, e):
            if e.text == "Camera is back.":
                cam_back_at.append(clock[0])

    loop = LiveLoop(CameraWatch(cam, clock=lambda: clock[0], sleep=lambda s: clock.__setitem__(0, clock[0] + s)),
                    detect_frame, Store(tmp_path / "s.db"), Setup(), Sinks([sink, Watch()]))
    loop.run()
    assert cam_back_at and cam_back_at[0] - cam.down_until <= 5.0


def test_resume_after_restart_announces_nothing_again(tmp_path):
    moves = GAME[:4]
    frames = scene_frames(script(moves, still=4, hand=2))
    _, sink1, _ = run_loop(tmp_path, frames)
    loop, sink2, store = run_loop(tmp_path, [frames[-1]] * 8)
    assert kinds(sink2) == ["resumed"]
    assert [m.placement for m in store.moves(loop.game)] == moves


def test_console_sink_prints_lines():
    out = io.StringIO()
    from tantrix_pi.live.store import Notice

    ConsoleSink(out).announce(Notice("placed", "Red plays tile 3 at (0,0).", {}))
    assert out.getvalue() == "Red plays tile 3 at (0,0).\n"


@pytest.mark.parametrize("mode", ["free"])
def test_free_play_judges_only_the_golden_rule(tmp_path, mode):
    moves = GAME[:6]
    loop, sink, _ = run_loop(tmp_path, scene_frames(script(moves, still=4, hand=2, illegal_at=3)), Setup(mode, []))
    assert [e.kind for e in sink.events].count("illegal") == 1
    assert "scores" not in kinds(sink)
    assert np.all([e.data.get("player") is None for e in sink.events if e.kind == "placed"])


def test_whole_bundled_game_ends_as_the_rules_engine_says(tmp_path):
    from tantrix_pi.live.recording import load_record, placements, turn_ends
    from tantrix_pi.record import from_dict, replay

    rec = load_record()
    moves = placements(rec)
    scenes = script(moves, still=4, hand=2, illegal_at=9, turn_ends=turn_ends(rec))
    store, sink = Store(tmp_path / "state.db"), MemorySink()
    loop = None
    loop = LiveLoop(scene_source(scenes, lambda: loop.commands), detect_frame, store, Setup("game", ["R", "Y"]), sink)
    loop.run()
    assert [m.placement for m in store.moves(loop.game)] == moves
    k = kinds(sink)
    assert k.count("placed") == 56 and k.count("illegal") == 1 and k.count("taken_back") == 1
    assert k.count("end_turn") == len(turn_ends(rec)) and "refused" not in k
    assert k.count("bag_empty") == 1 and k[-1] == "game_over"
    bag = next(e for e in sink.events if e.kind == "bag_empty")
    assert bag.data["tiles"] == 56 - 12
    # with the players' end-of-turn presses, every placement is credited as in the record
    who = [e.data["player"] for e in sink.events if e.kind == "placed"]
    assert who == [m["player"][0].upper() for m in rec["moves"] if not m.get("end_turn")]
    engine, _ = replay(from_dict(rec))
    over, result = sink.events[-1], engine.outcome()
    assert over.data["winners"] == list(result.winners) and over.data["termination"] == "all-placed"
    assert over.data["scores"] == result.player_scores and over.text == engine.result()


def test_buttons_end_turn_undo_and_new_game_survive_a_restart(tmp_path):
    from tantrix_pi.board import Board
    from tantrix_pi.rules import forced_spaces

    # the first fill of the game: whose it is depends on whether the turn was ended before it
    k = next(i for i, p in enumerate(GAME) if p.cell in forced_spaces(Board(GAME[:i])))
    store = Store(tmp_path / "state.db")
    sink = MemorySink()
    loop = LiveLoop(sequence_source(scene_frames(script(GAME[:k], still=4, hand=2))), detect_frame, store,
                    Setup(), sink)
    loop.commands.put(EndTurn())  # before any tile: red has not made a free move
    loop.run()
    assert sink.events[0].kind == "refused" and "has not made a free move" in sink.events[0].text
    mover = [e for e in sink.events if e.kind == "placed"][-1].data["player"]
    loop.commands.put(EndTurn())
    loop.commands.put(Undo())
    loop.step()  # the recording is over: only the commands run
    assert [e.kind for e in sink.events[-2:]] == ["end_turn", "hint"]
    last = GAME[k - 1]
    assert sink.events[-1].text == f"To undo, take tile {last.tile} off ({last.q},{last.r})."
    # after a restart the ended turn still counts: the fill is the next player's, not the mover's
    frames = scene_frames(script(GAME[:k + 1], still=4, hand=2))[-6:]
    sink2 = MemorySink()
    loop2 = LiveLoop(sequence_source(frames), detect_frame, store, Setup(), sink2)
    loop2.run()
    [fill] = [e for e in sink2.events if e.kind == "placed"]
    assert fill.data["forced"] and fill.data["player"] == ({"R": "B", "B": "R"}[mover])
    loop2.commands.put(NewGame())
    loop2.step()
    assert sink2.events[-1].kind == "new_game" and loop2.game != loop.game
    assert len(loop2.referee.board) == 0 and store.current_game()[0] == loop2.game


def connected_order(board):
    from tantrix_pi.grid import neighbours

    cells = sorted(board.cells)
    order, seen = [cells[0]], {cells[0]}
    while len(order) < len(cells):
        nxt = min(c for c in cells if c not in seen and any(n in seen for n in neighbours(c)))
        order.append(nxt)
        seen.add(nxt)
    return [board[c] for c in order]


def test_discovery_puzzle_solved_or_what_is_wrong(tmp_path):
    from helpers import path_search

    from tantrix_pi.board import Placement
    from tantrix_pi.puzzles import puzzle

    p = puzzle("discovery:4")
    board = path_search(p.tiles, p.colour, loop=p.loop)
    moves = connected_order(board)
    setup = Setup("discovery", [], "discovery:4")
    _, sink, _ = run_loop(tmp_path / "a", scene_frames(script(moves, still=4, hand=2)), setup)
    assert kinds(sink)[-1] == "solved" and "illegal" not in kinds(sink)
    last = moves[-1]
    wrong = moves[:-1] + [Placement(last.tile, last.q, last.r, (last.rot + 1) % 6)]
    _, sink, _ = run_loop(tmp_path / "b", scene_frames(script(wrong, still=4, hand=2)), setup)
    assert kinds(sink)[-2:] == ["illegal", "not_solved"]
    said = sink.events[-1]
    assert said.data == {"puzzle": "discovery:4"}
    assert "edge between" in said.text and f"({last.q},{last.r})" in said.text


def test_an_unsure_tile_is_never_judged(tmp_path):
    from live_fakes import seen

    from tantrix_pi.board import Board, Placement
    from tantrix_pi.live.recording import an_illegal_placement

    base = Board(GAME[:4])
    wrong = an_illegal_placement(base, [p.tile for p in GAME[4:]])
    bad = base.copy()
    bad.place(wrong)
    frames = scene_frames(script(GAME[:4], still=4, hand=2)) + [frame_of(bad, hand=True)] + [frame_of(bad)] * 8

    def detect(img, on_board=(), lying=()):
        det = detect_frame(img)
        return seen(det.board, unsure={wrong.cell: 0.3}) if wrong.cell in det.board else det

    store = Store(tmp_path / "s.db")
    sink = MemorySink()
    LiveLoop(sequence_source(frames), detect, store, Setup(), sink).run()
    assert "illegal" not in kinds(sink)
    unsure = [e for e in sink.events if e.kind == "unsure"]
    assert len(unsure) == 1 and unsure[0].text == f"Can't read the tile at ({wrong.q},{wrong.r}): waiting for a " \
                                                   "clear view."
    assert Placement(wrong.tile, wrong.q, wrong.r, wrong.rot) not in store.board(1)


def test_a_tile_washed_out_by_glare_is_named_with_its_reason_and_what_to_do(tmp_path):
    from live_fakes import seen

    from tantrix_pi.board import Board
    from tantrix_pi.live.replay import said_steps
    from tantrix_pi.vision.detection import GLARE

    laid = Board(GAME[:5])
    glared = GAME[4].cell
    frames = scene_frames(script(GAME[:4], still=4, hand=2)) + [frame_of(laid, hand=True)] + [frame_of(laid)] * 8

    def detect(img, on_board=(), lying=()):
        det = detect_frame(img)
        if glared not in det.board:
            return det
        return seen(Board(p for p in det.board if p.cell != glared), unreadable={glared: GLARE})

    store = Store(tmp_path / "s.db")
    sink = MemorySink()
    LiveLoop(sequence_source(frames), detect, store, Setup(), sink).run()
    [unsure] = [e for e in sink.events if e.kind == "unsure"]
    assert unsure.text == f"Glare hides the tile at ({glared[0]},{glared[1]}): move the lamp, or shade the tile."
    assert unsure.data["why"] == ["glare"]
    again = [e for _, events in said_steps(store, store.last_game()[0]) for e in events if e.kind == "unsure"]
    assert [e.text for e in again] == [unsure.text]


def test_a_game_played_on_while_a_tile_cannot_be_read_is_credited_as_played_once_it_reads(tmp_path):
    # the tile of move 5 lies under a lamp's glare while six more are laid and turns are ended with the button; then
    # the lamp is moved: the tiles come together, and each press is judged between them where it was made
    from live_fakes import seen

    from tantrix_pi.board import Board
    from tantrix_pi.live.recording import load_record, placements, turn_ends
    from tantrix_pi.vision.detection import GLARE

    rec = load_record()
    moves = placements(rec)[:16]
    ends = frozenset(i for i in turn_ends(rec) if i < len(moves))
    glared, moved_lamp = moves[5].cell, moves[11].cell
    assert any(5 <= i < 11 for i in ends)

    def detect(img, on_board=(), lying=()):
        det = detect_frame(img)
        if glared not in det.board or moved_lamp in det.board:
            return det
        return seen(Board(p for p in det.board if p.cell != glared), unreadable={glared: GLARE}, origin=(80.0, 60.0),
                    radius=6.0)  # where frame_of draws the tiles

    store, sink = Store(tmp_path / "state.db"), MemorySink()
    loop = None
    loop = LiveLoop(scene_source(script(moves, still=4, hand=2, turn_ends=ends), lambda: loop.commands), detect,
                    store, Setup("game", ["R", "Y"]), sink)
    loop.run()
    assert [m.placement for m in store.moves(loop.game)] == moves
    k = kinds(sink)
    assert k.count("unsure") == 1 and k.count("end_turn") == len(ends) and "refused" not in k
    who = [e.data["player"] for e in sink.events if e.kind == "placed"]
    assert who == [m["player"][0].upper() for m in rec["moves"] if not m.get("end_turn")][:len(moves)]


def test_bundled_demo_recording_is_a_legal_whole_game_with_hands_and_a_mistake():
    from tantrix_pi.live.demo import Demo
    from tantrix_pi.live.recording import load_record
    from tantrix_pi.record import from_dict, replay

    game, _ = replay(from_dict(load_record()))  # raises on any illegal move
    assert len(game.board) == 56 and game.outcome().winners
    demo = Demo.bundled()
    assert demo.moves == [m.placement for m in game.moves]
    notes = [s.note for s in demo.scenes]
    assert sum(s.hand for s in demo.scenes) == 56 + 2  # a hand brings every tile, and the wrong one, and takes it
    assert any(n.startswith("illegal:") for n in notes) and any(n.endswith("taken back") for n in notes)
    presses = sum(1 for m in load_record()["moves"] if m.get("end_turn"))
    assert sum(1 for s in demo.scenes if s.press == "end_turn") == presses == 18


def test_gobble_wants_every_new_tile_to_touch_two(tmp_path):
    from tantrix_pi.board import Board
    from tantrix_pi.grid import neighbours

    moves = GAME[:6]
    # the first tile after the second that touches only one tile breaks Gobble's rule
    k = next(i for i in range(2, 6) if sum(n in Board(GAME[:i]).cells for n in neighbours(GAME[i].cell)) < 2)
    _, sink, _ = run_loop(tmp_path, scene_frames(script(moves, still=4, hand=2)), Setup("gobble", []))
    bad = [e for e in sink.events if e.kind == "illegal"]
    assert bad and bad[0].data["tile"] == GAME[k].tile
    assert bad[0].data["violations"][0]["rule"] == "gobble-touch-two"


def test_a_stop_during_the_cameras_back_off_ends_the_wait(tmp_path):
    clock = [0.0]
    cam = FlakyCamera([frame_of(B())], {}, clock)
    cam.down_until = 10 ** 6  # never comes: the back-off grows to its 8 s
    slept = []

    def sleep(s):  # the service's SIGTERM arrives in the first second of a wait
        slept.append(s)
        clock[0] += s
        if clock[0] > 30.0:
            loop.stop()

    loop = LiveLoop(CameraWatch(cam, clock=lambda: clock[0], sleep=sleep, retry_max_s=8.0), detect_frame,
                    Store(tmp_path / "state.db"), Setup(), MemorySink())
    loop.run()
    waited_after_stop = clock[0] - 30.0
    assert loop.camera.wait == 8.0 and waited_after_stop <= 0.1, slept[-10:]


def turns_played(tmp_path, scenes) -> tuple[list[str], list[str]]:
    """A 2-player game's scenes through the loop: its placements, ends of turn and refusals, and who made each move."""
    store, sink = Store(tmp_path / f"state-{len(list(tmp_path.iterdir()))}.db"), MemorySink()
    loop = LiveLoop(scene_source(scenes, lambda: loop.commands), detect_frame, store, Setup("game", ["R", "Y"]),
                    sink)
    loop.run()
    said = [k for k in kinds(sink) if k in ("placed", "end_turn", "refused")]
    return said, [m.player for m in store.moves(loop.game)]


FIRST, SECOND = Board(GAME[:1]), Board(GAME[:2])


@pytest.mark.parametrize("still_before_press", [0, 1, 2])
def test_an_end_of_turn_pressed_right_after_laying_waits_for_that_tile(tmp_path, still_before_press):
    # red lays the first tile and presses at once: before the tile is committed (3 still frames), so judged at once
    # it was refused ("has not made a free move yet") and yellow's tile was credited to red
    scenes = [Scene(Board(), 3), Scene(FIRST, 2, hand=True), Scene(FIRST, still_before_press, press="end_turn"),
              Scene(FIRST, 6 - still_before_press), Scene(SECOND, 2, hand=True), Scene(SECOND, 5)]
    assert turns_played(tmp_path, scenes) == (["placed", "end_turn", "placed"], ["R", "Y"])
    # a press with no tile laid since the last commit is judged at once (here: refused, red has played nothing)
    assert turns_played(tmp_path, [Scene(Board(), 4, press="end_turn"), Scene(Board(), 1)]) == (["refused"], [])


def test_an_end_of_turn_pressed_as_the_next_players_hand_comes_in_ends_the_turn_before_their_tile(tmp_path):
    # red's free move is committed; red presses while yellow's hand already reaches in: yellow's tile, a free move
    # (no forced space), is yellow's, and red's turn ends before it
    assert not rules.forced_spaces(FIRST) and GAME[1].cell not in rules.forced_spaces(FIRST)
    scenes = [Scene(Board(), 3), Scene(FIRST, 2, hand=True), Scene(FIRST, 5),
              Scene(FIRST, 1, hand=True, press="end_turn"), Scene(FIRST, 1, hand=True), Scene(SECOND, 5)]
    assert turns_played(tmp_path, scenes) == (["placed", "end_turn", "placed"], ["R", "Y"])


def test_a_table_still_for_two_frames_after_a_hand_is_committed_in_step(tmp_path):
    # the gate skips the first frame after a hand (it differs from the hand's), though it shows the table as the
    # next still frame does: judged too, two still frames are enough (the service's stable_frames); uncounted, no
    # tile of a game whose players left the table still for two frames between moves was committed in its turn
    scenes = [Scene(Board(), 3), Scene(FIRST, 2, hand=True), Scene(FIRST, 2, press="end_turn"),
              Scene(SECOND, 2, hand=True), Scene(SECOND, 2), Scene(SECOND, 2, hand=True)]
    assert turns_played(tmp_path, scenes) == (["placed", "end_turn", "placed"], ["R", "Y"])


def test_the_frame_skipped_after_a_hand_is_read_by_the_detector_once_the_next_is_still(tmp_path):
    # each frame a board is committed after is read: the skipped one, then the still one (a misreading of either
    # is outvoted, not committed on the strength of one reading)
    store, sink, looked = Store(tmp_path / "state.db"), MemorySink(), []

    def detect(frame, on_board=(), lying=()):
        looked.append(frame)
        return detect_frame(frame)

    scenes = [Scene(Board(), 2), Scene(FIRST, 2, hand=True), Scene(FIRST, 2)]
    loop = LiveLoop(scene_source(scenes, lambda: loop.commands), detect, store, Setup("game", ["R", "Y"]), sink)
    loop.run()
    assert [m.placement for m in store.moves(loop.game)] == [GAME[0]]
    assert loop.stats.skipped == 1 + 2 + 1 and loop.stats.read_after == 2
    assert loop.stats.detected == 2 + 2 == len(looked)


def test_a_hand_zone_is_seen_once_stable_frames_still_frames_agree():
    from live_fakes import FRAME, ZONES

    from tantrix_pi.live.hands import HandWatch

    det = detect_frame(frame_of(Board(GAME[:1]), hands={"R": {1, 2, 3}, "Y": {4, 5}}))
    watch = HandWatch({p: ZONES[p] for p in "RY"}, 2)
    assert watch.observe(det, FRAME[::-1]) == []
    assert {s.player: set(s.tiles) for s in watch.observe(det, FRAME[::-1])} == {"R": {1, 2, 3}, "Y": {4, 5}}
    watch.motion()
    other = detect_frame(frame_of(Board(GAME[:1]), hands={"R": {1, 2}, "Y": {4, 5}}))
    assert watch.observe(other, FRAME[::-1]) == []  # one frame is not enough
    assert [(s.player, set(s.tiles)) for s in watch.observe(other, FRAME[::-1])] == [("R", {1, 2})]
