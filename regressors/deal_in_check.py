"""The deal-in estimates of the discards a player really made, against what happened.

    python -m regressors.deal_in_check --records 'runs/x/logs/*.mjson.gz' --name mdp [--json]

At every discard of the seats named ``--name`` (every seat without it) that were not in
riichi, Eq. 20's ``P_L`` of the discarded kind (``Estimators.decision``) is summed against
the discards that were ronned, by how many opponents were in riichi then (0, 1, 2+); and at
every deal-in the win-value estimate of the hand that ronned (``win_value``, its expected
points) against the points paid, and the same split by whether the hand that ronned was in
riichi. ``P_L`` counts every discard of a tenpai hand's wait as a
ron; ``regressors.hazard.replay_rates`` says how many the records' hands really ron.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from game.cli import reports_errors
from game.errors import MahjongError
from regressors.estimators import DEFAULT_DIR, Estimators


def check(paths: list[str], est: Estimators, name: str | None = None) -> dict:
    """Predicted and realised deal-ins (by opponents in riichi) and deal-in costs."""
    from game.records import player_names, read_events
    from game.state import TableState, seat_view
    from game.tiles import mjai_to_kind

    by = {k: [0.0, 0, 0] for k in ("0", "1", "2+")}  # predicted, ronned, discards
    cost: list[tuple[float, int]] = []
    for path in paths:
        events = read_events(path)
        names = player_names(events)
        for s in [s for s in range(4) if name is None or names[s] == name]:
            view = TableState(s)
            for i, e in enumerate(events):
                if e.get("type") == "dahai" and e.get("actor") == s and not view.riichi[s]:
                    d = est.decision(view)
                    nxt = next((x for x in events[i + 1:] if x.get("type") != "reach_accepted"), {})
                    ron = nxt.get("type") == "hora" and nxt.get("target") == s and nxt.get("actor") != s
                    cell = by[("0", "1", "2+")[min(sum(view.riichi[j] for j in range(4) if j != s), 2)]]
                    cell[0] += float(d.p_lose[mjai_to_kind(e["pai"])])
                    cell[1] += int(ron)
                    cell[2] += 1
                    if ron:
                        cost.append((float(d.win_value[nxt["actor"]]), -int(nxt["deltas"][s]),
                                     int(view.riichi[nxt["actor"]])))
                view.update(seat_view(e, s))
    if not sum(c[2] for c in by.values()):
        raise MahjongError(f"no discard of a seat named {name!r} in the records")
    c = np.array(cost, dtype=float).reshape(-1, 3)
    return {"records": len(paths), "name": name,
            "by_riichi_opponents": {k: {"discards": n, "predicted": round(p, 1), "ronned": r}
                                    for k, (p, r, n) in by.items()},
            **_costs(c),
            "by_ronner": {who: _costs(c[c[:, 2] == flag]) for who, flag in (("riichi", 1), ("not_riichi", 0))}}


def _costs(c: np.ndarray) -> dict:
    """Deal-ins, mean win-value estimate and mean points paid of rows ``(estimate, paid, ...)``."""
    return {"deal_ins": len(c), "win_value_predicted": round(float(c[:, 0].mean()), 0) if len(c) else None,
            "points_paid": round(float(c[:, 1].mean()), 0) if len(c) else None}


@reports_errors
def main(argv: list[str] | None = None) -> int:
    from game.records import iter_record_files

    ap = argparse.ArgumentParser(prog="python -m regressors.deal_in_check", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, nargs="+", help="glob(s) or paths of records")
    ap.add_argument("--name", default=None, help="only the seats of this player name (default: every seat)")
    ap.add_argument("--models", default=str(DEFAULT_DIR), help="LR model directory (default: shipped)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    paths = [str(p) for p in iter_record_files(args.records)]
    if not paths:
        raise MahjongError(f"no record files match {' '.join(args.records)}")
    out = check(paths, Estimators.load(args.models), args.name)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['records']} records, seats {args.name or 'all'}: immediate deal-ins of the discards made")
    for k, r in out["by_riichi_opponents"].items():
        print(f"  {k:>2} opponents in riichi: {r['discards']:7d} discards, P_L summed {r['predicted']:8.1f}, ronned {r['ronned']:5d}")
    print(f"  {out['deal_ins']} deal-ins: win value of the hand that ronned {out['win_value_predicted']}, paid {out['points_paid']}")
    for who, r in out["by_ronner"].items():
        print(f"    into a hand {who.replace('_', ' ')}: {r['deal_ins']} deal-ins, win value {r['win_value_predicted']}, paid {r['points_paid']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
