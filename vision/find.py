"""Stage 1, find tiles: every tile by itself, from the tile network's maps.

A coarse pass over a small copy of the photo says where tiles lie and how wide they are; a fine pass over
just those regions, at the scale that makes tiles `fine_px` wide, marks each tile's centre, face and
outline; each centre's hexagon is fitted to the outline (`hexagon.fit`). Nothing here assumes a lattice:
gaps, twists and perspective are each tile's own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from tantrix_pi.vision import hexagon
from tantrix_pi.vision.config import FindConfig
from tantrix_pi.vision.network import SIZE_REF, STRIDE, Maps, TileNetwork
from tantrix_pi.vision.seen import Seen

_PROBES = np.array([(0.0, 0.0)] + [(r * math.cos(a), r * math.sin(a))
                                   for r in (0.35, 0.65) for a in np.radians(np.arange(0, 360, 30.0))])
"""Points of the unit hexagon where the maps are asked what lies there."""


def find_tiles(photo: np.ndarray, network: TileNetwork, cfg: FindConfig) -> tuple[list[Seen], list[Maps]]:
    """Every tile in the photo, its hexagon in photo pixels (turned by its bands where its outline was
    unclear); and the fine maps (for later questions about cells where no tile was found)."""
    coarse, peaks = _coarse(photo, network, cfg)
    widths = np.array([coarse.width_at(u, v) for u, v in peaks])
    peaks, widths = peaks[widths >= cfg.min_width_px], widths[widths >= cfg.min_width_px]
    if not len(peaks):
        return [], []
    width = float(np.median(widths))
    scale = min(cfg.max_upscale, cfg.fine_px / width)
    found: list[Seen] = []
    maps_all = []
    for box in _regions(coarse.to_photo(peaks), widths, photo.shape, cfg.region_pad):
        maps = network.maps(photo, scale, box)
        maps_all.append(maps)
        found += _tiles(maps, cfg)
    found = [t for t in _distinct(found) if t.hexagon.width >= cfg.min_width_px]
    return _turned_by_bands(photo, found, cfg), maps_all


def _coarse(photo: np.ndarray, network: TileNetwork, cfg: FindConfig) -> tuple[Maps, np.ndarray]:
    """The coarse maps and their centre peaks, from the first of the `coarse_sides` copies that shows tiles:
    most show on the first; big tiles (a phone photo close up) on smaller copies, small ones in a big photo
    on a larger one. When the tiles come out narrower or wider than the network reads well, once more at the
    scale that makes them `coarse_px` wide."""
    long_side = max(photo.shape[:2])
    tried = set()
    for side in cfg.coarse_sides:
        scale = min(1.0, side / long_side)
        if scale in tried:
            continue  # the same copy again (a small photo)
        tried.add(scale)
        maps = network.maps(photo, scale)
        peaks = _peaks(maps.centre, cfg.peak, cfg.most_peaks)
        if len(peaks):
            break
    else:
        return maps, peaks
    seen = np.median([maps.width_at(u, v) * maps.scale[0] for u, v in peaks])
    lo, hi = cfg.coarse_range
    if lo <= seen <= hi:
        return maps, peaks
    maps = network.maps(photo, min(cfg.max_upscale, maps.scale[0] * cfg.coarse_px / float(seen)))
    return maps, _peaks(maps.centre, cfg.peak, cfg.most_peaks)


def _peaks(heat: np.ndarray, threshold: float, most: int) -> np.ndarray:
    """The `most` highest local maxima of a heat map at least `threshold` high, refined to the centroid of
    their 3 x 3."""
    top = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= top) & (heat >= threshold))
    if not len(xs):
        return np.zeros((0, 2))
    keep = np.argsort(-heat[ys, xs], kind="stable")[:most]
    ys, xs = ys[keep], xs[keep]
    dy, dx = np.mgrid[-1:2, -1:2]
    patch = np.pad(heat, 1)[ys[:, None, None] + 1 + dy, xs[:, None, None] + 1 + dx]  # (peaks, 3, 3)
    s = patch.sum(axis=(1, 2))
    return np.stack([xs + (patch * dx).sum(axis=(1, 2)) / s, ys + (patch * dy).sum(axis=(1, 2)) / s], axis=1)


def _regions(centres: np.ndarray, widths: np.ndarray, shape, pad: float) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) covering every coarse tile with `pad` widths around it, overlapping ones merged."""
    h, w = shape[:2]
    boxes = [[c[0] - (0.5 + pad) * d, c[1] - (0.5 + pad) * d, c[0] + (0.5 + pad) * d, c[1] + (0.5 + pad) * d]
             for c, d in zip(centres, widths, strict=True)]
    merged = True
    while merged:
        merged = False
        out: list[list[float]] = []
        for b in boxes:
            for o in out:
                if b[0] < o[2] and o[0] < b[2] and b[1] < o[3] and o[1] < b[3]:
                    o[:] = [min(o[0], b[0]), min(o[1], b[1]), max(o[2], b[2]), max(o[3], b[3])]
                    merged = True
                    break
            else:
                out.append(list(b))
        boxes = out
    return [(max(0, int(b[0])), max(0, int(b[1])), min(w, int(math.ceil(b[2]))), min(h, int(math.ceil(b[3]))))
            for b in boxes]


