"""Retrograde analysis (backward induction) of the solitary MDPs over the reduced hand graph.

Kurita & Hoki, Sec. VI-A1 (PSM, Eqs. 6-10), VI-A3 (WSM, TSM) and VI-D (retrograde analysis
"from states with larger n"); reconstruction in ``kurita_hoki.md`` sections 3 and 9.1 item 7.

Values are indexed by ``k = T - n``, the discards player *i* still has; the chance
probabilities are static, so a value depends on (hand, state type, k) only. For every graph
state ``h`` (a ``3k+1``-tile hand between turns) and ``k = 0..T``:

* ``VF[h, k]``: the value at the between-turns state (type tau_F) with ``k`` discards left;
  ``VF[h, 0]`` is the washout payoff ``U_tw`` / ``U_nw`` (tenpai / noten).
* ``ED[h, k]``: the value of passing at an opponent's discard (Eq. 9), i.e. the expectation
  over own draws ``u`` of the after-draw value

      V_D(h, u, k) = max( U_tsumo(h, u)                    if h+u wins       (Eq. 6)
                          max_t  P_L(t) U_L(t) + (1 - P_L(t)) VF[h+u-t, k-1] ) (Eq. 7)

  where ``t`` runs over the discards that stay in the graph (the drawn tile always does).
* at tau_F (Eq. 8, with the per-turn end probabilities of the brief):

      cont = P_O[n] U_O + (1 - P_O[n]) ( P_E[n] U_W(h)
              + (1 - P_E[n]) sum_u P_d(u) max(U_ron(h, u) if legal, ED[h, k]) )
      VF[h, k] = max(cont, V_stop[h, k])       (a_stop = fold, spec 9.2 A1, when allowed)

WSM and TSM are the same recursion with ``P_L = P_O = P_E = 0`` and no stop; TSM also has no
win actions and pays ``1[tenpai]`` at the horizon (set ``u_tw=1, u_nw=0``).

Under the argmax policy the kernel can also carry the probability of each ending, in the
order of ``OUTCOMES``.
"""
from __future__ import annotations

import numba
import numpy as np

#: Endings tracked under the optimal policy, in this order.
OUTCOMES = ("win", "lose", "other_win", "tenpai_washout", "noten_washout", "fold")
N_OUT = len(OUTCOMES)
WIN, LOSE, OTHER, TW, NW, FOLD = range(N_OUT)


@numba.njit(cache=True)
def lump_draws(draw_ptr, draw_tile, draw_w, draw_win, edge_ptr, edge_tile, p_lose, u_lose, allow_win,
               live_ptr, live, A, B, L, ea, eb):
    """Split each state's draws into live ones and one lump (``search_performance.md``).

    A draw with no in-graph exchange and no win (or wins not allowed) has one move, discarding
    the drawn tile again, so its after-draw value is ``P_L(u) U_L(u) + (1 - P_L(u)) VF[h, k-1]``
    (Eq. 7 with one option). Summed over those draws this is ``A[h] + B[h] VF[h, k-1]``, and
    ``L[h]`` is their weight of LOSE. ``live[live_ptr[h]:live_ptr[h+1]]`` lists the other draws.
    ``ea[e] + eb[e] * VF[successor, k-1]`` is the value of exchange ``e`` (Eq. 7's term).
    """
    n = draw_ptr.shape[0] - 1
    m = 0
    for s in range(n):
        live_ptr[s] = m
        a = 0.0
        b = 0.0
        lo = 0.0
        for j in range(draw_ptr[s], draw_ptr[s + 1]):
            if edge_ptr[j + 1] > edge_ptr[j] or (allow_win and draw_win[j] >= 0):
                live[m] = j
                m += 1
            else:
                u = draw_tile[j]
                w = draw_w[j]
                a += w * p_lose[u] * u_lose[u]
                b += w * (1.0 - p_lose[u])
                lo += w * p_lose[u]
        A[s] = a
        B[s] = b
        L[s] = lo
    live_ptr[n] = m
    for e in range(edge_tile.shape[0]):
        t = edge_tile[e]
        ea[e] = p_lose[t] * u_lose[t]
        eb[e] = 1.0 - p_lose[t]


