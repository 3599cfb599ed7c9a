"""Tests of the LR estimators, their datasets and CLIs, on the real phoenix games."""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import SimpleNamespace as NS

import numpy as np
import pytest

from game.errors import ModelFileError, RecordError
from game.state import Discard
from game.tiles import mjai_to_kind
from regressors import features as F
from regressors.datasets import Dataset, build_dataset, read_record
from regressors.enumerate_waits import open_wait_probs, tenpai_shapes
from regressors.replay import FullReplay
from search.waits import is_complete, wait_mask

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PHOENIX = sorted((DATA / "phoenix" / "mjlog").glob("mjx__*.xml"))


@pytest.fixture(scope="module")
def small_ds() -> Dataset:
    return build_dataset(PHOENIX[:3])


# --- waits and enumeration ----------------------------------------------------------------------

def test_wait_mask_matches_mahjong_library():
    from mahjong.agari import Agari

    agari = Agari()
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(400):
        c = np.zeros(34, np.int64)
        while c.sum() < 13:
            k = rng.integers(0, 9) if rng.random() < 0.6 else rng.integers(0, 34)
            if c[k] < 4:
                c[k] += 1
        wm = wait_mask(c.astype(np.uint8))
        for w in range(34):
            if c[w] < 4:
                c[w] += 1
                assert wm[w] == agari.is_agari(list(c)), (c, w)
                c[w] -= 1
                checked += 1
    assert checked > 10000


def test_seven_tile_tenpai_shapes_count_and_waits():
    kinds, counts, ptr, wk = tenpai_shapes(7)
    assert len(kinds) == 148809  # specs/kurita_hoki.md 5.2 [CALC]
    rng = np.random.default_rng(1)
    for h in rng.choice(len(kinds), 300, replace=False):
        c = np.zeros(34, np.uint8)
        for k, n in zip(kinds[h], counts[h]):
            if k >= 0:
                c[k] = n
        assert c.sum() == 7
        expect = np.nonzero(wait_mask(c, False))[0]
        assert sorted(wk[ptr[h]:ptr[h + 1]].tolist()) == expect.tolist()


def test_open_wait_probs_single_tile_is_proportional_to_unseen():
    # one concealed tile: a tanki on it, weight = copies unseen; furiten kinds drop out
    rng = np.random.default_rng(2)
    unseen = rng.integers(0, 5, 34)
    safe = np.zeros(34, bool)
    safe[[3, 20, 30]] = True
    p = open_wait_probs(1, unseen, safe)
    w = np.where(safe, 0, unseen).astype(float)
    np.testing.assert_allclose(p, w / w.sum(), atol=1e-12)


def test_open_wait_probs_by_brute_force_on_four_tiles():
    kinds, counts, ptr, wk = tenpai_shapes(4)
    rng = np.random.default_rng(3)
    unseen = rng.integers(0, 5, 34)
    safe = np.zeros(34, bool)
    safe[[0, 13]] = True
    from math import comb

    acc = np.zeros(34)
    total = 0.0
    for h in range(len(kinds)):
        w = np.prod([comb(int(unseen[k]), int(n)) for k, n in zip(kinds[h], counts[h]) if k >= 0])
        waits = wk[ptr[h]:ptr[h + 1]]
        if w == 0 or safe[waits].any():
            continue
        total += w
        acc[waits] += w
    np.testing.assert_allclose(open_wait_probs(4, unseen, safe), acc / total, atol=1e-12)


