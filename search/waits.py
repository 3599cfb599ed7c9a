"""The winning shape and the waits of a concealed hand: the one place these rules are written.

``is_complete(counts)`` tests a ``3n+2`` concealed hand for a standard form (n melds and a
pair) and, with 14 tiles of a closed hand, chiitoitsu (seven distinct pairs) and kokushi;
``wait_mask(counts)`` gives the kinds that complete a ``3n+1`` hand. A kind whose four copies
are all in the hand is not a wait (Tenhou does not count such a hand as tenpai). Yaku are
not checked (``search.scorer`` does that).

Users: the hand graph's root (``abstractions``, through ``search.hand_graph``), and the
estimators' record replay and Eq. 20's open-hand enumeration (``regressors``), which both
may import ``search``: it knows hands and numbers, nothing of players or files.
"""
from __future__ import annotations

import numba
import numpy as np

_KOKUSHI = np.array([0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33], dtype=np.int64)


@numba.njit(cache=True)
def _group_is_melds(c: np.ndarray, lo: int, hi: int, runs: bool) -> bool:
    """Whether counts ``c[lo:hi]`` split into melds only; consumes ``c``.

    Greedy from the lowest kind: ``c % 3`` copies must start runs and the rest are triplets
    (three equal runs hold the same tiles as three triplets, so the greedy test is exact).
    Honours (``runs`` False) make no runs.
    """
    for k in range(lo, hi):
        r = c[k] % 3
        if r:
            if not runs or k + 2 >= hi or c[k + 1] < r or c[k + 2] < r:
                return False
            c[k + 1] -= r
            c[k + 2] -= r
    return True


@numba.njit(cache=True)
def _standard_complete(c: np.ndarray, scratch: np.ndarray) -> bool:
    """n melds and a pair. The pair lies in the one group (a suit or the honours) whose
    tile count is 2 mod 3; every other group must be melds alone."""
    pair_group = -1
    for g in range(4):
        total = 0
        for k in range(9 * g, min(9 * g + 9, 34)):
            total += c[k]
        if total % 3 == 2:
            if pair_group >= 0:
                return False
            pair_group = g
        elif total % 3 == 1:
            return False
    if pair_group < 0:
        return False
    for g in range(4):
        if g != pair_group:
            lo, hi = 9 * g, min(9 * g + 9, 34)
            for k in range(lo, hi):
                scratch[k] = c[k]
            if not _group_is_melds(scratch, lo, hi, g < 3):
                return False
    lo, hi = 9 * pair_group, min(9 * pair_group + 9, 34)
    for p in range(lo, hi):
        if c[p] >= 2:
            for k in range(lo, hi):
                scratch[k] = c[k]
            scratch[p] -= 2
            if _group_is_melds(scratch, lo, hi, pair_group < 3):
                return True
    return False


@numba.njit(cache=True)
def _complete(c: np.ndarray, total: int, closed: bool, scratch: np.ndarray) -> bool:
    if total % 3 != 2:
        return False
    if closed and total == 14:
        pairs = 0
        for k in range(34):
            if c[k] == 2:
                pairs += 1
        if pairs == 7:
            return True
        # Kokushi: all 13 terminal and honour kinds, one of them twice (14 tiles in all, so
        # nothing else fits).
        has_pair = False
        ok = True
        for y in _KOKUSHI:
            if c[y] == 0:
                ok = False
            elif c[y] == 2:
                has_pair = True
        if ok and has_pair:
            return True
    return _standard_complete(c, scratch)


@numba.njit(cache=True)
def is_complete(counts: np.ndarray, closed: bool = True) -> bool:
    """Whether the concealed counts (``3n+2`` tiles) form a winning shape (yaku not checked);
    chiitoitsu and kokushi only when ``closed``."""
    c = np.empty(34, dtype=np.int64)
    total = 0
    for k in range(34):
        c[k] = counts[k]
        total += c[k]
    return _complete(c, total, closed, np.empty(34, dtype=np.int64))


@numba.njit(cache=True)
def wait_mask(counts: np.ndarray, closed: bool = True) -> np.ndarray:
    """bool[34]: the kinds that complete the concealed ``3n+1`` hand ``counts``."""
    out = np.zeros(34, dtype=np.bool_)
    c = np.empty(34, dtype=np.int64)
    total = 1
    for k in range(34):
        c[k] = counts[k]
        total += c[k]
    scratch = np.empty(34, dtype=np.int64)
    for w in range(34):
        if c[w] >= 4:
            continue
        c[w] += 1
        out[w] = _complete(c, total, closed, scratch)
        c[w] -= 1
    return out

