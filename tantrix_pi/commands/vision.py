"""`tantrix-pi detect`, `check` and `score`: the board in a photo, a puzzle verdict on it, its scores."""

from __future__ import annotations

import json

from tantrix_pi.commands.board import player_colours
from tantrix_pi.errors import EXIT_NO, EXIT_OK, EXIT_UNSURE, TantrixError
from tantrix_pi.grid import Cell, fmt
from tantrix_pi.i18n import _, ngettext, player_name
from tantrix_pi.puzzles import PUZZLE_HELP
from tantrix_pi.tiles import COLOUR_NAMES
from tantrix_pi.vision.detection import CONFIDENT


class Unsure(TantrixError):
    """The photo shows no tile, or tiles too doubtful to build a verdict on (exit code 3)."""

    exit_code = EXIT_UNSURE


def register(cli) -> None:
    p = cli.command("detect", _("Read the board in a photo of the table (tiles, turns, confidence)."),
                    run_detect)
    _photo_args(p)
    p = cli.command("check", _("Is the puzzle in the photo solved? Refuses to judge a doubtful photo (exit 3)."),
                    run_check)
    _photo_args(p)
    p.add_argument("--puzzle", required=True, metavar="SPEC", help=_(PUZZLE_HELP))
    p = cli.command("score", _("End-of-game scores of the board in a photo; refuses a doubtful photo (exit 3)."),
                    run_score)
    _photo_args(p)
    p.add_argument("--players", metavar="COLOURS", help=_("player colours, e.g. red,blue (default: all four)"))


def _photo_args(p) -> None:
    p.add_argument("image", metavar="IMAGE", help=_("photo of the table, seen from above"))
    p.add_argument("--calibration", metavar="PROFILE", help=_("camera calibration profile (undistort, rectify)"))
    p.add_argument("--json", action="store_true", help=_("print JSON instead of text"))
    p.add_argument("--overlay", metavar="OUT.png", help=_("write the photo with what was seen drawn on it"))


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
    # the doubts are the detector's own words (English until it gives them as codes)
    reason = (_("not sure enough to judge: {doubts}").format(doubts="; ".join(map(str, doubts))) if det.tiles
              else _("no tile found"))
    if refused is not None:
        refused(image, det, reason)
    raise Unsure(_("{path}: {reason}").format(path=path, reason=reason))


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
        raise TantrixError(_("--overlay {path}: cannot write it ({error})").format(
            path=args.overlay, error=str(e).splitlines()[-1][:80])) from None


def _where(cell: Cell, px) -> str:
    return _("{cell} at pixel ({x:.0f},{y:.0f})").format(cell=fmt(cell), x=px[0], y=px[1])


def run_detect(args) -> int:
    image, det = detect_photo(args.image, args.calibration)
    _write_overlay(args, image, det, [ngettext("{n} tile, {unsure} unsure", "{n} tiles, {unsure} unsure",
                                               len(det.tiles)).format(n=len(det.tiles), unsure=len(det.unsure()))])
    if not det.tiles:
        raise Unsure(_("{path}: no tile found").format(path=args.image))
    if args.json:
        print(json.dumps(det.to_dict()))
        return EXIT_OK
    print(ngettext("board: {n} tile, {px:.0f} px across", "board: {n} tiles, {px:.0f} px across",
                   len(det.tiles)).format(n=len(det.tiles), px=det.tile_px))
    for t in sorted(det.tiles, key=lambda t: (t.placement.r, t.placement.q)):
        line = (_("tile {tile:2d} at {where} turn {rot}  confidence {confidence:.2f}") if t.confidence >= CONFIDENT
                else _("tile {tile:2d} at {where} turn {rot}  confidence {confidence:.2f}   LOW CONFIDENCE"))
        print("  " + line.format(tile=t.placement.tile, where=_where(t.placement.cell, t.center_px),
                                 rot=t.placement.rot, confidence=t.confidence))
    for kind, items in (("loose", det.loose), ("face down", det.face_down), ("unreadable", det.unreadable)):
        for u in items:
            print(_unread(kind, u))
    return EXIT_OK


def _unread(kind: str, u) -> str:
    """A tile off the board or not read, with the detector's reason (in its own words, English for now)."""
    x, y = u.center_px
    if kind == "loose":
        text = (_("loose: tile {tile} at pixel ({x:.0f},{y:.0f}): {reason}") if u.tile
                else _("loose: at pixel ({x:.0f},{y:.0f}): {reason}"))
    elif kind == "face down":
        text = _("face down: at pixel ({x:.0f},{y:.0f}): {reason}")
    else:
        text = (_("unreadable: tile {tile} at pixel ({x:.0f},{y:.0f}): {reason}") if u.tile
                else _("unreadable: at pixel ({x:.0f},{y:.0f}): {reason}"))
    return text.format(tile=u.tile, x=x, y=y, reason=u.reason)


def _judged(args, label: str):
    """`judge_photo` for check and score: a refusal is also drawn on the overlay, under `label`."""
    return judge_photo(args.image, args.calibration,
                       lambda image, det, reason: _write_overlay(args, image, det, [f"{label}: {reason[:90]}"]))


def run_check(args) -> int:
    from tantrix_pi.puzzles import puzzle

    goal = puzzle(args.puzzle)
    image, det = _judged(args, _("no verdict"))
    verdict = goal.check(det.board)
    head = (_("{puzzle}: solved") if verdict.solved else _("{puzzle}: not solved")).format(puzzle=goal.title)
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
    image, det = _judged(args, _("no scores"))
    over = outcome(det.board, colours)
    table = {c: over.scores[c] for c in colours}
    lines = [_("{player}: line {line}, loop {loop} -> {score}").format(player=player_name(c), line=s.line,
                                                                        loop=s.loop, score=s.score)
             for c, s in table.items()]
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
