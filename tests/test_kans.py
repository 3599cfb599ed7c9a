"""Kans in the MDP player (issue 8 point 3): closed, added and open kans valued, not skipped.

A kan is valued at the root (spec A9 keeps kans out of the graph) as the replacement draw
of the hand after it (``abstractions.situation.after_kan``, ``MdpAgent._kan``). Oracles:
plain mahjong on hand-built tables, the scorer for the payoffs after a kan. The scorer's
expected new dora is checked in ``test_scorer.py``, an ankan root's riichi twins in
``test_calls.py``.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from abstractions.situation import after_kan, situation_of
from game.tiles import hand_counts, mjai_to_kind
from player.agents.mdp import MdpAgent
from player.registry import make_agent
from regressors.estimators import Estimators
from search.retrograde import OUTCOMES
from search.scorer import dora_mult, melds_array, score_nb
from test_mdp_agent import agent_at, discard_legal, events_for, names

FIRST_ROUND = [("9p", {1: "9m", 2: "9s", 3: "1p"})]


@pytest.fixture(scope="module")
def est() -> Estimators:
    return Estimators.default()


def ankan(name: str) -> dict:
    return {"type": "ankan", "actor": 0, "consumed": [name] * 4}


def valued(agent: MdpAgent) -> dict[str, float]:
    """The last decision's values: discards by tile name, the other actions by type."""
    out: dict[str, float] = {}
    for a, v in agent.last_values:
        out[a["pai"] if a["type"] == "dahai" else a["type"]] = v
    return out


def _late_rounds(hand: str, rounds: int) -> list[tuple[str, dict[int, str]]]:
    """``rounds`` rounds of discards (ours tsumogiri) of kinds away from ``hand`` and its
    waits 1m/4m (no red fives: the plain fives run out)."""
    used: dict[str, int] = {}
    for n in names(hand) + ["1s", "E"]:  # the dora indicator 1s, our last draw E
        used[n] = used.get(n, 0) + 1
    pool = []
    for _ in range(4):
        for k in names("6789m 123789p 2346s") + list("SWPFC"):
            if used.get(k, 0) < 4:
                used[k] = used.get(k, 0) + 1
                pool.append(k)
    assert len(pool) >= 4 * rounds
    return [(pool[4 * r], {1: pool[4 * r + 1], 2: pool[4 * r + 2], 3: pool[4 * r + 3]}) for r in range(rounds)]


# --- own turn -----------------------------------------------------------------------------

def test_a_kan_is_valued(est):
    """A closed tenpai hand with four North (not a yaku for the east dealer), not in the
    wait 6s-9s: the closed kan keeps the wait and riichi, draws a replacement tile at once
    (one more draw for the same discards), and adds fu (a closed honour kan: 32 against 8)
    and a dora indicator; the hand reasoning says it beats throwing a North early, with no
    threat on the table."""
    agent = agent_at(events_for("123m 456p 78s 55m NNN", FIRST_ROUND, last_draw="N"), est)
    legal = discard_legal(agent, reach=True) + [ankan("N")]
    other = MdpAgent(estimators=est)
    other.start_game(1)
    review = other.value(agent.state, legal)  # what analyze shows: the same values as act's
    choice = agent.act(legal)
    assert [v for _, v, _ in review] == [v for _, v in agent.last_values]
    v = valued(agent)
    assert v["ankan"] is not None and math.isfinite(v["ankan"]), agent.explain()
    assert v["ankan"] >= v["N"] and choice["type"] == "ankan", agent.explain()
    e = agent.last_endings[-1]
    assert e is not None and e.sum() == pytest.approx(1.0, abs=1e-9)
    assert "ankan" in agent.explain()


