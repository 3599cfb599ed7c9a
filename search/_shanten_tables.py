"""Per-part tables for exact shanten (suit decomposition, anchors.md section 8).

A hand splits into four independent parts: the three suits (9 kinds each) and the honours
(7 kinds). A part's count vector is indexed in base 5 (``sum c[i] * 5**i``).

**Costs.** For a part vector c, cost(m, h) is the fewest tiles to add so that the part holds
m melds and h heads (m = 0..4, h = 0..1, no kind above 4 copies). Adding tiles is the only
move that matters (extra tiles are simply discarded), so the cost of a target T is
``sum(max(0, T[i] - c[i]))``; because the parts share no tiles, the hand's replacement number
R (= shanten + 1) is the least sum of part costs over the ways to split the melds and the head
(tomohxx's suit decomposition). The costs are built once by numba (:func:`_build_costs`).

**Classes.** Only 126 distinct cost vectors occur among the 5**9 suit vectors and 55 among
the 5**7 honour vectors; min-plus combining two suits gives only 180 distinct vectors and a
suit with the honours 165 (the Nyanten observation; the numbers are checked at build time).
So each part index maps to a small class id, and a whole hand's R is two levels of look-ups
in small combination tables instead of a min-plus convolution:

    k01 = PAIR[c_man, c_pin],  k23 = MIXED[c_sou, c_honour]  (independent reads)
    R[M] = FINAL[k01, k23]

**Layout** (what :func:`load_tables` returns; all ``uint32``):

``suit_tab``: ``SUIT_SIZE`` part entries, then ``PAIR`` at ``PAIR_OFFSET`` (row stride
``1 << CLASS_SHIFT``). ``honor_tab``: ``HONOR_SIZE`` part entries, then ``MIXED`` at
``MIXED_OFFSET`` (row stride ``1 << HONOR_SHIFT``), then ``FINAL`` at ``FINAL_OFFSET``.

A part entry holds, in bits:

* 0-3 tiles, 4-6 kinds with >= 2 copies (chiitoitsu pairs; a quad is one pair), 7-10 kinds
  present, 11-14 terminal/honour kinds present (kokushi), 15-17 terminal/honour kinds with
  >= 2 copies. The widths fit the sums over four parts of any hand of <= 14 tiles, so one
  addition of the four entries gives the whole hand's counts (parts above 14 tiles hold 15
  tiles and no other feature: such a hand is not legal anyway);
* 24-31 the class id.

A ``PAIR`` entry is ``FINAL_OFFSET + k01 * N_MIXED_CLASSES`` and a ``MIXED`` entry is
``k23``, so ``FINAL`` is read at their sum; a ``FINAL`` entry packs R for M = 0..4 melds
and one head in nibbles ``4*M .. 4*M+3``. ``SPECIAL`` (at ``SPECIAL_OFFSET``, indexed by
bits 4-17 of the summed entries) holds 1 + min(chiitoitsu, kokushi shanten) of those
counts, so a closed hand needs no arithmetic on them.

The tables take about 7.9 MB (suits) and 0.5 MB (honours) in memory, 0.4 MB compressed on
disk; building them takes 2-3 s (plus numba's first compilation). They are cached on disk
(``$MAHJONG_MDP_CACHE``, else ``$XDG_CACHE_HOME`` or ``~/.cache``, under ``mahjong-mdp/``;
else next to this module; else kept in memory only) in a file named after a digest of this
module, which alone builds them: any change to it builds them afresh, no version to bump.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
import zlib
from pathlib import Path

import numba
import numpy as np

from search._numba_cache import cache_root

SUIT_SIZE = 5 ** 9
HONOR_SIZE = 5 ** 7
_BIG = 15  # cost that fits a nibble; every real cost is <= 14

# part-entry fields (see the module docstring)
TILES_MASK = 0xF
SHIFT_PAIRS, PAIRS_MASK = 4, 0x7
SHIFT_KINDS, KINDS_MASK = 7, 0xF
SHIFT_YAO, YAO_MASK = 11, 0xF
SHIFT_YAO_PAIRS, YAO_PAIRS_MASK = 15, 0x7
SHIFT_CLASS = 24

N_SUIT_CLASSES = 126
N_HONOR_CLASSES = 55
N_PAIR_CLASSES = 180                # two suits
N_MIXED_CLASSES = 165               # a suit and the honours
CLASS_SHIFT = 7                     # row stride of PAIR: 1 << 7 = 128 >= 126
HONOR_SHIFT = 6                     # row stride of MIXED: 1 << 6 = 64 >= 55
PAIR_OFFSET = SUIT_SIZE
SUIT_TAB_SIZE = PAIR_OFFSET + (N_SUIT_CLASSES << CLASS_SHIFT)
MIXED_OFFSET = HONOR_SIZE
FINAL_OFFSET = MIXED_OFFSET + (N_SUIT_CLASSES << HONOR_SHIFT)
SPECIAL_OFFSET = FINAL_OFFSET + N_PAIR_CLASSES * N_MIXED_CLASSES
SPECIAL_BITS = 14                   # the count fields above the tiles: bits 4..17
HONOR_TAB_SIZE = SPECIAL_OFFSET + (1 << SPECIAL_BITS)
_NIBBLES = 16 ** np.arange(10, dtype=np.int64)  # a cost vector as one integer key


@numba.njit(cache=True)
def _targets(width: int, chis: bool) -> np.ndarray:
    """is_target[m, h, idx]: idx is exactly m melds + h heads (every kind <= 4)."""
    size = 5 ** width
    pow5 = np.empty(width, np.int64)
    p = 1
    for i in range(width):
        pow5[i] = p
        p *= 5
    tgt = np.zeros((5, 2, size), np.bool_)
    tgt[0, 0, 0] = True
    for h in range(2):
        if h == 1:  # a head added to every zero-meld target of h = 0
            for i in range(width):
                tgt[0, 1, 2 * pow5[i]] = True
        for m in range(4):
            for idx in range(size):
                if not tgt[m, h, idx]:
                    continue
                for i in range(width):
                    c = (idx // pow5[i]) % 5
                    if c <= 1:  # a pon
                        tgt[m + 1, h, idx + 3 * pow5[i]] = True
                    if chis and i <= width - 3:
                        ok = True
                        for j in range(3):
                            if (idx // pow5[i + j]) % 5 >= 4:
                                ok = False
                        if ok:
                            tgt[m + 1, h, idx + pow5[i] + pow5[i + 1] + pow5[i + 2]] = True
    return tgt


@numba.njit(cache=True)
def _build_costs(width: int, chis: bool) -> np.ndarray:
    """cost[idx, 2*m + h] for every part vector of ``width`` kinds (suits: chis allowed)."""
    size = 5 ** width
    pow5 = np.empty(width, np.int64)
    p = 1
    for i in range(width):
        pow5[i] = p
        p *= 5
    tgt = _targets(width, chis)
    out = np.empty((size, 10), np.uint8)
    cost = np.empty(size, np.uint8)
    for m in range(5):
        for h in range(2):
            # contains: the downward closure of the targets (c holds some target), in
            # increasing index order since c - e_j has a smaller index.
            for idx in range(size):
                hit = tgt[m, h, idx]
                if not hit:
                    for j in range(width):
                        if (idx // pow5[j]) % 5 > 0 and cost[idx - pow5[j]] == 0:
                            hit = True
                            break
                cost[idx] = 0 if hit else _BIG
            # cost(c) = 1 + min_i cost(c + e_i) when c holds no target: decreasing order.
            for idx in range(size - 1, -1, -1):
                if cost[idx] == 0:
                    continue
                best = _BIG
                for i in range(width):
                    if (idx // pow5[i]) % 5 < 4:
                        v = cost[idx + pow5[i]] + 1
                        if v < best:
                            best = v
                cost[idx] = best
            out[:, 2 * m + h] = cost
    return out


@numba.njit(cache=True)
def _features(width: int, chis: bool) -> np.ndarray:
    """The summable low bits of every part entry (tiles, pairs, kinds, yao, yao pairs)."""
    size = 5 ** width
    out = np.zeros(size, np.uint32)
    for idx in range(size):
        x = idx
        tiles = pairs = kinds = yao = yao_pairs = 0
        for i in range(width):
            c = x % 5
            x //= 5
            tiles += c
            kinds += c >= 1
            pairs += c >= 2
            if (not chis) or i == 0 or i == width - 1:
                yao += c >= 1
                yao_pairs += c >= 2
        if tiles > 14:
            out[idx] = TILES_MASK
        else:
            out[idx] = (tiles | (pairs << SHIFT_PAIRS) | (kinds << SHIFT_KINDS)
                        | (yao << SHIFT_YAO) | (yao_pairs << SHIFT_YAO_PAIRS))
    return out


def _classes(costs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(class id of every part vector, the distinct cost vectors (K, 10) in id order)."""
    keys = costs.astype(np.int64) @ _NIBBLES
    ukeys, ids = np.unique(keys, return_inverse=True)
    return ids.reshape(-1).astype(np.uint32), _unpack(ukeys)


