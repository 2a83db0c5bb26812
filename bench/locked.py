"""The locked test set: renders of one seed of the Blender generator that no training, validation or tuning
used, kept outside the repository and scored once per model (docs/model-card.md). `bench/locked/NAME.json`
says how they were made and holds the sha256 of every image and truth file, so that a bench knows the set
when it meets it (`match`), and the training's loaders refuse its split and seed (`HELD_OUT_RENDERS`).

    ./run.sh python bench/locked.py DIR --command "HOW DIR WAS RENDERED" [--generator ../shared/tools/render]
                                                                   # writes bench/locked/SPLIT-SEED.json

The generator's own files are fingerprinted too (`generator_sha256`, of each `.py` file): the same seed renders
other photos when the generator changes, and a set rendered again is only the locked set when its files match.
A new render of the same seed replaces the manifest's files; what the one before held and how it was scored
stays under `earlier_renders`.

A truth file's `truth_sha256` is taken without its `render.render_seconds` (json.dumps with sorted keys),
the one value a second render of the same seed writes differently; `truth_file_sha256` is of the file as
rendered.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.vision.training.scenes import render_set  # noqa: E402

LOCKED = Path(__file__).resolve().with_name("locked")
LABEL = "locked test set (scored once per model)"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _truth_sha256(path: Path) -> str:
    truth = json.loads(path.read_text())
    truth.get("render", {}).pop("render_seconds", None)
    return _sha256(json.dumps(truth, sort_keys=True).encode())


def files(folder: Path) -> list[dict]:
    """Each board photo of a dataset folder (images/<id>.jpg with its truth) and the sha256 of both."""
    out = []
    for truth in sorted((folder / "images").glob("*.json")):
        image = truth.with_suffix(".jpg")
        out.append({"id": truth.stem, "image": f"images/{image.name}", "image_sha256": _sha256(image.read_bytes()),
                    "truth": f"images/{truth.name}", "truth_sha256": _truth_sha256(truth),
                    "truth_file_sha256": _sha256(truth.read_bytes())})
    return out


def match(folder: Path) -> tuple[Path, int, int] | None:
    """(manifest, files that differ from it, files it lists) for a folder of a locked set's split and seed;
    None for any other folder. A folder is the locked set when nothing differs."""
    named = render_set(folder)
    if named is None:
        return None
    for path in sorted(LOCKED.glob("*.json")):
        lock = json.loads(path.read_text())
        if (lock["split"], lock["seed"]) == (named.split, named.seed):
            want = {(f["id"], f["image_sha256"], f["truth_sha256"]) for f in lock["files"]}
            have = {(f["id"], f["image_sha256"], f["truth_sha256"]) for f in files(folder)}
            return path, len({f[0] for f in want ^ have}), len(want)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="the rendered set, in the layout of dataset/wide")
    ap.add_argument("--command", required=True, help="the generator commands that rendered it")
    ap.add_argument("--generator", type=Path, default=Path(__file__).resolve().parents[2] / "shared/tools/render",
                    help="the generator's folder, fingerprinted in the manifest (default: ../shared/tools/render)")
    args = ap.parse_args(argv)
    named = render_set(args.folder)
    if named is None:
        print(f"locked: {args.folder}: no index.json naming a split and seed", file=sys.stderr)
        return 2
    if not named.held_out:
        print(f"locked: {named.split} seed {named.seed} is not in HELD_OUT_RENDERS: hold it out first", file=sys.stderr)
        return 2
    generator = sorted(args.generator.glob("*.py"))
    if not generator:
        print(f"locked: {args.generator}: no generator files to fingerprint (--generator)", file=sys.stderr)
        return 2
    listed = files(args.folder)
    blender = shutil.which("blender") and subprocess.run(["blender", "--version"], capture_output=True,
                                                         text=True).stdout.splitlines()
    lock = {"format": "tantrix-pi-locked-set/1", "label": LABEL, "split": named.split, "seed": named.seed,
            "command": args.command, "blender": blender[0] if blender else None,
            "generator_python": {"python": platform.python_version(), "numpy": np.__version__,
                                 "opencv": cv2.__version__},
            "rendered": {"date": datetime.date.today().isoformat(),
                         "render_minutes": round(sum(json.loads((args.folder / f["truth"]).read_text())["render"]
                                                     ["render_seconds"] for f in listed) / 60, 1)},
            "generator_sha256": {p.name: _sha256(p.read_bytes()) for p in generator},
            "files": listed, "scored": []}
    out = LOCKED / f"{named.split}-{named.seed}.json"
    if out.exists():
        before = json.loads(out.read_text())
        if {f["image_sha256"] for f in before["files"]} != {f["image_sha256"] for f in lock["files"]}:
            earlier = before.pop("earlier_renders", [])
            lock["earlier_renders"] = [*earlier, {k: v for k, v in before.items() if k not in ("format", "label")}]
        else:
            lock["scored"], lock["earlier_renders"] = before["scored"], before.get("earlier_renders", [])
    LOCKED.mkdir(exist_ok=True)
    out.write_text(json.dumps(lock, indent=1) + "\n")
    print(f"{out}: {len(lock['files'])} photos")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
