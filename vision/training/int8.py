"""An int8 version of a trained tile network, trained for its rounding (quantisation-aware).

    python -m tantrix_pi.vision.training.int8 FLOAT.onnx OUT.onnx --steps 4000 [--init WEIGHTS.pt] SHARD.npz ...

onnxruntime runs a QDQ model's convolutions on 8-bit integers: weights as signed bytes per output channel
(symmetric), activations as unsigned bytes per tensor from 0 to a fixed ceiling (every activation here follows a
ReLU). Quantised after training, the shipped network lost tiles on the wide set (docs/vision.md), so here it is
trained on for a while as it will run: every weight and every quantised activation rounded in the forward pass
(the gradient passes the rounding unchanged), the ceilings fixed beforehand from the float network's activations
on training batches. It learns from the labels and from the float network's own maps (distillation), with a small
learning rate, so it stays what it was where rounding does not matter. The first convolution (the photo's three
colours) and the 1 x 1 head stay float: the photo is not rescaled to bytes, and the maps' logits need their range.

The export writes the trained weights into the float model's graph and lets onnxruntime's quantiser place the
QDQ nodes with the same ceilings (`TensorQuantOverrides`), so the int8 file computes what training rounded.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from google.protobuf.message import DecodeError
from onnx import numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from torch import nn

from tantrix_pi.vision.training.train import (
    BATCH,
    MANIFEST_KEY,
    batch,
    earlier_stage,
    imitation,
    learn,
    load,
    losses,
    model_record,
    sha256_of,
)

CEILING_QUANTILE = 0.9999
"""An activation's ceiling by default: this quantile of its values over the calibration batches (the rare larger
ones clip); 1 takes the highest value seen."""
CALIBRATION_BATCHES = 32
ENCODER = 9
"""The tile network's first convolutions (`TileNet`'s four levels down), in the ONNX graph's order."""
SKIPS = {9: 5, 10: 3, 11: 1}
"""Decoder convolution -> the encoder convolution whose output joins it (after the previous level, doubled)."""


class Quantised(nn.Module):
    """The tile network as its ONNX file holds it (batch norm folded into each convolution), able to run with
    its weights and activations rounded as onnxruntime's int8 kernels round them."""

    def __init__(self, graph: onnx.ModelProto) -> None:
        super().__init__()
        weights = {t.name: numpy_helper.to_array(t) for t in graph.graph.initializer}
        self.nodes, self.convs = [], nn.ModuleList()
        for node in graph.graph.node:
            if node.op_type != "Conv":
                continue
            w, b = weights[node.input[1]], weights[node.input[2]]
            stride = next((a.ints[0] for a in node.attribute if a.name == "strides"), 1)
            conv = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], stride, w.shape[2] // 2)
            with torch.no_grad():
                conv.weight.copy_(torch.from_numpy(w.copy()))
                conv.bias.copy_(torch.from_numpy(b.copy()))
            self.convs.append(conv)
            self.nodes.append(node)
        if len(self.convs) != ENCODER + len(SKIPS) + 1:
            raise ValueError(f"a graph of {len(self.convs)} convolutions is not the tile network's "
                             f"({ENCODER + len(SKIPS) + 1})")
        self.register_buffer("ceilings", torch.zeros(len(self.convs) - 1 + len(SKIPS)))
        self.quantise = False

    def _weight(self, i: int) -> torch.Tensor:
        w = self.convs[i].weight
        if not self.quantise or i in (0, len(self.convs) - 1):
            return w
        scale = (w.detach().abs().amax(dim=(1, 2, 3)) / 127.0).clamp(min=1e-12)
        return torch.fake_quantize_per_channel_affine(w, scale, torch.zeros_like(scale, dtype=torch.int32), 0,
                                                      -127, 127)

    def _act(self, x: torch.Tensor, k: int, seen: dict | None) -> torch.Tensor:
        if seen is not None:
            seen[k] = x.detach()
        return self._round(x, k)

    def _round(self, x: torch.Tensor, k: int) -> torch.Tensor:
        if not self.quantise:
            return x
        return torch.fake_quantize_per_tensor_affine(x, float(self.ceilings[k]) / 255.0, 0, 0, 255)

    def _conv(self, x: torch.Tensor, i: int, seen: dict | None) -> torch.Tensor:
        conv = self.convs[i]
        y = F.conv2d(x, self._weight(i), conv.bias, conv.stride, conv.padding)
        return y if i == len(self.convs) - 1 else self._act(F.relu(y), i, seen)

    def forward(self, x: torch.Tensor, seen: dict | None = None) -> torch.Tensor:
        """The maps; `seen` (a dict) collects every quantised activation by its place in `ceilings`: each
        ReLU's output in the graph's order, then each Concat's."""
        outs = []
        for i in range(ENCODER):
            x = self._conv(x, i, seen)
            outs.append(x)
        for j, i in enumerate(SKIPS):  # the doubled map is rounded as its source (onnxruntime's int8 Resize)
            up = self._round(F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False), i - 1)
            joined = self._act(torch.cat([up, outs[SKIPS[i]]], 1), len(self.convs) - 1 + j, seen)
            x = self._conv(joined, i, seen)
        return self._conv(x, len(self.convs) - 1, seen)

    def calibrate(self, batches: list[torch.Tensor], quantile: float = CEILING_QUANTILE) -> None:
        """Each activation's ceiling: the `quantile` of the float network's values on `batches` (1: their highest)."""
        self.quantise = False
        values: list[list[torch.Tensor]] = [[] for _ in self.ceilings]
        highest = [0.0 for _ in self.ceilings]
        with torch.no_grad():
            for x in batches:
                seen: dict[int, torch.Tensor] = {}
                self(x, seen)
                for k, v in seen.items():
                    highest[k] = max(highest[k], float(v.max()))
                    flat = v.flatten()
                    values[k].append(flat[torch.randint(len(flat), (200_000,))])
        for k, v in enumerate(values):
            self.ceilings[k] = highest[k] if quantile >= 1 else torch.quantile(torch.cat(v), quantile)


