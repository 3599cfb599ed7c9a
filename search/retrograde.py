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

from typing import Callable

import numba
import numpy as np


#: Endings tracked under the optimal policy, in this order.
OUTCOMES = ("win", "lose", "other_win", "tenpai_washout", "noten_washout", "fold")
N_OUT = len(OUTCOMES)
WIN, LOSE, OTHER, TW, NW, FOLD = range(N_OUT)


#: The longest horizon: the policy's folds and marks keep one bit per turn in an int64.
MAX_T = 62
#: The member codes of :func:`lump_draws`: 34 kinds in each of class 0, class 1 (riichi) and
#: riichi declaration.
MEMBER_CODES = 3 * 34
#: The bit of ``h_code`` that marks a group's first member (:func:`lump_draws`); the tables
#: of the codes repeat above it, so the kernels index them with the bit set.
FIRST = 128
#: The most members of a group: the solve keeps a group's tied members as bits of an int32.
MAX_MEMBERS = 31
#: The most runs of groups a root-only solve takes a turn (:func:`group_runs`; about five).
MAX_RUNS = 16
#: The bit of a live draw's code (:func:`lump_draws`) that says it is one of its state's
#: useful draws (the upper half of the state's ``wtab`` row).
SHARE_BIT = 4
#: The bit of a live draw's code that says it wins.
WIN_BIT = 8


@numba.njit(cache=True)
def group_draws(draw_ptr, draw_tile, draw_win, edge_ptr, edge_tile, edge_succ, twin, draw_h, draw_m, h_ptr,
                h_tile, h_succ, h_decl):
    """The distinct after-draw (``3k+2``-tile) hands ``H = h + u`` of the draws that matter.

    Eq. 7's choice after a draw depends on ``H`` alone: ``max_t P_L(t) U_L(t) + (1 - P_L(t))
    VF[H - t, k-1]`` over the members ``H - t`` in the graph, and many draws (``h + u = h' +
    u'``) reach the same ``H``. So the solve takes that max once per ``H`` and turn.
    ``draw_h[j]`` is the ``H`` of draw ``j`` (-1 for a draw with no exchange, no win and no
    riichi declaration);
    ``h_tile/h_succ[h_ptr[H]:h_ptr[H+1]]`` are its members (discard kind, state), kinds
    ascending; ``draw_m[j]`` is the member of draw ``j``'s own state (the drawn tile discarded
    again), which the solve prefers on ties. A member with a riichi twin (a closed tenpai hand)
    is followed by the same discard into the twin with ``h_decl`` set: "riichi + discard t"
    (spec A11). The other draws into ``H`` are those of its members: member ``H - t`` by an
    exchange (draw ``u``, discard ``t``) of ``s`` draws ``t`` into ``H``, if a copy of ``t``
    is left. So ``H`` needs no key: the draws are visited in state order, and a draw joins the
    group of the first earlier member that draws into ``H`` (numbering the groups as a table
    of after-draw hands filled in that order would). A draw with no exchange gets a group of
    its own: every other member of its ``H`` would be an exchange away, and a locked state
    (riichi, or a graph without exchanges) keeps only its own discard. Returns the count.
    """
    n = draw_ptr.shape[0] - 1
    nh = 0
    m = 0
    for s in range(n):
        for j in range(draw_ptr[s], draw_ptr[s + 1]):
            if edge_ptr[j + 1] == edge_ptr[j] and draw_win[j] < 0 and twin[s] < 0:
                draw_h[j] = -1
                continue
            u = draw_tile[j]
            # an earlier member's draw into H: member s2 = H - t2 draws t2 (kinds ascending in
            # its draws, at most t2 places from their start)
            found = -1
            for e in range(edge_ptr[j], edge_ptr[j + 1]):
                s2 = edge_succ[e]
                if s2 > s:
                    continue
                t2 = edge_tile[e]
                x = min(draw_ptr[s2] + t2, draw_ptr[s2 + 1] - 1)
                while x >= draw_ptr[s2] and draw_tile[x] > t2:
                    x -= 1
                if x >= draw_ptr[s2] and draw_tile[x] == t2:
                    found = x
                    break
            if found >= 0:
                h = draw_h[found]
                x = h_ptr[h]
                while h_succ[x] != s:
                    x += 1
                draw_m[j] = x
                draw_h[j] = h
                continue
            # a new group: the exchanges (kinds ascending) with the drawn tile's own discard in
            # its place, each member followed by its riichi declaration if it has a twin
            h_ptr[nh] = m
            own = -1
            e = edge_ptr[j]
            while e < edge_ptr[j + 1] or own < 0:
                if own < 0 and (e == edge_ptr[j + 1] or edge_tile[e] > u):
                    own = m
                    t = u
                    succ = s
                else:
                    t = edge_tile[e]
                    succ = edge_succ[e]
                    e += 1
                h_tile[m] = t
                h_succ[m] = succ
                h_decl[m] = False
                m += 1
                if twin[succ] >= 0:
                    h_tile[m] = t
                    h_succ[m] = twin[succ]
                    h_decl[m] = True
                    m += 1
            draw_m[j] = own
            draw_h[j] = nh
            nh += 1
    h_ptr[nh] = m
    return nh


@numba.njit(cache=True, inline="always")
def _useful(j, sh, draw_win, edge_ptr, edge_succ, shanten):
    """Draw ``j`` of a state of shanten ``sh`` is useful: at tenpai it completes the hand,
    else an exchange after it that stays in the graph lowers the shanten."""
    if sh <= 0:
        return draw_win[j] >= 0
    for e in range(edge_ptr[j], edge_ptr[j + 1]):
        if shanten[edge_succ[e]] < sh:
            return True
    return False


@numba.njit(cache=True, inline="always")
def _shares(share_t, sc, U, s, nn):
    """``(useful, rest)``: the factors of state ``s``'s useful draws and of the others at the
    draw after ``nn`` discards; the useful ones at ``share_t[sc[s], nn]`` of their unseen share
    (the others hold the tiles we need), the rest at ``(1 - share U) / (1 - U)`` (:func:`lump_draws`);
    a share above 1 (a pool shrunk since the root) at most ``1 / U``: every draw useful."""
    r = sc[s]
    if r < 0:
        return 1.0, 1.0
    ds = min(share_t[r, nn], 1.0 / U[s])
    return ds, (1.0 - ds * U[s]) / (1.0 - U[s])


@numba.njit(cache=True, inline="always")
def _lumped(A, B, L, s, fu, fr):
    """``(A, B, L)`` of state ``s``'s lumped draws (:func:`lump_draws`), the useful part at
    ``fu`` and the rest at ``fr`` (:func:`_shares`)."""
    return (fr * A[2 * s] + fu * A[2 * s + 1], fr * B[2 * s] + fu * B[2 * s + 1],
            fr * L[2 * s] + fu * L[2 * s + 1])