def _reference_categories(view, j):
    safe = F.safe_kinds(view, j)
    unseen = np.minimum(np.asarray(view.unseen), 4)
    yak = F.yakuhai_kinds(view, j)
    cat = np.zeros(34, int)
    for k in range(34):
        if safe[k]:
            continue
        if k >= 27:
            cat[k] = 10 if yak[k] else 11
            continue
        base, n = 9 * (k // 9), k % 9 + 1
        s = lambda m: safe[base + m - 1]  # noqa: E731
        if n in (1, 9):
            c, nc, g = (1 if s(4 if n == 1 else 6) else 2), unseen[k + 1 if n == 1 else k - 1] == 0, 12
        elif n in (2, 8):
            c, nc, g = (3 if s(5) else 4), unseen[k + 1 if n == 2 else k - 1] == 0, 13
        elif n in (3, 7):
            c, nc, g = (5 if s(6 if n == 3 else 4) else 6), unseen[k - 1] == 0 and unseen[k + 1] == 0, 14
        else:
            lo, hi = s(n - 3), s(n + 3)
            c = 7 if lo and hi else 8 if lo or hi else 9
            nc, g = unseen[k - 1] == 0 and unseen[k + 1] == 0, 15
        cat[k] = g if nc and c in (2, 4, 6, 9) else c
    return cat


def test_wait_categories_match_a_per_tile_reference():
    rng = np.random.default_rng(4)
    for _ in range(500):
        disc = [[Discard(0, int(k), False, 0) for k in rng.integers(0, 34, rng.integers(0, 12))]
                for _ in range(4)]
        v = NS(discards=disc, melds=[[], [], [], []], riichi=[False] * 4, riichi_turn=[None] * 4,
               unseen=rng.integers(0, 5, 34), round_wind=0, dealer=int(rng.integers(4)))
        j = int(rng.integers(4))
        np.testing.assert_array_equal(F.wait_categories(v, j)[0], _reference_categories(v, j))


# --- replay and datasets on real games ------------------------------------------------------------

@pytest.mark.parametrize("path", PHOENIX[:6], ids=lambda p: p.name)
def test_replay_follows_tenhou_scores_and_wins(path):
    events = read_record(path)
    rep = FullReplay(path=str(path))
    wins = 0
    for idx, e in enumerate(events):
        if e["type"] == "hora":
            j = int(e["actor"])
            hand = rep.hands[j].copy()
            if e["target"] != j:
                hand[mjai_to_kind(e["pai"])] += 1
            # Tenhou scored this win: the winner's concealed tiles are a complete shape
            assert is_complete(hand.astype(np.uint8), not rep.melds[j]), (path.name, idx)
            wins += 1
        rep.update(e, idx)
        if e["type"] in ("hora", "ryukyoku") and "scores" in e:
            assert rep.scores == e["scores"]
        if e["type"] == "dahai":
            a = int(e["actor"])
            assert rep.hands[a].sum() == 13 - 3 * len(rep.melds[a])
    assert rep.scores == events[-1]["scores"]
    assert wins > 0


@pytest.mark.parametrize("path", PHOENIX[6:8], ids=lambda p: p.name)
def test_replay_waits_match_riichienv_on_every_hand(path):
    # two implementations: our numba wait_mask (the labels) and riichienv's HandEvaluator
    # (TableState.waits), on every seat's concealed tiles after every discard
    rep = FullReplay(path=str(path))
    checked = tenpai = 0
    for idx, e in enumerate(read_record(path)):
        rep.update(e, idx)
        if e["type"] == "dahai":
            for j in range(4):
                ours = set(np.nonzero(rep.waits(j))[0].tolist())
                assert ours == set(rep.states[j].waits), (path.name, idx, j)
                checked += 1
                tenpai += bool(ours)
    assert checked > 1000 and tenpai > 100


def test_safe_kinds_follow_the_event_order():
    counts = np.array([_check_safe_kinds(path) for path in PHOENIX[8:14]]).sum(0)
    assert counts[0] > 5000 and counts[1] > 300


def _check_safe_kinds(path) -> tuple[int, int]:
    # reference from the record itself: j's own discards, and every kind another seat
    # discarded since j's last discard, or since its declaration tile once in riichi
    rep = FullReplay(path=str(path))
    passed: list[set[int]] = [set() for _ in range(4)]
    checked = riichi = 0
    for idx, e in enumerate(read_record(path)):
        if e["type"] == "start_kyoku":
            passed = [set() for _ in range(4)]
        if e["type"] == "dahai":
            view = rep.view(e["actor"])
            for j in range(4):
                if j != e["actor"]:
                    expect = np.zeros(34, bool)
                    expect[[d.kind for d in view.discards[j]] + sorted(passed[j])] = True
                    np.testing.assert_array_equal(F.safe_kinds(view, j), expect,
                                                  err_msg=f"{path.name} event {idx} seat {j}")
                    checked += 1
                    riichi += view.riichi[j]
            for j in range(4):
                if j != e["actor"]:
                    passed[j].add(mjai_to_kind(e["pai"]))
            if not view.riichi[e["actor"]]:  # the declaration tile resets, later ones do not
                passed[e["actor"]] = set()
        rep.update(e, idx)
    return checked, riichi


def test_last_take_turn_counts_the_takers_discards_at_its_call():
    checked = 0
    for path in PHOENIX[14:18]:
        rep = FullReplay(path=str(path))
        made, at_take = [0] * 4, [None] * 4
        for idx, e in enumerate(read_record(path)):
            if e["type"] == "start_kyoku":
                made, at_take = [0] * 4, [None] * 4
            if e["type"] == "dahai":
                view = rep.view(e["actor"])
                for j in range(4):
                    assert F._last_take_turn(view, j) == at_take[j], (path.name, idx, j)
                    checked += at_take[j] is not None
                made[e["actor"]] += 1
            elif e["type"] in ("chi", "pon", "daiminkan"):
                at_take[e["actor"]] = made[e["actor"]]
            rep.update(e, idx)
    assert checked > 1000


def test_replay_of_a_record_written_from_one_seat(tmp_path):
    from game.state import TableState, seat_view

    events = read_record(PHOENIX[0])
    mine = [seat_view(e, 0) for e in events]  # others' deals and draws shown as "?"
    rep, alone = FullReplay(path="seat0.mjson"), TableState(0)
    for idx, e in enumerate(mine):
        rep.update(e, idx)
        alone.update(e)
        if e["type"] == "dahai":
            assert rep.known == [True, False, False, False]
            np.testing.assert_array_equal(rep.concealed(0), alone.hand)
            np.testing.assert_array_equal(rep.view(0).unseen, alone.unseen)
            assert not rep.concealed(2).any() and not rep.waits(2).any()
            with pytest.raises(RecordError, match=f"seat0.mjson:event {idx}: .*seat 1"):
                rep.view(1)
        if e["type"] in ("hora", "ryukyoku") and "scores" in e:
            assert rep.scores == e["scores"]
    assert rep.scores == events[-1]["scores"]
    path = tmp_path / "seat0.mjson"
    path.write_text("".join(json.dumps(e) + "\n" for e in mine))
    with pytest.raises(RecordError, match="all hands known"):
        build_dataset([path])


def test_replay_errors_name_the_record_and_event():
    events = read_record(PHOENIX[0])
    idx = next(i for i, e in enumerate(events) if e["type"] == "dahai" and i > 40)
    a = events[idx]["actor"]
    rep = FullReplay(path="game.xml")
    for i, e in enumerate(events[:idx]):
        rep.update(e, i)
    absent = next(n for n in ("E", "S", "W", "N", "P", "F", "C", "1m", "9m", "1p", "9p", "1s", "9s")
                  if rep.concealed(a)[mjai_to_kind(n)] == 0)
    with pytest.raises(RecordError, match=f"game.xml:event {idx}: seat {a}: .*no {absent}"):
        rep.update({**events[idx], "pai": absent, "tsumogiri": False}, idx)
    with pytest.raises(RecordError, match="hides every seat"):
        FullReplay().update({**events[1], "tehais": [["?"] * 13] * 4})


def test_dataset_labels_obey_the_rules(small_ds):
    a = small_ds.arrays
    # a riichi player is tenpai (Tenhou accepts riichi only then)
    assert a["dec_tenpai"][a["dec_riichi"]].all()
    # every ronned discard was a tile some opponent could ron
    assert a["dec_ronnable_t"][a["dec_ronned"]].any(axis=1).all()
    assert a["dec_ronned"].sum() > 0
    # ranks: one of each per start of hand
    y = a["rank_y"].reshape(-1, 4)
    assert (np.sort(y, axis=1) == np.arange(4)).all()
    # horizon ratio in (0, 1]
    assert ((a["dec_ratio"] > 0) & (a["dec_ratio"] <= 1)).all()
    # a genbutsu kind is never ronnable
    assert not a["wait_y"][a["wait_cat"] == 0].any()


def test_dataset_save_load_and_split(small_ds, tmp_path):
    p = small_ds.save(tmp_path / "d.npz")
    back = Dataset.load(p)
    for k, v in small_ds.arrays.items():
        np.testing.assert_array_equal(back[k], v)
    train, test = small_ds.split(0.34, seed=3)
    for prefix in ("rank", "dec"):
        assert not set(train[f"{prefix}_game"]) & set(test[f"{prefix}_game"])
        assert len(train[f"{prefix}_game"]) + len(test[f"{prefix}_game"]) == len(small_ds[f"{prefix}_game"])


def test_bad_records_raise_record_error(tmp_path):
    empty = tmp_path / "empty.mjson"
    empty.write_text("")
    with pytest.raises(RecordError):
        build_dataset([empty])
    bad = tmp_path / "bad.mjson.gz"
    with gzip.open(bad, "wt") as f:
        f.write(json.dumps({"type": "start_game"}) + "\n{not json\n")
    with pytest.raises(RecordError, match="bad.mjson.gz"):
        build_dataset([bad])


# --- models ---------------------------------------------------------------------------------------

def test_fit_save_load_round_trip(small_ds, tmp_path):
    from regressors.estimators import Estimators
    from regressors.train import fit_all

    est = fit_all(small_ds)
    est.save(tmp_path)
    back = Estimators.load(tmp_path)
    X = small_ds["rank_x"][:20]
    np.testing.assert_allclose(back.final_rank.predict_proba(X), est.final_rank.predict_proba(X))
    tf = small_ds["dec_tf"][:50, 0]
    np.testing.assert_allclose(back.tenpai.predict_proba(tf), est.tenpai.predict_proba(tf))
    # a missing and a mismatched file are named
    (tmp_path / "tenpai.json").unlink()
    with pytest.raises(ModelFileError, match="tenpai.json"):
        Estimators.load(tmp_path)
    d = json.loads((tmp_path / "hand_end.json").read_text())
    d["model"]["features"] = d["model"]["features"][:-1]
    (tmp_path / "hand_end.json").write_text(json.dumps(d))
    from regressors.hand_end import HandEndModel

    with pytest.raises(ModelFileError, match="hand_end.json"):
        HandEndModel.load(tmp_path / "hand_end.json")


def test_horizon_fractional_labels_recover_a_known_ratio():
    from regressors.hand_end import HorizonModel

    rng = np.random.default_rng(5)
    X = rng.normal(size=(4000, len(F.HORIZON_FEATURES))).astype(np.float32)
    r = 1 / (1 + np.exp(-(0.8 * X[:, 0] - 0.3)))
    m = HorizonModel(C=100.0).fit(X, r)
    assert np.abs(m.predict_proba(X) - r).max() < 0.02
    assert HorizonModel.horizon(0.5, 40) == 6  # T_max = 1 + 40 // 4 = 11


def test_final_rank_probabilities(small_ds):
    from regressors.final_rank import FinalRankModel

    m = FinalRankModel().fit(small_ds["rank_x"], small_ds["rank_y"])
    P = m.rank_probs([40000, 30000, 20000, 10000], 0, 3, 3, 0, 0)
    np.testing.assert_allclose(P.sum(1), 1, atol=1e-9)
    # a big lead in the last east hand: seat 0 most likely first, seat 3 most likely last
    assert P[0].argmax() == 0 and P[3].argmax() == 3
    done = m.rank_probs([25000, 30000, 30000, 15000], 1, 3, 3, game_over=True)
    assert done.argmax(1).tolist() == [2, 0, 1, 3]  # tie to the seat nearer the first dealer


def test_shipped_defaults_load_and_answer_a_decision():
    from regressors.estimators import Estimators, load_default

    est = Estimators.default()
    assert load_default("tenpai").models
    with pytest.raises(ModelFileError):
        load_default("nonexistent")
    events = read_record(PHOENIX[0])
    rep = FullReplay()
    seen = 0
    for idx, e in enumerate(events):
        if e["type"] == "dahai" and seen < 5 and len(rep.discards[e["actor"]]) > 6:
            d = est.decision(rep.view(int(e["actor"])))
            assert d.p_lose.shape == (34,) and ((d.p_lose >= 0) & (d.p_lose <= 1)).all()
            assert d.p_tenpai[e["actor"]] == 0 and 0 <= d.p_end <= 1 and d.horizon >= 1
            # a kind in every opponent's safe set cannot deal in
            common = np.ones(34, bool)
            for k in (1, 2, 3):
                common &= F.safe_kinds(rep.view(e["actor"]), (e["actor"] + k) % 4)
            assert (d.p_lose[common] == 0).all()
            seen += 1
        rep.update(e, idx)
    assert seen == 5


# --- CLIs -----------------------------------------------------------------------------------------

def test_train_and_report_clis(tmp_path, capsys):
    from regressors import report, train

    assert train.main(["--records", str(PHOENIX[3]), str(PHOENIX[4]), "--out", str(tmp_path / "m"),
                       "--quiet"]) == 0
    capsys.readouterr()
    assert report.main(["--records", str(PHOENIX[5]), "--models", str(tmp_path / "m"), "--json",
                        "--cache", str(tmp_path / "c")]) == 0
    res = json.loads(capsys.readouterr().out)
    assert not any(name.endswith("_cnn") for name in res)  # the CNN rows are cnn.report's
    for name in ("final_rank", "tenpai", "deal_in", "hand_end", "horizon", "win_value"):
        assert {"log_loss", "baseline_log_loss", "brier", "auc"} <= set(res[name])
    assert res["final_rank"]["auc"] is None and 0.5 <= res["tenpai"]["auc"] <= 1
    # the hazard's rows by interval and by the wall: each axis splits all of them
    for axis in ("q", "tiles_left_then", "riichi_others"):
        bands = res["hazard_by_interval"][axis]
        assert sum(b["n"] for b in bands.values()) == res["hazard"]["n"]
    assert sum(b["observed"] for b in res["hazard_by_interval"]["q"].values()) == \
        sum(b["observed"] for b in res["hazard_by_interval"]["tiles_left_then"].values()) > 0
    assert train.main(["--records", str(tmp_path / "nothing*.xml"), "--out", str(tmp_path / "x")]) == 2
    bad = tmp_path / "bad.xml"
    bad.write_text("<mjloggm ver='2.3'><INIT seed='0,0,0,1,2,3' ")
    assert report.main(["--records", str(bad), "--models", str(tmp_path / "m")]) == 2
    assert "bad.xml" in capsys.readouterr().err

    # cnn.report: the same LR rows, and the CNN's rows on the same decision points against
    # the same baselines (the CNN planes are built apart from the LR dataset).
    from cnn import report as cnn_report

    assert cnn_report.main(["--records", str(PHOENIX[5]), "--models", str(tmp_path / "m"), "--json",
                            "--cache", str(tmp_path / "c")]) == 0
    both = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in both.items() if not k.endswith("_cnn")} == res
    for name in ("tenpai", "deal_in"):
        cnn_row, lr_row = both[name + "_cnn"], res[name]
        assert cnn_row["n"] == lr_row["n"] > 0
        assert cnn_row["baseline_log_loss"] == pytest.approx(lr_row["baseline_log_loss"])
    assert cnn_report.main(["--records", str(PHOENIX[5]), "--models", str(tmp_path / "m"),
                            "--cnn", str(tmp_path / "none.pt")]) == 2
    assert "none" in capsys.readouterr().err


