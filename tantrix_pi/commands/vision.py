"""`tantrix-pi detect`, `check` and `score`: the board in a photo, a puzzle verdict on it, its scores."""

from __future__ import annotations

import json

from tantrix_pi.commands.board import player_colours
from tantrix_pi.errors import EXIT_NO, EXIT_OK, EXIT_UNSURE, TantrixError
from tantrix_pi.grid import Cell
from tantrix_pi.tiles import COLOUR_NAMES
from tantrix_pi.vision.detection import CONFIDENT


class Unsure(TantrixError):
    """The photo shows no tile, or tiles too doubtful to build a verdict on (exit code 3); `doubts` names them."""

    exit_code = EXIT_UNSURE

    def __init__(self, message: str, doubts=()) -> None:
        super().__init__(message)
        self.doubts = tuple(doubts)

    def to_dict(self) -> dict:
        return {**super().to_dict(), "doubts": [
            {"kind": d.kind, "cell": list(d.cell) if d.cell is not None else None, "tile": d.tile,
             "pixel": [round(x, 1) for x in d.center_px], "detail": d.detail} for d in self.doubts]}


def register(cli) -> None:
    p = cli.command("detect", "Read the board in a photo of the table (tiles, turns, confidence).",
                    run_detect)
    _photo_args(p)
    p = cli.command("check", "Is the puzzle in the photo solved? Refuses to judge a doubtful photo (exit 3).",
                    run_check)
    _photo_args(p)
    p.add_argument("--puzzle", required=True, metavar="SPEC", help="discovery:N, rainbow:COLOUR or solitaire")
    p = cli.command("score", "End-of-game scores of the board in a photo; refuses a doubtful photo (exit 3).",
                    run_score)
    _photo_args(p)
    p.add_argument("--players", metavar="COLOURS", help="the players' colours, e.g. red,blue (default: all four)")


def _photo_args(p) -> None:
    p.add_argument("image", metavar="IMAGE", help="photo of the table, seen from above")
    p.add_argument("--calibration", metavar="PROFILE", help="camera calibration profile (undistort, rectify)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--overlay", metavar="OUT.png", help="write the photo with what was seen drawn on it")


def detect_photo(path: str, calibration: str | None = None):
    """The photo at `path` and what the detector sees in it, through the calibration profile when given."""
    from tantrix_pi.vision import detect, photo

    image = photo.load(path)
    profile = _profile(calibration) if calibration else None
    return image, detect(image, profile=profile)


def judge_photo(path: str, calibration: str | None = None, refused=None):
    """The photo at `path` and its detection when a verdict may be built on it: `check`, `score` and `puzzle hint`.

    Else Unsure (exit 3) naming every doubt (`Detection.doubts`) or saying that no tile was found; `refused(image,
    detection, reason)` is called first (to draw the refusal on the overlay). A wrong verdict is worse than none.
    """
    image, det = detect_photo(path, calibration)
    doubts = det.doubts()
    if det.tiles and not doubts:
        return image, det
    reason = "not sure enough to judge: " + "; ".join(map(str, doubts)) if det.tiles else "no tile found"
    if refused is not None:
        refused(image, det, reason)
    raise Unsure(f"{path}: {reason}", doubts)


def _profile(path: str):
    """The calibration profile at `path` (ProfileError, one line and exit 2, when it is missing or bad)."""
    from tantrix_pi.calibration import Profile

    return Profile.load(path)


def _write_overlay(args, image, det, notes=(), paths=()) -> None:
    if not args.overlay:
        return
    from tantrix_pi.vision import overlay

    img = overlay.draw(image, det, notes)
    for colour, cells, loop in paths:
        overlay.draw_path(img, det, cells, colour, loop)
    try:
        overlay.save(args.overlay, img)
    except Exception as e:  # OpenCV raises its own error type for unknown extensions
        raise TantrixError(f"--overlay {args.overlay}: cannot write it ({str(e).splitlines()[-1][:80]})") from None


def _where(cell: Cell, px) -> str:
    return f"({cell[0]},{cell[1]}) at pixel ({px[0]:.0f},{px[1]:.0f})"


def run_detect(args) -> int:
    image, det = detect_photo(args.image, args.calibration)
    _write_overlay(args, image, det, [f"{len(det.tiles)} tiles, {len(det.unsure())} unsure"])
    if not det.tiles:
        raise Unsure(f"{args.image}: no tile found")
    if args.json:
        print(json.dumps(det.to_dict()))
        return EXIT_OK
    print(f"board: {len(det.tiles)} tiles, {det.tile_px:.0f} px across")
    for t in sorted(det.tiles, key=lambda t: (t.placement.r, t.placement.q)):
        flag = "" if t.confidence >= CONFIDENT else "   LOW CONFIDENCE"
        print(f"  tile {t.placement.tile:2d} at {_where(t.placement.cell, t.center_px)} turn {t.placement.rot}"
              f"  confidence {t.confidence:.2f}{flag}")
    for name, items in (("loose", det.loose), ("face down", det.face_down), ("unreadable", det.unreadable)):
        for u in items:
            tile = f"tile {u.tile} " if u.tile else ""
            print(f"{name}: {tile}at pixel ({u.center_px[0]:.0f},{u.center_px[1]:.0f}): {u.reason}")
    return EXIT_OK


def _judged(args, label: str):
    """`judge_photo` for check and score: a refusal is also drawn on the overlay, under `label`."""
    return judge_photo(args.image, args.calibration,
                       lambda image, det, reason: _write_overlay(args, image, det, [f"{label}: {reason[:90]}"]))


def run_check(args) -> int:
    from tantrix_pi.puzzles import puzzle

    goal = puzzle(args.puzzle)
    image, det = _judged(args, "no verdict")
    verdict = goal.check(det.board)
    head = f"{goal.name}: {'solved' if verdict.solved else 'not solved'}"
    _write_overlay(args, image, det, [head, *verdict.reasons])
    if args.json:
        print(json.dumps({"puzzle": goal.name, "solved": verdict.solved, "reasons": list(verdict.reasons),
                          "detection": det.to_dict()}))
    else:
        print(head)
        for reason in verdict.reasons:
            print(f"  {reason}")
    return EXIT_OK if verdict.solved else EXIT_NO


def run_score(args) -> int:
    from tantrix_pi.scoring import outcome

    colours = player_colours(args.players)
    image, det = _judged(args, "no scores")
    over = outcome(det.board, colours)
    table = {c: over.scores[c] for c in colours}
    lines = [f"{COLOUR_NAMES[c]}: line {s.line}, loop {s.loop} -> {s.score}" for c, s in table.items()]
    paths = [(c, s.path.cells, s.path.loop) for c, s in table.items() if s.path is not None]
    _write_overlay(args, image, det, [*lines, over.result()], paths)
    if args.json:
        print(json.dumps({"scores": {COLOUR_NAMES[c]: {"line": s.line, "loop": s.loop, "score": s.score}
                                     for c, s in table.items()},
                          "winners": [COLOUR_NAMES[w] for w in over.winners], "detection": det.to_dict()}))
    else:
        print("\n".join(lines))
        print(over.result())
    return EXIT_OK
