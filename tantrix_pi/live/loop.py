"""The live loop: frame source -> motion gate -> detector -> tracker -> referee -> store -> sinks.

`run` and `demo` both drive this loop; only the source and the sinks differ.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from tantrix_pi import i18n
from tantrix_pi.board import Board
from tantrix_pi.devices.sources import EndOfRecording, FrameSource
from tantrix_pi.grid import Cell
from tantrix_pi.i18n import _, ngettext
from tantrix_pi.live.camera import CameraWatch
from tantrix_pi.live.commands import (
    AskHint,
    Calibrating,
    CalibrationDone,
    Command,
    EndTurn,
    HintReady,
    NewGame,
    SetVoice,
    ShowScreen,
    Undo,
    UseSeats,
)
from tantrix_pi.live.config import GateConfig
from tantrix_pi.live.gate import MotionGate, changed_around, light_gain
from tantrix_pi.live.hands import HandWatch
from tantrix_pi.live.jobs import Jobs
from tantrix_pi.live.presses import HeldPresses
from tantrix_pi.live.referee import Referee, Ruling, Setup, forced_data, new_game_event
from tantrix_pi.live.saving import SaveQueue
from tantrix_pi.live.sdnotify import Notifier
from tantrix_pi.live.sinks import Sink, View
from tantrix_pi.live.store import Notice, Store, WriteError
from tantrix_pi.live.tracker import (
    BOARD_MOVED,
    KEPT_PLACE,
    OCCLUSION_REACH,
    TURN_REACH,
    Commit,
    Tracker,
    Unclear,
    changes,
)
from tantrix_pi.vision.detection import CONFIDENT, Detection

log = logging.getLogger("tantrix_pi.live")

Detector = Callable[..., Detection]
"""`detect(frame, on_board=tiles, lying=points)`: a frame's detection, told which tiles the referee holds on the table
and where tiles lay apart from the board in the table as committed (`vision.detect`'s `on_board` and `lying`)."""

IMPORTANT = ("game_over", "solitaire_over", "four_over", "illegal", "unsure", "storage", "solved", "not_solved",
             "must_fill", "bag_empty", "taken_back", "removed", "restored", "draw", "placed", "turned", "moved",
             "corrected", "to_play", "forced")
"""Event kinds in the order the screen's message line prefers them."""


@dataclass
class Stats:
    """Counters and timings of one run (the bench reads them)."""

    frames: int = 0
    skipped: int = 0
    detected: int = 0
    read_after: int = 0
    """Frames the gate skipped after motion, read once the next frame showed them still."""
    board_moved: int = 0
    """Still frames read with the board elsewhere in the picture than in the table as committed (BOARD_MOVED)."""
    commits: int = 0
    detector_errors: int = 0
    gate_s: list[float] = field(default_factory=list)
    detect_s: list[float] = field(default_factory=list)
    frame_index_of_commit: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class CommittedPicture:
    """The table when it last matched the committed board: what the tracker's picture comparisons measure against."""

    small: np.ndarray
    """Its gate thumbnail."""
    frame: np.ndarray
    """The frame itself (the sources hand out a new array each frame: kept, not copied)."""
    area: np.ndarray | None
    """Where the board lay in it: the thumbnail's pixels near its tiles (None: all of it, an empty board)."""
    tiles: dict[int, tuple[float, float]]
    """The image centre of each tile read surely in it, by tile number."""
    lying: tuple[tuple[float, float], ...]
    """The image centres of the tiles lying apart from the board in it (loose: the players' face-up hands)."""

    def shifts(self, det: Detection) -> dict[int, float]:
        """How far (pixels) each tile read surely both in `det` and here lies from where it lay here, by tile."""
        return {st.placement.tile: float(np.hypot(st.center_px[0] - was[0], st.center_px[1] - was[1]))
                for st in det.tiles
                if st.confidence >= CONFIDENT and (was := self.tiles.get(st.placement.tile)) is not None}

    def board_moved(self, det: Detection, tile_px: float) -> bool:
        """Whether the tiles read surely both in `det` and here lie elsewhere in the picture: the board was pushed or
        the camera knocked (BOARD_MOVED), and the two pictures cannot be compared."""
        shifts = list(self.shifts(det).values())
        return bool(shifts) and tile_px > 0 and float(np.median(shifts)) >= BOARD_MOVED * tile_px

    def kept(self, det: Detection, tile_px: float) -> set[int]:
        """The tiles read surely in `det` that lie where they lay here (KEPT_PLACE)."""
        return {tile for tile, shift in self.shifts(det).items() if shift < KEPT_PLACE * tile_px}


class LiveLoop:
    """One referee session over a frame source; resumes the stored game when its setup is the same."""

    def __init__(self, source: FrameSource | CameraWatch, detect: Detector, store: Store, setup: Setup, sink: Sink,
                 *, gate: GateConfig | None = None, hint_s: float = 20.0, notifier: Notifier | None = None,
                 saves: SaveQueue | None = None, hands: HandWatch | None = None) -> None:
        """`source`: the camera, watched by a CameraWatch with its defaults unless it is one; `gate`: when a
        board counts as seen (the config's [gate]; default its defaults); `hint_s`: how long the solver may think
        about a hint; `notifier`: systemd's; `saves`: the queue the store's writes go through (default: refused
        ones tried again every second); `hands`: the seats' zones to read the players' hands in (the detector
        must be given the same zones: `service.make_detector`)."""
        self.detect, self.store, self.sink, self.hands = detect, store, sink, hands
        self.notifier = notifier or Notifier(address="")
        self.camera = source if isinstance(source, CameraWatch) else CameraWatch(source, self.notifier)
        self.saves = saves or SaveQueue()
        self.seen_when = gate or GateConfig()
        """When a board counts as seen: the motion gate's threshold, the tracker's still frames and confidence."""
        self.gate = MotionGate(self.seen_when.motion)
        self.stats = Stats()
        current = store.current_game()
        if current is not None and Setup.from_dict(current[1]) == setup:
            self.game, self.resumed = current[0], True
        else:
            self.game, self.resumed = store.new_game(setup.to_dict()), False
        self.commands: queue.Queue[Command] = queue.Queue()
        """Commands (live.commands) from the buttons' menu, the web page and the background jobs, carried out
        between frames."""
        self.buttons: queue.Queue = queue.Queue()
        """Button events (devices `Press`es, put by the buttons' callbacks), run through `menu` between frames."""
        self.menu = None
        """The devices `Menu` the buttons drive (None: button events are ignored)."""
        self.jobs = Jobs(self.commands, hint_s)
        """The hint and the menu's calibration steps (set `jobs.calibrate` to calibrate), beside the loop."""
        self.calibrating = False
        """The web page's guided calibration is on: frames are not judged (the table shows the sheet)."""
        self.ready_sent = False
        self.stop_requested = False
        self.tile_px = 0.0
        self._load_game()

    def _load_game(self) -> None:
        board = self.store.board(self.game)
        ends = [e.data["after"] for e in self.store.events(self.game) if e.kind == "end_turn"]
        self.referee = Referee(Setup.from_dict(self.store.current_game()[1]), board, self.store.moves(self.game),
                               self.store.state(self.game), ends, hands_in_view=self.hands is not None)
        self.tracker = Tracker(board, self.seen_when.stable_frames, self.seen_when.min_confidence)
        self.presses = HeldPresses()
        """End-of-turn presses waiting for the table to settle (live.presses); a new game drops them."""
        self.motion = 0
        """Frames of motion over the table since the last still one the detector judged."""
        self.unjudged: tuple[np.ndarray, np.ndarray] | None = None
        """The last frame the gate skipped as motion, and its thumbnail: when the next one is still, it showed the
        table too."""
        self.committed_picture: CommittedPicture | None = None
        """The table when it last matched the committed board (None: not seen yet)."""

    def _command(self, cmd: Command) -> None:
        match cmd:
            case HintReady() | CalibrationDone():
                self._job_done(cmd)
                return
            case ShowScreen(page=None):
                self.sink.show(self.view())
                return
            case ShowScreen(page=page):
                self.sink.screen(page)
                return
            case SetVoice(on=on):
                self.sink.set_voice(on)
                if self.menu is not None:
                    self.menu.settings = replace(self.menu.settings, voice=on)
                return
            case Calibrating(on=on):
                self.calibrating = on
                self.tracker.motion()
                return
            case UseSeats(hands=hands, detect=detect):
                self.hands, self.detect = hands, detect
                self.referee.hands_in_view = hands is not None and self.referee.setup.is_game
                self.referee.sighted.clear()  # read in the old zones; the new watch reports each seat anew
                return
            case AskHint():
                if self.referee.setup.mode in ("discovery", "rainbow"):
                    self._say(self.jobs.hint(self.referee.setup.puzzle, self.referee.board.copy()))
                return
            case EndTurn():
                if self.presses.hold(bool(self.tracker.pending), self.motion, self.tracker.stills):
                    return
                out = self.referee.end_turn()
            case Undo():
                out = self.referee.undo()
            case NewGame(setup=setup):
                out = self._new_game(setup or self.referee.setup)
            case _:
                log.warning("unknown command %r", cmd)
                return
        self._ruled(out)

    def _ruled(self, out: Ruling) -> None:
        """A button's ruling: stored when it ends a turn or starts a game, and said."""
        stored = [e for e in out.events if e.kind in ("end_turn", "new_game")]
        if stored:
            state = self.referee.state()
            self._save(lambda game=self.game: self.store.log_events(game, stored, state))
        self._say(out.events, out)

    def _release_presses(self) -> None:
        """Judge the held end-of-turn presses once the table is still with every tile it shows committed, or they have
        waited long enough."""
        if self.presses.due(settled=not self.motion and not self.tracker.pending, waiting=self.tracker.waiting_on_laid):
            self._judge_presses()

    def _judge_presses(self, n: int | None = None) -> None:
        """Judge the oldest `n` held presses, or all."""
        for _press in range(self.presses.take(n)):
            self._ruled(self.referee.end_turn())

    def _new_game(self, setup: Setup) -> Ruling:
        """Start a new game, unless the running one cannot be saved: it is not given up for one that cannot be."""
        self._say(self.saves.flush(), Ruling())
        try:
            if self.saves.reason is not None:
                raise WriteError(self.store.path, self.saves.reason)
            self.game = self.store.new_game(setup.to_dict())
        except WriteError as e:
            return Ruling(events=[Notice("refused", _("No new game while the game cannot be saved ({reason}): this one "
                                                     "goes on.").format(reason=e.reason), {"reason": e.reason})])
        self._load_game()
        if self.menu is not None:  # a game started from the web page: the menu shows its settings
            from tantrix_pi.live.referee import settings_of_setup

            self.menu.settings = settings_of_setup(self.referee.setup, self.menu.settings)
        return Ruling(events=[new_game_event(self.game)])

    def _save(self, write: Callable[[], object]) -> None:
        """One write to the store through the save queue; a refusal (or the end of one) is said."""
        self._say(self.saves.save(write), Ruling())

    # -- buttons and their menu ----------------------------------------------------------------------
    def _button(self, event) -> None:
        """One button event through the menu; its commands carried out, its page (or the game) shown."""
        if self.menu is None:
            return
        was_shown = self.menu.screen() is not None
        for cmd in self.menu.handle(event):
            self._menu_command(cmd)
        self._show_menu(was_shown)

    def _show_menu(self, was_shown: bool) -> None:
        page = self.menu.screen()
        if page is not None:
            self.sink.screen(page)
        elif was_shown:
            self.sink.show(self.view())

    def _menu_command(self, cmd) -> None:
        from tantrix_pi.live.referee import setup_of_settings

        if cmd.name == "end_turn" and self.referee.setup.mode in ("discovery", "rainbow"):
            self._command(AskHint())  # a solo puzzle has no turns: next asks for a hint
        elif cmd.name == "end_turn":
            self._command(EndTurn())
        elif cmd.name == "undo":
            self._command(Undo())
        elif cmd.name == "new_game":
            self._command(NewGame(setup_of_settings(cmd.settings)))
        elif cmd.name == "apply":
            self.sink.set_voice(cmd.settings.voice)
            setup = setup_of_settings(cmd.settings)
            if setup != self.referee.setup:
                self._command(NewGame(setup))
        elif cmd.name == "calibrate":
            refused = self.jobs.ask_calibration(cmd.step)
            if refused is not None:
                self.menu.calibration_result(False, refused)
        elif cmd.name == "language":
            self.sink.set_language(i18n.use(cmd.settings.language))

    def _calibration_frame(self, frame: np.ndarray) -> None:
        """While calibrating no move is judged; a menu calibration step asked for runs on the first still frame."""
        self.tracker.motion()  # the table is cleared and a sheet laid on it: not a game move
        self.unjudged = None
        if not self.gate.moving(frame):
            self.jobs.still(frame)

    def _job_done(self, answer: HintReady | CalibrationDone) -> None:
        self.jobs.done()
        if isinstance(answer, HintReady):
            self._say([answer.event], Ruling(events=[answer.event]))
            return
        was_shown = self.menu is not None and self.menu.screen() is not None
        if self.menu is not None:
            self.menu.calibration_result(answer.ok, answer.note)
            self._show_menu(was_shown)

    # -- one frame ----------------------------------------------------------------------------------
    def step(self) -> bool:
        """Take and judge one frame; False once a replayed recording has ended."""
        self.notifier.watchdog()
        self.sink.tick()
        while not self.buttons.empty():
            self._button(self.buttons.get_nowait())
        while not self.commands.empty():
            self._command(self.commands.get_nowait())
        self._release_presses()
        if self.saves.due():
            self._say(self.saves.flush(), Ruling())
        if not self.camera.up:
            self._say(self.camera.open())
            if not self.camera.up:
                self.camera.back_off()
                return True
            self._unseen()  # anything may have changed while the camera was away
            if not self.ready_sent:
                self.ready_sent = True
                self.notifier.ready(f"camera up; game {self.game}")
        try:
            sight = self.camera.read()
        except EndOfRecording:
            return False
        self._say(sight.said)
        if sight.frame is None:
            self.camera.back_off()
            return True
        if sight.stalled:
            self._unseen()
        self.stats.frames += 1
        self.sink.frame(sight.frame, self._judge(sight.frame))
        return True

    def _unseen(self) -> None:
        """The table may have changed out of sight: nothing seen before counts towards a commit."""
        self.gate.reset()
        self.unjudged = None
        self._moved()

    def _moved(self) -> None:
        """Something moved over the table: readings gathered so far no longer describe it."""
        self.motion += 1
        self.presses.moved()
        self.tracker.motion()
        if self.hands is not None:
            self.hands.motion()

    def _judge(self, frame: np.ndarray) -> Detection | None:
        """One frame through the gate, the detector, the tracker and the referee; the detection, if it ran."""
        if self.calibrating or (self.menu is not None and self.menu.step is not None):
            self._calibration_frame(frame)
            return None
        self.jobs.forget_step()
        t0 = time.perf_counter()
        moving = self.gate.moving(frame)
        self.stats.gate_s.append(time.perf_counter() - t0)
        if moving:
            self.stats.skipped += 1
            self._moved()
            self.unjudged = frame, self.gate.prev
            return None
        # the gate compares each frame with the one before: that one shows this picture too, so it was still as well,
        # though skipped as a change from the hand before it (the first frame after every motion); it is judged first,
        # so that a table still for `stable_frames` frames is committed, each of them read by the detector
        earlier, self.unjudged = self.unjudged, None
        if earlier is not None:
            self.stats.read_after += 1
            self._look(*earlier)
        return self._look(frame, self.gate.prev)

    def _look(self, frame: np.ndarray, small: np.ndarray) -> Detection | None:
        """A still frame (`small`: its gate thumbnail) through the detector, the tracker and the referee; the
        detection, unless it failed."""
        picture = self.committed_picture
        t1 = time.perf_counter()
        try:
            det = self.detect(frame, on_board=self.tracker.committed.tiles,
                              lying=picture.lying if picture is not None else ())
        except Exception as e:  # a detector bug on one odd frame must not end the game: skip the frame
            self.stats.detector_errors += 1
            log.error("the detector failed on a frame (%s: %s); frame skipped", type(e).__name__, e,
                      exc_info=self.stats.detector_errors == 1)
            self._moved()
            return None
        self.stats.detect_s.append(time.perf_counter() - t1)
        self.stats.detected += 1
        if det.tile_px > 0:
            self.tile_px = det.tile_px
        if self.hands is not None:  # the hands first: a tile drawn after one laid is known when that one is judged
            sightings = self.hands.observe(det, (frame.shape[1], frame.shape[0]))
            if sightings:
                out = self.referee.hands(sightings)
                if out.saved or out.events:
                    state = self.referee.state()
                    self._save(lambda game=self.game: self.store.log_events(game, out.events, state))
                self._say(out.events, out)
        self.motion = 0
        moved = picture is not None and picture.board_moved(det, self.tile_px)
        self.stats.board_moved += moved
        changed_at = (partial(self._changed_at, frame, light_gain(picture.frame, frame))
                      if picture is not None and self.tile_px and not moved else None)
        result = self.tracker.observe(det, None if moved else self._changed_tiles(frame, small), changed_at,
                                      picture.kept(det, self.tile_px) if picture is not None else ())
        t = self.tracker
        if (isinstance(result, Commit) and not result.partial) or (t.streak >= t.stable_frames and t.as_committed):
            # the table as committed, in today's light, and where its board lies (not while a hand hides a tile)
            self.committed_picture = CommittedPicture(
                small, frame, self.gate.near([st.center_px for st in det.tiles], OCCLUSION_REACH * det.tile_px,
                                             frame.shape) if det.tiles and det.tile_px > 0 else None,
                {st.placement.tile: st.center_px for st in det.tiles if st.confidence >= CONFIDENT},
                tuple(u.center_px for u in det.loose))
        if isinstance(result, Commit):
            parts = self._between_presses(result)
            for presses, part in parts:
                if len(parts) > 1:
                    self._judge_presses(presses)  # made before this part's tiles were seen laid
                else:
                    laid = [ch.after for ch in part.changes if ch.after is not None]  # placed, or moved or turned there
                    ref = self.referee
                    if self.presses.before(ref.may_end_turn(), ref.fill_forced(laid), ref.mover_holds(laid)):
                        self._judge_presses()  # pressed as the next player's hand came in: the tiles are theirs
                self._commit(part)
        elif isinstance(result, Unclear):
            out = self.referee.unsure(result)
            self._save(lambda game=self.game: self.store.log_events(game, out.events))
            self._say(out.events, out)
        return det

    def _commit(self, c: Commit) -> None:
        """The referee judges a commit; it is stored and said."""
        out = self.referee.commit(c)
        state = self.referee.state()
        self._save(lambda game=self.game: self.store.commit(game, c.board, out.added, out.removed, out.events, state))
        self.stats.commits += 1
        self.stats.frame_index_of_commit.append(self.stats.frames - 1)
        self._say(out.events, out)

    def _between_presses(self, c: Commit) -> list[tuple[int, Commit]]:
        """The commit in the parts the held end-of-turn presses cut it into, each with how many presses were made
        before its tiles were seen laid: tiles laid one by one while one of them could not be read come together,
        and so do the presses made meanwhile (`HeldPresses.due`). Else the commit whole."""
        if not c.laid_at or not self.presses.count or c.partial or any(ch.kind != "placed" for ch in c.changes):
            return [(0, c)]
        groups: list[tuple[int, list[Cell]]] = []
        taken = 0
        for cell in c.laid_order:
            made = self.presses.made_before(c.laid_at[cell])
            if made > taken or not groups:
                groups.append((made - taken, []))
                taken = made
            groups[-1][1].append(cell)
        board = Board(p for p in c.board if p.cell not in c.laid_at)
        parts = []
        for presses, cells in groups:
            after = board.copy()
            for cell in cells:
                after.place(c.board[cell])
            parts.append((presses, Commit(after, changes(board, after), laid_at={x: c.laid_at[x] for x in cells})))
            board = after
        return parts

    def _changed_tiles(self, frame: np.ndarray, small: np.ndarray) -> float | None:
        """How many tile areas of the picture (`small`: the frame's gate thumbnail) on and next to the board differ
        from the table as last committed (None: unknown)."""
        picture = self.committed_picture
        if picture is None or not self.tile_px:
            return None
        h, w = frame.shape[:2]
        tile_share = 0.866 * self.tile_px ** 2 / (w * h)  # a hexagon's area from its width across flats
        return self.gate.changed_from(small, picture.small, picture.area, self.tile_px, w) / tile_share

    def _changed_at(self, frame: np.ndarray, gain: np.ndarray, point: tuple[float, float]) -> float:
        """The share of the picture around `point` (a tile's centre) that differs from the table as last committed,
        beyond what a change of light over the whole table explains (`gain`)."""
        return changed_around(self.committed_picture.frame, frame, point, TURN_REACH * self.tile_px, gain=gain)

    def run(self) -> int:
        """Judge frames until a recording ends or `stop()`; returns the number of frames read."""
        if self.resumed:
            n = len(self.referee.board)
            self._say([Notice("resumed", ngettext("Resuming game {game}: {n} tile on the table.",
                                                 "Resuming game {game}: {n} tiles on the table.", n).format(
                game=self.game, n=n), {"game": self.game, "tiles": n})])
        try:
            while not self.stop_requested and self.step():
                pass
        finally:
            self.notifier.stopping()
            self.camera.close()
            if self.saves.waiting:
                log.error("%d changes of game %d could not be saved: the board on the table is announced again when "
                          "the service next starts", len(self.saves.waiting), self.game)
        return self.stats.frames

    def stop(self) -> None:
        """Ask the loop to finish after the current frame (what the service's SIGTERM / SIGINT handler does)."""
        self.stop_requested = True
        self.camera.stop()

    # -- announcing -------------------------------------------------------------------------------
    def _say(self, events: list[Notice], out: Ruling | None = None) -> None:
        for e in events:
            self.sink.announce(replace(e, game=self.game if e.game is None else e.game, at=time.time()))
        menu_shown = self.menu is not None and self.menu.screen() is not None
        if out is not None and events and not menu_shown:  # the menu's page stays until it is closed
            self.sink.show(self.view(events, out))

    def view(self, events: list[Notice] = (), out: Ruling | None = None) -> View:
        """The screen's state after these events."""
        ref = self.referee
        if self.saves.note is not None:  # on the screen for as long as the game is not saved
            events = [*events, self.saves.note]
        ranked = sorted(events, key=lambda e: IMPORTANT.index(e.kind) if e.kind in IMPORTANT else len(IMPORTANT))
        forced = next((e.data["spaces"] for e in events if e.kind == "forced"), None)
        if forced is None:
            forced = forced_data(ref.forced())
        scores = ref.scores()
        last = out.added[-1].placement if out and out.added else ref.moves[-1].placement if ref.moves else None
        doubted = list(self.tracker.announced_unsure[0]) if self.tracker.announced_unsure else []
        playing = ref.game is not None and not ref.over
        return View(ranked[0].text if ranked else "", ref.board.copy(), forced, scores, ref.turn, last,
                    game=self.game, mode=ref.setup.mode, players=list(ref.setup.players), puzzle=ref.setup.puzzle,
                    doubted=doubted, bag_empty=ref.bag_empty, winners=list(ref.outcome().winners) if ref.over else [],
                    illegal=ref.illegal(), to_move=ref.game.to_play if playing else None,
                    must_fill=ref.must_fill() if playing else [])