@numba.njit(cache=True)
def solve_kernel(live_ptr, live, A, B, L, ea, eb, draw_tile, draw_w, draw_win, edge_ptr, edge_tile,
                 edge_succ, win_ptr, win_tile, tenpai, T, p_lose, u_lose, p_other, u_other, p_end,
                 u_tw, u_nw, p_disc, ron_ok, u_tsumo, u_ron, v_stop,
                 allow_win, allow_stop, tsumo_forced, track, VF, ED, PF_out, PD_out):
    """Fill ``VF``/``ED`` from ``k = 0`` up to ``T`` (draws lumped by :func:`lump_draws`).

    ``VF``, ``ED`` and ``v_stop`` are flat turn-major arrays: entry ``(h, k)`` is at
    ``k * n + h``, so a turn's values are contiguous and the gathers of ``VF[successor, k-1]``
    stay within one row. With ``track``, ``PF_out[0]``/``PF_out[1]`` receive the ending
    probabilities (n, N_OUT) of the tau_F states at ``k = T-1`` and ``k = T``, and ``PD_out``
    those of passing (``ED``).
    """
    n = tenpai.shape[0]
    a = np.empty(34)
    b = np.empty(34)
    for t in range(34):
        a[t] = p_lose[t] * u_lose[t]
        b[t] = 1.0 - p_lose[t]
    # two layers of ending probabilities, by the parity of k (no array re-binding in the loop)
    pf = np.zeros((2, n if track else 1, N_OUT))
    pd = np.zeros(N_OUT)
    pv = np.zeros(N_OUT)
    for s in range(n):
        VF[s] = u_tw if tenpai[s] else u_nw
        ED[s] = VF[s]
        if track:
            pf[0, s, TW if tenpai[s] else NW] = 1.0
    if track and T == 1:
        PF_out[0, :, :] = pf[0, :, :]
        PD_out[0, :, :] = pf[0, :, :]
    for k in range(1, T + 1):
        nn = T - k
        cur = k & 1
        prev = 1 - cur
        po = p_other[nn]
        pe = p_end[nn]
        bp = (k - 1) * n
        bc = k * n
        for s in range(n):
            # Eq. 9: pass -> own draw, Eq. 6/7 after it; the lumped draws first
            vs = VF[bp + s]
            ed = A[s] + B[s] * vs
            if track:
                for o in range(N_OUT):
                    pd[o] = B[s] * pf[prev, s, o]
                pd[LOSE] += L[s]
            for jj in range(live_ptr[s], live_ptr[s + 1]):
                j = live[jj]
                u = draw_tile[j]
                w = draw_w[j]
                wi = draw_win[j]
                if allow_win and wi >= 0 and tsumo_forced:
                    best = u_tsumo[wi]
                    arg = -2
                else:
                    best = a[u] + b[u] * vs
                    arg = -3
                    if track:
                        for e in range(edge_ptr[j], edge_ptr[j + 1]):
                            v = ea[e] + eb[e] * VF[bp + edge_succ[e]]
                            if v > best:
                                best = v
                                arg = e
                    else:
                        for e in range(edge_ptr[j], edge_ptr[j + 1]):
                            best = max(best, ea[e] + eb[e] * VF[bp + edge_succ[e]])
                    if allow_win and wi >= 0 and u_tsumo[wi] >= best:
                        best = u_tsumo[wi]
                        arg = -2
                ed += w * best
                if track:
                    if arg == -2:
                        pd[WIN] += w
                    else:
                        t = u if arg == -3 else edge_tile[arg]
                        nxt = s if arg == -3 else edge_succ[arg]
                        pd[LOSE] += w * p_lose[t]
                        for o in range(N_OUT):
                            pd[o] += w * b[t] * pf[prev, nxt, o]
            ED[bc + s] = ed
            # Eq. 8: continue -> other win / early end / an opponent's discard (ron or pass)
            vr = ed
            if track:
                pv[:] = pd[:]
            if allow_win:
                for wi in range(win_ptr[s], win_ptr[s + 1]):
                    u = win_tile[wi]
                    if ron_ok[u] and u_ron[wi] > ed:
                        vr += p_disc[u] * (u_ron[wi] - ed)
                        if track:
                            pv[WIN] += p_disc[u]
                            for o in range(N_OUT):
                                pv[o] -= p_disc[u] * pd[o]
            uw = u_tw if tenpai[s] else u_nw
            cont = po * u_other + (1.0 - po) * (pe * uw + (1.0 - pe) * vr)
            stop = allow_stop and v_stop[bc + s] > cont
            VF[bc + s] = v_stop[bc + s] if stop else cont
            if track:
                if stop:
                    pf[cur, s, :] = 0.0
                    pf[cur, s, FOLD] = 1.0
                else:
                    for o in range(N_OUT):
                        pf[cur, s, o] = (1.0 - po) * (1.0 - pe) * pv[o]
                    pf[cur, s, OTHER] += po
                    pf[cur, s, TW if tenpai[s] else NW] += (1.0 - po) * pe
                if k >= T - 1:
                    PD_out[k - T + 1, s, :] = pd[:]
        if track and k >= T - 1:
            PF_out[k - T + 1, :, :] = pf[cur, :, :]


