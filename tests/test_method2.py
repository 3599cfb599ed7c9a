"""Method 2 (Eqs. 17-19): the scenario regressions, the features of the MDPs, the player.

Oracles: a known Eq. 18 tree that generates the endings (the fitted regressions must give its
probabilities back), the WSM / TSM / FSM run on their own (the features are theirs, read at the
hand after each action), the record's own endings (``player.calibration.realised_endings``),
and plain mahjong at the table (keep the finished runs, fold to genbutsu against a riichi).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from abstractions import method2
from abstractions.fsm import fsm_closed_form
from abstractions.params import win_payoffs
from abstractions.tsm import solve_tsm
from abstractions.wsm import solve_wsm
from game.tiles import mjai_to_kind
from player.agents.mdp import MdpAgent
from regressors.estimators import Estimators
from regressors.scenarios import SCENARIO_FEATURES, ScenarioModel, branch_labels, tree
from test_mdp_agent import _riichi_table, discard_legal, events_for

PHOENIX = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog"


@pytest.fixture(scope="module")
def est() -> Estimators:
    return Estimators.default()


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def test_eq18_regressions_give_back_the_probabilities_of_a_known_tree():
    """Endings drawn from a known Eq. 18 tree whose branches are logistic in their own
    features (win in WSM's, lose in FSM's, the washouts in TSM's and the wall's): the fitted
    model predicts the scenario probabilities of fresh rows within 0.02, and a branch does not
    move with another MDP's numbers."""
    rng = np.random.default_rng(5)
    k = len(SCENARIO_FEATURES)
    f = {name: i for i, name in enumerate(SCENARIO_FEATURES)}

    def truth(X):
        return tree(np.column_stack([_sigmoid(X[:, f["wsm_logit"]] - 0.5), _sigmoid(0.8 * X[:, f["fsm_logit"]] - 1.0),
                                     _sigmoid(0.6 * X[:, f["tsm_logit"]] - 0.4 * X[:, f["tiles_left"]]),
                                     _sigmoid(X[:, f["tsm_p_tenpai"]] + 0.3 * X[:, f["n_dahai"]])]))

    X = rng.normal(size=(40_000, k))
    P = truth(X)
    y = (rng.random(len(X))[:, None] > np.cumsum(P, 1)).sum(1)
    model = ScenarioModel().fit(X, y)
    Xt = rng.normal(size=(2_000, k))
    got = model.predict(Xt)
    assert np.allclose(got.sum(1), 1.0)
    assert np.abs(got - truth(Xt)).mean() < 0.02
    moved = Xt.copy()
    moved[:, [f["wsm_p_win"], f["wsm_logit"], f["wsm_value"]]] += 3.0
    again = model.predict(moved)  # p2 = P(lose) / (1 - P(win)) reads FSM and the table only
    assert np.allclose(again[:, 1] / (1 - again[:, 0]), got[:, 1] / (1 - got[:, 0]))
    assert not np.allclose(again[:, 0], got[:, 0])
    # each branch is fitted on the rows that reach it
    rows, labels = branch_labels(y)[3]
    assert rows.sum() == ((y == 3) | (y == 4)).sum() and labels.sum() == (y == 3).sum()


def test_the_scenario_model_round_trips_through_its_file(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, len(SCENARIO_FEATURES)))
    y = rng.integers(0, 5, 500)
    model = ScenarioModel().fit(X, y)
    again = ScenarioModel.load(model.save(tmp_path / "s.json"))
    assert np.array_equal(again.predict(X), model.predict(X))


