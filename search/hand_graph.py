"""The reduced hand graph of Kurita & Hoki, Sec. VI-D (spec ``kurita_hoki.md`` section 6).

Vertices are the concealed hands of ``3k+1`` tiles that player *i* can hold between turns
(after a discard); an edge is a tile exchange (draw ``u``, discard ``t``). The graph keeps

    H1 = { h : |h \\ h0| + shanten(h) <= d }

(the hands on exchange paths of length <= d from the root to a tenpai hand; the spec proves
the equivalence), generated exactly by a breadth-first search in layers of distance
``|h \\ h0|`` that only makes distance-increasing exchanges and prunes ``dist + shanten > d``
before a hand enters the table (shanten from the incremental kernels of ``search.shanten``).
A 14-tile (``3k+2``) root contributes every distinct ``h0 - t`` as a distance-0 seed, kept
whatever its shanten, so every root discard has a state.

Hands are keyed by an additive 64-bit hash, ``key(h) = sum h[u] * R[u]`` with random odd
``R[u]``, so an exchange updates a key in two operations (``search_performance.md``), and
looked up in an open-addressing table of our own (power-of-two size, linear probing).

Edges need no search: an exchange (draw ``u``, discard ``t``) joins ``b + t`` and ``b + u``
for a ``3k``-tile "base" ``b``, so grouping the states by their bases (one hash insert per
distinct kind in a hand) lists every in-graph exchange, and no absent hand is ever looked up.

Draw model (spec 9.2 A4): a hand can hold at most ``h0[u] + unseen[u]`` copies of ``u``; the
copies of ``u`` left to draw from hand ``h`` are ``r_u(h) = unseen[u] - max(0, h[u] - h0[u])``
(a discarded copy is dead), or, with ``replace_discards=True`` (the stationary model of the
mini-mahjong of ``shimizu.md``), ``h0[u] + unseen[u] - h[u]``. Kinds with no copy left have
no draw edge.

Step 4 (calls): ``H`` adds, for every ``h`` in ``H1``, the hands ``h`` with up to ``m``
mentsu of ``h`` revealed by TAKE (pon or chi): a state is then a concealed part plus the sorted
codes of its new melds (pon of ``k``: code ``k``; chi starting at ``k``: code ``34 + k``), keyed
by the concealed key plus one random multiplier per meld code. The TAKE transitions (Eq. 10)
are listed per state and called kind: after an opponent's discard ``u``, a pon (two ``u`` in
hand) or a chi (a run with ``u``; the solver weighs it by the share of discards made by the
left player) gives an after-call hand, and its discards that land in ``H`` are its members
(kuikae, Tenhou: no discard of the called kind, nor of the other end of a chi's run). Kans are
no actions inside the graph: a root's kans enter through ``melds=`` as fixed melds (the
player values a kan by the graph of the hand after it).

Riichi twins (spec 7 and 9.2 A11): every closed tenpai hand of ``H1`` gets a locked copy (the
hand after declaring riichi): no exchanges and no calls, so it only discards its draw or wins.
A root with open melds has no twins (riichi needs a closed hand; a closed kan keeps it closed).

A root with melds already called is handled through its concealed part (fewer tiles); its
melds (``melds=``) travel with every state for scoring and count against the four-meld limit.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from game.errors import MahjongError
from game.tiles import N_KINDS
from search.scorer import ANKAN
from search.shanten import apply_tile_nb, part_indices_nb, shanten_idx_nb, tables

EMPTY = -1

# Fixed random odd multipliers of the additive hand key.
_KEY_R = (np.random.default_rng(0x5EED_1234).integers(1, 2**63, size=N_KINDS, dtype=np.uint64)
          * np.uint64(2) + np.uint64(1))

#: The multipliers of the state key (public for tables keyed by ``state key + KEY_R[u]``).
KEY_R = _KEY_R

#: Default exploration depth ``d`` by the root's shanten (``search_performance.md``); deeper
#: hands use ``shanten`` itself.
DEFAULT_D = {0: 2, 1: 2, 2: 3, 3: 3}
#: Default state budget by the root's shanten: a graph that would pass it is rebuilt with
#: ``d - 1``. It keeps decisions near 30 ms (``benchmarks/search_bench.py``): a 2-shanten
#: root at ``d = 3`` has a median of about 5,000 states; under this budget about 45 % of the
#: benchmark's 2-shanten roots keep ``d = 3``. Other shanten numbers use ``DEFAULT_MAX_STATES``.
DEFAULT_BUDGET = {2: 5_000}
DEFAULT_MAX_STATES = 50_000
#: Default number ``m`` of mentsu revealed by TAKE (step 4) by the root's shanten. Spec 9.2
#: A8 recommends tenpai 1, 1-shanten 2, 2-3-shanten 0; m = 2 at 1-shanten would take the CPU
#: median of those decisions from 21 to 30 ms (p99 118 -> 211 ms), so it is 1 by default.
#: Past the state budget ``m`` is lowered before ``d``.
DEFAULT_M = {0: 1, 1: 1, 2: 0, 3: 0}

#: Meld codes: pon of kind ``k`` is ``k``; chi whose lowest kind is ``k`` is ``CHI_CODE + k``.
CHI_CODE = 34
N_CODES = 68
# Multipliers of the meld codes and of the riichi flag in the state key.
_MELD_R = (np.random.default_rng(0x3E1D_77).integers(1, 2**63, size=N_CODES, dtype=np.uint64)
           * np.uint64(2) + np.uint64(1))
_RIICHI_R = np.uint64(0x9D2C_5680_1B87_3A55)


# --- additive hash table ---------------------------------------------------------------

@numba.njit(cache=True)
def hand_key(h: np.ndarray, r: np.ndarray) -> np.uint64:
    key = np.uint64(0)
    for k in range(34):
        key += np.uint64(h[k]) * r[k]
    return key


@numba.njit(cache=True, inline="always")
def _slot(keys: np.ndarray, vals: np.ndarray, key: np.uint64) -> int:
    """The slot holding ``key``, or the empty slot where it would go (linear probing)."""
    mask = keys.shape[0] - 1
    i = int((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask
    while vals[i] != EMPTY and keys[i] != key:
        i = (i + 1) & mask
    return i


@numba.njit(cache=True, inline="always")
def lookup(keys: np.ndarray, vals: np.ndarray, key: np.uint64) -> int:
    """State index of ``key``; -1 when absent."""
    i = _slot(keys, vals, key)
    return vals[i]


@numba.njit(cache=True)
def _rehash(keys: np.ndarray, vals: np.ndarray, new_keys: np.ndarray, new_vals: np.ndarray) -> None:
    for i in range(keys.shape[0]):
        if vals[i] != EMPTY:
            j = _slot(new_keys, new_vals, keys[i])
            new_keys[j] = keys[i]
            new_vals[j] = vals[i]


# --- breadth-first search --------------------------------------------------------------

_CHILDREN = 34 * 14  # more than the children of one parent


@numba.njit(cache=True)
def _expand(hands, hkeys, pidx, sh, start, hi, n, depth, d, h0, cap, r, keys, vals,
            stop_at, suit_tab, honor_tab):
    """Add the members at distance ``depth + 1`` reached from parents ``hands[start:hi]``.

    A child is one distance-increasing exchange away (discard an original copy ``t``, draw a
    new copy ``u``); it is a member when ``depth + 1 + shanten <= d``. Shanten comes from the
    incremental kernels of ``search.shanten`` (one part index changes per tile), and the
    14-tile shanten of ``parent + u`` bounds every child of that draw from below, so most draws
    are dropped with one look-up. Rejected children never enter the hash table.

    Returns ``(next parent, n)``; it stops before a parent when ``n`` could pass ``stop_at``
    (arrays or table full, or ``max_states``), and the driver grows them and resumes: this
    function never re-binds an array (``search_performance.md``: the re-binding trap).
    """
    c = np.empty(34, np.uint8)
    iu = np.empty(4, np.int64)
    it = np.empty(4, np.int64)
    lim = d - depth - 1
    mask = keys.shape[0] - 1
    for p in range(start, hi):
        if n + _CHILDREN > stop_at:
            return p, n
        for k in range(34):
            c[k] = hands[p, k]
        kp = hkeys[p]
        for u in range(34):
            if c[u] < h0[u] or c[u] >= cap[u]:
                continue
            for q in range(4):
                iu[q] = pidx[p, q]
            apply_tile_nb(iu, u, 1)
            if shanten_idx_nb(iu, suit_tab, honor_tab) > lim:
                continue
            ku = kp + r[u]
            for t in range(34):
                if t == u or c[t] == 0 or c[t] > h0[t]:
                    continue
                for q in range(4):
                    it[q] = iu[q]
                apply_tile_nb(it, t, -1)
                s = shanten_idx_nb(it, suit_tab, honor_tab)
                if s > lim:
                    continue
                key = ku - r[t]
                i = int((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask  # _slot by hand
                while vals[i] != EMPTY and keys[i] != key:
                    i = (i + 1) & mask
                if vals[i] != EMPTY:
                    continue
                keys[i] = key
                vals[i] = n
                for k in range(34):
                    hands[n, k] = c[k]
                hands[n, u] += 1
                hands[n, t] -= 1
                hkeys[n] = key
                for q in range(4):
                    pidx[n, q] = it[q]
                sh[n] = s
                n += 1
    return hi, n


# --- edges -----------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _left(held, h0u, capu, replace):
    """Copies of a kind left to draw when ``held`` are in hand (spec 9.2 A4)."""
    held = np.int64(held)
    if replace:
        return np.int64(capu) - held
    extra = held - np.int64(h0u)
    if extra < 0:
        extra = 0
    return np.int64(capu) - np.int64(h0u) - extra


@numba.njit(cache=True)
def _draws(full, pidx, sh, n, h0, cap, replace, suit_tab, honor_tab,
           draw_ptr, draw_tile, draw_left, draw_total, draw_win, win_ptr, win_tile):
    """Every state's draws (kinds with a copy left, spec A4) and win list.

    ``full`` counts a state's tiles with its new melds (the called tiles came from the pool).
    A draw's probability is its copies left (``draw_left``, 1-4: one byte a draw) over the
    state's sum of them (``draw_total``). Only a tenpai hand can win, so only those pay the 34
    shanten look-ups of ``h + u`` (-1: complete).
    Returns ``(draws, wins)``.
    """
    nd = 0
    nw = 0
    iu = np.empty(4, np.int64)
    for s in range(n):
        draw_ptr[s] = nd
        win_ptr[s] = nw
        total = 0.0
        tenpai = sh[s] == 0
        for u in range(34):
            held = full[s, u]
            if held >= 4:
                continue
            win = -1
            if tenpai:
                for q in range(4):
                    iu[q] = pidx[s, q]
                apply_tile_nb(iu, u, 1)
                if shanten_idx_nb(iu, suit_tab, honor_tab) < 0:
                    win = nw
                    win_tile[nw] = u
                    nw += 1
            left = _left(held, h0[u], cap[u], replace)
            if left <= 0:
                continue
            draw_tile[nd] = u
            draw_left[nd] = left
            total += left
            draw_win[nd] = win
            nd += 1
        draw_total[s] = total
    draw_ptr[n] = nd
    win_ptr[n] = nw
    return nd, nw


@numba.njit(cache=True)
def _bases(hands, hkeys, n, r, bkeys, bvals, pair_ptr, pair_base, pair_t):
    """Group the states by their ``3k``-tile sub-hands ("bases", ``h - t``).

    An exchange (draw ``u``, discard ``t``) leads from ``b + t`` to ``b + u``: the in-graph
    exchanges are exactly the pairs of states that share a base. Pair ``p`` of state ``s``
    (``pair_ptr[s] <= p < pair_ptr[s+1]``, kinds ``t`` ascending) has base id ``pair_base[p]``.
    Returns the number of bases. The table probe is :func:`_slot` inlined by hand: as a helper
    with array arguments it pays reference counting at every pair.
    """
    mask = bkeys.shape[0] - 1
    nb = 0
    m = 0
    for s in range(n):
        pair_ptr[s] = m
        ks = hkeys[s]
        for t in range(34):
            if hands[s, t] == 0:
                continue
            key = ks - r[t]
            i = int((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask
            while bvals[i] != EMPTY and bkeys[i] != key:
                i = (i + 1) & mask
            if bvals[i] == EMPTY:
                bkeys[i] = key
                bvals[i] = nb
                nb += 1
            pair_base[m] = bvals[i]
            pair_t[m] = t
            m += 1
    pair_ptr[n] = m
    return nb


@numba.njit(cache=True)
def _group(pair_ptr, pair_base, pair_t, n, nb, mem_ptr, mem_t, mem_owner):
    """Counting sort of the pairs by base: ``mem_t/mem_owner[mem_ptr[b]:mem_ptr[b+1]]`` are the
    kind ``t`` and the state ``b + t`` of each pair of base ``b`` (states ascending), so that
    :func:`_edges` reads a base's members in order. Returns ``sum k (k - 1)`` over the bases
    of ``k`` members, the most exchanges there can be."""
    for b in range(nb + 1):
        mem_ptr[b] = 0
    for p in range(pair_ptr[n]):
        mem_ptr[pair_base[p] + 1] += 1
    bound = 0
    for b in range(nb):
        k = mem_ptr[b + 1]
        bound += k * (k - 1)
        mem_ptr[b + 1] += mem_ptr[b]
    fill = mem_ptr[:nb].copy()
    for s in range(n):
        for p in range(pair_ptr[s], pair_ptr[s + 1]):
            b = pair_base[p]
            mem_t[fill[b]] = pair_t[p]
            mem_owner[fill[b]] = s
            fill[b] += 1
    return bound


@numba.njit(cache=True)
def _edges(pair_ptr, pair_base, pair_t, mem_ptr, mem_t, mem_owner, nx, draw_ptr, draw_tile, edge_ptr,
           edge_tile, edge_succ):
    """The exchanges of every draw, in one pass over the states (the twins, ``nx..``, have none).

    State ``s = b + t`` with draw ``u`` reaches ``b + u`` for each other state of base ``b``.
    A state's exchanges are collected (``t`` ascending), counted per drawn kind and written
    out draw by draw, so each draw's discards are in ascending order. A member kind with no
    copy left to draw gives no edge. Returns the count of edges.
    """
    n = draw_ptr.shape[0] - 1
    bu = np.empty(14 * 34, np.int8)
    bt = np.empty(14 * 34, np.int8)
    bs = np.empty(14 * 34, np.int32)
    cnt = np.zeros(34, np.int64)
    pos = np.empty(34, np.int64)
    ne = 0
    for s in range(n):
        x = 0
        if s < nx:
            for p in range(pair_ptr[s], pair_ptr[s + 1]):
                b = pair_base[p]
                t = pair_t[p]
                for q in range(mem_ptr[b], mem_ptr[b + 1]):
                    if mem_owner[q] == s:
                        continue
                    u = mem_t[q]
                    bu[x] = u
                    bt[x] = t
                    bs[x] = mem_owner[q]
                    cnt[u] += 1
                    x += 1
        drawn = np.int64(0)
        for j in range(draw_ptr[s], draw_ptr[s + 1]):
            u = draw_tile[j]
            drawn |= np.int64(1) << u
            edge_ptr[j] = ne
            pos[u] = ne
            ne += cnt[u]
        for i in range(x):
            cnt[bu[i]] = 0
        for i in range(x):
            u = bu[i]
            if (drawn >> u) & 1:  # else no copy of u is left to draw
                e = pos[u]
                edge_tile[e] = bt[i]
                edge_succ[e] = bs[i]
                pos[u] = e + 1
    edge_ptr[draw_ptr[n]] = ne
    return ne


# --- calls (step 4 and Eq. 10) ----------------------------------------------------------

@numba.njit(cache=True, inline="always")
def meld_take(code: int, c: np.ndarray, sign: int) -> None:
    """Add (``sign`` +1) or remove (-1) the three tiles of meld ``code`` to/from counts ``c``."""
    if code < CHI_CODE:
        c[code] += 3 * sign
    else:
        k = code - CHI_CODE
        c[k] += sign
        c[k + 1] += sign
        c[k + 2] += sign


@numba.njit(cache=True, inline="always")
def _meld_fits(code: int, c: np.ndarray) -> bool:
    if code < CHI_CODE:
        return c[code] >= 3
    k = code - CHI_CODE
    return c[k] >= 1 and c[k + 1] >= 1 and c[k + 2] >= 1


@numba.njit(cache=True)
def _open_states(hands, hkeys, n1, mmax, r, rm, keys, vals, n, out_hands, out_keys, out_melds,
                 out_src, count_only):
    """The hands of ``H1`` with 1..``mmax`` of their mentsu revealed (step 4).

    For each of the first ``n1`` states every non-decreasing sequence of meld codes that fits in
    the hand (the full hand is the ``H1`` member) gives a state: concealed part, sorted codes.
    With ``count_only`` returns how many sequences there are (an upper bound of the new states);
    else inserts the absent ones from index ``n`` on and returns the new count of states.
    """
    cand = np.empty(N_CODES, np.int64)
    idx = np.empty(4, np.int64)
    mask = keys.shape[0] - 1
    c = np.empty(34, np.int64)
    total = 0
    for s in range(n1):
        nc = 0
        for code in range(N_CODES):  # the melds that fit (read from the hand: no copy per code)
            if code < CHI_CODE:
                fits = hands[s, code] >= 3
            else:
                k = code - CHI_CODE
                fits = k < 27 and k % 9 <= 6 and hands[s, k] >= 1 and hands[s, k + 1] >= 1 and hands[s, k + 2] >= 1
            if fits:
                cand[nc] = code
                nc += 1
        if nc == 0:
            continue
        ntile = 0
        for q in range(34):
            ntile += hands[s, q]
        jmax = min(mmax, (ntile - 1) // 3)
        for j in range(1, jmax + 1):
            for q in range(j):
                idx[q] = 0
            while True:
                for q in range(34):
                    c[q] = hands[s, q]
                ok = True
                key = hkeys[s]
                for q in range(j):
                    code = cand[idx[q]]
                    if not _meld_fits(code, c):
                        ok = False
                        break
                    meld_take(code, c, -1)
                    key += rm[code]
                    if code < CHI_CODE:
                        key -= np.uint64(3) * r[code]
                    else:
                        k = code - CHI_CODE
                        key -= r[k] + r[k + 1] + r[k + 2]
                if ok:
                    total += 1
                    if not count_only:
                        i = int((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask  # _slot by hand
                        while vals[i] != EMPTY and keys[i] != key:
                            i = (i + 1) & mask
                        if vals[i] == EMPTY:
                            keys[i] = key
                            vals[i] = n
                            for q in range(34):
                                out_hands[n, q] = c[q]
                            out_keys[n] = key
                            for q in range(4):
                                out_melds[n, q] = cand[idx[q]] if q < j else -1
                            out_src[n] = s
                            n += 1
                # next non-decreasing index sequence
                q = j - 1
                while q >= 0 and idx[q] == nc - 1:
                    q -= 1
                if q < 0:
                    break
                idx[q] += 1
                for q2 in range(q + 1, j):
                    idx[q2] = idx[q]
    return total if count_only else n


@numba.njit(cache=True)
def _insert(keys, vals, new_keys, start):
    """Insert ``new_keys`` (all absent) as states ``start, start + 1, ...``."""
    for i in range(new_keys.shape[0]):
        j = _slot(keys, vals, new_keys[i])
        keys[j] = new_keys[i]
        vals[j] = start + i


@numba.njit(cache=True)
def _calls(hands, skeys, src, can_call, s0, n, draw_ptr, draw_tile, edge_ptr, edge_tile, r, rm,
           keys, vals, call_ptr, call_tile, call_chi, call_mem, mem_tile, mem_succ, nc, nm):
    """The TAKE options of states ``s0..n-1`` (Eq. 10), resuming at ``nc`` calls / ``nm`` members.

    For a state and an opponent's discard ``u`` (a kind with a copy left), each pon/chi gives
    an after-call hand; its members are the discards ``t''`` (not kuikae) whose hand is a state.
    Call ``c`` of state ``s`` (``call_ptr[s] <= c < call_ptr[s+1]``, kinds ascending) has kind
    ``call_tile[c]``, ``call_chi[c]`` and members ``mem_tile/mem_succ[call_mem[c]:call_mem[c+1]]``.
    A member's tiles with its melds are ``full[s] + u - t''``, an ``H1`` hand, and ``H`` holds
    every ``H1`` hand with up to ``m`` mentsu revealed (step 4): so the candidates ``t''`` are
    the exchanges of draw ``u`` of ``s``'s ``H1`` hand ``src[s]`` (same tiles, same draws), and
    only those are looked up (the table probe inlined by hand: as a helper with array arguments
    it pays reference counting at every call).
    Returns ``(next state, nc, nm)``; it stops before a state whose calls might not fit.
    """
    mask = keys.shape[0] - 1
    for s in range(s0, n):
        if nc + 4 * 34 > call_tile.shape[0] or nm + 4 * 34 * 14 > mem_tile.shape[0]:
            return s, nc, nm
        call_ptr[s] = nc
        if not can_call[s]:
            continue
        ks = skeys[s]
        for j in range(draw_ptr[src[s]], draw_ptr[src[s] + 1]):  # the kinds with a copy left
            u = draw_tile[j]
            for opt in range(4):
                # opt 0: pon; 1..3: chi with u as the lowest / middle / highest tile
                if opt == 0:
                    if hands[s, u] < 2:
                        continue
                    code = u
                    a = u
                    bad2 = -1
                else:
                    if u >= 27:
                        break
                    a = u - (opt - 1)
                    if a < 0 or a // 9 != u // 9 or a % 9 > 6:
                        continue
                    ok = True
                    for q in range(a, a + 3):
                        if q != u and hands[s, q] < 1:
                            ok = False
                    if not ok:
                        continue
                    code = CHI_CODE + a
                    bad2 = -1
                    if opt == 1 and a % 9 < 6:
                        bad2 = a + 3
                    elif opt == 3 and a % 9 > 0:
                        bad2 = a - 1
                # the after-call hand is hands[s] + u - the meld: a discard t must be held
                # there (a chi's other two kinds one fewer)
                key = ks + rm[code] + r[u]
                if code < CHI_CODE:
                    key -= np.uint64(3) * r[u]
                else:
                    key -= r[a] + r[a + 1] + r[a + 2]
                m0 = nm
                for e in range(edge_ptr[j], edge_ptr[j + 1]):
                    t = edge_tile[e]
                    if t == bad2:
                        continue
                    held = hands[s, t]
                    if opt > 0 and a <= t <= a + 2:
                        held -= 1
                    if held == 0:
                        continue
                    kt = key - r[t]
                    i = int((kt * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask
                    while vals[i] != EMPTY and keys[i] != kt:
                        i = (i + 1) & mask
                    if vals[i] != EMPTY:  # past the meld limit m there is none
                        mem_tile[nm] = t
                        mem_succ[nm] = vals[i]
                        nm += 1
                if nm > m0:
                    call_tile[nc] = u
                    call_chi[nc] = opt > 0
                    call_mem[nc] = m0
                    nc += 1
    call_ptr[n] = nc
    call_mem[nc] = nm
    return n, nc, nm


@numba.njit(cache=True)
def _with_melds(hands, melds, out):
    """``out[s]`` = the concealed counts ``hands[s]`` plus the tiles of the meld codes
    ``melds[s]`` (-1: none)."""
    for s in range(hands.shape[0]):
        for k in range(34):
            out[s, k] = hands[s, k]
        for j in range(melds.shape[1]):
            if melds[s, j] >= 0:
                meld_take(melds[s, j], out[s], 1)


# --- the graph -------------------------------------------------------------------------

@dataclass
class HandGraph:
    """The reduced hand graph as flat arrays (Sec. VI-D).

    State ``s`` is the ``3k+1``-tile concealed hand ``hands[s]`` with the new melds
    ``melds[s]`` (codes, -1 padded; the root's own melds ``root_melds`` come on top), locked by
    riichi when ``riichi[s]``. States ``0..n_h1-1`` are ``H1`` (closed), then the open states
    (step 4), then the riichi twins; ``twin[s]`` is the twin of a closed tenpai state (-1: none).
    Its draws are ``draw_tile[draw_ptr[s]:draw_ptr[s+1]]`` with probabilities ``draw_w``
    (summing to 1 per state; kept as the copies left, ``draw_left``, over ``draw_total[s]``); ``draw_win[j]`` is the index into the win list when the draw
    completes the hand, else -1. After draw ``j`` the exchanges that stay in the graph are
    ``edge_tile/edge_succ[edge_ptr[j]:edge_ptr[j+1]]`` (discard kind -> successor state); the
    discard of the drawn tile itself (back to ``s``) is implicit. The win list
    ``win_tile[win_ptr[s]:win_ptr[s+1]]`` holds every kind completing ``s`` by shape (for
    tsumo and ron; the yaku an open hand needs is a matter of the payoffs), and payoff arrays
    of the solvers are aligned to it. TAKE options (Eq. 10): call ``c`` of state ``s``
    (``call_ptr[s] <= c < call_ptr[s+1]``) calls kind ``call_tile[c]`` (by chi when
    ``call_chi[c]``) and may then discard into ``call_mem_tile/call_mem_succ[call_mem[c]:
    call_mem[c+1]]``.
    """

    hands: np.ndarray
    shanten: np.ndarray
    dist: np.ndarray
    root: np.ndarray
    unseen: np.ndarray
    d: int
    replace_discards: bool
    root_discards: np.ndarray   # kinds discardable from a 3k+2 root (empty for a 3k+1 root)
    root_succ: np.ndarray       # state of each root discard
    draw_ptr: np.ndarray
    draw_tile: np.ndarray
    draw_left: np.ndarray
    draw_total: np.ndarray
    draw_win: np.ndarray
    edge_ptr: np.ndarray
    edge_tile: np.ndarray
    edge_succ: np.ndarray
    win_ptr: np.ndarray
    win_tile: np.ndarray
    keys: np.ndarray
    vals: np.ndarray
    horizon: int | None = None  # the largest T the graph is exact for (None: any)
    m: int = 0
    n_h1: int = -1
    melds: np.ndarray | None = None      # (n, 4) int8 meld codes, -1 padded
    riichi: np.ndarray | None = None     # (n,) bool: locked after a riichi declaration
    twin: np.ndarray | None = None       # (n,) int32: riichi twin of a closed tenpai state
    state_keys: np.ndarray | None = None
    root_melds: np.ndarray | None = None  # (k, 2) scorer rows (type, kind) of the root's melds
    call_ptr: np.ndarray | None = None
    call_tile: np.ndarray | None = None
    call_chi: np.ndarray | None = None
    call_mem: np.ndarray | None = None
    call_mem_tile: np.ndarray | None = None
    call_mem_succ: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = self.hands.shape[0]
        if self.n_h1 < 0:
            self.n_h1 = n
        if self.melds is None:
            self.melds = np.full((n, 4), -1, np.int8)
        if self.riichi is None:
            self.riichi = np.zeros(n, np.bool_)
        if self.twin is None:
            self.twin = np.full(n, -1, np.int32)
        if self.state_keys is None:
            self.state_keys = np.array([hand_key(h, _KEY_R) for h in self.hands], np.uint64)
        if self.root_melds is None:
            self.root_melds = np.zeros((0, 2), np.int64)
        if self.call_ptr is None:
            self.call_ptr = np.zeros(n + 1, np.int32)
            self.call_tile = np.zeros(0, np.int8)
            self.call_chi = np.zeros(0, np.bool_)
            self.call_mem = np.zeros(1, np.int32)
            self.call_mem_tile = np.zeros(0, np.int8)
            self.call_mem_succ = np.zeros(0, np.int32)

    @property
    def n_states(self) -> int:
        return int(self.hands.shape[0])

    @property
    def n_edges(self) -> int:
        return int(self.edge_tile.shape[0])

    @property
    def n_open(self) -> int:
        """States with at least one new meld (step 4)."""
        return int(np.count_nonzero(self.melds[:, 0] >= 0))

    @property
    def n_twins(self) -> int:
        return int(np.count_nonzero(self.riichi))

    @property
    def n_calls(self) -> int:
        return int(self.call_tile.shape[0])

    @property
    def tenpai(self) -> np.ndarray:
        """Per state: 1 when the hand is tenpai by shape (some kind completes it), else 0."""
        return (np.diff(self.win_ptr) > 0).astype(np.uint8)

    @property
    def full(self) -> np.ndarray:
        """(n, 34): concealed tiles plus the tiles of the new melds."""
        out = np.empty((self.n_states, 34), np.int64)
        _with_melds(self.hands, self.melds, out)
        return out

    def meld_rows(self, s: int) -> list[tuple[int, int]]:
        """Scorer rows ``(type, kind)`` of every meld of state ``s`` (root melds first)."""
        from search.scorer import CHI, PON

        rows = [(int(t), int(k)) for t, k in self.root_melds]
        for code in self.melds[s]:
            if code >= 0:
                rows.append((CHI, int(code) - CHI_CODE) if code >= CHI_CODE else (PON, int(code)))
        return rows

    def index(self, hand: np.ndarray, melds: tuple[int, ...] = (), riichi: bool = False) -> int:
        """State index of a concealed hand with new meld codes ``melds`` (and the riichi
        flag), or -1 when it is not in the graph."""
        h = np.asarray(hand, dtype=np.uint8)
        key = np.uint64(hand_key(h, _KEY_R))
        for code in melds:
            key += _MELD_R[int(code)]
        if riichi:
            key += _RIICHI_R
        j = int(lookup(self.keys, self.vals, key))
        want = sorted(int(c) for c in melds) + [-1] * (4 - len(melds))
        if (j < 0 or not np.array_equal(self.hands[j], h) or self.melds[j].tolist() != want
                or bool(self.riichi[j]) != bool(riichi)):
            return -1
        return j

    def win_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(state, kind)`` of every entry of the win list, for payoff tables."""
        states = np.repeat(np.arange(self.n_states, dtype=np.int32), np.diff(self.win_ptr))
        return states, self.win_tile.astype(np.int32)

    @property
    def draw_w(self) -> np.ndarray:
        """Each draw's probability: its copies left over the state's total (the kernels divide
        the same two numbers)."""
        return self.draw_left / np.repeat(self.draw_total, np.diff(self.draw_ptr))

    def to_networkx(self):
        """A ``networkx.MultiDiGraph`` of the exchanges and calls, for inspection and tests only."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for s in range(self.n_states):
            g.add_node(s, hand=self.hands[s].copy(), shanten=int(self.shanten[s]), dist=int(self.dist[s]),
                       melds=tuple(int(c) for c in self.melds[s] if c >= 0), riichi=bool(self.riichi[s]))
        draw_w = self.draw_w
        for s in range(self.n_states):
            for j in range(self.draw_ptr[s], self.draw_ptr[s + 1]):
                u = int(self.draw_tile[j])
                for e in range(self.edge_ptr[j], self.edge_ptr[j + 1]):
                    g.add_edge(s, int(self.edge_succ[e]), draw=u, discard=int(self.edge_tile[e]),
                               p=float(draw_w[j]))
            for c in range(self.call_ptr[s], self.call_ptr[s + 1]):
                for e in range(self.call_mem[c], self.call_mem[c + 1]):
                    g.add_edge(s, int(self.call_mem_succ[e]), call=int(self.call_tile[c]),
                               chi=bool(self.call_chi[c]), discard=int(self.call_mem_tile[e]))
        return g


def check_hand(hand: np.ndarray, unseen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``uint8[34]`` copies of a concealed hand and the unseen counts."""
    h = np.asarray(hand)
    r = np.asarray(unseen)
    if h.shape != (N_KINDS,) or r.shape != (N_KINDS,):
        raise MahjongError(f"hand and unseen must be 34 counts, got shapes {h.shape} and {r.shape}")
    if (h < 0).any() or (r < 0).any() or (h.astype(int) + r > 4).any():
        raise MahjongError("counts must be >= 0 with hand + unseen <= 4 per kind")
    n = int(h.sum())
    if n == 0 or n > 14 or n % 3 == 0:
        raise MahjongError(f"a concealed hand has 3k+1 or 3k+2 tiles (at most 14), got {n}")
    return h.astype(np.uint8), r.astype(np.uint8)


def _root_melds(melds, n_tiles: int) -> np.ndarray:
    from search.scorer import melds_array

    try:
        rows = melds_array(list(melds))
    except MahjongError as err:
        raise MahjongError(f"root melds: {err}") from None
    if n_tiles + 3 * len(rows) > 14:
        raise MahjongError(f"{n_tiles} concealed tiles do not fit {len(rows)} melds")
    return rows


def build_graph(hand: np.ndarray, unseen: np.ndarray, *, d: int | None = None,
                max_states: int | None = None, replace_discards: bool = False,
                horizon: int | None = None, m: int | None = None, riichi: bool = True,
                melds=()) -> HandGraph:
    """Build the reduced hand graph H around ``hand`` (Sec. VI-D, steps 1-4, and Sec. VI-E).

    Parameters
    ----------
    hand : uint8[34]
        The concealed hand: ``3k+1`` tiles (between turns) or ``3k+2`` (after a draw).
    unseen : uint8[34]
        Copies of each kind the player cannot see (the root's draw pool, spec A4).
    d : int, optional
        Bound on ``|h \\ h0| + shanten(h)``; by default ``DEFAULT_D`` by the root's shanten.
        If the graph would pass ``max_states``, ``m`` and then ``d`` are lowered (``d`` never
        below the shanten).
    max_states : int, optional
        State budget (riichi twins not counted); by default ``DEFAULT_BUDGET`` by the root's
        shanten when ``d`` is the default too, else ``DEFAULT_MAX_STATES``.
    replace_discards : bool
        Discarded tiles return to the pool (the stationary model of ``shimizu.md``).
    horizon : int, optional
        The discards the player can still make (a ``3k+2`` root's own discard counts), the
        largest ``T`` the graph will be solved with. A hand needs ``|h \\ h0|`` draws, so the
        hands farther than ``horizon`` (``horizon - 1`` for a ``3k+2`` root) can never be
        reached and are left out: every value reachable from the root stays exact.
    m : int, optional
        Most mentsu revealed by TAKE (step 4); by default ``DEFAULT_M`` by the root's shanten.
        ``0`` gives a closed graph (no calls).
    riichi : bool
        Add the riichi twin of every closed tenpai hand (spec 7, A11); no effect for a root
        with open melds (closed kans keep the hand closed).
    melds : sequence of (type, kind)
        The root's melds already called (scorer rows or mjai names, e.g. ``("pon", 31)``).
    """
    h0, r0 = check_hand(hand, unseen)
    root_melds = _root_melds(melds, int(h0.sum()))
    if horizon is not None and int(horizon) < 1:
        raise MahjongError(f"horizon must be >= 1, got {horizon}")
    if m is not None and int(m) < 0:
        raise MahjongError(f"m must be >= 0, got {m}")
    if int(h0.sum()) % 3 == 2:
        kinds = np.flatnonzero(h0).astype(np.int8)
        seeds = np.repeat(h0[None, :], len(kinds), axis=0)
        seeds[np.arange(len(kinds)), kinds] -= 1
    else:
        kinds = np.zeros(0, np.int8)
        seeds = h0[None, :].copy()
    suit_tab, honor_tab = tables()
    seed_idx = np.array([part_indices_nb(s) for s in seeds], np.int64)
    seed_sh = np.array([shanten_idx_nb(i, suit_tab, honor_tab) for i in seed_idx], np.int64)
    root_sh = int(seed_sh.min())
    if max_states is None:
        max_states = DEFAULT_BUDGET.get(root_sh, DEFAULT_MAX_STATES) if d is None else DEFAULT_MAX_STATES
    if d is None:
        d = max(DEFAULT_D.get(root_sh, root_sh), root_sh)
    if d < root_sh:
        raise MahjongError(f"d={d} is below the root's shanten {root_sh}: the graph would hold no tenpai hand")
    m = DEFAULT_M.get(root_sh, 0) if m is None else int(m)
    m = min(m, 4 - len(root_melds))
    reach = d if horizon is None else min(d, int(horizon) - (1 if len(kinds) else 0))
    twins = bool(riichi) and bool((root_melds[:, 0] == ANKAN).all())
    while True:
        h1 = _h1(h0, r0, seeds, seed_idx, seed_sh, d, min(d, reach), max_states)
        if h1 is not None or d <= root_sh:
            break
        d -= 1
    if h1 is None:
        h1 = _h1(h0, r0, seeds, seed_idx, seed_sh, d, min(d, reach), 1 << 40)
    ext = None
    while ext is None:
        ext = _with_open(h1, m, max_states if m > 0 else 1 << 40)
        if ext is None:
            m -= 1
    g = _finish(ext, h0, r0, kinds, d, m, replace_discards, twins, root_melds)
    g.horizon = None if horizon is None else int(horizon)
    return g


def _h1(h0, r0, seeds, seed_idx, seed_sh, d, depth_cap, max_states):
    """Breadth-first search of H1 in layers of distance (at most ``depth_cap``); None past
    ``max_states``. Returns the growing arrays, the count and the layer bounds."""
    suit_tab, honor_tab = tables()
    cap = (h0.astype(np.int64) + r0).astype(np.uint8)
    rows = 1 << 10
    while rows < 4 * (len(seeds) + _CHILDREN):
        rows *= 2
    keys = np.zeros(2 * rows, np.uint64)
    vals = np.full(2 * rows, EMPTY, np.int32)
    hands = np.empty((rows, 34), np.uint8)
    hkeys = np.empty(rows, np.uint64)
    pidx = np.empty((rows, 4), np.int64)
    sh = np.empty(rows, np.int8)
    n = 0
    root_succ = np.zeros(len(seeds), np.int32)
    for i, s in enumerate(seeds):
        key = np.uint64(hand_key(s, _KEY_R))
        j = _slot(keys, vals, key)
        if vals[j] == EMPTY:
            keys[j] = key
            vals[j] = n
            hands[n] = s
            hkeys[n] = key
            pidx[n] = seed_idx[i]
            sh[n] = seed_sh[i]
            n += 1
        root_succ[i] = vals[j]
    layers = [0, n]
    depth = 0
    while depth < depth_cap and layers[-1] > layers[-2]:
        lo, hi = layers[-2], layers[-1]
        p = lo
        while True:
            stop_at = min(hands.shape[0], keys.shape[0] // 2, max_states + _CHILDREN)
            p, n = _expand(hands, hkeys, pidx, sh, p, hi, n, depth, d, h0, cap, _KEY_R, keys, vals,
                           stop_at, suit_tab, honor_tab)
            if n > max_states:
                return None
            if p >= hi:
                break
            if n + _CHILDREN > keys.shape[0] // 2:
                keys, vals = _grow_table(keys, vals)
            if n + _CHILDREN > hands.shape[0]:
                hands, hkeys, pidx, sh = (_grown(a) for a in (hands, hkeys, pidx, sh))
        depth += 1
        layers.append(n)
    dist = np.zeros(n, np.int8)
    for k in range(2, len(layers)):
        dist[layers[k - 1]:layers[k]] = k - 1
    return dict(hands=hands[:n], hkeys=hkeys[:n], pidx=pidx[:n], sh=sh[:n], n1=n, dist=dist,
                keys=keys, vals=vals, root_succ=root_succ)


def _table_for(keys, vals, n_total):
    while keys.shape[0] < 2 * n_total:
        keys, vals = _grow_table(keys, vals)
    return keys, vals


def _with_open(h1, m: int, max_states: int):
    """H1 plus its hands with up to ``m`` mentsu revealed (step 4); None past ``max_states``.

    The open hands go into a copy of the table, so a failed try leaves ``h1`` as it was.
    """
    n1 = h1["n1"]
    if m <= 0:
        return dict(h1, n=n1, melds=np.full((n1, 4), -1, np.int8), src=np.arange(n1, dtype=np.int32))
    hands, hkeys = h1["hands"], h1["hkeys"]
    bound = _open_states(hands, hkeys, n1, m, _KEY_R, _MELD_R, h1["keys"], h1["vals"], 0,
                         hands, hkeys, np.empty((1, 4), np.int8), np.empty(1, np.int32), True)
    if n1 + bound > 4 * max_states:  # cheap early exit: duplicates are rarely that many
        return None
    keys, vals = _table_for(h1["keys"].copy(), h1["vals"].copy(), n1 + bound)
    total = n1 + bound
    out_hands = np.empty((total, 34), np.uint8)
    out_hands[:n1] = hands
    out_keys = np.empty(total, np.uint64)
    out_keys[:n1] = hkeys
    out_melds = np.full((total, 4), -1, np.int8)
    out_src = np.empty(total, np.int32)
    out_src[:n1] = np.arange(n1)
    n = _open_states(hands, hkeys, n1, m, _KEY_R, _MELD_R, keys, vals, n1, out_hands, out_keys, out_melds,
                     out_src, False)
    if n > max_states:
        return None
    return dict(h1, n=n, hands=out_hands[:n], hkeys=out_keys[:n], melds=out_melds[:n], src=out_src[:n],
                keys=keys, vals=vals)


@numba.njit(cache=True)
def _indices(hands, out_idx, out_sh, start, suit_tab, honor_tab):
    for s in range(start, hands.shape[0]):
        idx = part_indices_nb(hands[s])
        for q in range(4):
            out_idx[s, q] = idx[q]
        out_sh[s] = shanten_idx_nb(idx, suit_tab, honor_tab)


def _finish(ext, h0, r0, kinds, d, m, replace, twins, root_melds) -> HandGraph:
    """Riichi twins, part indices and shanten of the new states, draws, edges and calls."""
    suit_tab, honor_tab = tables()
    cap = (h0.astype(np.int64) + r0).astype(np.uint8)
    n1, nx = ext["n1"], ext["n"]
    hands, hkeys, melds, src = ext["hands"], ext["hkeys"], ext["melds"], ext["src"]
    keys, vals = ext["keys"], ext["vals"]
    pidx = np.empty((nx, 4), np.int64)
    pidx[:n1] = ext["pidx"]
    sh = np.empty(nx, np.int8)
    sh[:n1] = ext["sh"]
    _indices(hands, pidx, sh, n1, suit_tab, honor_tab)
    twin = np.full(nx, -1, np.int32)
    if twins:
        base = np.flatnonzero(sh[:n1] == 0).astype(np.int32)
        nt = len(base)
        twin[base] = nx + np.arange(nt, dtype=np.int32)
        twin = np.concatenate([twin, np.full(nt, -1, np.int32)])
        tkeys = hkeys[base] + _RIICHI_R
        keys, vals = _table_for(keys, vals, nx + nt)
        _insert(keys, vals, tkeys, nx)
        hands = np.concatenate([hands, hands[base]])
        hkeys = np.concatenate([hkeys, tkeys])
        melds = np.concatenate([melds, melds[base]])
        src = np.concatenate([src, base])
        pidx = np.concatenate([pidx, pidx[base]])
        sh = np.concatenate([sh, sh[base]])
    n = hands.shape[0]
    riichi = np.zeros(n, np.bool_)
    riichi[nx:] = True
    dist = ext["dist"][src]
    g0 = HandGraph(hands=hands, shanten=sh, dist=dist, root=h0, unseen=r0, d=d, replace_discards=replace,
                   root_discards=kinds, root_succ=ext["root_succ"][:len(kinds)].copy(),
                   draw_ptr=None, draw_tile=None, draw_left=None, draw_total=None, draw_win=None, edge_ptr=None, edge_tile=None,
                   edge_succ=None, win_ptr=None, win_tile=None, keys=keys, vals=vals, m=m, n_h1=n1,
                   melds=melds, riichi=riichi, twin=twin, state_keys=hkeys, root_melds=root_melds)
    full = np.empty((n, 34), np.uint8)
    _with_melds(hands, melds, full)
    # at most 34 draws a state, about 33 in the large graphs: the arrays are kept as views
    draw_ptr = np.empty(n + 1, np.int32)
    draw_tile = np.empty(34 * n, np.int8)
    draw_left = np.empty(34 * n, np.uint8)
    draw_total = np.empty(n, np.float64)
    draw_win = np.empty(34 * n, np.int32)
    win_ptr = np.empty(n + 1, np.int32)
    win_tile = np.empty(34 * n, np.int8)
    nd, nw = _draws(full, pidx, sh, n, h0, cap, replace, suit_tab, honor_tab,
                    draw_ptr, draw_tile, draw_left, draw_total, draw_win, win_ptr, win_tile)
    draw_tile, draw_left, draw_win = draw_tile[:nd], draw_left[:nd], draw_win[:nd]
    # exchanges: states (twins excluded: they are locked) that share a 3k-tile base
    n_pairs = int(np.count_nonzero(hands[:nx]))  # load <= 1/2 with one slot per pair at most
    slots = 1 << max(4, (2 * n_pairs).bit_length())
    bkeys = np.empty(slots, np.uint64)
    bvals = np.full(slots, EMPTY, np.int32)
    pair_ptr = np.empty(nx + 1, np.int64)
    pair_base = np.empty(n_pairs, np.int32)
    pair_t = np.empty(n_pairs, np.int8)
    nb = _bases(hands, hkeys, nx, _KEY_R, bkeys, bvals, pair_ptr, pair_base, pair_t)
    mem_ptr = np.empty(nb + 1, np.int64)
    mem_t = np.empty(n_pairs, np.int8)
    mem_owner = np.empty(n_pairs, np.int32)
    bound = _group(pair_ptr, pair_base, pair_t, nx, nb, mem_ptr, mem_t, mem_owner)
    edge_ptr = np.empty(nd + 1, np.int32)
    edge_tile = np.empty(bound, np.int8)
    edge_succ = np.empty(bound, np.int32)
    ne = _edges(pair_ptr, pair_base, pair_t, mem_ptr, mem_t, mem_owner, nx, draw_ptr, draw_tile, edge_ptr,
                edge_tile, edge_succ)
    g0.draw_ptr, g0.draw_tile, g0.draw_win = draw_ptr, draw_tile, draw_win
    g0.draw_left, g0.draw_total = draw_left, draw_total
    g0.edge_ptr, g0.edge_tile, g0.edge_succ = edge_ptr, edge_tile[:ne], edge_succ[:ne]
    g0.win_ptr, g0.win_tile = win_ptr, win_tile[:nw]
    if m > 0:
        _add_calls(g0, src, nx, keys, vals)
    return g0


def _add_calls(g: HandGraph, src, nx, keys, vals) -> None:
    n_new = (g.melds >= 0).sum(1)
    n_conc = int(g.hands[0].sum()) - 3 * n_new  # every state has the root's tiles
    can = (n_new < g.m) & ~g.riichi & (n_conc >= 4)
    can[nx:] = False
    size = max(64, 8 * int(can.sum()))
    call_ptr = np.zeros(g.n_states + 1, np.int32)
    call_tile = np.empty(size, np.int8)
    call_chi = np.empty(size, np.bool_)
    call_mem = np.empty(size + 1, np.int32)
    mem_tile = np.empty(8 * size, np.int8)
    mem_succ = np.empty(8 * size, np.int32)
    s, nc, nm = 0, 0, 0
    while True:
        s, nc, nm = _calls(g.hands, g.state_keys, src, can, s, g.n_states, g.draw_ptr, g.draw_tile,
                           g.edge_ptr, g.edge_tile, _KEY_R, _MELD_R, keys, vals, call_ptr, call_tile, call_chi,
                           call_mem, mem_tile, mem_succ, nc, nm)
        if s >= g.n_states:
            break
        call_tile, call_chi, call_mem = _grown(call_tile), _grown(call_chi), _grown(call_mem)
        mem_tile, mem_succ = _grown(mem_tile), _grown(mem_succ)
    g.call_ptr, g.call_tile, g.call_chi = call_ptr, call_tile[:nc].copy(), call_chi[:nc].copy()
    g.call_mem, g.call_mem_tile, g.call_mem_succ = call_mem[:nc + 1].copy(), mem_tile[:nm].copy(), mem_succ[:nm].copy()


def _grown(a: np.ndarray) -> np.ndarray:
    """``a`` with twice the rows (the new rows uninitialised)."""
    out = np.empty((2 * a.shape[0],) + a.shape[1:], a.dtype)
    out[:a.shape[0]] = a
    return out


def _grow_table(keys: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    new_keys = np.zeros(2 * keys.shape[0], np.uint64)
    new_vals = np.full(2 * keys.shape[0], EMPTY, np.int32)
    _rehash(keys, vals, new_keys, new_vals)
    return new_keys, new_vals