def _combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Min-plus combination of every row of ``a`` (A, 10) with every row of ``b`` (B, 10).

    Entry ``2*m + h`` of the result: the least ``a[k, h1] + b[m - k, h - h1]`` (at most one
    head in all), capped at ``_BIG``. Returns (A, B, 10).
    """
    out = np.full((len(a), len(b), 10), 2 * _BIG, np.int64)
    for m in range(5):
        for k in range(m + 1):
            x0, x1 = a[:, None, 2 * k], a[:, None, 2 * k + 1]
            y0, y1 = b[None, :, 2 * (m - k)], b[None, :, 2 * (m - k) + 1]
            out[:, :, 2 * m] = np.minimum(out[:, :, 2 * m], x0 + y0)
            out[:, :, 2 * m + 1] = np.minimum(out[:, :, 2 * m + 1],
                                              np.minimum(x0 + y1, x1 + y0))
    return np.minimum(out, _BIG)


def _unpack(keys: np.ndarray) -> np.ndarray:
    """Cost vectors (K, 10) from their nibble keys."""
    return (keys[:, None] >> (4 * np.arange(10, dtype=np.int64))) & 15


def _index_rows(rows: np.ndarray, space: np.ndarray) -> np.ndarray:
    """Position of each row of ``rows`` in the sorted distinct rows ``space``."""
    key_space = space @ _NIBBLES
    key_rows = rows @ _NIBBLES
    pos = np.searchsorted(key_space, key_rows)
    if (pos >= len(space)).any() or (key_space[np.minimum(pos, len(space) - 1)] != key_rows).any():
        raise AssertionError("combined cost vector outside the closed class space")
    return pos


def _sorted_unique(rows: np.ndarray) -> np.ndarray:
    """The distinct cost vectors among ``rows``, sorted by nibble key."""
    return _unpack(np.unique(rows @ _NIBBLES))


def chiitoi_from_fields(pairs, kinds):
    """Chiitoitsu shanten from the hand's pair and kind counts: 6 - pairs + max(0, 7 - kinds)."""
    return 6 - pairs + np.maximum(0, 7 - kinds)


