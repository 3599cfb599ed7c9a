"""The solitary MDPs against plain brute force (Kurita & Hoki Sec. VI-A, Eqs. 6-15).

Small instances (a few kinds, a few turns) are solved twice: by the retrograde kernel over the
reduced hand graph, and by a plainly written recursive expectimax over the same rules.
"""
from __future__ import annotations

import itertools
from dataclasses import replace
from functools import lru_cache

import numpy as np
import pytest
import riichienv

from abstractions import MDPParams, fsm_closed_form, fsm_dp, fsm_stop_values, solve_psm, solve_tsm, solve_wsm
from abstractions.params import LaterRiichi
from game.errors import MahjongError
from game.tiles import hand_counts
from search.hand_graph import build_graph
from search.retrograde import OUTCOMES

from graph_reference import draw_weights, useful_draws


def _complete(h) -> bool:
    return riichienv.calculate_shanten([4 * k + j for k in range(34) for j in range(int(h[k]))]) == -1


def _payoff(h14, tiles, tsumo):
    """A win payoff that depends on the hand, the winning tile and tsumo/ron."""
    h14 = np.atleast_2d(h14).astype(float)
    return 1.0 + 0.1 * (h14 @ np.arange(34) % 7) + 0.05 * np.asarray(tiles) + (0.3 if tsumo else 0.0)


class Brute:
    """Eqs. 6-10 written out recursively over hands as tuples (no graph, no arrays)."""

    def __init__(self, h0, unseen, p: MDPParams, members=None, allow_win=True, fold=True, locked=False,
                 event=None):
        self.h0, self.r0, self.p = np.asarray(h0, int), np.asarray(unseen, int), p.checked(unseen)
        self.members, self.allow_win, self.fold, self.locked = members, allow_win, fold, locked
        self.event = event  # (q, the Brute of the world after the event)
        self.VF = lru_cache(maxsize=None)(self._vf)
        self.ED = lru_cache(maxsize=None)(self._ed)

    def tenpai(self, h):
        return any(h[u] < 4 and _complete(_add(h, u)) for u in range(34))

    def uw(self, h):
        return self.p.u_tw if self.tenpai(h) else self.p.u_nw

    def po(self, h, n):
        """Another's win in interval ``n``: ``p_other``, times ``tenpai_other`` while tenpai."""
        return self.p.p_other[n] * (self.p.tenpai_other if self.tenpai(h) else 1.0)

    def furiten(self, h):
        """Tenhou's rule: any wait that may not be ronned forbids every ron."""
        return self.p.furiten and any(h[u] < 4 and _complete(_add(h, u)) and not self.p.ron_ok[u]
                                      for u in range(34))

    def vt(self, h, n):
        if n == self.p.T:  # the horizon: another's win after the last discard, else the washout
            po = self.po(h, n)
            return po * self.p.u_other + (1 - po) * self.uw(h)
        return self.VF(h, n)

    def _vf(self, h, n):
        p = self.p
        ed = self.ED(h, n)
        vr = ed
        for u in range(34):
            if p.p_disc[u] > 0:
                opts = [ed]
                if self.allow_win and p.ron_ok[u] and h[u] < 4 and _complete(_add(h, u)) and not self.furiten(h):
                    opts.append(float(_payoff(_add(h, u), [u], False)[0]) if callable(p.payoff) else p.payoff)
                rs = np.broadcast_to(p.ron_scale, (p.T,))[n]
                w = p.p_disc[u] * (rs if len(opts) > 1 else 1.0)  # a wait is discarded less
                vr += w * (max(opts) - ed)
        po = self.po(h, n)
        cont = po * p.u_other + (1 - po) * (p.p_end[n] * self.uw(h) + (1 - p.p_end[n]) * vr)
        if self.event is not None:
            q, after = self.event
            cont = (1 - q[n]) * cont + q[n] * after.VF(h, n)
        if self.fold:
            # the FSM order (Eq. 12), played from turn n with the deal-in chances of its turns
            order = fsm_closed_form(np.array(h), p.p_lose, p.u_lose, p=p.fsm_p, u_other=p.u_other,
                                    u_end=p.u_end, T=p.T - n).order
            seq = [t for t in order for _ in range(h[t])]
            growth = p.lose_growth[n:] if p.fold_growth else np.ones(p.T - n)
            # the hazard after the fold's i-th discard, made at turn n + i: P_O[n + i + 1]
            hazard = np.asarray(p.p_other)[n + 1:] if p.fold_turns else p.fsm_p
            stop = _fsm_sequence_value(seq, h, p.p_lose, p.u_lose, hazard, p.u_other, p.u_end,
                                       min(p.T - n, len(seq)), growth, tail=p.fold_tail)
            return max(cont, stop)
        return cont

    def _ed(self, h, n):
        left = [self.r0[u] - max(0, h[u] - self.h0[u]) for u in range(34)]
        wins = [left[u] > 0 and _complete(_add(h, u)) for u in range(34)]
        useful, share = useful_draws(h, left, wins, self.p, self._member, n)
        w = draw_weights(left, useful, share)
        return sum(w[u] * self.vd(h, u, n) for u in range(34) if left[u] > 0)

    def _member(self, c2, t):
        return self.members is None or _add(tuple(c2), t, -1) in self.members

    def vd(self, h, u, n):
        p = self.p
        c = _add(h, u)
        opts = []
        if self.allow_win and _complete(c):
            opts.append(float(_payoff(c, [u], True)[0]) if callable(p.payoff) else p.payoff)
            if p.tsumo_forced:
                return opts[0]
        for t in range(34):
            if c[t] == 0 or (self.locked and t != u):
                continue
            h2 = _add(c, t, -1)
            if self.members is not None and h2 not in self.members:
                continue
            pl = p.p_lose[t] * p.lose_growth[n]
            opts.append(pl * p.u_lose[t] + (1 - pl) * self.vt(h2, n + 1))
        return max(opts)

    def root_discard(self, t):
        p = self.p
        h2 = _add(tuple(int(x) for x in self.h0), t, -1)
        pl = p.p_lose[t] * p.lose_growth[0]
        return pl * p.u_lose[t] + (1 - pl) * self.vt(h2, 1)