@numba.njit(cache=True)
def lump_draws(draw_ptr, draw_tile, draw_left, draw_total, draw_win, edge_ptr, edge_succ, shanten, draw_h, draw_m,
               cls, twin, h_cls, h_ptr, h_tile, h_decl, p_lose, u_lose, allow_win, riichi_on, scaled_by, live_ptr, live_c,
               wtab, live_h, live_win, live_m, A, B, L, U, sc, h_code, ma, mb):
    """Split each state's draws into live ones and two lumps (``search_performance.md``).

    A draw with no in-graph exchange, no win (or wins not allowed) and no riichi declaration
    has one move, discarding the drawn tile again, so its after-draw value is ``P_L(u) U_L(u) + (1 - P_L(u)) VF[h, k-1]``
    (Eq. 7 with one option). Summed over those draws this is ``A[h] + B[h] VF[h, k-1]``, and
    ``L[h]`` is their weight of LOSE, kept apart for the state's useful draws and the rest
    (``A[2 h + 1]`` and ``A[2 h]``, below). The other draws are ``live_ptr[h] <= x <
    live_ptr[h+1]``: probability ``wtab[4 h + (live_c[x] & 3)]``, group ``live_h[x]``, win
    ``live_win[x]``, own member ``live_m[x]`` (copied, so that the solve reads them in order).
    A draw's probability is ``left / total`` with 1-4 copies left (``draw_left``,
    ``draw_total``), so a state has at most four: one byte a draw (``left - 1``, bit
    ``SHARE_BIT`` for a useful draw, bit ``WIN_BIT`` where ``live_win[x] >= 0``) where the
    solve's every turn would stream the float and the win index (16 bytes a draw to 5 with
    ``live_h``). A state's useful draws (:func:`_useful`: at tenpai the draws that complete the
    hand, else those after which an exchange in the graph lowers the shanten) come at a share
    of that by turn, the rest at what they leave (:func:`_shares`): ``U[h]`` is the state's
    share of useful draws and ``sc[h]`` its row of the shares (``min(shanten, 3)``), -1 where
    nothing is shared out (no useful draw, every draw useful, or ``scaled_by`` false for the
    row: all its shares are 1).
    ``ma[c] + mb[c] * VF[member, k-1]`` with ``c = h_code[m]`` is the value of discarding into
    member ``m`` (Eq. 7, Eq. 10 for the members of a call). Deal-in parameters come in two
    classes (``p_lose[c]``, ``u_lose[c]``; 1: after riichi) by the class of the state (``cls``)
    or of the group (``h_cls``). A riichi declaration (``h_decl``) is discarded with the class-0
    parameters (a declaration tile that deals in voids the riichi), and gets ``-inf`` without
    ``riichi_on``. So a member's ``ma``, ``mb`` depend on its kind and one of three cases
    only: ``h_code[m] = 34 * case + kind`` (class 0, class 1, declaration), one byte a member
    where two floats would be read at every turn; ``ma``, ``mb`` hold the ``MEMBER_CODES`` cases,
    repeated at ``FIRST +`` (the bit ``FIRST`` of ``h_code`` marks a group's first member).
    """
    n = draw_ptr.shape[0] - 1
    c = 0
    for s in range(n):
        live_ptr[s] = c
        k = cls[s]
        total = draw_total[s]
        sh = shanten[s]
        row = min(max(sh, 0), 3)
        useful = 0.0
        if scaled_by[row]:
            for j in range(draw_ptr[s], draw_ptr[s + 1]):
                if _useful(j, sh, draw_win, edge_ptr, edge_succ, shanten):
                    useful += draw_left[j] / total
        scaled = 0.0 < useful < 1.0 - 1e-12
        U[s] = useful
        sc[s] = row if scaled else -1
        for i in range(4):
            wtab[4 * s + i] = (i + 1) / total
        for x in range(2):
            A[2 * s + x] = 0.0
            B[2 * s + x] = 0.0
            L[2 * s + x] = 0.0
        for j in range(draw_ptr[s], draw_ptr[s + 1]):
            uj = scaled and _useful(j, sh, draw_win, edge_ptr, edge_succ, shanten)
            if draw_h[j] >= 0 and (edge_ptr[j + 1] > edge_ptr[j] or (allow_win and draw_win[j] >= 0)
                                   or (riichi_on and twin[s] >= 0)):
                live_c[c] = (draw_left[j] - 1) | (SHARE_BIT if uj else 0) | (WIN_BIT if draw_win[j] >= 0 else 0)
                live_h[c] = draw_h[j]
                live_win[c] = draw_win[j]
                live_m[c] = draw_m[j]
                c += 1
            else:
                u = draw_tile[j]
                w = draw_left[j] / total
                x = 2 * s + (1 if uj else 0)
                A[x] += w * p_lose[k, u] * u_lose[k, u]
                B[x] += w * (1.0 - p_lose[k, u])
                L[x] += w * p_lose[k, u]
    live_ptr[n] = c
    for h in range(h_ptr.shape[0] - 1):
        k = h_cls[h]
        for m in range(h_ptr[h], h_ptr[h + 1]):
            h_code[m] = 68 + h_tile[m] if h_decl[m] else 34 * k + h_tile[m]
        h_code[h_ptr[h]] |= FIRST
    for t in range(34):
        for k in range(2):
            ma[34 * k + t] = p_lose[k, t] * u_lose[k, t]
            mb[34 * k + t] = 1.0 - p_lose[k, t]
        ma[68 + t] = p_lose[0, t] * u_lose[0, t] if riichi_on else -np.inf
        mb[68 + t] = 1.0 - p_lose[0, t]
    ma[FIRST:FIRST + MEMBER_CODES] = ma[:MEMBER_CODES]
    mb[FIRST:FIRST + MEMBER_CODES] = mb[:MEMBER_CODES]


@numba.njit(cache=True, inline="always")
def _q(gq, ma, mb, h_code, VF, bp, h_succ, m):
    """Eq. 7's value of discarding into member ``m`` at this turn: ``ma + mb VF`` with the
    deal-in part grown by ``gq`` of its code (:func:`_code_growth`)."""
    c = h_code[m]
    return gq[c] * ma[c] + (1.0 - gq[c] * (1.0 - mb[c])) * VF[bp + h_succ[m]]


@numba.njit(cache=True)
def _code_growth(g_lose, nn, gq):
    """``gq[c]``: the growth of this turn's deal-in chances (``g_lose[class, nn]``) of a member
    with code ``c`` (:func:`lump_draws`): class 1 for the locked discards, class 0 for the
    others and the riichi declarations (made before the hand locks)."""
    for x in range(gq.shape[0]):
        cx = x & (FIRST - 1)
        gq[x] = g_lose[1, nn] if 34 <= cx < 68 else g_lose[0, nn]


@numba.njit(cache=True, inline="always")
def _tsumo(allow_win, tsumo_forced, wi, u_tsumo, vh):
    """Eq. 6: the draw wins (``wi``: its win, -1 none; NaN: no yaku) and the win is taken over
    the best discard ``vh`` (ties go to the win)."""
    return allow_win and wi >= 0 and u_tsumo[wi] == u_tsumo[wi] and (tsumo_forced or u_tsumo[wi] >= vh)


@numba.njit(cache=True, inline="always")
def _other(p_other, t_other, c, nn, tenpai):
    """``P_O`` of interval ``nn`` for a state of class ``c``: times ``t_other[c]`` at tenpai."""
    return p_other[c, nn] * (t_other[c] if tenpai else 1.0)


@numba.njit(cache=True, inline="always")
def _kinds(s, allow_win, win_ptr, win_tile, ron_ok, u_ron, call_ptr, call_tile, call_chi, call_g0, VH, ronv, ku, kr,
           kp, kpg, kc, kcg):
    """The options of state ``s`` at an opponent's discard, per discarded kind ``ku[i]``: the
    ron payoff ``kr`` (NaN: none) and the best pon / chi (Eq. 10: ``kp``/``kc``, their groups
    ``kpg``/``kcg``, -inf and -1 for none); ``VH`` must hold the values of ``s``'s call groups.
    ``ronv`` is 34 NaNs on entry and on return. Returns the count of kinds. :func:`solve_kernel`
    has these lines inlined by hand: there this helper's array arguments cost a third more
    time (reference counting at every state); the probability passes call it only for the
    states with calls or wins."""
    nk = 0
    if allow_win:
        for wi in range(win_ptr[s], win_ptr[s + 1]):
            u = win_tile[wi]
            if ron_ok[u] and u_ron[wi] == u_ron[wi]:
                ronv[u] = u_ron[wi]
    cc = call_ptr[s]
    ce = call_ptr[s + 1]
    while cc < ce:  # calls, grouped by kind
        u = call_tile[cc]
        kp[nk] = -np.inf
        kpg[nk] = -1
        kc[nk] = -np.inf
        kcg[nk] = -1
        while cc < ce and call_tile[cc] == u:
            g = call_g0 + cc
            if call_chi[cc]:
                if VH[g] > kc[nk]:
                    kc[nk] = VH[g]
                    kcg[nk] = g
            elif VH[g] > kp[nk]:
                kp[nk] = VH[g]
                kpg[nk] = g
            cc += 1
        ku[nk] = u
        kr[nk] = ronv[u]
        ronv[u] = np.nan
        nk += 1
    if allow_win:  # the kinds with a ron and no call
        for wi in range(win_ptr[s], win_ptr[s + 1]):
            u = win_tile[wi]
            if ronv[u] == ronv[u]:
                ku[nk] = u
                kr[nk] = ronv[u]
                ronv[u] = np.nan
                kp[nk] = -np.inf
                kpg[nk] = -1
                kc[nk] = -np.inf
                kcg[nk] = -1
                nk += 1
    return nk


@numba.njit(cache=True, inline="always")
def _choose(base, r, vp, gp, vc, gc, cw):
    """The best answer to one discarded kind (Eq. 10 with ron): ``(v0, a0)`` of ron / pass / pon
    and ``(v1, a1)`` with chi too (taken only if ``cw > 0``); ``a``: -2 ron, -1 pass, else the
    call's group. Ties keep the earlier option (pass, then ron, then pon)."""
    v0 = base
    a0 = -1
    if r == r and r > v0:
        v0 = r
        a0 = -2
    if vp > v0:
        v0 = vp
        a0 = gp
    v1 = v0
    a1 = a0
    if cw > 0.0 and vc > v1:
        v1 = vc
        a1 = gc
    return v0, a0, v1, a1


