"""`tantrix-pi detect`, `check` and `score`: the board in a photo, a puzzle verdict on it, its scores."""

from __future__ import annotations

import json

from tantrix_pi.commands.board import player_colours
from tantrix_pi.errors import EXIT_OK, TantrixError
from tantrix_pi.photo_verdict import Unsure, overlay, where


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


def _detect(args):
    from tantrix_pi.vision import detect, photo

    image = photo.load(args.image)
    profile = _profile(args.calibration) if args.calibration else None
    return image, detect(image, profile=profile)


def _profile(path: str):
    """The calibration profile at `path` (ProfileError, one line and exit 2, when it is missing or bad)."""
    from tantrix_pi.calibration import Profile

    return Profile.load(path)


def _write_overlay(args, img) -> None:
    if not args.overlay:
        return
    from tantrix_pi.vision import overlay

    try:
        overlay.save(args.overlay, img)
    except Exception as e:  # OpenCV raises its own error type for unknown extensions
        raise TantrixError(f"--overlay {args.overlay}: cannot write it ({str(e).splitlines()[-1][:80]})") from None


def run_detect(args) -> int:
    image, det = _detect(args)
    _write_overlay(args, overlay(image, det, [f"{len(det.tiles)} tiles, {len(det.unsure())} unsure"]))
    if not det.tiles:
        raise Unsure(f"{args.image}: no tile found", "no tile found")
    if args.json:
        print(json.dumps(det.to_dict()))
        return EXIT_OK
    print(f"board: {len(det.tiles)} tiles, {det.tile_px:.0f} px across")
    for t in sorted(det.tiles, key=lambda t: (t.placement.r, t.placement.q)):
        flag = "" if t.confidence >= 0.8 else "   LOW CONFIDENCE"
        print(f"  tile {t.placement.tile:2d} at {where(t.placement.cell, t.center_px)} turn {t.placement.rot}"
              f"  confidence {t.confidence:.2f}{flag}")
    for name, items in (("loose", det.loose), ("face down", det.face_down), ("unreadable", det.unreadable)):
        for u in items:
            tile = f"tile {u.tile} " if u.tile else ""
            print(f"{name}: {tile}at pixel ({u.center_px[0]:.0f},{u.center_px[1]:.0f}): {u.reason}")
    return EXIT_OK


def _judge(args, image, det, judge) -> int:
    """The verdict through `photo_verdict` (as the web page's photo check), printed and drawn."""
    try:
        verdict = judge()
    except Unsure as e:
        _write_overlay(args, overlay(image, det, [e.note]))
        raise
    _write_overlay(args, overlay(image, det, verdict.notes, verdict.paths))
    print(json.dumps(verdict.answer) if args.json else "\n".join(verdict.lines))
    return verdict.exit_code


def run_check(args) -> int:
    from tantrix_pi.photo_verdict import check
    from tantrix_pi.puzzles import puzzle

    goal = puzzle(args.puzzle)
    image, det = _detect(args)
    return _judge(args, image, det, lambda: check(det, goal, args.image))


def run_score(args) -> int:
    from tantrix_pi.photo_verdict import score

    colours = player_colours(args.players)
    image, det = _detect(args)
    return _judge(args, image, det, lambda: score(det, colours, args.image))
