"""What the tile network is trained on: label maps that say where each tile is, crops whose labels move
with them, real cut-outs turned into sprites; and (with the `train` extra) a training run end to end."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import re

import cv2
import numpy as np
import pytest

from tantrix_pi.vision.hexagon import Hexagon
from tantrix_pi.vision.network import STRIDE, size_code
from tantrix_pi.vision.training import labels, scenes


def test_label_maps_mark_a_tile_face_its_outline_centre_and_width():
    hx = Hexagon.regular((101.0, 77.0), 20.0, 13.0)
    face, outline, heat, width = labels.label_maps([hx.corners()], None, (192, 256))
    # every map pixel whose square the hexagon touches: its area and half a pixel along the edges
    r = 20.0 / STRIDE
    assert abs(face.sum() / (3 * math.sqrt(3) / 2 * r * r + 3 * r) - 1) < 0.05
    v, u = np.unravel_index(np.argmax(heat), heat.shape)
    assert heat.max() > 0.9 and math.dist((u, v), ((101.0 + 0.5) / STRIDE - 0.5, (77.0 + 0.5) / STRIDE - 0.5)) <= 1
    assert np.allclose(width[face > 0], size_code(20.0 * math.sqrt(3)))
    # the outline runs along the edges: strong at an edge midpoint, nothing at the centre
    mid = (hx.corners()[0] + hx.corners()[1]) / 2
    mu, mv = np.round((mid + 0.5) / STRIDE - 0.5).astype(int)
    assert outline[mv, mu] > 100 and outline[int(round(v)), int(round(u))] == 0


def test_a_mostly_hidden_tile_has_a_face_but_no_centre_to_find():
    hx = Hexagon.regular((64.0, 64.0), 20.0, 0.0)
    hidden = np.zeros((64, 64), np.uint8)
    hidden[:, :34] = 1  # a hand over most of it
    face, _, heat, _ = labels.label_maps([hx.corners()], hidden, (128, 128))
    assert face.sum() > 0 and heat.max() == 0


def test_crops_carry_their_labels_with_them():
    rng = np.random.default_rng(3)
    scene = scenes.simulated(rng)
    while len(scene.hexagons) < 3:
        scene = scenes.simulated(rng)
    for crop, (face, _, heat, _, cover) in labels.crops(scene.image, scene.hexagons, scene.cover, rng, 4):
        assert crop.shape == (256, 256, 3) and face.shape == heat.shape == cover.shape == (128, 128)
        # tile faces are dark: where the labels say face, the crop is darker than elsewhere
        if face.sum() > 200 and (face == 0).sum() > 200:
            grey = cv2.resize(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (128, 128), interpolation=cv2.INTER_AREA)
            assert grey[face > 0].mean() < grey[face == 0].mean()


def test_a_cut_out_sprite_is_turned_pointy_top_and_sized(tmp_path):
    # an RGBA hexagon at a known odd turn stands for a real tile photo
    rgba = np.zeros((130, 130, 4), np.uint8)
    src = Hexagon.regular((64.0, 66.0), 55.0, 17.0)
    cv2.fillPoly(rgba, [np.round(src.corners() * 16).astype(np.int32)], (40, 40, 40, 255), cv2.LINE_AA, 4)
    centre, radius, turn = scenes._fit_alpha(rgba[..., 3])
    assert math.dist(centre, (64.0, 66.0)) < 0.5 and abs(radius / 55.0 - 1) < 0.02
    assert abs((turn - 17.0 + 30) % 60 - 30) < 1.0
    cv2.imwrite(str(tmp_path / "x_tile05.png"), rgba)
    sprite = scenes.CutOutSprites(scenes.cut_outs(tmp_path))(5, True, 30.0)
    c = (sprite.shape[0] - 1) / 2
    got_centre, got_radius, got_turn = scenes._fit_alpha(sprite[..., 3])
    assert math.dist(got_centre, (c, c)) < 0.6 and abs(got_radius / 30.0 - 1) < 0.03
    assert abs((got_turn + 30) % 60 - 30) < 1.5  # pointy-top: edge normals at multiples of 60 degrees


def test_the_sets_kept_for_measuring_are_refused_to_the_training(tmp_path, capsys):
    from tantrix_pi.vision.training import shards

    wide = tmp_path / "wide"
    (wide / "images").mkdir(parents=True)
    (wide / "index.json").write_text(json.dumps({"split": "wide", "seed": 11, "images": []}))
    assert shards.main([str(tmp_path / "s.npz"), f"folder:{wide}", "3"]) == 2
    assert "seed 11 are kept for measuring" in capsys.readouterr().err and not (tmp_path / "s.npz").exists()
    (wide / "index.json").write_text(json.dumps({"split": "wide", "seed": 101, "images": []}))
    assert list(scenes.folder(wide)) == []  # another seed of the same generator is for training
    cv2.imwrite(str(wide / "images" / "wide_000.png"), np.full((96, 128, 3), 90, np.uint8))
    corners = Hexagon.regular((64.0, 48.0), 20.0, 0.0).corners().tolist()
    (wide / "images" / "wide_000.json").write_text(json.dumps({"tiles": [{"corners_px": corners}]}))
    (picture,) = json.loads(str(shards.build(f"folder:{wide}", 2, 0)["pictures"]))
    assert picture == {"id": "wide_000", "source": str((wide / "images" / "wide_000.png").resolve()),
                       "split": "wide", "seed": 101, "crops": 2,
                       "sha256": hashlib.sha256((wide / "images" / "wide_000.png").read_bytes()).hexdigest()}
    tiles = tmp_path / "tiles"
    tiles.mkdir()
    rgba = np.zeros((20, 20, 4), np.uint8)
    for name in ("session0_tile01.png", "session1_tile01.png"):
        cv2.imwrite(str(tiles / name), rgba)
    assert [p.name for p in scenes.cut_outs(tiles)] == ["session0_tile01.png"]
    (tiles / "session0_tile01.png").unlink()
    with pytest.raises(scenes.HeldOut, match="session1"):
        scenes.cut_outs(tiles)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="the train extra (torch) is not installed: pip install -e '.[train]'")
def test_a_short_training_run_exports_a_model_the_detector_can_run_and_what_it_saw(tmp_path):
    import onnx
    import torch

    from tantrix_pi.vision.network import CHANNELS, TileNetwork
    from tantrix_pi.vision.training import shards, train

    locked = tmp_path / "locked"
    (locked / "images").mkdir(parents=True)
    (locked / "index.json").write_text(json.dumps({"split": "wide", "seed": 2026, "images": []}))
    with pytest.raises(scenes.HeldOut, match="seed 2026 are kept for measuring"):
        shards.build(f"folder:{locked}", 3, 1)
    shard = tmp_path / "s.npz"
    np.savez(shard, **shards.build("simulated", 6, 1))
    out = tmp_path / "tiles.onnx"
    torch.set_num_threads(1)  # the suite's other workers share the cores: two threads beside them only wait
    train.train([shard], out, steps=3, log=lambda s: None)
    net = TileNetwork(str(out))
    assert net.run(np.zeros((64, 96, 3), np.uint8)).shape == (CHANNELS, 32, 48)

    written = tmp_path / "tiles.manifest.json"
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert meta[train.MANIFEST_KEY] == hashlib.sha256(written.read_bytes()).hexdigest()
    seen = json.loads(written.read_text())
    assert seen["steps"] == 3
    (entry,) = seen["shards"]
    assert entry["sha256"] == hashlib.sha256(shard.read_bytes()).hexdigest() and entry["crops"] == 6
    assert len(entry["pictures"]) == seen["pictures"] == 2  # 3 crops from each simulated picture
    assert all(re.fullmatch("[0-9a-f]{64}", p["sha256"]) and p["source"] == "simulated" and p["seed"] == 1
               for p in entry["pictures"])
    # the recorded hash is the picture's: drawn again from the same seed, the first picture matches
    first = scenes.simulated(np.random.default_rng(1)).image
    assert entry["pictures"][0]["sha256"] == hashlib.sha256(first.tobytes()).hexdigest()

    # a run in stages: the second records the first's manifest with the weights it started from
    again = tmp_path / "again.onnx"
    train.train([shard], again, steps=2, init=out.with_suffix(".pt"), log=lambda s: None)
    init = json.loads(again.with_suffix(".manifest.json").read_text())["init"]
    assert init["sha256"] == hashlib.sha256(out.with_suffix(".pt").read_bytes()).hexdigest()
    assert init["manifest"] == seen
    # a run imitating a teacher records the teacher's file and its training
    taught = tmp_path / "taught.onnx"
    train.train([shard], taught, steps=2, teacher=out, log=lambda s: None)
    teacher = json.loads(taught.with_suffix(".manifest.json").read_text())["teacher"]
    assert teacher["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest() and teacher["manifest"] == seen
    # weights whose run is not known are refused
    orphan = tmp_path / "orphan.pt"
    orphan.write_bytes(out.with_suffix(".pt").read_bytes())
    with pytest.raises(ValueError, match="orphan.manifest.json beside it"):
        train.train([shard], tmp_path / "x.onnx", steps=1, init=orphan, log=lambda s: None)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="the train extra (torch) is not installed: pip install -e '.[train]'")
def test_imitation_is_least_where_the_network_says_what_its_teacher_says():
    import torch

    from tantrix_pi.vision.network import CHANNELS
    from tantrix_pi.vision.training import train

    torch.manual_seed(0)
    want = torch.randn(2, CHANNELS, 8, 8) * 3
    same = train.imitation(want, want)
    off = train.imitation(want + torch.randn_like(want), want)
    assert all(same[k] < off[k] for k in same)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="the train extra (torch) is not installed: pip install -e '.[train]'")
def test_an_int8_copy_rounds_at_the_ceilings_it_was_trained_with_and_records_its_source(tmp_path, capsys):
    import onnx
    import onnxruntime
    import torch
    from onnx import numpy_helper

    from tantrix_pi.vision.network import CHANNELS, TileNetwork
    from tantrix_pi.vision.training import int8, shards, train

    shard = tmp_path / "s.npz"
    np.savez(shard, **shards.build("simulated", 6, 1))
    source = tmp_path / "tiles.onnx"
    torch.set_num_threads(1)
    train.train([shard], source, steps=3, log=lambda s: None)
    # the torch copy, unrounded, computes what the float file computes
    x = np.random.default_rng(0).uniform(-2, 2, (1, 3, 64, 96)).astype(np.float32)
    with torch.no_grad():
        mine = int8.Quantised(onnx.load(str(source)))(torch.from_numpy(x)).numpy()
    assert np.abs(mine - onnxruntime.InferenceSession(str(source)).run(None, {"image": x})[0]).max() < 1e-4

    out = tmp_path / "int8.onnx"
    int8.train(source, [shard], out, steps=2, seed=0, lr=1e-4, log=lambda s: None)
    assert TileNetwork(str(out)).run(np.zeros((64, 96, 3), np.uint8)).shape == (CHANNELS, 32, 48)
    model = onnx.load(str(out))
    arrays = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    weights = [n for n in model.graph.node if n.op_type == "DequantizeLinear" and arrays.get(n.input[0]) is not None
               and arrays[n.input[0]].dtype == np.int8]
    assert len(weights) == sum(n.op_type == "Conv" for n in model.graph.node) - 2  # not the first, not the head
    written = json.loads(out.with_suffix(".manifest.json").read_text())
    ceilings = written["ceilings"]
    rounded = {n.input[0]: float(arrays[n.input[1]]) * 255 for n in model.graph.node if n.op_type == "QuantizeLinear"}
    relu = [n.output[0] for n in onnx.load(str(source)).graph.node if n.op_type == "Relu"]
    concat = [n.output[0] for n in model.graph.node if n.op_type == "Concat"]
    assert [round(rounded[t], 3) for t in relu + concat] == pytest.approx(ceilings, abs=2e-3)

    assert written["int8_from"]["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    assert written["int8_from"]["manifest"] == json.loads(source.with_suffix(".manifest.json").read_text())
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta[train.MANIFEST_KEY] == hashlib.sha256(out.with_suffix(".manifest.json").read_bytes()).hexdigest()
    # a run in stages goes on with the same ceilings and records the first stage's run
    again = tmp_path / "again.onnx"
    int8.train(source, [shard], again, steps=1, seed=1, lr=1e-4, init=out.with_suffix(".pt"), log=lambda s: None)
    later = json.loads(again.with_suffix(".manifest.json").read_text())
    assert later["ceilings"] == ceilings and later["init"]["manifest"] == written
    # ceilings at the highest value seen are the calibration's maxima: above the default quantile's
    net = int8.Quantised(onnx.load(str(source)))
    x = torch.from_numpy(np.random.default_rng(1).uniform(-2, 2, (2, 3, 64, 64)).astype(np.float32))
    net.calibrate([x], quantile=1.0)
    seen = {}
    with torch.no_grad():
        net(x, seen)
    assert [float(c) for c in net.ceilings] == pytest.approx([float(seen[k].max()) for k in range(len(seen))])
    top = net.ceilings.clone()
    net.calibrate([x])
    assert bool((net.ceilings <= top).all())
    # a graph that is not the tile network's is refused in one line
    other = tmp_path / "other.onnx"
    graph = onnx.load(str(source))
    graph.graph.node.remove(next(n for n in graph.graph.node if n.op_type == "Conv" and n.input[0] != "image"))
    onnx.save(graph, str(other))
    capsys.readouterr()
    assert int8.main([str(other), str(tmp_path / "x.onnx"), str(shard), "--threads", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not the tile network's" in err
