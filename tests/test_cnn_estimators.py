"""Tests of the CNN estimators: planes, a few training steps, save/load, batched inference."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from game.errors import ModelFileError, RecordError
from regressors.datasets import read_record
from regressors.replay import FullReplay

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PHOENIX = sorted((DATA / "phoenix" / "mjlog").glob("mjx__*.xml"))


@pytest.fixture(scope="module")
def planes():
    from cnn.estimator_planes import build_planes

    return build_planes(PHOENIX[:2])


def test_planes_agree_with_the_replay():
    from cnn.estimator_planes import N_PLANES, encode

    events = read_record(PHOENIX[0])
    rep = FullReplay()
    checked = 0
    for idx, e in enumerate(events):
        if e["type"] == "dahai":
            i = int(e["actor"])
            x = encode(rep.view(i))
            assert x.shape == (N_PLANES, 34)
            # thermometer hand planes give back the concealed counts
            np.testing.assert_array_equal(x[0:4].sum(0), rep.hands[i])
            # unseen + own hand + every visible copy = 4 per kind
            visible = rep.public + rep.hands[i]
            np.testing.assert_array_equal(x[40].astype(int) + visible, 4)
            # discards plane of each relative seat = that seat's pond
            for r in range(4):
                s = (i + r) % 4
                pond = np.bincount([d.kind for d in rep.discards[s]], minlength=34)
                np.testing.assert_array_equal(x[4 + 9 * r], pond)
                assert x[4 + 9 * r + 5, 0] == rep.riichi[s]
            checked += 1
        rep.update(e, idx)
    assert checked > 100


def test_labels_and_rows_match_the_lr_dataset(planes):
    from regressors.datasets import build_dataset

    ds = build_dataset(PHOENIX[:2])
    np.testing.assert_array_equal(planes["tile"], ds["dec_tile"])
    np.testing.assert_array_equal(planes["tenpai"], ds["dec_tenpai"])
    np.testing.assert_array_equal(planes["ronned"], ds["dec_ronned"])
    rows = np.arange(len(planes["tile"]))
    np.testing.assert_array_equal(planes["ron"][rows, :, planes["tile"].astype(int)], ds["dec_ronnable_t"])


def test_a_few_training_steps_lower_the_loss_and_round_trip(planes, tmp_path):
    import torch

    from cnn.estimators import CnnEstimators
    from cnn.train_estimators import train

    def loss(est):
        pt, pr = est.predict_planes(planes["planes"][:512])
        y = planes["ron"][:512]
        p = np.clip(pr, 1e-6, 1 - 1e-6)
        return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))

    before = loss(train(planes, max_steps=0, channels=16, blocks=1, progress=False))
    est = train(planes, epochs=1, max_steps=30, channels=16, blocks=1, progress=False)
    assert loss(est) < before
    path = est.save(tmp_path / "e.pt")
    back = CnnEstimators.load(path)
    a = est.predict_planes(planes["planes"][:64])
    b = back.predict_planes(planes["planes"][:64])
    np.testing.assert_allclose(a[1], b[1], atol=1e-6)
    # batched views: shapes, ranges, own seat zero, riichi seats tenpai
    events = read_record(PHOENIX[1])
    rep = FullReplay()
    views = []
    for idx, e in enumerate(events):
        if e["type"] == "dahai" and len(views) < 8:
            views.append(rep.view(int(e["actor"])))  # shares the replay's lists: still a table
        rep.update(e, idx)
    out = back.predict(views)
    assert out["p_lose"].shape == (8, 34) and out["p_tenpai"].shape == (8, 4)
    for b, v in enumerate(views):
        assert out["p_tenpai"][b, v.seat] == 0 and not out["p_ron"][b, v.seat].any()
    assert ((out["p_lose"] >= 0) & (out["p_lose"] <= 1)).all()
    del torch


def test_missing_or_mismatched_weights_raise_model_file_error(tmp_path, planes):
    from cnn.estimators import CnnEstimators
    from cnn.train_estimators import train

    with pytest.raises(ModelFileError, match="nothing.json|nothing.pt"):
        CnnEstimators.load(tmp_path / "nothing.pt")
    est = train(planes, max_steps=1, channels=16, blocks=1, progress=False)
    path = est.save(tmp_path / "e.pt")
    path.with_suffix(".json").write_text('{"format": "cnn-estimators-1", "channels": 32, "blocks": 1}')
    with pytest.raises(ModelFileError, match="e.pt"):
        CnnEstimators.load(path)


def test_shipped_cnn_weights_load():
    from cnn.estimators import DEFAULT_PATH, CnnEstimators

    est = CnnEstimators.default()
    assert DEFAULT_PATH.exists()
    pt, pr = est.predict_planes(np.zeros((2, 45, 34), np.uint8))
    assert pt.shape == (2, 3) and pr.shape == (2, 3, 34)


def test_cli_exit_status_on_bad_records(tmp_path, capsys):
    from cnn.estimator_planes import build_planes
    from cnn.train_estimators import main

    assert main(["--records", str(tmp_path / "none*.json"), "--out", str(tmp_path)]) == 2
    empty = tmp_path / "empty.mjson"
    empty.write_text("")
    with pytest.raises(RecordError):
        build_planes([empty])
    assert "empty.mjson" in (main(["--records", str(empty), "--out", str(tmp_path)]) == 2
                             and capsys.readouterr().err)
