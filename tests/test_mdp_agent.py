"""The MDP player (player/agents/mdp.py) and its parameters (abstractions/situation.py).

Oracles: the engine (every choice of full games is legal, or ``play_game`` raises), the
final-rank model's own ``rank_features`` / ``rank_probs`` for the vectorised rank table, the
scorer's ``score_hand`` for the win payoffs, and hand-built table situations whose right
answer is plain mahjong (take the win, throw the isolated tile, fold to genbutsu against a
riichi with a poor hand, riichi a good early tenpai).
"""
from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from abstractions.situation import FIRST_TABLE_MODEL, HandContext, expected_ranks, situation_of
from game.match import play_game
from game.tiles import mjai_to_kind
from player.agents.efficiency import EfficiencyAgent
from player.agents.mdp import METHODS, MdpAgent
from player.registry import make_agent
from regressors.estimators import Estimators
from regressors.features import rank_features, rank_features_batch
from search.retrograde import OUTCOMES
from search.scorer import score_hand
from search.shanten import shanten


@pytest.fixture(scope="module")
def est() -> Estimators:
    return Estimators.default()


@pytest.fixture(scope="module", params=["shipped", "default"])
def player_est(request) -> Estimators:
    """The shipped estimators, and the default player's (their hazard refitted, session 53): the
    issue's behaviours of the player hold with both."""
    from player.agents.mdp import default_estimators

    return Estimators.default() if request.param == "shipped" else default_estimators()


def names(s: str) -> list[str]:
    """``"123m EE"`` style -> mjai names (honours E S W N P F C)."""
    out, digits = [], []
    for ch in s.replace(" ", ""):
        if ch.isdigit():
            digits.append(ch)
        elif ch in "mps":
            out += [d + ch for d in digits]
            digits = []
        else:
            out.append(ch)
    return out


def events_for(hand: str, rounds: list[tuple[str, dict[int, str]]], *, riichi: dict[int, int] | None = None,
               dora: str = "1s", last_draw: str | None = None) -> list[dict]:
    """Seat 0's view of an east-1 hand: each round seat 0 draws and throws its draw, then
    seats 1-3 draw (hidden) and discard the given tiles; ``riichi`` maps seat -> round of its
    declaration. Ends with seat 0 drawing ``last_draw``."""
    riichi = riichi or {}
    tehais = [names(hand)] + [["?"] * 13] * 3
    ev = [{"type": "start_game", "names": ["a", "b", "c", "d"]},
          {"type": "start_kyoku", "bakaze": "E", "kyoku": 1, "honba": 0, "kyotaku": 0, "oya": 0,
           "dora_marker": dora, "scores": [25000] * 4, "tehais": tehais}]
    for r, (mine, theirs) in enumerate(rounds):
        ev += [{"type": "tsumo", "actor": 0, "pai": mine},
               {"type": "dahai", "actor": 0, "pai": mine, "tsumogiri": True}]
        for s in (1, 2, 3):
            ev.append({"type": "tsumo", "actor": s, "pai": "?"})
            if riichi.get(s) == r:
                ev.append({"type": "reach", "actor": s})
            ev.append({"type": "dahai", "actor": s, "pai": theirs[s], "tsumogiri": False})
            if riichi.get(s) == r:
                ev.append({"type": "reach_accepted", "actor": s})
    if last_draw is not None:
        ev.append({"type": "tsumo", "actor": 0, "pai": last_draw})
    return ev


def agent_at(events: list[dict], est: Estimators | None, **options) -> MdpAgent:
    """The agent (``est`` None: the default's estimators) after seat 0 has seen ``events``."""
    a = MdpAgent(estimators=est, **options)
    a.start_game(0)
    for e in events:
        a.observe(e)
    return a


def discard_legal(agent: MdpAgent, *, reach: bool = False, tsumo_win: bool = False) -> list[dict]:
    st = agent.state
    drawn = None if st.drawn is None else st.drawn
    legal = []
    if tsumo_win:
        from game.tiles import id_to_mjai
        legal.append({"type": "hora", "actor": 0, "target": 0, "pai": id_to_mjai(drawn)})
    if reach:
        legal.append({"type": "reach", "actor": 0})
    seen = set()
    from game.tiles import id_to_mjai
    for t in st.hand_ids:
        name = id_to_mjai(t)
        tg = t == drawn
        if (name, tg) not in seen:
            seen.add((name, tg))
            legal.append({"type": "dahai", "actor": 0, "pai": name, "tsumogiri": tg})
    return legal


# --- the rank table against the final-rank model ------------------------------------------

def test_rank_features_batch_equals_the_models_features():
    rng = np.random.default_rng(3)
    S = rng.integers(-2000, 60000, size=(30, 4))
    S[0] = [25000, 25000, 30000, 20000]  # ties follow Tenhou's seat order
    for args in ((0, 2, 2, 1, 1, False), (1, 3, 3, 0, 2, True), (0, 3, 3, 4, 0, False)):
        X = rank_features_batch(S, *args)
        for i in range(len(S)):
            for p in range(4):
                np.testing.assert_allclose(X[i, p], rank_features(list(S[i]), p, *args), rtol=1e-6, atol=1e-6)


def test_expected_ranks_equal_rank_probs_of_the_next_hand(est):
    fr = est.final_rank
    ctx = HandContext(seat=1, scores=(30000, 22000, 26000, 22000), round_wind=0, kyoku=1, dealer=1, honba=1,
                      kyotaku=1)
    # seat 2 rons seat 1 for 3900 (+300 honba, +1000 stick): non-dealer win, next hand E3, dealer 2
    d = np.array([[0, -4200, 5200, 0]])
    got = expected_ranks(fr, ctx, d, renchan=np.array([False]), sticks_taken=np.array([True]))[0]
    want = fr.expected_rank([30000, 17800, 31200, 22000], 0, 2, 2, 0, 0)[1]
    assert got == pytest.approx(want, abs=1e-9)
    # a washout with the dealer tenpai: dealer repeats, honba + 1, the stick stays
    d = np.array([[-1000, 3000, -1000, -1000]])
    got = expected_ranks(fr, ctx, d, renchan=np.array([True]), sticks_taken=np.array([False]))[0]
    want = fr.expected_rank([29000, 25000, 25000, 21000], 0, 1, 1, 2, 1)[1]
    assert got == pytest.approx(want, abs=1e-9)
    # the last hand passes with someone above 30,000: the exact final ranks
    last = HandContext(seat=3, scores=(31000, 25000, 24000, 20000), round_wind=0, kyoku=3, dealer=3, honba=0,
                       kyotaku=0)
    got = expected_ranks(fr, last, np.array([[0, 0, -8000, 8000]]), renchan=np.array([False]),
                         sticks_taken=np.array([True]))[0]
    assert got == 2.0


# --- the situation's parameters ----------------------------------------------------------

def _riichi_table(est, **options):
    rounds = [("N", {1: "9m", 2: "9m", 3: "9m"}), ("F", {1: "1p", 2: "1p", 3: "1p"}),
              ("C", {1: "8m", 2: "8m", 3: "8m"}), ("9p", {1: "8p", 2: "8p", 3: "9s"}),
              ("W", {1: "5m", 2: "W", 3: "E"}), ("1m", {1: "2s", 2: "S", 3: "3m"})]
    # a 3-shanten hand (with the last draw) holding 8m, 8p and 5m, genbutsu against seat 1's riichi
    ev = events_for("158m 258p 369s 5m 8p 4s 7s", rounds, riichi={1: 4}, last_draw="6m")
    return agent_at(ev, est, **options)


def test_situation_params_are_sane(est):
    agent = _riichi_table(est)
    st = agent.state
    sit = situation_of(st, est)
    p = sit.params.checked(st.unseen)
    for arr in (p.p_lose, p.p_other, p.p_disc):
        assert ((arr >= 0) & (arr <= 1)).all()
    assert 1 <= p.T <= sit.t_max == 1 + st.tiles_left // 4
    # payoffs are minus expected ranks
    for u in (p.u_lose, p.u_other, p.u_tw, p.u_nw, sit.table.u_ron_grid, sit.table.u_tsumo_grid):
        assert np.all((np.asarray(u) >= -4 - 1e-9) & (np.asarray(u) <= -1 + 1e-9))
    # kinds every opponent has discarded (genbutsu for all three) cannot deal in
    safe = [mjai_to_kind(n) for n in ("9m", "1p", "8m")]  # each discarded by seats 1, 2 and 3
    for k in safe:
        assert all(any(x.kind == k for x in st.discards[j]) for j in (1, 2, 3))
        assert p.p_lose[k] == 0.0
    assert p.p_lose.max() > 0.05  # against a riichi some kinds are dangerous
    # paying a win is worse than any washout; tenpai washout better than noten; a bigger win better
    assert p.u_lose.max() < p.u_nw < p.u_tw
    from abstractions.situation import GRID
    real = GRID >= 1000  # the LR is not exactly monotone below any real hand value
    assert np.all(np.diff(sit.table.u_ron_grid[real]) >= -1e-3)
    assert sit.table.u_win(np.array([8000.0]), False)[0] > sit.table.u_win(np.array([1000.0]), False)[0] + 0.2
    # the riichi stick costs something in every non-win ending
    assert p.riichi is not None and p.riichi.stick > 0


def test_win_payoff_points_match_the_scorer(est):
    ev = events_for("123m 456p 789s 34s 55m", [("N", {1: "9m", 2: "9m", 3: "1p"})], dora="2s", last_draw="W")
    agent = agent_at(ev, est)
    st = agent.state
    sit = situation_of(st, est)
    h13 = np.zeros(34, np.uint8)
    for n in names("123m 456p 789s 34s 55m"):
        h13[mjai_to_kind(n)] += 1
    for win, tsumo in ((mjai_to_kind("2s"), True), (mjai_to_kind("5s"), False), (mjai_to_kind("2s"), False)):
        h14 = h13.copy()
        h14[win] += 1
        pts = sit.payoff.points(h14[None], np.array([win]), tsumo)[0]
        want = score_hand(h13, win, tsumo=tsumo, seat_wind=0, round_wind=0, dora_indicators=[mjai_to_kind("2s")])
        if want.points == 0:  # a closed ron without yaku is no win
            assert np.isnan(pts)
        else:
            assert pts == want.points


# --- hand-built decisions -----------------------------------------------------------------

def test_takes_a_tsumo_win(est):
    ev = events_for("123m 456p 789s 34s 55m", [("N", {1: "9m", 2: "9m", 3: "1p"})], last_draw="2s")
    agent = agent_at(ev, est)
    legal = discard_legal(agent, tsumo_win=True)
    assert agent.act(legal)["type"] == "hora"


def test_takes_a_ron(est):
    ev = events_for("123m 456p 789s 34s 55m", [("N", {1: "9m", 2: "9m", 3: "1p"})])
    ev += [{"type": "tsumo", "actor": 0, "pai": "W"}, {"type": "dahai", "actor": 0, "pai": "W", "tsumogiri": True},
           {"type": "tsumo", "actor": 1, "pai": "?"}, {"type": "dahai", "actor": 1, "pai": "5s", "tsumogiri": False}]
    agent = agent_at(ev, est)
    legal = [{"type": "hora", "actor": 0, "target": 1, "pai": "5s"}, {"type": "none"}]
    assert agent.act(legal)["type"] == "hora"