@numba.njit(cache=True)
def solve_kernel(live_ptr, live_c, wtab, live_h, live_win, A, B, L, U, sc, share_t, nh, h_ptr, h_succ, h_code, ma, mb,
                 win_ptr, win_tile, tenpai, cls, skip_locked, call_ptr, call_tile, call_chi, call_g0,
                 node_chi, T, g_lose, p_other, u_other, p_end, u_tw, u_nw, p_disc, ron_scale, t_other, ron_ok, u_tsumo,
                 u_ron, v_stop, allow_win, allow_stop, tsumo_forced, track, kmax, run_lo, run_hi, VF, ED, stops,
                 q_event, v_event, allow_event):
    """Fill ``VF``/``ED`` from ``k = 0`` up to ``T``.

    Each turn first takes Eq. 7's best discard once per after-draw hand ``H``
    (:func:`group_draws`) and Eq. 10's once per after-call hand (groups ``call_g0 + c``), then
    Eqs. 6, 9 and 8 per state over its live draws plus the lump of :func:`lump_draws`. Between
    two of our turns come ``len(node_chi)`` opponents' discards, each of kind ``u`` with
    ``p_disc`` (times ``ron_scale[c, n]`` for a kind it can ron): at each the state takes the best
    of ron (legal when ``u_ron`` is not NaN),
    pass, pon and, with weight ``node_chi[j]`` (the left player's share of discard ``j``), chi
    (Eq. 10); passing every one leads to our draw.
    Chance parameters come in two classes by ``cls`` (1: locked after riichi): ``p_other[c, n]``
    (``n = 0..T``; ``n = T`` after i's last discard, before the washout; times ``t_other[c]``
    at a tenpai state), ``p_end[c, n]``,
    ``g_lose[c, n]`` (a member's class is its code's, :func:`_code_growth`), ``ron_scale[c, n]``, ``u_other[c]``,
    ``u_tw[c]``, ``u_nw[c]``, ``p_disc[c, u]``; with
    ``skip_locked`` (no declarations allowed) the locked states are not solved (their values
    stay 0: nothing reaches them). A NaN win
    payoff is no win (an open hand without yaku). ``VF``, ``ED`` and ``v_stop`` are flat
    turn-major arrays: entry ``(h, k)`` is at ``k * n + h``, so the gathers of ``VF[member,
    k-1]`` stay within one row. With ``track`` the folds, for :func:`policy_marks`: bit ``k``
    of ``stops[s]`` (zeros on entry) is set where the fold is taken (the best members of the
    groups are found there, at the pairs that need them).
    State ``s`` is solved for ``k <= kmax[s]`` only (:func:`turns_read`; ``T`` everywhere
    solves all); the groups are taken in runs (:func:`group_runs`), at turn ``k`` groups
    ``run_lo[r] <= h < run_hi[k, r]``, each run in one pass over its members (a loop per
    group mispredicts its end at most groups, of 1-3 members: 1.7x the time); a group that no
    solved state reads (locked ones with ``skip_locked``, past ``kmax``) may be taken, and is
    never read. With ``allow_event``, in the interval after ``n`` discards an event (an
    opponent's riichi) comes with chance ``q_event[n]``, after which the state is worth
    ``v_event`` (flat like ``v_stop``: the value of the world after the event) instead of
    its continuation; the fold is chosen over the mixed value.
    """
    n = tenpai.shape[0]
    VH = np.empty(nh)
    gq = np.empty(2 * FIRST)
    qa = np.empty(2 * FIRST)
    qk = np.empty(2 * FIRST)
    ronv = np.full(34, np.nan)
    ku = np.empty(34, np.int64)   # per discarded kind: the kind, ron, best pon / chi and group
    kr = np.empty(34)
    kp = np.empty(34)
    kc = np.empty(34)
    kpg = np.empty(34, np.int64)
    kcg = np.empty(34, np.int64)
    for s in range(n):
        # the horizon: the washout, unless another wins after i's last discard (p_other[T])
        c = cls[s]
        po = _other(p_other, t_other, c, T, tenpai[s])
        VF[s] = po * u_other[c] + (1.0 - po) * (u_tw[c] if tenpai[s] else u_nw[c])
        ED[s] = VF[s]
    for k in range(1, T + 1):
        nn = T - k
        bp = (k - 1) * n
        bc = k * n
        # deal-in chances of this turn's discards: P_L(t) g_lose[c, n] (the opponents' tenpai grows)
        _code_growth(g_lose, nn, gq)
        # Eq. 7 once per after-draw hand, Eq. 10 once per after-call hand; _q by hand, from
        # this turn's coefficients of each member code (the same products as _q's)
        for x in range(2 * FIRST):
            qa[x] = gq[x] * ma[x]
            qk[x] = 1.0 - gq[x] * (1.0 - mb[x])
        for r in range(run_lo.shape[0]):  # the runs of groups read at this turn
            lo = run_lo[r]
            hi = run_hi[k, r]
            if hi <= lo:
                continue
            h = lo - 1
            best = 0.0
            for m in range(h_ptr[lo], h_ptr[hi]):
                x = h_code[m]
                v = qa[x] + qk[x] * VF[bp + h_succ[m]]
                first = x >> 7  # the FIRST bit: a new group
                h += first
                best = v if first else max(best, v)
                VH[h] = best
        for s in range(n):
            c = cls[s]
            if skip_locked and c == 1:
                VF[bc + s] = 0.0
                ED[bc + s] = 0.0
                continue
            if k > kmax[s]:  # not solved: NaN, never read
                VF[bc + s] = np.nan
                ED[bc + s] = np.nan
                continue
            # Eq. 9: pass -> own draw, then Eq. 6 (tsumo) or Eq. 7; the lumped draws first
            gl = g_lose[c, nn]
            fu, fr = _shares(share_t, sc, U, s, nn)
            la, lb, ll = _lumped(A, B, L, s, fu, fr)
            ed = gl * la + (lb + ll - gl * ll) * VF[bp + s]
            for x in range(live_ptr[s], live_ptr[s + 1]):
                lc = live_c[x]
                w = wtab[4 * s + (lc & 3)] * (fu if (lc & SHARE_BIT) != 0 else fr)
                # live_win is read at the few winning draws only
                if (lc & WIN_BIT) != 0 and _tsumo(allow_win, tsumo_forced, live_win[x], u_tsumo, VH[live_h[x]]):
                    ed += w * u_tsumo[live_win[x]]
                else:
                    ed += w * VH[live_h[x]]
            ED[bc + s] = ed
            # Eq. 8: continue -> other win / early end / the opponents' discards (ron, take or
            # pass each), the last (before our draw) first
            nk = 0
            if allow_win:
                for wi in range(win_ptr[s], win_ptr[s + 1]):
                    u = win_tile[wi]
                    if ron_ok[u] and u_ron[wi] == u_ron[wi]:
                        ronv[u] = u_ron[wi]
            cc = call_ptr[s]
            ce = call_ptr[s + 1]
            while cc < ce:  # calls, grouped by kind
                u = call_tile[cc]
                kp[nk] = -np.inf
                kpg[nk] = -1
                kc[nk] = -np.inf
                kcg[nk] = -1
                while cc < ce and call_tile[cc] == u:
                    g = call_g0 + cc
                    if call_chi[cc]:
                        if VH[g] > kc[nk]:
                            kc[nk] = VH[g]
                            kcg[nk] = g
                    elif VH[g] > kp[nk]:
                        kp[nk] = VH[g]
                        kpg[nk] = g
                    cc += 1
                ku[nk] = u
                kr[nk] = ronv[u]
                ronv[u] = np.nan
                nk += 1
            if allow_win:  # the kinds with a ron and no call
                for wi in range(win_ptr[s], win_ptr[s + 1]):
                    u = win_tile[wi]
                    if ronv[u] == ronv[u]:
                        ku[nk] = u
                        kr[nk] = ronv[u]
                        ronv[u] = np.nan
                        kp[nk] = -np.inf
                        kpg[nk] = -1
                        kc[nk] = -np.inf
                        kcg[nk] = -1
                        nk += 1
            vr = ed
            for j in range(node_chi.shape[0] - 1, -1, -1):
                cw = node_chi[j]
                base = vr
                for i in range(nk):
                    pu = p_disc[c, ku[i]]
                    if kr[i] == kr[i]:
                        pu *= ron_scale[c, nn]
                    if pu == 0.0:
                        continue
                    v0, a0, v1, a1 = _choose(base, kr[i], kp[i], kpg[i], kc[i], kcg[i], cw)
                    vr += pu * ((1.0 - cw) * v0 + cw * v1 - base)
            po = _other(p_other, t_other, c, nn, tenpai[s])
            pe = p_end[c, nn]
            uw = u_tw[c] if tenpai[s] else u_nw[c]
            cont = po * u_other[c] + (1.0 - po) * (pe * uw + (1.0 - pe) * vr)
            if allow_event:
                cont += q_event[nn] * (v_event[bc + s] - cont)
            if allow_stop and v_stop[bc + s] > cont:
                VF[bc + s] = v_stop[bc + s]
                if track:
                    stops[s] |= 1 << k
            else:
                VF[bc + s] = cont