def test_the_lose_branch_reads_the_shanten_only_in_the_lose_shanten_model(tmp_path):
    """Endings where a 3-shanten hand deals in less than a 2-shanten one with the same FSM
    numbers (it folds sooner): the ``--lose-shanten`` regressions give back the two deal-in
    rates within 0.02 and keep their features through the file; the default regressions,
    blind to the shanten, predict one rate for both; a file naming a feature the rows do not
    carry is refused with the file's name."""
    from game.errors import ModelFileError
    from regressors.scenarios import BRANCH_FEATURES, LOSE_SHANTEN_FEATURES

    rng = np.random.default_rng(7)
    f = {name: i for i, name in enumerate(SCENARIO_FEATURES)}
    X = rng.normal(size=(30_000, len(SCENARIO_FEATURES)))
    X[:, f["shanten"]] = rng.integers(2, 4, len(X))
    lose = np.where(X[:, f["shanten"]] == 3, 0.10, 0.20)
    P = tree(np.column_stack([np.full(len(X), 0.15), lose, np.full(len(X), 0.3), np.full(len(X), 0.5)]))
    y = (rng.random(len(X))[:, None] > np.cumsum(P, 1)).sum(1)
    by = ScenarioModel(features=LOSE_SHANTEN_FEATURES).fit(X, y)
    blind = ScenarioModel().fit(X, y)
    again = ScenarioModel.load(by.save(tmp_path / "s.json"))
    assert again.features == LOSE_SHANTEN_FEATURES and blind.features == BRANCH_FEATURES
    assert np.array_equal(again.predict(X), by.predict(X))
    three = X[:, f["shanten"]] == 3
    p2 = lambda m: m.predict(X)[:, 1] / (1 - m.predict(X)[:, 0])  # P(lose | no win)
    assert p2(by)[three].mean() == pytest.approx(0.10, abs=0.02)
    assert p2(by)[~three].mean() == pytest.approx(0.20, abs=0.02)
    assert abs(p2(blind)[three].mean() - p2(blind)[~three].mean()) < 0.02
    d = json.loads((tmp_path / "s.json").read_text())
    d["branches"]["p2_lose"]["features"][-1] = "ura_dora"
    (tmp_path / "bad.json").write_text(json.dumps(d))
    with pytest.raises(ModelFileError, match="bad.json.*ura_dora"):
        ScenarioModel.load(tmp_path / "bad.json")