def _add(h, u, k=1):
    c = list(h)
    c[u] += k
    return tuple(c)


def _params(rng, T, kinds, payoff=_payoff):
    pl = np.zeros(34)
    pl[kinds] = rng.uniform(0, 0.3, len(kinds))
    ul = np.zeros(34)
    ul[kinds] = rng.uniform(-3, -1.5, len(kinds))
    pd = np.zeros(34)
    pd[kinds] = rng.dirichlet(np.ones(len(kinds)))
    ron_ok = np.ones(34, bool)
    ron_ok[kinds[0]] = False  # furiten on one kind
    return MDPParams(T=T, p_lose=pl, u_lose=ul, p_other=rng.uniform(0, 0.3, T + 1),
                     lose_growth=rng.uniform(0.8, 2.5, T), ron_scale=rng.uniform(0.3, 1.0, T),
                     tenpai_other=float(rng.uniform(0.3, 1.0)), draw_share=rng.uniform(0.5, 2.5, T), u_other=-1.0,
                     p_end=rng.uniform(0, 0.1, T), progress_share=rng.uniform(0.5, 1.0, (3, T)), u_tw=0.4, u_nw=-0.6, p_disc=pd, ron_ok=ron_ok,
                     payoff=payoff, fsm_p=0.15)


CASES = [  # (hand, unseen counts over kinds from 1m, T, d)
    ("1123m", (2, 2, 3), 3, 6),
    ("11234m", (2, 3, 2), 3, 6),
    ("1122333m", (2, 2, 1), 3, 8),
    ("11223m", (2, 2, 3), 4, 1),     # reduced graph: only exchanges that stay within d = 1
    ("1112223m", (1, 1, 2), 2, 1),
    ("1245m", (2, 2, 2, 2, 2), 3, 3),    # 1 shanten: the draws that lower it (progress_share)
    ("12458m", (2, 2, 1, 2, 2, 0, 0, 1), 3, 3),
]


