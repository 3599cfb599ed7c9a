"""Paired comparison of two evaluate runs played on the same walls (an ablation).

    python -m player.compare runs/dev7_mdp runs/dev7_mdp-no-hazard [--json]

Both runs must have the same seed (so game ``g`` has the same wall seed and player seat in
both); the games both hold are paired. Reported: each run's mean rank of the player on those
games, the mean of (rank in B - rank in A) with its standard error over wall seeds (the four
games of a block share a wall, so the block is the unit), the one-sided p that A is better,
and each run's per-hand win / deal-in / riichi / call rates.
"""
from __future__ import annotations

import argparse
import json
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


def compare(a: Path, b: Path) -> dict:
    meta_a, res_a = _load(a)
    meta_b, res_b = _load(b)
    for key in ("seed", "hanchan", "vs", "walls"):  # walls: None for a run of an older evaluate
        if meta_a.get(key) != meta_b.get(key):
            raise MahjongError(f"the runs differ in {key!r} ({meta_a.get(key)!r} vs {meta_b.get(key)!r}): not paired")
    games = sorted(set(res_a) & set(res_b))
    if not games:
        raise MahjongError("the runs share no finished game")
    rank = {name: np.array([r[g]["ranks"][r[g]["player_seat"]] for g in games], dtype=float)
            for name, r in (("a", res_a), ("b", res_b))}
    blocks = np.array([res_a[g]["block"] for g in games])
    diff = stats.block_means(rank["b"] - rank["a"], blocks)
    test = stats.t_test_zero(diff)
    out = {"a": str(a), "b": str(b), "player_a": meta_a.get("player"), "player_b": meta_b.get("player"),
           "games": len(games), "blocks": int(len(diff)),
           "mean_rank_a": float(rank["a"].mean()), "mean_rank_b": float(rank["b"].mean()),
           "diff_b_minus_a": test.mean_diff, "se": test.se_diff, "p_one_sided_a_better": test.p_one_sided}
    for name, r in (("a", res_a), ("b", res_b)):
        side = stats.summarize([r[g] for g in games], hanchan=bool(meta_a.get("hanchan")))["player_stats"]
        out[f"rates_{name}"] = {k: side[k] for k in ("win_rate", "deal_in_rate", "riichi_rate", "call_rate")}
    return out


def format_report(c: dict) -> str:
    lines = [f"{c['games']} paired games ({c['blocks']} wall seeds)",
             f"A {c['player_a']:<40} mean rank {c['mean_rank_a']:.3f}",
             f"B {c['player_b']:<40} mean rank {c['mean_rank_b']:.3f}",
             f"B - A: {c['diff_b_minus_a']:+.4f} +- {c['se']:.4f}; "
             f"p one-sided (A better) = {c['p_one_sided_a_better']:.4g}",
             f"{'per hand':<10}{'win':>8}{'deal-in':>9}{'riichi':>8}{'call':>8}"]
    for name in ("a", "b"):
        r = c[f"rates_{name}"]
        lines.append(f"{name.upper():<10}{r['win_rate']:>8.3f}{r['deal_in_rate']:>9.3f}{r['riichi_rate']:>8.3f}"
                     f"{r['call_rate']:>8.3f}")
    return "\n".join(lines)


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m player.compare", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="the first run directory (A)")
    ap.add_argument("b", help="the second run directory (B), same seed")
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = ap.parse_args(argv)
    c = compare(Path(args.a), Path(args.b))
    print(json.dumps(c, indent=1) if args.json else format_report(c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