def test_cross_validation_tells_a_stale_model_from_a_refit(tmp_path, capsys):
    """``--folds``: on rows of one truth, a model fitted on other rows of the same truth scores
    as the refit does (within two standard errors), a model fitted where the truth's win
    branch read WSM the other way scores clearly worse (the refit better by many SEs), and
    the predicted rates are the models' own; nothing is written, and one fold is refused."""
    from regressors.scenarios import cross_validated, main

    f = {name: i for i, name in enumerate(SCENARIO_FEATURES)}

    def rows(sign, n, seed):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, len(SCENARIO_FEATURES)))
        P = tree(np.column_stack([_sigmoid(sign * X[:, f["wsm_logit"]] - 1.0), _sigmoid(X[:, f["fsm_logit"]] - 1.5),
                                  _sigmoid(X[:, f["tsm_logit"]]), _sigmoid(X[:, f["tsm_p_tenpai"]])]))
        return X, (rng.random(n)[:, None] > np.cumsum(P, 1)).sum(1)

    X, y = rows(1.0, 8_000, 2)
    games = np.repeat(np.arange(200), 40)
    same = ScenarioModel().fit(*rows(1.0, 8_000, 3))
    stale = ScenarioModel().fit(*rows(-1.0, 8_000, 4))
    fair = cross_validated(X, y, games, same, folds=5)
    assert abs(fair["difference"]) < 2 * fair["difference_se"] + 1e-3
    off = cross_validated(X, y, games, stale, folds=5)
    assert off["difference"] < -10 * off["difference_se"] and off["log_loss_refit"] == fair["log_loss_refit"]
    assert off["predicted_against"]["win"] == pytest.approx(float(stale.predict(X)[:, 0].mean()), abs=1e-4)
    assert fair["rows"] == 8_000 and fair["games"] == 200
    data = tmp_path / "rows.npz"
    np.savez(data, X=X, y=y, game=games, shanten=np.full(len(y), 2), features=np.array(SCENARIO_FEATURES))
    model = same.save(tmp_path / "same.json")
    assert main(["--data", str(data), "--folds", "5", "--against", str(model)]) == 0
    assert json.loads(capsys.readouterr().out)["log_loss_against"] == fair["log_loss_against"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.npz", "same.json"]
    assert main(["--data", str(data), "--folds", "1"]) == 2


def _two_shanten(est, **options) -> MdpAgent:
    # 123m 456p finished, 78s 24s two shapes, 5m 9p N W isolated; the draw is E
    ev = events_for("123m 456p 78s 24s 5m 9p N", [("S", {1: "9m", 2: "9s", 3: "1p"})], last_draw="W")
    agent = MdpAgent(estimators=est, **options)
    agent.start_game(0)
    for e in ev:
        agent.observe(e)
    return agent


def test_method2_features_are_the_wsm_tsm_and_fsm_of_the_hand_after_each_discard(est):
    """One graph, WSM and TSM solved once: each discard's features are the MDPs' own numbers
    read at that discard (WSM's win chance and value, with no win worth the worst rank, TSM's
    tenpai chance, the FSM of the hand left); Eq. 19's win payoff is V^WSM / P^WSM_win and
    lies among the graph's win payoffs; the value is Eq. 4 (the discard ronned at once) around
    Eq. 17 (the probabilities times the payoffs)."""
    agent = _two_shanten(est)
    sit = agent._situation()
    g = agent._graph(sit, agent.state, **agent._own_turn_opts(2))
    p = sit.params.checked(g.unseen)
    view = agent.table_view(sit)
    model = ScenarioModel.load(Path(__file__).resolve().parents[1] / "regressors" / "models" / "scenarios.json")
    m2 = method2.evaluate(g, sit.params, view, model, drawn=mjai_to_kind("W"), u_win_fallback=0.0)
    wsm, tsm = solve_wsm(g, p, drawn=mjai_to_kind("W"), u_washout=-4.0), solve_tsm(g, p)
    names = list(SCENARIO_FEATURES)
    u_tsumo, u_ron = win_payoffs(g, p.payoff, riichi_payoff=p.riichi.payoff, yaku=p.yaku, seat_wind=p.seat_wind,
                                 round_wind=p.round_wind)
    wins = np.concatenate([u_tsumo, u_ron])
    lo, hi = np.nanmin(wins), np.nanmax(wins)
    assert set(m2.features) == set(wsm.discards)
    for t, f in m2.features.items():
        assert f[names.index("wsm_p_win")] == pytest.approx(wsm.prob(t, "win"), abs=1e-12)
        assert f[names.index("wsm_value")] == pytest.approx(wsm.discards[t] + 4.0, abs=1e-12)
        assert wsm.prob(t, "win") > 0.05  # from the floor, winning pays: WSM plays for it
        assert f[names.index("tsm_p_tenpai")] == pytest.approx(tsm.discards[t], abs=1e-12)
        hand = g.root.astype(np.int64)
        hand[t] -= 1
        fsm = fsm_closed_form(hand, p.p_lose, p.u_lose, p=p.fsm_p, u_other=p.u_other, u_end=p.u_nw, T=p.T)
        assert f[names.index("fsm_p_lose")] == pytest.approx(fsm.p_lose, abs=1e-12)
        wall = agent.state.tiles_left
        assert f[names.index("tiles_left")] * 70 == pytest.approx(wall, abs=1e-12)
        assert f[names.index("wall_log")] == pytest.approx(np.log(wall + 1) / np.log(71), abs=1e-12)
        assert f[names.index("wall_sq")] == pytest.approx((wall / 70) ** 2, abs=1e-12)
        assert m2.p_now[t] == pytest.approx(p.p_lose[t] * p.lose_growth[0], abs=1e-12)
        u = m2.payoffs[t]
        if wsm.prob(t, "win") > 0:
            assert u[0] == pytest.approx((wsm.discards[t] + 4.0) / wsm.prob(t, "win") - 4.0, rel=1e-12)
            assert lo - 1e-12 <= u[0] <= hi + 1e-12
        assert (u[2], u[3], u[4]) == (p.u_other, p.u_tw, p.u_nw)
        q = m2.p_now[t]  # Eq. 4 around Eq. 17
        assert m2.values[t] == pytest.approx(q * p.u_lose[t] + (1 - q) * float(model.predict(f)[0] @ u), abs=1e-12)
        assert m2.probs[t].sum() == pytest.approx(1.0) and m2.probs[t][1] >= q
    assert view.n_riichi == 0 and view.n_dahai == 1 and view.tiles_left == agent.state.tiles_left


def test_method2_player_keeps_the_finished_runs_of_a_two_shanten_hand(est):
    """The player with Method 2 values a 2-shanten hand by Eq. 17 (counted as ``method2``):
    breaking a finished run is worse than throwing an isolated tile, and its choice is one."""
    agent = _two_shanten(est, method2=True)
    choice = agent.act(discard_legal(agent))
    assert agent.stats["method2"] == 1 and agent.stats["method1"] == 0
    assert "Method 2" in agent.last_info["rule"]
    values = {a["pai"]: v for a, v in agent.last_values if a["type"] == "dahai"}
    isolated = max(values[x] for x in ("N", "W", "9p", "5m"))
    for keep in ("1m", "2m", "3m", "4p", "5p", "6p"):
        assert values[keep] < isolated, agent.explain()
    assert choice["pai"] in ("N", "W", "9p", "5m"), agent.explain()
    for e in agent.last_endings:
        assert e.shape == (6,) and e.sum() == pytest.approx(1.0) and e[5] == 0.0


def test_method2_player_folds_to_genbutsu_against_a_riichi_with_a_poor_hand(est):
    agent = _riichi_table(est)
    choice = agent.act(discard_legal(agent))
    assert agent.stats["method2"] == 1
    st = agent.state
    passed = [x.kind for x in st.discards[1]] + [x.kind for j in (2, 3) for x in st.discards[j][4:]] \
        + [x.kind for x in st.discards[0][5:]]
    assert mjai_to_kind(choice["pai"]) in passed, agent.explain()


def test_scenario_rows_of_a_real_game_carry_its_endings(tmp_path):
    """Rows of a phoenix game: one per valued 2-3 shanten decision, labelled with how that
    seat's hand really ended; passes and calls (with the discard after the call) among them.
    The rows need no scenario model: a model file of other features (as after a change of
    the features) does not stop them."""
    from game.records import read_events
    from player.calibration import realised_endings
    from player.scenario_data import build
    from regressors.scenarios import DEFAULT_PATH

    old = json.loads(DEFAULT_PATH.read_text())
    for branch in old["branches"].values():
        branch["features"] = branch["features"][:-1]
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(old))
    path = sorted(PHOENIX.glob("*.xml"))[0]
    arrays = build([str(path)], f"mdp:hanchan=1,scenarios_file={stale}", every=3)
    X, y = arrays["X"], arrays["y"]
    assert X.shape == (len(y), len(SCENARIO_FEATURES)) and len(y) > 20
    assert set(arrays["shanten"].tolist()) <= {2, 3}
    ends = set(realised_endings(read_events(str(path))).values())
    assert set(y.tolist()) <= ends
    melds = X[:, list(SCENARIO_FEATURES).index("melds")]
    assert np.isfinite(X).all() and (melds >= 0).all()