def test_hazard_bands_count_each_interval_row_once():
    """Five interval rows by hand: q 1, 1, 2, 6 and 13 with 60, 60, 56, 40 and 3 tiles left
    then, 0, 1, 0, 2 and 0 others in riichi; observed wins in the first and the last; each
    predicted at 0.1."""
    from regressors.hazard import hazard_features
    from regressors.report import hazard_by_interval

    q = np.array([1, 1, 2, 6, 13])
    now = np.array([60, 60, 60, 60, 51])
    X = hazard_features(now, q, np.array([0, 1, 0, 2, 0]), np.zeros((5, 3)), np.zeros(5), np.zeros(5), np.full(5, 2))
    out = hazard_by_interval(X, np.array([1, 0, 0, 0, 1]), np.full(5, 0.1))
    assert {k: v["n"] for k, v in out["q"].items()} == {"1": 2, "2": 1, "3-4": 0, "5-7": 1, "8-11": 0, "12-99": 1}
    assert out["q"]["1"] == {"n": 2, "observed": 1, "predicted": 0.2, "ratio": 5.0}
    assert out["q"]["3-4"]["ratio"] is None
    assert {k: v["n"] for k, v in out["tiles_left_then"].items()} == \
        {"45-70": 3, "30-44": 1, "15-29": 0, "5-14": 0, "0-4": 1}
    assert out["tiles_left_then"]["0-4"]["observed"] == 1
    assert out["riichi_others"] == {"0": {"n": 3, "observed": 2, "predicted": 0.3, "ratio": 6.667},
                                    "1": {"n": 1, "observed": 0, "predicted": 0.1, "ratio": 0.0},
                                    "2-3": {"n": 1, "observed": 0, "predicted": 0.1, "ratio": 0.0}}


