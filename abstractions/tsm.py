"""TSM, tenpai solitary mahjong (Kurita & Hoki Sec. VI-A3; ``kurita_hoki.md`` 3.3).

No win actions and no LOSE / OTHER WIN / stop endings (nor riichi declarations: without wins
they only lock the hand); calls stay; the hand ends at the horizon (``T``
should be ``T_max``, spec A7) or by the per-turn draw probability, paying 1 when *i* is tenpai.
So the value of each root action is ``P^TSM_T``, the probability of being tenpai at the end.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from abstractions._solve import RootValues, run
from abstractions.params import MDPParams
from search.hand_graph import HandGraph


def solve_tsm(graph: HandGraph, params: MDPParams, *, root_only: bool = False, track: bool = True) -> RootValues:
    """``P^TSM_T`` per root action (the values; with ``track`` also ``result.prob(action,
    "tenpai_washout")``); ``root_only``: solve only what the root's actions read."""
    p = replace(params.checked(graph.unseen), p_lose=np.zeros(34), p_other=np.zeros(params.T + 1),
                u_tw=1.0, u_nw=0.0, fold=False, riichi=None)
    return run(graph, p, v_stop=None, allow_win=False, drawn=None, track=track, root_only=root_only)
