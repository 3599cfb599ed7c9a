"""The other-win hazard refitted on records (regressors/hazard_refit.py), on real phoenix games."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from regressors.datasets import build_dataset
from regressors.estimators import DEFAULT_DIR, Estimators
from regressors.hazard import HAZARD_FEATURES, HAZARD_FEATURES_RIICHI, HazardModel
from regressors.hazard_refit import by_riichi_and_wall, fit_other, interval_rows, main

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))[:4]


@pytest.fixture(scope="module")
def rows():
    arr = build_dataset(PHOENIX).arrays
    return interval_rows(arr, Estimators.default().tenpai.predict_rows(arr)), arr


def test_the_refit_predicts_as_many_wins_as_its_records_hold(rows):
    """A logistic regression with an intercept matches its training labels' sum (its score
    equation), so the refit's predicted other wins over its own rows are the observed ones,
    in total; the records' other wins are the hands another player won."""
    (X, y, _, game), arr = rows
    from regressors.datasets import END_KINDS

    assert y.sum() == np.sum(arr["dec_end_kind"] == END_KINDS.index("other_win"))
    p = fit_other(X, y).predict_proba(X)
    assert abs(p.sum() - y.sum()) < 0.02 * y.sum()
    cells = by_riichi_and_wall(X, y, p)
    assert set(cells) == {"no riichi", "riichi"} and all(len(c) == 5 for c in cells.values())
    assert len(np.unique(game)) == len(PHOENIX)


def test_write_replaces_the_other_win_regression_and_keeps_the_rest(tmp_path, capsys):
    target = tmp_path / "hazard.json"
    shutil.copy(DEFAULT_DIR / "hazard.json", target)
    assert main(["--records", *PHOENIX, "--folds", "2", "--write", str(target), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["games"] == len(PHOENIX)
    assert set(res["held_out"]) == {"file", "refit"}
    new, old = HazardModel.load(target), HazardModel.load(DEFAULT_DIR / "hazard.json")
    assert new.other.feature_names == HAZARD_FEATURES
    assert (new.ron_scale, new.share_slope, new.ron_share_by, new.discards, new.ron_wall) == \
        (old.ron_scale, old.share_slope, old.ron_share_by, old.discards, old.ron_wall)
    args = (30, np.array([1.0, 0.2, 0.1]), np.array([True, False, False]), np.array([False, False, True]))
    assert np.abs(new.p_other(*args, np.arange(1, 8), False, 1) - old.p_other(*args, np.arange(1, 8), False, 1)).max() > 1e-3


def test_bad_input_exits_2_and_leaves_the_file(tmp_path, capsys):
    missing = tmp_path / "none.json"
    assert main(["--records", PHOENIX[0], "--write", str(missing)]) == 2
    assert "model file is missing" in capsys.readouterr().err and not missing.exists()
    other_kind = tmp_path / "tenpai.json"
    shutil.copy(DEFAULT_DIR / "tenpai.json", other_kind)
    before = other_kind.read_bytes()
    assert main(["--records", PHOENIX[0], "--write", str(other_kind)]) == 2
    assert other_kind.read_bytes() == before
    with pytest.raises(SystemExit) as exc:
        main(["--records", PHOENIX[0], "--folds", "1"])
    assert exc.value.code == 2


@pytest.mark.parametrize("name,features", [("hazard_s51.json", HAZARD_FEATURES_RIICHI),
                                           ("hazard_s52.json", HAZARD_FEATURES_RIICHI),
                                           ("hazard_s54.json", HAZARD_FEATURES)])
def test_the_shipped_refits_differ_from_the_shipped_hazard_in_the_refitted_fields_only(name, features):
    """``hazard_s51.json``, ``hazard_s52.json`` and ``hazard_s54.json`` are ``hazard.json`` with
    the other-win regression (the features of their day) and the abortive rate refitted, every
    other field the same (the commands in regressors/README.md); they load, and predict
    otherwise than the file; only the last reads our own hand, most at 1 shanten late at a
    calm table, where it sees another's win more often than at 2 shanten."""
    base = json.loads((DEFAULT_DIR / "hazard.json").read_text())
    refit = json.loads((DEFAULT_DIR / name).read_text())
    assert refit.keys() == base.keys()
    assert {k for k in base if refit[k] != base[k]} == {"other", "p_abort"}
    assert refit["other"]["features"] == list(features)
    a, b = HazardModel.load(DEFAULT_DIR / "hazard.json"), HazardModel.load(DEFAULT_DIR / name)
    q = np.arange(1, 12)
    pt, riichi, open_ = np.array([0.9, 0.2, 0.1]), np.array([True, False, False]), np.zeros(3, bool)
    assert np.abs(a.p_other(40, pt, riichi, open_, q, False, 1) - b.p_other(40, pt, riichi, open_, q, False, 1)).max() > 1e-3
    calm = (10, np.array([0.4, 0.3, 0.2]), np.zeros(3, bool), open_, np.arange(1, 4), False)
    gap = b.p_other(*calm, 1) - b.p_other(*calm, 2)
    assert (gap > 0.005).all() if features == HAZARD_FEATURES else not gap.any()
