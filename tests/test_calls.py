"""Calls (TAKE, Eq. 10) and the riichi twin (Sec. VI-E, spec A11) against plain brute force.

* The graph: the states with ``m`` revealed mentsu equal the set written from the definition of
  step 4 (``H1`` by plain enumeration, then every way to expose up to ``m`` of a hand's mentsu),
  the riichi twins are the closed tenpai hands, and the TAKE options equal a plain listing
  (every pon / chi of a kind with a copy left, every discard but kuikae that stays in ``H``).
* The solve: small instances (a few kinds, a few turns) with calls and riichi are solved by the
  retrograde kernel and by a recursive expectimax written out from the equations over hands as
  tuples; every state's value at every horizon agrees to 1e-12. Open full-size hands need a
  yaku, judged here by the ``mahjong`` library (the graph's payoffs use our own scorer).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
import riichienv

from abstractions import MDPParams, RiichiParams, fsm_closed_form, solve_psm, solve_tsm, solve_wsm
from game.errors import MahjongError
from game.tiles import hand_counts, mjai_to_kind
from search.hand_graph import CHI_CODE, build_graph

from graph_reference import draw_weights, reference_h1, useful_draws

NAN = float("nan")


def _shanten(c) -> int:
    return riichienv.calculate_shanten([4 * k + j for k in range(34) for j in range(int(c[k]))])


def _complete(c) -> bool:
    return _shanten(c) == -1


def _add(h, u, k=1):
    c = list(h)
    c[u] += k
    return tuple(c)


def _meld_tiles(code: int) -> list[int]:
    return [code] * 3 if code < CHI_CODE else [code - CHI_CODE + q for q in range(3)]


def _all_codes():
    return list(range(34)) + [CHI_CODE + k for k in range(27) if k % 9 <= 6]


def _fits(c, code) -> bool:
    need = {}
    for k in _meld_tiles(code):
        need[k] = need.get(k, 0) + 1
    return all(c[k] >= v for k, v in need.items())


def _take(c, code, sign=-1):
    c = list(c)
    for k in _meld_tiles(code):
        c[k] += sign
    return tuple(c)


# --- the graph from its definition ----------------------------------------------------------

def _reference_h(h1, m):
    """Step 4: every hand of H1 with <= m of its mentsu revealed -> (concealed, sorted codes)."""
    out = set()
    for h in h1:
        frontier = {(h, ())}
        out.add((h, ()))
        for _ in range(m):
            nxt = set()
            for c, codes in frontier:
                if sum(c) < 4:
                    continue
                for code in _all_codes():
                    if (not codes or code >= codes[-1]) and _fits(c, code):
                        nxt.add((_take(c, code), codes + (code,)))
            out |= nxt
            frontier = nxt
    return out


def _states(g):
    return [(tuple(int(x) for x in g.hands[s]), tuple(int(c) for c in g.melds[s] if c >= 0), bool(g.riichi[s]))
            for s in range(g.n_states)]


def _left(g, st, u):
    c, codes, _ = st
    full = list(c)
    for code in codes:
        for k in _meld_tiles(code):
            full[k] += 1
    return int(g.unseen[u]) - max(0, full[u] - int(g.root[u]))


def _call_options(c, u):
    """(code, kuikae-forbidden kinds) of every pon / chi of ``u`` that ``c`` can make."""
    out = []
    if c[u] >= 2:
        out.append((u, {u}))
    if u < 27:
        for a in (u - 2, u - 1, u):
            if a < 0 or a // 9 != u // 9 or a % 9 > 6:
                continue
            if all(c[q] >= 1 for q in range(a, a + 3) if q != u):
                bad = {u}
                if u == a and a % 9 < 6:
                    bad.add(a + 3)
                if u == a + 2 and a % 9 > 0:
                    bad.add(a - 1)
                out.append((CHI_CODE + a, bad))
    return out


@pytest.mark.parametrize("text,d,m", [
    ("123m456p34578s11z", 1, 2),
    ("1239m456p3478s112z", 1, 1),
    ("223344m5p", 1, 2),
])
def test_states_and_calls_equal_the_definition(text, d, m):
    h = hand_counts(text)
    unseen = (4 - h).astype(np.uint8)
    g = build_graph(h, unseen, d=d, m=m)
    h1 = reference_h1(h, unseen.astype(int), d)
    want = {(c, codes, False) for c, codes in _reference_h(h1, m)}
    want |= {(c, (), True) for c in h1 if any(c[u] < 4 and _complete(_add(c, u)) for u in range(34))}
    mine = _states(g)
    assert len(set(mine)) == g.n_states  # no two states share a key
    assert set(mine) == want
    assert g.n_h1 == len(h1) and g.n_open == len(want) - len(h1) - g.n_twins
    index = {st: i for i, st in enumerate(mine)}
    for s, st in enumerate(mine):
        c, codes, locked = st
        assert (g.twin[s] >= 0) == (not codes and not locked and (c, (), True) in index)
        got = {(int(g.call_tile[k]), bool(g.call_chi[k]), int(g.call_mem_tile[e]), int(g.call_mem_succ[e]))
               for k in range(g.call_ptr[s], g.call_ptr[s + 1]) for e in range(g.call_mem[k], g.call_mem[k + 1])}
        expect = set()
        if not locked and len(codes) < m:
            for u in range(34):
                if _left(g, st, u) <= 0:
                    continue
                for code, bad in _call_options(c, u):
                    x = _take(_add(c, u), code)
                    new = tuple(sorted(codes + (code,)))
                    for t in range(34):
                        if x[t] > 0 and t not in bad and (_add(x, t, -1), new, False) in index:
                            expect.add((u, code >= CHI_CODE, t, index[(_add(x, t, -1), new, False)]))
        assert got == expect, (s, st)
        # the calls of a state are listed by kind, ascending
        kinds = g.call_tile[g.call_ptr[s]:g.call_ptr[s + 1]].tolist()
        assert kinds == sorted(kinds)


def test_budget_lowers_m_before_d():
    h = hand_counts("123m456p34578s11z")
    g = build_graph(h, (4 - h).astype(np.uint8), d=2, m=2, max_states=2_000)
    assert g.d == 2 and g.m < 2 and g.n_states - g.n_twins <= 2_000


def test_root_melds_bound_the_calls_and_stop_riichi():
    h = hand_counts("1123m")
    unseen = np.zeros(34, np.uint8)
    unseen[:4] = (2, 2, 2, 3)
    g = build_graph(h, unseen, d=3, m=2, melds=[("chi", 18), ("pon", 17), ("pon", 26)])
    assert g.m == 1 and g.n_twins == 0
    assert (g.melds[:, 1] < 0).all() and g.n_open > 0
    with pytest.raises(MahjongError):
        build_graph(h, unseen, melds=[("chi", 18)] * 4)


# --- brute force ---------------------------------------------------------------------------

def _lib_yaku(conc14, codes, root_melds, win, tsumo, seat, rnd) -> bool:
    """Whether the ``mahjong`` library finds a yaku in the completed hand."""
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld

    used = [0] * 34

    def ids(kinds):
        out = []
        for k in kinds:
            out.append(4 * k + used[k])
            used[k] += 1
        return out

    melds = [(0 if code >= CHI_CODE else 1, code - CHI_CODE if code >= CHI_CODE else code) for code in codes]
    lib = []
    meld_ids = []
    for t, k in list(root_melds) + melds:
        kinds = [k, k + 1, k + 2] if t == 0 else [k] * 3
        mi = ids(kinds)
        meld_ids += mi
        lib.append(Meld(meld_type=Meld.CHI if t == 0 else Meld.PON, tiles=mi, opened=True))
    conc = [k for k in range(34) for _ in range(conc14[k])]
    conc.remove(win)
    conc_ids = ids(conc)
    win_id = ids([win])[0]
    config = HandConfig(is_tsumo=tsumo, player_wind=EAST + seat, round_wind=EAST + rnd,
                        options=OptionalRules(has_open_tanyao=True, has_aka_dora=True))
    r = HandCalculator().estimate_hand_value(conc_ids + [win_id] + meld_ids, win_id, melds=lib, config=config)
    return not r.error and (r.han or 0) > 0


def _payoff(h14, tiles, tsumo, melds=None):
    h14 = np.atleast_2d(h14).astype(float)
    extra = 0.0 if melds is None else 0.07 * (np.asarray(melds)[:, :, 0] >= 0).sum(1)
    return 1.0 + 0.1 * (h14 @ np.arange(34) % 7) + 0.05 * np.asarray(tiles) + (0.3 if tsumo else 0.0) - extra


def _riichi_payoff(h14, tiles, tsumo, melds=None):
    return _payoff(h14, tiles, tsumo, melds) + 0.6


class Brute:
    """Eqs. 6-10 with TAKE and the riichi twin, written out over (concealed, melds, locked)."""

    def __init__(self, g, p: MDPParams, root_melds=()):
        self.g, self.p = g, p.checked(g.unseen)
        self.h0 = [int(x) for x in g.root]
        self.r0 = [int(x) for x in g.unseen]
        self.members = set(_states(g))
        self.root_melds = [tuple(int(x) for x in r) for r in root_melds]
        r = p.riichi
        base = self.p
        self.cls = [dict(p_lose=base.p_lose, u_lose=base.u_lose, p_other=base.p_other, u_other=base.u_other,
                         p_end=base.p_end, u_tw=base.u_tw, u_nw=base.u_nw, p_disc=base.p_disc,
                         ron_scale=base.ron_scale, g_lose=base.lose_growth, t_other=base.tenpai_other)]
        if r is not None:
            self.cls.append(dict(p_lose=r.p_lose, u_lose=base.u_lose - r.stick, p_other=r.p_other,
                                 u_other=base.u_other - r.stick, p_end=r.p_end, u_tw=base.u_tw - r.stick,
                                 u_nw=base.u_nw - r.stick, p_disc=r.p_disc,
                                 ron_scale=base.ron_scale if r.ron_scale is None else r.ron_scale,
                                 g_lose=base.lose_growth if r.lose_growth is None else r.lose_growth,
                                 t_other=1.0))  # the locked states' p_other is their own
            for key in ("p_other", "p_end"):
                self.cls[1][key] = np.broadcast_to(np.asarray(self.cls[1][key], float), (base.T,))
        for q in self.cls:  # a number or one a turn
            q["ron_scale"] = np.broadcast_to(np.asarray(q["ron_scale"], float), (base.T,))
        self.VF = lru_cache(maxsize=None)(self._vf)
        self.ED = lru_cache(maxsize=None)(self._ed)
        self.win_value = lru_cache(maxsize=None)(self._win_value)

    def full(self, st):
        c = list(st[0])
        for code in st[1]:
            for k in _meld_tiles(code):
                c[k] += 1
        return c

    def left(self, st, u):
        return self.r0[u] - max(0, self.full(st)[u] - self.h0[u])

    def wins(self, st):
        f = self.full(st)
        return [u for u in range(34) if f[u] < 4 and _complete(_add(st[0], u))]

    def _win_value(self, st, u, tsumo):
        c, codes, locked = st
        c14 = _add(c, u)
        if self.p.yaku and (codes or self.root_melds) and sum(c) + 3 * (len(codes) + len(self.root_melds)) == 13:
            if not _lib_yaku(c14, codes, self.root_melds, u, tsumo, self.p.seat_wind, self.p.round_wind):
                return NAN
        rows = None
        if codes or self.root_melds:
            rows = np.full((1, 4, 2), -1)
            for j, r in enumerate(self.root_melds + [(0, x - CHI_CODE) if x >= CHI_CODE else (1, x) for x in codes]):
                rows[0, j] = r
        pay = self.p.riichi.payoff if locked else self.p.payoff
        return float(pay(np.array(c14)[None], [u], tsumo, *(() if rows is None else (rows,)))[0])

    def uw(self, st):
        q = self.cls[int(st[2])]
        return q["u_tw"] if self.wins(st) else q["u_nw"]

    def vt(self, st, n):
        return self.uw(st) if n == self.p.T else self.VF(st, n)

    def discard_value(self, st, t, n, cls):
        q = self.cls[cls]
        pl = q["p_lose"][t] * q["g_lose"][n]  # a riichi declaration discards as a free hand (cls 0)
        return pl * q["u_lose"][t] + (1 - pl) * self.vt(st, n + 1)

    def _vf(self, st, n):
        p = self.p
        c, codes, locked = st
        q = self.cls[int(locked)]
        ed = self.ED(st, n)
        wins = self.wins(st)
        options = {}  # kind -> (ron values, pon values, chi values)
        for u in range(34):
            if q["p_disc"][u] == 0:
                continue
            rons = []
            if p.ron_ok[u] and u in wins:
                v = self.win_value(st, u, False)
                if v == v:
                    rons.append(v)
            pons, chis = [], []
            if not locked and p.calls and self.left(st, u) > 0:
                for code, bad in _call_options(c, u):
                    x = _take(_add(c, u), code)
                    new = tuple(sorted(codes + (code,)))
                    vals = [self.discard_value((_add(x, t, -1), new, False), t, n, 0) for t in range(34)
                            if x[t] > 0 and t not in bad and (_add(x, t, -1), new, False) in self.members]
                    if vals:
                        (chis if code >= CHI_CODE else pons).append(max(vals))
            options[u] = (rons, pons, chis)
        # the opponents' discards of the turn, the last one first (chi weight of each)
        vr = ed
        for cw in reversed([p.p_chi] if p.discards_per_turn == 1 else [0.0, 0.0, 1.0]):
            nxt = 0.0
            for u, (rons, pons, chis) in options.items():
                v0 = max([vr] + rons + pons)
                v1 = max([v0] + chis)
                w = q["p_disc"][u] * (q["ron_scale"][n] if rons else 1.0)  # a wait is discarded less
                nxt += w * ((1 - cw) * v0 + cw * v1) + (q["p_disc"][u] - w) * vr
            vr = nxt
        po, pe = q["p_other"][n] * (q["t_other"] if self.wins(st) else 1.0), q["p_end"][n]
        cont = po * q["u_other"] + (1 - po) * (pe * self.uw(st) + (1 - pe) * vr)
        if p.fold and not locked:
            stop = fsm_closed_form(np.array(c), p.p_lose, p.u_lose, p=p.fsm_p, u_other=p.u_other,
                                   u_end=p.u_end, T=p.T - n).value
            return max(cont, stop)
        return cont

    def _ed(self, st, n):
        left = [self.left(st, u) for u in range(34)]
        wins = set(self.wins(st))
        c, codes, locked = st
        useful, share = useful_draws(c, left, [u in wins for u in range(34)], self.p,
                                     lambda c2, t: (_add(tuple(c2), t, -1), codes, locked) in self.members, n)
        w = draw_weights(left, useful, share)
        return sum(w[u] * self.vd(st, u, n) for u in range(34) if left[u] > 0)

    def vd(self, st, u, n):
        c, codes, locked = st
        c2 = _add(c, u)
        opts = []
        if u in self.wins(st):
            v = self.win_value(st, u, True)
            if v == v:
                opts.append(v)
        for t in range(34):
            if c2[t] == 0 or (locked and t != u):
                continue
            nxt = (_add(c2, t, -1), codes, locked)
            if nxt in self.members:
                opts.append(self.discard_value(nxt, t, n, int(locked)))
            twin = (_add(c2, t, -1), codes, True)
            if self.p.riichi is not None and not locked and twin in self.members:
                opts.append(self.discard_value(twin, t, n, 0))
        return max(opts)

    def root_value(self, t, riichi=False):
        st = (_add(tuple(self.h0), t, -1), (), riichi)
        return self.discard_value(st, t, 0, 0)


def _params(rng, T, kinds, riichi=True, payoff=_payoff):
    pl = np.zeros(34)
    pl[kinds] = rng.uniform(0, 0.3, len(kinds))
    ul = np.zeros(34)
    ul[kinds] = rng.uniform(-3, -1.5, len(kinds))
    pd = np.zeros(34)
    pd[kinds] = rng.dirichlet(np.ones(len(kinds)))
    ron_ok = np.ones(34, bool)
    ron_ok[kinds[0]] = False  # furiten on one kind
    rp = None
    if riichi:
        rpd = np.zeros(34)
        rpd[kinds] = rng.dirichlet(np.ones(len(kinds)))
        rpl = np.zeros(34)
        rpl[kinds] = rng.uniform(0, 0.2, len(kinds))
        rp = RiichiParams(stick=0.25, payoff=_riichi_payoff, p_lose=rpl, p_other=rng.uniform(0, 0.2, T),
                          p_end=rng.uniform(0, 0.1, T), p_disc=rpd, ron_scale=rng.uniform(0.2, 1.0, T),
                          lose_growth=rng.uniform(0.8, 3.0, T))  # its own: a riichi hand cannot answer
    return MDPParams(T=T, p_lose=pl, u_lose=ul, p_other=rng.uniform(0, 0.3, T), lose_growth=rng.uniform(0.8, 2.0, T),
                     u_other=-1.0, ron_scale=rng.uniform(0.3, 1.0, T), tenpai_other=float(rng.uniform(0.3, 1.0)),
                     draw_share=rng.uniform(0.5, 2.5, T), progress_share=rng.uniform(0.5, 1.0, (3, T)),
                     p_end=rng.uniform(0, 0.1, T), u_tw=0.4, u_nw=-0.6, p_disc=pd, ron_ok=ron_ok,
                     payoff=payoff, fsm_p=0.15, riichi=rp, p_chi=float(rng.uniform(0.2, 0.5)))


KINDS4 = np.array([0, 1, 2, 3])
CASES = [  # (hand, unseen over 1m..4m, T, d, m, root melds)
    ("11234m", (2, 2, 2, 2), 3, 6, 1, ()),
    ("1123m", (2, 2, 2, 3), 3, 6, 1, ()),                      # a 3k+1 root: stay / pass / calls
    ("1122334m", (1, 1, 2, 2), 3, 3, 2, ()),
    ("2234m", (2, 1, 1, 2), 4, 2, 1, ()),                       # reduced graph (d = 2)
]
YAKU_CASES = [  # full-size open hands: three root melds, so the yaku rule applies
    ("22344m", (2, 1, 1, 1), 3, 6, 1, ((0, 18), (1, 17), (1, 26))),   # 123s, 999p, 999s: chanta or nothing
    ("1123m", (2, 2, 2, 3), 3, 6, 1, ((0, 9), (0, 18), (1, 31))),     # 123p 123s + haku pon: yakuhai always
    ("2334m", (2, 2, 2, 2), 3, 6, 1, ((0, 10), (0, 19), (1, 4))),     # 234p 234s 555m: tanyao / sanshoku
]


def _check(case, seed, riichi=True, fold=True, calls=True, discards_per_turn=1):
    text, un, T, d, m, rmelds = case
    h = hand_counts(text)
    unseen = np.zeros(34, np.uint8)
    unseen[:4] = un
    g = build_graph(h, unseen, d=d, m=m, melds=list(rmelds))
    p = _params(np.random.default_rng(seed), T, KINDS4, riichi=riichi)
    p.fold, p.calls, p.discards_per_turn = fold, calls, discards_per_turn
    res = solve_psm(g, p)
    bf = Brute(g, p, root_melds=rmelds)
    for s, st in enumerate(_states(g)):
        for k in range(1, T + 1):
            assert res.VF[s, k] == pytest.approx(bf.VF(st, T - k), abs=1e-12), (st, k)
            assert res.ED[s, k] == pytest.approx(bf.ED(st, T - k), abs=1e-12), (st, k)
    return g, p, res, bf


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("fold,per_turn", [(True, 1), (False, 1), (True, 3)])
def test_psm_with_calls_and_riichi_equals_brute_force(case, fold, per_turn):
    g, p, res, bf = _check(CASES[case], seed=100 + case, fold=fold, discards_per_turn=per_turn)
    assert g.n_open > 0 and g.n_calls > 0 and g.n_twins > 0
    if g.root.sum() % 3 == 2:
        for t, v in res.discards.items():
            assert v == pytest.approx(bf.root_value(t), abs=1e-12)
        assert set(res.riichi) == {t for t, s in zip(g.root_discards.tolist(), g.root_succ.tolist())
                                   if g.twin[s] >= 0}
        for t, v in res.riichi.items():
            assert v == pytest.approx(bf.root_value(t, riichi=True), abs=1e-12)
    else:
        st = (tuple(int(x) for x in g.root), (), False)
        assert res.stay == pytest.approx(bf.VF(st, 0), abs=1e-12)
        assert res.pass_ == pytest.approx(bf.ED(st, 0), abs=1e-12)
        assert res.calls
        for (u, code, t), v in res.calls.items():
            x = _take(_add(st[0], u), code)
            nxt = (_add(x, t, -1), (code,), False)
            assert v == pytest.approx(bf.discard_value(nxt, t, 0, 0), abs=1e-12)


@pytest.mark.parametrize("case", range(len(YAKU_CASES)))
def test_open_hands_need_a_yaku(case):
    g, p, res, bf = _check(YAKU_CASES[case], seed=200 + case, riichi=False)
    assert g.n_open > 0 and g.n_calls > 0 and g.n_twins == 0
    for t, v in res.discards.items():
        assert v == pytest.approx(bf.root_value(t), abs=1e-12)
    # the payoffs hold both wins and no-wins (NaN) where the library finds no yaku
    from abstractions.params import win_payoffs

    ts, rn = win_payoffs(g, p.payoff, yaku=True)
    states, tiles = g.win_pairs()
    for i in range(len(ts)):
        st = _states(g)[states[i]]
        assert (ts[i] == ts[i]) == (bf.win_value(st, int(tiles[i]), True) == bf.win_value(st, int(tiles[i]), True))
        assert (rn[i] == rn[i]) == (bf.win_value(st, int(tiles[i]), False) == bf.win_value(st, int(tiles[i]), False))
    if case == 0:
        assert np.isnan(rn).any() and (~np.isnan(rn)).any()


def test_without_riichi_and_calls_the_twins_and_open_states_are_unreachable():
    """params.riichi=None, calls=False: the root values equal those of the closed graph."""
    text, un, T, d, m, _ = CASES[0]
    h = hand_counts(text)
    unseen = np.zeros(34, np.uint8)
    unseen[:4] = un
    p = _params(np.random.default_rng(5), T, KINDS4, riichi=False)
    p.calls = False
    a = solve_psm(build_graph(h, unseen, d=d, m=m), p)
    b = solve_psm(build_graph(h, unseen, d=d, m=0, riichi=False), p)
    assert a.riichi == {}
    for t in b.discards:
        assert a.discards[t] == pytest.approx(b.discards[t], abs=1e-12)


@pytest.mark.parametrize("case", [0, 2])
@pytest.mark.parametrize("per_turn", [1, 3])
def test_ending_probabilities_with_calls_and_riichi(case, per_turn):
    """One payoff per ending (riichi shifts none but the stick): value = sum P(ending) payoff."""
    text, un, T, d, m, _ = CASES[case]
    h = hand_counts(text)
    unseen = np.zeros(34, np.uint8)
    unseen[:4] = un
    g = build_graph(h, unseen, d=d, m=m)
    p = _params(np.random.default_rng(30 + case), T, KINDS4)
    p.fold = False
    p.discards_per_turn = per_turn
    p.payoff = 2.5
    p.u_lose = np.full(34, -2.0)
    p.riichi = RiichiParams(stick=0.0, payoff=2.5, p_other=0.05, p_disc=p.p_disc)
    res = solve_psm(g, p)
    pay = {"win": 2.5, "lose": -2.0, "other_win": p.u_other, "tenpai_washout": p.u_tw,
           "noten_washout": p.u_nw, "fold": 0.0}
    from search.retrograde import OUTCOMES

    vec = np.array([pay[o] for o in OUTCOMES])
    assert any(isinstance(a, tuple) for a in res.probs)
    for action, pr in res.probs.items():
        assert pr.sum() == pytest.approx(1.0, abs=1e-12)
        value = {"stay": res.stay, "pass": res.pass_, "tsumo": res.tsumo}.get(action) if isinstance(action, str) \
            else None
        if value is None and isinstance(action, tuple):
            value = res.riichi[action[1]] if action[0] == "riichi" else res.calls[action[1:]]
        elif value is None:
            value = res.discards[action]
        assert float(pr @ vec) == pytest.approx(value, abs=1e-12)


def test_wsm_and_tsm_take_calls_and_riichi():
    """WSM and TSM are the PSM recursion without lose / other win / fold (calls and riichi kept)."""
    text, un, T, d, m, _ = CASES[0]
    h = hand_counts(text)
    unseen = np.zeros(34, np.uint8)
    unseen[:4] = un
    g = build_graph(h, unseen, d=d, m=m)
    p = _params(np.random.default_rng(9), T, KINDS4)
    wsm = solve_wsm(g, p)
    tsm = solve_tsm(g, p)
    zero = dict(p_lose=np.zeros(34), p_other=0.0, fold=False)
    pw = MDPParams(**{**p.__dict__, **zero, "u_tw": 0.0, "u_nw": 0.0,
                      "riichi": RiichiParams(stick=0.0, payoff=_riichi_payoff, p_lose=np.zeros(34), p_other=0.0,
                                             p_end=p.riichi.p_end, p_disc=p.riichi.p_disc,
                                             ron_scale=p.riichi.ron_scale)})
    bw = Brute(g, pw)
    for t, v in wsm.discards.items():
        assert v == pytest.approx(bw.root_value(t), abs=1e-12)
    for t, v in wsm.riichi.items():
        assert v == pytest.approx(bw.root_value(t, riichi=True), abs=1e-12)
    assert tsm.riichi == {}  # TSM has no wins: riichi only costs
    for t, v in tsm.discards.items():
        assert 0.0 <= v <= 1.0 + 1e-12  # a chance, up to the rounding of the scaled draws


def test_bad_riichi_params_raise():
    h = hand_counts("11234m")
    unseen = np.zeros(34, np.uint8)
    unseen[:4] = 2
    g = build_graph(h, unseen, d=3, m=1)
    with pytest.raises(MahjongError):
        solve_psm(g, MDPParams(T=3, riichi=RiichiParams(p_lose=np.full(34, 2.0))))
    with pytest.raises(MahjongError):
        solve_psm(g, MDPParams(T=3, p_chi=1.5))


@pytest.mark.parametrize("text,T", [("1239m456p3478s112z", 2), ("123m456p34578s11z", 1)])
def test_horizon_keeps_root_values_with_calls_and_riichi(text, T):
    """Open states and twins sit at their full hand's distance: the horizon cut stays exact."""
    h = hand_counts(text)
    unseen = (4 - h).astype(np.uint8)
    full = build_graph(h, unseen, d=2, m=1)
    short = build_graph(h, unseen, d=2, m=1, horizon=T)
    assert short.n_states < full.n_states and short.n_open > 0 and short.n_twins > 0
    rng = np.random.default_rng(11)
    p = MDPParams(T=T, p_lose=rng.uniform(0, 0.1, 34), u_lose=np.full(34, -3.0), p_other=0.05, u_other=-0.5,
                  p_end=0.02, u_tw=0.2, u_nw=-0.4, payoff=2.0, riichi=RiichiParams(stick=0.1, payoff=2.8))
    a, b = solve_psm(full, p), solve_psm(short, p)
    for name in ("discards", "riichi", "calls"):
        va, vb = getattr(a, name), getattr(b, name)
        assert set(va) == set(vb)
        for key, v in va.items():
            assert vb[key] == pytest.approx(v, abs=1e-12)
    for name in ("stay", "pass_"):
        if getattr(a, name) is not None:
            assert getattr(b, name) == pytest.approx(getattr(a, name), abs=1e-12)