def _tiles(maps: Maps, cfg: FindConfig) -> list[Seen]:
    """The tiles of one fine pass: hexagons fitted around its centre peaks, in photo pixels."""
    peaks = _peaks(maps.centre, cfg.peak, cfg.most_peaks)
    if not len(peaks):
        return []
    widths = np.array([math.exp(float(maps.size[int(round(v)), int(round(u))])) * SIZE_REF / STRIDE
                       for u, v in np.clip(peaks, 0, np.array(maps.size.shape[::-1]) - 1)])
    hexes, support = hexagon.fit(maps.boundary, peaks, widths, cfg.hexagon_iterations)
    to_photo = np.diag([STRIDE / maps.scale[0], STRIDE / maps.scale[1]])
    kept = [(float(maps.centre[int(round(v)), int(round(u))]),
             hexagon.Hexagon.of(maps.to_photo(np.array([hx.centre]))[0], to_photo @ hx.m))
            for (u, v), hx, sup in zip(peaks, hexes, support, strict=True) if sup >= cfg.min_support]
    covered = shares([maps], [hx for _, hx in kept], "cover")
    return [Seen(hx, score, float(c)) for (score, hx), c in zip(kept, covered, strict=True)]


_BAND_RING = np.array([(0.9 * math.sqrt(3) / 2 * math.cos(a), 0.9 * math.sqrt(3) / 2 * math.sin(a))
                       for a in np.radians(np.arange(0.0, 360.0, 5.0))])
"""A ring just inside the edges: exactly one band crosses it at each edge's midpoint, the black between."""
_BAND_ANGLES = np.arctan2(_BAND_RING[:, 1], _BAND_RING[:, 0])
"""Where on the ring each point lies, in the hexagon's own frame (a tilted camera squashes the photo's angles)."""
_BAND_TURNS = np.exp(6j * _BAND_ANGLES)
"""Each ring point's angle six times over: a tile's six bands, 60 degrees apart, add up along it."""