def kokushi_from_fields(yao, yao_pairs):
    """Kokushi shanten: 13 - terminal/honour kinds - (1 if one of them is a pair)."""
    return 13 - yao - (yao_pairs > 0)


def _special() -> np.ndarray:
    """SPECIAL[(s >> 4) & 0x3FFF]: min(chiitoitsu, kokushi) shanten + 1 for summed fields s
    (+1 so a complete chiitoitsu, -1, fits an unsigned entry)."""
    f = np.arange(1 << SPECIAL_BITS, dtype=np.int64) << SHIFT_PAIRS
    pairs = (f >> SHIFT_PAIRS) & PAIRS_MASK
    kinds = (f >> SHIFT_KINDS) & KINDS_MASK
    yao = (f >> SHIFT_YAO) & YAO_MASK
    yao_pairs = (f >> SHIFT_YAO_PAIRS) & YAO_PAIRS_MASK
    best = np.minimum(chiitoi_from_fields(pairs, kinds), kokushi_from_fields(yao, yao_pairs))
    return np.maximum(best + 1, 0).astype(np.uint32)  # clipped: impossible field mixes only


def build_tables() -> tuple[np.ndarray, np.ndarray]:
    """Build (suit_tab, honor_tab) from scratch (about 2-3 s)."""
    suit_costs = _build_costs(9, True)
    honor_costs = _build_costs(7, False)
    suit_cls, suit_vecs = _classes(suit_costs)
    honor_cls, honor_vecs = _classes(honor_costs)
    if len(suit_vecs) != N_SUIT_CLASSES or len(honor_vecs) != N_HONOR_CLASSES:
        raise AssertionError(f"unexpected class counts {len(suit_vecs)}, {len(honor_vecs)}")
    pair_vecs = _combine(suit_vecs, suit_vecs).reshape(-1, 10)
    mixed_vecs = _combine(suit_vecs, honor_vecs).reshape(-1, 10)
    pair_space = _sorted_unique(pair_vecs)
    mixed_space = _sorted_unique(mixed_vecs)
    if len(pair_space) != N_PAIR_CLASSES or len(mixed_space) != N_MIXED_CLASSES:
        raise AssertionError(f"unexpected class counts {len(pair_space)}, {len(mixed_space)}")
    pair = _index_rows(pair_vecs, pair_space).reshape(N_SUIT_CLASSES, N_SUIT_CLASSES)
    mixed = _index_rows(mixed_vecs, mixed_space).reshape(N_SUIT_CLASSES, N_HONOR_CLASSES)
    final = _combine(pair_space, mixed_space)[:, :, 1::2]  # R for M = 0..4 with one head

    suit_tab = np.zeros(SUIT_TAB_SIZE, np.uint32)
    suit_tab[:SUIT_SIZE] = _features(9, True) | (suit_cls << SHIFT_CLASS)
    p = np.zeros((N_SUIT_CLASSES, 1 << CLASS_SHIFT), np.uint32)
    p[:, :N_SUIT_CLASSES] = FINAL_OFFSET + pair * N_MIXED_CLASSES
    suit_tab[PAIR_OFFSET:] = p.ravel()

    honor_tab = np.zeros(HONOR_TAB_SIZE, np.uint32)
    honor_tab[:HONOR_SIZE] = _features(7, False) | (honor_cls << SHIFT_CLASS)
    x = np.zeros((N_SUIT_CLASSES, 1 << HONOR_SHIFT), np.uint32)
    x[:, :N_HONOR_CLASSES] = mixed
    honor_tab[MIXED_OFFSET:FINAL_OFFSET] = x.ravel()
    honor_tab[FINAL_OFFSET:SPECIAL_OFFSET] = (
        final << (4 * np.arange(5, dtype=np.int64))).sum(axis=2).ravel()
    honor_tab[SPECIAL_OFFSET:] = _special()
    return suit_tab, honor_tab


