"""Scaling benchmark of the search core: build and solves of 20k, 50k and 100k-state graphs.

Issue 9 asks for the paper's graph sizes (about 50,000 states a decision) at a cost linear in
the states. The graphs come from the real situations of ``benchmarks/data/situations.npz``
(``search_bench.py``), built with more depth than the player's defaults so that they reach the
sizes: in the order of the file, each situation of shanten 2 or 3 is built with each of
``CONFIGS`` (``d``, ``m``; calls and riichi twins on as the player uses them; the horizon of
the decision's PSM) until every size band holds ``--per-band`` graphs. Each graph is then
timed phase by phase, CPU time of the thread: the build, PSM (the first solve of a graph also
groups its draws, a per-graph cost), WSM and TSM (same ``T``: the graph's horizon), and the
states per second of each. PSM is solved twice, each time the first solve of a fresh build of
the graph: at every (state, turn) pair with the ending probabilities tracked (``psm``), and as
the player's Method 1 decision solves it (``psm_root``: the pairs the root's actions read, the
values alone; ``player/agents/mdp.py`` solves for the endings only when they are read). ``--peak`` measures the peak memory of one decision of the 100k
band in a fresh process (the high-water mark of the resident set, reset after the JIT warm-up:
numpy's and numba's arrays are invisible to tracemalloc) beside the bytes of the graph's arrays.

    taskset -c 1 python benchmarks/search_scale.py            # table per band
    taskset -c 1 python benchmarks/search_scale.py --json     # one JSON object
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstractions import solve_psm, solve_tsm, solve_wsm  # noqa: E402
from benchmarks.search_bench import SITUATIONS, _params  # noqa: E402
from game.errors import MahjongError  # noqa: E402
from search.hand_graph import build_graph  # noqa: E402
from search.retrograde import draw_groups  # noqa: E402

#: Size bands (target states: lower, upper bound) of the graphs.
BANDS = {20_000: (15_000, 27_000), 50_000: (38_000, 65_000), 100_000: (80_000, 130_000)}
#: (root shanten, d, m) tried in this order on every situation (a graph past the largest band
#: is cut down by ``build_graph``'s budget rule; the d and m it kept are reported).
CONFIGS = ((1, 3, 1), (2, 3, 1), (3, 4, 1), (2, 4, 1))
PHASES = ("build", "psm", "wsm", "tsm", "psm_root")
#: Each band's sums of phases: a decision's build and its PSM, every pair tracked or as the player solves it.
TOTALS = {"build+psm": ("build", "psm"), "build+psm_root": ("build", "psm_root")}


def _build(hand, unseen, tiles_left, d, m):
    p, _ = _params(unseen, tiles_left, int(hand.sum()) == 14, True)
    g = build_graph(hand, unseen, d=d, m=m, horizon=p.T, max_states=BANDS[100_000][1],
                    riichi=int(hand.sum()) == 14)
    return g, p


def pick(per_band: int) -> list[tuple[int, int, int, int]]:
    """``(situation, d, m, states)`` of the first graphs of each band, in the file's order."""
    data = np.load(SITUATIONS)
    hands, unseen, left, sh = data["hands"], data["unseen"], data["tiles_left"], data["shanten"]
    chosen: dict[int, list] = {b: [] for b in BANDS}
    for i in range(len(hands)):
        for s, d, m in CONFIGS:
            if sh[i] != s:
                continue
            g, _ = _build(hands[i], unseen[i], int(left[i]), d, m)
            if any(x[0] == i and x[3] == g.n_states for v in chosen.values() for x in v):
                continue  # a deeper config cut back by the budget to a graph already chosen
            for b, (lo, hi) in BANDS.items():
                if lo <= g.n_states <= hi and len(chosen[b]) < per_band:
                    chosen[b].append((i, d, m, g.n_states))
                    break
            if all(len(v) >= per_band for v in chosen.values()):
                return [x for b in BANDS for x in chosen[b]]
    return [x for b in BANDS for x in chosen[b]]