@pytest.mark.parametrize("text,seat,rnd", [
    ("234m456p3478s1155z", 1, 0),    # pairs of E and P: yakuhai by a pon, else tanyao or nothing
    ("1239m456p3478s222z", 2, 1),    # a pair-less S triplet (the seat or round wind decides)
])
def test_open_yaku_on_real_hands_match_the_library(text, seat, rnd):
    """The NaN pattern of the open-hand payoffs (one scorer run per completed hand) against the
    ``mahjong`` library on a sample of the win list of a real graph."""
    from abstractions.params import win_payoffs

    h = hand_counts(text)
    g = build_graph(h, (4 - h).astype(np.uint8), d=2, m=1)
    ts, rn = win_payoffs(g, 1.0, yaku=True, seat_wind=seat, round_wind=rnd)
    states, tiles = g.win_pairs()
    open_ = np.flatnonzero(g.melds[states, 0] >= 0)
    assert len(open_) > 50
    pick = np.random.default_rng(3).choice(open_, size=min(150, len(open_)), replace=False)
    seen = set()
    for i in pick:
        s, u = int(states[i]), int(tiles[i])
        codes = tuple(int(c) for c in g.melds[s] if c >= 0)
        c14 = _add(tuple(int(x) for x in g.hands[s]), u)
        for tsumo, arr in ((True, ts), (False, rn)):
            ok = _lib_yaku(c14, codes, (), u, tsumo, seat, rnd)
            assert (arr[i] == arr[i]) == ok, (text, c14, codes, u, tsumo)
            seen.add(ok)
    assert seen == {True, False}


def test_a_closed_kan_keeps_the_riichi_twins():
    """Twins are the closed tenpai states: a root with a closed kan has them, with an open
    pon of the same kind it has none."""
    h = hand_counts("123m456p78s55m")
    unseen = (4 - h).astype(np.uint8)
    unseen[mjai_to_kind("N")] = 0
    g = build_graph(h, unseen, melds=[("ankan", mjai_to_kind("N"))], m=0)
    closed = np.flatnonzero(~g.riichi)
    assert g.n_twins == int(g.tenpai[closed].sum()) > 0
    assert build_graph(h, unseen, melds=[("pon", mjai_to_kind("N"))], m=0).n_twins == 0