@numba.njit(cache=True, inline="always")
def _low_bit(mask):
    """The position of the lowest set bit of ``mask`` (> 0)."""
    b = 0
    while not (mask >> b) & 1:
        b += 1
    return b


@numba.njit(cache=True, inline="always")
def _first_best(code, m0):
    """The first best member of a group (members from ``m0``) from its ``hbest`` code."""
    return code if code >= 0 else m0 + _low_bit(-code)


@numba.njit(cache=True, inline="always")
def _tie_pick(mask, m0, mo, decl_next):
    """The member a draw discards into when the members ``mask`` (bits from ``m0``) tie for
    the best: its own ``mo`` (the drawn tile), then riichi with it (``decl_next``: the member
    after ``mo`` is that declaration), then the first best (the lowest kind). Scalars only:
    array arguments to the helpers of a hot loop cost reference counting."""
    if (mask >> (mo - m0)) & 1:
        return mo
    if decl_next and (mask >> (mo + 1 - m0)) & 1:
        return mo + 1
    return m0 + _low_bit(mask)


@numba.njit(cache=True)
def policy_marks(live_ptr, live_h, live_win, live_m, A, B, L, U, sc, share_t, nh, h_ptr, h_tile, h_succ, h_decl, h_code, ma, mb, win_ptr,
                 win_tile, cls, skip_locked, call_ptr, call_tile, call_chi, call_g0, node_chi, T, g_lose, p_disc,
                 ron_scale, ron_ok, u_tsumo, u_ron, allow_win, tsumo_forced, VF, ED, stops, hbest, marks):
    """The (state, ``k``) pairs whose ending probabilities the seeds need under the solved policy.

    On entry bit ``k`` of ``marks[s]`` is set at the seeds; walking the turns down from ``T``,
    every marked pair marks at ``k - 1`` the states its policy moves into: itself by its lumped
    draws, the member each live draw discards into (unless it tsumos), the member of each call
    it takes at an opponent's discard (nothing past a fold). The draws of the pairs of the top
    two turns are followed even past a fold, for the probabilities of passing (``PD``). These
    are the only pairs :func:`endings_kernel` reads: the policy picks one member per group, so
    they are a small part of the pairs the values need (:func:`turns_read`). The policy is
    :func:`solve_kernel`'s: its folds (``stops``), and the best members of the groups that the
    marked pairs read, found here and written to ``hbest`` for :func:`endings_kernel` (the
    values compared are recomputed in the solve's order of evaluation, so they are equal bit
    for bit; the solve's own loop keeps no argmax: the groups read here are a few per cent of
    its groups and turns).
    """
    n = cls.shape[0]
    VH = np.empty(nh)  # the call groups' values, per state
    gq = np.empty(2 * FIRST)
    seen = np.zeros(nh, np.int8)  # the last turn each group's best members were found at
    ronv = np.full(34, np.nan)
    ku = np.empty(34, np.int64)
    kr = np.empty(34)
    kp = np.empty(34)
    kc = np.empty(34)
    kpg = np.empty(34, np.int64)
    kcg = np.empty(34, np.int64)
    for k in range(T, 0, -1):
        bp = (k - 1) * n
        bc = k * n
        _code_growth(g_lose, T - k, gq)
        low = 1 << (k - 1)
        for s in range(n):
            if not (marks[s] >> k) & 1:
                continue
            c = cls[s]
            if skip_locked and c == 1:
                continue
            stop = (stops[s] >> k) & 1
            if stop and k < T - 1:
                continue
            # the policy at the groups this pair reads (its live draws', then, unless it folds,
            # its calls'): hbest[(k - 1) * nh + h], the best member or -mask of the tied ones
            # (bits from the group's first member), from the values that solve_kernel compared
            nl = live_ptr[s + 1] - live_ptr[s]
            for jj in range(nl + (0 if stop else call_ptr[s + 1] - call_ptr[s])):
                h = live_h[live_ptr[s] + jj] if jj < nl else call_g0 + call_ptr[s] + jj - nl
                if seen[h] == k:  # found for another pair of this turn
                    continue
                seen[h] = k
                m0 = h_ptr[h]
                best = _q(gq, ma, mb, h_code, VF, bp, h_succ, m0)
                arg = m0
                tie = 1
                for m in range(m0 + 1, h_ptr[h + 1]):
                    v = _q(gq, ma, mb, h_code, VF, bp, h_succ, m)
                    if v > best:
                        best = v
                        arg = m
                        tie = 1 << (m - m0)
                    elif v == best:
                        tie |= 1 << (m - m0)
                hbest[(k - 1) * nh + h] = arg if tie & (tie - 1) == 0 else -tie
            gl = g_lose[c, T - k]
            fu, fr = _shares(share_t, sc, U, s, T - k)
            _, lb, ll = _lumped(A, B, L, s, fu, fr)
            if lb + ll - gl * ll != 0.0:
                marks[s] |= low
            for x in range(live_ptr[s], live_ptr[s + 1]):
                m = hbest[(k - 1) * nh + live_h[x]]
                if m < 0:  # a tie: the draw's own member first (see _tie_pick)
                    h = live_h[x]
                    mo = live_m[x]
                    decl = mo + 1 < h_ptr[h + 1] and h_decl[mo + 1] and h_tile[mo + 1] == h_tile[mo]
                    m = _tie_pick(-m, h_ptr[h], mo, decl)
                wi = live_win[x]
                if not (wi >= 0 and _tsumo(allow_win, tsumo_forced, wi, u_tsumo,
                                           _q(gq, ma, mb, h_code, VF, bp, h_succ, m))):
                    marks[h_succ[m]] |= low
            if stop:
                continue
            for cc in range(call_ptr[s], call_ptr[s + 1]):
                g = call_g0 + cc
                VH[g] = _q(gq, ma, mb, h_code, VF, bp, h_succ, _first_best(hbest[(k - 1) * nh + g], h_ptr[g]))
            nk = 0
            if call_ptr[s + 1] > call_ptr[s] or (allow_win and win_ptr[s + 1] > win_ptr[s]):
                nk = _kinds(s, allow_win, win_ptr, win_tile, ron_ok, u_ron, call_ptr, call_tile, call_chi, call_g0,
                            VH, ronv, ku, kr, kp, kpg, kc, kcg)
            vr = ED[bc + s]
            for j in range(node_chi.shape[0] - 1, -1, -1):
                cw = node_chi[j]
                base = vr
                for i in range(nk):
                    pu = p_disc[c, ku[i]]
                    if kr[i] == kr[i]:
                        pu *= ron_scale[c, T - k]
                    if pu == 0.0:
                        continue
                    v0, a0, v1, a1 = _choose(base, kr[i], kp[i], kpg[i], kc[i], kcg[i], cw)
                    vr += pu * ((1.0 - cw) * v0 + cw * v1 - base)
                    if a0 >= 0 and pu * (1.0 - cw) != 0.0:
                        marks[h_succ[_first_best(hbest[(k - 1) * nh + a0], h_ptr[a0])]] |= low
                    if a1 >= 0 and pu * cw != 0.0:
                        marks[h_succ[_first_best(hbest[(k - 1) * nh + a1], h_ptr[a1])]] |= low


@numba.njit(cache=True)
def _fold_row(row, lam, s, k, T, g, pv, tail, iL, iO, iN, iF):
    """How the fold of state ``s`` with ``k`` discards left ends, into ``row``: ``row[iF] = 1``
    without ``lam``; with it (``abstractions.fsm.fsm_fold_chances``) the fold's own endings,
    the ones its value :func:`abstractions.fsm.fsm_stop_values` sums: its ``i``-th discard, made
    at turn ``T - k + i``, is ronned with ``lam[s, i] g[T - k + i]``, another wins with
    ``pv[T - k + i + 1]`` after each but the last (after the last too with ``tail``), and after
    ``min(k, tiles)`` discards it ends noten (``U_E``)."""
    for o in range(row.shape[0]):
        row[o] = 0.0
    if lam.shape[0] == 0:
        row[iF] = 1.0
        return
    sigma = 1.0
    pl = 0.0
    po = 0.0
    pe = 1.0
    n = min(k, lam.shape[1])
    for i in range(n):
        x = lam[s, i]
        if x != x:  # past the hand's tiles
            break
        x *= g[T - k + i]
        pl += sigma * x
        pe = sigma * (1.0 - x)
        last = i + 1 == n or lam[s, i + 1] != lam[s, i + 1]
        if tail or not last:
            p = pv[T - k + i + 1]
            po += pe * p
            sigma = pe * (1.0 - p)
            pe = sigma
    if iL >= 0:
        row[iL] += pl
    if iO >= 0:
        row[iO] += po
    row[iN] += pe


