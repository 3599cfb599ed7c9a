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

Calls (the ``m`` revealed melds of step 4) are not generated yet: the graph is closed. A root
with melds already called is handled through its concealed part (fewer tiles).
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from game.errors import MahjongError
from game.tiles import N_KINDS
from search.shanten import apply_tile_nb, part_indices_nb, shanten_idx_nb, tables

EMPTY = -1

# Fixed random odd multipliers of the additive hand key.
_KEY_R = (np.random.default_rng(0x5EED_1234).integers(1, 2**63, size=N_KINDS, dtype=np.uint64)
          * np.uint64(2) + np.uint64(1))

#: Default exploration depth ``d`` by the root's shanten (``search_performance.md``); deeper
#: hands use ``shanten`` itself.
DEFAULT_D = {0: 2, 1: 2, 2: 3, 3: 3}
#: Default state budget by the root's shanten: a graph that would pass it is rebuilt with
#: ``d - 1``. It keeps decisions near 30 ms (``benchmarks/search_bench.py``): a 2-shanten
#: root at ``d = 3`` has a median of about 5,000 states; under this budget about 45 % of the
#: benchmark's 2-shanten roots keep ``d = 3``. Other shanten numbers use ``DEFAULT_MAX_STATES``.
DEFAULT_BUDGET = {2: 5_000}
DEFAULT_MAX_STATES = 50_000


# --- win check -------------------------------------------------------------------------

@numba.njit(cache=True)
def _suit_is_melds(c: np.ndarray, lo: int, hi: int, honors: bool) -> bool:
    """Whether counts ``c[lo:hi]`` split into melds only (consumes a scratch copy)."""
    for k in range(lo, hi):
        n = c[k]
        if n < 0:
            return False
        if n >= 3:
            n -= 3
            c[k] -= 3
        if n == 0:
            continue
        if honors or k + 2 >= hi:
            return False
        # n in {1, 2}: these copies must start sequences
        if c[k + 1] < n or c[k + 2] < n:
            return False
        c[k] -= n
        c[k + 1] -= n
        c[k + 2] -= n
    return True


@numba.njit(cache=True)
def _melds_only(h: np.ndarray) -> bool:
    c = h.astype(np.int64)
    for s in range(3):
        if not _suit_is_melds(c, 9 * s, 9 * s + 9, False):
            return False
    return _suit_is_melds(c, 27, 34, True)


@numba.njit(cache=True)
def is_complete(h: np.ndarray) -> bool:
    """Whether ``h`` (``3k+2`` tiles) is a winning shape: k melds + a pair, or, with 14
    tiles, chiitoitsu (seven distinct pairs) or kokushi."""
    total = 0
    for k in range(34):
        total += h[k]
    if total % 3 != 2:
        return False
    if total == 14:
        pairs = 0
        for k in range(34):
            if h[k] == 2:
                pairs += 1
        if pairs == 7:
            return True
        yao = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
        ok = True
        has_pair = False
        for k in yao:
            if h[k] == 0:
                ok = False
            elif h[k] == 2:
                has_pair = True
        if ok and has_pair:
            return True
    c = h.copy()
    for k in range(34):
        if c[k] >= 2:
            c[k] -= 2
            if _melds_only(c):
                return True
            c[k] += 2
    return False


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
                i = _slot(keys, vals, key)
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
def _draws(hands, pidx, sh, n, h0, cap, replace, suit_tab, honor_tab,
           draw_ptr, draw_tile, draw_w, draw_win, win_ptr, win_tile, dmap):
    """Every state's draws (kinds with a copy left, spec A4) and win list.

    ``dmap[s, u]`` is the index of draw ``u`` of state ``s`` (-1 when none). Only a tenpai
    hand can win, so only those pay the 34 shanten look-ups of ``h + u`` (-1: complete).
    Returns ``(draws, wins)``.
    """
    nd = 0
    nw = 0
    iu = np.empty(4, np.int64)
    for s in range(n):
        draw_ptr[s] = nd
        win_ptr[s] = nw
        total = 0.0
        d0 = nd
        tenpai = sh[s] == 0
        for u in range(34):
            dmap[s, u] = -1
            held = hands[s, u]
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
            dmap[s, u] = nd
            draw_tile[nd] = u
            draw_w[nd] = left
            total += left
            draw_win[nd] = win
            nd += 1
        for x in range(d0, nd):
            draw_w[x] /= total
    draw_ptr[n] = nd
    win_ptr[n] = nw
    return nd, nw