def test_throws_the_isolated_tile_of_a_one_shanten_hand(est):
    ev = events_for("123m 4569p 23s 57s EE", [("8m", {1: "9m", 2: "9s", 3: "1p"})], last_draw="N")
    agent = agent_at(ev, est)
    choice = agent.act(discard_legal(agent))
    assert choice["type"] == "dahai" and choice["pai"] in ("N", "9p"), agent.explain()
    assert agent.stats["method1"] == 1 and agent.stats["rule_based"] == agent.stats["error_fallback"] == 0
    values = dict((a["pai"], v) for a, v in agent.last_values if a["type"] == "dahai")
    # breaking a finished run or the pair is worse than either isolated tile
    for keep in ("2m", "5p", "E"):
        assert values[keep] < max(values["N"], values["9p"])


def test_folds_to_genbutsu_against_a_riichi_with_a_poor_hand(est):
    """Method 1 (PSM) at 3 shanten folds: its stop action (spec A1) carries the plan."""
    agent = _riichi_table(est, method2=False)
    choice = agent.act(discard_legal(agent))
    k = mjai_to_kind(choice["pai"])
    st = agent.state
    passed = [x.kind for x in st.discards[1]] + [x.kind for j in (2, 3) for x in st.discards[j][4:]] \
        + [x.kind for x in st.discards[0][5:]]
    assert k in passed, agent.explain()
    assert agent.last_info["outcomes"]["fold"] > 0.3


def test_declares_riichi_on_a_good_early_tenpai(player_est):
    ev = events_for("123m 456p 789s 34s 55m", [("9p", {1: "9m", 2: "9s", 3: "1p"})], last_draw="N")
    agent = agent_at(ev, player_est)
    choice = agent.act(discard_legal(agent, reach=True))
    assert choice["type"] == "reach", agent.explain()
    agent.observe({"type": "reach", "actor": 0})
    after = agent.act([a for a in discard_legal(agent) if a["pai"] in ("N",)] +
                      [{"type": "dahai", "actor": 0, "pai": "1m", "tsumogiri": False}])
    assert after == {"type": "dahai", "actor": 0, "pai": "N", "tsumogiri": True}


def test_registry_builds_it():
    a = make_agent("mdp", seed=3)
    assert isinstance(a, MdpAgent) and a.name == "mdp"


# --- full games ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed,seat", [(11, 0), (12, 2)])
def test_full_games_are_legal(est, seed, seat):
    mdp = MdpAgent(estimators=est)
    agents = [EfficiencyAgent() for _ in range(4)]
    agents[seat] = mdp
    res = play_game(agents, seed=seed)  # raises IllegalActionError on any illegal choice
    assert sorted(res.ranks) == [1, 2, 3, 4] and sum(res.scores) <= 100000
    assert mdp.stats["method1"] > 10
    assert mdp.stats["error_fallback"] == 0
    assert sum(mdp.stats[k] for k in METHODS) == mdp.stats["decisions"]


# --- the endings of the hand (issue: true endings) ---------------------------------------

def _early_tenpai(est, **options):
    ev = events_for("123m 456p 777s 34s 55m", [("9p", {1: "9m", 2: "9s", 3: "1p"})], last_draw="N")
    return agent_at(ev, est, **options)


def test_a_2000_point_ron_beats_an_early_tenpai_washout(player_est):
    """E1, equal scores, 65 tiles left: winning 2,000 by ron is worth more than reaching the
    draw tenpai (the noten payments, with the opponents tenpai as they will be at the draw)."""
    st = _early_tenpai(player_est).state
    assert st.tiles_left >= 60
    sit = situation_of(st, player_est)
    ron = sit.table.u_win(np.array([2000.0]), False)[0]
    assert ron > sit.params.u_tw, (ron, sit.params.u_tw)
    # the opponents' tenpai *now* (early: about 0) made a tenpai washout worth nearly the
    # whole 3,000 of the noten payments, more than that ron: the first player's mistake
    old = situation_of(st, player_est, model=FIRST_TABLE_MODEL)
    assert old.params.u_tw > sit.params.u_tw


