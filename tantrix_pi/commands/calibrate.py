"""`tantrix-pi calibrate ...`: print the board, then measure the camera, the table and the colours."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from tantrix_pi.calibration import camera as camera_cal
from tantrix_pi.calibration import check as check_view
from tantrix_pi.calibration import colour as colour_cal
from tantrix_pi.calibration import table as table_cal
from tantrix_pi.calibration.charuco import BoardSpec, sheet
from tantrix_pi.calibration.profile import Profile, ProfileError
from tantrix_pi.errors import EXIT_NO, EXIT_OK, TantrixError
from tantrix_pi.i18n import _
from tantrix_pi.live import config as config_mod


class ImageError(TantrixError):
    """An image file that cannot be read."""


def read_image(path: str) -> np.ndarray:
    """A BGR image from a file, or one line naming it and what is wrong (missing, not an image, truncated...)."""
    from tantrix_pi.vision.photo import load

    return load(path)


def _imwrite(path: str, image: np.ndarray) -> bool:
    try:
        return cv2.imwrite(path, image)
    except cv2.error:  # a name without an image extension
        return False


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 10_000:
        raise argparse.ArgumentTypeError(_("needs a number above 0, not {text!r}").format(text=text))
    return value


def board_spec(args: argparse.Namespace) -> BoardSpec:
    """The board from --board FILE, else from --squares/--square-mm/--marker-mm/--dictionary."""
    if getattr(args, "board", None):
        return BoardSpec.load(args.board)
    return BoardSpec.parse(args.squares, args.square_mm, args.marker_mm, args.dictionary)


def add_board_options(p: argparse.ArgumentParser, from_file: bool = True) -> None:
    """The options that describe a ChArUco board."""
    d = BoardSpec()
    if from_file:
        p.add_argument("--board", metavar="FILE", help=_("the JSON that `calibrate board` saved beside the sheet"))
    p.add_argument("--squares", default=f"{d.squares_x}x{d.squares_y}",
                   help=_("squares across x down (default %(default)s)"))
    p.add_argument("--square-mm", type=_positive, default=d.square_mm,
                   help=_("side of a square in mm (default %(default)s)"))
    p.add_argument("--marker-mm", type=_positive, default=d.marker_mm,
                   help=_("side of a marker in mm (default %(default)s)"))
    p.add_argument("--dictionary", default=d.dictionary, help=_("ArUco dictionary (default %(default)s)"))


def add_profile_option(p: argparse.ArgumentParser) -> None:
    """--calibration PATH and --config FILE."""
    p.add_argument("--calibration", metavar="PATH", type=Path, default=None,
                   help=_("the profile file (default: the one `tantrix-pi run` reads, below)"))
    p.add_argument("--config", metavar="FILE", help=_("the service's configuration: its paths.profile, else "
                   "STATE_DIR/profile.toml (default: every default, /var/lib/tantrix-pi/profile.toml)"))


def profile_file(args: argparse.Namespace) -> Path:
    """--calibration (in a folder that exists), else the profile `tantrix-pi run --config FILE` reads."""
    if args.calibration is None:
        return config_mod.load(args.config).profile_path
    if not args.calibration.parent.is_dir():
        raise ProfileError(_("--calibration {path}: no folder {folder}").format(path=args.calibration,
                                                                              folder=args.calibration.parent))
    return args.calibration


# ---- board ----------------------------------------------------------------------------------------


def cmd_board(args: argparse.Namespace) -> int:
    """Write the printable sheet and its JSON."""
    spec = board_spec(args)
    page = sheet(spec, args.paper)
    try:
        meta = page.save(args.out, spec)
    except OSError as e:
        raise ImageError(_("{path}: cannot write it ({error})").format(path=args.out, error=e.strerror or e)) from None
    print(_("wrote {out} ({paper} landscape, {dpi:.2f} dpi) and {meta}: {board}").format(
        out=args.out, paper=args.paper, dpi=page.dpi, meta=meta, board=spec.describe()))
    print(_("print it at 100 % (actual size) and check that one square measures {mm:g} mm").format(mm=spec.square_mm))
    return 0


# ---- camera ---------------------------------------------------------------------------------------


def cmd_camera(args: argparse.Namespace) -> int:
    """Calibrate the lens from photos of the board and store it in the profile."""
    spec = board_spec(args)
    profile = Profile.load_or_new(profile_file(args))
    if args.live:
        from tantrix_pi.calibration.live import capture

        images = capture(args.live, spec)
    else:
        if not args.images:
            raise camera_cal.CalibrationError(_("give the photos of the board (IMAGES...) or --live N"))
        images = ((path, read_image(path)) for path in args.images)
    views, rejected, size = camera_cal.collect(images, spec)
    result = camera_cal.calibrate(views, size, rejected, fix_k3=not args.k3)
    for r in result.rejected:  # after a success only: a failure's one line already names them
        print(_("rejected {name}: {reason}").format(name=r.name, reason=r.reason), file=sys.stderr)
    path = profile.with_section(camera=result.model()).save()
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    k, d = result.matrix, result.dist
    print(_("{views} views, RMS reprojection error {rms:.3f} px; {coverage}; the lens {uncertainty} (one standard "
            "deviation)").format(views=len(result.views), rms=result.rms, coverage=result.coverage.describe(),
                                 uncertainty=result.uncertainty.describe()))
    for v in result.views:
        print(_("  {name}: {corners} corners, {error:.3f} px").format(name=v.name, corners=len(v.ids),
                                                                      error=v.error_px))
    print(f"fx {k[0, 0]:.2f}  fy {k[1, 1]:.2f}  cx {k[0, 2]:.2f}  cy {k[1, 2]:.2f}  ({size[0]}x{size[1]})")
    print("dist " + " ".join(f"{n} {x:.5f}" for n, x in zip(("k1", "k2", "p1", "p2", "k3"), d, strict=False)))
    print(_("saved to {path}").format(path=path))
    return 0


def one_photo(args: argparse.Namespace) -> np.ndarray:
    """The IMAGE argument, or one frame from the camera with --live."""
    if args.live:
        from contextlib import closing

        from tantrix_pi.calibration.live import frames

        with closing(frames()) as source:
            return next(source)
    if not args.image:
        raise ImageError(_("give a photo (IMAGE) or --live"))
    return read_image(args.image)


# ---- table ----------------------------------------------------------------------------------------


def cmd_table(args: argparse.Namespace) -> int:
    """Measure the table plane from the sheet lying on it."""
    spec = board_spec(args)
    profile = Profile.load_or_new(profile_file(args))
    image = one_photo(args)
    plane = table_cal.measure(image, spec, profile.camera, args.px_per_mm)
    if profile.camera is None:  # after measuring, so that a failure stays one line
        print(_("note: the camera is not calibrated, so the table plane ignores lens distortion "
                "(run `tantrix-pi calibrate camera` first for a straight view)"), file=sys.stderr)
    profile = profile.with_section(table=plane)
    fit = table_cal.movement(profile, image, spec)
    path = profile.save()
    w, h = plane.rectified_size
    x0, y0, x1, y1 = plane.view_mm
    witnesses = sorted(n for n in plane.reference if n.startswith("marker_"))
    if args.json:
        print(json.dumps({"px_per_mm": plane.px_per_mm, "view_mm": list(plane.view_mm), "rectified_size": [w, h],
                          "fit_points": fit.seen, "fit_median_px": round(fit.median_px, 3),
                          "fit_max_px": round(fit.max_px, 3), "witness_markers": witnesses, "profile": str(path)},
                         indent=2))
        return EXIT_OK
    print(_("table plane from {points} points, fit within {max:.2f} px (median {median:.2f} px)").format(
        points=fit.seen, max=fit.max_px, median=fit.median_px))
    print(_("rectified view {w}x{h} px at {scale:g} px/mm, showing {width:.0f} x {height:.0f} mm of table").format(
        w=w, h=h, scale=plane.px_per_mm, width=x1 - x0, height=y1 - y0))
    print(_("witness markers: {markers}").format(
        markers=", ".join(witnesses) if witnesses else _("none (the sheet is the only reference)")))
    print(_("saved to {path}").format(path=path))
    return EXIT_OK


def cmd_markers(args: argparse.Namespace) -> int:
    """Write the page of witness markers."""
    from PIL import Image

    page, dpi = table_cal.witness_sheet(args.paper)
    out = Path(args.out)
    if out.suffix.lower() not in (".pdf", ".png"):
        raise ImageError(_("{path}: the page can be written as .pdf or .png").format(path=out))
    image = Image.fromarray(page)
    try:
        if out.suffix.lower() == ".pdf":
            image.save(out, "PDF", resolution=dpi)
        else:
            image.save(out, "PNG", dpi=(dpi, dpi))
    except OSError as e:
        raise ImageError(_("{path}: cannot write it ({error})").format(path=out, error=e.strerror or e)) from None
    print(_("wrote {out}: four {dictionary} markers of {mm:g} mm; cut them out, stick them near the table's corners, "
            "in view, then run `calibrate table` with the sheet and them in view").format(
        out=out, dictionary=table_cal.WITNESS_DICTIONARY, mm=table_cal.WITNESS_MM))
    return EXIT_OK


# ---- colour ---------------------------------------------------------------------------------------


def cmd_colour(args: argparse.Namespace) -> int:
    """Learn the white balance and the tile colours from a photo of tiles."""
    profile = Profile.load_or_new(profile_file(args))
    image = one_photo(args)
    model, sep = colour_cal.learn(image)
    path = profile.with_section(colour=model).save()
    if args.json:
        print(json.dumps({"white_balance": list(model.white_balance), "lab": model.prototypes,
                          "pixels": sep.pixels, "spread": {n: round(v, 2) for n, v in sep.spread.items()},
                          "closest_pair": list(sep.pair), "distance": round(sep.distance, 2),
                          "margin": round(sep.margin, 2), "profile": str(path)}, indent=2))
        return EXIT_OK
    r, g, b = model.white_balance
    print(_("white balance gains R {r:.3f}  G {g:.3f}  B {b:.3f}").format(r=r, g=g, b=b))
    for name in model.prototypes:
        lab = model.prototypes[name]
        print(f"  {name:<5} L {lab[0]:5.1f}  a {lab[1]:6.1f}  b {lab[2]:6.1f}   "
              + _("({pixels} px, spread {spread:.1f})").format(pixels=sep.pixels[name], spread=sep.spread[name]))
    print(sep.describe())
    print(_("saved to {path}").format(path=path))
    return EXIT_OK


# ---- check ----------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    """Draw what the profile implies on a photo and say whether the table calibration still holds."""
    profile = Profile.load(profile_file(args))
    image = one_photo(args)
    spec = board_spec(args)
    moved = table_cal.movement(profile, image, spec) if profile.table else None
    code = EXIT_NO if moved is not None and moved.moved else EXIT_OK
    overlay = check_view.overlay(profile, image, moved, spec)
    if args.out and not _imwrite(args.out, overlay):
        raise ImageError(_("cannot write {path}: use a .png or .jpg path in a folder that exists").format(
            path=args.out))
    if args.json:
        result = {n: getattr(profile, n).measured if getattr(profile, n) else None
                  for n in ("camera", "table", "colour")}
        if moved is not None:
            result.update(moved=moved.moved, points=moved.seen, median_px=round(moved.median_px, 3),
                          max_px=round(moved.max_px, 3), worst=moved.worst)
        else:
            result["moved"] = None
        print(json.dumps(result, indent=2))
        return code
    print(profile.describe())
    if profile.table is not None:
        print(moved.describe() if moved is not None else _("no reference points in view (neither the sheet nor the "
                                                           "witness markers): cannot tell whether the camera moved"))
    if args.out:
        print(_("overlay written to {path}").format(path=args.out))
    return code


def register(cli) -> None:
    """Add `tantrix-pi calibrate board|camera|...`."""
    group = cli.group("calibrate")

    p = cli.command("board", _("Write a printable ChArUco board at exact scale (and its JSON beside it)."), cmd_board,
                    parent=group)
    p.add_argument("--out", required=True, help=_("the sheet: .pdf or .png"))
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help=_("paper size, landscape (default a4)"))
    add_board_options(p, from_file=False)

    p = cli.command("camera", _("Calibrate the lens from 6 or more photos of the ChArUco board."), cmd_camera,
                    parent=group)
    p.add_argument("images", nargs="*", metavar="IMAGES", help=_("photos of the board, all at one resolution"))
    p.add_argument("--live", type=int, metavar="N", help=_("take N views with the camera instead"))
    p.add_argument("--json", action="store_true", help=_("print the result as JSON"))
    p.add_argument("--k3", action="store_true", help=_("also fit k3 (wide-angle lenses; needs many good views)"))
    add_board_options(p)
    add_profile_option(p)

    p = cli.command("table", _("Measure the table plane from a photo of the sheet lying flat on the table."),
                    cmd_table, parent=group)
    p.add_argument("image", nargs="?", metavar="IMAGE", help=_("photo of the sheet on the table"))
    p.add_argument("--live", action="store_true", help=_("take the photo with the camera"))
    p.add_argument("--px-per-mm", type=_positive, help=_("scale of the rectified view (default: the photo's own)"))
    p.add_argument("--json", action="store_true", help=_("print the result as JSON"))
    add_board_options(p)
    add_profile_option(p)

    p = cli.command("markers", _("Write four witness markers to stick near the table's corners."), cmd_markers,
                    parent=group)
    p.add_argument("--out", required=True, help=_("the page: .pdf or .png"))
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help=_("paper size (default a4)"))

    p = cli.command("colour", _("Learn white balance and the tile colours from a photo of face-up tiles."), cmd_colour,
                    parent=group)
    p.add_argument("image", nargs="?", metavar="IMAGE", help=_("a photo of tiles showing all four colours"))
    p.add_argument("--live", action="store_true", help=_("take the photo with the camera"))
    p.add_argument("--json", action="store_true", help=_("print the result as JSON"))
    add_profile_option(p)

    p = cli.command("check", _("Draw what the profile implies on a photo; say if the camera or sheet moved."),
                    cmd_check, parent=group)
    p.add_argument("image", nargs="?", metavar="IMAGE", help=_("a photo of the table"))
    p.add_argument("--live", action="store_true", help=_("take the photo with the camera"))
    p.add_argument("--out", help=_("write the overlay here (.png/.jpg)"))
    p.add_argument("--json", action="store_true", help=_("print the result as JSON"))
    add_board_options(p)
    add_profile_option(p)
