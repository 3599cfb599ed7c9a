"""The opponents' discard weights (regressors/discards.py) and their place in a hazard file.

Oracles: the phoenix records replayed here seat by seat (each discard's tile class against its
discarder's unseen tiles, counted without the dataset), and small cases worked by hand.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from game.errors import ModelFileError
from game.records import read_events
from game.state import TableState
from game.tiles import mjai_to_kind
from abstractions.params import MDPParams
from regressors import discards
from regressors.datasets import build_dataset
from regressors.hazard import HazardModel

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))
SHIPPED = Path(__file__).resolve().parents[1] / "regressors" / "models" / "hazard.json"


def _replayed_counts(files: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(bands, classes) discards seen and expected at random, each discard read from the
    events with its discarder's view just before it."""
    seen = np.zeros((len(discards.BANDS), len(discards.CLASSES)))
    expected = np.zeros_like(seen)
    for path in files:
        views = [TableState(s) for s in range(4)]
        for e in read_events(path):
            if e.get("type") == "dahai":
                v = views[e["actor"]]
                unseen = np.asarray(v.unseen, dtype=np.float64)
                band = next(b for b, (lo, hi) in enumerate(discards.BANDS) if lo <= v.tiles_left <= hi)
                seen[band, discards.KIND_CLASS[mjai_to_kind(e["pai"])]] += 1
                for c in range(len(discards.CLASSES)):
                    expected[band, c] += unseen[discards.KIND_CLASS == c].sum() / unseen.sum()
            for v in views:
                v.update(e)
    return seen, expected


@pytest.fixture(scope="module")
def phoenix():
    files = PHOENIX[:4]
    return files, build_dataset(files, progress=False)


def test_weights_are_the_records_discards_over_random_picks(phoenix):
    files, ds = phoenix
    seen, expected = _replayed_counts(files)
    assert seen.sum() == len(ds.arrays["dec_tile"]) > 1000
    np.testing.assert_allclose(discards.fit_weights(ds.arrays), (seen + 0.5) / (expected + 0.5), rtol=1e-5)
    w = discards.fit_weights(ds.arrays)
    # the experts throw honours and terminals early and keep the middle tiles
    assert (w[:, discards.CLASSES.index("wind")] > 1).all() and (w[:, discards.CLASSES.index("middle")] < 1).all()


def test_kind_weights_average_the_bands_over_the_horizon_and_weigh_the_pool():
    w = np.arange(1.0, 1.0 + len(discards.BANDS) * len(discards.CLASSES)).reshape(len(discards.BANDS), -1)
    east, five_man = mjai_to_kind("E"), mjai_to_kind("5m")
    one = discards.kind_weights(w, 66, 1)
    assert one[east] == w[0, 3] and one[five_man] == w[0, 2]
    # 62, 58, 54, 50, 46 tiles left: bands 60-70 once, 50-59 three times, 40-49 once
    five = discards.kind_weights(w, 62, 5)
    assert five[east] == pytest.approx((w[0, 3] + 3 * w[1, 3] + w[2, 3]) / 5)
    unseen = np.zeros(34)
    unseen[[east, five_man, mjai_to_kind("6m")]] = [2, 4, 2]
    p = MDPParams(T=1, disc_weight=one).checked(unseen).p_disc  # PSM's discards: the pool times the weights
    assert p.sum() == pytest.approx(1.0) and p[mjai_to_kind("1m")] == 0.0
    assert p[five_man] / p[mjai_to_kind("6m")] == pytest.approx(2.0)   # one class: as the unseen copies
    assert p[east] / p[mjai_to_kind("6m")] == pytest.approx(w[0, 3] / w[0, 2])


def test_ron_factor_of_a_middle_wait_worked_by_hand():
    """One closed tenpai hand waiting on 5m, every kind one unseen copy; middle tiles weigh 0.5,
    the rest 1: at random 1/34 of the discards are its wait, by weight 0.5 / 26.5."""
    w = np.ones((len(discards.BANDS), len(discards.CLASSES)))
    w[:, discards.CLASSES.index("middle")] = 0.5
    y = np.zeros((2, 34), bool)
    y[:, mjai_to_kind("5m")] = True
    arr = {"wait_unseen": np.ones((2, 34)), "wait_y": y, "wait_riichi": np.array([False, True]),
           "dec_ctx": np.array([[66, 0, 0, 0, 1]], np.float32)}
    free, riichi = discards.ron_factors(arr, w)
    assert free == pytest.approx((1 / 34) / (0.5 / 26.5)) and riichi == pytest.approx(free)


def test_a_hazard_file_keeps_its_discards_and_rejects_bad_ones(tmp_path):
    shipped = HazardModel.load(SHIPPED)
    assert shipped.discards is not None  # the player's option reads them
    path = shipped.save(tmp_path / "hazard.json")
    back = HazardModel.load(path)
    assert back.discards == shipped.discards
    d = json.loads(path.read_text())
    d["discards"]["weights"] = d["discards"]["weights"][:-1]
    path.write_text(json.dumps(d))
    with pytest.raises(ModelFileError, match="discard weights"):
        HazardModel.load(path)
    del d["discards"]
    path.write_text(json.dumps(d))
    assert HazardModel.load(path).discards is None  # a file fitted before them still loads


def test_command_writes_the_fit_into_a_hazard_file(tmp_path, capsys):
    target = tmp_path / "hazard.json"
    target.write_text(SHIPPED.read_text())
    d = json.loads(target.read_text())
    del d["discards"]
    target.write_text(json.dumps(d))
    assert discards.main(["--records", *PHOENIX[:2], "--write", str(target), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert HazardModel.load(target).discards == printed
    assert discards.main(["--records", str(tmp_path / "none*.xml")]) == 2
