"""Speed of the numba shanten and scorer (anchors.md section 8; search_performance.md).

Prints the median and p90 over repeats of: ns per hand of ``shanten_batch`` on random
13- and 14-tile hands, ns per hand of the incremental kernel (one draw or discard applied to
the part indices, then ``shanten_idx_nb``), and us per call of ``score_nb`` and
``score_waits_nb`` on random winning / tenpai hands. JIT compilation is excluded (warm-up).

    python benchmarks/shanten_bench.py --hands 1000000 --repeats 7 --json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game.errors import MahjongError  # noqa: E402
from search.scorer import score_nb, score_waits_nb  # noqa: E402
from search.shanten import (  # noqa: E402
    apply_tile_nb, part_indices_nb, shanten_batch, shanten_idx_nb, tables,
)


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """n random hands of ``size`` tiles from a full 136-tile wall."""
    keys = rng.random((n, 136))
    pick = np.argpartition(keys, size, axis=1)[:, :size] // 4
    out = np.zeros((n, 34), np.uint8)
    np.add.at(out, (np.repeat(np.arange(n), size), pick.ravel()), 1)
    return out


@numba.njit(cache=True)
def _walk(hand: np.ndarray, draws: np.ndarray, suit: np.ndarray, honor: np.ndarray) -> int:
    """Draw, evaluate, discard the same tile, evaluate: 2 incremental shanten per step."""
    idx = part_indices_nb(hand)
    acc = 0
    for t in draws:
        if hand[t] >= 4:
            continue
        apply_tile_nb(idx, t, 1)
        acc += shanten_idx_nb(idx, suit, honor)
        apply_tile_nb(idx, t, -1)
        acc += shanten_idx_nb(idx, suit, honor)
    return acc


def _stats(xs: list[float]) -> dict:
    a = np.asarray(xs)
    return {"median": float(np.median(a)), "p90": float(np.percentile(a, 90)),
            "min": float(a.min())}


def bench(n_hands: int, repeats: int, n_score: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    suit, honor = tables()
    res: dict = {}
    for size in (13, 14):
        hands = random_hands(rng, n_hands, size)
        shanten_batch(hands[:10])
        ts = []
        for _ in range(repeats):
            t = time.perf_counter()
            shanten_batch(hands)
            ts.append((time.perf_counter() - t) / n_hands * 1e9)
        res[f"shanten_batch_{size}_ns"] = _stats(ts)
    hand = random_hands(rng, 1, 13)[0]
    draws = rng.integers(0, 34, n_hands // 2)
    _walk(hand, draws[:10], suit, honor)
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        _walk(hand, draws, suit, honor)
        ts.append((time.perf_counter() - t) / (2 * len(draws)) * 1e9)
    res["shanten_incremental_ns"] = _stats(ts)
    # scorer: winning hands found among random tenpai-ish hands by the waits table
    wins = _winning_hands(rng, n_score, suit, honor)
    melds = np.zeros((0, 2), np.int64)
    dm = np.zeros(34, np.uint8)
    dm[int(rng.integers(34))] = 1
    score_nb(wins[0][0], melds, wins[0][1], False, 1, 0, 1, dm, 0, 0, 0, 0, 0)
    score_waits_nb(wins[0][0], melds, False, 1, 0, 1, dm, 0, 0, 0, 0, 0)
    ts, tw = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        for h, w in wins:
            score_nb(h, melds, w, True, 1, 0, 1, dm, 0, 0, 0, 0, 0)
        ts.append((time.perf_counter() - t) / len(wins) * 1e6)
        t = time.perf_counter()
        for h, _w in wins:
            score_waits_nb(h, melds, False, 1, 0, 1, dm, 0, 0, 0, 0, 0)
        tw.append((time.perf_counter() - t) / len(wins) * 1e6)
    res["score_us"] = _stats(ts)
    res["score_waits_us"] = _stats(tw)
    res["config"] = {"hands": n_hands, "repeats": repeats, "score_hands": len(wins),
                     "seed": seed, "numba_threads": 1}
    return res


def _winning_hands(rng, n, suit, honor):
    """n (13-tile closed tenpai hand, winning kind) pairs: random complete hands minus a tile."""
    from search.shanten import shanten_nb

    out = []
    while len(out) < n:
        counts = np.zeros(34, np.uint8)
        head = int(rng.integers(34))
        counts[head] += 2
        ok = True
        for _ in range(4):
            k = int(rng.integers(34))
            if k < 27 and k % 9 <= 6 and rng.random() < 0.6:
                counts[k:k + 3] += 1
            else:
                counts[k] += 3
        if counts.max() > 4 or shanten_nb(counts, suit, honor) != -1:
            ok = False
        if ok:
            w = int(rng.choice(np.flatnonzero(counts)))
            counts[w] -= 1
            out.append((counts, w))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=1_000_000, help="hands per shanten batch")
    ap.add_argument("--repeats", type=int, default=7, help="timed repeats (median/p90 over them)")
    ap.add_argument("--score-hands", type=int, default=2000, help="winning hands for the scorer")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.hands < 10 or args.repeats < 1 or args.score_hands < 1:
        print("error: --hands >= 10, --repeats >= 1, --score-hands >= 1", file=sys.stderr)
        return 2
    numba.set_num_threads(1)
    try:
        res = bench(args.hands, args.repeats, args.score_hands, args.seed)
    except MahjongError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            if k != "config":
                print(f"{k:28s} median {v['median']:9.1f}  p90 {v['p90']:9.1f}  min {v['min']:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
