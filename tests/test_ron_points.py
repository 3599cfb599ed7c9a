"""A win's worth by ron and by tsumo (regressors/ron_points.py) and its place in a hazard file.

Oracle: the phoenix records read here event by event, without the dataset: each win's points
from Tenhou's own deltas (a ron: what the discarder paid; a tsumo: what the winner gained,
less the riichi sticks and the honba), the winner's riichi and calls followed by hand.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from game.errors import ModelFileError
from game.records import read_events
from regressors import ron_points
from regressors.datasets import build_dataset
from regressors.hazard import HazardModel

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))
SHIPPED = Path(__file__).resolve().parents[1] / "regressors" / "models" / "hazard.json"


def _wins(files: list[str]) -> list[tuple[int, bool, float]]:
    """(class, tsumo, points with a dealer's at 2/3) of every win of the records."""
    out = []
    for path in files:
        riichi, opened, honba, sticks, oya = set(), set(), 0, 0, 0
        for e in read_events(path):
            t = e["type"]
            if t == "start_kyoku":
                riichi, opened = set(), set()
                honba, sticks, oya = e.get("honba", 0), e.get("kyotaku", 0), e["oya"]
            elif t == "reach_accepted":
                riichi.add(e["actor"])
                sticks += 1
            elif t in ("chi", "pon", "daiminkan"):
                opened.add(e["actor"])
            elif t == "hora":
                j, target = e["actor"], e.get("target", e["actor"])
                paid = e["deltas"][j] - 1000 * sticks if target == j else -e["deltas"][target]
                pts = paid - 300 * honba
                sticks = 0  # a second ron of the hand takes no sticks
                if pts > 0:
                    cls = ron_points.class_of(j in riichi, j in opened)
                    out.append((cls, target == j, pts * (2 / 3 if j == oya else 1.0)))
    return out


@pytest.fixture(scope="module")
def phoenix():
    files = PHOENIX[:14]
    return files, build_dataset(files, progress=False)


def test_factors_are_the_records_rons_and_tsumo_over_their_class_mean(phoenix):
    files, ds = phoenix
    wins = _wins(files)
    d = ron_points.fit(ds.arrays)
    assert d["classes"] == list(ron_points.CLASSES)
    for c in range(len(ron_points.CLASSES)):
        pts = np.array([p for k, _, p in wins if k == c])
        tsumo = np.array([t for k, t, _ in wins if k == c], dtype=bool)
        assert (d["rons"][c], d["tsumos"][c]) == (int((~tsumo).sum()), int(tsumo.sum()))
        if min(d["rons"][c], d["tsumos"][c]) < 5:  # too few: the model's mean either way
            assert d["ron"][c] == d["tsumo"][c] == 1.0
            continue
        assert d["ron"][c] == pytest.approx(pts[~tsumo].mean() / pts.mean(), abs=1e-4)
        assert d["tsumo"][c] == pytest.approx(pts[tsumo].mean() / pts.mean(), abs=1e-4)
    riichi = ron_points.CLASSES.index("riichi")
    assert d["rons"][riichi] >= 5 and d["ron"][riichi] < 1.0 < d["tsumo"][riichi]


def test_factors_by_winner_and_the_hazard_file(tmp_path):
    shipped = HazardModel.load(SHIPPED)
    d = shipped.ron_points
    assert d is not None and d["ron"][0] < 1.0 < d["tsumo"][0]
    ron, tsumo = ron_points.factors(d, [True, False, False, True], [False, False, True, False])
    np.testing.assert_array_equal(ron, [d["ron"][0], d["ron"][1], d["ron"][2], d["ron"][0]])
    np.testing.assert_array_equal(tsumo, [d["tsumo"][0], d["tsumo"][1], d["tsumo"][2], d["tsumo"][0]])
    path = tmp_path / "hazard.json"
    shipped.save(path)
    assert HazardModel.load(path).ron_points == d
    raw = json.loads(path.read_text())
    raw["ron_points"]["ron"] = [0.9, 1.0]
    path.write_text(json.dumps(raw))
    with pytest.raises(ModelFileError, match=str(path)):
        HazardModel.load(path)
    with pytest.raises(ValueError, match="other classes"):
        ron_points.check({**d, "classes": ["open", "dama", "riichi"]}, "here")


def test_command_writes_the_fit_into_a_hazard_file(tmp_path, capsys):
    path = tmp_path / "hazard.json"
    model = HazardModel.load(SHIPPED)
    model.ron_points = None
    model.save(path)
    assert ron_points.main(["--records", *PHOENIX[:3], "--write", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert HazardModel.load(path).ron_points == printed
    assert ron_points.main(["--records", str(tmp_path / "none*.xml")]) == 2