def _cache_dirs() -> list[Path]:
    return [cache_root(), Path(__file__).resolve().parent / "_cache"]


def _file_name() -> str:
    """The cache file of the tables this module builds: named after a digest of its source."""
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    return f"shanten_tables-{digest}.npz"


def _try_load(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    # None for a missing, cut or damaged file: the tables are built again.
    try:
        with np.load(path, allow_pickle=False) as z:
            suit, honor = z["suit"], z["honor"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error):
        return None
    if (suit.shape != (SUIT_TAB_SIZE,) or honor.shape != (HONOR_TAB_SIZE,)
            or suit.dtype != np.uint32 or honor.dtype != np.uint32):
        return None
    return suit, honor


def _try_save(path: Path, suit: np.ndarray, honor: np.ndarray) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # write then rename, so a reader in another process never sees half a file
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, suit=suit, honor=honor)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


_TABLES: tuple[np.ndarray, np.ndarray] | None = None


def load_tables() -> tuple[np.ndarray, np.ndarray]:
    """(suit_tab, honor_tab) as laid out above, built once and cached on disk."""
    global _TABLES
    if _TABLES is not None:
        return _TABLES
    name = _file_name()
    for d in _cache_dirs():
        got = _try_load(d / name)
        if got is not None:
            _TABLES = got
            return got
    suit, honor = build_tables()
    for d in _cache_dirs():
        if _try_save(d / name, suit, honor):
            break
    _TABLES = (suit, honor)
    return _TABLES
