"""Shared driver of the graph MDPs: run the retrograde kernel and read the root's actions."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from abstractions.params import MDPParams, _call_payoff, win_payoffs
from search.hand_graph import HandGraph
from search.waits import is_complete
from search.retrograde import N_OUT, OUTCOMES, solve


@dataclass
class RootValues:
    """Values of the root's actions and the ending probabilities under the optimal policy.

    For a ``3k+2`` root (after a draw): ``discards[t]`` is Q of discarding kind ``t`` (Eq. 7 /
    Eq. 4), ``riichi[t]`` Q of declaring riichi with that discard (spec A11; only for closed
    roots whose ``h0 - t`` is tenpai, and with ``params.riichi``) and ``tsumo`` the win payoff
    when the hand is complete. For a ``3k+1`` root (between turns or at an opponent's
    discard): ``stay`` is the tau_F value (the value of the hand after the action, Eq. 16),
    ``pass_`` the value of passing a discard (Eq. 9) and ``calls[(u, code, t)]`` Q of calling
    kind ``u`` into meld ``code`` (``search.hand_graph`` codes: pon ``k``, chi ``34 + lowest``)
    and discarding ``t`` (Eq. 5 / Eq. 10), for the calls that stay in the graph.
    ``probs`` maps each action name (a kind, ``"tsumo"``, ``"stay"``, ``"pass"``, ``("riichi",
    t)``, ``("call", u, code, t)``) to the probabilities of ``OUTCOMES`` (win, lose, other_win,
    tenpai_washout, noten_washout, fold). ``VF``/``ED`` are the per-(state, k) values of the
    whole graph (with ``root_only``, of the pairs the root's actions read; NaN elsewhere).
    ``endings_at`` (a solve with ``keep``): the endings at any marked pairs, for the world
    before an event (:func:`search.retrograde.solve`).
    """

    discards: dict[int, float]
    tsumo: float | None
    stay: float | None
    pass_: float | None
    probs: dict[object, np.ndarray]
    VF: np.ndarray
    ED: np.ndarray
    riichi: dict[int, float] = field(default_factory=dict)
    calls: dict[tuple[int, int, int], float] = field(default_factory=dict)
    endings_at: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)

    @property
    def best(self) -> tuple[object, float]:
        """The greedy action and its value (riichi actions as ``("riichi", t)``)."""
        cands = {**self.discards, **{("riichi", t): v for t, v in self.riichi.items()}}
        for name, v in (("tsumo", self.tsumo), ("stay", self.stay)):
            if v is not None:
                cands[name] = v
        act = max(cands, key=lambda a: cands[a])
        return act, cands[act]

    def prob(self, action, outcome: str) -> float:
        return float(self.probs[action][OUTCOMES.index(outcome)])


def locked(graph: HandGraph) -> HandGraph:
    """The graph with every exchange, call and riichi declaration removed: after riichi a hand
    only wins or discards its draw."""
    return replace(graph, edge_ptr=np.zeros_like(graph.edge_ptr), edge_tile=graph.edge_tile[:0],
                   edge_succ=graph.edge_succ[:0], call_ptr=np.zeros_like(graph.call_ptr),
                   call_tile=graph.call_tile[:0], call_chi=graph.call_chi[:0], call_mem=graph.call_mem[:1],
                   call_mem_tile=graph.call_mem_tile[:0], call_mem_succ=graph.call_mem_succ[:0],
                   twin=np.full_like(graph.twin, -1))


def _furiten_ron(graph: HandGraph, u_ron: np.ndarray, ron_ok: np.ndarray) -> np.ndarray:
    """``u_ron`` with every win of a furiten state NaN: a state one of whose waits is a kind
    that may not be ronned (our own discards) cannot ron at all."""
    bad = ~np.asarray(ron_ok, dtype=bool)[graph.win_tile]
    if not bad.any():
        return u_ron
    counts = np.diff(graph.win_ptr)
    owner = np.repeat(np.arange(len(counts)), counts)
    furiten = np.zeros(len(counts), bool)
    furiten[owner[bad]] = True
    out = u_ron.copy()
    out[furiten[owner]] = np.nan
    return out


def run(graph: HandGraph, p: MDPParams, *, v_stop: np.ndarray | None, allow_win: bool,
        drawn: int | None, track: bool = True, root_only: bool = False,
        event: tuple | None = None, fold_split: tuple | None = None, keep: bool = False) -> RootValues:
    """Solve ``graph`` under ``p`` and read the root's actions. ``event``: ``(q, VF, endings_at)``
    of a chance event into another world (``endings_at`` None: the endings do not follow it)."""
    riichi = None
    if p.riichi is not None and graph.n_twins:
        riichi = p.riichi.arrays(p)
    if allow_win:
        u_tsumo, u_ron = win_payoffs(graph, p.payoff, riichi_payoff=None if p.riichi is None else p.riichi.payoff,
                                     yaku=p.yaku, seat_wind=p.seat_wind, round_wind=p.round_wind)
        if p.furiten:
            u_ron = _furiten_ron(graph, u_ron, p.ron_ok)
    else:
        u_tsumo = u_ron = np.zeros(len(graph.win_tile))
    T = p.T
    out = solve(graph, T, p_lose=p.p_lose, u_lose=p.u_lose, p_other=p.p_other, u_other=p.u_other,
                           p_end=p.p_end, u_tw=p.u_tw, u_nw=p.u_nw, p_disc=p.p_disc, ron_ok=p.ron_ok,
                           u_tsumo=u_tsumo, u_ron=u_ron, v_stop=v_stop, allow_win=allow_win,
                           tsumo_forced=p.tsumo_forced, track=track, p_chi=p.p_chi, riichi=riichi, calls=p.calls,
                           g_lose=p.lose_growth, discards_per_turn=p.discards_per_turn, ron_scale=p.ron_scale,
                           tenpai_other=p.tenpai_other, draw_share=p.draw_share,
                           progress_share=p.progress_share, root_only=root_only, q_event=None if event is None else event[0],
                           v_event=None if event is None else event[1],
                           event_endings=None if event is None or not track else event[2], fold_split=fold_split,
                           keep=keep)
    VF, ED, PF, PD = out[:4]
    probs: dict[object, np.ndarray] = {}
    discards: dict[int, float] = {}
    riichi_q: dict[int, float] = {}
    calls: dict[tuple[int, int, int], float] = {}
    tsumo = stay = pass_ = None

    def after_discard(t: int, s: int, name) -> float:
        pl = p.p_lose[t] * p.lose_growth[0]
        if track:
            pr = (1 - pl) * PF[0, s]
            pr[OUTCOMES.index("lose")] += pl
            probs[name] = pr
        return float(pl * p.u_lose[t] + (1 - pl) * VF[s, T - 1])

    if len(graph.root_discards):
        for t, s in zip(graph.root_discards.tolist(), graph.root_succ.tolist()):
            discards[t] = after_discard(t, s, t)
            if riichi is not None and graph.twin[s] >= 0:
                riichi_q[t] = after_discard(t, int(graph.twin[s]), ("riichi", t))
        if allow_win and is_complete(graph.root):
            tile = int(drawn) if drawn is not None else int(np.flatnonzero(graph.root)[0])
            if callable(p.payoff):
                rows = np.full((1, 4, 2), -1, np.int64)
                rows[0, :len(graph.root_melds)] = graph.root_melds
                melds = rows if len(graph.root_melds) else None
                tsumo = float(np.asarray(_call_payoff(p.payoff, graph.root[None].copy(), np.array([tile]), True,
                                                      melds))[0])
            else:
                tsumo = float(p.payoff)
            if tsumo != tsumo:
                tsumo = None
            else:
                pr = np.zeros(N_OUT)
                pr[0] = 1.0
                probs["tsumo"] = pr
    else:
        stay = float(VF[0, T])
        pass_ = float(ED[0, T])
        if track:
            probs["stay"] = PF[1, 0].copy()
            probs["pass"] = PD[1, 0].copy()
        if p.calls and T >= 1:
            own = [c for c in graph.melds[0].tolist() if c >= 0]
            for c in range(graph.call_ptr[0], graph.call_ptr[1]):
                u = int(graph.call_tile[c])
                for e in range(graph.call_mem[c], graph.call_mem[c + 1]):
                    t, s = int(graph.call_mem_tile[e]), int(graph.call_mem_succ[e])
                    new = [x for x in graph.melds[s].tolist() if x >= 0]
                    for x in own:
                        new.remove(x)
                    key = (u, int(new[0]), t)
                    calls[key] = after_discard(t, s, ("call",) + key)
    return RootValues(discards=discards, tsumo=tsumo, stay=stay, pass_=pass_, probs=probs, VF=VF, ED=ED,
                      riichi=riichi_q, calls=calls, endings_at=out[4] if keep else None)
