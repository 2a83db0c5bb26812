"""Store what the shipped network says about one fixed picture, for the test that the model file loads and
behaves as trained: `python -m tantrix_pi.vision.training.reference` (run after shipping a new model).

The picture is a simulator photo (written beside the outputs, so the test does not depend on the simulator
staying the same).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tantrix_pi.simulator import random_board, render
from tantrix_pi.vision.network import TileNetwork

REFERENCE = Path(__file__).resolve().parents[2] / "tests" / "data" / "tilenet-reference"


def picture() -> np.ndarray:
    board = random_board(np.random.default_rng(5), 7)
    image, _ = render(board, seed=5, size=(320, 240), tile_px=48.0, yaw_deg=20.0, table="dark_wood", light_k=3500)
    return image


def main() -> int:
    image = picture()
    out = TileNetwork().run(image)
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(REFERENCE.with_suffix(".png")), image)
    np.save(REFERENCE.with_suffix(".npy"), out.astype(np.float16))
    print(f"{REFERENCE}.png/.npy: outputs {out.shape}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
