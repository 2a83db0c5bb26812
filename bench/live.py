"""The live loop on a photographed game: its speed (fps, latency, gate vs detector, RSS) and whether it got it right.

    ./run.sh python bench/live.py [--moves 24] [--all] [--moved [N]] [--turned [N]] [--lamp [N]] [--cup [N]]
                                  [--rest [N]] [--nudged [N]] [--pushed [N]] [--knocked [N]] [--leaning [N]]
                                  [--quick-press]
                                  [--players 2] [--hands [--skip [N]]] [--seed 23]
                                  [--table dark_wood]
                                  [--light-k 2700] [--awb 0.3] [--exposure 0.75] [--glare 0.9 [--glare-spots 2]]
                                  [--size 1640x1232]
                                  [--tile-px PX] [--still 5] [--hand 2] [--frames DIR] [--events]

The game: the bundled demo game (2 players, one illegal tile taken back before move 10 when it falls inside), or
with --hands or --players 3 / 4 a random legal game of that many players (`tantrix_pi.selfplay`, --seed); its
first --moves placements, each brought in by a hand, with the players' end-of-turn presses. --hands lays every
player's six tiles face up and apart in a zone along an edge of the frame (bottom, top, then left and right for
3 and 4 players; after each placement the hand is five, then six again once its player has drawn) and gives the
zones to the detector and the referee (as `run` does with [seats]: the referee follows the hands and enforces the
forced fill). The behaviours, each at move N counted from 1 (without N, spread evenly over the game,
each at its own move; --all: every one):

    --moved   that move's tile is first laid on another cell where it breaks the golden rule, then moved by a
              hand straight to its place (no still frame shows the board without it)
    --turned  that move's tile is first laid at another turn (one breaking the golden rule), then turned in place
    --lamp    after that move a lamp is switched on: brighter, whiter light for the rest of the game
    --cup     after that move a cup is set down beside the board for 12 still frames, then taken away
    --rest    after that move a hand rests at the frame's edge (the left, or the first free of hand zones) for
              40 still frames and the next two moves
    --nudged  that move's tile, laid against the board, knocks a neighbour 2 mm away and 6 degrees askew, where it
              stays for the rest of the game
    --pushed  the hand laying that move's tile pushes the whole board across the table (0.4 and 0.25 tile widths
              along the board's axes, turned 5 degrees), where it lies for the rest of the game
    --knocked the camera is knocked as that move's tile is laid: the whole picture moves 0.25 and 0.15 tile widths
              and turns 1 degree, for the rest of the game (the hand zones stay where they were set up)
    --leaning the player laying that move's tile leans over the table: their shadow takes half the light from part
              of it (which part follows the photos' seed) until they sit back, as the tile two moves later is brought
    --glared  (not in --all) that move's tile is laid under a lamp's glare that washes it out; the players play on
              for four more moves, then one of them moves the lamp (a still table without the glare): the referee
              may say it cannot read that tile ("(unsure)" in its row: no phantom), and must announce every tile in
              order, credited to its player, once the lamp is moved
    --dazzled (not in --all) after that move a lamp is switched on whose glare washes out the game's first tile for
              the rest of the game: the referee may say so ("(unsure)" in its row: no phantom), and must follow the
              game around it
    --skip    (with --hands; not in --all) that move fills a forced space, and its player first lays the tile on a
              free cell instead (legal but for the compulsory fill), then takes it back; without N the first fill
              from the middle of the game on that starts its player's turn (else the first fill from there on)

--quick-press: every end-of-turn press comes after the first still frame that shows the player's last tile (as soon
as it is down, before the referee can have committed it), not once the table has settled.

The photos are rendered by the simulator into a folder of JPEGs first (a worker process: not timed, not in the
RSS), then replayed as fast as possible through the loop `tantrix-pi run` drives (the service's gate,
stable_frames 2). --table and the light options put the game on another table under another light (the dim warm
lamp on dark wood: --table dark_wood --light-k 2700 --awb 0.3 --exposure 0.75; --glare 0.9 --glare-spots 2, a
lamp's glare on the glossy tiles strong enough to wash some out, where the photos' seed puts it); --tile-px sets the
tile size (default: 110 for the bundled game, else the size at which the board and the zones fit); --still and
--hand set how many frames each settled table and each hand over the table show (5 and 2: a slower camera, or
quicker players, show fewer); --frames DIR keeps the photos there; --events lists every event about a tile with its
frame and the scene it came in.

Two tables: speed (medians; latency from a scene's first still frame to its announcement), then the check of the
stored events (kind and data, never the words) against the script: every placement announced in order (a
`placed` event for its tile, cell and turn; a tile moved or turned out of its illegal place is its player's
placement too, announced `placed`, its data may say where it "was"), the phantom events (a placement, removal,
restoration, move, turn, correction, "can't read" or refusal the script does not explain, an `illegal` for a
legal placement), the placements credited to their player, the stored game against the recording (tile, cell,
turn, player, legal; the moves of one turn in any order: tiles laid while a hand hid the board are seen together,
in an order the pictures cannot tell, and a wrong order that made a move illegal shows as its flag), the final
scores against the rules engine's on the recorded board, with the hands in view the must-fills said against those the
rules engine owes (a held tile no photo showed is left out and counted apart), and a row per behaviour: what its
scenes must be announced as (for a lamp, a cup or a resting hand also the next placement), what was said meanwhile,
and whether that is all (the tile moved or turned also stored as its player's legal placement). Exit 1 when a check
fails, 2 on bad options.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

import tantrix_pi  # noqa: E402
from tantrix_pi import record, rules, scoring  # noqa: E402
from tantrix_pi.board import Board, Placement  # noqa: E402
from tantrix_pi.devices.sources import folder_source  # noqa: E402
from tantrix_pi.game import Move  # noqa: E402
from tantrix_pi.live import recording  # noqa: E402
from tantrix_pi.live.camera import CameraWatch  # noqa: E402
from tantrix_pi.live.commands import pressed  # noqa: E402
from tantrix_pi.live.config import GateConfig  # noqa: E402
from tantrix_pi.live.demo import Demo, rendered  # noqa: E402
from tantrix_pi.live.hands import HandWatch  # noqa: E402
from tantrix_pi.live.loop import LiveLoop  # noqa: E402
from tantrix_pi.live.recording import Behaviours  # noqa: E402
from tantrix_pi.live.referee import Setup  # noqa: E402
from tantrix_pi.live.service import make_detector  # noqa: E402
from tantrix_pi.live.sinks import MemorySink  # noqa: E402
from tantrix_pi.live.store import Store  # noqa: E402
from tantrix_pi.live.tracker import REMOVAL_EXTRA, apply, apply_cell, register  # noqa: E402
from tantrix_pi.simulator.tables import TABLES  # noqa: E402
from tantrix_pi.vision import photo  # noqa: E402

NAMES = {"moved": "illegal tile moved straight to its cell", "turned": "tile turned in place after it was laid",
         "lamp": "lamp switched on", "cup": "cup set down beside the board and taken away",
         "rest": "hand resting at the frame's edge", "pushed": "the whole board pushed as a tile is laid",
         "nudged": "a tile laid knocks its neighbour askew", "knocked": "the camera knocked as a tile is laid",
         "leaning": "a player leans over the board to lay a tile, their shadow across it",
         "skip": "forced fill skipped: a free move made instead",
         "glared": "a tile laid under a lamp's glare, the lamp moved four moves later",
         "dazzled": "a lamp's glare on the game's first tile for the rest of the game",
         recording.TAKEN_BACK: "illegal tile taken back"}
DURING = ("moved", "turned", "nudged", "pushed", "knocked", "leaning", "glared", "skip")
"""The behaviours made while a move's tile is laid: their row ends with its placement."""