def _one_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_report_bad_paths_and_handless_records_exit_2(tmp_path, capsys):
    from cnn import report as cnn_report
    from regressors import report

    a_file = tmp_path / "a_file"
    a_file.write_text("keep")
    handless = tmp_path / "handless.mjson"
    handless.write_text('{"type":"start_game","names":["a","b","c","d"]}\n{"type":"end_game"}\n')
    for main in (report.main, cnn_report.main):
        for option in ("--plots", "--cache"):
            assert main(["--records", str(PHOENIX[5]), option, str(a_file)]) == 2
            assert _one_error(capsys) == f"error: {a_file}: {option} names a file, not a directory"
        # Records without a hand: no report of empty metrics.
        assert main(["--records", str(handless), "--json"]) == 2
        assert _one_error(capsys) == f"error: {handless}: the record holds no hand (no start_kyoku event)"
    assert a_file.read_text() == "keep"


def test_cut_dataset_cache_is_rebuilt_with_a_warning(tmp_path, capsys):
    from regressors import report

    args = ["--records", str(PHOENIX[5]), "--cache", str(tmp_path / "c"), "--json"]
    assert report.main(args) == 0
    first = capsys.readouterr().out
    (cache,) = (tmp_path / "c").glob("dataset-*.npz")
    whole = cache.read_bytes()
    cache.write_bytes(whole[: len(whole) // 2])  # a write cut by a kill
    assert report.main(args) == 0
    out = capsys.readouterr()
    assert out.out == first
    warned = out.err.strip().splitlines()
    assert warned == [f"warning: {cache}: unreadable .npz (BadZipFile: File is not a zip file); "
                      f"1 unreadable cache rebuilt"]
    assert len(Dataset.load(cache).arrays["dec_game"]) > 0  # whole again
    assert len(list((tmp_path / "c").iterdir())) == 1  # no temp file left