@numba.njit(cache=True)
def endings_kernel(live_ptr, live_c, wtab, live_h, live_win, live_m, A, B, L, U, sc, share_t, nh, h_ptr, h_tile, h_succ, h_decl, h_code, ma, mb,
                   win_ptr, win_tile, tenpai, cls, skip_locked, call_ptr, call_tile, call_chi, call_g0, node_chi, T,
                   g_lose, p_other, t_other, p_end, p_disc, ron_scale, ron_ok, u_tsumo, u_ron, allow_win, tsumo_forced, omap,
                   fold_lam, fold_g, fold_p, fold_tail, VF, ED, stops, hbest, marks, PF_out, PD_out, q_event, ev, allow_event,
                   all_out, keep_all):
    """The ending probabilities (``OUTCOMES``) under the solved policy at the marked pairs.

    Eqs. 6-10 with each max replaced by the action that :func:`solve_kernel` took (``stops``,
    ``hbest``; the rest re-taken from ``VF``/``ED`` in its order of evaluation), from ``k = 0``
    up: at the pairs of :func:`policy_marks` only, which read no other. ``PF_out[0]`` and
    ``PF_out[1]`` receive the probabilities (n, N_OUT) of the marked tau_F states at ``k = T-1``
    and ``k = T``, ``PD_out`` those of passing (``ED``); the rows of the others stay as they
    are. ``omap`` gives each ending its slot in the kernel's arrays, -1 for the endings these
    parameters cannot reach. A fold ends as ``fold`` or, with ``fold_lam`` rows, as the fold
    itself ends from that state and turn (:func:`_fold_row`). With ``allow_event`` the
    continuation's endings follow :func:`solve_kernel`'s event: with chance ``q_event[n]`` they
    are ``ev[k, s]`` (N_OUT slots: the endings of the world after it, at every marked pair),
    as its value is ``v_event``. With ``keep_all`` every layer of the marked pairs goes to
    ``all_out[k, s]`` (N_OUT slots), for a world before the event to read as its ``ev``.
    """
    n = tenpai.shape[0]
    no = 0
    for o in range(N_OUT):
        if omap[o] >= 0:
            no += 1
    iW = omap[WIN]
    iL = omap[LOSE]
    iO = omap[OTHER]
    iT = omap[TW]
    iN = omap[NW]
    iF = omap[FOLD]
    pf = np.zeros((2, n, no))
    VH = np.empty(nh)  # the call groups' values, per state
    gq = np.empty(2 * FIRST)
    pd = np.zeros(no)
    pv = np.zeros(no)
    pb = np.zeros(no)
    ronv = np.full(34, np.nan)
    ku = np.empty(34, np.int64)
    kr = np.empty(34)
    kp = np.empty(34)
    kc = np.empty(34)
    kpg = np.empty(34, np.int64)
    kcg = np.empty(34, np.int64)
    for s in range(n):
        if marks[s] & 1:
            # the horizon: the washout, unless another wins after i's last discard (p_other[T])
            po = _other(p_other, t_other, cls[s], T, tenpai[s])
            pf[0, s, iT if tenpai[s] else iN] = 1.0 - po
            if iO >= 0:
                pf[0, s, iO] += po
    if T == 1:
        _put(PF_out, 0, pf, 0, omap, marks, 0)
        _put(PD_out, 0, pf, 0, omap, marks, 0)
    if keep_all:
        _put(all_out, 0, pf, 0, omap, marks, 0)
    for k in range(1, T + 1):
        nn = T - k
        cur = k & 1
        prev = 1 - cur
        bp = (k - 1) * n
        bc = k * n
        _code_growth(g_lose, nn, gq)
        for s in range(n):
            if not (marks[s] >> k) & 1:
                continue
            c = cls[s]
            gl = g_lose[c, nn]
            if skip_locked and c == 1:
                continue
            stop = (stops[s] >> k) & 1
            if stop and k < T - 1:
                _fold_row(pf[cur, s], fold_lam, s, k, T, fold_g, fold_p, fold_tail, iL, iO, iN, iF)
                continue
            # Eq. 9: the lumped draws, then each live draw's tsumo or discard
            fu, fr = _shares(share_t, sc, U, s, nn)
            _, lb, ll = _lumped(A, B, L, s, fu, fr)
            bs = lb + ll - gl * ll
            for o in range(no):
                pd[o] = bs * pf[prev, s, o]
            if iL >= 0:
                pd[iL] += gl * ll
            for x in range(live_ptr[s], live_ptr[s + 1]):
                lc = live_c[x]
                w = wtab[4 * s + (lc & 3)] * (fu if (lc & SHARE_BIT) != 0 else fr)
                m = hbest[(k - 1) * nh + live_h[x]]
                if m < 0:  # a tie: the draw's own member first (see _tie_pick)
                    h = live_h[x]
                    mo = live_m[x]
                    decl = mo + 1 < h_ptr[h + 1] and h_decl[mo + 1] and h_tile[mo + 1] == h_tile[mo]
                    m = _tie_pick(-m, h_ptr[h], mo, decl)
                wi = live_win[x]
                if wi >= 0 and _tsumo(allow_win, tsumo_forced, wi, u_tsumo, _q(gq, ma, mb, h_code, VF, bp, h_succ, m)):
                    pd[iW] += w
                else:
                    # Eq. 7's P_L deals in, else the member's endings at k - 1
                    keep = 1.0 - gq[h_code[m]] * (1.0 - mb[h_code[m]])
                    nxt = h_succ[m]
                    for o in range(no):
                        v = keep * pf[prev, nxt, o]
                        if o == iL:
                            v += gq[h_code[m]] * (1.0 - mb[h_code[m]])
                        pd[o] += w * v
            if k >= T - 1:
                for o in range(N_OUT):
                    PD_out[k - T + 1, s, o] = pd[omap[o]] if omap[o] >= 0 else 0.0
            if stop:
                _fold_row(pf[cur, s], fold_lam, s, k, T, fold_g, fold_p, fold_tail, iL, iO, iN, iF)
                continue
            # Eq. 8: the opponents' discards, the last first, each answered as solve_kernel did
            for cc in range(call_ptr[s], call_ptr[s + 1]):
                g = call_g0 + cc
                VH[g] = _q(gq, ma, mb, h_code, VF, bp, h_succ, _first_best(hbest[(k - 1) * nh + g], h_ptr[g]))
            nk = 0
            if call_ptr[s + 1] > call_ptr[s] or (allow_win and win_ptr[s + 1] > win_ptr[s]):
                nk = _kinds(s, allow_win, win_ptr, win_tile, ron_ok, u_ron, call_ptr, call_tile, call_chi, call_g0,
                            VH, ronv, ku, kr, kp, kpg, kc, kcg)
            vr = ED[bc + s]
            for o in range(no):  # loops, not slices: a slice is an array object per state
                pv[o] = pd[o]
            for j in range(node_chi.shape[0] - 1, -1, -1):
                cw = node_chi[j]
                base = vr
                for o in range(no):
                    pb[o] = pv[o]
                for i in range(nk):
                    pu = p_disc[c, ku[i]]
                    if kr[i] == kr[i]:
                        pu *= ron_scale[c, nn]
                    if pu == 0.0:
                        continue
                    v0, a0, v1, a1 = _choose(base, kr[i], kp[i], kpg[i], kc[i], kcg[i], cw)
                    vr += pu * ((1.0 - cw) * v0 + cw * v1 - base)
                    for br in range(2):
                        a = a0 if br == 0 else a1
                        wgt = pu * ((1.0 - cw) if br == 0 else cw)
                        if wgt == 0.0:
                            continue
                        if a == -2:
                            pv[iW] += wgt
                            for o in range(no):
                                pv[o] -= wgt * pb[o]
                        elif a >= 0:
                            m = _first_best(hbest[(k - 1) * nh + a], h_ptr[a])
                            keep = 1.0 - gq[h_code[m]] * (1.0 - mb[h_code[m]])
                            nxt = h_succ[m]
                            for o in range(no):
                                v = keep * pf[prev, nxt, o]
                                if o == iL:
                                    v += gq[h_code[m]] * (1.0 - mb[h_code[m]])
                                pv[o] += wgt * (v - pb[o])
            po = _other(p_other, t_other, c, nn, tenpai[s])
            pe = p_end[c, nn]
            for o in range(no):
                pf[cur, s, o] = (1.0 - po) * (1.0 - pe) * pv[o]
            if iO >= 0:
                pf[cur, s, iO] += po
            pf[cur, s, iT if tenpai[s] else iN] += (1.0 - po) * pe
            if allow_event:
                qe = q_event[nn]
                for o in range(N_OUT):
                    if omap[o] >= 0:
                        pf[cur, s, omap[o]] += qe * (ev[k, s, o] - pf[cur, s, omap[o]])
        if k >= T - 1:
            _put(PF_out, k - T + 1, pf, cur, omap, marks, k)
        if keep_all:
            _put(all_out, k, pf, cur, omap, marks, k)


