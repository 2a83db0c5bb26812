"""The accuracy guard: the shared dev renders (../shared/dataset/dev, 30 photos with exact truth), whenever the
folder is there, are read exactly with not one confident misreading (docs/model-card.md measures the rest)."""

import json
from pathlib import Path

import cv2
import pytest

from tantrix_pi.vision import detect
from tantrix_pi.vision.evaluate import score

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "dataset" / "dev"


def photos():
    """(id, image path, truth) of every dev photo of a board (the calibration views carry none)."""
    if not (DEV / "index.json").exists():
        return []
    entries = json.loads((DEV / "index.json").read_text())["images"]
    found = [(e["id"], DEV / e["image"], json.loads((DEV / e["truth"]).read_text())) for e in entries]
    return [(name, image, truth) for name, image, truth in found if "board" in truth]


@pytest.mark.skipif(not photos(), reason=f"no dev dataset at {DEV} (the shared reference material)")
def test_every_dev_photo_is_read_exactly_and_nothing_confidently_wrong():
    wrong, inexact = [], []
    for name, image, truth in photos():
        s = score(detect(cv2.imread(str(image), cv2.IMREAD_COLOR)), truth)
        wrong += [f"{name}: {w}" for w in s.confident_wrong]
        if not s.exact:
            inexact.append(f"{name}: {s.turn} of {s.tiles} right, {s.extra} extra")
    assert wrong == [], wrong
    assert inexact == [], inexact
