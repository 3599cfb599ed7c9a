"""Exact shanten: regular, chiitoitsu and kokushi (anchors.md section 8).

The regular shanten comes from per-part tables (``search/_shanten_tables.py``): a hand's
four parts (man, pin, sou, honours) are looked up by their base-5 index, and the least sum
of part costs over the ways to place M melds and one head gives the replacement number R;
shanten = R - 1 (so -1 is a complete hand). M = n // 3 for a concealed hand of n tiles:
hands with calls (n = 11, 10, 8, 7, 5, 4, 2, 1) simply need fewer melds. Chiitoitsu and
kokushi exist only for closed hands (n = 13 or 14); a quad is one pair, not two (Tenhou).

Python API: :func:`shanten`, :func:`shanten_regular`, :func:`shanten_chiitoi`,
:func:`shanten_kokushi`, :func:`shanten_batch`.

numba API for graph searches (no Python overhead; pass the tables of :func:`tables`):

* ``shanten_nb(counts, suit_tab, honor_tab) -> int``: the least of the three;
* ``part_indices_nb(counts) -> int64[4]`` and ``apply_tile_nb(idx, kind, delta)``: the
  incremental form; a draw (+1) or a discard (-1) changes one part index by ``5**pos``;
* ``shanten_idx_nb(idx, suit_tab, honor_tab) -> int``: the least of the three from the
  four indices alone (the tables also hold pair, kind and tile counts);
* ``regular_idx_nb(idx, n_melds, suit_tab, honor_tab) -> int``: regular shanten only.

Kernels assume a legal hand (<= 4 copies, n % 3 != 0, n <= 14); the Python functions check.
"""
from __future__ import annotations

import numba
import numpy as np

from game.errors import TileError
from search._shanten_tables import (
    SHIFT_KINDS, SHIFT_PAIRS, SHIFT_TILES, SHIFT_YAO, SHIFT_YAO_PAIR, load_tables,
)

_POW5 = np.array([5 ** i for i in range(9)], dtype=np.int64)
LEGAL_SIZES = (1, 2, 4, 5, 7, 8, 10, 11, 13, 14)


def tables() -> tuple[np.ndarray, np.ndarray]:
    """(suit_table, honor_table) for the ``*_nb`` kernels; built or loaded on first use."""
    return load_tables()


# --- kernels ----------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _cost(row: np.uint64, m: int, h: int) -> int:
    return int((row >> np.uint64(4 * (2 * m + h))) & np.uint64(15))


@numba.njit(cache=True, inline="always")
def _field(row: np.uint64, shift: int, mask: int) -> int:
    return int((row >> np.uint64(shift)) & np.uint64(mask))


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


@numba.njit(cache=True, inline="always")
def apply_tile_nb(idx: np.ndarray, kind: int, delta: int) -> None:
    """Update part indices in place for one tile drawn (delta=+1) or discarded (-1)."""
    part = kind // 9 if kind < 27 else 3
    pos = kind - 9 * part
    p = 1
    for _ in range(pos):
        p *= 5
    idx[part] += delta * p


@numba.njit(cache=True, inline="always")
def _unpack(row: np.uint64, h: int):
    """The costs of m = 0..4 melds with h heads of one part, as a 5-tuple."""
    return (_cost(row, 0, h), _cost(row, 1, h), _cost(row, 2, h), _cost(row, 3, h),
            _cost(row, 4, h))


@numba.njit(cache=True, inline="always")
def _mc(x, y, m: int) -> int:
    """min over k <= m of x[k] + y[m - k] (min-plus convolution, one cell)."""
    best = 99
    for k in range(m + 1):
        v = x[k] + y[m - k]
        if v < best:
            best = v
    return best


@numba.njit(cache=True, inline="always")
def _mc2(x0, x1, y0, y1, m: int) -> int:
    """One head cell: the head on either side."""
    a = _mc(x0, y1, m)
    b = _mc(x1, y0, m)
    return a if a < b else b


@numba.njit(cache=True, inline="always")
def _conv(x0, x1, y0, y1):
    # Tuples (not arrays) keep the whole combine in registers: no allocation per hand.
    z0 = (_mc(x0, y0, 0), _mc(x0, y0, 1), _mc(x0, y0, 2), _mc(x0, y0, 3), _mc(x0, y0, 4))
    z1 = (_mc2(x0, x1, y0, y1, 0), _mc2(x0, x1, y0, y1, 1), _mc2(x0, x1, y0, y1, 2),
          _mc2(x0, x1, y0, y1, 3), _mc2(x0, x1, y0, y1, 4))
    return z0, z1


@numba.njit(cache=True, inline="always")
def _regular_rows(r0: np.uint64, r1: np.uint64, r2: np.uint64, r3: np.uint64,
                  n_melds: int) -> int:
    # Combine parts 0 and 1, then part 2 (a small min-plus convolution over m <= 4 and
    # h <= 1), then read the one cell (n_melds, 1) against part 3.
    a0, a1 = _conv(_unpack(r0, 0), _unpack(r0, 1), _unpack(r1, 0), _unpack(r1, 1))
    b0, b1 = _conv(a0, a1, _unpack(r2, 0), _unpack(r2, 1))
    return _mc2(b0, b1, _unpack(r3, 0), _unpack(r3, 1), n_melds) - 1