def _turned_by_bands(photo: np.ndarray, tiles: list[Seen], cfg: FindConfig) -> list[Seen]:
    """Each tile with how clearly its print shows six bands (`Seen.sixfold`), turned to where its bands cross
    the edges when that clearly disagrees with its outline.

    Every edge of a face-up tile has one band at its midpoint and black at the corners, so the colour around
    a ring just inside the edges peaks six times, 60 degrees apart: a turn read from the tile's own print,
    which a rounded or faint outline (a lone tile on a dark table) cannot give. Face-down tiles, glare and
    clear outlines keep the outline's turn.
    """
    if not tiles:
        return []
    pts = hexagon.to_photo_all([t.hexagon for t in tiles], _BAND_RING).astype(np.float32)  # (tiles, ring, 2)
    # of a tile the frame cuts, what is seen
    inside = hexagon.in_photo(pts, photo.shape)
    bgr = cv2.remap(photo, pts[..., 0].copy(), pts[..., 1].copy(), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
    chroma = bgr.max(axis=2) - bgr.min(axis=2)
    seen = inside.sum(axis=1)
    middle = np.median(chroma, axis=1)
    for i in np.flatnonzero((seen < len(_BAND_RING)) & (seen > 0)):
        middle[i] = np.median(chroma[i][inside[i]])
    lift = np.clip(chroma - middle[:, None], 0, None) * inside
    total = lift.sum(axis=1)
    z = (lift * _BAND_TURNS).sum(axis=1)
    return [_turned(t, n, s, zz, cfg) for t, n, s, zz in zip(tiles, seen, total, z, strict=True)]


def _turned(t: Seen, seen: int, total: float, z: complex, cfg: FindConfig) -> Seen:
    """`_turned_by_bands` of one tile, from how many points of its ring lie in the photo, the chroma they lift
    above its median, and that lift summed along the ring six times round (`z`)."""
    if seen < len(_BAND_RING) // 2 or total <= 0:
        return replace(t, sixfold=0.0)
    clarity = float(abs(z) / total)
    t = replace(t, sixfold=clarity)
    if clarity < cfg.band_turn_clarity:
        return t
    change = math.remainder(np.angle(z) / 6, math.pi / 3)  # in the hexagon's own frame the bands peak at 0, 60, ...
    if abs(math.degrees(change)) < cfg.band_turn_disagree:
        return t
    return replace(t, hexagon=hexagon.Hexagon.of(t.centre, t.hexagon.m @ hexagon.rotation(change)))


def share(maps: list[Maps], hx: hexagon.Hexagon, layer: str) -> float:
    """Share of the hexagon (photo pixels) that the fine maps see as `layer` ("face" or "cover"), over the
    part of it some map looked at (a third of it at least; else 0)."""
    return float(shares(maps, [hx], layer)[0])


def shares(maps: list[Maps], hexes: list[hexagon.Hexagon], layer: str,
           apart: Sequence[hexagon.Hexagon] = ()) -> np.ndarray:
    """`share` of each hexagon, all at once; the parts of them inside any of the hexagons `apart` left out."""
    return part_shares(maps, hexes, layer, _PROBES[None], apart)[:, 0]


def part_shares(maps: list[Maps], hexes: list[hexagon.Hexagon], layer: str, parts: np.ndarray,
                apart: Sequence[hexagon.Hexagon] = ()) -> np.ndarray:
    """(hexagons, parts): the share of each part of each hexagon that the fine maps see as `layer`, a part given
    by its unit-hexagon points (`parts`: parts x points x 2), over the points some map looked at and that lie in
    none of the hexagons `apart` (a third of them at least; else 0)."""
    best = np.zeros((len(hexes), len(parts)))
    if not hexes:
        return best
    probes = hexagon.to_photo_all(hexes, parts)  # (hexagons, parts, points, 2)
    free = ~hexagon.inside_any(list(apart), probes)
    for m in maps:
        p = m.to_map(probes).astype(np.float32)
        seen = hexagon.in_photo(p, m.face.shape) & free
        flat = p.reshape(-1, parts.shape[1], 2)
        got = cv2.remap(getattr(m, layer), flat[..., 0].copy(), flat[..., 1].copy(), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_CONSTANT, borderValue=0).reshape(seen.shape)
        n = seen.sum(axis=2)
        mean = (got * seen).sum(axis=2) / np.maximum(n, 1)
        best = np.where(n / parts.shape[1] >= 0.3, np.maximum(best, mean), best)
    return best


def _distinct(found: list[Seen]) -> list[Seen]:
    """One tile per place: where two passes saw the same tile, the one seen more clearly stays."""
    order = sorted(found, key=lambda s: -s.score)
    if not order:
        return []
    centres = np.array([s.centre for s in order])
    widths = np.array([s.hexagon.width for s in order])
    same = np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1)) <= 0.5 * np.minimum.outer(widths, widths)
    kept = np.zeros(len(order), bool)
    for i in range(len(order)):
        kept[i] = not (same[i, :i] & kept[:i]).any()
    return [s for s, k in zip(order, kept, strict=True) if k]
