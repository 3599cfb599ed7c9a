"""Tile efficiency kernels: shanten and acceptance (ukeire) of every discard, in numba.

The shanten values come from the table-based exact kernels of ``search/shanten.py``
(regular, chiitoitsu and kokushi); a hand with calls is simply a concealed hand of fewer
tiles. Acceptance counts the *unseen* copies (4 minus every copy the seat can see) of the
kinds that lower the shanten, the usual ukeire of tile-efficiency play.
"""
from __future__ import annotations

import numba
import numpy as np

from search.shanten import apply_tile_nb, part_indices_nb, shanten_idx_nb, tables


@numba.njit(cache=True)
def _accept(counts, idx, unseen, current, suit_tab, honor_tab) -> int:
    total = 0
    for t in range(34):
        if unseen[t] == 0 or counts[t] >= 4:
            continue
        apply_tile_nb(idx, t, 1)
        if shanten_idx_nb(idx, suit_tab, honor_tab) < current:
            total += unseen[t]
        apply_tile_nb(idx, t, -1)
    return total


@numba.njit(cache=True)
def _after_discards(counts, idx, suit_tab, honor_tab, out):
    """Shanten after discarding each held kind into ``out``; returns the least of them."""
    best = 99
    for d in range(34):
        if counts[d] == 0:
            continue
        apply_tile_nb(idx, d, -1)
        s = shanten_idx_nb(idx, suit_tab, honor_tab)
        out[d] = s
        if s < best:
            best = s
        apply_tile_nb(idx, d, 1)
    return best


@numba.njit(cache=True)
def discard_stats_nb(counts, unseen, suit_tab, honor_tab, all_accept):
    """For a hand of 3n+2 tiles: shanten after each discard kind and its acceptance.

    Kinds not in the hand get shanten 99 and acceptance 0. Unless ``all_accept``, only the
    discards that reach the least shanten get their acceptance counted (the others lose
    anyway on shanten), which saves most of the work.
    """
    shanten = np.full(34, 99, np.int64)
    accept = np.zeros(34, np.int64)
    idx = part_indices_nb(counts)
    best = _after_discards(counts, idx, suit_tab, honor_tab, shanten)
    for d in range(34):
        if counts[d] == 0 or (shanten[d] > best and not all_accept):
            continue
        counts[d] -= 1
        apply_tile_nb(idx, d, -1)
        accept[d] = _accept(counts, idx, unseen, shanten[d], suit_tab, honor_tab)
        counts[d] += 1
        apply_tile_nb(idx, d, 1)
    return shanten, accept


@numba.njit(cache=True)
def hand_stats_nb(counts, unseen, suit_tab, honor_tab):
    """Shanten and acceptance of a hand of 3n+1 tiles."""
    idx = part_indices_nb(counts)
    s = shanten_idx_nb(idx, suit_tab, honor_tab)
    return s, _accept(counts, idx, unseen, s, suit_tab, honor_tab)


@numba.njit(cache=True)
def best_discard_shanten_nb(counts, suit_tab, honor_tab) -> int:
    """The least shanten reachable by one discard from a hand of 3n+2 tiles."""
    return _after_discards(counts, part_indices_nb(counts), suit_tab, honor_tab,
                           np.full(34, 99, np.int64))


class Efficiency:
    """Python front of the kernels, holding the shanten tables."""

    def __init__(self) -> None:
        self.suit_tab, self.honor_tab = tables()

    def discard_stats(self, counts: np.ndarray, unseen: np.ndarray, *,
                      all_accept: bool = False) -> tuple[np.ndarray, np.ndarray]:
        return discard_stats_nb(counts.astype(np.uint8), unseen.astype(np.int64),
                                self.suit_tab, self.honor_tab, all_accept)

    def hand_stats(self, counts: np.ndarray, unseen: np.ndarray) -> tuple[int, int]:
        s, a = hand_stats_nb(counts.astype(np.uint8), unseen.astype(np.int64),
                             self.suit_tab, self.honor_tab)
        return int(s), int(a)

    def best_discard_shanten(self, counts: np.ndarray) -> int:
        return int(best_discard_shanten_nb(counts.astype(np.uint8), self.suit_tab, self.honor_tab))