def test_other_win_hazard_rises_through_the_hand(est):
    st = _early_tenpai(est).state
    p = situation_of(st, est).params
    po = np.asarray(p.p_other)
    assert p.T == 1 + st.tiles_left // 4 and po.shape == (p.T + 1,)
    # early turns are nearly safe, the middle of the hand is not (records: ~1 % vs ~9 %)
    assert po[1] < 0.03 and po[p.T // 2 + 2] > 2.5 * po[1]
    riichi = np.asarray(p.riichi.p_other)
    assert riichi.shape == po.shape


def test_declares_riichi_on_an_early_tenpai_without_yaku(player_est):
    """A closed two-sided tenpai with no yaku (a triplet, terminals: no pinfu, no tanyao) and
    65 tiles left: only riichi can win by ron."""
    agent = _early_tenpai(player_est)
    choice = agent.act(discard_legal(agent, reach=True))
    assert choice["type"] == "reach", agent.explain()


def test_riichi_bonus_moves_the_riichi_threshold_by_itself(est):
    """``riichi_bonus=b`` declares on the early tenpai above exactly when riichi's value + b
    beats the best plain discard's; the values shown stay the MDP's."""
    plain = _early_tenpai(est)
    plain.act(discard_legal(plain, reach=True))
    reach = next(v for a, v in plain.last_values if a["type"] == "reach")
    dama = max(v for a, v in plain.last_values if a["type"] == "dahai" and v is not None)
    gap = reach - dama
    assert 0.0 < gap < 0.1, plain.explain()
    for bonus, declared in ((-gap + 1e-6, True), (-gap - 1e-6, False)):
        agent = _early_tenpai(est, riichi_bonus=bonus)
        choice = agent.act(discard_legal(agent, reach=True))
        assert (choice["type"] == "reach") == declared, agent.explain()
        assert agent.last_values == plain.last_values


def test_agent_options_from_the_name():
    from abstractions.situation import TableModel
    from game.errors import MahjongError

    a = make_agent("mdp:hazard=0,full_horizon=0", seed=1)
    assert a.model == TableModel(full_horizon=False, hazard=False)
    b = make_agent("mdp:d3=4,states2=20000,d0=3,d1=3,m1=2")
    assert (b.d3, b.states2, b.d0, b.d1, b.m1) == (4, 20000, 3, 3, 2)
    for bad in ("mdp:hazard", "mdp:nonsense=1", "efficiency:hazard=0", "nobody:x=1", "mdp:d3=2", "mdp:states2=0",
                "mdp:d1=1", "mdp:d0=6", "mdp:m1=0", "mdp:far=1", "mdp:far=6", "mdp:m2_from=0",
                "mdp:m2_from=3", "mdp:riichi_danger=-1", "mdp:call_bonus=0.5", "mdp:hazard_scale=0",
                "mdp:hazard_scale=5"):
        with pytest.raises(MahjongError):
            make_agent(bad)


def test_play_solves_the_endings_at_their_first_read_equal_to_a_tracked_solve(est):
    """In play a Method 1 decision solves PSM for the values alone; the endings of its actions
    are solved for when first read (``last_endings``, ``last_info``, ``explain``) and equal, bit
    for bit, those of ``value``'s tracked solve at the same decision."""
    agent = _early_tenpai(est)
    legal = discard_legal(agent, reach=True)
    other = MdpAgent(estimators=est)
    other.start_game(2)
    valued = other.value(agent.state, legal)
    agent.act(legal)
    assert agent._lazy_endings is not None  # no ending solved yet
    got = agent.last_endings
    assert agent._lazy_endings is None
    assert sum(e is not None for e in got) >= 2
    for (a, v, e), g in zip(valued, got):
        assert (e is None) == (g is None), a
        if e is not None:
            np.testing.assert_array_equal(g, e)
    chosen = next(e for (a, _), e in zip(agent.last_values, got) if a is agent.last_choice)
    assert agent.last_info["outcomes"] == {o: float(x) for o, x in zip(OUTCOMES, chosen)}
    assert "chosen action's endings" in agent.explain()


def test_value_gives_every_actions_endings_and_leaves_the_game_alone(est):
    """``value`` at a recorded decision = what ``act`` computes there; endings sum to 1."""
    agent = _early_tenpai(est)
    legal = discard_legal(agent, reach=True)
    other = MdpAgent(estimators=est)
    other.start_game(2)
    valued = other.value(agent.state, legal)
    assert other.seat == 2 and other.state.seat == 2 and not other.stats  # its own game untouched
    choice = agent.act(legal)
    assert [v for _, v, _ in valued] == [v for _, v in agent.last_values]
    best = max((x for x in valued if x[1] is not None), key=lambda x: x[1])[0]
    assert best is choice
    for a, v, e in valued:
        if v is not None and a["type"] != "ryukyoku":
            assert e.shape == (len(OUTCOMES),) and e.sum() == pytest.approx(1.0, abs=1e-9)


def test_a_40_game_match_reports_how_every_decision_was_made(tmp_path):
    """evaluate's summary counts the MDP player's decisions by method; errors that fell back
    to the rule-based move stay under 0.1 % of them."""
    import json

    from player.evaluate import main

    out = tmp_path / "run"
    assert main(["--player", "mdp", "--vs", "efficiency", "--games", "40", "--workers", "2", "--seed", "77",
                 "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    m = summary["decision_methods"]["player"]
    counts = m["counts"]
    assert counts["decisions"] > 40 * 50
    assert sum(counts.get(k, 0) for k in METHODS) == counts["decisions"]
    assert counts.get("error_fallback", 0) <= 0.001 * counts["decisions"]
    # Method 1 near tenpai, Method 2 at 2-3 shanten
    assert m["shares"]["method1"] + m["shares"]["method2"] > 0.7
    assert m["shares"]["method1"] > 0.2 and m["shares"]["method2"] > 0.2
    assert summary["decision_methods"]["opponent"] is None  # the efficiency agent keeps no counts


PON_C = [{"type": "pon", "actor": 0, "target": 1, "pai": "C", "consumed": ["C", "C"]}, {"type": "none"}]


def _yakuhai_pon_offered(est, **options):
    """A 3-shanten hand with a pair of red dragons, the third discarded by the left seat (:data:`PON_C`)."""
    ev = events_for("123m 58p 469s 19s CC E", [("W", {1: "9m", 2: "9s", 3: "1p"})])
    ev += [{"type": "tsumo", "actor": 0, "pai": "S"}, {"type": "dahai", "actor": 0, "pai": "S", "tsumogiri": True},
           {"type": "tsumo", "actor": 1, "pai": "?"}, {"type": "dahai", "actor": 1, "pai": "C", "tsumogiri": False}]
    return agent_at(ev, est, **options)


def test_a_yakuhai_pon_at_three_shanten_is_valued_and_taken(player_est):
    """A 3-shanten hand of scattered tiles with a pair of red dragons: the pon is in the
    graph (the discarded dragon is on the table, not in the wall), it secures a yaku and a
    faster hand, and it wins more often than passing."""
    agent = _yakuhai_pon_offered(player_est)
    assert agent.state.unseen[mjai_to_kind("C")] == 1
    choice = agent.act(PON_C)
    assert agent.last_info["shanten"] == 3 and all(v is not None for _, v in agent.last_values)
    assert choice["type"] == "pon", agent.explain()
    win = OUTCOMES.index("win")
    assert agent.last_endings[0][win] > agent.last_endings[1][win]


def test_call_bonus_moves_the_call_threshold_by_itself_and_leaves_the_values(est):
    """``call_bonus=b`` takes the pon of the yakuhai case above exactly when its value + b beats
    the pass's; the values the agent shows stay the MDP's."""
    plain = _yakuhai_pon_offered(est)
    plain.act(PON_C)
    (_, pon), (_, pass_) = plain.last_values
    gap = pon - pass_
    assert gap > 0.0, plain.explain()
    for bonus, taken in ((-gap + 1e-6, "pon"), (-gap - 1e-6, "none")):
        agent = _yakuhai_pon_offered(est, call_bonus=bonus)
        assert agent.act(PON_C)["type"] == taken, agent.explain()
        assert agent.last_values == plain.last_values
        assert "bonus" in agent.last_info and "bonus" not in plain.last_info


def replay_seat(seat: int, *agents):
    """The decisions of ``seat`` in the first mjlog2json phoenix game (a hanchan), each agent
    fed the seat's view of every event before each decision."""
    from pathlib import Path

    from game.decisions import iter_decisions
    from game.records import read_events
    from game.state import seat_view

    record = read_events(sorted((Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                 / "mjlog").glob("mjlog2json__*.xml"))[0])
    for a in agents:
        a.start_game(seat)
    fed = 0
    for d in iter_decisions(record, seats=[seat]):
        for e in record[fed:d.index + 1]:
            for a in agents:
                a.observe(seat_view(e, seat))
        fed = d.index + 1
        yield d


def _valued_decisions(seat: int, agent, *others):
    """``replay_seat``'s decisions that ``agent`` does not take as forced, each with the shanten
    of the hand and the agent's method there (``others`` follow the game too)."""
    from search.shanten import shanten

    for d in replay_seat(seat, agent, *others):
        method = agent.method(d.state, d.legal)
        if method != "forced":
            yield d, shanten(np.asarray(d.state.hand, np.uint8)), method


def _efficiency_tie_decisions(agent, seat: int, tie: float):
    """The quiet own-turn discards of ``seat`` that ``agent`` (``tie_by=efficiency``) values by
    Method 1 in a replayed hanchan: ``(efficiency agent fed the same events, choice, its
    valued discards, those within ``tie`` of the best, the hand's shanten)``, after the choice."""
    from search.shanten import shanten

    eff = EfficiencyAgent()
    for d in replay_seat(seat, agent, eff):
        threats = any(d.state.riichi[p] or len(d.state.melds[p]) >= 3 for p in range(4) if p != seat)
        if (not any(a["type"] == "dahai" for a in d.legal) or agent.method(d.state, d.legal) != "method1"
                or threats or find_reach(d.legal)):
            continue
        choice = agent.act(d.legal)
        if choice["type"] != "dahai":  # a kan or a call valued best: no tie among discards
            continue
        valued = [(a, v) for a, v in agent.last_values if a["type"] == "dahai" and v is not None]
        top = max(v for _, v in valued)
        yield eff, choice, valued, [a for a, v in valued if v >= top - tie], shanten(np.asarray(d.state.hand, np.uint8))


def _is_top(choice, valued) -> bool:
    top = max(v for _, v in valued)
    return dict(choice, tsumogiri=None) in [dict(a, tsumogiri=None) for a, v in valued if v == top]


def test_tie_break_takes_the_efficiency_agents_discard_among_near_equals(est):
    """With ``tie``, a far hand's discard is the efficiency agent's choice among the discards
    valued within ``tie`` of the best; hands of 0-1 shanten keep the plain argmax."""
    tie = 1e-3
    agent = MdpAgent(estimators=est, hanchan=True, tie=tie, tie_by="efficiency", method2=False)
    far, near_ones = 0, 0
    for eff, choice, valued, near, sh in _efficiency_tie_decisions(agent, 2, tie):
        if sh >= 2:
            far += 1
            assert choice in near
            if len(near) > 1:
                near_ones += 1
                assert mjai_to_kind(choice["pai"]) == mjai_to_kind(eff.act(near)["pai"])
        else:
            assert _is_top(choice, valued)
    assert far > 20 and near_ones > 5


@pytest.mark.parametrize("tie_shanten,tie_max", [(2, 2), (3, 3)])
def test_near_ties_are_told_apart_only_within_their_shanten_range(est, tie_shanten, tie_max):
    """``tie_shanten`` and ``tie_max`` bound the hands whose near-ties the order breaks: in the
    range a discard within ``tie`` of the best is the efficiency agent's among them, out of it
    the plain argmax of the values."""
    from game.errors import MahjongError

    tie = 1e-3
    agent = MdpAgent(estimators=est, hanchan=True, tie=tie, tie_by="efficiency", method2=False,
                     tie_shanten=tie_shanten, tie_max=tie_max)
    broken, plain = 0, 0
    for eff, choice, valued, near, sh in _efficiency_tie_decisions(agent, 2, tie):
        if len(near) < 2:
            continue
        if tie_shanten <= sh <= tie_max:
            broken += 1
            assert mjai_to_kind(choice["pai"]) == mjai_to_kind(eff.act(near)["pai"])
        else:
            plain += 1
            assert _is_top(choice, valued)
    assert broken > 0 and plain > 0
    with pytest.raises(MahjongError, match="tie_max"):
        MdpAgent(estimators=est, tie_shanten=2, tie_max=1)


@pytest.mark.parametrize("views", [1, 6])
def test_tie_by_cnn_takes_cnn_bots_discard_among_near_equals(est, views):
    """With ``tie_by=cnn``, a far hand's discard is the one cnn-bot (its own agent, fed the
    same events, with the player's discard net :data:`TIE_NET`, averaged over as many suit
    orders as ``tie_views``) takes when offered only the discards valued within ``tie`` of the
    best; an agent valuing the seat's decisions in order (``value``, as review does) picks the same."""
    from cnn.policy import load_nets
    from player.agents.cnn_bot import CnnBot
    from player.agents.mdp import TIE_NET
    from search.shanten import shanten

    tie = 0.01
    agent, bot = MdpAgent(estimators=est, hanchan=True, tie=tie, tie_by="cnn", tie_views=views), CnnBot(views=views)
    bot.policy.nets["discard"] = load_nets(TIE_NET, tasks=("discard",))["discard"]
    valuer = MdpAgent(estimators=est, hanchan=True, tie=tie, tie_by="cnn", tie_views=views)
    far, differ = 0, 0
    for d in replay_seat(1, agent, bot):
        if not any(a["type"] == "dahai" for a in d.legal):
            continue
        own = bot.act(d.legal)  # cnn-bot keeps its past turns as it would in a game
        valued_alone = valuer.value(d.state, d.legal)
        if agent.method(d.state, d.legal) != "method2":
            continue
        choice = agent.act(d.legal)
        assert valued_alone is not None and valuer.last_choice == choice
        if choice["type"] != "dahai":
            continue
        valued = [(a, v) for a, v in agent.last_values if a["type"] == "dahai" and v is not None]
        top = max(v for _, v in valued)
        near = [a for a, v in valued if v >= top - tie]
        assert choice in near and shanten(np.asarray(d.state.hand, np.uint8)) in (2, 3)
        if len(near) > 1:
            far += 1
            assert mjai_to_kind(choice["pai"]) == mjai_to_kind(bot.act(near)["pai"])
            assert agent.last_info["tie"] == f"{len(near)} discards within 0.01 of the best, ordered by cnn"
            differ += own["type"] != "dahai" or mjai_to_kind(choice["pai"]) != mjai_to_kind(own["pai"])
    assert far > 10 and agent.stats["tie_broken"] == far
    if views == 1:  # the near set is a real restriction of cnn-bot's own choice (with six views
        assert differ > 0  # its own choice lay in the near set at every decision of this hanchan)


def test_tie_soft_weighs_the_values_against_cnn_bots_log_probabilities(est):
    """With ``tie_soft``, a far hand's near-ties go to the best value plus ``tie_soft`` times
    the log of the probability that cnn-bot (its own agent, fed the same events, with the
    player's discard net) gives each of them; a sure net overrides the values, an unsure one
    leaves them, and the choice is not always the net's likeliest."""
    from cnn.policy import load_nets
    from game.errors import MahjongError
    from player.agents.cnn_bot import CnnBot
    from player.agents.mdp import TIE_NET, TIE_SOFT_FLOOR

    tie, soft = 0.01, 0.003
    agent, bot = MdpAgent(estimators=est, hanchan=True, tie=tie, tie_soft=soft), CnnBot()
    bot.policy.nets["discard"] = load_nets(TIE_NET, tasks=("discard",))["discard"]
    near_ones, by_value = 0, 0
    for d in replay_seat(1, agent, bot):
        if not any(a["type"] == "dahai" for a in d.legal):
            continue
        bot.act(d.legal)  # cnn-bot keeps its past turns as it would in a game
        if agent.method(d.state, d.legal) != "method2":
            continue
        choice = agent.act(d.legal)
        if choice["type"] != "dahai":
            continue
        valued = [(a, v) for a, v in agent.last_values if a["type"] == "dahai" and v is not None]
        top = max(v for _, v in valued)
        near = [(a, v) for a, v in valued if v >= top - tie]
        if len(near) < 2:
            continue
        near_ones += 1
        planes = bot.history.encode(bot.state, discard_decision=True,
                                    features=bot.policy._features(bot.state, [a for a, _ in near]))
        probs = bot.policy.probs("discard", planes)
        score = {mjai_to_kind(a["pai"]): v + soft * np.log(max(float(probs[mjai_to_kind(a["pai"])]), TIE_SOFT_FLOOR))
                 for a, v in near}
        assert mjai_to_kind(choice["pai"]) == max(score, key=score.get)
        likeliest = max((mjai_to_kind(a["pai"]) for a, _ in near), key=lambda k: probs[k])
        by_value += mjai_to_kind(choice["pai"]) != likeliest
        assert agent.last_info["tie"].endswith("weighed by 0.003 a unit of its log-probability")
    assert near_ones > 10 and by_value > 0
    with pytest.raises(MahjongError, match="tie_soft"):
        MdpAgent(estimators=est, tie_soft=0.003, tie_by="efficiency")
    with pytest.raises(MahjongError, match="tie_soft"):
        MdpAgent(estimators=est, tie_soft=0.2)
    with pytest.raises(MahjongError, match="tie_views"):
        MdpAgent(estimators=est, tie=0.0, tie_views=6)
    with pytest.raises(MahjongError, match="views must be 1-6"):
        MdpAgent(estimators=est, tie_views=7)


def test_far_by_cnn_takes_cnn_bots_discard_out_of_the_mdps_range(est):
    """With ``far_by=cnn``, a hand of 4 or more shanten discards the tile cnn-bot (its own
    agent, fed the same events, with the player's discard net :data:`TIE_NET`) takes among the
    legal discards, where the efficiency agent would discard; its other moves stay the
    efficiency agent's, and the near-tie rule is off with ``tie=0``."""
    from cnn.policy import load_nets
    from player.agents.cnn_bot import CnnBot
    from player.agents.mdp import TIE_NET

    agent, bot = MdpAgent(estimators=est, hanchan=True, tie=0, far_by="cnn", far_fold="efficiency"), CnnBot()
    bot.policy.nets["discard"] = load_nets(TIE_NET, tasks=("discard",))["discard"]
    eff, plain = EfficiencyAgent(), MdpAgent(estimators=est, hanchan=True, tie=0, far_fold="efficiency")
    far, differ = 0, 0
    for d in replay_seat(0, agent, bot, eff, plain):
        if not any(a["type"] == "dahai" for a in d.legal):
            continue
        bot.act(d.legal)  # cnn-bot keeps its past turns as it would in a game
        rule = eff.act(d.legal)
        if agent.method(d.state, d.legal) != "rule_based":
            continue
        choice, old = agent.act(d.legal), plain.act(d.legal)
        assert old == rule  # far_by's default: the efficiency agent's move
        if rule["type"] != "dahai":
            assert choice == rule
            continue
        far += 1
        discards = [a for a in d.legal if a["type"] == "dahai"]
        assert mjai_to_kind(choice["pai"]) == mjai_to_kind(bot.act(discards)["pai"])
        assert agent.last_info["rule"] == "rule-based range (cnn-bot's discard net)"
        differ += mjai_to_kind(choice["pai"]) != mjai_to_kind(rule["pai"])
    assert far > 5 and agent.stats["rule_based"] == far and agent.stats["tie_broken"] == 0
    assert differ > 0  # the net is not the efficiency agent


def test_far_fold_fsm_folds_a_far_hand_by_the_estimators_deal_in_chances(est):
    """``far_fold=fsm`` (the default): a 5-shanten hand facing a riichi (the efficiency agent
    folds) throws the first kind of FSM's fold: a genbutsu against the riichi, of the least
    deal-in chance among the kinds held; with ``far_fold=efficiency`` the efficiency agent's fold."""
    rounds = [("N", {1: "9m", 2: "9m", 3: "9m"}), ("F", {1: "1p", 2: "1p", 3: "1p"}),
              ("C", {1: "8m", 2: "8m", 3: "8m"}), ("9p", {1: "8p", 2: "8p", 3: "9s"}),
              ("W", {1: "5m", 2: "W", 3: "E"}), ("1m", {1: "2s", 2: "S", 3: "3m"})]
    ev = events_for("147m 258p 369s ESWN", rounds, riichi={1: 4}, last_draw="6p")
    agent, plain, eff = (agent_at(ev, est), agent_at(ev, est, far_fold="efficiency"),
                         agent_at(ev, est).fallback)
    assert shanten(np.asarray(agent.state.hand, dtype=np.uint8)) >= 4 and eff.folds()
    choice = agent.act(discard_legal(agent))
    k = mjai_to_kind(choice["pai"])
    st = agent.state
    passed = {x.kind for x in st.discards[1]} | {x.kind for j in (2, 3) for x in st.discards[j][4:]} \
        | {x.kind for x in st.discards[0][5:]}
    assert k in passed, agent.last_info
    p_lose = agent._situation().params.p_lose
    held = np.flatnonzero(np.asarray(st.hand))
    assert p_lose[k] == pytest.approx(p_lose[held].min())
    assert agent.stats["far_fold_fsm"] == 1 and agent.stats["rule_based"] == 1
    assert "FSM" in agent.last_info["rule"]
    assert plain.act(discard_legal(plain)) == eff.act(discard_legal(plain))


def test_far_3_leaves_three_shanten_hands_to_the_efficiency_agent(est):
    """``far=3``: every decision of a 3-shanten hand (own turn or call offer) is the efficiency
    agent's move, counted as rule-based; hands of 0-2 shanten are still valued by the MDPs."""
    agent, eff = MdpAgent(estimators=est, hanchan=True, far=3, far_fold="efficiency"), EfficiencyAgent()
    by_shanten: Counter = Counter()
    for d, sh, method in _valued_decisions(1, agent, eff):
        rule = eff.act(d.legal)
        by_shanten[min(sh, 4), method] += 1
        if sh == 3:
            assert method == "rule_based" and agent.act(d.legal) == rule
    assert by_shanten[3, "rule_based"] > 5
    assert not any(m == "rule_based" for (sh, m) in by_shanten if sh <= 2)
    assert by_shanten[2, "method2"] > 0 and by_shanten[1, "method1"] > 0
    assert agent.stats["rule_based"] == by_shanten[3, "rule_based"] and agent.stats["error_fallback"] == 0


def test_far_5_values_four_shanten_hands_by_method_2(est):
    """``far=5``: a 4-shanten hand's decisions are valued by Method 2 (Eq. 17 on its graph),
    every discard valued; 5+ shanten stays the efficiency agent's."""
    four = 0
    for seat in (1, 2):
        agent = MdpAgent(estimators=est, hanchan=True, far=5, tie=0)
        for d, sh, method in _valued_decisions(seat, agent):
            assert method == ("rule_based" if sh >= 5 else "method2" if sh >= 2 else "method1")
            if sh == 4 and any(a["type"] == "dahai" for a in d.legal):
                agent.act(d.legal)
                values = [v for a, v in agent.last_values if a["type"] == "dahai"]
                assert values and all(v is not None and -4.0 <= v <= -1.0 for v in values)
                four += 1
                assert agent.stats["method2"] == 1 and agent.stats["error_fallback"] == 0
                agent.stats.clear()
    assert four > 3


def test_m2_from_1_values_one_shanten_hands_by_method_2_with_their_own_regressions(est):
    """``m2_from=1``: a 1-shanten hand's decisions are valued by Method 2 (Eq. 17) with the
    regressions fitted on 1-shanten rows (``scenarios_1.json``), 2-3 shanten ones with the
    shipped 2-3 shanten regressions, tenpai hands by PSM; each 1-shanten value is Eq. 17 on the
    decision's graph with the 1-shanten model loaded here on its own."""
    from abstractions import method2
    from regressors.scenarios import DEFAULT_PATH, SHANTEN1_PATH, ScenarioModel

    one = ScenarioModel.load(SHANTEN1_PATH)
    assert not np.allclose(one.branches[0].coef, ScenarioModel.load(DEFAULT_PATH).branches[0].coef)
    checked = 0
    agent = MdpAgent(estimators=est, hanchan=True, m2_from=1, tie=0)
    for d, sh, method in _valued_decisions(2, agent):
        assert method == ("rule_based" if sh >= 4 else "method2" if sh >= 1 else "method1")
        if sh == 1 and any(a["type"] == "dahai" for a in d.legal):
            sit = agent._situation()
            g, drawn, _ = agent._decision_graph(sit, d.state, d.legal, sh)
            want = method2.evaluate(g, sit.params, agent.table_view(sit), one, drawn=drawn,
                                    u_win_fallback=float(sit.table.u_win(np.array([method2.FALLBACK_WIN_POINTS]),
                                                                          False)[0])).values
            agent.act(d.legal)
            got = {mjai_to_kind(a["pai"]): v for a, v in agent.last_values if a["type"] == "dahai"}
            assert got and all(got[t] == pytest.approx(want[t], abs=1e-12) for t in got)
            assert agent.stats["method2"] == 1 and agent.stats["error_fallback"] == 0
            agent.stats.clear()
            checked += 1
    assert checked > 3


def find_reach(legal: list[dict]) -> bool:
    return any(a["type"] == "reach" for a in legal)


def _valued_on_graph(est, ev, sh: int, d: int, m: int | None = None, **opts):
    """Seat 0's own turn after ``ev`` played by ``MdpAgent(**opts)``: checks that the hand is at
    ``sh`` shanten and that every discard's value is PSM's on the graph of ``d`` (and ``m``)
    built and solved here on its own; returns the agent, that graph and its root values."""
    from abstractions.psm import solve_psm
    from search.hand_graph import build_graph

    agent = MdpAgent(estimators=est, **opts)
    agent.start_game(0)
    for e in ev:
        agent.observe(e)
    agent.act(discard_legal(agent))
    sit, st = agent.last_situation, agent.state
    assert agent.last_info["shanten"] == sh
    g = build_graph(np.asarray(st.hand, np.uint8), np.asarray(st.unseen, np.uint8), d=d, m=m,
                    horizon=sit.params.T, riichi=True, max_states=50_000)
    assert (agent.last_info["states"], g.d) == (g.n_states, d)
    rv = solve_psm(g, sit.params, drawn=st.drawn >> 2)
    for a, v in agent.last_values:
        assert v == pytest.approx(rv.discards[mjai_to_kind(a["pai"])], abs=1e-12)
    return agent, g, rv


def test_d3_values_a_three_shanten_hand_on_the_deeper_graph(est):
    """``d3=4``: a 3-shanten hand's discards are valued on the graph of ``d = 4`` (paths with
    one exchange more than the shortest), built and solved here on their own; the default
    ``d = 3`` graph is smaller and its best discard wins less often."""
    ev = events_for("123m 58p 469s 19s CC E", [], last_draw="W")
    chances = {}
    for d3 in (3, 4):
        agent, g, _ = _valued_on_graph(est, ev, 3, d3, d3=d3, method2=False)
        chances[d3] = (g.n_states, agent.last_info["outcomes"]["win"])
    assert chances[4][0] > chances[3][0] and chances[4][1] > chances[3][1], chances


def test_d1_values_a_one_shanten_hand_on_the_deeper_graph(est):
    """``d1=3``: a 1-shanten hand's discards are valued on the graph of ``d = 3`` (spec A8's
    size: one exchange more than the default ``d = 2`` allows), equal to that graph built and
    solved here on its own; it holds more states and its best discard is worth no less (the
    larger graph keeps every plan of the smaller one)."""
    ev = events_for("234m 57m 34p 66p 345s E", [], last_draw="W")
    seen = {}
    for d1 in (2, 3):
        _, g, rv = _valued_on_graph(est, ev, 1, d1, m=1, d1=d1)
        seen[d1] = (g.n_states, max(rv.discards.values()))
    assert seen[3][0] > seen[2][0] and seen[3][1] >= seen[2][1] - 1e-12, seen


def test_projected_deal_in_grows_as_eq20_says_of_the_projected_tenpai(est):
    """``projected_deal_in``: at the first turn nobody is near tenpai (``P_T`` about 1e-5),
    yet a discard nine turns on deals in as Eq. 20 says with each opponent's tenpai chance
    then, counted for the share of tenpai hands not in riichi: ``share * sum_j P^j_T[n]
    P(t is j's wait)`` (recomputed here from the estimators); it is the player's default.
    Without it the summed ratio keeps today's summed chance at least ``GROWTH_FLOOR``: with
    the estimators of efficiency self-play (before session 11) that left those deal-ins near
    zero (under a tenth of Eq. 20's); the estimators retrained on tables with dama hands put
    today's chance at about 1e-4 and that growth within a factor 2 of Eq. 20 at this turn,
    every later tenpai hand counted, riichi ones too."""
    from abstractions.situation import TableModel, hazard_turns

    ev = events_for("123m 58p 469s 19s CC E", [], last_draw="W")
    agent = agent_at(ev, est)
    st = agent.state
    sit = situation_of(st, est)
    plain = situation_of(st, est, model=TableModel(projected_deal_in=False))
    d = est.decision(st)
    hz = est.hazards(st, d, hazard_turns(sit.t_max))
    opp = [1, 2, 3]
    assert d.p_tenpai[opp].max() < 1e-3
    held = np.flatnonzero(np.asarray(st.hand))
    n = 9
    expect = hz.dama_share * (hz.p_tenpai_ahead[n][opp, None] * d.p_wait[opp][:, held]).sum(0)
    got = sit.params.p_lose[held] * sit.params.lose_growth[n]
    assert 0.2 < hz.dama_share < 0.7
    assert expect.mean() > 0.01
    np.testing.assert_allclose(got, expect, rtol=0.25)
    assert 0.5 < (plain.params.p_lose[held] * plain.params.lose_growth[n]).mean() / expect.mean() < 2.0


def test_read_deal_in_scales_the_later_deal_ins_of_a_free_hand_only(est):
    """``read_deal_in``: a free hand's later discards (``n >= 1``) meet ``LATER_DEAL_IN`` of the
    grown chances; the root's own discard and the locked states after a riichi keep theirs."""
    from abstractions.situation import LATER_DEAL_IN, TableModel

    ev = events_for("123m 58p 469s 19s CC E", [], last_draw="W")
    st = agent_at(ev, est).state
    plain = situation_of(st, est).params
    read = situation_of(st, est, model=TableModel(read_deal_in=True)).params
    assert 0 < LATER_DEAL_IN < 1
    np.testing.assert_array_equal(read.p_lose, plain.p_lose)
    assert read.lose_growth[0] == plain.lose_growth[0]
    assert np.ptp(plain.lose_growth[1:]) > 0  # the growth is not flat here
    np.testing.assert_allclose(read.lose_growth[1:], LATER_DEAL_IN * plain.lose_growth[1:], rtol=1e-15)
    np.testing.assert_array_equal(read.riichi.lose_growth, plain.riichi.lose_growth)


def test_tenpai_other_lowers_another_win_at_the_tenpai_states_only(est):
    """``tenpai_other``: the hazards' factor reaches PSM's parameters; a tenpai hand's discard
    that keeps it tenpai then sees another's win less often and is worth more, every hazard
    else the same."""
    from abstractions.psm import solve_psm
    from abstractions.situation import TableModel

    ev = events_for("123m 456p 789s 23s 55m", [], last_draw="E")
    agent = agent_at(ev, est)
    st = agent.state
    plain = situation_of(st, est)
    fewer = situation_of(st, est, model=TableModel(tenpai_other=True))
    assert plain.params.tenpai_other == 1.0
    assert fewer.params.tenpai_other == est.hazard.tenpai_other < 1.0
    np.testing.assert_array_equal(fewer.params.p_other, plain.params.p_other)
    g = agent._graph(plain, st)
    a, b = (solve_psm(g, s.params, drawn=st.drawn >> 2, track=True) for s in (plain, fewer))
    east = mjai_to_kind("E")  # its discard keeps the hand tenpai on 14s
    assert b.discards[east] > a.discards[east]
    assert b.probs[east][OUTCOMES.index("other_win")] < a.probs[east][OUTCOMES.index("other_win")]


def test_draw_share_lowers_the_tsumo_of_a_tenpai_hand(est):
    """``draw_share``: the hazards' share reaches PSM's parameters; a tenpai hand then wins less
    often (its tsumo rarer), the other hazards the same."""
    from abstractions.psm import solve_psm
    from abstractions.situation import TableModel

    ev = events_for("123m 456p 789s 23s 55m", [], last_draw="E")
    agent = agent_at(ev, est)
    st = agent.state
    plain = situation_of(st, est, model=TableModel(wall_share=False))
    fewer = situation_of(st, est, model=TableModel(draw_share=True, wall_share=False))
    assert plain.params.draw_share == 1.0 and fewer.params.draw_share == est.hazard.draw_share < 1.0
    g = agent._graph(plain, st)
    a, b = (solve_psm(g, s.params, drawn=st.drawn >> 2, track=True) for s in (plain, fewer))
    east, win = mjai_to_kind("E"), OUTCOMES.index("win")
    assert b.probs[east][win] < a.probs[east][win] and b.discards[east] < a.discards[east]


def test_wall_share_slows_a_one_shanten_hand_more_as_the_wall_runs_down(est):
    """``wall_share``: the hazards' share lines reach PSM's parameters, by turn (each row 1 at
    a full wall, falling as it runs down: ``1 - slope (1 - W / 70)`` with ``W = tiles_left - 4
    n``); a 1-shanten hand then reaches tenpai less often, so it wins less and ends noten more,
    and its discards are worth less."""
    from abstractions.psm import solve_psm
    from abstractions.situation import TableModel

    ev = events_for("123m 456p 78s 24s 55m W", [], last_draw="E")
    agent = agent_at(ev, est)
    st = agent.state
    plain = situation_of(st, est, model=TableModel(wall_share=False))
    fewer = situation_of(st, est, model=TableModel(pool_shrink=False))  # the wall's share alone (pool_shrink: below)
    T = fewer.params.T
    assert plain.params.draw_share == 1.0 and plain.params.progress_share == (1.0, 1.0, 1.0)
    slope = np.asarray(est.hazard.share_slope)
    assert slope.shape == (4,) and (slope > 0).all()
    w = np.clip(st.tiles_left - 4 * np.arange(T), 0, 70)
    np.testing.assert_allclose(fewer.params.progress_share, 1 - slope[1:, None] * (1 - w / 70))
    np.testing.assert_allclose(fewer.params.draw_share, 1 - slope[0] * (1 - w / 70))
    assert (np.diff(fewer.params.progress_share, axis=1) < 0).all()  # less as the wall runs down
    g = agent._graph(plain, st)
    a, b = (solve_psm(g, s.params, drawn=st.drawn >> 2, track=True) for s in (plain, fewer))
    east, win, noten = mjai_to_kind("E"), OUTCOMES.index("win"), OUTCOMES.index("noten_washout")
    assert b.probs[east][win] < a.probs[east][win] and b.probs[east][noten] > a.probs[east][noten]
    assert b.discards[east] < a.discards[east]


def test_pool_shrink_counts_a_tenpai_hands_waits_over_the_pool_of_each_draw(est):
    """``pool_shrink``: a tenpai state's completing draws come at the wall's share times the
    root's unseen pool over the pool at that draw (the others' three discards before the first,
    four tiles fewer a turn after, never below what the wall cannot give up); the progress rows
    stay. The tenpai hand then wins more often, by tsumo (the others' chances are the same),
    and its discards are worth more. On by default since session 54."""
    from abstractions.psm import solve_psm
    from abstractions.situation import TableModel

    ev = events_for("123m 456p 789s 23s 55m", [], last_draw="E")
    agent = agent_at(ev, est)
    st = agent.state
    walls = situation_of(st, est, model=TableModel(pool_shrink=False))  # wall_share, the root's pool
    pools = situation_of(st, est)  # the default since session 54
    T, u = walls.params.T, float(sum(st.unseen))
    # the draw of draw_share[n] comes after the others' three discards since our (n + 1)-th
    now = np.maximum(u - 3 - 4 * np.arange(T), u - st.tiles_left)
    assert now[0] == u - 3 and now[-1] < u - 3 and (now >= u - st.tiles_left).all()
    np.testing.assert_allclose(pools.params.draw_share, walls.params.draw_share * u / now)
    np.testing.assert_allclose(pools.params.progress_share, walls.params.progress_share)
    g = agent._graph(walls, st)
    a, b = (solve_psm(g, s.params, drawn=st.drawn >> 2, track=True) for s in (walls, pools))
    east, win = mjai_to_kind("E"), OUTCOMES.index("win")
    assert b.probs[east][win] > a.probs[east][win] and b.discards[east] > a.discards[east]


def test_riichi_decay_takes_the_passed_share_off_a_riichi_each_turn():
    """``riichi_decay``: a riichi opponent's part of our deal-ins keeps ``keep ** n`` of
    itself ``n`` discards ahead (the kinds the others pass meanwhile cannot be ronned), the
    others' parts grow as before; alone at the table, the growth is ``keep ** n`` itself."""
    from abstractions.situation import _projected_lose_growth

    T, keep, share = 8, 0.95, 0.47
    p_wait = np.zeros((3, 34))
    p_wait[0, :9] = 0.1   # the riichi's waits
    p_wait[1, 9:18] = 0.05
    p_wait[2, 18:27] = 0.02
    pt = np.array([1.0, 0.2, 0.05])
    ahead = np.tile(pt, (T, 1))
    ahead[:, 1] = np.linspace(0.2, 0.6, T)
    ahead[:, 2] = np.linspace(0.05, 0.3, T)
    p_lose = (pt[:, None] * p_wait).sum(0)
    riichi = np.array([True, False, False])
    g = _projected_lose_growth(p_wait, pt, ahead, T, p_lose, share, riichi=riichi, keep=keep)
    w = p_wait.sum(1)
    for n in range(1, T):
        others = sum((pt[j] + share * (ahead[n, j] - pt[j])) * w[j] for j in (1, 2))
        assert g[n] == pytest.approx((keep ** n * w[0] + others) / (pt @ w), rel=1e-12)
    assert g[0] == 1.0
    # without the decay the riichi's part stays whole: the switch off is the old growth
    g1 = _projected_lose_growth(p_wait, pt, ahead, T, p_lose, share)
    assert np.all(g1[1:] > g[1:])
    np.testing.assert_allclose(_projected_lose_growth(p_wait, pt, ahead, T, p_lose, share, riichi=riichi, keep=1.0), g1)
    alone = _projected_lose_growth(p_wait[:1].repeat(3, 0) * [[1], [0], [0]], pt * [1, 0, 0], ahead * [1, 0, 0], T,
                                   p_lose, share, riichi=riichi, keep=keep)
    np.testing.assert_allclose(alone, keep ** np.arange(T), rtol=1e-12)


def test_riichi_pass_rate_and_draw_share_on_real_games():
    """``riichi_pass``: the others pass a few hundredths of our live kinds a turn (0.042 on
    the 42 phoenix games; here 6 of them); ``draw_share``: a tenpai hand draws its waits less
    often than their unseen share says (0.85 on the 42 games: the others hold some)."""
    from regressors.hazard import replay_rates

    phoenix = sorted((Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog").glob("*.xml"))
    rate, _, share, slope = replay_rates([str(p) for p in phoenix[:6]])
    assert 0.02 < rate < 0.08
    assert 0.5 < share < 1.0
    assert all(0.0 < c < 0.6 for c in slope)  # less as the wall runs down (0.10-0.26 on the 42 games)


def test_ron_given_wait_scales_each_opponents_ron_chances(est):
    """``ron_given_wait``: P(ron_j(t)) is Eq. 20's ``P^j_T P(t is j's wait)`` times the share
    of its waits' discards that j's class rons in the records (a riichi nearly all, a dama or
    open hand about 0.7: waits without a yaku, furiten), and P_L is the chance that any of
    them rons; the riichi rate stays the largest on the real games."""
    from abstractions.situation import TableModel, hazard_turns
    from regressors.hazard import WAIT_CLASSES, replay_rates

    phoenix = sorted((Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog").glob("*.xml"))
    rates = replay_rates([str(p) for p in phoenix[:10]])[1]
    assert set(rates) == set(WAIT_CLASSES) and all(0.5 < r <= 1.0 for r in rates.values())
    assert rates["riichi"] > max(rates["dama"], rates["open"])
    ev = events_for("123m 58p 469s 19s CC E", [], last_draw="W")
    st = agent_at(ev, est).state
    d = est.decision(st)
    hz = est.hazards(st, d, hazard_turns(1 + st.tiles_left // 4))
    rho = np.asarray(hz.ron_given_wait)
    assert rho[1] == pytest.approx(est.hazard.ron_given_wait["dama"])  # nobody has called or declared
    sit = situation_of(st, est, model=TableModel(ron_given_wait=True))
    expect = 1.0 - np.prod(1.0 - rho[:, None] * d.p_tenpai[:, None] * d.p_wait, axis=0)
    np.testing.assert_allclose(sit.params.p_lose, expect, rtol=1e-9, atol=1e-15)
    assert np.all(sit.params.p_lose <= situation_of(st, est).params.p_lose + 1e-15)


def test_riichi_danger_scales_the_deal_in_chances_into_a_riichi_alone(est):
    """``riichi_danger=k``: the chance that a kind deals into the opponent in riichi is k times
    the estimators' (Eq. 20's ``P_T P(t in waits)`` with ``P_T = 1``), the other opponents'
    untouched, ``P_L`` their union; genbutsu stays safe. At a table with no riichi nothing moves."""
    st = _riichi_table(est).state
    d = est.decision(st)
    p_ron = np.asarray(d.p_ron, dtype=np.float64)
    k = np.array([1.0, 2.0, 1.0, 1.0])  # seat 1 is in riichi
    expect = 1.0 - np.prod(1.0 - np.clip(p_ron * k[:, None], 0.0, 1.0), axis=0)
    plain = situation_of(st, est).params
    scaled = situation_of(st, est, riichi_danger=2.0).params
    np.testing.assert_allclose(scaled.p_lose, expect, rtol=1e-12, atol=1e-15)
    assert np.all(scaled.p_lose >= plain.p_lose) and (scaled.p_lose > plain.p_lose + 1e-6).any()
    assert all(scaled.p_lose[mjai_to_kind(n)] == 0.0 for n in ("9m", "1p", "8m"))
    free = agent_at(events_for("123m 58p 469s 19s CC E", [], last_draw="W"), est).state
    a, b = situation_of(free, est).params, situation_of(free, est, riichi_danger=2.0).params
    assert np.array_equal(a.p_lose, b.p_lose) and np.array_equal(a.u_lose, b.u_lose)


def test_hazard_scale_makes_another_win_k_times_as_likely(est):
    """``hazard_scale=k``: another's win is k times as likely in every interval (``P_O`` and
    FSM's constant, their mean, clipped at 0.95); the deal-ins and payoffs stay. The hand has
    less time: after every discard of a 1-shanten hand (Method 1) its win is less likely and
    another's more."""
    ev = events_for("123m 456p 789s 55s 2p E", [], last_draw="W")
    plain, fast = agent_at(ev, est), agent_at(ev, est, hazard_scale=1.5)
    a, b = situation_of(plain.state, est).params, situation_of(plain.state, est, hazard_scale=1.5).params
    np.testing.assert_allclose(b.p_other, np.minimum(1.5 * np.asarray(a.p_other), 0.95), rtol=1e-12)
    assert b.fsm_p == pytest.approx(float(np.mean(np.asarray(b.p_other)[1:])))
    assert np.array_equal(a.p_lose, b.p_lose) and np.array_equal(a.u_lose, b.u_lose) and a.u_other == b.u_other
    same = situation_of(plain.state, est, hazard_scale=1.0).params
    assert np.array_equal(np.asarray(same.p_other), np.asarray(a.p_other))
    legal = discard_legal(plain)
    assert plain.method(plain.state, legal) == "method1"
    va = {(x["pai"], x["tsumogiri"]): e for x, _, e in plain.value(plain.state, legal)}
    vb = {(x["pai"], x["tsumogiri"]): e for x, _, e in fast.value(fast.state, legal)}
    assert all(vb[t][0] < va[t][0] - 0.01 for t in va)  # the win (OUTCOMES' first)
    assert all(vb[t][2] > va[t][2] + 0.05 for t in va)  # another's win


def test_hazard_file_plays_the_files_hazard(est):
    """``hazard_file``: the other-win hazard (and the rest of the hazard file) are the file's;
    the other estimators stay. Session 51's refit knows that another's win comes sooner facing
    an early riichi than the shipped hazard says (its records: 1.86 times as often with 45-70
    tiles left then): at a 1-shanten hand facing a riichi of the first go-around, ``P_O`` of
    the next intervals is higher and PSM expects another's win more often after every discard."""
    from game.errors import MahjongError
    from player.agents.mdp import HAZARD_S51
    from regressors.hazard import HazardModel

    ev = events_for("123m 456p 789s 55s 2p E", [("N", {1: "9m", 2: "9m", 3: "9m"})], riichi={1: 0}, last_draw="W")
    plain, refit = agent_at(ev, est), agent_at(ev, est, hazard_file=str(HAZARD_S51))
    assert refit.est.tenpai is est.tenpai and refit.est.hazard is not est.hazard
    a = situation_of(plain.state, est).params
    b = situation_of(refit.state, refit.est).params
    c = situation_of(plain.state, est.with_hazard(HazardModel.load(HAZARD_S51))).params
    assert np.array_equal(np.asarray(b.p_other), np.asarray(c.p_other))
    assert np.all(np.asarray(b.p_other)[1:4] > 1.2 * np.asarray(a.p_other)[1:4])
    legal = discard_legal(plain)
    va = {(x["pai"], x["tsumogiri"]): e for x, _, e in plain.value(plain.state, legal)}
    vb = {(x["pai"], x["tsumogiri"]): e for x, _, e in refit.value(refit.state, legal)}
    pushed = [t for t in va if va[t][-1] < 0.01 and vb[t][-1] < 0.01]  # plans that never fold (OUTCOMES' last)
    assert len(pushed) >= 5 and all(vb[t][2] > va[t][2] + 0.03 for t in pushed)  # another's win
    with pytest.raises(MahjongError):
        MdpAgent(hazard_file=str(HAZARD_S51), table="cnn-bot")
    with pytest.raises(MahjongError):
        MdpAgent(estimators=est, hazard_file="no/such/hazard.json")
    from player.registry import model_files  # a resumed run checks the file with the rest

    assert HAZARD_S51 in model_files(f"mdp:hazard_file={HAZARD_S51}") and HAZARD_S51 not in model_files("mdp")


def test_the_default_plays_its_self_play_hazard_and_session_45s_regressions(est, tmp_path):
    """Since session 53 the default plays an other-win hazard refitted on its own self-play
    (``HAZARD_FILE``; since session 55 ``hazard_s54.json``, which reads our own hand too) and
    Method 2's regressions refitted on the player's own rows (``SCENARIOS_FILE``; session 45's,
    since session 56 session 55's). The refits expect fewer wins by
    others in the first turns of an early hand (about half as many); session 52's expects more in
    the middle of the wall, and session 54's, with our hand tenpai (its ``own_tenpai`` weight is
    negative), fewer there than session 52's. ``hazard_file=estimators`` plays the estimators'
    own, estimators read from ``est_dir`` keep theirs, and the run's model files name what is played."""
    import shutil

    from player.agents.mdp import HAZARD_ESTIMATORS, HAZARD_FILE, SCENARIOS_FILE, default_estimators
    from player.registry import model_files
    from regressors.estimators import DEFAULT_DIR, FILES

    HAZARD_S52 = HAZARD_FILE.with_name("hazard_s52.json")
    from regressors.hazard import HazardModel
    from regressors.scenarios import DEFAULT_PATH, ScenarioModel

    ev = events_for("123m 456p 789s 55s 2p E", [("N", {1: "9m", 2: "9m", 3: "9m"})], last_draw="W")
    default, own = agent_at(ev, None), agent_at(ev, None, hazard_file=HAZARD_ESTIMATORS)
    folder = tmp_path / "est"
    folder.mkdir()
    for fname, _ in FILES.values():
        shutil.copy(DEFAULT_DIR / fname, folder / fname)
    given, from_dir = agent_at(ev, est), MdpAgent(est_dir=str(folder))
    assert given.est.hazard is est.hazard  # an estimators object is played as given
    a = np.asarray(situation_of(own.state, own.est).params.p_other)
    b = np.asarray(situation_of(default.state, default.est).params.p_other)
    c = np.asarray(situation_of(default.state, est.with_hazard(HazardModel.load(HAZARD_FILE))).params.p_other)
    d = np.asarray(situation_of(default.state, from_dir.est).params.p_other)
    e = np.asarray(situation_of(default.state, default_estimators()).params.p_other)
    s52 = np.asarray(situation_of(default.state, est.with_hazard(HazardModel.load(HAZARD_S52))).params.p_other)
    assert HAZARD_FILE.name == "hazard_s54.json"
    assert np.array_equal(b, c) and np.array_equal(b, e) and np.array_equal(a, d) and not np.array_equal(a, b)
    assert np.all(b[:2] < 0.75 * a[:2]) and np.all(s52[:2] < 0.75 * a[:2]) and np.all(s52[5:8] > 1.05 * a[5:8])
    assert np.all(b[5:8] < 0.9 * s52[5:8])
    scen = ScenarioModel.load(SCENARIOS_FILE).branches[0].coef
    assert np.array_equal(default._scenarios.branches[0].coef, scen)
    assert not np.allclose(ScenarioModel.load(DEFAULT_PATH).branches[0].coef, scen)
    assert SCENARIOS_FILE.name == "scenarios_s55.json"
    assert {HAZARD_FILE, SCENARIOS_FILE} <= set(model_files("mdp"))
    assert HAZARD_FILE not in model_files(f"mdp:hazard_file={HAZARD_ESTIMATORS}")
    assert HAZARD_FILE not in model_files(f"mdp:est_dir={folder}") and HAZARD_FILE not in model_files("mdp:table=auto")


def test_deal_in_cnn_takes_the_cnn_ron_head_and_keeps_what_is_known(est):
    """``deal_in=cnn``: P(ron_j(t)) is the CNN estimators' ron head for each opponent (their
    batch prediction, by absolute seat), P_L its union (Eq. 20's last line), except that the
    kinds an opponent cannot ron (genbutsu and the passed kinds, ``safe_kinds``) stay 0; the
    tenpai chances are the LR's. The CNN answers the riichi table otherwise than the LR."""
    from cnn.estimators import CnnEstimators
    from regressors.features import safe_kinds

    cnn = CnnEstimators.default()
    st = _riichi_table(est).state
    raw = cnn.predict([st])["p_ron"][0]
    safe = np.array([safe_kinds(st, j) if j != st.seat else np.ones(34, bool) for j in range(4)])
    assert safe[1, [mjai_to_kind(n) for n in ("9m", "1p", "8m")]].all() and not safe[1].all()
    expect = np.where(safe, 0.0, raw)
    sit = situation_of(st, est, ron_model=cnn)
    np.testing.assert_allclose(sit.estimates.p_ron, expect, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(sit.params.p_lose, 1.0 - np.prod(1.0 - expect, axis=0), rtol=1e-6, atol=1e-9)
    assert all(sit.params.p_lose[mjai_to_kind(n)] == 0.0 for n in ("9m", "1p", "8m"))
    lr = situation_of(st, est)
    np.testing.assert_array_equal(sit.estimates.p_tenpai, lr.estimates.p_tenpai)
    assert np.abs(sit.params.p_lose - lr.params.p_lose).max() > 1e-3


def test_deal_in_option_loads_its_weights_with_the_agent(tmp_path):
    """``mdp:deal_in=cnn`` loads the CNN weights when the agent is built (the run's model files
    name them); a bad source or a missing file fails there, naming it."""
    from game.errors import MahjongError, ModelFileError
    from player.agents.mdp import DEAL_IN_CNN
    from player.registry import model_files

    agent = make_agent("mdp:deal_in=cnn")
    assert agent._ron_model is not None and make_agent("mdp")._ron_model is None
    assert DEAL_IN_CNN in model_files("mdp:deal_in=cnn") and DEAL_IN_CNN not in model_files("mdp")
    with pytest.raises(MahjongError, match="deal_in"):
        make_agent("mdp:deal_in=oracle")
    with pytest.raises(ModelFileError, match="nothing"):
        make_agent(f"mdp:deal_in=cnn,deal_in_file={tmp_path / 'nothing.pt'}")


def test_ron_by_discarder_takes_the_mean_share_of_the_three_discarders_classes(est):
    """``ron_by_discarder``: the others discard our waits at the mean of their classes' shares
    as the shipped hazard file lists them (read here from the file): seat 1 in riichi and two
    closed free hands; after our riichi the riichi shares, three closed hands. Off, the one
    share for every table."""
    import json

    from abstractions.situation import TableModel
    from regressors.estimators import DEFAULT_DIR

    by = json.loads((DEFAULT_DIR / "hazard.json").read_text())["ron_share_by"]
    on = TableModel(ron_by_discarder=True, discard_mix=False)  # the shares alone
    sit = situation_of(_riichi_table(est).state, est, model=on)
    assert sit.params.ron_scale == pytest.approx((by["free"]["riichi"] + 2 * by["free"]["dama"]) / 3, rel=1e-12)
    off = TableModel(ron_by_discarder=False, discard_mix=False)
    assert situation_of(_riichi_table(est).state, est, model=off).params.ron_scale == pytest.approx(est.hazard.ron_scale)
    tenpai = situation_of(_early_tenpai(est).state, est, model=on).params
    assert tenpai.ron_scale == pytest.approx(by["free"]["dama"], rel=1e-12)
    assert tenpai.riichi.ron_scale == pytest.approx(by["riichi"]["dama"], rel=1e-12)


def test_the_player_keeps_its_own_tie_net_when_cnn_bot_moves_on():
    """With ``tie`` on, the near-ties are ordered by the discard net the tie margin was chosen
    with (``cnn/models/mdp_ties``), not by cnn-bot's shipped one, which has changed since."""
    import torch

    from cnn.policy import DEFAULT_MODELS, load_nets
    from player.agents.mdp import TIE_NET

    agent = MdpAgent(tie=0.003, tie_by="cnn")
    own = dict(agent._net.nets["discard"].state_dict())
    ties = load_nets(TIE_NET, tasks=("discard",))["discard"].state_dict()
    shipped = load_nets(DEFAULT_MODELS, tasks=("discard",))["discard"].state_dict()
    assert all(torch.equal(own[k], ties[k]) for k in ties)
    assert not all(torch.equal(own[k], shipped[k]) for k in shipped)


def test_tie_net_names_the_folder_of_the_near_tie_net(tmp_path):
    """``tie_net``: another discard net orders the near-ties (here cnn-bot's shipped one); the
    run's model digests name that file; a folder without the net fails when the agent is built,
    naming the file; a net that nothing would read (``tie=0``) is an error, not silently left out."""
    import torch

    from cnn.policy import DEFAULT_MODELS, load_nets
    from game.errors import MahjongError, ModelFileError
    from player.registry import make_agent, model_files

    agent = make_agent(f"mdp:tie=0.003,tie_net={DEFAULT_MODELS}")
    own = dict(agent._net.nets["discard"].state_dict())
    shipped = load_nets(DEFAULT_MODELS, tasks=("discard",))["discard"].state_dict()
    assert all(torch.equal(own[k], shipped[k]) for k in shipped)
    assert Path(DEFAULT_MODELS) / "discard.pt" in model_files(f"mdp:tie=0.003,tie_net={DEFAULT_MODELS}")
    with pytest.raises(ModelFileError, match="discard.pt"):
        make_agent(f"mdp:tie=0.003,tie_net={tmp_path}")
    with pytest.raises(MahjongError, match="tie_net"):
        make_agent(f"mdp:tie=0,tie_net={DEFAULT_MODELS}")


def test_later_riichi_comes_as_the_riichi_share_of_the_projected_tenpai(est):
    """``later_riichi``: between our turns an opponent that may still declare (closed, not in
    riichi) does so with the rise of its projected tenpai chance times the share of tenpai
    hands in riichi (recomputed here from the estimators); the world after it deals in more
    (the declarer is tenpai for sure: ``p_wait`` itself) and ends sooner by another's win,
    and the hand is worth less for it. With every opponent in riichi none can come."""
    from abstractions.psm import solve_psm
    from abstractions.situation import TableModel, build_situation, hazard_turns
    from game.errors import MahjongError

    rounds = [("9p", {1: "9m", 2: "9s", 3: "1p"}), ("1m", {1: "N", 2: "S", 3: "W"}),
              ("2p", {1: "1s", 2: "8m", 3: "F"}), ("8s", {1: "P", 2: "1m", 3: "9s"})]
    agent = agent_at(events_for("123m 456p 77s 345s 59m", rounds, riichi={1: 2}, last_draw="N"), est)
    st = agent.state
    sit = situation_of(st, est, model=TableModel(later_riichi=True))
    later = sit.params.later_riichi
    T = sit.params.T
    d = est.decision(st)
    hz = est.hazards(st, d, hazard_turns(sit.t_max))
    # the table facing a riichi is computed only when asked for (the default player does not)
    assert hz.p_other_facing is None and hz.win_class_probs_riichi is None
    with pytest.raises(MahjongError, match="facing=True"):
        build_situation(st, d, est.final_rank, hazards=hz, model=TableModel(later_riichi=True))
    share = 1.0 - hz.dama_share
    rise = np.zeros((T, 4))
    for j in (2, 3):  # seat 1 is in riichi already
        tenpai = np.concatenate([[d.p_tenpai[j]], hz.p_tenpai_ahead[1:T + 1, j]])
        for n in range(T):
            rise[n, j] = share * max(tenpai[n + 1] - tenpai[n], 0.0) / (1.0 - share * tenpai[n])
    np.testing.assert_allclose(later.q, 1.0 - np.prod(1.0 - rise, axis=1), rtol=1e-9, atol=1e-15)
    assert 0.2 < 1.0 - np.prod(1.0 - later.q) < 0.9  # someone declares in many hands, not all
    after = later.params
    assert np.all(after.p_lose >= sit.params.p_lose) and after.p_lose.sum() > 1.5 * sit.params.p_lose.sum()
    assert np.mean(after.p_other[1:]) > np.mean(sit.params.p_other[1:])
    # the declarer then throws what it draws: its share of our waits becomes a riichi discarder's
    by = est.hazard.ron_share_by["free"]
    classes = {1: "riichi", 2: "dama", 3: "dama"}  # seat 1 in riichi, 2 and 3 closed
    before = sum(by[c] for c in classes.values())
    w = rise.sum(0)[1:] / rise.sum()
    ratio = sum(w[j - 1] * (before - by[classes[j]] + by["riichi"]) / before for j in (2, 3))
    assert after.ron_scale == pytest.approx(min(1.0, sit.params.ron_scale * ratio), rel=1e-9)
    assert after.ron_scale > sit.params.ron_scale  # a riichi holds back less than a closed hand
    g = agent._graph(sit, st)
    plain = situation_of(st, est)
    assert solve_psm(g, sit.params).best[1] < solve_psm(g, plain.params).best[1]
    everyone = events_for("123m 456p 77s 345s 59m", rounds, riichi={1: 1, 2: 2, 3: 3}, last_draw="N")
    assert situation_of(agent_at(everyone, est).state, est, model=TableModel(later_riichi=True)) \
        .params.later_riichi is None


def _ron_scale(folder: Path) -> float:
    """The table's ron share, read from the model file itself (not through the agent)."""
    import json

    return json.loads((folder / "hazard.json").read_text())["ron_scale"]


def test_the_player_takes_the_estimators_of_the_table_it_sits_at():
    """``table``: at three cnn-bots or three MDP players (their names in ``start_game``) the
    player reads the estimators fitted at that table, anywhere else the shipped mixture's; ``table=mixed``
    and a named table fix the choice; a new game forgets the last one's table."""
    from game.errors import MahjongError
    from player.agents.mdp import TABLES_DIR
    from regressors.estimators import DEFAULT_DIR

    table, mixed = _ron_scale(TABLES_DIR / "cnn-bot"), _ron_scale(DEFAULT_DIR)
    own = _ron_scale(TABLES_DIR / "mdp")
    assert len({table, mixed, own}) == 3

    def seated(spec: str, names: list[str]) -> MdpAgent:
        agent = make_agent(spec)
        agent.start_game(1)
        agent.observe({"type": "start_game", "names": names})
        return agent

    at_cnn = ["cnn-bot", "mdp", "cnn-bot", "cnn-bot"]
    agent = seated("mdp:tie=0,table=auto", at_cnn)
    assert agent.table_now == "cnn-bot" and agent.est.hazard.ron_scale == table
    agent.start_game(1)
    assert agent.table_now == "mixed" and agent.est.hazard.ron_scale == mixed
    for spec, names, want in [("mdp:tie=0,table=auto", ["cnn-bot", "mdp", "efficiency", "cnn-bot"], mixed),
                              ("mdp:tie=0,table=auto", ["efficiency", "mdp", "efficiency", "efficiency"], mixed),
                              ("mdp:tie=0,table=mixed", at_cnn, mixed),
                              # an opponent's options do not change whose table it is
                              ("mdp:tie=0,table=auto", ["cnn-bot:views=2", "mdp", "cnn-bot", "cnn-bot"], table),
                              # in self-play, three copies of the player: its own table
                              ("mdp:tie=0,table=auto", ["mdp:table=auto"] * 4, own),
                              ("mdp:tie=0,table=auto", ["mdp", "mdp", "mdp:tie=0", "cnn-bot"], mixed),
                              ("mdp:tie=0,table=mdp", ["a", "mdp", "b", "c"], own),
                              ("mdp:tie=0,table=cnn-bot", ["a", "mdp", "b", "c"], table)]:
        assert seated(spec, names).est.hazard.ron_scale == want, (spec, names)
    # estimators of its own (est_dir) are read at every table
    assert seated(f"mdp:tie=0,est_dir={DEFAULT_DIR}", at_cnn).est.hazard.ron_scale == mixed
    with pytest.raises(MahjongError, match="table"):
        make_agent("mdp:table=phoenix")
    with pytest.raises(MahjongError, match="two sets"):
        make_agent(f"mdp:table=cnn-bot,est_dir={DEFAULT_DIR}")


def test_a_game_names_its_players_and_counts_the_decisions_made_with_a_tables_estimators():
    """``play_game`` hands the agents' names in ``start_game`` (as an mjai server does); the
    player at three cnn-bots counts every decision as made with that table's estimators, at
    three ``efficiency`` none."""
    from player.agents.cnn_bot import CnnBot

    me = MdpAgent(tie=0, table="auto")
    play_game([CnnBot(), me, CnnBot(), CnnBot()], 5)
    assert me.state.names == ["cnn-bot", "mdp", "cnn-bot", "cnn-bot"]
    assert me.stats["decisions"] > 20 and me.stats["table_cnn-bot"] == me.stats["decisions"]
    me.stats.clear()
    play_game([EfficiencyAgent(), me, EfficiencyAgent(), EfficiencyAgent()], 5)
    assert me.stats["decisions"] > 20 and me.stats["table_cnn-bot"] == 0


def test_discard_mix_weighs_the_others_discards_by_class(est):
    """``discard_mix``: PSM's opponents' discards come by the shipped class weights
    (``regressors.discards.kind_weights`` on the graph's pool) and the ron shares turn by the file's factors, the other
    parameters the same; a dama shanpon on East (yakuhai in an East hand, its ron legal) and
    5m then wins more often, the others throwing winds more than their unseen share."""
    from abstractions.psm import solve_psm
    from abstractions.situation import TableModel
    from game.errors import ModelFileError
    from regressors import discards

    ev = events_for("123m 456p 789s EE 55m", [], last_draw="W")
    agent = agent_at(ev, est)
    st = agent.state
    plain = situation_of(st, est, model=TableModel(discard_mix=False))
    mixed = situation_of(st, est)  # on by default since session 44
    d = est.hazard.discards
    assert plain.params.p_disc is None and plain.params.disc_weight is None
    weights = discards.kind_weights(np.asarray(d["weights"]), st.tiles_left, plain.params.T)
    np.testing.assert_allclose(mixed.params.disc_weight, weights)
    # over the graph's pool, which at a call decision holds the tile on offer too
    pool = np.asarray(st.unseen, np.float64)
    pool[mjai_to_kind("5m")] += 1
    np.testing.assert_allclose(mixed.params.checked(pool).p_disc, pool * weights / (pool * weights).sum())
    assert mixed.params.ron_scale == pytest.approx(min(1.0, plain.params.ron_scale * d["ron_factor"]))
    assert mixed.params.riichi.ron_scale == pytest.approx(min(1.0, plain.params.riichi.ron_scale * d["ron_factor_riichi"]))
    np.testing.assert_array_equal(mixed.params.p_lose, plain.params.p_lose)
    np.testing.assert_array_equal(mixed.params.p_other, plain.params.p_other)
    g = agent._graph(plain, st)
    a, b = (solve_psm(g, s.params, drawn=st.drawn >> 2, track=True) for s in (plain, mixed))
    west, win = mjai_to_kind("W"), OUTCOMES.index("win")
    assert b.probs[west][win] > a.probs[west][win]
    assert make_agent("mdp").model.discard_mix and not make_agent("mdp:discard_mix=0").model.discard_mix
    bare = Estimators.default()
    bare.hazard = copy.copy(bare.hazard)
    bare.hazard.discards = None
    with pytest.raises(ModelFileError, match="discard weights"):
        MdpAgent(estimators=bare, discard_mix=True)


def test_ron_wall_gives_psm_a_ron_share_a_turn(est):
    """``ron_wall``: PSM's ron shares are the file's at each turn's wall (free, and in riichi
    for the twins), the other parameters the same; early in the hand a quiet wait is discarded
    more often than the hand's one share says, so the dama shanpon wins more often."""
    from abstractions.psm import solve_psm
    from abstractions.situation import TableModel
    from game.errors import MahjongError, ModelFileError
    from regressors import ron_wall

    ev = events_for("123m 456p 789s EE 55m", [], last_draw="W")
    agent = agent_at(ev, est)
    st = agent.state
    # the shares alone, without discard_mix's factors on them
    plain = situation_of(st, est, model=TableModel(discard_mix=False))
    walled = situation_of(st, est, model=TableModel(discard_mix=False, ron_wall=True))
    d, T = est.hazard.ron_wall, plain.params.T
    np.testing.assert_allclose(walled.params.ron_scale, ron_wall.per_turn(d, st.tiles_left, T, False))
    np.testing.assert_allclose(walled.params.riichi.ron_scale, ron_wall.per_turn(d, st.tiles_left, T, True))
    np.testing.assert_array_equal(walled.params.p_lose, plain.params.p_lose)
    np.testing.assert_array_equal(walled.params.p_other, plain.params.p_other)
    assert st.tiles_left >= 45 and d["free"][0] > plain.params.ron_scale
    g = agent._graph(plain, st)
    a, b = (solve_psm(g, s.params, drawn=st.drawn >> 2, track=True) for s in (plain, walled))
    west, win = mjai_to_kind("W"), OUTCOMES.index("win")
    assert b.probs[west][win] > a.probs[west][win]
    assert make_agent("mdp:ron_wall=1").model.ron_wall
    with pytest.raises(MahjongError, match="ron_by_discarder"):
        make_agent("mdp:ron_wall=1,ron_by_discarder=1")
    bare = Estimators.default()
    bare.hazard = copy.copy(bare.hazard)
    bare.hazard.ron_wall = None
    with pytest.raises(ModelFileError, match="ron_wall"):
        MdpAgent(estimators=bare, ron_wall=True)


def test_ron_points_pays_a_deal_in_into_a_riichi_at_its_ron_worth(est):
    """``ron_points``: each opponent's win classes are worth its class's ron factor when we pay
    its ron and its tsumo factor when it tsumo (the hazard file's ``ron_points``): the payoffs
    are those of a plain table on the scaled points, and a deal-in into the riichi (ron worth
    under its wins' mean) costs less than with the mean."""
    from abstractions.situation import RankTable, TableModel
    from game.errors import ModelFileError
    from regressors import ron_points

    ev = events_for("123m 456p 789s 34s 55m", [("9p", {1: "9m", 2: "9s", 3: "1p"})], riichi={1: 0},
                    last_draw="N")
    st = agent_at(ev, est).state
    plain, by = situation_of(st, est), situation_of(st, est, model=TableModel(ron_points=True))
    f_ron, f_tsumo = ron_points.factors(est.hazard.ron_points, st.riichi, [False] * 4)
    np.testing.assert_array_equal(by.table.points_by_way, [f_ron, f_tsumo])
    t = plain.table
    ron_only = RankTable(t.rank_model, t.ctx, t.win_points * f_ron[:, None], t.p_other_tsumo)
    np.testing.assert_allclose(by.table.u_lose_j[1:], ron_only.u_lose_j[1:])
    both = RankTable(t.rank_model, t.ctx, t.win_points * f_ron[:, None], t.p_other_tsumo,
                     np.stack([np.ones(4), f_tsumo / f_ron]))
    np.testing.assert_allclose(by.table.u_other_j[1:], both.u_other_j[1:])
    assert f_ron[1] < 1.0 and by.table.u_lose_j[1].mean() > t.u_lose_j[1].mean()
    assert make_agent("mdp:ron_points=1").model.ron_points
    bare = Estimators.default()
    bare.hazard = copy.copy(bare.hazard)
    bare.hazard.ron_points = None
    with pytest.raises(ModelFileError, match="ron_points"):
        MdpAgent(estimators=bare, ron_points=True)


def test_ron_payer_weighs_a_direct_hit_on_the_leader(est):
    """``ron_payer``, all-last, the leader (seat 1) in riichi: a 2,000-point ron paid by the
    leader makes us first, by either other second (game over: the ranks are exact), and the
    leader, throwing what it draws, pays our ron more often than the closed hands do
    (``ron_share_by``), so the ron is worth more than with the three payers alike."""
    from abstractions.situation import GRID, TableModel, ron_payers

    ev = events_for("123m 456p 777s 34s 55m", [("9p", {1: "9m", 2: "9s", 3: "1p"})], riichi={1: 0},
                    last_draw="N")
    ev[1].update(kyoku=4, oya=3, scores=[27000, 31500, 20750, 20750])
    st = agent_at(ev, est).state
    alike, by = situation_of(st, est), situation_of(st, est, model=TableModel(ron_payer=True))
    i = int(np.searchsorted(GRID, 2000.0))
    assert GRID[i] == 2000.0
    np.testing.assert_allclose(by.table.u_ron_grid_j[:, i], [-1.0, -2.0, -2.0])
    hz = est.hazards(st, est.decision(st), np.arange(1, 3))
    pay = ron_payers(hz, 0)
    np.testing.assert_allclose(pay.sum(1), 1.0)
    assert pay[0, 0] > pay[0, 1] == pay[0, 2] and pay[1, 0] > pay[0, 0]  # more so after our riichi
    np.testing.assert_array_equal(by.payoff.payer, pay[0])
    np.testing.assert_array_equal(by.params.riichi.payoff.payer, pay[1])
    two = np.array([2000.0])
    assert alike.table.u_win(two, False)[0] == pytest.approx(-5.0 / 3.0)
    assert by.table.u_win(two, False, by.payoff.payer)[0] == pytest.approx(-(pay[0, 0] + 2 * (1 - pay[0, 0])))
    assert by.table.u_win(two, True, by.payoff.payer)[0] == alike.table.u_win(two, True)[0]  # a tsumo: all pay


def test_the_hazard_reads_our_shanten_now(est):
    """A hazard file with our own hand's terms (session 54) gets the seat's shanten now from
    the table state: with weight on ``own_1_shanten`` only, the 1-shanten hand meets another's
    win more often in every interval than the tenpai and the 2-shanten hands, which meet it alike."""
    from regressors.base import LogReg
    from regressors.hazard import HAZARD_FEATURES

    fake = copy.copy(est)
    fake.hazard = copy.copy(est.hazard)
    fake.hazard.other = LogReg(HAZARD_FEATURES)
    fake.hazard.other.coef[0, HAZARD_FEATURES.index("own_1_shanten")] = 2.0
    fake.hazard.other.intercept[:] = -3.0
    q = np.arange(1, 4)
    p_other = {}
    for hand in ("123m 456p 777s 34s 55m", "123m 456p 777s 3s 9s 55m", "123m 456p 79s 11s 5m 9m 1p"):
        st = agent_at(events_for(hand, [("9p", {1: "9m", 2: "9s", 3: "1p"})], last_draw="N"), est).state
        sh = int(shanten(np.asarray(st.hand, np.uint8)))
        p_other[sh] = fake.hazards(st, fake.decision(st), q).p_other
    assert sorted(p_other) == [0, 1, 2]
    np.testing.assert_allclose(p_other[0], 1 / (1 + np.exp(3.0)))
    np.testing.assert_allclose(p_other[2], p_other[0])
    np.testing.assert_allclose(p_other[1], 1 / (1 + np.exp(1.0)))
