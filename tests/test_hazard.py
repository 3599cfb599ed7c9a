"""The endings of a hand: dataset labels (regressors/datasets.py v3) and the hazard model
(regressors/hazard.py).

Oracles: Tenhou's own noten payments in the phoenix records (who was tenpai at an exhaustive
draw), the records' ``reach`` and ``hora`` events read directly, and held-out games for the
fitted model.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from game.errors import ModelFileError
from game.records import read_events
from regressors.datasets import END_KINDS, NO_REACH, build_dataset
from regressors.estimators import Estimators
from regressors.hazard import (HAZARD_FEATURES, HAZARD_FEATURES_BANDS, HAZARD_FEATURES_LINEAR_Q, HAZARD_FEATURES_RIICHI,
                               OWN_HAND_FEATURES, Q_BAND_FEATURES,
                               RIICHI_WALL_FEATURES, HazardModel, expand_intervals, hazard_features,
                               tenpai_other_ratio)

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))


@pytest.fixture(scope="module")
def phoenix():
    files = PHOENIX[:14]
    return files, build_dataset(files)


def _pt(a: dict, est: Estimators) -> np.ndarray:
    return est.tenpai.predict_rows(a)


def _kyoku_of_rows(events: list[dict]) -> list[int]:
    """The start_kyoku index of every discard (the dataset's row order, all hands known)."""
    out, start = [], -1
    for i, e in enumerate(events):
        if e["type"] == "start_kyoku":
            start = i
        elif e["type"] == "dahai":
            out.append(start)
    return out


def test_end_tenpai_equals_tenhous_noten_payments(phoenix):
    files, ds = phoenix
    a = ds.arrays
    checked = 0
    for g, path in enumerate(files):
        events = read_events(path)
        starts = _kyoku_of_rows(events)
        rows = np.flatnonzero(a["dec_game"] == g)
        assert len(rows) == len(starts)
        ends = {}
        for i, e in enumerate(events):
            if e["type"] == "start_kyoku":
                start = i
            if e["type"] == "ryukyoku" and e.get("reason") == "exhaustive":
                ends[start] = np.asarray(e["deltas"])
        for r, start in zip(rows, starts):
            d = ends.get(start)
            if d is None or not d.any():  # all tenpai or all noten: the payments cannot tell
                continue
            assert a["dec_end_kind"][r] == END_KINDS.index("exhaustive_draw")
            i = int(a["dec_actor"][r])
            want = [d[(i + k) % 4] > 0 for k in (1, 2, 3)]
            assert a["dec_end_tenpai"][r].tolist() == want
            checked += 1
    assert checked > 300


def test_end_kinds_and_reach_turns_follow_the_events(phoenix):
    files, ds = phoenix
    a = ds.arrays
    for g, path in enumerate(files[:6]):
        events = read_events(path)
        rows = np.flatnonzero(a["dec_game"] == g)
        dahai = [i for i, e in enumerate(events) if e["type"] == "dahai"]
        for r, idx in zip(rows, dahai):
            i = int(a["dec_actor"][r])
            assert events[idx]["actor"] == i
            kind = END_KINDS[a["dec_end_kind"][r]]
            if a["dec_ronned"][r]:  # this very discard was ronned
                assert kind == "deal_in" and a["dec_t_left"][r] == 1
            # the hand's terminal events, read directly
            j = idx
            while events[j]["type"] not in ("hora", "ryukyoku"):
                j += 1
            if events[j]["type"] == "hora":
                won = any(e["type"] == "hora" and e["actor"] == i for e in events[j:j + 3])
                assert (kind == "own_win") == won
            q = int(a["dec_reach_q"][r])
            declared_here = events[idx - 1]["type"] == "reach" and events[idx - 1]["actor"] == i
            assert (q == 1) == declared_here
            if q not in (0, NO_REACH):
                assert 1 <= q <= a["dec_t_left"][r]


def test_hazard_model_beats_the_base_rate_on_held_out_games(phoenix):
    files, ds = phoenix
    est = Estimators.default()
    games = ds.arrays["dec_game"].max() + 1
    train, test = ds.subset(np.arange(games) < 10), ds.subset(np.arange(games) >= 10)
    hz = HazardModel().fit(train.arrays, _pt(train.arrays, est))
    X, y, _ = expand_intervals(test.arrays, _pt(test.arrays, est))
    p = np.clip(hz.other.predict_proba(X), 1e-9, 1 - 1e-9)
    base = np.clip(np.mean(expand_intervals(train.arrays, _pt(train.arrays, est))[1]), 1e-9, 1)
    ll = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    ll0 = -np.mean(y * np.log(base) + (1 - y) * np.log(1 - base))
    assert ll < ll0 - 0.005, (ll, ll0)
    # the hazard rises from the first turns to the middle of the hand (records: ~1 % -> ~9 %)
    w = X[:, 0] * 70
    assert p[w >= 55].mean() < 0.5 * p[(w >= 15) & (w < 35)].mean()


def test_intervals_drop_a_deal_in_and_label_the_last(phoenix):
    _, ds = phoenix
    a = ds.arrays
    X, y_other, y_abort = expand_intervals(a, np.zeros((len(a["dec_tile"]), 3)))
    assert X.shape[1] == len(HAZARD_FEATURES)
    kind = a["dec_end_kind"]
    want = int(np.sum(a["dec_t_left"]) - np.sum(kind == END_KINDS.index("deal_in")))
    assert len(y_other) == want
    assert y_other.sum() == np.sum(kind == END_KINDS.index("other_win"))
    assert y_abort.sum() == np.sum(kind == END_KINDS.index("abortive_draw"))


def test_hazard_file_round_trip_and_errors(tmp_path):
    hz = Estimators.default().hazard
    path = hz.save(tmp_path / "hazard.json")
    back = HazardModel.load(path)
    q = np.arange(1, 12)
    args = (40, np.array([0.2, 0.5, 0.1]), np.array([False, True, False]), np.array([True, False, False]))
    np.testing.assert_array_equal(back.p_other(*args, q, False, 1), hz.p_other(*args, q, False, 1))
    np.testing.assert_array_equal(back.p_tenpai_end(*args), hz.p_tenpai_end(*args))
    assert (back.dama_share, back.ron_scale, back.tenpai_other, back.draw_share, back.share_slope,
            back.ron_share_by) == \
        (hz.dama_share, hz.ron_scale, hz.tenpai_other, hz.draw_share, hz.share_slope, hz.ron_share_by)
    with pytest.raises(ModelFileError):
        HazardModel.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"kind": "tenpai", "format_version": 1}')
    with pytest.raises(ModelFileError):
        HazardModel.load(tmp_path / "bad.json")


