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
from search.retrograde import draw_groups

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
