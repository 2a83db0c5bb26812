"""Write a shard of training crops: `python -m tantrix_pi.vision.training.shards OUT.npz KIND COUNT --seed S`.

KIND is `simulated` (drawn tiles), `cutouts:DIR` (tiles cut from real photos in DIR, e.g. the real-dev
tiles; the photos are read from where they are and never stored), or `folder:DIR` (photos with truth in
the dataset layout: COUNT crops from each). A shard holds `image` (N, 256, 256, 3) uint8 BGR, `masks`
(N, 3, 128, 128) uint8 (face 0/1, outline 0..255, cover 0..255) and `maps` (N, 2, 128, 128) float16 (heat,
width code).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from tantrix_pi.vision.training import labels, scenes

CROPS_PER_SCENE = 3


def build(kind: str, count: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    pairs = []
    if kind.startswith("folder:"):
        for scene in scenes.folder(Path(kind.split(":", 1)[1])):
            pairs += labels.crops(scene.image, scene.hexagons, scene.cover, rng, count)
    else:
        sprites = scenes.CutOutSprites(scenes.cut_outs(Path(kind.split(":", 1)[1])), seed) \
            if kind.startswith("cutouts:") else None
        while len(pairs) < count:
            scene = scenes.simulated(rng, sprites)
            pairs += labels.crops(scene.image, scene.hexagons, scene.cover, rng, CROPS_PER_SCENE)
    return {"image": np.stack([p[0] for p in pairs]),
            "masks": np.stack([np.stack([p[1][0], p[1][1], p[1][4]]) for p in pairs]),
            "maps": np.stack([np.stack(p[1][2:4]) for p in pairs]).astype(np.float16)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("kind", help="simulated | cutouts:DIR | folder:DIR")
    ap.add_argument("count", type=int, help="crops (simulated, cutouts) or crops per photo (folder)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    t = time.perf_counter()
    try:
        shard = build(args.kind, args.count, args.seed)
    except scenes.HeldOut as e:
        print(f"shards: {e}", file=sys.stderr)
        return 2
    np.savez(args.out, **shard)
    print(f"{args.out}: {len(shard['image'])} crops in {time.perf_counter() - t:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
