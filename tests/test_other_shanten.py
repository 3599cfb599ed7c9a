"""Another's win by our own shanten (``regressors.other_shanten``): the table on rows with known
rates, on real games, and the command's bad input."""
from __future__ import annotations

import json

import numpy as np
import pytest

from regressors.datasets import END_KINDS, build_dataset
from regressors.estimators import Estimators
from regressors.hazard import HazardModel, first_intervals
from regressors.other_shanten import BANDS, CLASSES, by_shanten, format_table, main
from regressors.ron_wall import band_of
from test_hazard import PHOENIX, _first_interval_rows


def _rows(rates: dict[int, float], n: int, seed: int = 0, tiles_left: int = 40) -> tuple[dict, np.ndarray]:
    """``n`` rows per shanten class, each seeing another's win in its first interval at its
    class's rate; the same table features, so the hazard predicts one rate for all."""
    rng = np.random.default_rng(seed)
    sh = np.repeat(list(rates), n)
    won = np.concatenate([rng.random(n) < r for r in rates.values()])
    arr = _first_interval_rows(sh, won)
    arr["dec_ctx"][:, 0] = tiles_left
    return arr, np.full((len(sh), 3), 0.1)


def test_the_ratios_split_the_bands_wins_by_the_seats_shanten():
    """Tenpai rows see another's win at 4 %, 1-shanten at 8 %, 2-shanten at 12 %: the ratios
    stand about 1 : 2 : 3 around the band's level (the row-weighted mean of the observed over
    the predicted is the band's), whatever the hazard predicts; the other bands hold nothing (1)."""
    hz = Estimators.default().hazard
    arr, pt = _rows({0: 0.04, 1: 0.08, 2: 0.12}, 6000)
    d = by_shanten(hz, arr, pt)
    b = int(band_of(40))
    r = np.asarray(d["ratio"])
    assert r.shape == (len(BANDS), len(CLASSES))
    assert r[b, 1] / r[b, 0] == pytest.approx(2.0, rel=0.2)
    assert r[b, 2] / r[b, 0] == pytest.approx(3.0, rel=0.2)
    assert r[b, 0] < 1.0 < r[b, 2]
    assert d["observed"][b][:3] == [int(x) for x in np.bincount(arr["dec_ctx"][:, 4].astype(int),
                                                                weights=arr["dec_end_kind"] == END_KINDS.index("other_win"))]
    e = np.asarray(d["expected"])[b, :3]
    np.testing.assert_allclose(np.asarray(d["observed"])[b, :3] / e / d["band_level"][b], r[b, :3], rtol=0.01)
    others = [i for i in range(len(BANDS)) if i != b]
    np.testing.assert_allclose(r[others], 1.0)
    # a hazard twice as high moves the band's level, not the ratios between the hands
    r2 = np.asarray(by_shanten(_scaled(hz, 2.0), arr, pt)["ratio"])
    np.testing.assert_allclose(r2[b], r[b], rtol=0.02)


def _scaled(hz: HazardModel, k: float):
    """An object whose ``p_other_rows`` is ``k`` times ``hz``'s (all that the table reads)."""
    class Scaled:
        def p_other_rows(self, X):
            return k * hz.p_other_rows(X)
    return Scaled()


def test_rows_in_riichi_and_rows_dealt_in_at_once_do_not_count():
    hz = Estimators.default().hazard
    arr, pt = _rows({0: 0.04, 1: 0.08}, 3000)
    base = by_shanten(hz, arr, pt)
    more, pt2 = _rows({0: 0.5, 1: 0.5}, 500, seed=1)
    both = {k: np.concatenate([arr[k], more[k]]) for k in arr}
    both["dec_ctx"][len(pt):, 3] = 1  # the seat in riichi
    assert by_shanten(hz, both, np.vstack([pt, pt2]))["ratio"] == base["ratio"]
    dealt = {k: np.concatenate([arr[k], more[k]]) for k in arr}
    dealt["dec_t_left"][len(pt):] = 1
    dealt["dec_end_kind"][len(pt):] = END_KINDS.index("deal_in")
    assert by_shanten(hz, dealt, np.vstack([pt, pt2]))["ratio"] == base["ratio"]


@pytest.fixture(scope="module")
def phoenix_rows() -> dict:
    return build_dataset(PHOENIX[:14]).arrays


def test_on_real_games_the_cells_count_every_first_interval(phoenix_rows):
    """The phoenix games: the cells' counts add up to the first intervals of the seats not in
    riichi, their observed wins to those rows' other wins, the band levels to observed over
    predicted; the table prints a row per band."""
    arr = phoenix_rows
    est = Estimators.default()
    pt = est.tenpai.predict_rows(arr)
    d = by_shanten(est.hazard, arr, pt)
    o, e, ctx, _ = first_intervals(est.hazard, arr, pt)
    band = band_of(ctx[:, 0])
    assert int(np.sum(d["rows"])) == len(o) > 1000
    assert int(np.sum(d["observed"])) == int(o.sum()) > 20
    for b in range(len(BANDS)):
        m = band == b
        assert d["band_level"][b] == pytest.approx((o[m].sum() + 0.5) / (e[m].sum() + 0.5), abs=1e-4)
    assert format_table(d).count("\n| ") == len(BANDS)


def test_the_command_exits_2_on_a_bad_hazard_file(tmp_path, capsys):
    bad = tmp_path / "hazard.json"
    bad.write_text(json.dumps({"kind": "hazard", "format_version": 1}))
    assert main(["--records", str(tmp_path / "none*.mjson.gz"), "--hazard", str(bad)]) == 2
    assert "hazard.json" in capsys.readouterr().err