def solve(graph, T: int, *, p_lose: np.ndarray, u_lose: np.ndarray, p_other: np.ndarray,
          u_other: float, p_end: np.ndarray, u_tw: float, u_nw: float, p_disc: np.ndarray,
          ron_ok: np.ndarray, u_tsumo: np.ndarray, u_ron: np.ndarray, v_stop: np.ndarray | None,
          allow_win: bool = True, tsumo_forced: bool = False, track: bool = True):
    """Run :func:`solve_kernel` on a :class:`search.hand_graph.HandGraph`.

    Per-turn arrays (``p_other``, ``p_end``) are indexed by ``n``, the discards made since the
    root (``0..T-1``); per-tile ones by kind. ``u_tsumo``/``u_ron`` follow the graph's win list.
    Returns ``(VF, ED, PF, PD)``; ``PF``/``PD`` have shape (2, n, N_OUT) for ``k = T-1, T``
    (zeros without ``track``).
    """
    n = graph.n_states
    VF = np.empty((T + 1, n))
    ED = np.empty((T + 1, n))
    PF = np.zeros((2, n, N_OUT) if track else (2, 1, N_OUT))
    PD = np.zeros_like(PF)
    allow_stop = v_stop is not None
    v_stop = np.zeros((1, 1)) if v_stop is None else np.ascontiguousarray(np.asarray(v_stop, np.float64).T)
    p_lose, u_lose = _f64(p_lose), _f64(u_lose)
    n_draws = graph.draw_tile.shape[0]
    live_ptr = np.empty(n + 1, np.int64)
    live = np.empty(n_draws, np.int64)
    A, B, L = np.empty(n), np.empty(n), np.empty(n)
    ea, eb = np.empty(graph.n_edges), np.empty(graph.n_edges)
    lump_draws(graph.draw_ptr, graph.draw_tile, graph.draw_w, graph.draw_win, graph.edge_ptr, graph.edge_tile,
               p_lose, u_lose, bool(allow_win), live_ptr, live, A, B, L, ea, eb)
    solve_kernel(live_ptr, live, A, B, L, ea, eb, graph.draw_tile, graph.draw_w, graph.draw_win, graph.edge_ptr,
                 graph.edge_tile, graph.edge_succ, graph.win_ptr, graph.win_tile, graph.tenpai,
                 int(T), p_lose, u_lose, _f64(p_other), float(u_other), _f64(p_end),
                 float(u_tw), float(u_nw), _f64(p_disc), np.ascontiguousarray(ron_ok, dtype=np.bool_),
                 _f64(u_tsumo), _f64(u_ron), v_stop.reshape(-1), bool(allow_win), bool(allow_stop),
                 bool(tsumo_forced), bool(track), VF.reshape(-1), ED.reshape(-1), PF, PD)
    # (n, T+1) views of the turn-major arrays
    return VF.T, ED.T, PF, PD


def _f64(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)
