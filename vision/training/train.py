"""Train the tile network on shards and export it for onnxruntime.

    python -m tantrix_pi.vision.training.train OUT.onnx --steps 18000 [--init WEIGHTS.pt] SHARD.npz [SHARD.npz ...]

Shards come from `tantrix_pi.vision.training.shards`. Each step draws a batch, turns it by a multiple of 90
degrees and maybe mirrors it (exact: the labels turn with it), changes its light (gain, colour cast, gamma,
noise), and minimises: binary cross-entropy on the face and the outline, CenterNet's focal loss on the
centre heat map, L1 on the width code over tile faces, cross-entropy on what covers the table. The learning
rate follows a cosine over the steps. The budget is a number of batches, not a time, so a run on a busy machine
learns the same as on an idle one, only later. The export takes any input whose sides are multiples of 16.

With `--teacher MODEL.onnx` the network also learns to say what that model says on each batch (distillation:
binary cross-entropy towards its probabilities on the face, outline, centre and cover maps, L1 towards its width
code where it sees tile faces), besides the labels: a smaller network learns more from a trained one's soft maps
than from the labels alone.

What the run saw is written next to the ONNX file (OUT.manifest.json: every shard with its sha256 and the
pictures its crops were cut from, the run's settings; with `--init`, the manifest of the run that saved those
weights, which must lie beside them), and that file's sha256 goes into the ONNX file's metadata as
`training_manifest_sha256`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import torch
import torch.nn.functional as F

from tantrix_pi.vision.network import BOUNDARY, CENTRE, COVER, FACE, SIZE
from tantrix_pi.vision.training.model import TileNet

BATCH = 16
LEARNING_RATE = 3e-3
MANIFEST_KEY = "training_manifest_sha256"
"""The ONNX metadata key holding the sha256 of the training's manifest."""


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
    """The shards' crops (image, masks, maps) and what each shard is: file, sha256, crops, the pictures it records.
    ValueError for a shard that records no pictures (written before shards kept them)."""
    parts, shards = [], []
    for path in paths:
        with np.load(path) as d:
            if "pictures" not in d:
                raise ValueError(f"{path}: the shard records no pictures; write it again with "
                                 "tantrix_pi.vision.training.shards")
            parts.append({k: d[k] for k in ("image", "masks", "maps")})
            shards.append({"file": str(Path(path).resolve()), "sha256": sha256_of(path),
                           "crops": len(parts[-1]["image"]), "pictures": json.loads(str(d["pictures"]))})
    return (*(np.concatenate([d[k] for d in parts]) for k in ("image", "masks", "maps")), shards)


def earlier_stage(init: Path) -> dict:
    """The record (`model_record`) of the weights `init` a run starts from, with the manifest of the run that saved
    them, so that a model trained in stages records every picture each stage saw. ValueError when there is none."""
    written = Path(init).with_suffix(".manifest.json")
    if not written.is_file():
        raise ValueError(f"{init}: no {written.name} beside it, so what those weights saw is not known; "
                         "start from weights a run of this module saved")
    return model_record(init)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def augment(x: torch.Tensor, masks: torch.Tensor, maps: torch.Tensor, g: torch.Generator):
    """A batch turned, maybe mirrored, under another light; x in 0..1, returned as the network's input."""
    k = int(torch.randint(4, (1,), generator=g))
    if k:
        x, masks, maps = (torch.rot90(a, k, (2, 3)) for a in (x, masks, maps))
    if bool(torch.randint(2, (1,), generator=g)):
        x, masks, maps = x.flip(3), masks.flip(3), maps.flip(3)
    b = x.shape[0]
    gain = torch.exp(torch.empty(b, 1, 1, 1).uniform_(math.log(0.45), math.log(1.6), generator=g))
    cast = torch.exp(torch.empty(b, 3, 1, 1).uniform_(-0.2, 0.2, generator=g))
    gamma = torch.exp(torch.empty(b, 1, 1, 1).uniform_(-0.25, 0.25, generator=g))
    v = (x.clamp(0, 1) ** gamma) * gain * cast
    v = v + torch.randn(v.shape, generator=g) * torch.empty(b, 1, 1, 1).uniform_(0, 0.03, generator=g)
    return v.clamp(0, 1) * 4.0 - 2.0, masks, maps  # as network.blob scales a photo


def batch(images: np.ndarray, masks: np.ndarray, maps: np.ndarray, g: torch.Generator):
    """A batch of crops drawn at random, `augment`ed: (network input, masks, maps)."""
    idx = torch.randint(len(images), (BATCH,), generator=g).numpy()
    x = torch.from_numpy(images[idx]).permute(0, 3, 1, 2).float() / 255.0
    return augment(x, torch.from_numpy(masks[idx]), torch.from_numpy(maps[idx].astype(np.float32)), g)


def learn(opt: torch.optim.Optimizer, parts: dict[str, torch.Tensor], history: list, step: int, start: float,
          log) -> None:
    """One step down the sum of the losses `parts`; every 100 steps, each one's mean over them logged."""
    loss = sum(parts.values())
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append([v.item() for v in parts.values()])
    if step % 100 == 0:
        mean = np.mean(history[-100:], axis=0)
        log(f"step {step} {time.time() - start:.0f}s "
            + " ".join(f"{k} {v:.3f}" for k, v in zip(parts, mean, strict=True)))


