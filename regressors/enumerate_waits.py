"""Enumeration of an open hand's possible tenpai shapes (Eq. 20, the "called" branch).

Sec. VI-C: with two calls an opponent holds 7 concealed tiles and all its tenpai hands can be
enumerated (about 10^5; ``specs/kurita_hoki.md`` counts 148,809 standard-form multisets);
with one call "enumerate the remaining seven tiles by ignoring one mentsu". Each shape H
is weighted by prod_u C(r_u, k_u), r_u the copies of u the observer has not seen, and shapes
that wait on a kind in the opponent's own discards (furiten: it cannot ron) are dropped:

    P(t in waits | tenpai) = sum_{H: t in W(H)} w(H) / sum_H w(H)

The shape tables are built once per process (a few seconds) and kept in memory.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import numba
import numpy as np

from search.waits import wait_mask

_MENTSU = [("k", k) for k in range(34)] + [("s", 9 * s + n) for s in range(3) for n in range(7)]


@lru_cache(maxsize=None)
def tenpai_shapes(n_tiles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every standard-form tenpai multiset of ``n_tiles`` (1, 4, 7) concealed tiles.

    Returns (kinds[N, n], counts[N, n]) padded with -1 / 0, and the waits in CSR form
    (wait_ptr[N+1], wait_kinds). Built from the complete (n+1)-tile hands minus one tile.
    """
    m = (n_tiles - 1) // 3
    seen: dict[bytes, None] = {}
    for melds in itertools.combinations_with_replacement(range(len(_MENTSU)), m):
        base = np.zeros(34, dtype=np.int8)
        for idx in melds:
            typ, k = _MENTSU[idx]
            if typ == "k":
                base[k] += 3
            else:
                base[k:k + 3] += 1
        if base.max(initial=0) > 4:
            continue
        for pair in range(34):
            if base[pair] > 2:
                continue
            full = base.copy()
            full[pair] += 2
            for drop in np.nonzero(full)[0]:
                full[drop] -= 1
                seen.setdefault(full.tobytes(), None)
                full[drop] += 1
    n = len(seen)
    kinds = np.full((n, n_tiles), -1, dtype=np.int8)
    counts = np.zeros((n, n_tiles), dtype=np.int8)
    ptr = np.zeros(n + 1, dtype=np.int64)
    waits: list[np.ndarray] = []
    for i, key in enumerate(seen):
        c = np.frombuffer(key, dtype=np.int8)
        nz = np.nonzero(c)[0]
        kinds[i, :len(nz)] = nz
        counts[i, :len(nz)] = c[nz]
        w = np.nonzero(wait_mask(c.astype(np.uint8), False))[0]
        waits.append(w)
        ptr[i + 1] = ptr[i] + len(w)
    return kinds, counts, ptr, np.concatenate(waits).astype(np.int8)


_BINOM = np.array([[np.log(float(max(1, _c))) if k <= r else -np.inf
                        for k, _c in enumerate([1, r, r * (r - 1) // 2, r * (r - 1) * (r - 2) // 6,
                                                int(r == 4)])] for r in range(5)])
_BINOM = np.array([[(1, r, r * (r - 1) // 2, r * (r - 1) * (r - 2) // 6, int(r >= 4))[k] if k <= r else 0
                    for k in range(5)] for r in range(5)], dtype=np.float64)


@numba.njit(cache=True)
def _wait_probs(kinds, counts, ptr, wk, unseen, safe, binom):
    acc = np.zeros(34)
    total = 0.0
    for h in range(kinds.shape[0]):
        w = 1.0
        for c in range(kinds.shape[1]):
            k = kinds[h, c]
            if k < 0:
                break
            w *= binom[unseen[k], counts[h, c]]
            if w == 0.0:
                break
        if w == 0.0:
            continue
        furiten = False
        for q in range(ptr[h], ptr[h + 1]):
            if safe[wk[q]]:
                furiten = True
                break
        if furiten:
            continue
        total += w
        for q in range(ptr[h], ptr[h + 1]):
            acc[wk[q]] += w
    if total > 0:
        acc /= total
    return acc, total


def open_wait_probs(n_concealed: int, unseen: np.ndarray, safe: np.ndarray) -> np.ndarray:
    """P(t in waits | tenpai) for an opponent with ``n_concealed`` tiles (13 - 3 x calls).

    Ten concealed tiles (one call) use the 7-tile shapes, one mentsu ignored (Sec. VI-C).
    Returns zeros when no shape is possible (then the caller falls back to histograms).
    """
    n = {10: 7, 7: 7, 4: 4, 1: 1}.get(int(n_concealed))
    if n is None:
        raise ValueError(f"an open hand holds 10, 7, 4 or 1 concealed tiles, not {n_concealed}")
    kinds, counts, ptr, wk = tenpai_shapes(n)
    u = np.clip(np.asarray(unseen, dtype=np.int64), 0, 4)
    acc, _ = _wait_probs(kinds, counts, ptr, wk, u, np.asarray(safe, dtype=np.bool_), _BINOM)
    return acc