def test_scenario_rows_from_one_shanten_with_m2_from_1(tmp_path):
    """``m2_from=1`` adds the 1-shanten decisions to the rows, and ``regressors.scenarios
    --shanten 1`` fits those alone (the rows counted in the model file's record); a shanten
    no row has is refused with exit 2 and nothing written."""
    from player.scenario_data import build
    from regressors.scenarios import main

    path = sorted(PHOENIX.glob("*.xml"))[0]
    arrays = build([str(path)], "mdp:hanchan=1,m2_from=1", every=3)
    sh = arrays["shanten"]
    assert set(sh.tolist()) <= {1, 2, 3} and (sh == 1).sum() > 5 and (sh >= 2).sum() > 5
    data = tmp_path / "rows.npz"
    np.savez(data, **arrays)
    out = tmp_path / "one.json"
    assert main(["--data", str(data), "--out", str(out), "--shanten", "1", "--holdout", "0"]) == 0
    meta = json.loads(out.read_text())["trained_on"]
    assert meta["rows"] == int((sh == 1).sum()) and meta["shanten"] == [1]
    assert main(["--data", str(data), "--out", str(tmp_path / "none.json"), "--shanten", "0"]) == 2
    assert not (tmp_path / "none.json").exists()


def test_scenario_data_refuses_a_name_no_record_has(tmp_path, capsys):
    """``--name`` that matches no seat exits 2 before any decision is replayed, naming the
    records' players, and writes nothing (evaluate names its seats by the agent's spec)."""
    from player.scenario_data import main

    out = tmp_path / "rows.npz"
    path = str(sorted(PHOENIX.glob("*.xml"))[0])
    assert main(["--records", path, "--name", "mdp", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'mdp' is no player of the 1 records" in err[0]
    assert not out.exists()


def _first_record_last(task):
    import time

    path = task[0]
    time.sleep(0.5 if path.endswith("a") else 0.0)
    return [(np.full(len(SCENARIO_FEATURES), float(ord(path[-1]))), 0, 2, 50)]


def test_scenario_rows_number_the_games_in_the_order_of_the_paths(monkeypatch):
    """With two workers the records finish in any order; ``game`` still numbers them as given
    (regressors.scenarios holds out the last games by that number)."""
    from player import scenario_data

    monkeypatch.setattr(scenario_data, "file_rows", _first_record_last)  # the forked workers see it
    arrays = scenario_data.build(["r/a", "r/b", "r/c"], workers=2)
    assert arrays["game"].tolist() == [0, 1, 2]
    assert arrays["X"][:, 0].tolist() == [ord("a"), ord("b"), ord("c")]
