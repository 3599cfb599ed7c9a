"""Train every LR estimator from a glob of records and write their plain-file parameters.

    python -m regressors.train --records 'runs/selfplay/*.mjson.gz' --out regressors/models

The dataset is built once (replaying each record) and cached as ``OUT/dataset-<key>.npz``
(or ``--cache DIR``); later runs on the same files reuse it. A malformed or empty record set
exits with status 2 and a one-line error naming the file and position.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from game.cli import reports_errors
from game.errors import MahjongError
from regressors.datasets import Dataset, load_or_build
from regressors.deal_in import WaitHistogram
from regressors.estimators import Estimators
from regressors.final_rank import FinalRankModel
from regressors.hand_end import HandEndModel, HorizonModel, dataset_context
from regressors.hazard import HazardModel, replay_rates, ron_share_by_discarder
from regressors.payoffs import WinValueModel
from regressors.tenpai import TenpaiModel


def fit_all(ds: Dataset) -> Estimators:
    """Fit every estimator on a dataset (the order matters: P_T feeds the later ones)."""
    a = ds.arrays
    if len(a["rank_y"]) == 0 or len(a["dec_tile"]) == 0:
        raise MahjongError("the records hold no usable hand to train on")
    rank = FinalRankModel().fit(a["rank_x"], a["rank_y"])
    n = len(a["dec_tile"])
    tf = a["dec_tf"].reshape(n * 3, -1)
    riichi = a["dec_riichi"].reshape(-1)
    tenpai = TenpaiModel().fit(tf[~riichi], a["dec_tenpai"].reshape(-1)[~riichi].astype(int))
    hist = WaitHistogram().fit(a["wait_cat"], a["wait_unseen"], a["wait_y"])
    pt = tenpai.predict_rows(a)
    ok = ~a["dec_ronned"]
    end = HandEndModel().fit(dataset_context(a, pt, False)[ok], a["dec_ended"][ok].astype(int))
    hz = a["dec_ratio_ok"]
    horizon = HorizonModel().fit(dataset_context(a, pt, True)[hz], a["dec_ratio"][hz])
    win = WinValueModel()
    if len(a["win_cls"]):
        win.fit(a["win_x"], a["win_cls"].astype(int), a["win_points"], a["win_dealer"])
    hazard = HazardModel().fit(a, pt)
    # a replay of the records, not dataset rows
    hazard.riichi_pass, hazard.ron_given_wait, hazard.draw_share, hazard.share_slope = replay_rates(ds.files)
    hazard.ron_share_by = ron_share_by_discarder(ds.files)
    return Estimators({"final_rank": rank, "tenpai": tenpai, "wait_histogram": hist,
                       "hand_end": end, "horizon": horizon, "win_value": win, "hazard": hazard})


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m regressors.train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, nargs="+",
                    help="glob(s) or paths of records (mjai JSONL, mjlog XML, tenhou.net/6 JSON; gzip ok)")
    ap.add_argument("--out", required=True, help="directory for the model files")
    ap.add_argument("--cache", default=None, help="dataset cache directory (default: OUT)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    spec = args.records if len(args.records) > 1 else args.records[0]
    ds = load_or_build(spec, args.cache or args.out, progress=not args.quiet)
    est = fit_all(ds)
    est.save(args.out)
    from regressors.report import fit_baselines, save_baselines

    save_baselines(fit_baselines(ds, est), args.out)
    meta = {"records": args.records, "games": ds.n_games,
            "rows": {k: int(len(ds.arrays[f"{k}_game"])) for k in ("rank", "dec", "wait", "win")},
            "command": "python -m regressors.train " + " ".join(sys.argv[1:] if argv is None else argv)}
    (Path(args.out) / "TRAINED_ON.json").write_text(json.dumps(meta, indent=1))
    print(f"trained on {ds.n_games} games: {meta['rows']} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
