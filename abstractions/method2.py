"""Method 2 (Kurita & Hoki Sec. VI-B, Eqs. 17-19; ``kurita_hoki.md`` 4.2): the value of an
action at 2-3 shanten from the WSM, TSM and FSM run from the hand after it.

Eq. 17: ``V(I+_a) = sum_x P(x | I, h_a) U_x`` over the five scenarios of
:data:`regressors.scenarios.SCENARIOS`, and for an action that discards ``t`` Eq. 4 around it:
``V(a) = P_L(t) U_L(t) + (1 - P_L(t)) V(I+_a)``. ``P(x)`` comes from Eq. 18's four regressions
(:class:`regressors.scenarios.ScenarioModel`) on the MDPs' features; Eq. 19's payoffs are
``U_win = V^WSM / P^WSM_win`` (measured from :data:`WSM_FLOOR`), ``U_lose`` the FSM's lose-conditional value (Eq. 15), and the other win and
the two washouts as the table says (``MDPParams.u_other``, ``u_tw``, ``u_nw``: the opponents'
tenpai chances inferred at ``I``). One graph serves every action of the decision: WSM and TSM
are solved once over it and read at each root action.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abstractions.fsm import fsm_closed_form
from abstractions.tsm import solve_tsm
from abstractions.wsm import solve_wsm
from regressors.scenarios import ScenarioModel, feature_row
from search.hand_graph import HandGraph, meld_take
from search.shanten import shanten

#: WSM's no-win payoff: the worst final rank. Payoffs are minus the expected final rank, so with
#: the spec's 0 every win (about -1 to -4) would look worse than not winning and WSM's optimal
#: policy would never win; from the floor, a win is worth ``U_win + 4 >= 0`` more than none, as
#: the paper's points are, and ``V^WSM`` (a feature) is ``E[(U_win + 4) 1_win]``.
WSM_FLOOR = -4.0
#: The win payoff of an action whose WSM never wins (``P^WSM_win = 0``, so Eq. 19 is 0/0) when
#: no other action of the decision wins either: a 2,000-point ron (counted, ``win_fallbacks``).
FALLBACK_WIN_POINTS = 2000.0


@dataclass(frozen=True)
class TableView:
    """What Eq. 18's regressions read from the table besides the MDPs."""

    n_riichi: int      # opponents in riichi
    sum_pt: float      # the summed tenpai chance of the opponents not in riichi
    n_dahai: int       # our discards since the deal
    tiles_left: int


@dataclass
class Method2Values:
    """Per root action (a kind, ``"pass"`` or ``("call", u, code, t)``, as in
    :class:`abstractions._solve.RootValues`): the features (Eq. 18), the scenario payoffs
    (Eq. 19), the chance ``p_now`` that its discard is ronned at once and, with a model, the
    scenario probabilities (that deal-in counted as a loss) and the value (Eq. 4 with Eq. 17)."""

    features: dict[object, np.ndarray]
    payoffs: dict[object, np.ndarray]
    p_now: dict[object, float]
    probs: dict[object, np.ndarray]
    values: dict[object, float]
    win_fallbacks: int  # 1 when no action's WSM wins and Eq. 19's win payoff is the stand-in


def _hand_after(root: np.ndarray, action) -> tuple[np.ndarray, int | None, bool]:
    """The concealed hand after ``action``, the kind it discards (None for a pass) and
    whether it calls."""
    h = root.astype(np.int64).copy()
    if action == "pass":
        return h, None, False
    if isinstance(action, tuple):
        _, u, code, t = action
        h[u] += 1
        meld_take(code, h, -1)
        h[t] -= 1
        return h, t, True
    h[action] -= 1
    return h, int(action), False


def _actions(wsm) -> list:
    if wsm.discards:
        return list(wsm.discards)
    return ["pass"] + [("call",) + k for k in wsm.calls]


def _at(rv, action) -> float:
    """The root value of ``action`` in a solve's :class:`abstractions._solve.RootValues`."""
    if isinstance(action, tuple):
        return rv.calls[action[1:]]
    return rv.pass_ if action == "pass" else rv.discards[action]


def evaluate(graph: HandGraph, params, table: TableView, model: ScenarioModel | None, *,
             drawn: int | None = None, u_win_fallback: float) -> Method2Values:
    """Method 2 at every root action of ``graph`` (a 14-tile root: the discards; a 13-tile root
    at an opponent's discard: pass and the calls the graph holds). ``params``: the decision's
    :class:`abstractions.params.MDPParams`; ``u_win_fallback``: the payoff of
    :data:`FALLBACK_WIN_POINTS`. Without ``model`` only the features and payoffs are filled
    (building the regressions' data)."""
    p = params.checked(graph.unseen)
    wsm = solve_wsm(graph, p, drawn=drawn, root_only=True, u_washout=WSM_FLOOR)
    tsm = solve_tsm(graph, p, root_only=True, track=False)  # its values are the probabilities
    growth0 = float(np.asarray(p.lose_growth)[0])
    n_melds = len(graph.root_melds)
    feats: dict[object, np.ndarray] = {}
    pays: dict[object, list[float]] = {}
    p_now: dict[object, float] = {}
    u_now: dict[object, float] = {}
    for a in _actions(wsm):
        v_w = _at(wsm, a) - WSM_FLOOR
        p_w = wsm.prob(a, "win")
        hand, t, call = _hand_after(graph.root, a)
        fsm = fsm_closed_form(hand, p.p_lose, p.u_lose, p=p.fsm_p, u_other=p.u_other, u_end=p.u_nw, T=p.T)
        p_now[a] = 0.0 if t is None else float(p.p_lose[t]) * growth0
        u_now[a] = 0.0 if t is None else float(p.u_lose[t])
        feats[a] = feature_row(wsm_p_win=p_w, wsm_value=v_w, tsm_p_tenpai=float(_at(tsm, a)),
                               fsm_p_lose=fsm.p_lose, n_riichi=table.n_riichi, sum_pt=table.sum_pt, n_dahai=table.n_dahai,
                               tiles_left=table.tiles_left, shanten=max(0, shanten(hand.astype(np.uint8))),
                               melds=n_melds + int(call))
        u_lose = fsm.u_lose_bar if fsm.p_lose > 0 else float(np.mean(p.u_lose))
        u_win = v_w / p_w + WSM_FLOOR if p_w > 0 else np.nan
        pays[a] = [u_win, u_lose, float(p.u_other), float(p.u_tw), float(p.u_nw)]
    known = [u[0] for u in pays.values() if u[0] == u[0]]
    payoffs: dict[object, np.ndarray] = {}
    for a, u in pays.items():
        if u[0] != u[0]:
            u[0] = float(np.mean(known)) if known else u_win_fallback
        payoffs[a] = np.array(u)
    probs: dict[object, np.ndarray] = {}
    values: dict[object, float] = {}
    if model is not None and feats:
        keys = list(feats)
        P = model.predict(np.vstack([feats[a] for a in keys]))
        for a, row in zip(keys, P):
            q = p_now[a]
            probs[a] = (1 - q) * row
            probs[a][1] += q
            values[a] = q * u_now[a] + (1 - q) * float(row @ payoffs[a])
    return Method2Values(features=feats, payoffs=payoffs, p_now=p_now, probs=probs, values=values,
                         win_fallbacks=int(bool(pays) and not known))
