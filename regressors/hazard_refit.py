"""Refit the other-win hazard ``P_O`` of a hazard file on records of today's play.

The hazard (:class:`regressors.hazard.HazardModel`, ``other``) is a logistic regression over
the intervals a discard row survived into. The shipped one was fitted on older tables, with
the interval as one linear term and the others' riichi as one term: on games of session 45's
player it predicts another's win facing a riichi about half as often as it comes early in the
hand and a third too rarely in the last go-around (docs/sessions.md, "Session 51"). This command
fits it again, with today's features (:data:`regressors.hazard.HAZARD_FEATURES`: the bands of
the interval and the riichi by the wall), on the records given, and with ``--write`` stores it
and the abortive-draw rate in a hazard file whose other fields (ron shares, discard weights, the
rates of ``replay_rates``) stay as they are. ``--folds K`` first compares the refit with the
file's own regression on games held out (K folds by game): log loss and another's win observed
over predicted by the others' riichi and the tiles left then.

    python -m regressors.hazard_refit --records 'runs/logs/*.mjson.gz' [--folds 5] [--write DIR/hazard.json]

The opponents' tenpai chances that the features read come from the estimators of ``--models``
(default: the shipped ones), as in play.
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np

from regressors.base import LogReg
from regressors.hazard import (HAZARD_FEATURES, HazardModel, abort_rate, expand_intervals, hazard_interval,
                               interval_counts)
from regressors.report import WALL_BANDS, log_loss


def interval_rows(arr: dict, pt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, other-win label, abortive label, game)`` of every interval a discard row survived
    into (:func:`regressors.hazard.expand_intervals`), with the game of each row."""
    X, y, y_abort = expand_intervals(arr, pt)
    rows = np.repeat(np.arange(len(arr["dec_tile"])), interval_counts(arr))
    return X, y, y_abort, arr["dec_game"][rows].astype(np.int64)


def fit_other(X: np.ndarray, y: np.ndarray) -> LogReg:
    """The other-win regression of a new :class:`HazardModel` (every feature of
    :data:`HAZARD_FEATURES`, ``regressors.train``'s regularisation) fitted on ``(X, y)``."""
    return HazardModel().other.fit(X, y)


def by_riichi_and_wall(X: np.ndarray, y: np.ndarray, p: np.ndarray) -> dict[str, dict[str, float | None]]:
    """Another's win observed over predicted, by the others in riichi at the decision (none,
    one or more) and the tiles left in the interval."""
    _, wall = hazard_interval(X)
    riichi = X[:, HAZARD_FEATURES.index("riichi_others")] > 0
    out: dict[str, dict[str, float | None]] = {}
    for name, sel in (("no riichi", ~riichi), ("riichi", riichi)):
        out[name] = {}
        for lo, hi in WALL_BANDS:
            m = sel & (wall >= lo) & (wall <= hi)
            pred = float(p[m].sum())
            out[name][f"{lo}-{hi}"] = round(float(y[m].sum()) / pred, 3) if pred > 0 else None
    return out


def held_out(X: np.ndarray, y: np.ndarray, game: np.ndarray, current: HazardModel, folds: int) -> dict:
    """The refit's and ``current``'s log loss and :func:`by_riichi_and_wall`, the refit's
    predictions made on games it was not fitted on (``folds`` folds by game)."""
    games = np.unique(game)
    fold = (np.searchsorted(games, game) % folds)
    p_refit = np.zeros(len(y))
    for k in range(folds):
        test = fold == k
        p_refit[test] = fit_other(X[~test], y[~test]).predict_proba(X[test])
    out = {}
    for name, p in (("file", current.p_other_rows(X)), ("refit", p_refit)):
        out[name] = {"log_loss": round(log_loss(p, y), 5),
                     "observed_over_predicted": by_riichi_and_wall(X, y, p)}
    return out


def _format(res: dict) -> str:
    lines = []
    for name, r in res.items():
        lines.append(f"{name}: held-out log loss {r['log_loss']:.5f}; another's win observed / predicted")
        for riichi, cells in r["observed_over_predicted"].items():
            lines.append(f"  {riichi:9s} " + ", ".join(f"{k}: {'-' if v is None else f'{v:.2f}'}"
                                                       for k, v in cells.items()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from game.cli import reports_errors
    from regressors.datasets import load_or_build
    from regressors.estimators import DEFAULT_DIR, Estimators

    @reports_errors
    def run() -> int:
        ap = argparse.ArgumentParser(prog="python -m regressors.hazard_refit", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
        ap.add_argument("--records", required=True, nargs="+", help="record glob(s) or paths")
        ap.add_argument("--cache", default=None, help="dataset cache directory")
        ap.add_argument("--models", default=str(DEFAULT_DIR),
                        help="estimators whose tenpai model gives the features (default: shipped)")
        ap.add_argument("--folds", type=int, default=0, help="compare with --models' hazard on K folds by game first")
        ap.add_argument("--write", default=None,
                        help="a hazard file to store the refit in (its other fields kept)")
        ap.add_argument("--json", action="store_true", help="print one JSON object")
        args = ap.parse_args(argv)
        if args.folds == 1 or args.folds < 0:
            ap.error("--folds must be 0 (none) or at least 2")
        est = Estimators.load(args.models)
        target = HazardModel.load(args.write) if args.write else None  # a bad file fails before the replay
        spec = args.records if len(args.records) > 1 else args.records[0]
        arr = load_or_build(spec, args.cache, progress=not args.json).arrays
        pt = est.tenpai.predict_rows(arr)
        X, y, y_abort, game = interval_rows(arr, pt)
        res = {"intervals": int(len(y)), "games": int(len(np.unique(game)))}
        if args.folds:
            res["held_out"] = held_out(X, y, game, est.hazard, args.folds)
        print(json.dumps(res) if args.json else
              f"{res['games']} games, {res['intervals']} intervals" +
              ("\n" + _format(res["held_out"]) if "held_out" in res else ""))
        if target is not None:
            target.other = fit_other(X, y)
            target.p_abort = abort_rate(y_abort)
            target.save(args.write)
        return 0

    return run()


if __name__ == "__main__":
    import sys

    sys.exit(main())
