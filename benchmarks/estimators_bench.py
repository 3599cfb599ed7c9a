"""Per-decision cost of the estimators on real phoenix positions (CPU unless CUDA is present).

    python benchmarks/estimators_bench.py [--decisions 200]

Prints median / p90 / p99 milliseconds of: the LR bundle's ``Estimators.decision`` (Eq. 20 with
the open-hand enumeration, hand end, horizon, win value), the CNN's ``predict`` on one view
(planes + forward pass), and the CNN on a batch of 16 views (per view).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog"


def _views(n: int):
    from regressors.datasets import read_record
    from regressors.replay import FullReplay

    out = []
    for path in sorted(DATA.glob("mjx__*.xml")):
        events = read_record(path)
        rep = FullReplay()
        for idx, e in enumerate(events):
            if e["type"] == "dahai":
                # the discarder's TableState, frozen so that each view keeps its own table
                out.append(rep.view(int(e["actor"])).copy())
                if len(out) >= n:
                    return out
            rep.update(e, idx)
    return out


def _stats(name: str, ms: list[float]) -> None:
    a = np.array(ms)
    print(f"{name:32s} median {np.median(a):7.3f} ms  p90 {np.percentile(a, 90):7.3f}  "
          f"p99 {np.percentile(a, 99):7.3f}  (n={len(a)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=200)
    args = ap.parse_args()
    from cnn.estimators import CnnEstimators
    from regressors.estimators import Estimators

    views = _views(args.decisions)
    lr = Estimators.default()
    cnn = CnnEstimators.default()
    for v in views:  # one untimed pass: numba compiles the enumeration on first use
        lr.decision(v)
    cnn.predict(views[:1])
    ms = []
    for v in views:
        t = time.perf_counter()
        lr.decision(v)
        ms.append(1000 * (time.perf_counter() - t))
    _stats("LR Estimators.decision", ms)
    ms = []
    for v in views:
        t = time.perf_counter()
        cnn.predict([v])
        ms.append(1000 * (time.perf_counter() - t))
    _stats(f"CNN predict, 1 view ({cnn.device})", ms)
    ms = []
    for s in range(0, len(views) - 15, 16):
        t = time.perf_counter()
        cnn.predict(views[s:s + 16])
        ms.append(1000 * (time.perf_counter() - t) / 16)
    _stats("CNN predict, batch 16 (per view)", ms)


if __name__ == "__main__":
    main()
