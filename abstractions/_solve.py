"""Shared driver of the graph MDPs: run the retrograde kernel and read the root's actions."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from abstractions.params import MDPParams, win_payoffs
from search.hand_graph import HandGraph, is_complete
from search.retrograde import N_OUT, OUTCOMES, solve


@dataclass
class RootValues:
    """Values of the root's actions and the ending probabilities under the optimal policy.

    For a ``3k+2`` root (after a draw): ``discards[t]`` is Q of discarding kind ``t`` (Eq. 7 /
    Eq. 4) and ``tsumo`` the win payoff when the hand is complete. For a ``3k+1`` root (between
    turns or at an opponent's discard): ``stay`` is the tau_F value (the value of the hand after
    the action, Eq. 16) and ``pass_`` the value of passing a discard (Eq. 9).
    ``probs`` maps each action name (a kind, ``"tsumo"``, ``"stay"``, ``"pass"``) to the
    probabilities of ``OUTCOMES`` (win, lose, other_win, tenpai_washout, noten_washout, fold).
    ``VF``/``ED`` are the per-(state, k) values of the whole graph.
    """

    discards: dict[int, float]
    tsumo: float | None
    stay: float | None
    pass_: float | None
    probs: dict[object, np.ndarray]
    VF: np.ndarray
    ED: np.ndarray

    @property
    def best(self) -> tuple[object, float]:
        """The greedy action and its value."""
        cands = {**self.discards}
        for name, v in (("tsumo", self.tsumo), ("stay", self.stay)):
            if v is not None:
                cands[name] = v
        act = max(cands, key=lambda a: cands[a])
        return act, cands[act]

    def prob(self, action, outcome: str) -> float:
        return float(self.probs[action][OUTCOMES.index(outcome)])


def locked(graph: HandGraph) -> HandGraph:
    """The graph with every exchange removed: after riichi a hand only wins or discards its draw."""
    return replace(graph, edge_ptr=np.zeros_like(graph.edge_ptr), edge_tile=graph.edge_tile[:0],
                   edge_succ=graph.edge_succ[:0])


def run(graph: HandGraph, p: MDPParams, *, v_stop: np.ndarray | None, allow_win: bool,
        drawn: int | None, track: bool = True) -> RootValues:
    u_tsumo, u_ron = win_payoffs(graph, p.payoff) if allow_win else (np.zeros(len(graph.win_tile)),) * 2
    T = p.T
    VF, ED, PF, PD = solve(graph, T, p_lose=p.p_lose, u_lose=p.u_lose, p_other=p.p_other, u_other=p.u_other,
                           p_end=p.p_end, u_tw=p.u_tw, u_nw=p.u_nw, p_disc=p.p_disc, ron_ok=p.ron_ok,
                           u_tsumo=u_tsumo, u_ron=u_ron, v_stop=v_stop, allow_win=allow_win,
                           tsumo_forced=p.tsumo_forced, track=track)
    probs: dict[object, np.ndarray] = {}
    discards: dict[int, float] = {}
    tsumo = stay = pass_ = None
    if len(graph.root_discards):
        for t, s in zip(graph.root_discards.tolist(), graph.root_succ.tolist()):
            pl = p.p_lose[t]
            discards[t] = float(pl * p.u_lose[t] + (1 - pl) * VF[s, T - 1])
            if track:
                pr = (1 - pl) * PF[0, s]
                pr[OUTCOMES.index("lose")] += pl
                probs[t] = pr
        if allow_win and is_complete(graph.root):
            tile = int(drawn) if drawn is not None else int(np.flatnonzero(graph.root)[0])
            if callable(p.payoff):
                tsumo = float(np.asarray(p.payoff(graph.root[None].copy(), np.array([tile]), True))[0])
            else:
                tsumo = float(p.payoff)
            pr = np.zeros(N_OUT)
            pr[0] = 1.0
            probs["tsumo"] = pr
    else:
        stay = float(VF[0, T])
        pass_ = float(ED[0, T])
        if track:
            probs["stay"] = PF[1, 0].copy()
            probs["pass"] = PD[1, 0].copy()
    return RootValues(discards=discards, tsumo=tsumo, stay=stay, pass_=pass_, probs=probs, VF=VF, ED=ED)