def losses(out: torch.Tensor, masks: torch.Tensor, maps: torch.Tensor) -> dict[str, torch.Tensor]:
    face = masks[:, 0].float()
    outline = masks[:, 1].float() / 255.0
    heat = maps[:, 0]
    p = torch.sigmoid(out[:, CENTRE]).clamp(1e-4, 1 - 1e-4)
    peak = (heat == F.max_pool2d(heat[:, None], 3, 1, 1)[:, 0]) & (heat > 0.5)
    pos = -(torch.log(p) * (1 - p) ** 2)[peak].sum()
    neg = -(torch.log(1 - p) * p ** 2 * (1 - heat) ** 4)[~peak].sum()
    n = face.sum().clamp(min=1)
    return {
        "face": F.binary_cross_entropy_with_logits(out[:, FACE], face),
        "outline": F.binary_cross_entropy_with_logits(out[:, BOUNDARY], outline, pos_weight=torch.tensor(3.0)),
        "cover": F.binary_cross_entropy_with_logits(out[:, COVER], masks[:, 2].float() / 255.0),
        "centre": (pos + neg) / max(1, int(peak.sum())),
        "width": (out[:, SIZE] - maps[:, 1]).abs().mul(face).sum() / n,
    }


CENTRE_IMITATION = 10.0
"""Weight of the centre map's imitation loss: its pixels are nearly all far from a centre, so its mean cross-entropy
is a tenth of the other maps'."""


def imitation(out: torch.Tensor, want: torch.Tensor) -> dict[str, torch.Tensor]:
    """How far the network's maps are from a teacher's (`want`, its raw output for the same batch)."""
    p = torch.sigmoid(want)
    face = p[:, FACE]
    return {
        "face~": F.binary_cross_entropy_with_logits(out[:, FACE], face),
        "outline~": F.binary_cross_entropy_with_logits(out[:, BOUNDARY], p[:, BOUNDARY]),
        "cover~": F.binary_cross_entropy_with_logits(out[:, COVER], p[:, COVER]),
        "centre~": CENTRE_IMITATION * F.binary_cross_entropy_with_logits(out[:, CENTRE], p[:, CENTRE]),
        "width~": (out[:, SIZE] - want[:, SIZE]).abs().mul(face).sum() / face.sum().clamp(min=1),
    }


def _teacher(path: Path, threads: int) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def model_record(path: Path) -> dict:
    """A model file's path, sha256 and training manifest (None for a model trained before manifests were kept)."""
    written = Path(path).with_suffix(".manifest.json")
    return {"file": str(Path(path).resolve()), "sha256": sha256_of(path),
            "manifest": json.loads(written.read_text()) if written.is_file() else None}


def train(shards: list[Path], out: Path, steps: int, seed: int = 0, init: Path | None = None,
          lr: float = LEARNING_RATE, log=print, teacher: Path | None = None) -> TileNet:
    """Train for `steps` batches (from the weights `init` when given: a longer run in stages; imitating the model
    `teacher` too when given), export to `out`."""
    torch.manual_seed(seed)
    earlier = earlier_stage(init) if init is not None else None
    mentor = _teacher(teacher, torch.get_num_threads()) if teacher is not None else None
    images, masks, maps, seen = load(shards)
    log(f"{len(images)} crops from {len(shards)} shards")
    net = TileNet()
    if init is not None:
        net.load_state_dict(torch.load(init))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    g = torch.Generator().manual_seed(seed + 1)
    start, history = time.time(), []
    for step in range(1, steps + 1):
        done = (step - 1) / steps
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * done)) + 5e-5
        x, m, y = batch(images, masks, maps, g)
        guess = net(x)
        parts = losses(guess, m, y)
        if mentor is not None:
            name = mentor.get_inputs()[0].name  # a model exported for one picture at a time, as the shipped one
            want = torch.from_numpy(np.concatenate([mentor.run(None, {name: one})[0] for one in x.numpy()[:, None]]))
            parts |= imitation(guess, want)
        learn(opt, parts, history, step, start, log)
    net.eval()
    written = out.with_suffix(".manifest.json")
    written.write_text(json.dumps({
        "format": "tantrix-pi-training-manifest/1", "torch": torch.__version__, "seed": seed, "lr": lr,
        "steps": steps, "batch": BATCH, "minutes": round((time.time() - start) / 60, 1),
        "init": earlier,
        "teacher": None if teacher is None else model_record(teacher),
        "pictures": sum(len(e["pictures"]) for e in seen), "shards": seen}, indent=1))
    export(net, out, {MANIFEST_KEY: sha256_of(written)})
    log(f"{steps} steps; saved {out} and {written.name}")
    return net


def export(net: TileNet, out: Path, metadata: dict[str, str]) -> None:
    """The network as ONNX (any input size, opset 17) carrying `metadata`, with its weights beside it as .pt."""
    torch.save(net.state_dict(), out.with_suffix(".pt"))
    torch.onnx.export(net, torch.zeros(1, 3, 256, 256), str(out), opset_version=17, dynamo=False,
                      input_names=["image"], output_names=["maps"],
                      dynamic_axes={"image": {2: "height", 3: "width"}, "maps": {2: "half_height", 3: "half_width"}})
    model = onnx.load(str(out))
    for key, value in metadata.items():
        model.metadata_props.add(key=key, value=value)
    onnx.save(model, str(out))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("shards", type=Path, nargs="+")
    ap.add_argument("--steps", type=int, default=18000, help="batches to train on (default %(default)s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", type=Path, help="start from these weights (the .pt an earlier run saved)")
    ap.add_argument("--teacher", type=Path, help="also imitate this model's maps (an ONNX file, e.g. the shipped one)")
    ap.add_argument("--lr", type=float, default=LEARNING_RATE, help="peak learning rate (default %(default)s)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        train(args.shards, args.out, args.steps, args.seed, args.init, args.lr, log=lambda s: print(s, flush=True),
              teacher=args.teacher)
    except ValueError as e:
        print(f"train: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
