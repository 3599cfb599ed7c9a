"""FSM, folding solitary mahjong (Kurita & Hoki Sec. VI-A2, Eqs. 11-15; ``kurita_hoki.md`` 3.2).

Player *i* only discards from the hand (no draws, no calls). A discard of kind ``t`` ends the
MDP by LOSE with probability ``P_L(t)`` (payoff ``U_L(t)``) unless ``t`` was already discarded
in this run; otherwise it ends by another player's win with the constant probability ``p``
(payoff ``U_O``); after ``N = min(T, N0)`` discards it ends with ``U_E``.

* :func:`fsm_dp` is the exact retrograde solution of Eq. 11 over the sub-hands of the root.
* :func:`fsm_closed_form` is the sorted-order closed form: kinds in ascending
  ``kappa(t) = P_L(t) (U_O - U_L(t)) / (1 - (1 - P_L(t)) (1 - p)^c_t)`` (Eq. 12), value Eq. 13,
  lose probability Eq. 14 and lose-conditional value Eq. 15. It is exact when ``T >= N0`` under
  the natural condition ``U_L <= U_O``; otherwise it is the spec's cheap approximation.
* :func:`fsm_stop_values` evaluates the closed form for many hands and every horizon at once
  (numba): the fold payoff ``a_stop`` of PSM (spec 9.2 A1), with the deal-in chances of the
  turns the fold would be played in (``lose_growth``) when PSM's own discards grow them.
* :func:`fsm_fold_chances` lists each hand's fold discards' deal-in chances in that order: the
  endings (Eq. 14 and its siblings) of a fold made at any state and turn of PSM.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numba
import numpy as np

from game.errors import MahjongError


@dataclass(frozen=True)
class FSMResult:
    """Optimal fold: value (Eq. 13), lose probability (Eq. 14), lose-conditional value (Eq. 15)
    and the discard order of kinds (Eq. 12)."""

    value: float
    p_lose: float
    u_lose_bar: float
    order: tuple[int, ...]


@numba.njit(cache=True)
def _order_into(h, p_lose, u_lose, p, u_other, order, kappa):
    """Eq. 12's order of the kinds of ``h`` (ascending ``kappa``, ties by kind) into
    ``order[:count]``; returns the count. An insertion sort in the caller's buffers: a hand
    has at most 14 kinds, and :func:`fsm_stop_values` orders every state of a graph."""
    nk = 0
    for t in range(h.shape[0]):
        if h[t] == 0:
            continue
        lam = p_lose[t]
        if lam <= 0.0:
            kap = 0.0
        else:
            kap = lam * (u_other - u_lose[t]) / (1.0 - (1.0 - lam) * (1.0 - p) ** h[t])
        i = nk
        while i > 0 and kappa[i - 1] > kap:  # stable: after the equal ones
            kappa[i] = kappa[i - 1]
            order[i] = order[i - 1]
            i -= 1
        kappa[i] = kap
        order[i] = t
        nk += 1
    return nk


@numba.njit(cache=True)
def _order(h, p_lose, u_lose, p, u_other):
    order = np.empty(h.shape[0], np.int64)
    kappa = np.empty(h.shape[0])
    return order[:_order_into(h, p_lose, u_lose, p, u_other, order, kappa)]


@numba.njit(cache=True)
def _sequence_values(h, order, p_lose, u_lose, p, u_other, u_end, out_v, out_pl, out_al):
    """For every horizon N = 1..N0: value, lose probability and the lose part of Eq. 13."""
    sigma = 1.0
    acc_l = 0.0      # sum of Sigma_k l_k U_L(d_k)
    acc_pl = 0.0     # sum of Sigma_k l_k
    acc_o = 0.0      # sum of Sigma_k (1 - l_k) p U_O, up to N-1
    N = 0
    for i in range(order.shape[0]):
        t = order[i]
        for c in range(h[t]):
            lam = p_lose[t] if c == 0 else 0.0
            N += 1
            acc_l += sigma * lam * u_lose[t]
            acc_pl += sigma * lam
            out_v[N] = acc_l + acc_o + sigma * (1.0 - lam) * u_end
            out_pl[N] = acc_pl
            out_al[N] = acc_l
            acc_o += sigma * (1.0 - lam) * p * u_other
            sigma *= (1.0 - lam) * (1.0 - p)
    return N


@numba.njit(cache=True)
def _grown_value(h, order, p_lose, u_lose, pv, u_other, u_end, g, n_start, N, tail):
    """Value of the first ``N`` discards of ``order`` made from turn ``n_start`` on, the
    ``i``-th one's deal-in chance grown by ``g[n_start + i]``, another's win after it (but the
    last, unless ``tail``) at ``pv[n_start + i + 1]``, then ``u_end``."""
    if N == 0:
        return u_end
    sigma = 1.0
    value = 0.0
    i = 0
    for j in range(order.shape[0]):
        t = order[j]
        for c in range(h[t]):
            lam = p_lose[t] * g[n_start + i] if c == 0 else 0.0
            value += sigma * lam * u_lose[t]
            i += 1
            if i == N:
                q = pv[n_start + i] if tail else 0.0
                return value + sigma * (1.0 - lam) * (q * u_other + (1.0 - q) * u_end)
            p = pv[n_start + i]
            value += sigma * (1.0 - lam) * p * u_other
            sigma *= (1.0 - lam) * (1.0 - p)
    return value


@numba.njit(cache=True)
def _stop_values(hands, p_lose, u_lose, p, pv, u_other, u_end, T, g, kmax, locked, tail, out):
    """:func:`fsm_stop_values` into the turn-major ``out`` (T+1, n); ``p`` orders the kinds,
    ``pv`` (T+1) is the other-win chance by turn."""
    n = hands.shape[0]
    v = np.empty(64)
    pl = np.empty(64)
    al = np.empty(64)
    flat = True
    for i in range(T):
        if g[i] != 1.0 or pv[i + 1] != p:
            flat = False
    # with ``tail`` and one hazard the last discard's other win is the end payoff's share (Eq. 13 stays exact)
    u_last = p * u_other + (1.0 - p) * u_end if tail else u_end
    buf = np.empty(34, np.int64)
    kappa = np.empty(34)
    for s in range(n):
        top = min(kmax[s], T)
        for k in range(max(top + 1, 0), T + 1):
            out[k, s] = np.nan
        if locked[s]:
            for k in range(top + 1):
                out[k, s] = -np.inf
            continue
        if top < 0:
            continue
        h = hands[s]
        order = buf[:_order_into(h, p_lose, u_lose, p, u_other, buf, kappa)]
        out[0, s] = u_end
        if flat:
            n0 = _sequence_values(h, order, p_lose, u_lose, p, u_other, u_last, v, pl, al)
            for k in range(1, top + 1):
                out[k, s] = v[min(k, n0)]
        else:
            n0 = 0
            for t in range(h.shape[0]):
                n0 += h[t]
            for k in range(1, top + 1):
                out[k, s] = _grown_value(h, order, p_lose, u_lose, pv, u_other, u_end, g, T - k, min(k, n0), tail)


def fsm_stop_values(hands: np.ndarray, p_lose: np.ndarray, u_lose: np.ndarray, p: float, u_other: float,
                    u_end: float, T: int, g: np.ndarray, *, kmax: np.ndarray | None = None,
                    locked: np.ndarray | None = None, p_turns: np.ndarray | None = None,
                    tail: bool = False) -> np.ndarray:
    """Closed-form fold value of each hand for every horizon ``k = 0..T`` -> (n, T+1).

    Column ``k`` uses ``N = min(k, N0)`` discards; column 0 is ``u_end``. ``g`` (T numbers,
    ``MDPParams.lose_growth``): a fold with ``k`` discards left starts at turn ``T - k``, and
    its ``i``-th discard is ronned with ``P_L(t) g[T - k + i]`` (the opponents are as near
    tenpai then as PSM's own discards assume); Eq. 12's order is kept from ``P_L``, which a
    common growth factor hardly moves. All ones: Eq. 13 exactly. ``p_turns`` (T+1 numbers,
    indexed as PSM's ``P_O[n]``): another wins after that discard at ``p_turns[T - k + i + 1]``,
    the hazard of the turn it is made in, instead of ``p`` (which still gives Eq. 12's order).
    ``tail``: the fold's last discard too meets another's win, at the hazard of its interval,
    before ``u_end`` (the hand runs on to the wall's end after it, as PSM's last discard meets
    ``P_O[T]``; False: Eq. 11 as reconstructed, ``u_end`` right after the last discard).
    ``kmax`` (n,): hand ``s`` is valued for ``k <= kmax[s]`` only (NaN past it: the pairs a root-only solve does not
    take); ``locked`` (n,) bool: those hands cannot fold (``-inf``: after riichi). The result
    is a view of a turn-major array, as the retrograde kernels read it.
    """
    n = hands.shape[0]
    out = np.empty((T + 1, n))
    kmax = np.full(n, T, np.int64) if kmax is None else np.ascontiguousarray(kmax, dtype=np.int64)
    locked = np.zeros(n, np.bool_) if locked is None else np.ascontiguousarray(locked, dtype=np.bool_)
    pv = _fold_hazards(p, p_turns, T)
    _stop_values(hands, p_lose, u_lose, float(p), pv, u_other, u_end, T, np.ascontiguousarray(g, dtype=np.float64),
                 kmax, locked, bool(tail), out)
    return out.T


def _fold_hazards(p: float, p_turns: np.ndarray | None, T: int) -> np.ndarray:
    """Another's win after a fold's discard made at turn ``n``, at index ``n + 1`` (T+1
    numbers): ``p_turns``, or ``p`` at every turn."""
    if p_turns is None:
        return np.full(T + 1, float(p))
    pv = np.ascontiguousarray(p_turns, dtype=np.float64)
    if pv.shape != (T + 1,) or ((pv < 0) | (pv > 1)).any():
        raise MahjongError(f"a fold's hazards must be {T + 1} numbers in [0, 1], got shape {pv.shape}")
    return pv


@numba.njit(cache=True)
def _fold_chances(hands, p_lose, u_lose, p, u_other, out):
    """:func:`fsm_fold_chances` into ``out`` (n, width), NaN-filled by the caller."""
    buf = np.empty(34, np.int64)
    kappa = np.empty(34)
    for s in range(hands.shape[0]):
        h = hands[s]
        order = buf[:_order_into(h, p_lose, u_lose, p, u_other, buf, kappa)]
        i = 0
        for j in range(order.shape[0]):
            t = order[j]
            for c in range(h[t]):
                out[s, i] = p_lose[t] if c == 0 else 0.0  # a kind's repeats are safe (Eq. 11)
                i += 1


def fsm_fold_chances(hands: np.ndarray, p_lose: np.ndarray, u_lose: np.ndarray, p: float,
                     u_other: float) -> np.ndarray:
    """The deal-in chance of each discard of each hand's fold, in Eq. 12's order -> (n, width).

    Row ``s`` lists ``P_L`` of the first discard of each kind and 0 for its repeats, then NaN
    past the hand's tiles (``width`` = the most tiles of a hand). These are the discards whose
    values :func:`fsm_stop_values` sums, so a fold's endings at any horizon and turn follow
    from them (``search.retrograde``'s endings kernel reads them at the pairs PSM folds at).
    """
    hands = np.ascontiguousarray(hands)
    width = int(hands.sum(axis=1).max()) if len(hands) else 0
    out = np.full((len(hands), width), np.nan)
    _fold_chances(hands, np.ascontiguousarray(p_lose, dtype=np.float64),
                  np.ascontiguousarray(u_lose, dtype=np.float64), float(p), float(u_other), out)
    return out


def _arrays(hand, p_lose, u_lose):
    h = np.asarray(hand, dtype=np.int64)
    pl = np.asarray(p_lose, dtype=np.float64)
    ul = np.asarray(u_lose, dtype=np.float64)
    if h.shape != (34,) or pl.shape != (34,) or ul.shape != (34,):
        raise MahjongError("FSM needs 34 counts, 34 lose probabilities and 34 lose payoffs")
    if ((pl < 0) | (pl > 1)).any():
        raise MahjongError("lose probabilities must lie in [0, 1]")
    if h.sum() == 0:
        raise MahjongError("FSM needs a non-empty hand")
    return h, pl, ul


def fsm_closed_form(hand: np.ndarray, p_lose: np.ndarray, u_lose: np.ndarray, *, p: float,
                    u_other: float, u_end: float, T: int) -> FSMResult:
    """Eqs. 12-15 for one hand (``hand`` = the FSM initial hand, 34 counts)."""
    h, pl, ul = _arrays(hand, p_lose, u_lose)
    if T < 1:
        raise MahjongError(f"FSM horizon T must be >= 1, got {T}")
    order = _order(h.astype(np.uint8), pl, ul, float(p), float(u_other))
    m = int(h.sum()) + 1
    v, plo, al = np.empty(m), np.empty(m), np.empty(m)
    n0 = _sequence_values(h.astype(np.uint8), order, pl, ul, float(p), float(u_other), float(u_end), v, plo, al)
    N = min(int(T), n0)
    p_l = float(plo[N])
    ubar = float(al[N] / p_l) if p_l > 0 else 0.0
    return FSMResult(value=float(v[N]), p_lose=p_l, u_lose_bar=ubar, order=tuple(int(t) for t in order))


def fsm_dp(hand: np.ndarray, p_lose: np.ndarray, u_lose: np.ndarray, *, p: float, u_other: float,
           u_end: float, T: int) -> FSMResult:
    """Exact retrograde solution of Eq. 11 (backward induction over the sub-hands of the root).

    At most ``prod(c_t + 1) <= 2^13`` states: cheap enough late in a hand, where the closed
    form is not exact (``T < N0``). ``order`` lists the kinds in the order of the optimal
    policy's first discards.
    """
    h0, pl, ul = _arrays(hand, p_lose, u_lose)
    if T < 1:
        raise MahjongError(f"FSM horizon T must be >= 1, got {T}")
    N = min(int(T), int(h0.sum()))
    kinds = [int(k) for k in np.flatnonzero(h0)]
    root = tuple(int(h0[k]) for k in kinds)

    @lru_cache(maxsize=None)
    def best(h: tuple[int, ...], n: int) -> tuple[float, float, float, int]:
        """(value, P(lose), E[U_L 1_lose], argmax position) at hand ``h`` after ``n`` discards."""
        top = None
        for i, c in enumerate(h):
            if c == 0:
                continue
            t = kinds[i]
            lam = pl[t] if c == root[i] else 0.0
            if n + 1 == N:
                v, pls, al = u_end, 0.0, 0.0
            else:
                nxt = h[:i] + (c - 1,) + h[i + 1:]
                v2, pl2, al2, _ = best(nxt, n + 1)
                v, pls, al = p * u_other + (1 - p) * v2, (1 - p) * pl2, (1 - p) * al2
            q = (lam * ul[t] + (1 - lam) * v, lam + (1 - lam) * pls, lam * ul[t] + (1 - lam) * al, i)
            if top is None or q[0] > top[0] + 1e-15:
                top = q
        return top

    value, p_l, al, _ = best(root, 0)
    order: list[int] = []
    h, n = root, 0
    while n < N:
        i = best(h, n)[3]
        if kinds[i] not in order:
            order.append(kinds[i])
        h = h[:i] + (h[i] - 1,) + h[i + 1:]
        n += 1
    return FSMResult(value=float(value), p_lose=float(p_l), u_lose_bar=float(al / p_l) if p_l > 0 else 0.0,
                     order=tuple(order))