def test_a_kan_far_from_tenpai_is_valued_by_method2(est):
    """Three shanten with four North (no yaku for the east dealer), early, no threat: the
    decision is Method 2's, and so is the kan's value (the hand after it is still three
    shanten): the closed kan keeps the shanten, draws a replacement tile at once and turns a
    dora indicator, so it beats throwing a North, which keeps the same shanten without them."""
    agent = agent_at(events_for("1m 3m 8m 9m 1p 5p 7p 2s 4s 6s NNN", FIRST_ROUND, last_draw="N"), est)
    choice = agent.act(discard_legal(agent) + [ankan("N")])
    assert agent.stats["method2"] == 1 and agent.stats["kan_unvalued"] == 0
    v = valued(agent)
    assert v["ankan"] is not None and math.isfinite(v["ankan"]), agent.explain()
    assert choice["type"] == "ankan" and v["ankan"] > v["N"], agent.explain()
    e = agent.last_endings[-1]
    assert e is not None and e.sum() == pytest.approx(1.0, abs=1e-9)


def test_a_kan_that_breaks_a_late_tenpai_is_not_taken(est):
    """Five tiles left and a tenpai on 1m-4m (22223m): the closed kan of 2m leaves a
    1-shanten hand that will hardly be tenpai at the draw (the noten payments), while the
    hand as it is stays tenpai whatever it draws."""
    hand = "2222m 3m 456p 789s 11s"
    agent = agent_at(events_for(hand, _late_rounds(hand, 16), last_draw="E"), est)
    assert agent.state.tiles_left == 5
    choice = agent.act(discard_legal(agent, reach=True) + [ankan("2m")])
    v = valued(agent)
    assert v["ankan"] is not None and math.isfinite(v["ankan"])
    assert choice["type"] != "ankan" and v["ankan"] < max(v["E"], v["reach"]), agent.explain()


def test_a_closed_kan_in_riichi_is_valued_against_the_draws_discard(est):
    """In riichi on 6s-9s, the fourth North drawn: the kan (legal: it keeps the wait) is
    valued with the hand locked, like the discard of the draw, and taken (the same wait,
    a replacement draw, more fu and a new dora). ``method`` says how ``act`` decides."""
    ev = events_for("123m 456p 78s 55m NNN", FIRST_ROUND)
    ev += [{"type": "tsumo", "actor": 0, "pai": "W"}, {"type": "reach", "actor": 0},
           {"type": "dahai", "actor": 0, "pai": "W", "tsumogiri": True}, {"type": "reach_accepted", "actor": 0}]
    for s, t in ((1, "1m"), (2, "2p"), (3, "3s")):
        ev += [{"type": "tsumo", "actor": s, "pai": "?"}, {"type": "dahai", "actor": s, "pai": t, "tsumogiri": True}]
    ev.append({"type": "tsumo", "actor": 0, "pai": "N"})
    agent = agent_at(ev, est)
    legal = [{"type": "dahai", "actor": 0, "pai": "N", "tsumogiri": True}, ankan("N")]
    assert agent.method(agent.state, legal) == "method1"
    choice = agent.act(legal)
    assert agent.stats["method1"] == 1
    v = valued(agent)
    assert math.isfinite(v["N"]) and math.isfinite(v["ankan"])
    assert choice["type"] == "ankan" and v["ankan"] >= v["N"], agent.explain()
    # kans off: the riichi hand's draw is forced, as before
    off = make_agent("mdp:kans=0", estimators=est)
    off.start_game(0)
    assert off.method(agent.state, legal) == "forced"


def test_an_added_kan_is_valued(est):
    """A pon of haku, tenpai on 6s-9s, the fourth haku drawn: the added kan is valued (and
    taken: the same wait, more fu, a replacement draw; nobody can rob a fourth haku but a
    kokushi)."""
    ev = events_for("123m 456p 78s 55m PP 9s", [])
    ev += [{"type": "tsumo", "actor": 0, "pai": "W"}, {"type": "dahai", "actor": 0, "pai": "W", "tsumogiri": True},
           {"type": "tsumo", "actor": 1, "pai": "?"}, {"type": "dahai", "actor": 1, "pai": "P", "tsumogiri": False},
           {"type": "pon", "actor": 0, "target": 1, "pai": "P", "consumed": ["P", "P"]},
           {"type": "dahai", "actor": 0, "pai": "9s", "tsumogiri": False}]
    for s, t in ((1, "1p"), (2, "2p"), (3, "3s")):
        ev += [{"type": "tsumo", "actor": s, "pai": "?"}, {"type": "dahai", "actor": s, "pai": t, "tsumogiri": True}]
    ev.append({"type": "tsumo", "actor": 0, "pai": "P"})
    agent = agent_at(ev, est)
    kakan = {"type": "kakan", "actor": 0, "pai": "P", "consumed": ["P", "P", "P"]}
    choice = agent.act(discard_legal(agent) + [kakan])
    v = valued(agent)
    assert v["kakan"] is not None and math.isfinite(v["kakan"])
    assert choice["type"] == "kakan" and v["kakan"] >= v["P"], agent.explain()


