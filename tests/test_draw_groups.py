"""The after-draw groups of ``search.retrograde.draw_groups`` against their definition.

A draw ``u`` of state ``s`` reaches the 14-tile hand ``H = s + u``; Eq. 7 chooses among its
members, the states ``H - t`` of the graph with the same melds (each followed by its riichi
twin when it has one: the declaration). Draws of different states that reach the same ``H``
share one group; a locked state (a riichi twin) keeps only its own discard. The members are
listed here from the definition with ``HandGraph.index`` on real situations with calls and
twins on, for a sample of the draws.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from search.hand_graph import build_graph
from search.retrograde import MAX_RUNS, draw_groups, group_runs, turns_read

SITUATIONS = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "situations.npz"


def _members(g, s: int, u: int) -> list[tuple[int, int, bool]]:
    """(kind, state, declaration) of every member of ``H = s + u``, kinds ascending."""
    if g.riichi[s]:
        return [(u, s, False)]
    big = g.hands[s].astype(np.int64)
    big[u] += 1
    melds = tuple(int(c) for c in g.melds[s] if c >= 0)
    out = []
    for t in np.flatnonzero(big):
        h = big.copy()
        h[t] -= 1
        j = g.index(h, melds)
        if j >= 0:
            out.append((int(t), j, False))
            if g.twin[j] >= 0:
                out.append((int(t), int(g.twin[j]), True))
    return out


@pytest.mark.parametrize("pick", [0, 1, 2])
def test_groups_hold_exactly_the_members_of_the_after_draw_hand(pick):
    data = np.load(SITUATIONS)
    rows = np.flatnonzero(data["shanten"] <= 1)  # default m = 1: calls on
    i = int(rows[pick])
    g = build_graph(data["hands"][i], data["unseen"][i], horizon=8)
    assert g.n_twins > 0 and g.n_open > 0
    _, draw_h, draw_m, h_ptr, h_tile, h_succ, h_decl, _, call_g0 = draw_groups(g)
    owner = np.repeat(np.arange(g.n_states), np.diff(g.draw_ptr))
    grouped = np.flatnonzero(draw_h >= 0)
    rng = np.random.default_rng(pick)
    sample = np.concatenate([rng.choice(grouped, size=min(400, len(grouped)), replace=False),
                             grouped[g.riichi[owner[grouped]]]])  # every draw of a twin
    for j in sample:
        s, u, h = int(owner[j]), int(g.draw_tile[j]), int(draw_h[j])
        assert h < call_g0
        got = [(int(h_tile[m]), int(h_succ[m]), bool(h_decl[m])) for m in range(h_ptr[h], h_ptr[h + 1])]
        assert got == _members(g, s, u), (s, u)
        assert (h_tile[draw_m[j]], h_succ[draw_m[j]], h_decl[draw_m[j]]) == (u, s, False)
    # draws into the same after-draw hand share their group
    assert len(np.unique(draw_h[grouped])) < len(grouped)


def _read_distance(g, seeds) -> np.ndarray:
    """Turns from the seeds to each state through what a value reads (-1: never): a state's
    exchanges (every draw's in-graph discards), its twin (a declaration) and its calls'
    discards; a plain breadth-first walk over the graph's listed moves."""
    dist = np.full(g.n_states, -1)
    dist[seeds] = 0
    front = list(seeds)
    while front:
        nxt = []
        for s in front:
            succ = list(g.edge_succ[g.edge_ptr[g.draw_ptr[s]]:g.edge_ptr[g.draw_ptr[s + 1]]])
            succ += [int(g.twin[s])] if g.twin[s] >= 0 else []
            for c in range(g.call_ptr[s], g.call_ptr[s + 1]):
                succ += list(g.call_mem_succ[g.call_mem[c]:g.call_mem[c + 1]])
            for t in succ:
                if dist[t] < 0:
                    dist[t] = dist[s] + 1
                    nxt.append(int(t))
        front = nxt
    return dist


@pytest.mark.parametrize("pick", [0, 1])
@pytest.mark.parametrize("root_tiles", [14, 13])
def test_a_root_only_solve_takes_every_pair_and_group_the_root_reads(pick, root_tiles):
    """``turns_read`` gives each state at least the turns its reads need (from a walk of the
    moves), and ``group_runs`` takes at each turn every group a solved state reads."""
    data = np.load(SITUATIONS)
    i = int(np.flatnonzero(data["shanten"] <= 1)[pick])
    hand = data["hands"][i].copy()
    if root_tiles == 13:
        hand[int(np.flatnonzero(hand)[-1])] -= 1
    T = 8
    g = build_graph(hand, data["unseen"][i], horizon=T, riichi=root_tiles == 14, m=1)
    assert g.n_open > 0
    if root_tiles == 14:
        seeds, top = [int(s) for s in g.root_succ] + [int(g.twin[s]) for s in g.root_succ if g.twin[s] >= 0], T - 1
    else:
        seeds, top = [0], T
    need = _read_distance(g, seeds)
    kmax = turns_read(g, T)
    reached = need >= 0
    assert (kmax[reached] >= top - need[reached]).all()
    assert (kmax[reached] == top - need[reached]).mean() > 0.5  # a bound, and a close one
    nh, draw_h, _, h_ptr, _, h_succ, _, _, call_g0 = draw_groups(g)
    run_lo = np.empty(MAX_RUNS, np.int64)
    run_hi = np.zeros((T + 1, MAX_RUNS), np.int64)
    nr = group_runs(kmax, h_ptr, h_succ, g.call_ptr, call_g0, nh, run_lo, run_hi)
    assert 1 <= nr <= MAX_RUNS
    taken_all = np.zeros(nh, bool)
    for k in range(1, T + 1):
        taken = np.zeros(nh, bool)
        for r in range(nr):
            taken[run_lo[r]:run_hi[k, r]] = True
        taken_all |= taken
        for s in np.flatnonzero(kmax >= k):
            read = draw_h[g.draw_ptr[s]:g.draw_ptr[s + 1]]
            read = list(read[read >= 0]) + list(call_g0 + np.arange(g.call_ptr[s], g.call_ptr[s + 1]))
            assert taken[read].all(), (k, s)
    assert taken_all.any()
