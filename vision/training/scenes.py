"""Pictures with every tile's top-face hexagon, for training: the project's simulator over a wide range of
tables, lights, cameras and clutter (with drawn tiles, or with tiles cut from real photos), and folders of
photos with truth in the dataset layout (e.g. Blender renders of other seeds than the validation sets).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from tantrix_pi.board import Board
from tantrix_pi.simulator import CLUTTER, TABLES, random_board, render_scene


@dataclass
class LabelledPicture:
    """A picture, the corners (6 x 2, pixels) of every tile's top face in it, and what covers them; `file`, the
    photo it was read from (None when drawn)."""

    image: np.ndarray
    hexagons: list[np.ndarray]
    cover: np.ndarray | None = None
    file: Path | None = None


HELD_OUT_RENDERS = {("wide", 11), ("dev", 1001), ("wide", 2026)}
"""(split, seed) of the Blender sets kept for measuring (bench/vision.py, docs/model-card.md): never trained on.
Wide seed 2026 is the locked test set (bench/locked/wide-2026.json): not even tuned on, scored once per model."""
HELD_OUT_SESSIONS = ("session1",)
"""The real tile photographs kept for measuring (bench/vision_real.py): never trained on."""


class HeldOut(ValueError):
    """A picture kept for measuring was given to the training."""


class RenderSet(NamedTuple):
    """The generator's split and seed a dataset folder's index.json names, and whether it is kept for measuring."""

    split: str | None
    seed: int
    held_out: bool


def render_set(path: Path) -> RenderSet | None:
    """What the index.json of a dataset folder says it is; None when it names no seed (or there is none)."""
    index = Path(path) / "index.json"
    meta = json.loads(index.read_text()) if index.exists() else {}
    if "seed" not in meta:
        return None
    return RenderSet(meta.get("split"), meta["seed"], (meta.get("split"), meta["seed"]) in HELD_OUT_RENDERS)


def folder(path: Path) -> Iterator[LabelledPicture]:
    """The photos of a dataset folder (images/<id>.jpg|png with <id>.json truth holding tiles[].corners_px);
    HeldOut for a validation set (its index.json names a split and seed of HELD_OUT_RENDERS)."""
    named = render_set(path)
    if named is not None and named.held_out:
        raise HeldOut(f"{path}: the {named.split} renders of seed {named.seed} are kept for measuring; "
                      "train on other seeds")
    for truth_file in sorted((Path(path) / "images").glob("*.json")):
        truth = json.loads(truth_file.read_text())
        if "tiles" not in truth:
            continue
        photo = next((p for p in (truth_file.with_suffix(".jpg"), truth_file.with_suffix(".png")) if p.exists()), None)
        image = None if photo is None else cv2.imread(str(photo))
        if image is not None:
            yield LabelledPicture(image, [np.array(t["corners_px"]) for t in truth["tiles"]], file=photo)


class CutOutSprites:
    """Tiles cut from real photos (RGBA, transparent outside the tile, any turn) as simulator sprites: each
    cut-out's hexagon is fitted to its alpha, then turned pointy-top and scaled. Which tile and which turn a
    cut-out shows is not known, so these scenes teach where tiles are, never which tile. `drawn` holds the files
    drawn from since it was last emptied."""

    def __init__(self, files: list[Path], seed: int = 0) -> None:
        self.cutouts = []
        for f in files:
            rgba = cv2.imread(str(f), cv2.IMREAD_UNCHANGED)
            if rgba is not None and rgba.ndim == 3 and rgba.shape[2] == 4:
                self.cutouts.append((f, rgba, *_fit_alpha(rgba[..., 3])))
        if not self.cutouts:
            raise ValueError("no RGBA tile cut-outs to draw tiles with")
        self.rng = np.random.default_rng(seed)
        self.drawn: set[Path] = set()

    def __call__(self, number: int, face_up: bool, radius_px: float) -> np.ndarray:
        if not face_up:
            from tantrix_pi.simulator import tile_sprite

            return tile_sprite(number, False, radius_px, 0.23, 0)
        file, rgba, centre, radius, angle = self.cutouts[int(self.rng.integers(len(self.cutouts)))]
        self.drawn.add(file)
        half = int(math.ceil(radius_px)) + 2
        n = 2 * half + 1
        scale = radius_px / radius
        m = cv2.getRotationMatrix2D(centre, angle + 60.0 * int(self.rng.integers(6)), scale)
        m[:, 2] += np.array([half, half]) - np.array(centre)
        a = rgba[..., 3:4].astype(np.float32) / 255.0
        pre = np.dstack([rgba[..., :3].astype(np.float32) * a, rgba[..., 3:4].astype(np.float32)]).astype(np.uint8)
        return cv2.warpAffine(pre, m, (n, n), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                              borderValue=(0, 0, 0, 0))


def _fit_alpha(alpha: np.ndarray) -> tuple[tuple[float, float], float, float]:
    """(centre, circumradius, turn in degrees that brings its edge normals to multiples of 60) of a tile's alpha."""
    a = (alpha > 127).astype(np.uint8)
    contours, _ = cv2.findContours(a, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    c = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    d = np.roll(c, -3, axis=0) - np.roll(c, 3, axis=0)
    normal = np.arctan2(d[:, 0], -d[:, 1])
    phi = np.angle((np.hypot(d[:, 0], d[:, 1]) * np.exp(6j * normal)).sum())
    m = cv2.moments(a)
    radius = math.sqrt(2 * a.sum() / (3 * math.sqrt(3)))  # from the hexagon's area
    return (m["m10"] / m["m00"], m["m01"] / m["m00"]), radius, math.degrees(phi) / 6


def cut_outs(path: Path) -> list[Path]:
    """The tile cut-outs (`..._tileNN.png`) of a folder, but those of HELD_OUT_SESSIONS; HeldOut when only those
    are there."""
    files = [p for p in sorted(Path(path).glob("*.png")) if re.search(r"tile\d+", p.stem)]
    kept = [p for p in files if not p.stem.startswith(HELD_OUT_SESSIONS)]
    if files and not kept:
        raise HeldOut(f"{path}: its tile photographs ({', '.join(HELD_OUT_SESSIONS)}) are kept for measuring")
    return kept


def simulated(rng: np.random.Generator, sprites=None) -> LabelledPicture:
    """One simulated photo over a wide range: any table, 2700-6500 K, dim rooms, glare, cast shadows, a hand
    and objects, a camera tilted up to 45 degrees with a bent lens, tiles 35-220 px placed with gaps and
    twists, loose tiles, rows and face-down tiles; one in sixteen shows no tile at all."""
    size = (int(rng.integers(600, 1500)), int(rng.integers(500, 1200)))
    count = int(rng.choice([0, int(rng.integers(1, 6)), int(rng.integers(6, 25)), int(rng.integers(25, 57))],
                           p=[0.06, 0.3, 0.4, 0.24]))
    board = random_board(rng, count) if count else Board()
    span = max(3.0, math.sqrt(max(count, 1)) * 1.3)
    tile_px = min(float(math.exp(rng.uniform(math.log(35), math.log(220)))), 0.9 * min(size) / span)
    spare = [t for t in range(1, 57) if t not in board.tiles]
    rng.shuffle(spare)
    n_loose = int(rng.integers(1, 7)) if rng.random() < 0.4 else 0
    n_down = int(rng.integers(1, 3)) if rng.random() < 0.25 else 0
    params = dict(
        seed=int(rng.integers(1 << 30)), size=size, tile_px=tile_px, yaw_deg=float(rng.uniform(0, 360)),
        tilt_deg=float(rng.uniform(0, 25)) if rng.random() < 0.85 else float(rng.uniform(25, 45)),
        light_k=float(rng.uniform(2700, 6500)), awb=float(rng.uniform(0.2, 0.9)),
        exposure=float(math.exp(rng.uniform(math.log(0.3), math.log(1.4)))), table=str(rng.choice(TABLES)),
        glare=float(rng.uniform(0.3, 1.3)) if rng.random() < 0.35 else 0.0, glare_spots=int(rng.integers(1, 4)),
        cast_shadow=float(rng.uniform(0.2, 0.8)) if rng.random() < 0.2 else 0.0,
        blur=float(rng.uniform(0.3, 1.8)), noise=float(rng.uniform(0.3, 2.5)), jpeg_quality=int(rng.integers(55, 96)),
        loose=spare[:n_loose], face_down=spare[n_loose:n_loose + n_down],
        loose_style=str(rng.choice(["scattered", "row"])),
        occluder="hand" if rng.random() < 0.2 else None,
        clutter=[str(c) for c in rng.choice(CLUTTER, int(rng.integers(1, 4)))] if rng.random() < 0.3 else [],
        gap=float(rng.uniform(0.0, 0.1)), jitter=float(rng.uniform(0.5, 2.5)), rim=float(rng.uniform(0.5, 3.0)),
        k1=float(rng.uniform(-0.2, 0.05)), sprites=sprites,
    )
    photo = render_scene(board, **params)
    return LabelledPicture(photo.image, [np.array(t["corners_px"]) for t in photo.truth["tiles"]], photo.cover)
