"""Exact shanten: regular, chiitoitsu and kokushi (anchors.md section 8).

The regular shanten comes from per-part tables (``search/_shanten_tables.py``): a hand's
four parts (man, pin, sou, honours) are looked up by their base-5 index, which gives each
part's cost class (126 suit classes, 55 honour classes). Two reads in small combination
tables (man+pin and sou+honours, independent of each other) and a third that joins them
give the replacement number R for M melds and one head; shanten = R - 1 (so -1 is a
complete hand). M = n // 3 for a concealed hand of n tiles: hands with calls (n = 11, 10,
8, 7, 5, 4, 2, 1) simply need fewer melds. Chiitoitsu and kokushi exist only for closed
hands (n = 13 or 14); a quad is one pair, not two (Tenhou). Their counts (pairs, kinds,
terminal kinds) are bit fields of the same part entries, summed by one addition, and one
more read gives the lesser of the two. A whole hand is thus 4 part reads and 4 small-table
reads with no loop and no data-dependent branch.

Python API: :func:`shanten`, :func:`shanten_regular`, :func:`shanten_chiitoi`,
:func:`shanten_kokushi`, :func:`shanten_batch`.

numba API for graph searches (no Python overhead; pass the tables of :func:`tables`):

* ``shanten_nb(counts, suit_tab, honor_tab) -> int``: the least of the three;
* ``part_indices_nb(counts) -> int64[4]`` and ``apply_tile_nb(idx, kind, delta)``: the
  incremental form; a draw (+1) or a discard (-1) changes one part index by ``5**pos``;
* ``shanten_idx_nb(idx, suit_tab, honor_tab) -> int``: the least of the three from the
  four indices alone (the part entries also hold pair, kind and tile counts);
* ``regular_idx_nb(idx, n_melds, suit_tab, honor_tab) -> int``: regular shanten only.

Kernels assume a legal hand (<= 4 copies, n % 3 != 0, n <= 14); the Python functions check.

numba's on-disk cache of a kernel in another module that calls these ones is keyed on that
module's source only, so ``search/_numba_cache.py`` names the cache folder after a digest of
all of ``search/``'s sources: a change here recompiles every caller.
"""
from __future__ import annotations

import numba
import numpy as np

from game.errors import TileError
from search._shanten_tables import (
    CLASS_SHIFT, HONOR_SHIFT, KINDS_MASK, MIXED_OFFSET, PAIR_OFFSET, PAIRS_MASK, SHIFT_CLASS,
    SHIFT_KINDS, SHIFT_PAIRS, SHIFT_YAO, SHIFT_YAO_PAIRS, SPECIAL_BITS, SPECIAL_OFFSET, TILES_MASK,
    YAO_MASK, YAO_PAIRS_MASK, load_tables,
)

LEGAL_SIZES = (1, 2, 4, 5, 7, 8, 10, 11, 13, 14)


def tables() -> tuple[np.ndarray, np.ndarray]:
    """(suit_tab, honor_tab) for the ``*_nb`` kernels; built or loaded on first use."""
    return load_tables()


# --- kernels ----------------------------------------------------------------------------
# A part entry is handled as uint64 (class above SHIFT_CLASS, summable counts below; see
# _shanten_tables). Tables are indexed with unsigned integers: numba adds a negative-index
# fix-up to every signed index, which lengthens each dependent read by about two cycles.

