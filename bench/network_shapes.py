"""What a retrained tile network could cost: candidate shapes timed through onnxruntime before any is trained.

    ./run.sh python bench/network_shapes.py [--size 448x336] [--repeat 25]      (needs the train extra: torch)

Each candidate is the shipped U-Net (`vision/training/model.py`) with one thing changed: narrower layers,
depthwise-separable 3 x 3 convolutions (a 3 x 3 per channel, then a 1 x 1 across), or a decoder that stops at
a quarter of the input's resolution instead of a half. The weights are random: the time of a network does not
depend on them, its accuracy does, so this says only which shapes are worth training (issue 18, item 8).
Exported to ONNX like the shipped file (opset 17), run by onnxruntime on one thread as the detector runs it,
CPU ms per run on one input of `--size` (448x336: the coarse pass of a 4:3 photo), median and fastest of
`--repeat`, the shipped file itself first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
import onnxruntime
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tantrix_pi.vision.network import CHANNELS, MODEL  # noqa: E402
from tantrix_pi.vision.training.model import _conv  # noqa: E402
from tantrix_pi.vision.training.train import export  # noqa: E402


def _separable(i: int, o: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, i, 3, stride, 1, groups=i, bias=False), nn.BatchNorm2d(i), nn.ReLU(inplace=True),
                         nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class Candidate(nn.Module):
    """TileNet's layout with `conv` for every 3 x 3 layer, decoding to 1/2 (`half`, as shipped) or to 1/4."""

    def __init__(self, widths: tuple[int, int, int, int], conv=_conv, half: bool = True) -> None:
        super().__init__()
        a, b, c, d = widths
        self.half = half
        self.down0 = nn.Sequential(_conv(3, a, 2), conv(a, a))
        self.down1 = nn.Sequential(conv(a, b, 2), conv(b, b))
        self.down2 = nn.Sequential(conv(b, c, 2), conv(c, c))
        self.down3 = nn.Sequential(conv(c, d, 2), conv(d, d), conv(d, d))
        self.up2 = conv(d + c, c)
        self.up1 = conv(c + b, b)
        self.up0 = conv(b + a, a) if half else nn.Identity()
        self.head = nn.Conv2d(a if half else b, CHANNELS, 1)
        self.upsample = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x0 = self.down0(x)
        x1 = self.down1(x0)
        x2 = self.down2(x1)
        x3 = self.down3(x2)
        y = self.up2(torch.cat([self.upsample(x3), x2], 1))
        y = self.up1(torch.cat([self.upsample(y), x1], 1))
        if self.half:
            y = self.up0(torch.cat([self.upsample(y), x0], 1))
        return self.head(y)


CANDIDATES = {
    "as shipped (16, 24, 32, 48), random weights": Candidate((16, 24, 32, 48)),
    "narrower (12, 16, 24, 32)": Candidate((12, 16, 24, 32)),
    "narrower (8, 16, 24, 32)": Candidate((8, 16, 24, 32)),
    "separable (16, 24, 32, 48)": Candidate((16, 24, 32, 48), _separable),
    "separable (16, 32, 48, 64)": Candidate((16, 32, 48, 64), _separable),
    "decoder to 1/4 (16, 24, 32, 48)": Candidate((16, 24, 32, 48), half=False),
    "decoder to 1/4, separable (16, 32, 48, 64)": Candidate((16, 32, 48, 64), _separable, half=False),
}


def onnx_bytes(net: nn.Module) -> bytes:
    """The network exported as training exports the shipped one (its legacy exporter's deprecation note hidden)."""
    net.eval()
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = Path(folder) / "candidate.onnx"
        export(net, out, {})
        return out.read_bytes()


def timed(model: bytes, image: np.ndarray, repeat: int) -> tuple[float, float]:
    """Median and fastest CPU ms of one run, one thread, the detector's session options."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: image}
    for _ in range(3):
        session.run(None, feed)
    runs = []
    for _ in range(repeat):
        t = time.process_time()
        session.run(None, feed)
        runs.append(1000 * (time.process_time() - t))
    return statistics.median(runs), min(runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="448x336", help="input width x height (default: 448x336)")
    ap.add_argument("--repeat", type=int, default=25)
    args = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        ap.error(f"--size {args.size!r}: give WIDTHxHEIGHT, e.g. 448x336")
    torch.manual_seed(0)
    image = np.random.default_rng(0).random((1, 3, h, w), dtype=np.float32)
    shipped = (resources.files("tantrix_pi.vision") / "models" / MODEL).read_bytes()
    print(f"# tile network shapes, {w}x{h} input, onnxruntime {onnxruntime.__version__} on one thread, CPU ms\n")
    print("| network | parameters | median ms | fastest ms |\n|---|---|---|---|")
    median, fastest = timed(shipped, image, args.repeat)
    print(f"| the shipped file ({MODEL}) | - | {median:.1f} | {fastest:.1f} |")
    for name, net in CANDIDATES.items():
        median, fastest = timed(onnx_bytes(net), image, args.repeat)
        print(f"| {name} | {sum(p.numel() for p in net.parameters())} | {median:.1f} | {fastest:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