def test_q_bands_mark_each_interval():
    """By hand: intervals 1, 2, 3, 4, 5, 11, 12 and 15 of a decision with 60 tiles left (so
    60, 56, 52, 48, 44, 20, 16 and 4 tiles left then)."""
    q = np.array([1, 2, 3, 4, 5, 11, 12, 15])
    X = hazard_features(np.full(8, 60), q, np.zeros(8), np.zeros((8, 3)), np.zeros(8), np.zeros(8), np.full(8, 2))
    bands = {name: X[:, HAZARD_FEATURES.index(name)].tolist() for name in Q_BAND_FEATURES}
    assert bands["q_eq_1"] == [1, 0, 0, 0, 0, 0, 0, 0]
    assert bands["q_eq_2"] == [0, 1, 0, 0, 0, 0, 0, 0]
    assert bands["q_3_to_4"] == [0, 0, 1, 1, 0, 0, 0, 0]
    assert bands["q_ge_12"] == [0, 0, 0, 0, 0, 0, 1, 1]
    np.testing.assert_allclose(bands["q_ge_12_x_tiles_left_then"], [0] * 6 + [16 / 70, 4 / 70], rtol=1e-6)


def test_a_hazard_fitted_with_q_linear_still_loads_and_reads_its_columns(phoenix, tmp_path):
    """A file fitted before the q bands (every shipped one) keeps its predictions: it reads
    the leading columns of today's features; a fit with the bands predicts otherwise."""
    _, ds = phoenix
    pt = _pt(ds.arrays, Estimators.default())
    old = HazardModel(features=HAZARD_FEATURES_LINEAR_Q).fit(ds.arrays, pt)
    new = HazardModel().fit(ds.arrays, pt)
    back = HazardModel.load(old.save(tmp_path / "hazard.json"))
    assert back.other.feature_names == HAZARD_FEATURES_LINEAR_Q
    X, _, _ = expand_intervals(ds.arrays, pt)
    np.testing.assert_allclose(back.p_other_rows(X), old.other.predict_proba(X[:, :len(HAZARD_FEATURES_LINEAR_Q)]))
    assert np.abs(new.p_other_rows(X) - back.p_other_rows(X)).max() > 1e-3
    assert HazardModel.load(new.save(tmp_path / "new.json")).other.feature_names == HAZARD_FEATURES


