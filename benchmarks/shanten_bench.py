"""Speed of the numba shanten and scorer (anchors.md section 8; search_performance.md).

Prints the median, p90 and min over repeats of:

* ``shanten_batch_{13,14}``: ns per hand of ``shanten_batch`` on random 13- and 14-tile hands
  (input check included);
* ``incremental``: ns per evaluated hand in the loop of a search: for random 13-tile hands,
  every draw u and every discard v of the 14 tiles, ``apply_tile_nb`` then
  ``shanten_idx_nb`` (and the undo);
* ``score`` / ``score_waits``: us per call of ``score_nb`` and ``score_waits_nb`` on random
  winning / tenpai hands.

Each figure is given in wall time and in this thread's CPU time (``time.thread_time``): on a
loaded machine the CPU time sees through time spent descheduled. The load average and the
CPU affinity go with the figures (pin with ``taskset -c 0`` to keep to one core). JIT
compilation is excluded (warm-up).

    python benchmarks/shanten_bench.py --hands 1000000 --repeats 7 --json
    taskset -c 0 python benchmarks/shanten_bench.py --skip-score
"""
from __future__ import annotations

import argparse
import json
import os
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
def _draw_discard_idx(hands: np.ndarray, suit: np.ndarray, honor: np.ndarray):
    """Every (draw u, discard v) of each 13-tile hand by apply_tile_nb + shanten_idx_nb.

    Returns (checksum, hands evaluated). The held kinds are listed once per draw, as a
    search keeps them, so the loop does not branch over 34 kinds.
    """
    acc = 0
    cnt = 0
    held = np.empty(34, np.int64)
    for j in range(hands.shape[0]):
        hand = hands[j]
        idx = part_indices_nb(hand)
        for u in range(34):
            if hand[u] >= 4:
                continue
            hand[u] += 1
            apply_tile_nb(idx, u, 1)
            nh = 0
            for k in range(34):
                if hand[k] > 0:
                    held[nh] = k
                    nh += 1
            for i in range(nh):
                v = held[i]
                apply_tile_nb(idx, v, -1)
                acc += shanten_idx_nb(idx, suit, honor)
                apply_tile_nb(idx, v, 1)
            cnt += nh
            apply_tile_nb(idx, u, -1)
            hand[u] -= 1
    return acc, cnt


def _stats(xs: list[float]) -> dict:
    a = np.asarray(xs)
    return {"median": float(np.median(a)), "p90": float(np.percentile(a, 90)),
            "min": float(a.min())}


def _timed(fn, per: float, repeats: int, scale: float) -> tuple[dict, dict]:
    """(wall, cpu) stats of ``fn()`` over repeats, each divided by ``per`` and times ``scale``."""
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.thread_time()
        fn()
        cpu.append((time.thread_time() - c) / per * scale)
        wall.append((time.perf_counter() - w) / per * scale)
    return _stats(wall), _stats(cpu)


def bench(n_hands: int, repeats: int, n_score: int, seed: int, incremental_hands: int,
          skip_score: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    suit, honor = tables()
    res: dict = {"load_before": list(os.getloadavg())}
    for size in (13, 14):
        hands = random_hands(rng, n_hands, size)
        shanten_batch(hands[:10])
        res[f"shanten_batch_{size}_ns"], res[f"shanten_batch_{size}_cpu_ns"] = _timed(
            lambda: shanten_batch(hands), n_hands, repeats, 1e9)
    starts = random_hands(rng, incremental_hands, 13)
    _draw_discard_idx(starts[:2].copy(), suit, honor)
    _, count = _draw_discard_idx(starts, suit, honor)
    res["incremental_ns"], res["incremental_cpu_ns"] = _timed(
        lambda: _draw_discard_idx(starts, suit, honor), count, repeats, 1e9)
    res["incremental_hands_per_repeat"] = int(count)
    if not skip_score:
        _bench_scorer(rng, n_score, repeats, suit, honor, res)
    res["load_after"] = list(os.getloadavg())
    res["config"] = {"hands": n_hands, "repeats": repeats, "score_hands": n_score,
                     "incremental_starts": incremental_hands, "seed": seed, "numba_threads": 1,
                     "cpus": sorted(os.sched_getaffinity(0))}
    return res


def _bench_scorer(rng, n_score, repeats, suit, honor, res) -> None:
    # winning hands found among random tenpai-ish hands by the waits table
    wins = _winning_hands(rng, n_score, suit, honor)
    melds = np.zeros((0, 2), np.int64)
    dm = np.zeros(34, np.uint8)
    dm[int(rng.integers(34))] = 1
    score_nb(wins[0][0], melds, wins[0][1], False, 1, 0, 1, dm, 0, 0, 0, 0, 0)
    score_waits_nb(wins[0][0], melds, False, 1, 0, 1, dm, 0, 0, 0, 0, 0)

    def score_all():
        for h, w in wins:
            score_nb(h, melds, w, True, 1, 0, 1, dm, 0, 0, 0, 0, 0)

    def waits_all():
        for h, _w in wins:
            score_waits_nb(h, melds, False, 1, 0, 1, dm, 0, 0, 0, 0, 0)

    res["score_us"], res["score_cpu_us"] = _timed(score_all, len(wins), repeats, 1e6)
    res["score_waits_us"], res["score_waits_cpu_us"] = _timed(waits_all, len(wins), repeats, 1e6)


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
    ap.add_argument("--incremental-hands", type=int, default=2000,
                    help="13-tile starts for the incremental loop (about 400 (u, v) hands each)")
    ap.add_argument("--repeats", type=int, default=7, help="timed repeats (median/p90 over them)")
    ap.add_argument("--score-hands", type=int, default=2000, help="winning hands for the scorer")
    ap.add_argument("--skip-score", action="store_true", help="time the shanten only")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.hands < 10 or args.repeats < 1 or args.score_hands < 1 or args.incremental_hands < 2:
        print("error: --hands >= 10, --repeats >= 1, --score-hands >= 1, "
              "--incremental-hands >= 2", file=sys.stderr)
        return 2
    numba.set_num_threads(1)
    try:
        res = bench(args.hands, args.repeats, args.score_hands, args.seed,
                    args.incremental_hands, args.skip_score)
    except MahjongError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res))
        return 0
    load = ", ".join(f"{x:.2f}" for x in res["load_before"] + res["load_after"][:1])
    print(f"load average (1, 5, 15 min before; 1 min after): {load}; "
          f"cpus {res['config']['cpus']}")
    for k, v in res.items():
        if isinstance(v, dict) and "median" in v:
            print(f"{k:30s} median {v['median']:9.1f}  p90 {v['p90']:9.1f}  min {v['min']:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
