"""`tantrix-pi detect`, `check` and `score`: the board in a photo, a puzzle verdict on it, its scores."""

from __future__ import annotations

import json

from tantrix_pi.errors import EXIT_OK, TantrixError
from tantrix_pi.game import player_colours
from tantrix_pi.grid import Cell, fmt
from tantrix_pi.i18n import _, ngettext
from tantrix_pi.puzzles import PUZZLE_HELP
from tantrix_pi.vision.detection import CONFIDENT
from tantrix_pi.vision.verdict import Unsure, judgeable, overlay


def register(cli) -> None:
    p = cli.top("detect", run_detect)
    _photo_args(p)
    p = cli.top("check", run_check)
    _photo_args(p)
    p.add_argument("--puzzle", required=True, metavar="SPEC", help=_(PUZZLE_HELP))
    p = cli.top("score", run_score)
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
    photo.check_in_colour(image, path)
    profile = _profile(calibration) if calibration else None
    return image, detect(image, profile=profile)


def judge_photo(path: str, calibration: str | None = None):
    """The photo at `path` and its detection when a verdict may be built on it (`puzzle hint`); else Unsure."""
    image, det = detect_photo(path, calibration)
    judgeable(det, path)
    return image, det


def _profile(path: str):
    """The calibration profile at `path` (ProfileError, one line and exit 2, when it is missing or bad)."""
    from tantrix_pi.calibration import Profile

    return Profile.load(path)


def _write_overlay(args, img) -> None:
    if not args.overlay:
        return
    from tantrix_pi.vision import overlay as draw

    try:
        draw.save(args.overlay, img)
    except Exception as e:  # OpenCV raises its own error type for unknown extensions
        raise TantrixError(_("--overlay {path}: cannot write it ({error})").format(
            path=args.overlay, error=str(e).splitlines()[-1][:80])) from None


def _where(cell: Cell, px) -> str:
    return _("{cell} at pixel ({x:.0f},{y:.0f})").format(cell=fmt(cell), x=px[0], y=px[1])


def run_detect(args) -> int:
    image, det = detect_photo(args.image, args.calibration)
    note = ngettext("{n} tile, {unsure} unsure", "{n} tiles, {unsure} unsure", len(det.tiles)).format(
        n=len(det.tiles), unsure=len(det.unsure()))
    _write_overlay(args, overlay(image, det, [note]))
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
    """A tile off the board or not read, with the detector's reason."""
    x, y = u.center_px
    if kind == "loose":
        text = (_("loose: tile {tile} at pixel ({x:.0f},{y:.0f}): {reason}") if u.tile
                else _("loose: at pixel ({x:.0f},{y:.0f}): {reason}"))
    elif kind == "face down":
        text = _("face down: at pixel ({x:.0f},{y:.0f}): {reason}")
    else:
        text = (_("unreadable: tile {tile} at pixel ({x:.0f},{y:.0f}): {reason}") if u.tile
                else _("unreadable: at pixel ({x:.0f},{y:.0f}): {reason}"))
    return text.format(tile=u.tile, x=x, y=y, reason=_(u.reason))


def _judged(args, label: str, judge) -> int:
    """A verdict through `tantrix_pi.vision.verdict` (as the web page's photo check), printed and drawn; a
    refusal is drawn on the overlay too, under `label`."""
    image, det = detect_photo(args.image, args.calibration)
    try:
        verdict = judge(det)
    except Unsure as e:
        _write_overlay(args, overlay(image, det, [f"{label}: {e.reason[:90]}"]))
        raise
    _write_overlay(args, overlay(image, det, verdict.notes, verdict.paths))
    print(json.dumps(verdict.answer) if args.json else "\n".join(verdict.lines))
    return verdict.exit_code


def run_check(args) -> int:
    from tantrix_pi.puzzles import puzzle
    from tantrix_pi.vision.verdict import check

    goal = puzzle(args.puzzle)
    return _judged(args, _("no verdict"), lambda det: check(det, goal, args.image))


def run_score(args) -> int:
    from tantrix_pi.vision.verdict import score

    colours = player_colours(args.players)
    return _judged(args, _("no scores"), lambda det: score(det, colours, args.image))