# --- an opponent's discard ----------------------------------------------------------------

def test_an_open_kan_is_valued_and_refused_when_it_leaves_no_yaku(est):
    """Closed tenpai on 5s-8s with 444s, no yaku but riichi or tsumo (1m, 9p): an open kan
    of the 4s an opponent throws leaves an open hand without a yaku, which has to be
    rebuilt before it can win (tanyao, a yakuhai pon): passing is clearly better."""
    ev = events_for("123m 789p 444s 55s 67s", FIRST_ROUND)
    ev += [{"type": "tsumo", "actor": 0, "pai": "W"}, {"type": "dahai", "actor": 0, "pai": "W", "tsumogiri": True},
           {"type": "tsumo", "actor": 1, "pai": "?"}, {"type": "dahai", "actor": 1, "pai": "4s", "tsumogiri": False}]
    agent = agent_at(ev, est)
    legal = [{"type": "pon", "actor": 0, "target": 1, "pai": "4s", "consumed": ["4s", "4s"]},
             {"type": "daiminkan", "actor": 0, "target": 1, "pai": "4s", "consumed": ["4s", "4s", "4s"]},
             {"type": "none"}]
    choice = agent.act(legal)
    v = valued(agent)
    assert v["daiminkan"] is not None and math.isfinite(v["daiminkan"])
    assert choice["type"] == "none" and v["daiminkan"] < v["none"], agent.explain()
    win = OUTCOMES.index("win")
    assert agent.last_endings[1][win] < agent.last_endings[2][win]


def test_an_open_kan_alone_is_not_forced_and_kans_off_pass(est):
    ev = events_for("123m 789p 444s 55s 67s", FIRST_ROUND)
    ev += [{"type": "tsumo", "actor": 0, "pai": "W"}, {"type": "dahai", "actor": 0, "pai": "W", "tsumogiri": True},
           {"type": "tsumo", "actor": 1, "pai": "?"}, {"type": "dahai", "actor": 1, "pai": "4s", "tsumogiri": False}]
    agent = agent_at(ev, est)
    legal = [{"type": "daiminkan", "actor": 0, "target": 1, "pai": "4s", "consumed": ["4s"] * 3}, {"type": "none"}]
    assert agent.method(agent.state, legal) == "method1"
    off = MdpAgent(estimators=est, kans=False)
    off.start_game(0)
    for e in ev:
        off.observe(e)
    assert off.method(off.state, legal) == "forced" and off.act(legal)["type"] == "none"
    assert off.stats["forced"] == 1


# --- the parts: situation, graph, scorer ---------------------------------------------------

def test_after_kan_keeps_the_wall_shares_of_its_turns(est):
    """With ``wall_share`` the draws' shares come by turn, with ``ron_wall`` the ron shares;
    a kan that takes a turn off the horizon (the wall's count a multiple of four) keeps the
    shares of the turns left, so the hand after it solves (a share per turn too many was an
    error that fell back)."""
    from abstractions.psm import solve_psm
    from abstractions.situation import TableModel
    from search.hand_graph import build_graph

    agent = agent_at(events_for("123m 456p 78s 55m NNN", FIRST_ROUND, last_draw="N"), est)
    st = agent.state
    st.tiles_left = 64
    sit = situation_of(st, est, model=TableModel(wall_share=True, ron_wall=True))
    post = st.copy()
    post.update(ankan("N"))
    ks = after_kan(sit, post)
    T = ks.params.T
    assert T == sit.params.T - 1 == 16
    np.testing.assert_array_equal(ks.params.draw_share, sit.params.draw_share[:T])
    np.testing.assert_array_equal(ks.params.progress_share, sit.params.progress_share[:, :T])
    np.testing.assert_array_equal(ks.params.ron_scale, sit.params.ron_scale[:T])
    np.testing.assert_array_equal(ks.params.riichi.ron_scale, sit.params.riichi.ron_scale[:T])
    hand = np.asarray(post.hand, dtype=np.uint8)
    res = solve_psm(build_graph(hand, np.asarray(post.unseen, dtype=np.uint8), d=1, m=0), ks.params)
    assert res.pass_ is not None and math.isfinite(res.pass_)


