"""Benchmark of one MDP decision: reduced hand graph + solves, on situations from real play.

Situations are the draws of the real Tenhou games in ``shared/data/phoenix/mjlog`` (any stage
of a hand, closed or open, shanten 0-3), read with ``game.records.read_events`` and stored once,
seeded, in ``benchmarks/data/situations.npz`` (``--make`` rebuilds it). Each decision builds the
graph with the default ``d`` schedule and state budget, its horizon the decision's longest solve
(hands that cannot be reached in time are left out), and solves it as the paper's Sec. VII
does: PSM (Method 1) at shanten 0-1, WSM + TSM + FSM (Method 2 features) at shanten 2-3.
Calls (the default ``m`` schedule, Eq. 10) and riichi twins (closed 14-tile roots) are on, as
the player uses them; ``--closed`` turns both off (the figures before calls). Parameters are
plausible constants (the estimators are not part of this benchmark). Times are wall-clock and,
beside them, the CPU time of the thread (steadier on a shared machine). The machine's load
average is printed with the table: pin the run to one core (``taskset -c 0``) on a shared box.

    taskset -c 0 python benchmarks/search_bench.py            # table of median / p90 / p99
    python benchmarks/search_bench.py --json                  # one JSON object
    python benchmarks/search_bench.py --closed                # no calls, no riichi
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstractions import MDPParams, RiichiParams, fsm_closed_form, solve_psm, solve_tsm, solve_wsm  # noqa: E402
from game.errors import MahjongError  # noqa: E402
from game.tiles import mjai_to_kind  # noqa: E402
from search.hand_graph import build_graph  # noqa: E402
from search.shanten import shanten_batch  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "phoenix" / "mjlog"
SITUATIONS = ROOT / "benchmarks" / "data" / "situations.npz"
LIVE_WALL = 70


def _situations_of(events: list[dict]):
    """(concealed counts after a draw, unseen counts, tiles left) at every draw of every seat."""
    for e in events:
        if e["type"] == "start_kyoku":
            hands = [np.zeros(34, np.int64) for _ in range(4)]
            for s, tehai in enumerate(e["tehais"]):
                for name in tehai:
                    if name != "?":
                        hands[s][mjai_to_kind(name)] += 1
            visible = np.zeros(34, np.int64)  # seen by everyone: discards, called tiles, dora markers
            visible[mjai_to_kind(e["dora_marker"])] += 1
            draws, riichi = 0, [False] * 4
        elif e["type"] == "tsumo":
            a = e["actor"]
            hands[a][mjai_to_kind(e["pai"])] += 1
            draws += 1
            if not riichi[a]:
                unseen = 4 - hands[a] - visible
                yield hands[a].copy(), np.maximum(unseen, 0), LIVE_WALL - draws
        elif e["type"] == "dahai":
            k = mjai_to_kind(e["pai"])
            hands[e["actor"]][k] -= 1
            visible[k] += 1
        elif e["type"] in ("chi", "pon", "daiminkan", "ankan", "kakan"):
            for name in e["consumed"]:
                k = mjai_to_kind(name)
                hands[e["actor"]][k] -= 1
                visible[k] += 1
            if e["type"] == "kakan":
                hands[e["actor"]][mjai_to_kind(e["pai"])] -= 1
                visible[mjai_to_kind(e["pai"])] += 1
        elif e["type"] == "dora":
            visible[mjai_to_kind(e["dora_marker"])] += 1
        elif e["type"] == "reach_accepted":
            riichi[e["actor"]] = True


def make_situations(n: int, seed: int) -> dict[str, np.ndarray]:
    from game.records import read_events

    rows = []
    for path in tqdm(sorted(DATA.glob("*.xml")), desc="records", file=sys.stderr):
        try:
            events = read_events(path)
        except MahjongError as err:
            print(f"skip {err}", file=sys.stderr)
            continue
        # a few records hide tiles or lose track of kans: skip hands that are not legal
        rows += [r for r in _situations_of(events) if r[0].min() >= 0 and r[0].max() <= 4 and r[0].sum() % 3 == 2]
    hands = np.array([r[0] for r in rows], np.uint8)
    unseen = np.array([r[1] for r in rows], np.uint8)
    left = np.array([r[2] for r in rows], np.int16)
    # shanten of the best discard (the 13-tile hands the graph starts from)
    best = np.full(len(hands), 99)
    for k in range(34):
        has = hands[:, k] > 0
        h13 = hands[has].copy()
        h13[:, k] -= 1
        best[has] = np.minimum(best[has], shanten_batch(h13))
    keep = np.flatnonzero((best >= 0) & (best <= 3) & (hands.astype(int) + unseen <= 4).all(1))
    pick = np.sort(np.random.default_rng(seed).choice(keep, size=min(n, len(keep)), replace=False))
    return {"hands": hands[pick], "unseen": unseen[pick], "tiles_left": left[pick], "shanten": best[pick].astype(np.int8)}


def _params(unseen: np.ndarray, tiles_left: int, riichi: bool, calls: bool) -> tuple[MDPParams, int]:
    t_max = 1 + max(0, int(tiles_left)) // 4
    w = unseen.astype(float)
    p_lose = 0.04 * (w > 0) + 0.02 * (np.arange(34) >= 27)
    # after a riichi the others fold a little: fewer other wins; the stick costs 0.1
    rp = RiichiParams(stick=0.1, payoff=2.6, p_other=0.045) if riichi else None
    p = MDPParams(T=max(1, round(0.7 * t_max)), p_lose=p_lose, u_lose=np.full(34, -3.0), p_other=0.06,
                  u_other=-0.4, p_end=0.0, u_tw=0.1, u_nw=-0.3, payoff=2.0, fsm_p=0.1, riichi=rp, calls=calls)
    return p, t_max


def decide(hand: np.ndarray, unseen: np.ndarray, tiles_left: int, shanten: int,
           closed: bool = False) -> tuple[int, float, float, float]:
    """One decision: (states, build ms, solve ms, CPU ms of the whole decision).

    Wall-clock times include waiting for the core on a loaded machine; the CPU time of this
    thread does not, so it is the steadier figure on a shared machine. A root with fewer than
    14 tiles has called before: no riichi (its melds are not stored, so its calls are bounded
    only by its tiles).
    """
    c0 = time.thread_time()
    t0 = time.perf_counter()
    riichi = not closed and int(hand.sum()) == 14
    p, t_max = _params(unseen, tiles_left, riichi, not closed)
    # the graph's horizon: the longest solve of this decision (TSM runs to T_max)
    g = build_graph(hand, unseen, horizon=p.T if shanten <= 1 else t_max, m=0 if closed else None, riichi=riichi)
    t1 = time.perf_counter()
    if shanten <= 1:
        solve_psm(g, p)
    else:
        solve_wsm(g, p)
        p.T = t_max
        solve_tsm(g, p)
        for t in np.flatnonzero(hand):
            h = hand.copy()
            h[t] -= 1
            fsm_closed_form(h, p.p_lose, p.u_lose, p=p.fsm_p, u_other=p.u_other, u_end=p.u_nw, T=p.T)
    t2 = time.perf_counter()
    return g.n_states, 1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (time.thread_time() - c0)


def shanten_ns(n: int = 1_000_000, seed: int = 0, repeats: int = 5) -> float:
    rng = np.random.default_rng(seed)
    hands = np.zeros((n, 34), np.uint8)
    for i in range(14):
        np.add.at(hands, (np.arange(n), rng.integers(0, 34, n)), 1)
    hands = hands[(hands <= 4).all(1)]
    shanten_batch(hands[:10])
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        shanten_batch(hands)
        times.append((time.perf_counter() - t) / len(hands) * 1e9)
    return float(np.median(times))


def _pct(x: np.ndarray) -> dict[str, float]:
    return {"median": float(np.median(x)), "p90": float(np.percentile(x, 90)), "p99": float(np.percentile(x, 99)),
            "max": float(np.max(x))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--make", action="store_true", help="rebuild benchmarks/data/situations.npz from the mjlogs")
    ap.add_argument("--n", type=int, default=1200, help="situations to store with --make (default 1200)")
    ap.add_argument("--seed", type=int, default=20240601, help="sampling seed for --make")
    ap.add_argument("--limit", type=int, default=0, help="use only the first N situations (0 = all)")
    ap.add_argument("--closed", action="store_true", help="no calls and no riichi twins (m = 0)")
    args = ap.parse_args(argv)
    try:
        if args.make or not SITUATIONS.exists():
            np.savez_compressed(SITUATIONS, **make_situations(args.n, args.seed))
        data = np.load(SITUATIONS)
        hands, unseen, left, sh = data["hands"], data["unseen"], data["tiles_left"], data["shanten"]
        if args.limit:
            hands, unseen, left, sh = hands[:args.limit], unseen[:args.limit], left[:args.limit], sh[:args.limit]
        decide(hands[0], unseen[0], int(left[0]), int(sh[0]), args.closed)  # JIT warm-up
        decide(hands[sh == 3][0], unseen[sh == 3][0], 40, 3, args.closed)
        rows = [decide(h, u, int(t), int(s), args.closed) for h, u, t, s in
                tqdm(list(zip(hands, unseen, left, sh)), desc="decisions", file=sys.stderr)]
    except MahjongError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    states, build, solve, cpu = (np.array(c, float) for c in zip(*rows))
    total = build + solve
    out = {"situations": len(rows), "calls_and_riichi": not args.closed, "load_average": os.getloadavg(),
           "decision_ms_median": float(np.median(total)),
           "decision_ms_p90": float(np.percentile(total, 90)), "decision_ms_p99": float(np.percentile(total, 99)),
           "states_median": float(np.median(states)), "states_max": int(states.max()),
           "build_ms": _pct(build), "solve_ms": _pct(solve), "decision_ms": _pct(total), "cpu_ms": _pct(cpu),
           "states": _pct(states),
           "by_shanten": {int(s): {"n": int((sh == s).sum()), "decision_ms": _pct(total[sh == s]),
                                   "cpu_ms": _pct(cpu[sh == s]), "states": _pct(states[sh == s])}
                          for s in np.unique(sh)},
           "shanten_ns_per_hand": shanten_ns()}
    if args.json:
        print(json.dumps(out))
        return 0
    mode = "closed (no calls, no riichi)" if args.closed else "calls and riichi on"
    print(f"{out['situations']} decisions from real play, {mode}; load average "
          + " ".join(f"{x:.2f}" for x in out["load_average"]))
    print(f"{'':14}{'median':>10}{'p90':>10}{'p99':>10}{'max':>10}")
    for name in ("states", "build_ms", "solve_ms", "decision_ms", "cpu_ms"):
        r = out[name]
        print(f"{name:14}{r['median']:10.1f}{r['p90']:10.1f}{r['p99']:10.1f}{r['max']:10.1f}")
    for s, r in out["by_shanten"].items():
        dm, cm = r["decision_ms"], r["cpu_ms"]
        print(f"shanten {s}: n={r['n']:4d}  decision ms median {dm['median']:.1f} p90 {dm['p90']:.1f}"
              f" p99 {dm['p99']:.1f} (cpu {cm['median']:.1f} / {cm['p90']:.1f} / {cm['p99']:.1f})"
              f"  states median {r['states']['median']:.0f} max {r['states']['max']:.0f}")
    print(f"shanten_batch: {out['shanten_ns_per_hand']:.0f} ns/hand")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