def time_one(i: int, d: int, m: int) -> dict:
    """CPU ms of each phase of one decision, and its graph's sizes."""
    data = np.load(SITUATIONS)
    hand, unseen, left = data["hands"][i], data["unseen"][i], int(data["tiles_left"][i])
    c0 = time.thread_time()
    g, p = _build(hand, unseen, left, d, m)
    c1 = time.thread_time()
    solve_psm(g, p)
    c2 = time.thread_time()
    solve_wsm(g, p)
    c3 = time.thread_time()
    solve_tsm(g, p)
    c4 = time.thread_time()
    g, p = _build(hand, unseen, left, d, m)  # a fresh graph: its draws grouped again
    c5 = time.thread_time()
    solve_psm(g, p, root_only=True, track=False)
    c6 = time.thread_time()
    ms = np.append(1e3 * np.diff([c0, c1, c2, c3, c4]), 1e3 * (c6 - c5))
    return {"situation": i, "d": g.d, "m": g.m, "T": p.T, "states": g.n_states, "open": g.n_open, "twins": g.n_twins,
            "draws": int(g.draw_tile.shape[0]), "edges": g.n_edges, "calls": g.n_calls,
            **{f"{ph}_ms": float(x) for ph, x in zip(PHASES, ms)}}


def _nbytes(g) -> tuple[int, int]:
    """Bytes of the graph's arrays and of its cached draw groups."""
    graph = sum(v.nbytes for v in vars(g).values() if isinstance(v, np.ndarray))
    groups = sum(v.nbytes for v in draw_groups(g) if isinstance(v, np.ndarray))
    return graph, groups


def _vm(field: str) -> float:
    """A ``/proc/self/status`` memory figure in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise MahjongError(f"/proc/self/status: no {field}")


def peak(i: int, d: int, m: int) -> dict:
    """Peak resident memory of one decision (build + PSM + WSM + TSM) above the warm process.

    The process's high-water mark is reset after the warm-up (``/proc/self/clear_refs``), so
    the peak is the decision's own."""
    data = np.load(SITUATIONS)
    small = int(np.flatnonzero(data["shanten"] == 2)[0])
    time_one(small, 3, 1)  # JIT warm-up (compiled code, tables)
    Path("/proc/self/clear_refs").write_text("5")
    before = _vm("VmRSS")
    hand, unseen, left = data["hands"][i], data["unseen"][i], int(data["tiles_left"][i])
    g, p = _build(hand, unseen, left, d, m)
    solve_psm(g, p)
    after_psm = _vm("VmHWM")
    solve_wsm(g, p)
    solve_tsm(g, p)
    graph, groups = _nbytes(g)
    return {"situation": i, "states": g.n_states, "graph_mb": graph / 2**20, "groups_mb": groups / 2**20,
            "peak_rss_delta_mb_psm": after_psm - before, "peak_rss_delta_mb": _vm("VmHWM") - before,
            "rss_warm_mb": before}


def _pct(x) -> dict[str, float]:
    x = np.asarray(x, float)
    return {"median": float(np.median(x)), "p90": float(np.percentile(x, 90)), "max": float(x.max())}