@numba.njit(cache=True)
def group_runs(kmax, h_ptr, h_succ, call_ptr, call_g0, nh, run_lo, run_hi):
    """The groups a solve limited to ``kmax`` takes at each turn, as runs of group numbers.

    An after-draw group is read by its members (each draws into it) at their turns, an
    after-call group by the state that calls into it, so group ``h`` is needed at the turns
    ``k <= gk[h]``, the largest ``kmax`` of its readers. The groups are numbered in the order
    of the states that made them (closed, open, twins; then the calls by calling state), and
    ``kmax`` falls as the states get farther from the root, so ``gk`` falls within each of a
    few stretches of the numbers: a run starts where ``gk`` rises, and at turn ``k`` it is
    taken up to (not including) ``run_hi[k, r]``, one past its last group with ``gk >= k``.
    Past ``run_lo.shape[0]`` runs the rest of the groups are one run. Returns the count.
    """
    n = kmax.shape[0]
    gk = np.full(nh, -1, np.int64)
    for h in range(call_g0):
        g = -1
        for m in range(h_ptr[h], h_ptr[h + 1]):
            g = max(g, kmax[h_succ[m]])
        gk[h] = g
    for s in range(n):
        for c in range(call_ptr[s], call_ptr[s + 1]):
            gk[call_g0 + c] = kmax[s]
    T = run_hi.shape[0] - 1
    nr = 0
    prev = 0
    for h in range(nh):
        g = min(gk[h], T)
        if nr == 0 or (g > prev and nr < run_lo.shape[0]):
            run_lo[nr] = h
            nr += 1
        prev = g
        if g >= 1:
            run_hi[g, nr - 1] = h + 1
    for r in range(nr):  # taken at k: every group of the run with gk >= k
        for k in range(T - 1, 0, -1):
            run_hi[k, r] = max(run_hi[k, r], run_hi[k + 1, r])
    return nr


@numba.njit(cache=True)
def _put(out, i, pf, layer, omap, marks, k):
    """``out[i]`` (n, N_OUT) from the compact layer ``pf[layer]``, at the states marked at ``k``."""
    for s in range(out.shape[1]):
        if (marks[s] >> k) & 1:
            for o in range(N_OUT):
                out[i, s, o] = pf[layer, s, omap[o]] if omap[o] >= 0 else 0.0


def draw_groups(graph) -> tuple:
    """``(nh, draw_h, draw_m, h_ptr, h_tile, h_succ, h_decl, h_cls, call_g0)``, cached on the graph.

    Groups ``0..call_g0-1`` are the after-draw hands of :func:`group_draws` (with the riichi
    declarations as extra members); groups ``call_g0 + c`` are the after-call hands of the
    graph's calls ``c`` (Eq. 10), their members the call's discards. ``h_cls`` is 1 for the
    groups of locked (riichi) states. The cache is keyed by the identity of the graph's edge,
    call and twin arrays, so a copy with other edges (``abstractions._solve.locked``) gets its
    own groups.
    """
    ident = (id(graph.edge_ptr), id(graph.edge_succ), id(graph.draw_tile), id(graph.call_mem_succ), id(graph.twin))
    cached = graph.__dict__.get("_draw_groups")
    if cached is not None and cached[0] == ident:
        return cached[1]
    nd = graph.draw_tile.shape[0]
    draw_h = np.empty(nd, np.int32)
    draw_m = np.empty(nd, np.int32)
    h_ptr = np.empty(nd + 1, np.int32)
    size = 2 * (nd + graph.n_edges)
    h_tile = np.empty(size, np.int8)
    h_succ = np.empty(size, np.int32)
    h_decl = np.empty(size, np.bool_)
    nh = group_draws(graph.draw_ptr, graph.draw_tile, graph.draw_win, graph.edge_ptr, graph.edge_tile,
                     graph.edge_succ, graph.twin, draw_h, draw_m, h_ptr, h_tile, h_succ, h_decl)
    m = int(h_ptr[nh])
    # owner class of each draw group: the class of a drawing state (its first member)
    h_cls = graph.riichi[h_succ[h_ptr[:nh]]].astype(np.uint8)
    nc = graph.n_calls
    cm = graph.call_mem
    h_ptr = np.concatenate([h_ptr[:nh], m + cm[:nc + 1]])
    h_tile = np.concatenate([h_tile[:m], graph.call_mem_tile])
    h_succ = np.concatenate([h_succ[:m], graph.call_mem_succ])
    h_decl = np.concatenate([h_decl[:m], np.zeros(len(graph.call_mem_tile), np.bool_)])
    h_cls = np.concatenate([h_cls, np.zeros(nc, np.uint8)])
    if len(h_ptr) > 1 and np.diff(h_ptr).max() > MAX_MEMBERS:  # cannot happen: 14 kinds, each with a twin
        raise ValueError(f"a group has more than {MAX_MEMBERS} members")
    out = (int(nh) + nc, draw_h, draw_m, h_ptr, h_tile, h_succ, h_decl, h_cls, int(nh))
    graph.__dict__["_draw_groups"] = (ident, out, graph.edge_ptr, graph.edge_succ, graph.draw_tile,
                                      graph.call_mem_succ, graph.twin)
    return out


#: The largest ``draw_share``: about the root's unseen pool over the fewest it can shrink to
#: (the dead wall and the others' hands stay unseen), 2.4 from a full wall with no calls;
#: ``pool_shrink`` clips its factor here.
MAX_DRAW_SHARE = 3.0


def draw_shares(draw_share, progress_share, T: int) -> np.ndarray:
    """The (4, T) shares of the useful draws by row (tenpai, 1, 2, 3+ shanten) and by the
    discards made before the draw: ``draw_share`` (a number or T) and ``progress_share`` (3
    numbers or (3, T)) broadcast over the turns, each in [0, 1]; ``draw_share`` up to
    :data:`MAX_DRAW_SHARE` (the root's pool shrinks as the others discard, while the waits
    stay: ``abstractions.situation.TableModel.pool_shrink``)."""
    try:
        out = np.empty((4, T))
        out[0] = np.broadcast_to(np.asarray(draw_share, np.float64), (T,))
        ps = np.asarray(progress_share, np.float64)
        out[1:] = np.broadcast_to(ps[:, None] if ps.ndim == 1 else ps, (3, T))
    except ValueError:
        raise ValueError(f"draw_share must be a number or {T}, progress_share 3 numbers or (3, {T}); "
                         f"got {draw_share!r}, {progress_share!r}") from None
    if not ((out >= 0.0).all() and (out[0] <= MAX_DRAW_SHARE).all() and (out[1:] <= 1.0).all()):
        raise ValueError(f"draw_share must lie in [0, {MAX_DRAW_SHARE}] and progress_share in [0, 1], "
                         f"got {draw_share!r}, {progress_share!r}")
    return out


#: Keys of the locked-state (riichi) parameters that :func:`solve` takes in ``riichi=``.
RIICHI_KEYS = ("p_lose", "u_lose", "p_other", "u_other", "p_end", "u_tw", "u_nw", "p_disc", "ron_scale", "g_lose")