def _rounded(graph: onnx.ModelProto) -> list[str]:
    """The tensors `Quantised.ceilings` belong to, in its order: each ReLU's output, then each Concat's."""
    return [n.output[0] for op in ("Relu", "Concat") for n in graph.graph.node if n.op_type == op]


def export(net: Quantised, graph: onnx.ModelProto, out: Path, calibration: list[np.ndarray],
           metadata: dict[str, str]) -> None:
    """The float graph with `net`'s weights, quantised by onnxruntime with `net`'s ceilings, written to `out`."""
    float_graph = copy.deepcopy(graph)
    arrays = {t.name: t for t in float_graph.graph.initializer}
    for node, conv in zip(net.nodes, net.convs, strict=True):
        for name, p in ((node.input[1], conv.weight), (node.input[2], conv.bias)):
            arrays[name].CopyFrom(numpy_helper.from_array(p.detach().numpy().astype(np.float32), name))
    overrides = {t: [{"rmin": np.float32(0.0), "rmax": np.float32(float(c))}]
                 for t, c in zip(_rounded(float_graph), net.ceilings, strict=True)}
    convs = [n.name for n in float_graph.graph.node if n.op_type == "Conv"]

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.items = iter(calibration)

        def get_next(self):
            x = next(self.items, None)
            return None if x is None else {"image": x}

    plain = out.with_suffix(".float.onnx")
    onnx.save(float_graph, plain)
    quantize_static(str(plain), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    nodes_to_exclude=[convs[0], convs[-1]],
                    extra_options={"TensorQuantOverrides": overrides, "ActivationSymmetric": False,
                                   "WeightSymmetric": True})
    plain.unlink()
    model = onnx.load(str(out))
    for k, v in metadata.items():
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(out))


def train(source: Path, shards: list[Path], out: Path, steps: int, seed: int, lr: float,
          init: Path | None = None, log=print, quantile: float = CEILING_QUANTILE) -> None:
    """Fine-tune the float model `source` for int8 (from the weights and ceilings `init` a run of this module
    saved, when given: a longer run in stages) and export it to `out`."""
    torch.manual_seed(seed)
    graph = onnx.load(str(source))
    earlier = earlier_stage(init) if init is not None else None
    images, masks, maps, seen = load(shards)
    log(f"{len(images)} crops from {len(shards)} shards")
    g = torch.Generator().manual_seed(seed + 1)
    teacher = Quantised(graph).eval()
    net = Quantised(graph)
    calibration = [batch(images, masks, maps, g)[0] for _ in range(CALIBRATION_BATCHES)]
    if init is None:
        net.calibrate(calibration, quantile)
    else:
        net.load_state_dict(torch.load(init))
    log("ceilings " + " ".join(f"{c:.2f}" for c in net.ceilings))
    net.quantise = True
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.0)
    start, history = time.time(), []
    for step in range(1, steps + 1):
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * (step - 1) / steps))
        x, m, y = batch(images, masks, maps, g)
        with torch.no_grad():
            want = teacher(x)
        guess = net(x)
        learn(opt, losses(guess, m, y) | imitation(guess, want), history, step, start, log)
    written = out.with_suffix(".manifest.json")
    written.write_text(json.dumps({
        "format": "tantrix-pi-training-manifest/1", "torch": torch.__version__, "seed": seed, "lr": lr,
        "steps": steps, "batch": BATCH, "minutes": round((time.time() - start) / 60, 1),
        "int8_from": model_record(source),
        "init": earlier,
        "ceiling_quantile": None if init is not None else quantile,
        "ceilings": [round(float(c), 4) for c in net.ceilings],
        "pictures": sum(len(e["pictures"]) for e in seen), "shards": seen}, indent=1))
    torch.save(net.state_dict(), out.with_suffix(".pt"))
    export(net, graph, out, [c[:1].numpy() for c in calibration[:2]], {MANIFEST_KEY: sha256_of(written)})
    log(f"{steps} steps; saved {out} and {written.name}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="the float model (ONNX)")
    ap.add_argument("out", type=Path)
    ap.add_argument("shards", type=Path, nargs="+")
    ap.add_argument("--steps", type=int, default=4000, help="batches to train on (default %(default)s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-4, help="peak learning rate (default %(default)s)")
    ap.add_argument("--init", type=Path, help="go on from these weights (the .pt an earlier run of this module saved)")
    ap.add_argument("--ceiling-quantile", type=float, default=CEILING_QUANTILE,
                    help="each activation's ceiling, as a quantile of its values (1: the highest; default %(default)s)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        train(args.source, args.shards, args.out, args.steps, args.seed, args.lr, args.init,
              log=lambda s: print(s, flush=True), quantile=args.ceiling_quantile)
    except DecodeError:
        print(f"int8: {args.source} is not an ONNX model", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:
        print(f"int8: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