def _first_interval_rows(shanten: list[int], other_win: list[bool], **extra) -> dict:
    """Discard rows at 40 tiles left, nobody in riichi or open: each ends with another's win in
    its first interval or goes on (own win five discards later)."""
    n = len(shanten)
    kind = np.where(other_win, END_KINDS.index("other_win"), END_KINDS.index("own_win"))
    ctx = np.zeros((n, 5), np.float32)
    ctx[:, 0], ctx[:, 4] = 40, shanten
    arr = {"dec_ctx": ctx, "dec_riichi": np.zeros((n, 3), bool), "dec_takes": np.zeros((n, 3), np.int8),
           "dec_t_left": np.where(other_win, 1, 5), "dec_end_kind": kind, "dec_reach_q": np.full(n, NO_REACH)}
    for key, value in extra.items():
        arr[key] = value
    return arr


def test_tenpai_other_ratio_compares_tenpai_hands_with_the_rest():
    """Rows that the hazard cannot tell apart (the same features): the tenpai ones see
    another's win in 5 % of their first intervals, the rest in 10 %, so the ratio is about
    one half; rows in riichi and rows dealt in at once do not count; equal rates give 1."""
    hz = Estimators.default().hazard
    rng = np.random.default_rng(0)
    n = 4000
    sh = np.repeat([0, 1], n)
    won = np.concatenate([rng.random(n) < 0.05, rng.random(n) < 0.10])
    pt = np.full((2 * n, 3), 0.1)
    half = tenpai_other_ratio(hz, _first_interval_rows(sh, won), pt)
    assert 0.4 < half < 0.62
    # riichi rows (the seat's own hazard) and deal-ins (no interval survived) are left out
    extra = np.concatenate([sh, np.zeros(500, int)])
    rows = _first_interval_rows(extra, np.concatenate([won, np.zeros(500, bool)]))
    rows["dec_ctx"][2 * n:, 3] = 1
    assert tenpai_other_ratio(hz, rows, np.full((2 * n + 500, 3), 0.1)) == pytest.approx(half)
    dealt = _first_interval_rows(extra, np.concatenate([won, np.zeros(500, bool)]))
    dealt["dec_t_left"][2 * n:] = 1
    dealt["dec_end_kind"][2 * n:] = END_KINDS.index("deal_in")
    assert tenpai_other_ratio(hz, dealt, np.full((2 * n + 500, 3), 0.1)) == pytest.approx(half)
    even = np.concatenate([won[n:], won[n:]])
    assert tenpai_other_ratio(hz, _first_interval_rows(sh, even), pt) == pytest.approx(1.0)


def test_shipped_hazards_are_sane():
    hz = Estimators.default().hazard
    q = np.arange(1, 18)
    pt = np.array([0.1, 0.1, 0.1])
    none, no_open = np.zeros(3, bool), np.zeros(3, bool)
    calm = hz.p_other(66, pt, none, no_open, q, False, 2)
    threat = hz.p_other(66, np.array([1.0, 0.1, 0.1]), np.array([True, False, False]), no_open, q, False, 2)
    assert np.all((calm > 0) & (calm < 0.3))
    assert np.all(threat[:8] > 1.5 * calm[:8])  # a riichi on the table ends hands sooner
    # a riichi opponent is all but sure to be tenpai at the draw; a quiet one is not
    end = hz.p_tenpai_end(20, np.array([1.0, 0.05, 0.3]), np.array([True, False, False]), no_open)
    assert end[0] > 0.9 and end[1] < end[2] < end[0]
    assert 0 < hz.p_abort < 0.01
    assert 0.7 < hz.tenpai_other < 1.0  # another wins less while we are tenpai
    assert 0.7 < hz.draw_share < 1.0  # the others hold some of our waits


