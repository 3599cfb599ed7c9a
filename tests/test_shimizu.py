"""The solver on the exactly solved mini-mahjong of Shimizu & Tanaka (``specs/shimizu.md``).

9 kinds (1m-9m), 7-tile hands between turns, 1 pair + 2 sets wins, tsumo only (and forced),
draws from the 29 tiles not in hand (discards return: ``replace_discards``), discount
gamma = 0.9 per further discard-and-draw. The discount is an "other win" ending with payoff 0
and probability 1 - gamma, so the PSM value is gamma * V7; a horizon of 250 turns leaves an
error below 4 * 0.9^250.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from abstractions import MDPParams, solve_psm
from search.hand_graph import build_graph

GAMMA = 0.9
T = 250


def _counts(text: str) -> np.ndarray:
    c = np.zeros(34, np.uint8)
    for ch in text:
        c[int(ch) - 1] += 1
    return c


def _decompositions(h):
    """All (pair, [sets]) splits of an 8-tile manzu hand; a set is ('s', low) or ('t', kind)."""
    out = []
    for pair in range(9):
        if h[pair] < 2:
            continue
        c = list(h[:9])
        c[pair] -= 2
        out += [(pair, sets) for sets in _sets(c, 0)]
    return out


def _sets(c, start):
    k = next((i for i in range(start, 9) if c[i]), None)
    if k is None:
        return [[]]
    res = []
    if c[k] >= 3:
        c[k] -= 3
        res += [[("t", k)] + r for r in _sets(c, k)]
        c[k] += 3
    if k <= 6 and c[k + 1] and c[k + 2]:
        for i in (k, k + 1, k + 2):
            c[i] -= 1
        res += [[("s", k)] + r for r in _sets(c, k)]
        for i in (k, k + 1, k + 2):
            c[i] += 1
    return res


def _score(h, yaku: bool) -> float:
    if not yaku:
        return 1.0
    best = 0
    for pair, sets in _decompositions(h):
        blocks = [(pair, pair)] + [(k, k + 2) if kind == "s" else (k, k) for kind, k in sets]
        v = 0
        v += all(0 < lo and hi < 8 for lo, hi in blocks)                       # tanyao
        v += all(lo == 0 or hi == 8 for lo, hi in blocks)                      # chanta
        v += all(kind == "t" for kind, _ in sets)                              # toitoi
        v += len(sets) == 2 and sets[0] == sets[1] and sets[0][0] == "s"      # iipeikou
        best = max(best, v)
    return float(2 ** best)


def _solve(root: str, yaku: bool):
    h = _counts(root)
    unseen = np.zeros(34, np.uint8)
    unseen[:9] = 4 - h[:9]
    g = build_graph(h, unseen, d=40, replace_discards=True, m=0, riichi=False)

    def payoff(h14, tiles, tsumo):
        return np.array([_score(row, yaku) for row in h14])

    p = MDPParams(T=T, p_other=1 - GAMMA, u_other=0.0, p_disc=np.zeros(34), payoff=payoff, fold=False,
                  tsumo_forced=True)
    return g, solve_psm(g, p, track=False)


@pytest.fixture(scope="module")
def solved():
    return {yaku: _solve("22333445", yaku) for yaku in (False, True)}


def _v7(solved, yaku, hand):
    g, res = solved[yaku]
    return res.VF[g.index(_counts(hand)), T] / GAMMA


def test_state_count(solved):
    g, _ = solved[True]
    assert g.n_states == 6030
    assert len({tuple(r) for r in g.hands}) == 6030


def test_paper_anchor_22333445(solved):
    """Best discard 4 (0.768) without yaku, 5 (2.703) with yaku; the spec's Q-vectors."""
    want = {False: {1: 0.7368, 2: 0.7242, 3: 0.7683, 4: 0.7106}, True: {1: 1.9245, 2: 2.3021, 3: 1.9139, 4: 2.7027}}
    for yaku in (False, True):
        g, res = solved[yaku]
        q = {t: v / GAMMA for t, v in res.discards.items()}
        assert set(q) == set(want[yaku])
        for t, v in want[yaku].items():
            assert q[t] == pytest.approx(v, abs=6e-5)
        assert max(q, key=q.get) == (3 if not yaku else 4)


@pytest.mark.parametrize("hand,noyaku,yaku", [
    ("2233344", None, 100 / 37),
    ("3334567", 85 / 91, None),
    ("1111222", 0.697337, 1.084964),
    ("1234567", 0.818182, 1.294086),
    ("2345678", 0.818182, 1.636364),
    ("1258899", 0.547063, None),
    ("1569999", None, 0.959352),
])
def test_values(solved, hand, noyaku, yaku):
    if noyaku is not None:
        assert _v7(solved, False, hand) == pytest.approx(noyaku, abs=1e-6)
    if yaku is not None:
        assert _v7(solved, True, hand) == pytest.approx(yaku, abs=1e-6)


def test_extremes(solved):
    """Max with yaku at 2233344 (100/37), max without at 3334567 (85/91); minima as listed."""
    for yaku, vmax, vmin in ((False, 85 / 91, 0.547063), (True, 100 / 37, 0.959352)):
        g, res = solved[yaku]
        v = res.VF[:, T] / GAMMA
        assert v.max() == pytest.approx(vmax, abs=1e-9)
        assert v.min() == pytest.approx(vmin, abs=1e-6)


def test_expected_return_of_a_random_deal(solved):
    """0.65390 (no yaku) and 1.40508 (yaku): gamma * max_d V7 over non-winning 8-tile deals."""
    from math import comb

    for yaku, want in ((False, 0.65390), (True, 1.40508)):
        g, res = solved[yaku]
        v7 = res.VF[:, T] / GAMMA
        total = weight = 0.0
        for combo in itertools.combinations_with_replacement(range(9), 8):
            h = np.bincount(combo, minlength=34).astype(np.uint8)
            if h.max() > 4:
                continue
            w = np.prod([comb(4, int(c)) for c in h[:9]])
            if _decompositions(h):
                continue
            best = max(v7[g.index(h - np.eye(34, dtype=np.uint8)[t])] for t in np.flatnonzero(h))
            total += w * GAMMA * best
            weight += w
        assert total / weight == pytest.approx(want, abs=1e-5)
