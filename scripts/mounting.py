"""Camera heights over the table for a full 56-tile board, as the table printed in hardware.md.

    python3 scripts/mounting.py            prints the markdown table

A 56-tile board spans at most about 12 tiles; with one tile of margin all round the camera must see
FIELD_MM on the image's short side (the board may lie at any angle). A tile is 44 mm across flats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TILE_MM = 44.0
FIELD_MM = 14 * TILE_MM
MIN_PX_PER_TILE = 60


@dataclass(frozen=True)
class Camera:
    """A camera and lens: field of view on the image's long and short sides, and a capture size."""

    name: str
    focal_mm: float
    fov_long: float
    fov_short: float
    size: tuple[int, int]
    source: str


def pinhole(sensor_mm: float, focal_mm: float) -> float:
    """Field of view in degrees of a sensor side behind a lens of that focal length."""
    return math.degrees(2 * math.atan(sensor_mm / (2 * focal_mm)))


HQ_SENSOR = (4056 * 1.55e-3, 3040 * 1.55e-3)  # IMX477: 4056 x 3040 pixels of 1.55 um
CAMERAS = [
    Camera("Camera Module 3 (IMX708)", 4.74, 66, 41, (2304, 1296), "datasheet"),
    Camera("Camera Module 3 (IMX708)", 4.74, 66, 41, (4608, 2592), "datasheet"),
    Camera("Camera Module 3 Wide (IMX708)", 2.75, 102, 67, (2304, 1296), "datasheet"),
    Camera("Camera Module 2 (IMX219)", 3.04, 62.2, 48.8, (1640, 1232), "datasheet"),
    Camera("HQ Camera (IMX477) + 6 mm CS lens", 6.0, pinhole(HQ_SENSOR[0], 6.0), pinhole(HQ_SENSOR[1], 6.0),
           (2028, 1520), "pinhole, 6.29 x 4.71 mm sensor"),
    Camera("HQ Camera (IMX477) + 6 mm CS lens", 6.0, pinhole(HQ_SENSOR[0], 6.0), pinhole(HQ_SENSOR[1], 6.0),
           (4056, 3040), "pinhole, 6.29 x 4.71 mm sensor"),
    Camera("HQ Camera (IMX477) + 16 mm C lens", 16.0, pinhole(HQ_SENSOR[0], 16.0), pinhole(HQ_SENSOR[1], 16.0),
           (2028, 1520), "pinhole, 6.29 x 4.71 mm sensor"),
]


def height_for_field(field_mm: float, fov_deg: float) -> float:
    """Lens height above the table at which a field of view of `fov_deg` spans `field_mm`."""
    return field_mm / 2 / math.tan(math.radians(fov_deg) / 2)


def rows() -> list[str]:
    """One markdown row per camera: FOV, capture size, lowest height, px per tile there, highest height."""
    out = []
    for c in CAMERAS:
        short_px = min(c.size)
        low = height_for_field(FIELD_MM, c.fov_short)
        px_per_tile = short_px * TILE_MM / FIELD_MM
        high = height_for_field(short_px * TILE_MM / MIN_PX_PER_TILE, c.fov_short)
        usable = "yes" if px_per_tile >= MIN_PX_PER_TILE else "no"
        out.append(f"| {c.name} | {c.focal_mm:g} mm | {c.fov_long:.0f} x {c.fov_short:.0f} ({c.source}) "
                   f"| {c.size[0]}x{c.size[1]} | {low / 10:.0f} cm | {px_per_tile:.0f} ({usable}) "
                   f"| {high / 10:.0f} cm |")
    return out


HEADER = [
    f"| camera | focal length | field of view, degrees | capture size | lowest height ({FIELD_MM:.0f} mm field) "
    f"| px per tile there | highest height ({MIN_PX_PER_TILE} px per tile) |",
    "|---|---|---|---|---|---|---|",
]

if __name__ == "__main__":
    print("\n".join(HEADER + rows()))