@numba.njit(cache=True)
def _bases(hands, hkeys, n, r, bkeys, bvals, pair_ptr, pair_base, pair_t):
    """Group the states by their ``3k``-tile sub-hands ("bases", ``h - t``).

    An exchange (draw ``u``, discard ``t``) leads from ``b + t`` to ``b + u``: the in-graph
    exchanges are exactly the pairs of states that share a base. Pair ``p`` of state ``s``
    (``pair_ptr[s] <= p < pair_ptr[s+1]``, kinds ``t`` ascending) has base id ``pair_base[p]``.
    Returns the number of bases.
    """
    nb = 0
    m = 0
    for s in range(n):
        pair_ptr[s] = m
        ks = hkeys[s]
        for t in range(34):
            if hands[s, t] == 0:
                continue
            key = ks - r[t]
            i = _slot(bkeys, bvals, key)
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
def _group(pair_ptr, pair_base, n, nb, mem_ptr, mem_state):
    """Counting sort of the pairs by base: ``mem_state[mem_ptr[b]:mem_ptr[b+1]]`` are the
    pair indices of base ``b``."""
    m = pair_ptr[n]
    for b in range(nb + 1):
        mem_ptr[b] = 0
    for p in range(m):
        mem_ptr[pair_base[p] + 1] += 1
    for b in range(nb):
        mem_ptr[b + 1] += mem_ptr[b]
    fill = mem_ptr[:nb].copy()
    for p in range(m):
        b = pair_base[p]
        mem_state[fill[b]] = p
        fill[b] += 1


@numba.njit(cache=True)
def _pair_owner(pair_ptr, n, owner):
    for s in range(n):
        for p in range(pair_ptr[s], pair_ptr[s + 1]):
            owner[p] = s


@numba.njit(cache=True)
def _edges(pair_ptr, pair_base, pair_t, owner, mem_ptr, mem_pair, dmap, n, edge_ptr, fill_pass,
           edge_tile, edge_succ):
    """Count (``fill_pass`` False, into ``edge_ptr[j+1]``) or write the exchanges of every draw.

    State ``s = b + t`` with draw ``u`` reaches ``b + u`` for each other state of base ``b``;
    visiting ``t`` in ascending order per state lists each draw's discards in ascending order.
    """
    for s in range(n):
        for p in range(pair_ptr[s], pair_ptr[s + 1]):
            b = pair_base[p]
            t = pair_t[p]
            for q in range(mem_ptr[b], mem_ptr[b + 1]):
                pq = mem_pair[q]
                if pq == p:
                    continue
                j = dmap[s, pair_t[pq]]
                if j < 0:
                    continue
                if fill_pass:
                    e = edge_ptr[j]
                    edge_tile[e] = t
                    edge_succ[e] = owner[pq]
                    edge_ptr[j] = e + 1
                else:
                    edge_ptr[j + 1] += 1


# --- the graph -------------------------------------------------------------------------

