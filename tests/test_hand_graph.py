"""The reduced hand graph (Sec. VI-D) against a plain breadth-first search and the spec's sizes."""
from __future__ import annotations


import numpy as np
import pytest

from game.errors import MahjongError
from game.tiles import hand_counts
from search.hand_graph import build_graph
from search.waits import is_complete

from graph_reference import reference_h1, riichienv_shanten


def _unseen(h: np.ndarray) -> np.ndarray:
    return (4 - h).astype(np.uint8)


@pytest.mark.parametrize("text,d,size", [
    # kurita_hoki.md section 6 (measured by the spec authors with their own BFS); 35, 5, 220, 33,
    # 1,887 agree. The spec's 889 for the tenpai hand at d = 2 is 888 here and in the plain
    # reference search below.
    ("123m456p34578s11z", 1, 35),
    ("1239m456p3478s11z", 1, 5),
    ("1239m456p3478s11z", 2, 220),
    ("1359m456p3478s11z", 2, 33),
    ("1359m456p3478s11z", 3, 1887),
    ("123m456p34578s11z", 2, 888),
])
def test_sizes_match_the_spec_table(text, d, size):
    h = hand_counts(text)
    assert build_graph(h, _unseen(h), d=d, m=0, riichi=False).n_states == size


@pytest.mark.parametrize("text,d,seen", [
    ("123m456p34578s11z", 2, ""),
    ("1239m456p3478s11z", 2, "222m"),        # the other 2m seen: no hand may hold a 2m it did not start with
    ("1359m456p3478s11z", 2, ""),
    ("1239m456p3478s112z", 2, "55p"),        # a 14-tile root: every discard is a seed
    ("3378m55p1257s", 2, ""),              # fewer tiles: a hand after a call
])
def test_states_equal_the_plain_search(text, d, seen):
    h = hand_counts(text)
    unseen = (4 - h.astype(int) - (hand_counts(seen) if seen else 0)).astype(np.uint8)
    g = build_graph(h, unseen, d=d, m=0, riichi=False)
    mine = {tuple(int(x) for x in row) for row in g.hands}
    assert len(mine) == g.n_states  # no two states share a hand (no key collision)
    assert mine == reference_h1(h, unseen.astype(int), d)
    cap = h.astype(int) + unseen
    assert (g.hands <= cap).all()


@pytest.mark.parametrize("text,dead", [
    ("1239m456p3478s11z", 4),     # every 5m is seen: no draw of 5m
    ("1239m456p3478s112z", 28),   # a 14-tile root (seeds at distance 0); the other 2z are seen
])
def test_edges_are_exactly_the_in_graph_exchanges(text, dead):
    h = hand_counts(text)
    unseen = _unseen(h)
    unseen[dead] = 0
    g = build_graph(h, unseen, d=2, m=0, riichi=False)
    index = {tuple(int(x) for x in row): i for i, row in enumerate(g.hands)}
    for s in range(g.n_states):
        hs = g.hands[s].astype(int)
        draws = g.draw_tile[g.draw_ptr[s]:g.draw_ptr[s + 1]].tolist()
        left = [u for u in range(34) if unseen[u] - max(0, hs[u] - h[u]) > 0]
        assert draws == left
        assert dead not in draws
        w = g.draw_w[g.draw_ptr[s]:g.draw_ptr[s + 1]]
        expect = np.array([unseen[u] - max(0, hs[u] - h[u]) for u in left], float)
        np.testing.assert_allclose(w, expect / expect.sum())
        for j in range(g.draw_ptr[s], g.draw_ptr[s + 1]):
            u = int(g.draw_tile[j])
            got = {(int(g.edge_tile[e]), int(g.edge_succ[e])) for e in range(g.edge_ptr[j], g.edge_ptr[j + 1])}
            want = set()
            for t in range(34):
                if t != u and hs[t] + (t == u) > 0:
                    c = hs.copy()
                    c[u] += 1
                    c[t] -= 1
                    if tuple(c) in index:
                        want.add((t, index[tuple(c)]))
            assert got == want
    nxg = g.to_networkx()
    assert nxg.number_of_nodes() == g.n_states and nxg.number_of_edges() == g.n_edges


def test_win_list_matches_riichienv():
    h = hand_counts("123m456p34578s11z")
    g = build_graph(h, _unseen(h), d=1, m=0, riichi=False)
    for s in range(g.n_states):
        wins = g.win_tile[g.win_ptr[s]:g.win_ptr[s + 1]].tolist()
        want = []
        for u in range(34):
            if g.hands[s, u] < 4:
                c = g.hands[s].copy()
                c[u] += 1
                if riichienv_shanten(c) == -1:
                    want.append(u)
        assert wins == want
        assert (g.tenpai[s] == 1) == (g.shanten[s] == 0)


def test_complete_shapes():
    for text in ("123m456p789s11122z", "1122m3344p5566s77z", "19m19p19s1234567z1m", "11m", "111m22m"):
        assert is_complete(hand_counts(text)), text
    for text in ("123m456p789s11123z", "1122m3344p5566s7z1m", "12m", "111m24m"):
        assert not is_complete(hand_counts(text)), text


def test_bad_input_raises():
    h = hand_counts("123m456p789s111z")
    with pytest.raises(MahjongError):
        build_graph(h, _unseen(h))  # 12 tiles
    h = hand_counts("123m456p34578s11z")
    with pytest.raises(MahjongError):
        build_graph(h, np.full(34, 4, np.uint8))  # more than 4 copies in all
    with pytest.raises(MahjongError):
        build_graph(hand_counts("1359m46p3478s111z"), _unseen(hand_counts("1359m46p3478s111z")), d=2)


def test_max_states_lowers_d():
    h = hand_counts("1359m456p3478s11z")
    g = build_graph(h, _unseen(h), d=3, max_states=500, m=0, riichi=False)
    assert g.d == 2 and g.n_states == 33
    g = build_graph(h, _unseen(h), riichi=False)  # a 2-shanten root: d = 3 by default, within its state budget
    assert g.d == 3 and g.n_states == 1887


@pytest.mark.parametrize("text,T", [("1239m456p3478s112z", 3), ("1239m456p3478s11z", 2)])
def test_horizon_leaves_out_only_unreachable_hands(text, T):
    """Hands farther than the horizon are dropped, and the root's values do not change."""
    from abstractions import MDPParams, solve_psm

    h = hand_counts(text)
    unseen = _unseen(h)
    full = build_graph(h, unseen, d=3, m=0, riichi=False)
    short = build_graph(h, unseen, d=3, horizon=T, m=0, riichi=False)
    reach = T - 1 if h.sum() % 3 == 2 else T
    assert short.horizon == T and short.d == 3 and short.n_states < full.n_states
    assert {tuple(r) for r in short.hands} == {tuple(r) for r, j in zip(full.hands, full.dist) if j <= reach}
    rng = np.random.default_rng(7)
    p = MDPParams(T=T, p_lose=rng.uniform(0, 0.1, 34), u_lose=np.full(34, -3.0), p_other=0.05, u_other=-0.5,
                  p_end=0.02, u_tw=0.2, u_nw=-0.4, payoff=2.0)
    a, b = solve_psm(full, p), solve_psm(short, p)
    for action, value in {**a.discards, "stay": a.stay, "pass": a.pass_}.items():
        if value is None:
            continue
        other = {**b.discards, "stay": b.stay, "pass": b.pass_}[action]
        assert other == pytest.approx(value, abs=1e-12)
        np.testing.assert_allclose(b.probs[action], a.probs[action], atol=1e-12)