def _setup(text, un, T, d, seed):
    h = hand_counts(text)
    unseen = np.zeros(34, np.uint8)
    unseen[:len(un)] = un
    g = build_graph(h, unseen, d=d, m=0, riichi=False)
    members = {tuple(int(x) for x in row) for row in g.hands}
    return h, unseen, g, members, _params(np.random.default_rng(seed), T, np.arange(len(un)))


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("fold,furiten,fold_growth,fold_turns,fold_tail", [
    (True, False, False, False, False), (False, False, False, False, False), (True, True, False, False, False),
    (True, False, True, False, False), (True, False, True, True, False), (True, False, False, True, False),
    (True, False, False, False, True), (True, False, True, True, True)])
def test_psm_equals_brute_force(case, fold, furiten, fold_growth, fold_turns, fold_tail):
    h, unseen, g, members, p = _setup(*CASES[case], seed=case)
    p.fold = fold
    p.furiten = furiten
    p.fold_growth = fold_growth
    p.fold_turns = fold_turns
    p.fold_tail = fold_tail
    res = solve_psm(g, p)
    bf = Brute(h, unseen, p, members=members, fold=fold)
    if h.sum() % 3 == 2:
        assert set(res.discards) == set(np.flatnonzero(h).tolist())
        for t, v in res.discards.items():
            assert v == pytest.approx(bf.root_discard(t), abs=1e-12)
    else:
        key = tuple(int(x) for x in h)
        assert res.stay == pytest.approx(bf.VF(key, 0), abs=1e-12)
        assert res.pass_ == pytest.approx(bf.ED(key, 0), abs=1e-12)
    # every graph state at every horizon
    T = p.T
    for s in range(g.n_states):
        key = tuple(int(x) for x in g.hands[s])
        for k in range(1, T + 1):
            assert res.VF[s, k] == pytest.approx(bf.VF(key, T - k), abs=1e-12)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_psm_with_a_later_riichi_equals_brute_force(case):
    """An opponent's later riichi as a chance event (``later_riichi``): each turn with chance
    ``q[n]`` the hand goes on in a world of other deal-in chances, payoffs and hazards (solved
    first over the same graph), written out against the recursion."""
    h, unseen, g, members, p = _setup(*CASES[case], seed=40 + case)
    rng = np.random.default_rng(50 + case)
    after = _params(rng, p.T, np.array([0, 1, 2]))
    after.p_lose = np.minimum(p.p_lose + rng.uniform(0, 0.2, 34), 0.39)  # within the growth's bound
    q = rng.uniform(0.05, 0.6, p.T)
    p.later_riichi = LaterRiichi(q=q, params=after)
    res = solve_psm(g, p)
    bf = Brute(h, unseen, p, members=members, event=(q, Brute(h, unseen, after, members=members)))
    if h.sum() % 3 == 2:
        for t, v in res.discards.items():
            assert v == pytest.approx(bf.root_discard(t), abs=1e-12)
    else:
        key = tuple(int(x) for x in h)
        assert res.stay == pytest.approx(bf.VF(key, 0), abs=1e-12)
    for s in range(g.n_states):
        key = tuple(int(x) for x in g.hands[s])
        for k in range(1, p.T + 1):
            assert res.VF[s, k] == pytest.approx(bf.VF(key, p.T - k), abs=1e-12)
    # the same world after the event changes nothing, whatever its chance
    p.later_riichi = LaterRiichi(q=q, params=replace(p, later_riichi=None))
    same = solve_psm(g, p)
    p.later_riichi = None
    np.testing.assert_allclose(same.VF[:, 1:], solve_psm(g, p).VF[:, 1:], rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", range(len(CASES) - 1))  # the last folds at once (split): no event to follow
@pytest.mark.parametrize("split", [False, True])
def test_endings_follow_a_later_riichi(case, split):
    """The tracked endings follow the event into the world after it: with the same payoff
    per ending in both worlds (other chances, hazards and growth after it) the value is
    sum P(ending) * payoff for every action, folds included with ``split_fold``; without the
    event's endings (the world alone) the same sum misses the value."""
    h, unseen, g, members, p = _setup(*CASES[case], seed=60 + case)
    rng = np.random.default_rng(70 + case)
    p.payoff, p.u_lose, p.u_nw, p.u_tw = 0.25, np.full(34, -2.0), 0.3, 0.2
    p.fold, p.split_fold = split, split
    after = replace(p, p_lose=np.minimum(p.p_lose + rng.uniform(0, 0.2, 34), 0.39) * (p.p_lose > 0),
                    p_other=rng.uniform(0.2, 0.5, p.T + 1), p_end=rng.uniform(0, 0.1, p.T),
                    lose_growth=np.ones(p.T), split_fold=False)  # it follows this world's split_fold
    p.later_riichi = LaterRiichi(q=rng.uniform(0.2, 0.6, p.T), params=after)
    res = solve_psm(g, p)
    pay = {"win": 0.25, "lose": -2.0, "other_win": p.u_other, "tenpai_washout": 0.2, "noten_washout": 0.3}
    _assert_endings_explain_values(res, pay)
    alone = solve_psm(g, replace(p, later_riichi=None))
    vec = np.array([pay.get(o, 0.0) for o in OUTCOMES])
    miss = max(abs(float(alone.probs[a] @ vec) - v) for a, v in res.discards.items()) if res.discards \
        else abs(float(alone.probs["stay"] @ vec) - res.stay)
    assert miss > 1e-3


@pytest.mark.parametrize("case", range(len(CASES)))
def test_ending_probabilities_explain_the_value(case):
    """Without fold and with one payoff per ending, value = sum P(ending) * payoff(ending)."""
    h, unseen, g, members, p = _setup(*CASES[case], seed=10 + case)
    p.fold = False
    p.payoff = 2.5
    p.u_lose = np.full(34, -2.0)
    _assert_endings_explain_values(solve_psm(g, p), {"win": 2.5, "lose": -2.0, "other_win": p.u_other,
                                                     "tenpai_washout": p.u_tw, "noten_washout": p.u_nw})


def _assert_endings_explain_values(res, pay: dict) -> None:
    """Every action's endings sum to 1, none is ``fold``, and sum P(ending) * ``pay`` is its value."""
    vec = np.array([pay.get(o, 0.0) for o in OUTCOMES])
    for action, pr in res.probs.items():
        assert pr.sum() == pytest.approx(1.0, abs=1e-12)
        assert pr[OUTCOMES.index("fold")] == 0.0
        value = {"stay": res.stay, "pass": res.pass_, "tsumo": res.tsumo}.get(action)
        value = res.discards[action] if value is None else value
        assert float(pr @ vec) == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("fold_growth,fold_turns,fold_tail", [(False, False, False), (True, False, False),
                                                             (True, True, False), (False, False, True),
                                                             (True, True, True)])
def test_split_folds_end_as_their_value_says(fold_growth, fold_turns, fold_tail):
    """With ``split_fold`` a planned fold ends as the FSM's own discards would, from the state
    and turn it is made at: then, with one payoff per ending (the fold's end paid ``u_nw``),
    value = sum P(ending) * payoff for every action, folds included. Without it the same
    mass shows as ``fold``, and win and tenpai washout stay as they were."""
    folded = 0.0
    for case in range(len(CASES)):
        h, unseen, g, members, p = _setup(*CASES[case], seed=10)
        # dangerous discards, a washout worth more than a win: PSM folds
        p.p_lose = np.where(p.p_lose > 0, 0.3, 0.0)
        p.u_lose = np.full(34, -2.0)
        p.lose_growth = np.random.default_rng(10).uniform(0.3, 1.5, p.T)
        p.u_nw, p.u_tw, p.payoff = 0.3, 0.2, 0.25
        p.fold_growth, p.fold_turns, p.fold_tail = fold_growth, fold_turns, fold_tail
        plain = solve_psm(g, p)
        split = solve_psm(g, replace(p, split_fold=True))
        _assert_endings_explain_values(split, {"win": 0.25, "lose": -2.0, "other_win": p.u_other,
                                               "tenpai_washout": 0.2, "noten_washout": 0.3})
        for action, pr in split.probs.items():
            before = plain.probs[action]
            folded += before[OUTCOMES.index("fold")]
            for o in ("win", "tenpai_washout"):
                assert pr[OUTCOMES.index(o)] == pytest.approx(before[OUTCOMES.index(o)], abs=1e-12)
            assert pr[:5].sum() - before[:5].sum() == pytest.approx(before[5], abs=1e-12)
    assert folded > 0.1  # the parameters do make PSM fold


@pytest.mark.parametrize("case", range(len(CASES)))
def test_wsm_and_tsm_equal_brute_force(case):
    h, unseen, g, members, p = _setup(*CASES[case], seed=20 + case)
    wsm = solve_wsm(g, p)
    tsm = solve_tsm(g, p)
    bw = Brute(h, unseen, MDPParams(**{**p.__dict__, "p_lose": np.zeros(34), "p_other": 0.0, "u_tw": 0.0,
                                       "u_nw": 0.0}), members=members, fold=False)
    bt = Brute(h, unseen, MDPParams(**{**p.__dict__, "p_lose": np.zeros(34), "p_other": 0.0, "u_tw": 1.0,
                                       "u_nw": 0.0}), members=members, fold=False, allow_win=False)
    if h.sum() % 3 == 2:
        for t in wsm.discards:
            assert wsm.discards[t] == pytest.approx(bw.root_discard(t), abs=1e-12)
            assert tsm.discards[t] == pytest.approx(bt.root_discard(t), abs=1e-12)
            assert tsm.prob(t, "tenpai_washout") == pytest.approx(tsm.discards[t], abs=1e-12)
            assert 0.0 <= wsm.prob(t, "win") <= 1.0
    else:
        key = tuple(int(x) for x in h)
        assert wsm.stay == pytest.approx(bw.VF(key, 0), abs=1e-12)
        assert tsm.stay == pytest.approx(bt.VF(key, 0), abs=1e-12)
        assert tsm.prob("stay", "tenpai_washout") == pytest.approx(tsm.stay, abs=1e-12)


def test_wsm_win_probability_is_the_value_with_unit_payoff():
    h, unseen, g, members, p = _setup(*CASES[1], seed=3)
    p.payoff = 1.0
    res = solve_wsm(g, p)
    for t, v in res.discards.items():
        assert res.prob(t, "win") == pytest.approx(v, abs=1e-12)


def test_riichi_locks_the_hand():
    h, unseen, g, members, p = _setup("11234m", (2, 3, 2), 3, 6, seed=4)
    res = solve_psm(g, p, riichi=True)
    bf = Brute(h, unseen, p, members=members, fold=False, locked=True)
    for t, v in res.discards.items():
        assert v == pytest.approx(bf.root_discard(t), abs=1e-12)


# --- FSM ------------------------------------------------------------------------------

def _fsm_sequence_value(seq, h0, pl, ul, p, uo, ue, N, growth=None, tail=False):
    """Value of discarding ``seq`` in order (Eq. 11 unrolled for a fixed sequence); the
    ``i``-th discard's deal-in chance times ``growth[i]`` when given, another's win after it
    at ``p``, or at ``p[i]`` when ``p`` is a sequence (the hazard of the turn it is made in);
    after the last one too with ``tail``, then ``ue``."""
    value, alive, opened = 0.0, 1.0, set()
    for i, t in enumerate(seq[:N]):
        lam = 0.0 if t in opened else pl[t] * (1.0 if growth is None else growth[i])
        opened.add(t)
        value += alive * lam * ul[t]
        alive *= 1 - lam
        if i + 1 < N or tail:
            pi = p if np.ndim(p) == 0 else p[i]
            value += alive * pi * uo
            alive *= 1 - pi
    return value + alive * ue


def _fsm_instance(rng):
    K = int(rng.integers(2, 5))
    kinds = rng.choice(34, K, replace=False)
    h = np.zeros(34, np.uint8)
    h[kinds] = rng.integers(1, 3, K)
    pl = np.zeros(34)
    pl[kinds] = rng.uniform(0, 0.3, K) * (rng.random(K) > 0.25)
    ul = np.zeros(34)
    ul[kinds] = rng.uniform(-3, -1, K)
    return h, pl, ul, float(rng.uniform(0.02, 0.3)), float(rng.uniform(-1, 0.5)), float(rng.uniform(-1, 1))


@pytest.mark.parametrize("seed", range(40))
def test_fsm_dp_is_the_best_discard_sequence(seed):
    """The optimal FSM policy is a fixed sequence (chance only ends the MDP): brute force all."""
    rng = np.random.default_rng(seed)
    h, pl, ul, p, uo, ue = _fsm_instance(rng)
    tiles = [int(t) for t in np.flatnonzero(h) for _ in range(h[t])]
    for T in (1, 2, len(tiles) - 1, len(tiles) + 3):
        if T < 1:
            continue
        N = min(T, len(tiles))
        best = max(_fsm_sequence_value(s, h, pl, ul, p, uo, ue, N) for s in set(itertools.permutations(tiles)))
        assert fsm_dp(h, pl, ul, p=p, u_other=uo, u_end=ue, T=T).value == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_fsm_fold_tail_meets_the_last_interval(seed):
    """``tail``: the fold's last discard meets another's win too. With one hazard and ``T >= N0``
    the closed form is still the best of every order (brute force); with a hazard by turn and
    growth it is Eq. 12's order played with the last interval counted, at every horizon."""
    rng = np.random.default_rng(2000 + seed)
    h, pl, ul, p, uo, ue = _fsm_instance(rng)
    tiles = [int(t) for t in np.flatnonzero(h) for _ in range(h[t])]
    n0 = len(tiles)
    best = max(_fsm_sequence_value(s, h, pl, ul, p, uo, ue, n0, tail=True) for s in set(itertools.permutations(tiles)))
    for T in (n0, n0 + 2):
        assert fsm_stop_values(h[None], pl, ul, p, uo, ue, T, np.ones(T), tail=True)[0, T] == pytest.approx(best, abs=1e-12)
    T = n0 + 1
    pv, g = rng.uniform(0.02, 0.3, T + 1), rng.uniform(0.5, 1.5, T)
    seq = [t for t in fsm_closed_form(h, pl, ul, p=p, u_other=uo, u_end=ue, T=T).order for _ in range(h[t])]
    values = fsm_stop_values(h[None], pl, ul, p, uo, ue, T, g, p_turns=pv, tail=True)[0]
    plain = fsm_stop_values(h[None], pl, ul, p, uo, ue, T, g, p_turns=pv)[0]
    for k in range(1, T + 1):
        n, N = T - k, min(k, n0)
        assert values[k] == pytest.approx(_fsm_sequence_value(seq, h, pl, ul, pv[n + 1:], uo, ue, N, g[n:], tail=True),
                                          abs=1e-12)
        assert plain[k] == pytest.approx(_fsm_sequence_value(seq, h, pl, ul, pv[n + 1:], uo, ue, N, g[n:]), abs=1e-12)
    assert values[0] == plain[0] == ue  # no discard left: the washout


@pytest.mark.parametrize("seed", range(200))
def test_fsm_closed_form_equals_retrograde(seed):
    rng = np.random.default_rng(1000 + seed)
    h, pl, ul, p, uo, ue = _fsm_instance(rng)
    n0 = int(h.sum())
    for T in (n0, n0 + 5):
        cf = fsm_closed_form(h, pl, ul, p=p, u_other=uo, u_end=ue, T=T)
        dp = fsm_dp(h, pl, ul, p=p, u_other=uo, u_end=ue, T=T)
        assert cf.value == pytest.approx(dp.value, abs=1e-12)
        assert cf.p_lose == pytest.approx(dp.p_lose, abs=1e-9)
        assert cf.u_lose_bar == pytest.approx(dp.u_lose_bar, abs=1e-9)
        # Eq. 15: the value splits by the lose condition, and the rest agrees with the DP's rest
        assert cf.value - cf.p_lose * cf.u_lose_bar == pytest.approx(dp.value - dp.p_lose * dp.u_lose_bar, abs=1e-9)
        assert fsm_stop_values(h[None], pl, ul, p, uo, ue, T, np.ones(T))[0, T] == pytest.approx(cf.value, abs=1e-12)
    # a binding horizon: the closed form is a lower bound of the exact optimum
    for T in range(1, n0):
        cf = fsm_closed_form(h, pl, ul, p=p, u_other=uo, u_end=ue, T=T)
        assert cf.value <= fsm_dp(h, pl, ul, p=p, u_other=uo, u_end=ue, T=T).value + 1e-12


def test_fsm_discards_safe_kinds_first():
    h = hand_counts("19m5p")
    pl = np.zeros(34)
    pl[hand_counts("9m").argmax()] = 0.2
    pl[hand_counts("5p").argmax()] = 0.1
    ul = np.full(34, -2.0)
    res = fsm_closed_form(h, pl, ul, p=0.1, u_other=-0.5, u_end=0.0, T=3)
    assert res.order[0] == 0  # 1m is safe


def test_bad_params_raise():
    h = hand_counts("1123m")
    unseen = np.zeros(34, np.uint8)
    unseen[:3] = 2
    g = build_graph(h, unseen, d=3, m=0, riichi=False)
    with pytest.raises(MahjongError):
        solve_psm(g, MDPParams(T=0))
    with pytest.raises(MahjongError):
        solve_psm(g, MDPParams(T=3, p_other=np.zeros(2)))
    with pytest.raises(MahjongError):
        solve_psm(g, MDPParams(T=3, p_lose=np.full(34, 1.5)))


@pytest.mark.parametrize("tail", [False, True])
def test_fold_endings_decompose_the_closed_form_value(tail):
    """A fold's endings as the endings kernel splits it (Eq. 14's lose probability and its
    siblings, another's win and the end), over the whole horizon, give back Eq. 13; with
    ``tail`` (another's win after the last discard too) Eq. 13 whose end is paid that mixture."""
    from abstractions.fsm import fsm_fold_chances
    from search.retrograde import _fold_row

    rng = np.random.default_rng(1)
    for _ in range(200):
        h = np.zeros(34, np.int64)
        k = rng.choice(34, 5, replace=False)
        h[k] = rng.integers(1, 4, 5)
        pl = rng.uniform(0, 0.3, 34)
        pl[rng.choice(34, 10)] = 0
        ul = rng.uniform(-4, -3, 34)
        p, T = rng.uniform(0.02, 0.3), int(rng.integers(1, 20))
        r = fsm_closed_form(h, pl, ul, p=p, u_other=-2.5, u_end=p * -2.5 + (1 - p) * -2.2 if tail else -2.2, T=T)
        row = np.zeros(4)  # slots: lose, another's win, the end, fold
        _fold_row(row, fsm_fold_chances(h[None], pl, ul, p, -2.5), 0, T, T, np.ones(T), np.full(T + 1, p), tail,
                  0, 1, 2, 3)
        lose, other, end, fold = row
        assert fold == 0.0
        assert lose == pytest.approx(r.p_lose, abs=1e-12)
        assert lose + other + end == pytest.approx(1.0, abs=1e-12)
        assert lose * r.u_lose_bar + other * -2.5 + end * -2.2 == pytest.approx(r.value, abs=1e-9)


def test_fold_chances_follow_the_closed_form_order():
    """Each hand's fold discards in Eq. 12's order: the first of a kind at ``P_L``, its repeats safe."""
    from abstractions.fsm import fsm_fold_chances

    rng = np.random.default_rng(2)
    hands = np.zeros((50, 34), np.uint8)
    for row in hands:
        row[rng.choice(34, 5, replace=False)] = rng.integers(1, 4, 5)
    pl, ul = rng.uniform(0, 0.3, 34), rng.uniform(-4, -3, 34)
    lam = fsm_fold_chances(hands, pl, ul, 0.1, -2.5)
    assert lam.shape == (50, int(hands.sum(axis=1).max()))
    for h, row in zip(hands, lam):
        order = fsm_closed_form(h, pl, ul, p=0.1, u_other=-2.5, u_end=-2.2, T=20).order
        want = [pl[t] if c == 0 else 0.0 for t in order for c in range(int(h[t]))]
        np.testing.assert_array_equal(row[:len(want)], want)
        assert np.isnan(row[len(want):]).all()