def test_after_kan_moves_the_red_five_and_counts_the_new_indicator(est):
    """After a closed kan of 5m with the red five: the kan holds the red (a win counts it),
    one more dora indicator and ura are to come, the horizon loses the turn the kan takes
    when the wall's count is a multiple of four."""
    ev = events_for("55m 5m 234p 678s 99s 12p", FIRST_ROUND, last_draw="5mr")
    agent = agent_at(ev, est)
    st = agent.state
    sit = situation_of(st, est)
    post = st.copy()
    post.update({"type": "ankan", "actor": 0, "consumed": ["5mr", "5m", "5m", "5m"]})
    ks = after_kan(sit, post)
    assert ks.root_melds == [("ankan", 4)] and ks.payoff.red_fixed == 1 and ks.payoff.red_held.sum() == 0
    assert ks.payoff.n_new_dora == 1 and ks.payoff.n_ura == len(st.dora_indicators) + 1
    assert ks.params.riichi is not None and ks.params.riichi.payoff.n_new_dora == 1
    W = st.tiles_left
    assert ks.params.T == 1 + (W - 1) // 4 and sit.params.T == 1 + W // 4
    # a win of 234p 678s 99s + 3p (12p -> 123p) with the red kan: the red counts, as the scorer says
    h14 = hand_counts("123p 234p 678s 99s")
    rows = np.full((1, 4, 2), -1, np.int64)
    rows[0, 0] = melds_array([("ankan", 4)])[0]
    plain = dict(ks.payoff.__dict__)
    plain["n_new_dora"] = 0
    from abstractions.situation import WinPayoff

    got = WinPayoff(**plain).points(h14[None], np.array([mjai_to_kind("3p")]), True, rows)[0]
    hand13 = hand_counts("12p 234p 678s 99s")
    want = score_nb(hand13, melds_array([("ankan", 4)]), mjai_to_kind("3p"), True, 0, 0, 0,
                    dora_mult([mjai_to_kind("1s")]), 1, 0, 0, 0, 0)[3]
    assert got == want > 0


def test_the_kans_new_dora_raises_the_opponents_wins(est):
    """``kan_dora``: after our closed kan the opponents' win classes are those of the table
    with the new indicator shown (the same as the win-value model gives once the indicator is
    revealed), so paying their wins costs more (``U_L``), the kan is worth less than without,
    and with one more indicator their wins are worth more points."""
    from abstractions.situation import TableModel, opponent_payoffs

    agent = agent_at(events_for("123m 456p 78s 55m NNN", FIRST_ROUND, last_draw="N"), est)
    st = agent.state
    sit = situation_of(st, est)
    post = st.copy()
    post.update(ankan("N"))
    classes = est.kan_win_classes(post)
    shown = post.copy()
    shown.update({"type": "dora", "dora_marker": "3p"})
    assert len(shown.dora_indicators) == len(post.dora_indicators) + 1
    for j in (1, 2, 3):
        np.testing.assert_allclose(classes[j], est.win_value.value(shown, j)[0], rtol=1e-12)
        pts = est.win_value.class_points(j == st.dealer)
        assert classes[j] @ pts > est.win_value.value(post, j)[0] @ pts
    plain, new = after_kan(sit, post), after_kan(sit, post, classes)
    np.testing.assert_array_equal(plain.params.u_lose, sit.params.u_lose)
    assert (new.params.u_lose <= plain.params.u_lose + 1e-12).all() and (new.params.u_lose < plain.params.u_lose).any()
    want, _, _ = opponent_payoffs(sit.table, classes, sit.p_ron, sit.other_weights, 0)
    np.testing.assert_array_equal(new.params.u_lose, want)
    # in play: the same decision with the switch on values the kan lower, the discards the same
    on = agent_at(events_for("123m 456p 78s 55m NNN", FIRST_ROUND, last_draw="N"), est,
                  model=TableModel(kan_dora=True))
    legal = discard_legal(agent, reach=True) + [ankan("N")]
    agent.act(legal)
    on.act(legal)
    off_v, on_v = valued(agent), valued(on)
    assert on_v["ankan"] < off_v["ankan"]
    assert {k: v for k, v in on_v.items() if k != "ankan"} == {k: v for k, v in off_v.items() if k != "ankan"}


