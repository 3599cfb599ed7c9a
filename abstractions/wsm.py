"""WSM, winning solitary mahjong (Kurita & Hoki Sec. VI-A3; ``kurita_hoki.md`` 3.3).

PSM without the LOSE, OTHER WIN and stop endings: ``P_L = P_O = 0``, no fold (also after a
riichi declaration, whose stick then costs nothing); calls and riichi stay; the washout
payoff does not depend on the hand (``u_washout``, 0 by default, so that ``V^WSM`` is the
expected win payoff). Returns ``V^WSM`` per root action and ``P^WSM_win`` (the probability that
the optimal policy ends in a win), the features of Eq. 18-19.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from abstractions._solve import RootValues, run
from abstractions.params import MDPParams
from search.hand_graph import HandGraph


def solve_wsm(graph: HandGraph, params: MDPParams, *, u_washout: float = 0.0,
              drawn: int | None = None, root_only: bool = False) -> RootValues:
    """``V^WSM`` (values) and ``P^WSM_win`` (``result.prob(action, "win")``); ``root_only``:
    solve only what the root's actions read (:func:`search.retrograde.solve`)."""
    p = params.checked(graph.unseen)
    zero = dict(p_lose=np.zeros(34), p_other=np.zeros(params.T + 1))
    riichi = None if p.riichi is None else replace(p.riichi, stick=0.0, u_lose=None, u_other=None, u_tw=None,
                                                   u_nw=None, **zero)
    p = replace(p, u_tw=float(u_washout), u_nw=float(u_washout), fold=False, riichi=riichi, **zero)
    return run(graph, p, v_stop=None, allow_win=True, drawn=drawn, track=True, root_only=root_only)
