"""Tenpai and waits of a concealed hand, for labelling records and enumerating open hands.

A small numba kernel: ``is_complete(counts)`` tests a 3n+2 concealed hand for a standard
form (n mentsu + a pair), chiitoitsu and kokushi (the last two only when ``closed``);
``wait_mask(counts)`` gives the kinds that complete a 3n+1 hand. A kind whose four copies
are all in the hand is not a wait (Tenhou does not count such a hand as tenpai).

The estimators need this in the record replay (is each opponent tenpai, what does it wait on)
and for Eq. 20's enumeration of open hands (``specs/kurita_hoki.md`` 5.2).
"""
from __future__ import annotations

import numba
import numpy as np

_KOKUSHI = np.array([0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33], dtype=np.int64)


@numba.njit(cache=True)
def _suit_is_mentsu(c: np.ndarray, base: int) -> bool:
    """True when the 9 counts from ``base`` split into mentsu only.

    Greedy from the lowest kind: ``c % 3`` copies must start runs, the rest are triplets
    (three equal runs hold the same tiles as three triplets, so the greedy test is exact).
    """
    w = np.empty(9, dtype=np.int64)
    for i in range(9):
        w[i] = c[base + i]
    for i in range(9):
        r = w[i] % 3
        if r:
            if i > 6 or w[i + 1] < r or w[i + 2] < r:
                return False
            w[i + 1] -= r
            w[i + 2] -= r
    return True


@numba.njit(cache=True)
def _standard_complete(c: np.ndarray) -> bool:
    for k in range(27, 34):
        if c[k] % 3 == 1:
            return False
    for p in range(34):
        if c[p] >= 2:
            c[p] -= 2
            ok = True
            for k in range(27, 34):
                if c[k] % 3 != 0:
                    ok = False
            if ok:
                for s in range(3):
                    if not _suit_is_mentsu(c, 9 * s):
                        ok = False
                        break
            c[p] += 2
            if ok:
                return True
    return False


@numba.njit(cache=True)
def is_complete(counts: np.ndarray, closed: bool = True) -> bool:
    """Whether the concealed counts (3n+2 tiles) form a winning shape (yaku not checked)."""
    c = counts.astype(np.int64)
    total = c.sum()
    if total % 3 != 2:
        return False
    if closed and total == 14:
        pairs = 0
        for k in range(34):
            if c[k] == 2:
                pairs += 1
        if pairs == 7:
            return True
        has_pair = False
        ok = True
        for k in range(34):
            if c[k] > 0:
                is_y = False
                for y in _KOKUSHI:
                    if y == k:
                        is_y = True
                if not is_y:
                    ok = False
                    break
                if c[k] == 2:
                    has_pair = True
                elif c[k] != 1:
                    ok = False
        if ok and has_pair:
            for y in _KOKUSHI:
                if c[y] == 0:
                    ok = False
            if ok:
                return True
    return _standard_complete(c)


@numba.njit(cache=True)
def wait_mask(counts: np.ndarray, closed: bool = True) -> np.ndarray:
    """bool[34]: the kinds that complete the concealed 3n+1 hand ``counts``."""
    out = np.zeros(34, dtype=np.bool_)
    c = counts.astype(np.int64)
    for w in range(34):
        if c[w] >= 4:
            continue
        c[w] += 1
        out[w] = is_complete(c, closed)
        c[w] -= 1
    return out


@numba.njit(cache=True)
def is_tenpai(counts: np.ndarray, closed: bool = True) -> bool:
    return wait_mask(counts, closed).any()