IN_VIEW = "in_view.json"
"""Beside the frames: for each photo, its first frame and the tiles it shows in the zones (`zone_tiles_in_view`)."""


def write_frames(demo: Demo, folder: Path) -> None:
    """Photograph the recording into folder/00000.jpg, 00001.jpg, ..., and the tiles in view into `IN_VIEW`."""
    n, in_view = 0, []
    for shot in demo.shots():
        image, truth = rendered(shot, demo.render)
        in_view.append((n, zone_tiles_in_view(truth) if shot.times >= GateConfig().stable_frames else []))
        for _time in range(shot.times):
            cv2.imwrite(str(folder / f"{n:05d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            n += 1
    (folder / IN_VIEW).write_text(json.dumps(in_view))


def zone_tiles_in_view(truth: dict) -> list[int]:
    """The tiles lying face up in the hand zones of a photo (the simulator's truth) that show whole, less than half
    of them under a hand: those the referee can know a player holds."""
    return [t["tile"] for t in truth["tiles"] if not t["on_board"] and t["face_up"]
            and t["fraction_in_image"] == 1 and t["occluded_fraction"] < 0.5]


class Timed(MemorySink):
    """Notes the frame and the wall time of every announcement."""

    def __init__(self, frame_read) -> None:
        super().__init__()
        self.frame_read = frame_read
        """The number of the frame being judged."""
        self.at: list[tuple[int, float]] = []

    def announce(self, event) -> None:
        super().announce(event)
        self.at.append((self.frame_read(), time.perf_counter()))


def ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.1f}" if values else "-"


def behaviours_of(args, avoid: tuple[int, ...], fills: list[int] = ()) -> Behaviours:
    """The behaviours asked for: each at its move N (counted from 1), or spread evenly over the game; --skip at the
    first of `fills` (the moves that fill a forced space, those that start a turn first) from the middle of the game
    on, at a move of its own; ValueError for an N off the game."""
    asked = {n: getattr(args, n) for n in Behaviours.NAMES if args.all or getattr(args, n) is not None}
    for name, at in [*asked.items(), ("skip", args.skip)]:
        if at not in (None, -1) and not 1 <= at <= args.moves:
            raise ValueError(f"--{name} {at}: give a move from 1 to {args.moves} (--moves {args.moves})")
    given = {n: at - 1 for n, at in asked.items() if at not in (None, -1)}
    spread = Behaviours.spread(args.moves, [n for n in asked if n not in given], avoid + tuple(given.values()))
    out = Behaviours(**{n: given.get(n, getattr(spread, n)) for n in asked},
                     press_after=1 if args.quick_press else None)
    if args.glared is not None:
        if args.all:
            raise ValueError("--glared: not with --all (while the glare lies the referee judges nothing, so the "
                             "behaviours made meanwhile would not be seen)")
        if args.glared != -1 and not 1 <= args.glared <= args.moves:
            raise ValueError(f"--glared {args.glared}: give a move from 1 to {args.moves} (--moves {args.moves})")
        out = replace(out, glared=args.glared - 1 if args.glared != -1 else _clear_of(avoid, args.moves,
                                                                                     out.glare_moves))
    if args.dazzled is not None:
        if args.all:
            raise ValueError("--dazzled: not with --all (a behaviour made in the glare could not be seen)")
        if args.dazzled != -1 and not 1 <= args.dazzled < args.moves:
            raise ValueError(f"--dazzled {args.dazzled}: give a move from 1 to {args.moves - 1} (--moves {args.moves})")
        out = replace(out, dazzled=args.dazzled - 1 if args.dazzled != -1 else max(1, args.moves // 3))
    if args.skip is None:
        return out
    taken = {getattr(out, n) for n in DURING if n != "skip"}  # one behaviour per move
    skip = args.skip - 1 if args.skip != -1 else next(
        (i for i in fills if i >= args.moves // 2 and i not in taken), next((i for i in fills if i not in taken), None))
    if skip is None:
        raise ValueError(f"--skip: no move of the first {args.moves} fills a forced space: give more moves or "
                         "another --seed")
    return replace(out, skip=skip)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=24)
    for name in Behaviours.NAMES:
        ap.add_argument(f"--{name}", type=int, nargs="?", const=-1, metavar="N", help=f"{NAMES[name]} at move N")
    ap.add_argument("--all", action="store_true", help="every behaviour above, spread over the game")
    ap.add_argument("--skip", type=int, nargs="?", const=-1, metavar="N",
                    help=f"{NAMES['skip']} at move N, which fills a forced space (with --hands)")
    ap.add_argument("--dazzled", type=int, nargs="?", const=-1, metavar="N",
                    help=f"{NAMES['dazzled']}, after move N (default: a third of the way into the game)")
    ap.add_argument("--glared", type=int, nargs="?", const=-1, metavar="N",
                    help=f"{NAMES['glared']}, at move N (default: from a third of the way into the game, clear of the "
                         "bundled game's illegal tile)")
    ap.add_argument("--quick-press", action="store_true",
                    help="every end-of-turn press as soon as the tile is down (after its first still frame)")
    ap.add_argument("--still", type=int, default=5,
                    help="frames each settled table shows (5; the gate skips the first, as a change from the hand's)")
    ap.add_argument("--hand", type=int, default=2, help="frames each hand over the table shows (2)")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--hands", action="store_true", help="every player's tiles in a zone along the frame's edge")
    ap.add_argument("--seed", type=int, default=23, help="the self-play game (with --hands or 3-4 players)")
    ap.add_argument("--size", default="1640x1232")
    ap.add_argument("--tile-px", type=float, help="tile width across flats (default: 110, or what fits)")
    ap.add_argument("--frames", type=Path, help="keep the photos in this folder")
    ap.add_argument("--events", action="store_true", help="list every event about a tile, with its frame and scene")
    ap.add_argument("--table", choices=TABLES, help="the simulator's table to play on (default: the recording's)")
    ap.add_argument("--light-k", type=float, help="colour temperature of the light")
    ap.add_argument("--awb", type=float, help="share of the light's cast the camera's white balance removes")
    ap.add_argument("--exposure", type=float, help="light level (1: as recorded; 0.5 a dim room)")
    ap.add_argument("--glare", type=float, help="the lamp's glare on the glossy tiles (0 none, 1 blows out a spot)")
    ap.add_argument("--glare-spots", type=int, help="how many glare spots (1)")
    args = ap.parse_args()
    if args.moves < 1:
        ap.error(f"--moves {args.moves}: give at least one placement")
    if args.still < 1 or args.hand < 0:
        ap.error("--still: give at least 1 frame; --hand: 0 or more")
    try:
        w, h = (int(v) for v in args.size.split("x"))
    except ValueError:
        ap.error(f"--size {args.size}: give WIDTHxHEIGHT, e.g. 1640x1232")
    setting = {k: v for k, v in (("table", args.table), ("light_k", args.light_k), ("awb", args.awb),
                                 ("exposure", args.exposure), ("glare", args.glare),
                                 ("glare_spots", args.glare_spots)) if v is not None}
    size = {"size": (w, h), **({"tile_px": args.tile_px} if args.tile_px else {})}
    try:
        if args.skip is not None and not args.hands:
            raise ValueError("--skip needs --hands: without the hands in view a skipped fill is not checked")
        if args.hands or args.players != 2:
            rec = recording.selfplay_record(args.players, args.seed)
            moves, by = recording.placements(rec)[:args.moves], recording.movers(rec)
            fills = sorted((i for i, p in enumerate(moves) if Board(moves[:i]).occupied_neighbours(p.cell)
                            >= rules.FORCED_NEIGHBOURS), key=lambda i: (by[i] == by[i - 1], i))  # a turn's first
            demo = Demo.selfplay(args.players, args.seed, args.still, args.hand, args.moves,
                                 behaviours_of(args, (), fills), args.hands, **size, **setting)
            game = f"a {args.players}-player self-play game (seed {args.seed}{', hands in view' if args.hands else ''})"
        else:
            avoid = (recording.load_record()["demo"]["illegal_after"],)
            demo = Demo.bundled(args.still, args.hand, args.moves, behaviours_of(args, avoid),
                                **{"tile_px": 110.0, **size}, **setting)
            game = "the bundled demo game"
    except ValueError as e:
        print(f"bench/live.py: {e}", file=sys.stderr)
        return 2
    starts = [0]
    for scene in demo.scenes:
        starts.append(starts[-1] + scene.frames)
    presses = {starts[k + 1] - 1: s.press for k, s in enumerate(demo.scenes) if s.press}
    players = recording.letters(demo.players)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.frames or Path(tmp) / "frames"
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        worker = multiprocessing.get_context("spawn").Process(target=write_frames, args=(demo, folder))
        worker.start()
        worker.join()
        render_s = time.perf_counter() - t0
        in_view = [(frame, set(tiles)) for frame, tiles in json.loads((folder / IN_VIEW).read_text())]
        read_at: list[float] = []
        source = folder_source(folder, read=photo.load)
        inner = source.read

        reading = [0.0]  # seconds spent in the source's reads: the camera's clock (below)

        def read():
            t = time.perf_counter()
            frame = inner()
            read_at.append(time.perf_counter())
            reading[0] += read_at[-1] - t
            press = presses.get(len(read_at) - 1)
            if press:  # pressed once the scene has been shown: judged before the next frame
                loop.commands.put(pressed(press))
            return frame

        source.read = read
        sink = Timed(lambda: len(read_at) - 1)
        store = Store(Path(tmp) / "state.db")
        zones = dict(zip(recording.letters(list(demo.zones)), (tuple(map(tuple, z)) for z in demo.zones.values()),
                         strict=True))
        watch = HandWatch(zones, GateConfig().stable_frames) if zones else None  # what run's service.hand_watch makes
        # the frames come as fast as the loop takes them: a slow frame of the loop's own (a loaded machine) is no
        # gap in the camera's stream, so the camera watch's clock runs only while a frame is read
        camera = CameraWatch(source, clock=lambda: reading[0])
        loop = LiveLoop(camera, make_detector(zones=zones), store, Setup("game", players), sink, hands=watch)
        t0 = time.perf_counter()
        loop.run()
        wall = time.perf_counter() - t0
        stored = store.events(loop.game)
        final, moves = store.board(loop.game), store.moves(loop.game)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    light = ", ".join(f"{k} {v}" for k, v in setting.items())
    print(f"live loop on {len(demo.moves)} placements of {game}, {w}x{h}, tile {demo.render['tile_px']:.0f} px"
          f"{', ' + light if light else ''} (photos rendered beforehand in {render_s:.1f} s; the referee of "
          f"{Path(tantrix_pi.__file__).parents[1]})")
    owed = owed_fills(recording.selfplay_record(args.players, args.seed), len(demo.moves)) if demo.zones else None
    check = Check(demo, starts, timed(stored, sink), final, moves, players, read_at, in_view, owed)
    st = loop.stats
    frames, seconds = [f for f, _s, _g in check.latency], [s for _f, s, _g in check.latency]
    laid, gone = [f for f, _s, g in check.latency if not g], [f for f, _s, g in check.latency if g]
    print()
    print("| measure | value |")
    print("|---|---|")
    print(f"| frames replayed | {st.frames} ({st.skipped} skipped for motion, {st.read_after} of them read once the "
          f"next was still; {st.detected} detected) |")
    print(f"| loop fps (all frames) | {st.frames / wall:.2f} |")
    for what, values in (("a tile laid or turned", laid), (f"a tile gone from a cell (+{REMOVAL_EXTRA} frames)", gone)):
        if values:
            print(f"| latency settled -> announced, {what}, frames (median, max) | {statistics.median(values):.0f}, "
                  f"{max(values)} |")
    if frames:
        print(f"| latency settled -> announced, ms (median, max) | {ms(seconds)}, {1000 * max(seconds):.0f} |")
    print(f"| motion gate per frame, ms (median) | {ms(st.gate_s)} |")
    print(f"| full detection per frame, ms (median) | {ms(st.detect_s)} |")
    if st.gate_s and st.detect_s:
        ratio = statistics.median(st.detect_s) / statistics.median(st.gate_s)
        print(f"| skipped motion frame vs detection | 1 : {ratio:.0f} |")
    print(f"| peak RSS, MB (goal <= 200) | {rss_mb:.0f} |")
    print()
    ok = check.report()
    if args.events:
        print("\nevents:")
        for n, e in enumerate(check.events):
            if e[0] in recording.ABOUT_TILES:
                print(f"- {check.describe(n)}")
    return 0 if ok else 1


def _turns(moves: list[tuple]) -> list[tuple]:
    """(player, placement, legal) moves with each run of one player's moves sorted."""
    out: list[tuple] = []
    for _player, run in itertools.groupby(moves, key=lambda m: m[0]):
        out += sorted(run)  # Placement orders itself (tile, q, r, rot)
    return out


def timed(stored, sink: Timed) -> list[tuple[str, dict, int, float]]:
    """The stored events (kind, data: the machine truth), each with the frame and time it was announced at
    (-1 and nan for one never announced)."""
    out, k = [], 0
    said = [(e.kind, e.data, *at) for e, at in zip(sink.events, sink.at, strict=True)]
    for e in stored:
        while k < len(said) and (said[k][0], said[k][1]) != (e.kind, e.data):
            k += 1
        out.append((e.kind, e.data, *(said[k][2:] if k < len(said) else (-1, float("nan")))))
        k += 1
    return out


Owed = tuple[str, frozenset[tuple[tuple[int, int], tuple[int, ...]]]]
"""Who is to play and what they must fill: (forced space's cell, the held tiles that fit it) for each."""


def owed_fills(rec: dict, moves: int) -> list[Owed]:
    """Before each of a record's first `moves` placements (its hands and draws played too): who is to play and
    what they must fill, by the rules engine's `Game.owed`."""
    r = record.from_dict(rec)
    game = r.game()

    def owed() -> Owed:
        return game.to_play, frozenset((space.cell, tuple(sorted(q.tile for q in fills)))
                                       for space, fills in game.owed(game.to_play))

    out, last = [], owed()
    for event, _said in record.replay_events(game, r):
        if isinstance(event, Move):
            out.append(last)
            if len(out) == moves:
                break
        last = owed()
    return out


class Check:
    """The stored events against the script (`recording.follow`): what each settled scene must be announced as,
    matched in order; any other event about a tile is a phantom. With the hands in view (`owed`: what the player
    to play must fill before each placement), also the must-fills said between placements."""

    def __init__(self, demo: Demo, starts: list[int], events, final: Board, moves, players: list[str],
                 read_at: list[float], in_view: list[tuple[int, set[int]]], owed: list[Owed] | None = None) -> None:
        self.demo, self.starts, self.events, self.players, self.owed = demo, starts, events, players, owed
        self.in_view = in_view
        """For each photo, its first frame and the zone tiles it shows (`zone_tiles_in_view`)."""
        self.t = register(Board(demo.moves), list(final))  # the loop's grid laid on the recording's
        self.stored = [(m.player, apply(self.t, m.placement), m.legal) for m in moves]
        self.followed = recording.follow(demo.scenes, [(kind, data) for kind, data, *_ in events],
                                         [frame for _k, _d, frame, _a in events], partial(apply, self.t))
        self.expected, self.matched = self.followed.expected, self.followed.matched
        self.told = [n for n in self.followed.phantoms if self._about_glare(n)]
        """The "can't read" lines about a tile under a lamp's glare, said while it lies there: what the script wants."""
        self.phantoms = [n for n in self.followed.phantoms if n not in self.told]
        self.latency = []
        """(frames, seconds, whether a tile left a cell) from the first still frame of each scene to its expected
        announcement (a tile taken off or moved: the tracker waits REMOVAL_EXTRA frames more)."""
        for i, n in self.matched.items():
            first, (_kind, _data, frame, at) = starts[self.expected[i][0]], events[n]
            if frame >= 0:
                gone = self.expected[i][1].verdict in (recording.TAKEN_BACK, recording.MOVED)
                self.latency.append((frame - first + 1, at - read_at[first], gone))

    def _placement(self, data: dict) -> Placement | None:
        """The tile, cell and turn an event names, in the recording's grid."""
        if "tile" not in data or "cell" not in data:
            return None
        return apply(self.t, Placement(data["tile"], data["cell"][0], data["cell"][1], data.get("rot", 0)))

    def _about_glare(self, n: int) -> bool:
        """Whether event `n` says it cannot read the tile under a lamp's glare, while the glare lies on it."""
        kind, data, frame, _at = self.events[n]
        scene = self._scene_at(frame)
        glare = self.demo.scenes[scene].glare if scene is not None else None
        return kind == "unsure" and glare is not None and glare in {apply_cell(self.t, tuple(c)) for c in data["cells"]}

    def _scene_at(self, frame: int) -> int | None:
        return max((k for k, s in enumerate(self.starts[:-1]) if s <= frame), default=None) if frame >= 0 else None

    def describe(self, n: int) -> str:
        """One event as the bench reads it: when, during which scene, what about which tile, and why."""
        kind, data, frame, _at = self.events[n]
        scene = self._scene_at(frame)
        p = self._placement(data)
        what = f" tile {p.tile} at {p.cell} turn {p.rot}" if p is not None else ""
        if kind == "unsure":
            what = " cells " + ", ".join(str(apply_cell(self.t, tuple(c))) for c in data["cells"])
            what += f" and {len(data['px'])} image points" if data.get("px") else ""
        rules = ", ".join(v["rule"] for v in data.get("violations", []))
        during = f' during "{self.demo.scenes[scene].note}"' if scene is not None else ""
        return (f"frame {frame}{during}: {kind}{what}" + (f" by {data['player']}" if data.get("player") else "")
                + (f" ({rules})" if rules else ""))

    def report(self) -> bool:
        """Print the check table, what was not announced and the phantoms; True when every check holds."""
        demo = self.demo
        placing = [i for i, (_k, s) in enumerate(self.expected) if s.move is not None
                   and s.placement == demo.moves[s.move]]
        announced = [i for i in placing if i in self.matched]
        credited = [i for i in announced if self.events[self.matched[i]][1].get(
            "player", demo.movers[self.expected[i][1].move]) == demo.movers[self.expected[i][1].move]]
        want = _turns([(demo.movers[i], p, True) for i, p in enumerate(demo.moves)])
        stored = _turns(self.stored)
        same = sum(a == b for a, b in zip(stored, want, strict=False))
        scores = next((data["scores"] for kind, data, *_ in reversed(self.events) if kind == "scores"), None)
        engine = {c: s.score for c, s in scoring.scores(Board(demo.moves), self.players).items()}
        kinds: dict[str, int] = {}
        for n in self.phantoms:
            kinds[self.events[n][0]] = kinds.get(self.events[n][0], 0) + 1
        rows = [("placements announced, in order", len(placing), len(announced), len(announced) == len(placing)),
                ("phantom events", 0, " ".join([str(len(self.phantoms)), *(f"{k} {v}" for k, v in kinds.items())]),
                 not self.phantoms),
                ("placements credited to their player", len(placing), len(credited), len(credited) == len(placing)),
                ("stored game = the recording (tile, cell, turn, player, legal)", len(want),
                 f"{same} of {len(self.stored)}", same == len(want) == len(self.stored)),
                ("final scores", _points(engine), _points(scores) if scores else "none said", scores == engine),
                *self._must_fills(placing), *self._behaviours()]
        print("| check | recording | referee | ok |")
        print("|---|---|---|---|")
        for what, expect, got, good in rows:
            print(f"| {what} | {expect} | {got} | {'yes' if good else 'NO'} |")
        missed = self.followed.missed
        if missed:
            print("\nnot announced as the script says:")
            for i in missed:
                scene, says = self.expected[i]
                p = says.placement
                print(f'- frame {self.starts[scene]} "{demo.scenes[scene].note}": {says.verdict} tile {p.tile} '
                      f"at {p.cell} turn {p.rot}")
        if self.fills_wrong:
            print("\nmust-fills not said as the rules engine owes them:")
            for line in self.fills_wrong:
                print(f"- {line}")
        if self.phantoms:
            print("\nphantom events:")
            for n in self.phantoms:
                print(f"- {self.describe(n)}")
        differ = [(n, got, exp) for n, (got, exp) in enumerate(zip(stored, want, strict=False)) if got != exp]
        if differ:
            print("\nstored game against the recording (move: stored, recorded as player, placement, legal):")
            for n, got, exp in differ:
                print(f"- move {n + 1}: {got[0]} {got[1]} {'legal' if got[2] else 'illegal'}; "
                      f"{exp[0]} {exp[1]} {'legal' if exp[2] else 'illegal'}")
        return all(good for *_, good in rows)

    def _must_fills(self, placing: list[int]) -> list[tuple[str, str, str, bool]]:
        """With the hands in view, a row: before each placement, the last must-fill said since the one before (in
        the recording's grid) against what the player to play must fill; a must-fill said when nothing is owed, or
        naming other spaces or tiles, is wrong. A fill owed between two placements first seen in one frame (a hand
        over the board hid the first) is counted apart: the board that owed it was never in view. So are the held
        tiles that fit a forced space but were never in view before the placement (drawn while a resting hand hid
        the zone): the fill is wanted without them, and not at all when none of its tiles was seen. The misses are
        kept for the report."""
        self.fills_wrong: list[str] = []
        if self.owed is None:
            return []
        at = {self.expected[i][1].move: self.matched.get(i) for i in placing}
        right = unseen = hidden = 0
        for k, (player, spaces) in enumerate(self.owed):
            lo, hi = at.get(k - 1, -1) if k else -1, at.get(k)
            if lo is None or hi is None:
                self.fills_wrong.append(f"move {k + 1}: its placement or the one before was not announced")
                continue
            if spaces and lo >= 0 and self.events[lo][2] == self.events[hi][2]:
                unseen += 1  # both placements first seen in one frame: the board owing the fill was never in view
                continue
            seen = set().union(*(tiles for first, tiles in self.in_view if first < self.events[hi][2]))
            known = frozenset((cell, shown) for cell, tiles in spaces
                              if (shown := tuple(t for t in tiles if t in seen)))
            if known != spaces:
                hidden += 1
                spaces = known
            said = [data for kind, data, *_ in self.events[lo + 1:hi] if kind == "must_fill"]
            got = (said[-1]["player"], frozenset((apply_cell(self.t, tuple(s["cell"])), tuple(sorted(s["tiles"])))
                                                 for s in said[-1]["spaces"])) if said else None
            if got == ((player, spaces) if spaces else None):
                right += bool(spaces)
            else:
                self.fills_wrong.append(f"before move {k + 1}: {player} must fill {_fills(spaces)}; said: "
                                        + (f"{got[0]} {_fills(got[1])}" if got else "nothing"))
        owed = sum(bool(spaces) for _p, spaces in self.owed)
        return [("must-fills said before a placement (a held tile fits a forced space)", owed,
                 f"{right}" + (f", {unseen} never in view" if unseen else "")
                 + (f", {hidden} with a held tile never in view" if hidden else "")
                 + (f", {len(self.fills_wrong)} wrong" if self.fills_wrong else ""), not self.fills_wrong)]

    def _behaviours(self) -> list[tuple[str, str, str, bool]]:
        """A row per scripted behaviour: what its scenes must be announced as (for one around the board, a lamp, a
        cup or a resting hand, also the next placement after it), what was said while they were shown, and whether
        that is all right (a tile moved or turned into place also stored as its player's legal placement)."""
        demo, rows = self.demo, []
        for name in (recording.TAKEN_BACK, *Behaviours.NAMES, "glared", "dazzled", "skip"):
            scenes = [k for k, s in enumerate(demo.scenes) if s.behaviour == name]
            if not scenes:
                continue
            then = scenes[-1] if name in (recording.TAKEN_BACK, *DURING) else next(
                (k for k in range(scenes[-1] + 1, len(demo.scenes)) if _placing(demo.scenes[k])), scenes[-1])
            lo, hi = self.starts[scenes[0]], self.starts[then + 1]
            expect = [i for i, (k, _s) in enumerate(self.expected) if scenes[0] <= k <= then]
            others = {n for i, n in self.matched.items() if i not in expect}  # announcements late from earlier scenes
            said = sorted({n for n, e in enumerate(self.events) if lo <= e[2] < hi and e[0] in recording.ABOUT_TILES
                           and n not in others} | {self.matched[i] for i in expect if i in self.matched})
            good = all(i in self.matched for i in expect) and not set(said) & set(self.phantoms)
            got = ", ".join(self.events[n][0] + (" (phantom)" if n in self.phantoms else "")
                            + (f" (late: frame {self.events[n][2]})" if self.events[n][2] >= hi else "")
                            for n in said) or "nothing"
            own = [demo.scenes[k].says.move for k in scenes if name in ("moved", "turned") and _placing(demo.scenes[k])]
            if own:  # the tile moved or turned into place: that player's legal placement, in the stored game
                i = own[-1]
                where = f"move {i + 1}"
                kept = next((m for m in self.stored if m[1] == demo.moves[i]), None)
                if kept != (demo.movers[i], demo.moves[i], True):
                    good = False
                    got += ("; not in the stored game" if kept is None else "; stored as illegal" if not kept[2]
                            else f"; stored as {kept[0]}'s")
            else:
                before = len({s.says.move for s in demo.scenes[:scenes[0]] if _placing(s)})
                where = f"move {before + 1}" if name in DURING else f"after move {before}"
            wanted = ", ".join([*(["(unsure)"] if name in ("glared", "dazzled") else []),
                                *(recording.ANNOUNCED[self.expected[i][1].verdict] for i in expect)]) or "nothing"
            rows.append((f"{NAMES[name]} ({where})", wanted, got, good))
        return rows


def _clear_of(avoid: tuple[int, ...], moves: int, glare_moves: int) -> int:
    """The move, from a third of the way into the game on, whose tile a glare may lie on for it and `glare_moves` more
    without a move of `avoid` among them (before it, when none after it will do)."""
    fits = [i for i in range(1, moves - glare_moves - 1) if not any(i <= a <= i + glare_moves for a in avoid)]
    return min(fits, key=lambda i: (i < moves // 3, abs(i - moves // 3)), default=max(1, moves // 3))


def _placing(scene: recording.Scene) -> bool:
    """The scene settles one of the game's placements (or a tile on its way to one)."""
    return scene.says is not None and scene.says.move is not None


def _fills(spaces) -> str:
    return "; ".join(f"{cell} with {'/'.join(map(str, tiles))}" for cell, tiles in sorted(spaces)) or "nothing"


def _points(scores: dict | None) -> str:
    return ", ".join(f"{c} {v}" for c, v in sorted((scores or {}).items()))


if __name__ == "__main__":
    sys.exit(main())