def test_ron_share_by_discarder_splits_the_ron_scale_by_who_discards(phoenix):
    """``ron_share_by_discarder`` on real games: against a riichi the riichi players discard
    its waits far more often than the free closed hands, which hold back; each share is at
    most 1, and the dataset's one ``ron_scale`` (and ``ron_scale_riichi``) lies between the
    shares of its class. A name no seat has gives no data: every share 1."""
    from regressors.hazard import OWN_CLASSES, WAIT_CLASSES, ron_share_by_discarder

    files, ds = phoenix
    by = ron_share_by_discarder(files)
    assert set(by) == set(OWN_CLASSES) and all(set(by[o]) == set(WAIT_CLASSES) for o in OWN_CLASSES)
    assert all(0.0 < v <= 1.0 for o in OWN_CLASSES for v in by[o].values())
    assert by["riichi"]["riichi"] > 2 * by["riichi"]["dama"]
    hz = HazardModel().fit(ds.arrays, _pt(ds.arrays, Estimators.default()))
    assert min(by["riichi"].values()) < hz.ron_scale_riichi < max(by["riichi"].values())
    assert min(by["free"].values()) < hz.ron_scale < max(by["free"].values())
    assert ron_share_by_discarder(files[:1], name="nobody") == {o: {c: 1.0 for c in WAIT_CLASSES} for o in OWN_CLASSES}


def test_ron_scales_and_dama_share_count_the_tenpai_players_facing_discards(phoenix):
    """``ron_scale``: the discards of a tenpai player's waits over their number if discards
    were random among its unseen tiles, recounted here from the events with the table state's
    own waits (riichienv's evaluator); real players hold back more against a riichi."""
    from game.records import read_events
    from game.state import TableState
    from game.tiles import mjai_to_kind

    files, ds = phoenix
    hits = {False: 0, True: 0}
    share = {False: 0.0, True: 0.0}
    tenpai = {False: 0, True: 0}
    for path in files:
        states = [TableState(s) for s in range(4)]
        for e in read_events(path):
            if e["type"] == "dahai":
                for st in states:
                    x = st.seat
                    if x == e["actor"] or st.hand.sum() % 3 != 1 or not st.waits:
                        continue
                    tenpai[st.riichi[x]] += 1
                    un = np.asarray(st.unseen, float)
                    hits[st.riichi[x]] += mjai_to_kind(e["pai"]) in st.waits
                    share[st.riichi[x]] += sum(un[w] for w in st.waits) / un.sum()
            for st in states:
                st.update(e)
    hz = HazardModel().fit(ds.arrays, _pt(ds.arrays, Estimators.default()))
    for riichi, scale in ((False, hz.ron_scale), (True, hz.ron_scale_riichi)):
        assert scale == pytest.approx((hits[riichi] + 0.5) / (share[riichi] + 0.5), rel=0.02)
    assert hz.ron_scale_riichi < hz.ron_scale < 1.0
    # dama_share: the tenpai players facing a discard who are not in riichi
    assert hz.dama_share == pytest.approx(tenpai[False] / (tenpai[False] + tenpai[True]), rel=0.02)
    shipped = Estimators.default().hazard  # fitted on efficiency self-play
    assert 0.2 < shipped.ron_scale_riichi < shipped.ron_scale < 1.0


