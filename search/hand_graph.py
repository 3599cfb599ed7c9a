"""The reduced hand graph of Kurita & Hoki, Sec. VI-D (spec ``kurita_hoki.md`` section 6).

Vertices are the concealed hands of ``3k+1`` tiles that player *i* can hold between turns
(after a discard); an edge is a tile exchange (draw ``u``, discard ``t``). The graph keeps

    H1 = { h : |h \\ h0| + shanten(h) <= d }

(the hands on exchange paths of length <= d from the root to a tenpai hand; the spec proves
the equivalence), generated exactly by a breadth-first search in layers of distance
``|h \\ h0|`` that only makes distance-increasing exchanges and prunes ``dist + shanten > d``.
A 14-tile (``3k+2``) root contributes every distinct ``h0 - t`` as a distance-0 seed, kept
whatever its shanten, so every root discard has a state.

Hands are keyed by an additive 64-bit hash, ``key(h) = sum h[u] * R[u]`` with random odd
``R[u]``, so an exchange updates a key in two operations (``search_performance.md``), and
looked up in an open-addressing table of our own (power-of-two size, linear probing).

Draw model (spec 9.2 A4): a hand can hold at most ``h0[u] + unseen[u]`` copies of ``u``; the
copies of ``u`` left to draw from hand ``h`` are ``r_u(h) = unseen[u] - max(0, h[u] - h0[u])``
(a discarded copy is dead), or, with ``replace_discards=True`` (the stationary model of the
mini-mahjong of ``shimizu.md``), ``h0[u] + unseen[u] - h[u]``. Kinds with no copy left have
no draw edge.

Calls (the ``m`` revealed melds of step 4) are not generated yet: the graph is closed. A root
with melds already called is handled through its concealed part (fewer tiles).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from game.errors import MahjongError
from game.tiles import N_KINDS

EMPTY = -1
REJECTED = -2

# Fixed random odd multipliers of the additive hand key.
_KEY_R = (np.random.default_rng(0x5EED_1234).integers(1, 2**63, size=N_KINDS, dtype=np.uint64)
          * np.uint64(2) + np.uint64(1))

#: Default exploration depth ``d`` by the root's shanten (``search_performance.md``: a schedule
#: that keeps the median decision near 30 ms). Deeper hands use ``shanten`` itself.
DEFAULT_D = {0: 2, 1: 2, 2: 3, 3: 3}
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


@numba.njit(cache=True)
def _slot(keys: np.ndarray, vals: np.ndarray, key: np.uint64) -> int:
    """The slot holding ``key``, or the empty slot where it would go (linear probing)."""
    mask = keys.shape[0] - 1
    i = int((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask
    while vals[i] != EMPTY and keys[i] != key:
        i = (i + 1) & mask
    return i


@numba.njit(cache=True)
def lookup(keys: np.ndarray, vals: np.ndarray, key: np.uint64) -> int:
    """State index of ``key``; negative when absent (or rejected by the search)."""
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

@numba.njit(cache=True)
def _expand(hands, hkeys, lo, hi, start, h0, cap, r, keys, vals, cand, ckeys, n_cand, load_limit, used):
    """Children at distance +1 of parents ``hands[start:hi]`` not yet seen.

    Writes them to ``cand``/``ckeys`` from ``n_cand`` on and marks their keys pending
    (``-3 - candidate index``). Returns ``(next parent, n_cand, used)``; it stops early when the
    candidate buffer or the table's load limit is reached, and the driver grows them and resumes.
    Never re-binds an array (``search_performance.md``: the re-binding trap).
    """
    n_buf = cand.shape[0]
    c = np.empty(34, np.uint8)
    for p in range(start, hi):
        if n_cand + 34 * 14 > n_buf or used + 34 * 14 > load_limit:
            return p, n_cand, used
        for k in range(34):
            c[k] = hands[p, k]
        for t in range(34):
            # discard an original copy: the distance does not drop
            if c[t] == 0 or c[t] > h0[t]:
                continue
            c[t] -= 1
            kt = hkeys[p] - r[t]
            for u in range(34):
                # draw a new copy: the distance grows by one
                if u == t or c[u] < h0[u] or c[u] >= cap[u]:
                    continue
                key = kt + r[u]
                i = _slot(keys, vals, key)
                if vals[i] != EMPTY:
                    continue
                keys[i] = key
                vals[i] = -3 - n_cand
                used += 1
                for k in range(34):
                    cand[n_cand, k] = c[k]
                cand[n_cand, u] += 1
                ckeys[n_cand] = key
                n_cand += 1
            c[t] += 1
    return hi, n_cand, used


@numba.njit(cache=True)
def _accept(cand, ckeys, n_cand, accept, hands, hkeys, n_states, keys, vals):
    """Move accepted candidates into the state arrays; mark the others rejected."""
    for j in range(n_cand):
        i = _slot(keys, vals, ckeys[j])
        if accept[j]:
            vals[i] = n_states
            hands[n_states, :] = cand[j, :]
            hkeys[n_states] = ckeys[j]
            n_states += 1
        else:
            vals[i] = REJECTED
    return n_states


# --- edges -----------------------------------------------------------------------------

@numba.njit(cache=True)
def _count_edges(hands, hkeys, sh, n, h0, cap, r, keys, vals, replace):
    n_draw = 0
    n_edge = 0
    n_win = 0
    c = np.empty(34, np.uint8)
    for s in range(n):
        for k in range(34):
            c[k] = hands[s, k]
        for u in range(34):
            if c[u] >= 4:
                continue
            c[u] += 1
            if sh[s] == 0 and is_complete(c):  # only a tenpai hand can win (saves the check)
                n_win += 1
            left = _left(c[u] - 1, h0[u], cap[u], replace)
            if left > 0:
                n_draw += 1
                for t in range(34):
                    if t != u and c[t] > 0:
                        if lookup(keys, vals, hkeys[s] + r[u] - r[t]) >= 0:
                            n_edge += 1
            c[u] -= 1
    return n_draw, n_edge, n_win


@numba.njit(cache=True)
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
def _fill_edges(hands, hkeys, sh, n, h0, cap, r, keys, vals, replace,
                draw_ptr, draw_tile, draw_w, draw_win, edge_ptr, edge_tile, edge_succ,
                win_ptr, win_tile):
    d = 0
    e = 0
    w = 0
    c = np.empty(34, np.uint8)
    for s in range(n):
        for k in range(34):
            c[k] = hands[s, k]
        draw_ptr[s] = d
        win_ptr[s] = w
        total = 0.0
        d0 = d
        for u in range(34):
            if c[u] >= 4:
                continue
            c[u] += 1
            win = -1
            if sh[s] == 0 and is_complete(c):
                win = w
                win_tile[w] = u
                w += 1
            left = _left(c[u] - 1, h0[u], cap[u], replace)
            if left > 0:
                draw_tile[d] = u
                draw_w[d] = left
                total += left
                draw_win[d] = win
                edge_ptr[d] = e
                for t in range(34):
                    if t != u and c[t] > 0:
                        j = lookup(keys, vals, hkeys[s] + r[u] - r[t])
                        if j >= 0:
                            edge_tile[e] = t
                            edge_succ[e] = j
                            e += 1
                d += 1
            c[u] -= 1
        for j in range(d0, d):
            draw_w[j] /= total
    draw_ptr[n] = d
    edge_ptr[d] = e
    win_ptr[n] = w


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


ShantenBatch = Callable[[np.ndarray], np.ndarray]


def default_shanten_batch() -> ShantenBatch:
    """``search.shanten.shanten_batch`` (the project's numba shanten)."""
    from search.shanten import shanten_batch

    return shanten_batch


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
                shanten_batch: ShantenBatch | None = None, max_states: int = DEFAULT_MAX_STATES,
                replace_discards: bool = False) -> HandGraph:
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
    shanten_batch : callable, optional
        ``(N, 34) uint8 -> (N,) int`` shanten; by default ``search.shanten.shanten_batch``.
    replace_discards : bool
        Discarded tiles return to the pool (the stationary model of ``shimizu.md``).
    """
    h0, r0 = check_hand(hand, unseen)
    sb = shanten_batch or default_shanten_batch()
    if int(h0.sum()) % 3 == 2:
        kinds = np.flatnonzero(h0).astype(np.int8)
        seeds = np.repeat(h0[None, :], len(kinds), axis=0)
        seeds[np.arange(len(kinds)), kinds] -= 1
    else:
        kinds = np.zeros(0, np.int8)
        seeds = h0[None, :].copy()
    seed_sh = np.asarray(sb(seeds), dtype=np.int64)
    root_sh = int(seed_sh.min())
    if d is None:
        d = max(DEFAULT_D.get(root_sh, root_sh), root_sh)
    if d < root_sh:
        raise MahjongError(f"d={d} is below the root's shanten {root_sh}: the graph would hold no tenpai hand")
    while True:
        g = _build(h0, r0, kinds, seeds, seed_sh, d, sb, max_states, replace_discards)
        if g is not None or d <= root_sh:
            break
        d -= 1
    if g is None:
        g = _build(h0, r0, kinds, seeds, seed_sh, d, sb, 1 << 40, replace_discards)
    return g


def _build(h0, r0, kinds, seeds, seed_sh, d, sb, max_states, replace) -> HandGraph | None:
    cap = (h0.astype(np.int64) + r0).astype(np.uint8)
    size = 1 << 12
    keys = np.zeros(size, np.uint64)
    vals = np.full(size, EMPTY, np.int32)
    hands = np.zeros((max(64, len(seeds)), 34), np.uint8)
    hkeys = np.zeros(hands.shape[0], np.uint64)
    shs: list[np.ndarray] = []
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
            shs.append(seed_sh[i:i + 1])
            n += 1
        root_succ[i] = vals[j]
    if len(kinds) == 0:
        root_succ = root_succ[:0]
    used = n
    layer_lo, layer_hi = 0, n
    layers = [n]
    depth = 0
    cand = np.zeros((4096, 34), np.uint8)
    ckeys = np.zeros(4096, np.uint64)
    while depth < d and layer_hi > layer_lo:
        n_cand = 0
        p = layer_lo
        while True:
            p, n_cand, used = _expand(hands, hkeys, layer_lo, layer_hi, p, h0, cap, _KEY_R, keys, vals,
                                      cand, ckeys, n_cand, keys.shape[0] // 2, used)
            if p >= layer_hi:
                break
            if used + 34 * 14 > keys.shape[0] // 2:
                keys, vals = _grow_table(keys, vals)
            if n_cand + 34 * 14 > cand.shape[0]:
                cand = np.concatenate([cand, np.zeros_like(cand)])
                ckeys = np.concatenate([ckeys, np.zeros_like(ckeys)])
        sh = np.asarray(sb(cand[:n_cand]), dtype=np.int64) if n_cand else np.zeros(0, np.int64)
        accept = (depth + 1 + sh) <= d
        n_new = int(accept.sum())
        if n + n_new > max_states:
            return None
        if n + n_new > hands.shape[0]:
            grow = max(n + n_new, 2 * hands.shape[0])
            hands = np.concatenate([hands, np.zeros((grow - hands.shape[0], 34), np.uint8)])
            hkeys = np.concatenate([hkeys, np.zeros(grow - hkeys.shape[0], np.uint64)])
        n = _accept(cand, ckeys, n_cand, accept, hands, hkeys, n, keys, vals)
        shs.append(sh[accept])
        depth += 1
        layer_lo, layer_hi = layer_hi, n
        layers.append(n)
    hands = hands[:n].copy()
    hkeys = hkeys[:n].copy()
    dist_arr = np.zeros(n, np.int8)
    for k in range(1, len(layers)):
        dist_arr[layers[k - 1]:layers[k]] = k
    sh_all = np.concatenate(shs).astype(np.int8)
    n_draw, n_edge, n_win = _count_edges(hands, hkeys, sh_all, n, h0, cap, _KEY_R, keys, vals, replace)
    draw_ptr = np.zeros(n + 1, np.int32)
    draw_tile = np.zeros(n_draw, np.int8)
    draw_w = np.zeros(n_draw, np.float64)
    draw_win = np.zeros(n_draw, np.int32)
    edge_ptr = np.zeros(n_draw + 1, np.int32)
    edge_tile = np.zeros(n_edge, np.int8)
    edge_succ = np.zeros(n_edge, np.int32)
    win_ptr = np.zeros(n + 1, np.int32)
    win_tile = np.zeros(n_win, np.int8)
    _fill_edges(hands, hkeys, sh_all, n, h0, cap, _KEY_R, keys, vals, replace, draw_ptr, draw_tile, draw_w,
                draw_win, edge_ptr, edge_tile, edge_succ, win_ptr, win_tile)
    return HandGraph(
        hands=hands, shanten=sh_all, dist=dist_arr, root=h0, unseen=r0, d=d,
        replace_discards=replace, root_discards=kinds, root_succ=root_succ,
        draw_ptr=draw_ptr, draw_tile=draw_tile, draw_w=draw_w, draw_win=draw_win,
        edge_ptr=edge_ptr, edge_tile=edge_tile, edge_succ=edge_succ,
        win_ptr=win_ptr, win_tile=win_tile, keys=keys, vals=vals,
    )


def _grow_table(keys: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    new_keys = np.zeros(2 * keys.shape[0], np.uint64)
    new_vals = np.full(2 * keys.shape[0], EMPTY, np.int32)
    _rehash(keys, vals, new_keys, new_vals)
    return new_keys, new_vals
