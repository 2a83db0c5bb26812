"""The tile network: a small convolutional net (trained by `vision/training`) that marks, on a copy of the
photo, every tile's top face, the outline of each tile, and each tile's centre.

It runs through onnxruntime (arm64 wheels for the Pi). Its input is a BGR image of any size (padded to a
multiple of `MULTIPLE`); its output maps, at half that resolution (`STRIDE`), are:

| channel | holds |
|---|---|
| `FACE` | logit: this pixel is the top face of a tile (face up or face down) |
| `BOUNDARY` | logit: this pixel is on the outline of a tile's top face, also between touching tiles |
| `CENTRE` | logit of a heat map peaking at each tile's centre |
| `SIZE` | log(tile width across flats, in input pixels / `SIZE_REF`), meaningful on tile faces |
| `COVER` | logit: something lies over the table here that is not a tile (a hand, an arm, a cup) |

These definitions are shared by the runtime and the training code: change them only with a new model.

OpenCV's dnn module ran it until it crashed the process (SIGSEGV) on a 16 px high strip after a square
input, and gave garbage (widths of 10^7 px) on some shapes after others: it does not reshape a network
safely. onnxruntime takes every input shape as it comes, and is about a quarter faster here.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from importlib import resources

import cv2
import numpy as np
import onnxruntime

STRIDE = 2
MULTIPLE = 16
SIZE_REF = 32.0
SIZE_CODES = (math.log(1.0 / SIZE_REF), math.log(4000.0 / SIZE_REF))
"""The `SIZE` channel is clipped to widths of 1 to 4000 input pixels: on inputs unlike any photo a net may say
anything, and a width must stay a number."""
FACE, BOUNDARY, CENTRE, SIZE, COVER = range(5)
CHANNELS = 5
WHOLE = 640 * 480
"""Inputs up to this many pixels run whole (the coarse pass of every photo, the fine pass of most boards)..."""
PIECE, MARGIN = 384, 64
"""... bigger ones in pieces this wide, each seen with this much around it: more than the net looks at to mark
a pixel (multiples of `MULTIPLE`, so that every piece lines up with the whole input's maps)."""
MODEL = "tiles.onnx"
"""The shipped model, in the package's `models/` folder (its card: docs/model-card.md)."""


def blob(bgr: np.ndarray) -> np.ndarray:
    """The network input (1, 3, H, W) float32 for a BGR uint8 image: values centred on 0, spread about 2."""
    x = np.empty((1, 3, *bgr.shape[:2]), np.float32)
    np.multiply(bgr.transpose(2, 0, 1), np.float32(4.0 / 255.0), out=x[0], dtype=np.float32)
    x -= np.float32(2.0)
    return x


def size_code(flats_px: float) -> float:
    """What the `SIZE` channel holds for a tile `flats_px` wide in the network's input."""
    return math.log(flats_px / SIZE_REF)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 + 0.5 * np.tanh(0.5 * x)  # 1 / (1 + exp(-x)), without overflowing on a large logit


@dataclass(frozen=True)
class Maps:
    """The network's reading of one copy of (part of) the photo, as probabilities.

    A map pixel (u, v) looks at the photo point `to_photo((u, v))`: the copy was taken from the photo's
    `origin` (x, y) scaled by `scale` (x and y: the copy's sides are whole pixels).
    """

    face: np.ndarray
    boundary: np.ndarray
    centre: np.ndarray
    size: np.ndarray
    cover: np.ndarray
    scale: tuple[float, float]
    origin: tuple[float, float]

    def to_photo(self, pts: np.ndarray) -> np.ndarray:
        """Map pixels (N x 2) to full-resolution photo pixels."""
        p = np.asarray(pts, dtype=np.float64) * STRIDE + (STRIDE - 1) / 2.0  # the input pixel they stand for
        return (p + 0.5) / np.asarray(self.scale) - 0.5 + np.asarray(self.origin)

    def to_map(self, pts: np.ndarray) -> np.ndarray:
        """Full-resolution photo pixels (N x 2) to map pixels."""
        p = (np.asarray(pts, dtype=np.float64) - np.asarray(self.origin) + 0.5) * np.asarray(self.scale) - 0.5
        return (p - (STRIDE - 1) / 2.0) / STRIDE

    def width_at(self, u: float, v: float) -> float:
        """The tile width across flats (photo pixels) the network sees at map pixel (u, v)."""
        h, w = self.size.shape
        iu, iv = min(max(int(round(u)), 0), w - 1), min(max(int(round(v)), 0), h - 1)
        return math.exp(float(self.size[iv, iu])) * SIZE_REF / self.scale[0]


class TileNetwork:
    """The shipped tile network (or one at `path`), run by onnxruntime on copies of a photo.

    It uses as many threads as OpenCV is set to (`cv2.setNumThreads`: the benches' one core, all of a Pi's
    four in the referee)."""

    def __init__(self, path: str | None = None) -> None:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, cv2.getNumThreads())
        options.inter_op_num_threads = 1
        # idle threads sleep, not spin: spinning burnt 45 % more CPU a photo for no lower median, taking it from
        # the live loop's other work (the page, the voice) and from anything else on the machine
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # no memory plan per input shape: each plan keeps its own block (over the shapes of a game's coarse copies,
        # regions and pieces the network's memory grew to 159 MB with them, 130 without); the arena's reuse is as fast
        options.enable_mem_pattern = False
        options.log_severity_level = 3  # its warnings are about graph rewrites, not about the photo
        if path is None:
            with resources.as_file(resources.files("tantrix_pi.vision") / "models" / MODEL) as p:
                model = p.read_bytes()
        else:
            with open(path, "rb") as f:
                model = f.read()
        self.session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def run(self, bgr: np.ndarray) -> np.ndarray:
        """Raw output (CHANNELS, h / STRIDE, w / STRIDE) for a BGR image of any size.

        A big input runs in square pieces with `MARGIN` pixels of their surroundings, so that the memory the
        net needs stays that of one piece (a small board in a 64 MP photo is read at several hundred
        megapixels' worth of feature maps otherwise)."""
        h, w = bgr.shape[:2]
        if h * w <= WHOLE:
            return self._run(bgr)
        out = np.empty((CHANNELS, h // STRIDE, w // STRIDE), np.float32)
        for y in range(0, h, PIECE):
            for x in range(0, w, PIECE):
                y0, x0 = max(0, y - MARGIN), max(0, x - MARGIN)
                part = self._run(bgr[y0:min(h, y + PIECE + MARGIN), x0:min(w, x + PIECE + MARGIN)])
                rows = (min(h, y + PIECE) - y) // STRIDE
                cols = (min(w, x + PIECE) - x) // STRIDE
                top, left = (y - y0) // STRIDE, (x - x0) // STRIDE
                out[:, y // STRIDE:y // STRIDE + rows, x // STRIDE:x // STRIDE + cols] = \
                    part[:, top:top + rows, left:left + cols]
        return out

    def _run(self, bgr: np.ndarray) -> np.ndarray:
        h, w = bgr.shape[:2]
        hh, ww = -(-h // MULTIPLE) * MULTIPLE, -(-w // MULTIPLE) * MULTIPLE
        if (hh, ww) != (h, w):
            bgr = cv2.copyMakeBorder(bgr, 0, hh - h, 0, ww - w, cv2.BORDER_REPLICATE)
        return self.session.run(None, {self.input: blob(bgr)})[0][0][:, : h // STRIDE, : w // STRIDE]

    def maps(self, photo: np.ndarray, scale: float, box: tuple[int, int, int, int] | None = None) -> Maps:
        """The maps of the photo's `box` (x0, y0, x1, y1; default: all of it) scaled by `scale`."""
        x0, y0, x1, y1 = box if box is not None else (0, 0, photo.shape[1], photo.shape[0])
        part = photo[y0:y1, x0:x1]
        size = (max(MULTIPLE, round((x1 - x0) * scale)), max(MULTIPLE, round((y1 - y0) * scale)))
        copy = cv2.resize(part, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        out = self.run(copy)
        actual = (copy.shape[1] / part.shape[1], copy.shape[0] / part.shape[0])
        return Maps(sigmoid(out[FACE]), sigmoid(out[BOUNDARY]), sigmoid(out[CENTRE]),
                    np.clip(out[SIZE], *SIZE_CODES), sigmoid(out[COVER]), actual, (float(x0), float(y0)))


_local = threading.local()


def shipped() -> TileNetwork:
    """The shipped network, loaded once per thread (the web page checks photos while the referee watches the
    table: each runs its own session, neither waits for the other)."""
    net = getattr(_local, "network", None)
    if net is None:
        net = _local.network = TileNetwork()
    return net