def test_riichi_wall_terms_mark_each_interval():
    """By hand: one and then two others in riichi at a decision with 45 tiles left, intervals
    1, 2, 3, 7, 9, 11 and 12 (so 45, 41, 37, 21, 13, 5 and 1 tiles left then)."""
    q = np.array([1, 2, 3, 7, 9, 11, 12])
    cols = {}
    for ro in (1, 2):
        X = hazard_features(np.full(7, 45), q, np.full(7, ro), np.ones((7, 3)), np.zeros(7), np.zeros(7), np.full(7, 2))
        cols[ro] = {name: X[:, HAZARD_FEATURES.index(name)].tolist() for name in RIICHI_WALL_FEATURES}
    assert cols[1]["riichi_x_ge_40"] == [1, 1, 0, 0, 0, 0, 0]
    assert cols[1]["riichi_x_lt_20"] == [0, 0, 0, 0, 1, 1, 1]
    assert cols[1]["riichi_x_lt_10"] == [0, 0, 0, 0, 0, 1, 1]
    assert cols[1]["riichi_x_lt_4"] == [0, 0, 0, 0, 0, 0, 1]
    assert cols[1]["riichi_x_q_eq_1"] == [1, 0, 0, 0, 0, 0, 0]
    assert cols[1]["riichi_x_q_eq_2"] == [0, 1, 0, 0, 0, 0, 0]
    assert all(np.array(cols[2][k]).tolist() == (2 * np.array(v)).tolist() for k, v in cols[1].items())
    X = hazard_features(np.full(7, 45), q, np.zeros(7), np.ones((7, 3)), np.zeros(7), np.zeros(7), np.full(7, 2))
    assert not X[:, [HAZARD_FEATURES.index(n) for n in RIICHI_WALL_FEATURES]].any()


@pytest.mark.parametrize("features", [HAZARD_FEATURES_BANDS, HAZARD_FEATURES_RIICHI])
def test_a_hazard_fitted_with_fewer_terms_still_loads_and_reads_its_columns(phoenix, tmp_path, features):
    """A file fitted with the q bands and before the riichi terms, or with them and before our
    own hand's (``hazard_s51.json``, ``hazard_s52.json``), keeps its predictions, and those
    do not depend on our hand; a fit with every term's do."""
    _, ds = phoenix
    pt = _pt(ds.arrays, Estimators.default())
    bands = HazardModel(features=features).fit(ds.arrays, pt)
    back = HazardModel.load(bands.save(tmp_path / "hazard.json"))
    assert back.other.feature_names == features
    X, _, _ = expand_intervals(ds.arrays, pt)
    np.testing.assert_allclose(back.p_other_rows(X), bands.other.predict_proba(X[:, :len(features)]))
    args = (10, np.array([0.3, 0.2, 0.1]), np.zeros(3, bool), np.zeros(3, bool), np.arange(1, 4), False)
    assert np.array_equal(back.p_other(*args, 1), back.p_other(*args, 3))
    full = HazardModel().fit(ds.arrays, pt)
    assert np.abs(full.p_other(*args, 1) - full.p_other(*args, 3)).max() > 1e-4


def test_own_hand_columns_mark_the_seat_s_hand_now():
    """By hand: our shanten now (-1 and 0 count as tenpai), the others' riichi now and the
    tiles left now (not then: the terms say how the hand we hold now meets the intervals ahead)."""
    sh = np.array([-1, 0, 1, 1, 1, 2, 3])
    ro = np.array([0, 0, 0, 1, 0, 0, 2])
    now = np.array([10, 20, 10, 10, 40, 10, 5])
    q = np.array([1, 1, 1, 1, 8, 2, 1])  # the fifth: 12 tiles left then, still not late now
    X = hazard_features(now, q, ro, np.zeros((7, 3)), np.zeros(7), np.zeros(7), sh)
    cols = {name: X[:, HAZARD_FEATURES.index(name)].tolist() for name in OWN_HAND_FEATURES}
    assert cols == {"own_tenpai": [1, 1, 0, 0, 0, 0, 0], "own_1_shanten": [0, 0, 1, 1, 1, 0, 0],
                    "own_1_shanten_x_calm": [0, 0, 1, 0, 1, 0, 0], "own_tenpai_x_lt_15": [1, 0, 0, 0, 0, 0, 0],
                    "own_1_shanten_x_lt_15": [0, 0, 1, 1, 0, 0, 0],
                    "own_1_shanten_x_calm_x_lt_15": [0, 0, 1, 0, 0, 0, 0]}