_U_CLASS = np.uint64(SHIFT_CLASS)
_U_CLASS_SHIFT = np.uint64(CLASS_SHIFT)
_U_HONOR_SHIFT = np.uint64(HONOR_SHIFT)
_U_PAIR = np.uint64(PAIR_OFFSET)
_U_MIXED = np.uint64(MIXED_OFFSET)
_U_SPECIAL = np.uint64(SPECIAL_OFFSET)
_U_SPECIAL_MASK = np.uint64((1 << SPECIAL_BITS) - 1)
_U_FOUR = np.uint64(4)
# kind -> part (0..3) and base-5 step 5**pos, read with unsigned indices
_KIND_PART = np.array([k // 9 if k < 27 else 3 for k in range(34)], np.uint64)
_KIND_STEP = np.array([5 ** (k % 9 if k < 27 else k - 27) for k in range(34)], np.int64)


@numba.njit(cache=True)
def _entry(tab, i):
    """The part entry at index ``i`` (a non-negative int64) as uint64."""
    return np.uint64(tab[np.uint64(i)])


@numba.njit(cache=True)
def _pair_row(e0, e1, suit_tab):
    """Offset of the FINAL row for the man+pin class (one read)."""
    return np.uint64(suit_tab[_U_PAIR + ((e0 >> _U_CLASS) << _U_CLASS_SHIFT)
                              + (e1 >> _U_CLASS)])


@numba.njit(cache=True)
def _mixed_col(e2, e3, honor_tab):
    """Column of FINAL for the sou+honours class (one read)."""
    return np.uint64(honor_tab[_U_MIXED + ((e2 >> _U_CLASS) << _U_HONOR_SHIFT)
                               + (e3 >> _U_CLASS)])


@numba.njit(cache=True)
def _replacement(row, col, n_melds, honor_tab) -> int:
    """R = regular shanten + 1 for n_melds melds and one head."""
    return (np.int64(honor_tab[row + col]) >> (4 * n_melds)) & 15


@numba.njit(cache=True)
def _chiitoi_sum(s) -> int:
    s = np.int64(s & np.uint64(0xFFFFFF))
    pairs = (s >> SHIFT_PAIRS) & PAIRS_MASK
    kinds = (s >> SHIFT_KINDS) & KINDS_MASK
    missing = 7 - kinds
    return 6 - pairs + (missing if missing > 0 else 0)


@numba.njit(cache=True)
def _kokushi_sum(s) -> int:
    s = np.int64(s & np.uint64(0xFFFFFF))
    yao = (s >> SHIFT_YAO) & YAO_MASK
    pair = ((s >> SHIFT_YAO_PAIRS) & YAO_PAIRS_MASK) != 0
    return 13 - yao - pair


@numba.njit(cache=True)
def _special(s, honor_tab) -> int:
    """min(chiitoitsu, kokushi) shanten from the summed entries (one read, no arithmetic)."""
    return np.int64(honor_tab[_U_SPECIAL + ((s >> _U_FOUR) & _U_SPECIAL_MASK)]) - 1


@numba.njit(cache=True)
def _n_tiles(s) -> int:
    return np.int64(s & np.uint64(TILES_MASK))


@numba.njit(cache=True)
def _shanten_parts(row, col, s, honor_tab) -> int:
    """Shanten from the FINAL row and column and the summed entries ``s``."""
    n = _n_tiles(s)
    best = _replacement(row, col, n // 3, honor_tab) - 1
    other = _special(s, honor_tab)  # read even for n < 13 (cheap), so the min is branch-free
    if n >= 13 and other < best:
        best = other
    return best


@numba.njit(cache=True)
def _shanten_entries(e0, e1, e2, e3, suit_tab, honor_tab) -> int:
    # the man+pin and sou+honours reads are independent: the chain is two reads deep
    return _shanten_parts(_pair_row(e0, e1, suit_tab), _mixed_col(e2, e3, honor_tab),
                          e0 + e1 + e2 + e3, honor_tab)


@numba.njit(cache=True)
def _entries_of(counts, suit_tab, honor_tab):
    """The four part entries (uint64) of a 34-count hand."""
    i0 = 0
    i1 = 0
    i2 = 0
    i3 = 0
    for i in range(8, -1, -1):
        i0 = i0 * 5 + counts[i]
        i1 = i1 * 5 + counts[9 + i]
        i2 = i2 * 5 + counts[18 + i]
    for i in range(6, -1, -1):
        i3 = i3 * 5 + counts[27 + i]
    return (_entry(suit_tab, i0), _entry(suit_tab, i1), _entry(suit_tab, i2),
            _entry(honor_tab, i3))


@numba.njit(cache=True)
def part_indices_nb(counts: np.ndarray) -> np.ndarray:
    """Base-5 indices of the man, pin, sou and honour parts of a 34-count hand."""
    idx = np.zeros(4, np.int64)
    for part in range(4):
        width = 9 if part < 3 else 7
        base = 9 * part
        acc = 0
        for i in range(width - 1, -1, -1):
            acc = acc * 5 + counts[base + i]
        idx[part] = acc
    return idx


@numba.njit(cache=True)
def apply_tile_nb(idx: np.ndarray, kind: int, delta: int) -> None:
    """Update part indices in place for one tile drawn (delta=+1) or discarded (-1)."""
    k = np.uint64(kind)
    idx[_KIND_PART[k]] += delta * _KIND_STEP[k]


@numba.njit(cache=True)
def shanten_idx_nb(idx: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    """Shanten (least of the three) from the four part indices."""
    return _shanten_entries(_entry(suit_tab, idx[0]), _entry(suit_tab, idx[1]),
                            _entry(suit_tab, idx[2]), _entry(honor_tab, idx[3]),
                            suit_tab, honor_tab)


@numba.njit(cache=True)
def regular_idx_nb(idx: np.ndarray, n_melds: int, suit_tab: np.ndarray,
                   honor_tab: np.ndarray) -> int:
    """Regular shanten for ``n_melds`` melds + one head from the four part indices."""
    row = _pair_row(_entry(suit_tab, idx[0]), _entry(suit_tab, idx[1]), suit_tab)
    col = _mixed_col(_entry(suit_tab, idx[2]), _entry(honor_tab, idx[3]), honor_tab)
    return _replacement(row, col, n_melds, honor_tab) - 1


@numba.njit(cache=True)
def shanten_nb(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    """Shanten of a 34-count hand: least of regular, chiitoitsu (13/14) and kokushi (13/14)."""
    e0, e1, e2, e3 = _entries_of(counts, suit_tab, honor_tab)
    return _shanten_entries(e0, e1, e2, e3, suit_tab, honor_tab)


@numba.njit(cache=True)
def regular_nb(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    e0, e1, e2, e3 = _entries_of(counts, suit_tab, honor_tab)
    n = _n_tiles(e0 + e1 + e2 + e3)
    return _replacement(_pair_row(e0, e1, suit_tab), _mixed_col(e2, e3, honor_tab), n // 3,
                        honor_tab) - 1


@numba.njit(cache=True)
def chiitoi_nb(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    e0, e1, e2, e3 = _entries_of(counts, suit_tab, honor_tab)
    return _chiitoi_sum(e0 + e1 + e2 + e3)


@numba.njit(cache=True)
def kokushi_nb(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    e0, e1, e2, e3 = _entries_of(counts, suit_tab, honor_tab)
    return _kokushi_sum(e0 + e1 + e2 + e3)


@numba.njit(cache=True)
def _batch_nb(hands: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray,
              out: np.ndarray) -> int:
    """Fill ``out``; return the first row whose size is not legal, or -1.

    Counts must already be known to lie in 0..4 (so the base-5 indices are exact); the size
    comes from the entries' tile fields (a part above 14 tiles holds 15, so such a hand fails).
    """
    for j in range(hands.shape[0]):
        e0, e1, e2, e3 = _entries_of(hands[j], suit_tab, honor_tab)
        n = _n_tiles(e0) + _n_tiles(e1) + _n_tiles(e2) + _n_tiles(e3)
        if n > 14 or n % 3 == 0:
            return j
        out[j] = _shanten_entries(e0, e1, e2, e3, suit_tab, honor_tab)
    return -1


# --- Python API -------------------------------------------------------------------------

def _checked(counts) -> np.ndarray:
    arr = np.asarray(counts)
    if arr.shape != (34,):
        raise TileError(f"a hand is a 34-count vector, got shape {arr.shape}")
    if arr.min(initial=0) < 0 or arr.max(initial=0) > 4:
        raise TileError("tile counts must lie in 0..4")
    n = int(arr.sum())
    if n not in LEGAL_SIZES:
        raise TileError(f"a concealed hand of {n} tiles is not a legal size {LEGAL_SIZES}")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _closed_only(counts: np.ndarray, what: str) -> None:
    if int(counts.sum()) < 13:
        raise TileError(f"{what} needs a closed hand of 13 or 14 tiles")


def shanten(counts) -> int:
    """Shanten of a concealed hand (34 counts): -1 complete, 0 tenpai, ...

    The least of regular, chiitoitsu and kokushi shanten (the last two only for 13/14 tiles).
    """
    c = _checked(counts)
    return int(shanten_nb(c, *tables()))


def shanten_regular(counts) -> int:
    """Regular (melds + head) shanten; hands with calls need n // 3 melds."""
    c = _checked(counts)
    return int(regular_nb(c, *tables()))


def shanten_chiitoi(counts) -> int:
    """Chiitoitsu shanten of a closed 13/14-tile hand: 6 - pairs + max(0, 7 - kinds)."""
    c = _checked(counts)
    _closed_only(c, "chiitoitsu")
    return int(chiitoi_nb(c, *tables()))


def shanten_kokushi(counts) -> int:
    """Kokushi shanten of a closed 13/14-tile hand: 13 - terminal kinds - (a terminal pair)."""
    c = _checked(counts)
    _closed_only(c, "kokushi")
    return int(kokushi_nb(c, *tables()))


def shanten_batch(hands: np.ndarray) -> np.ndarray:
    """Shanten of each row of an (N, 34) uint8 array, as int8[N]."""
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] != 34:
        raise TileError(f"shanten_batch wants an (N, 34) array, got shape {arr.shape}")
    # one vectorised pass (the kernel trusts counts <= 4: a 5 would carry into the next digit)
    if arr.size and (arr.max() > 4 or (arr.dtype != np.uint8 and arr.min() < 0)):
        row = int(np.flatnonzero(((arr < 0) | (arr > 4)).any(axis=1))[0])
        raise TileError(f"row {row} of shanten_batch is not a legal hand (counts must lie in 0..4)")
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    out = np.empty(arr.shape[0], np.int8)
    bad = _batch_nb(arr, *tables(), out)
    if bad >= 0:
        raise TileError(f"row {bad} of shanten_batch is not a legal hand "
                        f"({int(arr[bad].sum())} tiles; sizes {LEGAL_SIZES})")
    return out