def test_red_fives_to_draw_in_the_win_payoffs(est):
    """``red_fives``: which reds are still unseen (ours held, one discarded by an opponent),
    the chance a later five is the red (one over the unseen copies), and a win's points with
    a five not held now: the red in expectation, as the scorer scores the two outcomes."""
    from abstractions.situation import TableModel, red_draws

    rounds = [("9p", {1: "5pr", 2: "9s", 3: "1p"})]
    agent = agent_at(events_for("567m 234p 678s 99s 13p", rounds, last_draw="5mr"), est)
    st = agent.state
    now, rate = red_draws(st)
    assert list(now) == [2, 0, 0]
    assert rate[0] == 0.0 and rate[1] == 0.0  # ours, and the one discarded
    assert rate[2] == pytest.approx(1.0 / int(st.unseen[mjai_to_kind("5s")]))
    off, on = situation_of(st, est), situation_of(st, est, model=TableModel(red_fives=True))
    # 567m 234p 678s 99s + 13p -> 123p: no five drawn, the same points
    h14 = hand_counts("567m 123p 234p 678s 99s")
    tiles = np.array([mjai_to_kind("2p")])
    assert on.payoff.points(h14[None], tiles, True)[0] == off.payoff.points(h14[None], tiles, True)[0]
    # a later 5s in the win (456s from 678s's place): one copy to come, the red at rate[2]
    h14 = hand_counts("567m 123p 234p 456s 99s")
    tiles = np.array([mjai_to_kind("5s")])
    base = off.payoff.points(h14[None], tiles, True)[0]
    hand13 = hand_counts("567m 123p 234p 46s 99s")
    dm = off.payoff.dora_mult
    two = score_nb(hand13, melds_array([]), mjai_to_kind("5s"), True, 0, 0, 0, dm, 2, 0, 0, 0, 0)[3]
    assert base == score_nb(hand13, melds_array([]), mjai_to_kind("5s"), True, 0, 0, 0, dm, 1, 0, 0, 0, 0)[3]
    assert on.payoff.points(h14[None], tiles, True)[0] == pytest.approx((1 - rate[2]) * base + rate[2] * two)


def test_after_kan_keeps_the_options_of_the_payoffs(est):
    """The payoffs after our kan keep the decision's ``ron_payer`` weights (free and riichi)
    and ``red_fives`` rates."""
    from abstractions.situation import TableModel

    rounds = [("9p", {1: "9m", 2: "9s", 3: "1p"})]
    agent = agent_at(events_for("123m 456p 78s 55m NNN", rounds, riichi={2: 0}, last_draw="N"), est)
    st = agent.state
    sit = situation_of(st, est, model=TableModel(ron_payer=True, red_fives=True))
    post = st.copy()
    post.update(ankan("N"))
    ks = after_kan(sit, post)
    np.testing.assert_array_equal(ks.payoff.payer, sit.payoff.payer)
    np.testing.assert_array_equal(ks.params.riichi.payoff.payer, sit.params.riichi.payoff.payer)
    assert ks.payoff.payer[1] > ks.payoff.payer[0]  # seat 2, in riichi
    np.testing.assert_array_equal(ks.payoff.red_rate, sit.payoff.red_rate)
    assert ks.payoff.red_rate.all()
    plain = after_kan(situation_of(st, est), post)
    assert plain.payoff.payer is None and not plain.payoff.red_rate.any()
