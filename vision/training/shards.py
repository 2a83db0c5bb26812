"""Write a shard of training crops: `python -m tantrix_pi.vision.training.shards OUT.npz KIND COUNT --seed S`.

KIND is `simulated` (drawn tiles), `cutouts:DIR` (tiles cut from real photos in DIR, e.g. the real-dev
tiles; the photos are read from where they are and never stored), or `folder:DIR` (photos with truth in
the dataset layout: COUNT crops from each). A shard holds `image` (N, 256, 256, 3) uint8 BGR, `masks`
(N, 3, 128, 128) uint8 (face 0/1, outline 0..255, cover 0..255), `maps` (N, 2, 128, 128) float16 (heat,
width code), and `pictures`: JSON of the list of pictures the crops were cut from, in order, each with an
`id`, its `source` (`simulated`; `cutouts` with the cut-out files drawn; or the photo's file), its `seed` (the
shard's for a drawn picture, which is its `picture`-th drawn with that seed; the generator's for a render),
its `sha256` (of the file's bytes, or of a drawn picture's uint8 BGR array, C order, of the given `shape`),
and how many `crops` it gave.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from tantrix_pi.vision.training import labels, scenes

CROPS_PER_SCENE = 3


def build(kind: str, count: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    pairs, pictures = [], []
    if kind.startswith("folder:"):
        path = Path(kind.split(":", 1)[1])
        named = scenes.render_set(path)
        for scene in scenes.folder(path):
            pairs += labels.crops(scene.image, scene.hexagons, scene.cover, rng, count)
            pictures.append({"id": scene.file.stem, "source": str(scene.file.resolve()),
                             "split": named and named.split, "seed": named and named.seed,
                             "sha256": hashlib.sha256(scene.file.read_bytes()).hexdigest(), "crops": count})
    else:
        sprites = scenes.CutOutSprites(scenes.cut_outs(Path(kind.split(":", 1)[1])), seed) \
            if kind.startswith("cutouts:") else None
        while len(pairs) < count:
            scene = scenes.simulated(rng, sprites)
            pairs += labels.crops(scene.image, scene.hexagons, scene.cover, rng, CROPS_PER_SCENE)
            n = len(pictures)
            picture = {"id": f"{'cutouts' if sprites else 'simulated'}-{seed}-{n:05d}",
                       "source": "cutouts" if sprites else "simulated", "seed": seed, "picture": n,
                       "sha256": hashlib.sha256(np.ascontiguousarray(scene.image).tobytes()).hexdigest(),
                       "shape": list(scene.image.shape), "crops": CROPS_PER_SCENE}
            if sprites:
                picture["cutouts"] = sorted(str(f.resolve()) for f in sprites.drawn)
                sprites.drawn.clear()
            pictures.append(picture)
    return {"image": np.stack([p[0] for p in pairs]),
            "masks": np.stack([np.stack([p[1][0], p[1][1], p[1][4]]) for p in pairs]),
            "maps": np.stack([np.stack(p[1][2:4]) for p in pairs]).astype(np.float16),
            "pictures": np.array(json.dumps(pictures))}


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
    print(f"{args.out}: {len(shard['image'])} crops from {len(json.loads(str(shard['pictures'])))} pictures in "
          f"{time.perf_counter() - t:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
