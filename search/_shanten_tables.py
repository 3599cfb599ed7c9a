"""Per-part tables for exact shanten (suit decomposition, anchors.md section 8).

A hand splits into four independent parts: the three suits (9 kinds each) and the honours
(7 kinds). A part's count vector is indexed in base 5 (``sum c[i] * 5**i``). For each index
the table stores, packed into one ``uint64``:

* bits ``4*(2*m+h) .. +3`` (m = 0..4 melds, h = 0..1 heads): the fewest tiles to add so that
  the part contains m melds and h heads (no kind above 4 copies). Adding tiles is the only
  move that matters: extra tiles are simply discarded, so the cost of a target T is
  ``sum(max(0, T[i] - c[i]))``, and because suits share no tiles the hand's replacement
  number is the least sum of part costs over the ways to split the melds and the head
  (tomohxx's proof; the numbers come from our own tables below);
* bits 40-42: kinds with two or more copies (chiitoitsu pairs; a quad is one pair);
* bits 43-46: kinds present;
* bits 47-49: terminal/honour kinds present (kokushi);
* bit 50: a terminal/honour kind with two or more copies;
* bits 51-56: tiles in the part (so a hand's size is a sum of four fields).

The tables take about 15.6 MB (suits) and 0.6 MB (honours). They are built by numba in
about a second and cached on disk (``$MAHJONG_MDP_CACHE``, else ``$XDG_CACHE_HOME`` or
``~/.cache``, under ``mahjong-mdp/``; else next to this module; else kept in memory only).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numba
import numpy as np

TABLE_VERSION = 1
SUIT_SIZE = 5 ** 9
HONOR_SIZE = 5 ** 7
_BIG = 15  # cost that fits a nibble; every real cost is <= 14

SHIFT_PAIRS = 40
SHIFT_KINDS = 43
SHIFT_YAO = 47
SHIFT_YAO_PAIR = 50
SHIFT_TILES = 51


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
def _build(width: int, chis: bool) -> np.ndarray:
    size = 5 ** width
    pow5 = np.empty(width, np.int64)
    p = 1
    for i in range(width):
        pow5[i] = p
        p *= 5
    tgt = _targets(width, chis)
    out = np.zeros(size, np.uint64)
    cost = np.empty(size, np.uint8)
    digits = np.empty(width, np.int64)
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
            shift = np.uint64(4 * (2 * m + h))
            for idx in range(size):
                out[idx] |= np.uint64(cost[idx]) << shift
    for idx in range(size):
        x = idx
        for i in range(width):
            digits[i] = x % 5
            x //= 5
        pairs = 0
        kinds = 0
        yao = 0
        yao_pair = 0
        tiles = 0
        for i in range(width):
            c = digits[i]
            tiles += c
            if c >= 1:
                kinds += 1
            if c >= 2:
                pairs += 1
            terminal = (not chis) or i == 0 or i == width - 1
            if terminal and c >= 1:
                yao += 1
                if c >= 2:
                    yao_pair = 1
        out[idx] |= (np.uint64(pairs) << np.uint64(SHIFT_PAIRS)) | (
            np.uint64(kinds) << np.uint64(SHIFT_KINDS)) | (
            np.uint64(yao) << np.uint64(SHIFT_YAO)) | (
            np.uint64(yao_pair) << np.uint64(SHIFT_YAO_PAIR)) | (
            np.uint64(tiles) << np.uint64(SHIFT_TILES))
    return out


def _cache_dirs() -> list[Path]:
    dirs = []
    env = os.environ.get("MAHJONG_MDP_CACHE")
    if env:
        dirs.append(Path(env))
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    dirs.append(Path(base) / "mahjong-mdp")
    dirs.append(Path(__file__).resolve().parent / "_cache")
    return dirs


def _file_name() -> str:
    return f"shanten_tables_v{TABLE_VERSION}.npz"


def _try_load(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    try:
        with np.load(path) as z:
            suit, honor = z["suit"], z["honor"]
    except (OSError, KeyError, ValueError):
        return None
    if suit.shape != (SUIT_SIZE,) or honor.shape != (HONOR_SIZE,) or suit.dtype != np.uint64:
        return None
    return suit, honor


def _try_save(path: Path, suit: np.ndarray, honor: np.ndarray) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # write then rename, so a reader in another process never sees half a file
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, suit=suit, honor=honor)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


_TABLES: tuple[np.ndarray, np.ndarray] | None = None


def load_tables() -> tuple[np.ndarray, np.ndarray]:
    """(suit_table uint64[5**9], honor_table uint64[5**7]), built once and cached on disk."""
    global _TABLES
    if _TABLES is not None:
        return _TABLES
    name = _file_name()
    for d in _cache_dirs():
        got = _try_load(d / name)
        if got is not None:
            _TABLES = got
            return got
    suit = _build(9, True)
    honor = _build(7, False)
    for d in _cache_dirs():
        if _try_save(d / name, suit, honor):
            break
    _TABLES = (suit, honor)
    return _TABLES
