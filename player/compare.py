"""Paired comparison of two evaluate runs played on the same walls (an ablation).

    python -m player.compare runs/dev7_mdp runs/dev7_mdp-no-hazard [--json]
    python -m player.compare runs/r1_a,runs/r2_a runs/r1_b,runs/r2_b     # two wall sets pooled

Both runs must have the same seed (so game ``g`` has the same wall seed and player seat in
both); the games both hold are paired. Comma-separated lists pair the runs in order and pool
the pairs (each pair's walls its own blocks). Reported: each run's mean rank of the player on those
games, the mean of (rank in B - rank in A) with its standard error over wall seeds (the four
games of a block share a wall, so the block is the unit), the one-sided p that A is better,
and each run's per-hand win / deal-in / riichi / call rates.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

from game.cli import reports_errors
from game.errors import MahjongError
from player import stats
from player.evaluate import RESULTS, RUN_KEYS, read_results
from player.rundir import RUN, read_run


def _load(run: Path) -> tuple[dict, dict[int, dict]]:
    if not (run / RUN).is_file() or not (run / RESULTS).is_file():
        raise MahjongError(f"{run}: not an evaluate run directory (no {RUN} / {RESULTS})")
    return read_run(run, required=RUN_KEYS), read_results(run / RESULTS)[0]


def _paired(a: Path, b: Path) -> tuple[dict, dict, list[dict], list[dict]]:
    """The two runs' metadata and their results on the games both hold."""
    meta_a, res_a = _load(a)
    meta_b, res_b = _load(b)
    for key in ("seed", "hanchan", "vs", "walls"):  # walls: None for a run of an older evaluate
        if meta_a.get(key) != meta_b.get(key):
            raise MahjongError(f"the runs differ in {key!r} ({meta_a.get(key)!r} vs {meta_b.get(key)!r}): not paired")
    games = sorted(set(res_a) & set(res_b))
    if not games:
        raise MahjongError(f"{a} and {b} share no finished game")
    return meta_a, meta_b, [res_a[g] for g in games], [res_b[g] for g in games]


def compare(a: Path | list[Path], b: Path | list[Path]) -> dict:
    """B against A on the same walls; lists of runs are paired in order and pooled."""
    runs_a, runs_b = (a if isinstance(a, list) else [a]), (b if isinstance(b, list) else [b])
    if len(runs_a) != len(runs_b):
        raise MahjongError(f"{len(runs_a)} runs for A and {len(runs_b)} for B: not paired")
    pairs = [_paired(x, y) for x, y in zip(runs_a, runs_b)]
    meta_a, meta_b = pairs[0][0], pairs[0][1]
    for m_a, m_b, *_ in pairs[1:]:
        if (m_a.get("player"), m_b.get("player"), m_a.get("vs"), m_a.get("hanchan")) != (
                meta_a.get("player"), meta_b.get("player"), meta_a.get("vs"), meta_a.get("hanchan")):
            raise MahjongError("the pooled pairs must play the same A, B, opponents and game length")
    res = {"a": [r for p in pairs for r in p[2]], "b": [r for p in pairs for r in p[3]]}
    rank = {name: np.array([r["ranks"][r["player_seat"]] for r in rs], dtype=float) for name, rs in res.items()}
    blocks = np.array([(i, r["block"]) for i, p in enumerate(pairs) for r in p[2]])
    _, blocks = np.unique(blocks, axis=0, return_inverse=True)
    diff = stats.block_means(rank["b"] - rank["a"], blocks.ravel())
    test = stats.t_test_zero(diff)
    out = {"a": ",".join(map(str, runs_a)), "b": ",".join(map(str, runs_b)),
           "player_a": meta_a.get("player"), "player_b": meta_b.get("player"),
           "games": len(rank["a"]), "blocks": int(len(diff)),
           "mean_rank_a": float(rank["a"].mean()), "mean_rank_b": float(rank["b"].mean()),
           "diff_b_minus_a": test.mean_diff, "se": test.se_diff, "p_one_sided_a_better": test.p_one_sided}
    for name, rs in res.items():
        side = stats.summarize(rs, hanchan=bool(meta_a.get("hanchan")))["player_stats"]
        rates = {k: side[k] for k in ("win_rate", "deal_in_rate", "riichi_rate", "call_rate")}
        if side["points_per_win"] is not None:  # NaN (no win, no deal-in) as None: strict JSON
            rates.update({k: side[k] if math.isfinite(side[k]) else None
                          for k in ("points_per_win", "points_per_deal_in")})
        out[f"rates_{name}"] = rates
    return out


def format_report(c: dict) -> str:
    # both runs' records must hold the points (runs begun before session 42 have none)
    points = all("points_per_win" in c[f"rates_{x}"] for x in ("a", "b"))
    lines = [f"{c['games']} paired games ({c['blocks']} wall seeds)",
             f"A {c['player_a']:<40} mean rank {c['mean_rank_a']:.3f}",
             f"B {c['player_b']:<40} mean rank {c['mean_rank_b']:.3f}",
             f"B - A: {c['diff_b_minus_a']:+.4f} +- {c['se']:.4f}; "
             f"p one-sided (A better) = {c['p_one_sided_a_better']:.4g}",
             f"{'per hand':<10}{'win':>8}{'deal-in':>9}{'riichi':>8}{'call':>8}"
             + (f"{'points/win':>12}{'points/deal-in':>16}" if points else "")]
    for name in ("a", "b"):
        r = c[f"rates_{name}"]
        lines.append(f"{name.upper():<10}{r['win_rate']:>8.3f}{r['deal_in_rate']:>9.3f}{r['riichi_rate']:>8.3f}"
                     f"{r['call_rate']:>8.3f}"
                     + (stats.points_column(r["points_per_win"], 12) + stats.points_column(r["points_per_deal_in"], 16)
                        if points else ""))
    return "\n".join(lines)


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m player.compare", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="the first run directory (A), or a comma-separated list of them")
    ap.add_argument("b", help="the second run directory (B), same seed; a list pairs A's in order")
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = ap.parse_args(argv)
    c = compare([Path(x) for x in args.a.split(",")], [Path(x) for x in args.b.split(",")])
    print(json.dumps(c, indent=1) if args.json else format_report(c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