def solve(graph, T: int, *, p_lose: np.ndarray, u_lose: np.ndarray, p_other: np.ndarray,
          u_other: float, p_end: np.ndarray, u_tw: float, u_nw: float, p_disc: np.ndarray,
          ron_ok: np.ndarray, u_tsumo: np.ndarray, u_ron: np.ndarray, v_stop: np.ndarray | None,
          allow_win: bool = True, tsumo_forced: bool = False, track: bool = True, p_chi: float = 1.0 / 3.0,
          riichi: dict | None = None, calls: bool = True, g_lose: np.ndarray | None = None,
          discards_per_turn: int = 1, ron_scale: float | np.ndarray = 1.0, tenpai_other: float = 1.0,
          draw_share: float | np.ndarray = 1.0, progress_share=(1.0, 1.0, 1.0), root_only: bool = False,
          q_event: np.ndarray | None = None, v_event: np.ndarray | None = None,
          event_endings: Callable[[np.ndarray], np.ndarray] | None = None,
          fold_split: tuple | None = None, keep: bool = False):
    """Run :func:`solve_kernel` on a :class:`search.hand_graph.HandGraph`.

    Per-turn arrays are indexed by ``n``, the discards made since the root: ``p_end`` by
    ``0..T-1``, ``p_other`` by ``0..T`` (``n = T``: another's win after i's last discard,
    before the washout); per-tile ones by kind. ``u_tsumo``/``u_ron`` follow the graph's win list
    (NaN: no win). ``riichi`` holds the parameters of the locked states (``RIICHI_KEYS``) and
    allows the declarations; without it the twins cannot be entered and are not solved (their
    ``VF``/``ED`` are 0). ``calls=False`` drops the
    TAKE options. ``discards_per_turn``: 1, one opponents' discard between our turns with chi
    weighted by ``p_chi`` (spec A3's second reading), or 3, the right, across and left
    players' discards in turn, chi only on the last (A3's first). ``v_stop`` (n, T+1) is the
    fold value (``-inf``: no fold). ``g_lose`` (T
    numbers, default 1) scales the deal-in chances of the discards made after ``n`` earlier
    ones: ``P_L(t) g_lose[n]`` (the caller keeps it within [0, 1]); the locked states' own
    ``g_lose`` may come in ``riichi`` (a riichi hand cannot answer a later riichi). ``ron_scale`` multiplies
    ``p_disc`` of the kinds a state can ron (the opponents hold back tiles that look
    dangerous; within [0, 1]; a number, or T numbers: the discards after our ``n``-th). ``tenpai_other`` multiplies ``p_other`` at the free states
    that are tenpai (another's win is rarer while we are tenpai; not the locked states, whose
    ``p_other`` is their own). ``draw_share`` (in [0, 1]; a number, or T numbers: the draw
    after ``n`` discards) scales the draws that complete a tenpai state's hand, the others
    taking up the rest (:func:`lump_draws`: the wall holds fewer of our waits than the unseen
    counts say); ``progress_share`` (3 numbers or (3, T)) the same at 1, 2 and 3+ shanten for
    the draws after which an exchange lowers the state's shanten (:func:`draw_shares`). ``root_only``: solve only the (state, ``k``) pairs that the
    root's actions read (:func:`turns_read`; the same numbers for them, about a third less
    work); the others are NaN in ``VF``/``ED``. With ``track`` the ending probabilities are
    computed after the values, at the pairs that the root's actions reach under the solved
    policy (:func:`policy_marks`, :func:`endings_kernel`), and given for the pairs the root's
    actions read: a ``3k+2`` root's discard states and twins at ``k = T-1``, a ``3k+1``
    root (state 0) at ``T`` and its calls' states at ``T-1``; other rows are 0 or meaningless
    (``T <= MAX_T``). ``q_event`` (T numbers) and ``v_event`` (n, T+1, the ``VF`` of the
    world after the event, solved for the same pairs) add a chance event between our turns
    (:func:`solve_kernel`); the tracked endings follow it when ``event_endings`` is given (the
    ``endings_at`` of the world after it, see ``keep``), else they are the world's without the
    event, under the policy that counts it. ``fold_split`` ``(lam, g, p, tail)``: the tracked
    endings give a fold's own endings in place of ``fold`` (lose, another's win, noten at its
    end; :func:`_fold_row`) from the state and turn it is made at: ``lam`` (n, width) its
    discards' deal-in chances (``abstractions.fsm.fsm_fold_chances``), ``g`` (T numbers) their
    growth by turn and ``p`` FSM's other-win chance (a number, or T+1 by turn as ``p_other``), and
    ``tail`` whether the fold's last discard meets it too, those that ``v_stop`` was computed with.
    Returns ``(VF, ED, PF, PD)``; ``VF``/``ED`` are (n, T+1) (views of turn-major arrays),
    ``PF``/``PD`` have shape (2, n, N_OUT) for ``k = T-1, T`` (zeros without ``track``).
    With ``keep`` (and ``track``) a fifth, ``endings_at(marks)``: the endings under this
    solve's policy at every pair ``(s, k)`` with bit ``k`` of ``marks[s]`` and at the pairs
    they reach, as a (T+1, n, N_OUT) array (other rows 0), for a world before an event.
    """
    n = graph.n_states
    VF = np.empty((T + 1, n))  # every pair is written, NaN where root_only does not solve it
    ED = np.empty((T + 1, n))
    PF = np.zeros((2, n, N_OUT) if track else (2, 1, N_OUT))
    PD = np.zeros_like(PF)
    allow_stop = v_stop is not None
    # turn-major, as fsm_stop_values gives it (then no copy)
    v_stop = np.zeros((1, 1)) if v_stop is None else np.ascontiguousarray(np.asarray(v_stop, np.float64).T)
    g_lose = np.ones(T) if g_lose is None else np.ascontiguousarray(g_lose, dtype=np.float64)
    allow_event = q_event is not None
    if allow_event:
        q_event = np.ascontiguousarray(q_event, dtype=np.float64)
        if q_event.shape != (T,) or ((q_event < 0) | (q_event > 1)).any():
            raise ValueError(f"q_event must hold T = {T} numbers in [0, 1], got {q_event!r}")
        if np.shape(v_event) != (n, T + 1):
            raise ValueError(f"v_event must have shape {(n, T + 1)}, got {np.shape(v_event)}")
        v_event = np.ascontiguousarray(np.asarray(v_event, np.float64).T).reshape(-1)
    else:
        q_event, v_event = np.zeros(1), np.zeros(1)
    base = dict(p_lose=p_lose, u_lose=u_lose, p_other=p_other, u_other=u_other, p_end=p_end, u_tw=u_tw,
                u_nw=u_nw, p_disc=p_disc, ron_scale=ron_scale, g_lose=g_lose)
    lk = base if riichi is None else {**base, **riichi}
    base["ron_scale"], lk["ron_scale"] = _ron_turns(base["ron_scale"], T), _ron_turns(lk["ron_scale"], T)
    if discards_per_turn == 1:
        node_chi = np.array([float(p_chi)])
    elif discards_per_turn == 3:
        node_chi = np.array([0.0, 0.0, 1.0])
    else:
        raise ValueError(f"discards_per_turn must be 1 or 3, got {discards_per_turn}")
    if fold_split is None:
        fold_lam, fold_g, fold_p, fold_tail = np.zeros((0, 0)), np.ones(1), np.zeros(T + 1), False
    else:
        lam, g, p, tail = fold_split
        fold_lam = np.ascontiguousarray(lam, dtype=np.float64)
        fold_g = np.ascontiguousarray(g, dtype=np.float64)
        fold_p = np.ascontiguousarray(np.broadcast_to(np.asarray(p, dtype=np.float64), (T + 1,)))
        fold_tail = bool(tail)
        if not allow_stop or fold_lam.ndim != 2 or fold_lam.shape[0] != n or fold_g.shape != (T,):
            raise ValueError(f"fold_split needs v_stop, (n, width) = ({n}, .) chances and T = {T} growths, "
                             f"got {fold_lam.shape} and {fold_g.shape}")
    if event_endings is not None and not (allow_event and track):
        raise ValueError("event_endings needs q_event and track")
    if keep and not track:
        raise ValueError("keep needs track")
    if track and T > MAX_T:
        raise ValueError(f"tracked solves need T <= {MAX_T} (a bit of a 64-bit mask per turn), got {T}")
    for key, arr in (("g_lose", g_lose), ("riichi g_lose", lk["g_lose"])):
        if np.shape(arr) != (T,) or not (np.asarray(arr) > 0).all():
            raise ValueError(f"{key} must hold T = {T} positive numbers, got {arr!r}")
    for key, arr in (("p_other", base["p_other"]), ("riichi p_other", lk["p_other"])):
        if np.shape(arr) != (T + 1,):
            raise ValueError(f"{key} must hold T + 1 = {T + 1} per-turn numbers, got shape {np.shape(arr)}")
    two = {key: np.ascontiguousarray(np.stack([np.broadcast_to(np.asarray(base[key], np.float64),
                                                               np.shape(base[key])),
                                               np.broadcast_to(np.asarray(lk[key], np.float64),
                                                               np.shape(base[key]))]))
           for key in RIICHI_KEYS}
    share_t = draw_shares(draw_share, progress_share, T)
    if not 0.0 <= float(tenpai_other) <= 1.0:
        raise ValueError(f"tenpai_other must lie in [0, 1], got {tenpai_other!r}")
    t_other = np.array([float(tenpai_other), 1.0])
    nh, draw_h, draw_m, h_ptr, h_tile, h_succ, h_decl, h_cls, call_g0 = draw_groups(graph)
    cls = graph.riichi.astype(np.uint8)
    nd = graph.draw_tile.shape[0]
    live_ptr = np.empty(n + 1, np.int32)
    live_c, wtab = np.empty(nd, np.uint8), np.empty(4 * n)
    live_h, live_win, live_m = np.empty(nd, np.int32), np.empty(nd, np.int32), np.empty(nd, np.int32)
    A, B, L = np.empty(2 * n), np.empty(2 * n), np.empty(2 * n)
    U, sc = np.empty(n), np.empty(n, np.int8)
    h_code, ma, mb = np.empty(h_tile.shape[0], np.uint8), np.full(2 * FIRST, np.nan), np.full(2 * FIRST, np.nan)
    lump_draws(graph.draw_ptr, graph.draw_tile, graph.draw_left, graph.draw_total, graph.draw_win, graph.edge_ptr,
               graph.edge_succ, graph.shanten, draw_h, draw_m, cls, graph.twin, h_cls, h_ptr, h_tile, h_decl, two["p_lose"],
               two["u_lose"], bool(allow_win), riichi is not None, (share_t != 1.0).any(axis=1), live_ptr, live_c, wtab,
               live_h, live_win, live_m, A, B, L, U, sc, h_code, ma, mb)
    call_ptr = graph.call_ptr if calls else np.zeros_like(graph.call_ptr)
    # the pairs the root's actions read: a 3k+2 root its discards' states (and twins) at T-1,
    # a 3k+1 root itself at T and its calls' states at T-1
    if len(graph.root_discards):
        seeds = np.concatenate([graph.root_succ, graph.twin[graph.root_succ]])
        seeds, top = seeds[seeds >= 0].astype(np.int64), T - 1
        calls0 = seeds[:0]
    else:
        seeds, top = np.zeros(1, np.int64), T
        calls0 = graph.call_mem_succ[graph.call_mem[call_ptr[0]]:graph.call_mem[call_ptr[1]]].astype(np.int64)
    if root_only:
        kmax = turns_read(graph, T)
        run_lo = np.empty(MAX_RUNS, np.int64)
        run_hi = np.zeros((T + 1, MAX_RUNS), np.int64)
        nr = group_runs(kmax, h_ptr, h_succ, call_ptr, call_g0, nh, run_lo, run_hi)
        run_lo, run_hi = run_lo[:nr], np.ascontiguousarray(run_hi[:, :nr])
    else:
        kmax = np.full(n, T, np.int64)
        run_lo, run_hi = np.zeros(1, np.int64), np.full((T + 1, 1), nh, np.int64)
    stops = np.zeros(n if track else 1, np.int64)
    hbest = np.empty(T * nh if track else 1, np.int32)
    f64 = (two["g_lose"], two["p_other"], two["u_other"], two["p_end"], two["u_tw"], two["u_nw"], two["p_disc"],
           two["ron_scale"], t_other)
    ron_ok, u_tsumo, u_ron = np.ascontiguousarray(ron_ok, dtype=np.bool_), _f64(u_tsumo), _f64(u_ron)
    skip_locked = riichi is None
    solve_kernel(live_ptr, live_c, wtab, live_h, live_win, A, B, L, U, sc, share_t, nh, h_ptr, h_succ, h_code, ma, mb, graph.win_ptr,
                 graph.win_tile, graph.tenpai, cls, skip_locked, call_ptr, graph.call_tile, graph.call_chi,
                 call_g0, node_chi, int(T), *f64, ron_ok, u_tsumo, u_ron, v_stop.reshape(-1), bool(allow_win),
                 bool(allow_stop), bool(tsumo_forced), bool(track), kmax, run_lo, run_hi, VF.reshape(-1), ED.reshape(-1),
                 stops, q_event, v_event, allow_event)
    if not track:
        return VF.T, ED.T, PF, PD  # (n, T+1) views of the turn-major arrays
    follow = event_endings is not None
    # an event's endings may fall in slots this world alone cannot reach: then every slot
    omap = np.arange(N_OUT, dtype=np.int64) if follow else _outcome_slots(
        allow_win, two["p_lose"], two["p_other"], allow_stop, None if fold_split is None else fold_p)

    no_layers = np.zeros((1, 1, N_OUT))

    def endings(marks, PF, PD, all_out=None):
        # values first, then the endings of the pairs that the marked ones reach under the
        # now fixed policy (one member per group: a fraction of the pairs the values need)
        policy_marks(live_ptr, live_h, live_win, live_m, A, B, L, U, sc, share_t, nh, h_ptr, h_tile, h_succ, h_decl, h_code, ma, mb,
                     graph.win_ptr, graph.win_tile, cls, skip_locked, call_ptr, graph.call_tile, graph.call_chi,
                     call_g0, node_chi, int(T), two["g_lose"], two["p_disc"], two["ron_scale"], ron_ok, u_tsumo, u_ron,
                     bool(allow_win), bool(tsumo_forced), VF.reshape(-1), ED.reshape(-1), stops, hbest, marks)
        ev = no_layers
        if follow:
            ev = np.ascontiguousarray(event_endings(marks.copy()), dtype=np.float64)
            if ev.shape != (T + 1, n, N_OUT):
                raise ValueError(f"event_endings must give shape {(T + 1, n, N_OUT)}, got {ev.shape}")
        endings_kernel(live_ptr, live_c, wtab, live_h, live_win, live_m, A, B, L, U, sc, share_t, nh, h_ptr, h_tile, h_succ, h_decl, h_code,
                       ma, mb,
                       graph.win_ptr, graph.win_tile, graph.tenpai, cls, skip_locked, call_ptr, graph.call_tile,
                       graph.call_chi, call_g0, node_chi, int(T), two["g_lose"], two["p_other"], t_other, two["p_end"],
                       two["p_disc"], two["ron_scale"], ron_ok, u_tsumo, u_ron, bool(allow_win), bool(tsumo_forced),
                       omap, fold_lam, fold_g, fold_p, fold_tail, VF.reshape(-1), ED.reshape(-1), stops, hbest, marks, PF, PD,
                       q_event, ev, follow, no_layers if all_out is None else all_out, all_out is not None)

    marks = np.zeros(n, np.int64)
    marks[seeds] |= 1 << top
    marks[calls0] |= 1 << (T - 1)
    endings(marks, PF, PD)
    if not keep:
        return VF.T, ED.T, PF, PD

    def endings_at(seed_marks: np.ndarray) -> np.ndarray:
        out = np.zeros((T + 1, n, N_OUT))
        scratch = np.zeros((2, n, N_OUT))
        endings(np.array(seed_marks, np.int64), scratch, scratch.copy(), out)
        return out

    return VF.T, ED.T, PF, PD, endings_at


