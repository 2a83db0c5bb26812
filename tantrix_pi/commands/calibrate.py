"""`tantrix-pi calibrate ...`: print the board, then measure the camera, the table and the colours."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration import camera as camera_cal
from calibration.charuco import BoardSpec, sheet
from calibration.profile import Profile, default_path
from tantrix_pi.errors import TantrixError


class ImageError(TantrixError):
    """An image file that cannot be read."""


def read_image(path: str) -> np.ndarray:
    """A BGR image from a file, or ImageError naming it."""
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise ImageError(f"cannot read image {path}: not there, or not a picture OpenCV knows")
    return image


def board_spec(args: argparse.Namespace) -> BoardSpec:
    """The board from --board FILE, else from --squares/--square-mm/--marker-mm/--dictionary."""
    if getattr(args, "board", None):
        return BoardSpec.load(args.board)
    return BoardSpec.parse(args.squares, args.square_mm, args.marker_mm, args.dictionary)


def add_board_options(p: argparse.ArgumentParser, from_file: bool = True) -> None:
    """The options that describe a ChArUco board."""
    d = BoardSpec()
    if from_file:
        p.add_argument("--board", metavar="FILE", help="the JSON that `calibrate board` saved beside the sheet")
    p.add_argument("--squares", default=f"{d.squares_x}x{d.squares_y}",
                   help="squares across x down (default %(default)s)")
    p.add_argument("--square-mm", type=float, default=d.square_mm, help="side of a square in mm (default %(default)s)")
    p.add_argument("--marker-mm", type=float, default=d.marker_mm, help="side of a marker in mm (default %(default)s)")
    p.add_argument("--dictionary", default=d.dictionary, help="ArUco dictionary (default %(default)s)")


def add_profile_option(p: argparse.ArgumentParser) -> None:
    """--calibration PATH."""
    p.add_argument("--calibration", metavar="PATH", type=Path, default=None,
                   help=f"the profile file (default {default_path()})")


# ---- board ----------------------------------------------------------------------------------------


def cmd_board(args: argparse.Namespace) -> int:
    """Write the printable sheet and its JSON."""
    spec = board_spec(args)
    page = sheet(spec, args.paper)
    meta = page.save(args.out, spec)
    print(f"wrote {args.out} ({args.paper} landscape, {page.dpi:.2f} dpi) and {meta}: {spec.describe()}")
    print(f"print it at 100 % (actual size) and check that one square measures {spec.square_mm:g} mm")
    return 0


# ---- camera ---------------------------------------------------------------------------------------


def cmd_camera(args: argparse.Namespace) -> int:
    """Calibrate the lens from photos of the board and store it in the profile."""
    spec = board_spec(args)
    profile = Profile.load_or_new(args.calibration)
    if args.live:
        from calibration.live import capture

        images = capture(args.live, spec)
    else:
        if not args.images:
            raise camera_cal.CalibrationError("give the photos of the board (IMAGES...) or --live N")
        images = ((path, read_image(path)) for path in args.images)
    views, rejected, size = camera_cal.collect(images, spec)
    for r in rejected:
        print(f"rejected {r.name}: {r.reason}", file=sys.stderr)
    result = camera_cal.calibrate(views, size, rejected, fix_k3=not args.k3)
    for r in result.rejected[len(rejected):]:
        print(f"rejected {r.name}: {r.reason}", file=sys.stderr)
    path = profile.with_section(camera=result.model()).save(args.calibration or profile.path)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    k, d = result.matrix, result.dist
    print(f"{len(result.views)} views, RMS reprojection error {result.rms:.3f} px")
    for v in result.views:
        print(f"  {v.name}: {len(v.ids)} corners, {v.error_px:.3f} px")
    print(f"fx {k[0, 0]:.2f}  fy {k[1, 1]:.2f}  cx {k[0, 2]:.2f}  cy {k[1, 2]:.2f}  ({size[0]}x{size[1]})")
    print("dist " + " ".join(f"{n} {x:.5f}" for n, x in zip(("k1", "k2", "p1", "p2", "k3"), d, strict=False)))
    print(f"saved to {path}")
    return 0


def register(cli) -> None:
    """Add `tantrix-pi calibrate board|camera|...`."""
    group = cli.group("calibrate", "measure the camera, the table plane and the colours once per set-up")

    p = cli.command("board", "write a printable ChArUco board at exact scale (and its JSON beside it)", cmd_board,
                    parent=group)
    p.add_argument("--out", required=True, help="the sheet: .pdf or .png")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size, landscape (default a4)")
    add_board_options(p, from_file=False)

    p = cli.command("camera", "calibrate the lens from 6 or more photos of the ChArUco board", cmd_camera,
                    parent=group)
    p.add_argument("images", nargs="*", metavar="IMAGES", help="photos of the board, all at one resolution")
    p.add_argument("--live", type=int, metavar="N", help="take N views with the camera instead")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--k3", action="store_true", help="also fit k3 (wide-angle lenses; needs many good views)")
    add_board_options(p)
    add_profile_option(p)
