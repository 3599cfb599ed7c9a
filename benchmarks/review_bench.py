"""Benchmark of ``player.review``: the time to review one seat of one real hanchan.

Reviews seat ``k mod 4`` of the ``k``-th phoenix game of ``../shared/data`` (Tenhou hanchan)
for ``--records`` games, after an untimed warm-up review (numba compilation, estimator
caches), and prints the median, p90 and maximum over the reviews of the wall-clock and CPU
time, with the decisions valued per review. Goal (issue 11): <= 10 s per hanchan seat on
one core. Pin to one core on a shared box:

    taskset -c 0 python benchmarks/review_bench.py             # table
    python benchmarks/review_bench.py --records 4 --json        # one JSON object
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

from game.records import read_events  # noqa: E402
from player.agents.mdp import MdpAgent  # noqa: E402
from player.review import review  # noqa: E402
from regressors.datasets import is_hanchan  # noqa: E402
from regressors.estimators import Estimators  # noqa: E402

PHOENIX = ROOT.parent / "shared" / "data" / "phoenix" / "mjlog"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=8, help="phoenix games to review, one seat each (default 8)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    paths = sorted(PHOENIX.glob("*.xml"))
    games = [read_events(p) for p in paths]
    games = [(p, g) for p, g in zip(paths, games) if is_hanchan(g)][:args.records + 1]
    est = Estimators.default()
    review(games[0][1], 0, agent=MdpAgent(estimators=est, hanchan=True))  # warm-up, untimed
    rows = []
    for k, (path, events) in enumerate(tqdm(games[1:], desc="review_bench", file=sys.stderr)):
        seat = k % 4
        c0, t0 = time.process_time(), time.perf_counter()
        rev = review(events, seat, agent=MdpAgent(estimators=est, hanchan=True))
        rows.append({"record": path.name, "seat": seat, "wall_s": time.perf_counter() - t0,
                     "cpu_s": time.process_time() - c0, "valued": rev["summary"]["valued"],
                     "decisions": rev["summary"]["decisions"] + rev["forced"]})
    out = {"reviews": len(rows), "load_avg": os.getloadavg()[0]}
    for key in ("wall_s", "cpu_s"):
        x = np.array([r[key] for r in rows])
        out[key] = {"median": float(np.median(x)), "p90": float(np.percentile(x, 90)), "max": float(x.max())}
    out["valued_median"] = float(np.median([r["valued"] for r in rows]))
    if args.json:
        print(json.dumps({**out, "rows": rows}, indent=1))
        return 0
    print(f"{len(rows)} hanchan seat reviews (load average {out['load_avg']:.2f}), "
          f"median {out['valued_median']:.0f} decisions valued a review")
    print(f"{'':8s} {'median':>8s} {'p90':>8s} {'max':>8s}")
    for key in ("wall_s", "cpu_s"):
        s = out[key]
        print(f"{key:8s} {s['median']:8.2f} {s['p90']:8.2f} {s['max']:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
