"""Training the tile network (`tantrix_pi.vision.network`): scenes with exact truth, label maps, the torch
model and its export to the ONNX file the detector ships.

`labels` and `scenes` need only numpy and OpenCV; `model` and `train` need the `train` extra (torch).
Reproducible: `python -m tantrix_pi.vision.training.train` with the command and seeds in
docs/model-card.md.
"""