@numba.njit(cache=True, inline="always")
def _chiitoi_rows(r0: np.uint64, r1: np.uint64, r2: np.uint64, r3: np.uint64) -> int:
    pairs = (_field(r0, SHIFT_PAIRS, 7) + _field(r1, SHIFT_PAIRS, 7)
             + _field(r2, SHIFT_PAIRS, 7) + _field(r3, SHIFT_PAIRS, 7))
    kinds = (_field(r0, SHIFT_KINDS, 15) + _field(r1, SHIFT_KINDS, 15)
             + _field(r2, SHIFT_KINDS, 15) + _field(r3, SHIFT_KINDS, 15))
    if pairs > 7:
        pairs = 7
    missing = 7 - kinds
    if missing < 0:
        missing = 0
    return 6 - pairs + missing


@numba.njit(cache=True, inline="always")
def _kokushi_rows(r0: np.uint64, r1: np.uint64, r2: np.uint64, r3: np.uint64) -> int:
    yao = (_field(r0, SHIFT_YAO, 7) + _field(r1, SHIFT_YAO, 7)
           + _field(r2, SHIFT_YAO, 7) + _field(r3, SHIFT_YAO, 7))
    pair = (_field(r0, SHIFT_YAO_PAIR, 1) | _field(r1, SHIFT_YAO_PAIR, 1)
            | _field(r2, SHIFT_YAO_PAIR, 1) | _field(r3, SHIFT_YAO_PAIR, 1))
    return 13 - yao - pair


@numba.njit(cache=True, inline="always")
def _n_tiles(r0: np.uint64, r1: np.uint64, r2: np.uint64, r3: np.uint64) -> int:
    return (_field(r0, SHIFT_TILES, 63) + _field(r1, SHIFT_TILES, 63)
            + _field(r2, SHIFT_TILES, 63) + _field(r3, SHIFT_TILES, 63))


@numba.njit(cache=True, inline="always")
def _all_rows(r0: np.uint64, r1: np.uint64, r2: np.uint64, r3: np.uint64) -> int:
    n = _n_tiles(r0, r1, r2, r3)
    best = _regular_rows(r0, r1, r2, r3, n // 3)
    if n >= 13:
        v = _chiitoi_rows(r0, r1, r2, r3)
        if v < best:
            best = v
        v = _kokushi_rows(r0, r1, r2, r3)
        if v < best:
            best = v
    return best


@numba.njit(cache=True, inline="always")
def shanten_idx_nb(idx: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    """Shanten (least of the three) from the four part indices."""
    return _all_rows(suit_tab[idx[0]], suit_tab[idx[1]], suit_tab[idx[2]], honor_tab[idx[3]])


@numba.njit(cache=True, inline="always")
def regular_idx_nb(idx: np.ndarray, n_melds: int, suit_tab: np.ndarray,
                   honor_tab: np.ndarray) -> int:
    """Regular shanten for ``n_melds`` melds + one head from the four part indices."""
    return _regular_rows(suit_tab[idx[0]], suit_tab[idx[1]], suit_tab[idx[2]],
                         honor_tab[idx[3]], n_melds)


@numba.njit(cache=True, inline="always")
def _rows_of(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray):
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
    return suit_tab[i0], suit_tab[i1], suit_tab[i2], honor_tab[i3]


@numba.njit(cache=True)
def shanten_nb(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    """Shanten of a 34-count hand: least of regular, chiitoitsu (13/14) and kokushi (13/14)."""
    r0, r1, r2, r3 = _rows_of(counts, suit_tab, honor_tab)
    return _all_rows(r0, r1, r2, r3)


@numba.njit(cache=True)
def regular_nb(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    r0, r1, r2, r3 = _rows_of(counts, suit_tab, honor_tab)
    return _regular_rows(r0, r1, r2, r3, _n_tiles(r0, r1, r2, r3) // 3)


@numba.njit(cache=True)
def chiitoi_nb(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    r0, r1, r2, r3 = _rows_of(counts, suit_tab, honor_tab)
    return _chiitoi_rows(r0, r1, r2, r3)


@numba.njit(cache=True)
def kokushi_nb(counts: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray) -> int:
    r0, r1, r2, r3 = _rows_of(counts, suit_tab, honor_tab)
    return _kokushi_rows(r0, r1, r2, r3)


@numba.njit(cache=True)
def _batch_nb(hands: np.ndarray, suit_tab: np.ndarray, honor_tab: np.ndarray,
              out: np.ndarray) -> int:
    """Fill ``out``; return the first row that is not a legal hand, or -1."""
    for j in range(hands.shape[0]):
        h = hands[j]
        for k in range(34):
            if h[k] > 4:
                return j
        r0, r1, r2, r3 = _rows_of(h, suit_tab, honor_tab)
        n = _n_tiles(r0, r1, r2, r3)
        if n > 14 or n % 3 == 0:
            return j
        out[j] = _all_rows(r0, r1, r2, r3)
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
    if arr.dtype != np.uint8:
        if arr.size and (arr.min() < 0 or arr.max() > 4):
            raise TileError("tile counts must lie in 0..4")
        arr = arr.astype(np.uint8)
    arr = np.ascontiguousarray(arr)
    out = np.empty(arr.shape[0], np.int8)
    bad = _batch_nb(arr, *tables(), out)
    if bad >= 0:
        raise TileError(f"row {bad} of shanten_batch is not a legal hand "
                        f"({int(arr[bad].sum())} tiles, counts <= 4, sizes {LEGAL_SIZES})")
    return out