def _ron_turns(ron_scale, T: int) -> np.ndarray:
    """``ron_scale`` as T numbers within [0, 1] (a number holds for every turn)."""
    a = np.asarray(ron_scale, dtype=np.float64)
    a = np.full(T, float(a)) if a.ndim == 0 else a
    if a.shape != (T,) or ((a < 0) | (a > 1)).any():
        raise ValueError(f"ron_scale must be a number or T = {T} numbers in [0, 1], got {ron_scale!r}")
    return a


def turns_read(graph, T: int) -> np.ndarray:
    """The largest ``k`` at which the root's actions can read each state: ``top - dist``.

    The root's actions read their states at ``top`` (a ``3k+2`` root's discards at ``T - 1``,
    a ``3k+1`` root itself at ``T``). Every turn (a draw and a discard, or a call and a
    discard) moves the hand, its tiles with its new melds, by one tile at most, so a state
    ``dist`` tiles away from the root's hand (``HandGraph.dist``) is reached ``dist`` turns
    after them at the earliest. The bound is exact for the closed states; an open state needs
    a call to enter, so some are solved at a turn or two more than they are read (about 5 %
    more pairs on the default graphs), where a walk of the reads cost as much as it saved.
    """
    top = T - 1 if len(graph.root_discards) else T
    return top - graph.dist.astype(np.int64)


def _outcome_slots(allow_win, p_lose, p_other, allow_stop, fold_p=None) -> np.ndarray:
    """Slot of each ending in the kernel's probability arrays; -1 where it cannot occur.
    ``fold_p``: a fold ends as it would (another wins at these chances by turn after its
    discards), not as ``fold``."""
    split = fold_p is not None
    other = bool(np.any(np.asarray(p_other) > 0)) or (allow_stop and split and bool(np.any(fold_p > 0)))
    reach = (bool(allow_win), bool(np.any(p_lose > 0)), other, True, True, bool(allow_stop) and not split)
    slots = np.cumsum(reach) - 1
    return np.where(reach, slots, -1).astype(np.int64)


def _f64(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)