def scaling(rows: list[dict]) -> dict[str, dict[str, list[float]]]:
    """The exponent of the states in each phase's cost, ``ms ~ states^alpha`` (log-log least
    squares over every graph, ``[alpha, its standard error]``): alone (``states``), and with the
    graph's horizon ``T`` and its draws and edges per state as further regressors
    (``states_at_shape``). The bands come from different situations, and the larger graphs have
    longer horizons and more edges a state (deeper open hands), work that a graph of the same
    shape but more states would not have: the second exponent is the growth in the states
    alone, ``alpha <= 1`` being no faster than linear. The third (``states_at_shape_closed``)
    also holds the closed states' share fixed: they cost the build most (its breadth-first
    search over exchanges), and the larger real graphs hold more of them."""
    st = np.array([r["states"] for r in rows], float)
    shape = [np.log([r["T"] for r in rows]), np.log([(r["draws"] + r["edges"]) / r["states"] for r in rows])]
    closed = [np.log([(r["states"] - r["open"] - r["twins"]) / r["states"] for r in rows])]
    out: dict[str, dict[str, list[float]]] = {}
    for ph in PHASES + tuple(TOTALS):
        y = np.log([sum(r[f"{x}_ms"] for x in TOTALS.get(ph, (ph,))) for r in rows])
        out[ph] = {}
        for name, cols in (("states", []), ("states_at_shape", shape), ("states_at_shape_closed", shape + closed)):
            x = np.column_stack([np.ones_like(st), np.log(st), *cols])
            if len(y) <= x.shape[1]:
                continue
            beta = np.linalg.lstsq(x, y, rcond=None)[0]
            res = y - x @ beta
            cov = res @ res / (len(y) - x.shape[1]) * np.linalg.inv(x.T @ x)
            out[ph][name] = [float(beta[1]), float(np.sqrt(cov[1, 1]))]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-band", type=int, default=5, help="graphs per size band (default 5)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--no-peak", action="store_true", help="skip the peak-memory run")
    ap.add_argument("--peak", nargs=3, type=int, metavar=("SITUATION", "D", "M"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.per_band < 1:
        print("error: --per-band must be >= 1", file=sys.stderr)
        return 2
    try:
        if args.peak:
            print(json.dumps(peak(*args.peak)))
            return 0
        data = np.load(SITUATIONS)
        small = int(np.flatnonzero(data["shanten"] == 2)[0])
        time_one(small, 3, 1)  # JIT warm-up
        chosen = pick(args.per_band)
        rows = [time_one(i, d, m) for i, d, m, _ in chosen]
    except MahjongError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out: dict = {"load_average": os.getloadavg(), "graphs": rows, "bands": {}}
    for b, (lo, hi) in BANDS.items():
        sel = [r for r in rows if lo <= r["states"] <= hi]
        if not sel:
            continue
        st = np.array([r["states"] for r in sel], float)
        band = {"n": len(sel), "states": _pct(st)}
        for ph in PHASES + tuple(TOTALS):
            ms = np.array([sum(r[f"{x}_ms"] for x in TOTALS.get(ph, (ph,))) for r in sel])
            band[ph] = {"ms": _pct(ms), "us_per_state": _pct(1e3 * ms / st),
                        "states_per_s": float(st.sum() / ms.sum() * 1e3)}
        out["bands"][b] = band
    out["scaling"] = scaling(rows)
    big = [r for r in rows if BANDS[100_000][0] <= r["states"] <= BANDS[100_000][1]]
    if big and not args.no_peak:
        r = big[0]
        res = subprocess.run([sys.executable, __file__, "--peak", str(r["situation"]), str(r["d"]), str(r["m"])],
                             capture_output=True, text=True, check=True)
        out["peak"] = json.loads(res.stdout)
    if args.json:
        print(json.dumps(out))
        return 0
    print("load average " + " ".join(f"{x:.2f}" for x in out["load_average"]) + "; CPU time of one core")
    print(f"{'band':>8}{'n':>3}{'states':>9}  " + "".join(f"{ph + ' ms':>15}{'us/st':>7}" for ph in PHASES)
          + "".join(f"{t + ' ms':>20}{'p90':>7}" for t in TOTALS))
    for b, band in out["bands"].items():
        line = f"{b:>8}{band['n']:>3}{band['states']['median']:>9.0f}  "
        for ph in PHASES:
            line += f"{band[ph]['ms']['median']:>15.1f}{band[ph]['us_per_state']['median']:>7.2f}"
        for t in TOTALS:
            line += f"{band[t]['ms']['median']:>20.1f}{band[t]['ms']['p90']:>7.1f}"
        print(line)
    print("states/s (all graphs of a band): " + "; ".join(
        f"{b}: " + ", ".join(f"{ph} {band[ph]['states_per_s'] / 1e6:.2f}M" for ph in PHASES)
        for b, band in out["bands"].items()))
    print("exponent of the states (ms ~ states^a, +- SE; alone / at a fixed horizon and edges a state / and closed "
          "share): " + "; ".join(
        f"{ph} " + " / ".join(f"{a:.2f} +- {se:.2f}" for a, se in fit.values()) for ph, fit in out["scaling"].items()))
    if "peak" in out:
        pk = out["peak"]
        print(f"peak memory of a {pk['states']}-state decision: +{pk['peak_rss_delta_mb']:.0f} MB resident "
              f"(+{pk['peak_rss_delta_mb_psm']:.0f} MB after build + PSM), graph arrays {pk['graph_mb']:.0f} MB, "
              f"draw groups {pk['groups_mb']:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