@dataclass
class HandGraph:
    """The reduced hand graph as flat arrays (Sec. VI-D).

    State ``s`` is the ``3k+1``-tile concealed hand ``hands[s]``. Its draws are
    ``draw_tile[draw_ptr[s]:draw_ptr[s+1]]`` with probabilities ``draw_w`` (summing to 1 per
    state); ``draw_win[j]`` is the index into the win list when the draw completes the hand,
    else -1. After draw ``j`` the exchanges that stay in the graph are
    ``edge_tile/edge_succ[edge_ptr[j]:edge_ptr[j+1]]`` (discard kind -> successor state); the
    discard of the drawn tile itself (back to ``s``) is implicit. The win list
    ``win_tile[win_ptr[s]:win_ptr[s+1]]`` holds every kind completing ``s`` (for tsumo and ron),
    and payoff arrays of the solvers are aligned to it.
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
    draw_w: np.ndarray
    draw_win: np.ndarray
    edge_ptr: np.ndarray
    edge_tile: np.ndarray
    edge_succ: np.ndarray
    win_ptr: np.ndarray
    win_tile: np.ndarray
    keys: np.ndarray
    vals: np.ndarray
    horizon: int | None = None  # the largest T the graph is exact for (None: any)

    @property
    def n_states(self) -> int:
        return int(self.hands.shape[0])

    @property
    def n_edges(self) -> int:
        return int(self.edge_tile.shape[0])

    @property
    def tenpai(self) -> np.ndarray:
        """Per state: 1 when the hand is tenpai (some kind completes it), else 0."""
        return (np.diff(self.win_ptr) > 0).astype(np.uint8)

    def index(self, hand: np.ndarray) -> int:
        """State index of a concealed hand, or -1 when it is not in the graph."""
        h = np.asarray(hand, dtype=np.uint8)
        j = int(lookup(self.keys, self.vals, np.uint64(hand_key(h, _KEY_R))))
        if j < 0 or not np.array_equal(self.hands[j], h):
            return -1
        return j

    def win_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(state, kind)`` of every entry of the win list, for payoff tables."""
        states = np.repeat(np.arange(self.n_states, dtype=np.int32), np.diff(self.win_ptr))
        return states, self.win_tile.astype(np.int32)

    def to_networkx(self):
        """A ``networkx.MultiDiGraph`` of the exchanges, for inspection and tests only."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for s in range(self.n_states):
            g.add_node(s, hand=self.hands[s].copy(), shanten=int(self.shanten[s]), dist=int(self.dist[s]))
        for s in range(self.n_states):
            for j in range(self.draw_ptr[s], self.draw_ptr[s + 1]):
                u = int(self.draw_tile[j])
                for e in range(self.edge_ptr[j], self.edge_ptr[j + 1]):
                    g.add_edge(s, int(self.edge_succ[e]), draw=u, discard=int(self.edge_tile[e]),
                               p=float(self.draw_w[j]))
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


def build_graph(hand: np.ndarray, unseen: np.ndarray, *, d: int | None = None,
                max_states: int | None = None, replace_discards: bool = False,
                horizon: int | None = None) -> HandGraph:
    """Build the reduced hand graph H1 around ``hand`` (Sec. VI-D, steps 1-3).

    Parameters
    ----------
    hand : uint8[34]
        The concealed hand: ``3k+1`` tiles (between turns) or ``3k+2`` (after a draw).
    unseen : uint8[34]
        Copies of each kind the player cannot see (the root's draw pool, spec A4).
    d : int, optional
        Bound on ``|h \\ h0| + shanten(h)``; by default ``DEFAULT_D`` by the root's shanten.
        If the graph would pass ``max_states``, ``d`` is lowered (never below the shanten).
    max_states : int, optional
        State budget; by default ``DEFAULT_BUDGET`` by the root's shanten when ``d`` is the
        default too, else ``DEFAULT_MAX_STATES``.
    replace_discards : bool
        Discarded tiles return to the pool (the stationary model of ``shimizu.md``).
    horizon : int, optional
        The discards the player can still make (a ``3k+2`` root's own discard counts), the
        largest ``T`` the graph will be solved with. A hand needs ``|h \\ h0|`` draws, so the
        hands farther than ``horizon`` (``horizon - 1`` for a ``3k+2`` root) can never be
        reached and are left out: every value reachable from the root stays exact.
    """
    h0, r0 = check_hand(hand, unseen)
    if horizon is not None and int(horizon) < 1:
        raise MahjongError(f"horizon must be >= 1, got {horizon}")
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
    reach = d if horizon is None else min(d, int(horizon) - (1 if len(kinds) else 0))
    while True:
        g = _build(h0, r0, kinds, seeds, seed_idx, seed_sh, d, min(d, reach), max_states, replace_discards)
        if g is not None or d <= root_sh:
            break
        d -= 1
    if g is None:
        g = _build(h0, r0, kinds, seeds, seed_idx, seed_sh, d, min(d, reach), 1 << 40, replace_discards)
    g.horizon = None if horizon is None else int(horizon)
    return g


def _build(h0, r0, kinds, seeds, seed_idx, seed_sh, d, depth_cap, max_states, replace) -> HandGraph | None:
    """Breadth-first search in layers of distance (at most ``depth_cap``), then the edges;
    None past ``max_states``."""
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
    if len(kinds) == 0:
        root_succ = root_succ[:0]
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
    sh_all = sh[:n].copy()
    draw_ptr = np.empty(n + 1, np.int32)
    draw_tile = np.empty(34 * n, np.int8)
    draw_w = np.empty(34 * n, np.float64)
    draw_win = np.empty(34 * n, np.int32)
    win_ptr = np.empty(n + 1, np.int32)
    win_tile = np.empty(34 * n, np.int8)
    dmap = np.empty((n, 34), np.int32)
    nd, nw = _draws(hands, pidx, sh, n, h0, cap, replace, suit_tab, honor_tab,
                    draw_ptr, draw_tile, draw_w, draw_win, win_ptr, win_tile, dmap)
    # exchanges: states that share a 3k-tile base
    n_pairs = int(np.count_nonzero(hands[:n]))  # load <= 1/2 with one slot per pair at most
    slots = 1 << max(4, (2 * n_pairs).bit_length())
    bkeys = np.empty(slots, np.uint64)
    bvals = np.full(slots, EMPTY, np.int32)
    pair_ptr = np.empty(n + 1, np.int64)
    pair_base = np.empty(n_pairs, np.int32)
    pair_t = np.empty(n_pairs, np.int8)
    nb = _bases(hands, hkeys, n, _KEY_R, bkeys, bvals, pair_ptr, pair_base, pair_t)
    mem_ptr = np.empty(nb + 1, np.int64)
    mem_pair = np.empty(int(pair_ptr[n]), np.int32)
    _group(pair_ptr, pair_base, n, nb, mem_ptr, mem_pair)
    owner = np.empty(int(pair_ptr[n]), np.int32)
    _pair_owner(pair_ptr, n, owner)
    edge_ptr = np.zeros(nd + 1, np.int64)
    _edges(pair_ptr, pair_base, pair_t, owner, mem_ptr, mem_pair, dmap, n, edge_ptr, False, draw_tile, owner)
    np.cumsum(edge_ptr, out=edge_ptr)
    ne = int(edge_ptr[nd])
    edge_tile = np.empty(ne, np.int8)
    edge_succ = np.empty(ne, np.int32)
    _edges(pair_ptr, pair_base, pair_t, owner, mem_ptr, mem_pair, dmap, n, edge_ptr, True, edge_tile, edge_succ)
    # the fill pass moved each start to the next draw's start: shift back
    edge_ptr[1:] = edge_ptr[:-1].copy()
    edge_ptr[0] = 0
    return HandGraph(
        hands=hands[:n].copy(), shanten=sh_all, dist=dist, root=h0, unseen=r0, d=d,
        replace_discards=replace, root_discards=kinds, root_succ=root_succ,
        draw_ptr=draw_ptr, draw_tile=draw_tile[:nd].copy(), draw_w=draw_w[:nd].copy(),
        draw_win=draw_win[:nd].copy(), edge_ptr=edge_ptr.astype(np.int32), edge_tile=edge_tile,
        edge_succ=edge_succ, win_ptr=win_ptr, win_tile=win_tile[:nw].copy(),
        keys=keys, vals=vals,
    )


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
