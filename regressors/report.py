"""Held-out quality of every LR estimator against naive baselines.

    python -m regressors.report --records 'runs/heldout/*.mjson.gz' [--json] [--plots DIR]

(``python -m cnn.report`` prints the same table with the CNN estimators' rows beside.)

For each estimator: log-loss, Brier score and AUC (null where it does not fit) on the
records given (which the models must not have been trained on), and the log-loss of a naive
baseline fitted on the training records (stored beside the models in ``baselines.json``):
the base rate, and for deal-in the "unseen count" heuristic (deal-in rate by the copies of
the tile the discarder has not seen). ``--plots DIR`` writes calibration plots as PNG.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from game.cli import check_output_dir, pyplot, reports_errors, save_figure
from regressors.base import load_json, save_json
from regressors.datasets import N_POINT_CLASSES, Dataset, load_or_build
from regressors.deal_in import UnseenBaseline, dataset_deal_in
from regressors.estimators import DEFAULT_DIR, Estimators
from regressors.hand_end import dataset_context
from regressors.hazard import HAZARD_FEATURES, end_tenpai_rows, expand_intervals, hazard_interval, tenpai_ahead_rows

EPS = 1e-6
BASELINE_KIND = "baselines"


# --- metrics ---------------------------------------------------------------------------------

def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Binary (p[n], y in [0,1], fractional allowed) or multiclass (p[n,K], y int)."""
    if p.ndim == 2:
        return float(-np.mean(np.log(np.clip(p[np.arange(len(y)), y], EPS, 1))))
    p = np.clip(p, EPS, 1 - EPS)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def brier(p: np.ndarray, y: np.ndarray) -> float:
    if p.ndim == 2:
        onehot = np.eye(p.shape[1])[y]
        return float(np.mean(np.sum((p - onehot) ** 2, axis=1)))
    return float(np.mean((p - y) ** 2))


def auc(p: np.ndarray, y: np.ndarray) -> float | None:
    y = np.asarray(y, dtype=bool)
    if y.all() or not y.any():
        return None
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, p))


def _entry(p, y, base_p, binary=True, **extra) -> dict:
    return {"n": int(len(y)), "log_loss": log_loss(p, y), "baseline_log_loss": log_loss(base_p, y),
            "brier": brier(p, y), "auc": auc(p, y) if binary else None, **extra}


# --- baselines (fitted on the training records) ---------------------------------------------

def fit_baselines(ds: Dataset, est: Estimators) -> dict:
    a = ds.arrays
    nr = ~a["dec_riichi"].reshape(-1)
    ok = ~a["dec_ronned"]
    return {
        "final_rank": np.bincount(a["rank_y"], minlength=4).astype(float).tolist(),
        "tenpai": float(a["dec_tenpai"].reshape(-1)[nr].mean()),
        "deal_in": float(a["dec_ronned"].mean()),
        "deal_in_unseen": UnseenBaseline().fit(a["dec_unseen"][np.arange(len(a["dec_tile"])),
                                                               a["dec_tile"].astype(int)],
                                               a["dec_ronned"]).rate.tolist(),
        "hand_end": float(a["dec_ended"][ok].mean()),
        "horizon": float(a["dec_ratio"][a["dec_ratio_ok"]].mean()),
        "win_value": np.bincount(a["win_cls"].astype(int), minlength=N_POINT_CLASSES).astype(float).tolist(),
        **_hazard_base_rates(a),
    }


def _hazard_rows(a: dict, pt: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(X, y) of the three regressions of ``regressors.hazard``."""
    X, y, _ = expand_intervals(a, pt)
    return {"hazard": (X, y), "end_tenpai": end_tenpai_rows(a, pt), "tenpai_ahead": tenpai_ahead_rows(a, pt)}


def _hazard_base_rates(a: dict) -> dict[str, float]:
    """The base rates of the hazard labels (the labels do not depend on P_T: zeros stand in)."""
    pt = np.zeros((len(a["dec_tile"]), 3))
    return {k: float(np.mean(y)) if len(y) else 0.0 for k, (_, y) in _hazard_rows(a, pt).items()}


def save_baselines(b: dict, directory) -> Path:
    return save_json({"baselines": b}, Path(directory) / "baselines.json", BASELINE_KIND)


def load_baselines(directory) -> dict:
    return load_json(Path(directory) / "baselines.json", BASELINE_KIND)["baselines"]


# --- evaluation -------------------------------------------------------------------------------

# The rows of estimators from a package above this one (``cnn.report``): given the dataset,
# the baselines and the row builder, a dict of rows on the same decision points.
ExtraRows = Callable[[Dataset, dict, Callable[..., dict]], dict]


def evaluate(est: Estimators, ds: Dataset, base: dict, extra_rows: ExtraRows | None = None) -> dict:
    """Metrics of every estimator on the rows of ``ds`` (which it was not trained on), and
    the rows ``extra_rows`` adds."""
    a = ds.arrays
    out: dict[str, dict] = {}
    freq = np.asarray(base["final_rank"]) + 1
    if len(a["rank_y"]):
        y = a["rank_y"].astype(int)
        out["final_rank"] = _entry(est.final_rank.predict_proba(a["rank_x"]), y,
                                   np.tile(freq / freq.sum(), (len(y), 1)), binary=False)
    n = len(a["dec_tile"])
    tf = a["dec_tf"].reshape(n * 3, -1)
    riichi = a["dec_riichi"].reshape(-1)
    yt = a["dec_tenpai"].reshape(-1)[~riichi].astype(float)
    pt_nr = est.tenpai.predict_proba(tf[~riichi])
    out["tenpai"] = _entry(pt_nr, yt, np.full(len(yt), base["tenpai"]))
    p_lose, pt = dataset_deal_in(a, est.tenpai, est.waits)
    yd = a["dec_ronned"].astype(float)
    unseen_t = a["dec_unseen"][np.arange(n), a["dec_tile"].astype(int)]
    ub = UnseenBaseline()
    ub.rate = np.asarray(base["deal_in_unseen"])
    out["deal_in"] = _entry(p_lose, yd, ub.predict(unseen_t),
                            base_rate_log_loss=log_loss(np.full(n, base["deal_in"]), yd),
                            unseen_auc=auc(ub.predict(unseen_t), yd))
    ok = ~a["dec_ronned"]
    ye = a["dec_ended"][ok].astype(float)
    out["hand_end"] = _entry(est.hand_end.predict_proba(dataset_context(a, pt, False)[ok]), ye,
                             np.full(len(ye), base["hand_end"]))
    hz = a["dec_ratio_ok"]
    yr = a["dec_ratio"][hz].astype(float)
    out["horizon"] = _entry(est.horizon_model.predict_proba(dataset_context(a, pt, True)[hz]), yr,
                            np.full(len(yr), base["horizon"]), binary=False)
    if len(a["win_cls"]):
        yc = a["win_cls"].astype(int)
        wf = np.asarray(base["win_value"]) + 1
        out["win_value"] = _entry(est.win_value.predict_proba(a["win_x"]), yc,
                                  np.tile(wf / wf.sum(), (len(yc), 1)), binary=False)
    models = {"hazard": est.hazard.p_other_rows, "end_tenpai": est.hazard.end_tenpai.predict_proba,
              "tenpai_ahead": est.hazard.tenpai_ahead.predict_proba}
    for key, (X, y) in _hazard_rows(a, pt).items():
        if len(y) and key in base:
            p = models[key](X)
            out[key] = _entry(p, y.astype(float), np.full(len(y), base[key]))
            if key == "hazard":
                out["_hazard_by_interval"] = hazard_by_interval(X, y, p)
    if extra_rows is not None:
        out.update(extra_rows(ds, base, _entry))
    out["_curves"] = {"tenpai": (pt_nr, yt), "deal_in": (p_lose, yd)}
    return out


#: Bands of the hazard's intervals ``q`` (1 = after the discard made now) and of the
#: live-wall tiles left in them, as inclusive (low, high) pairs.
Q_BANDS = ((1, 1), (2, 2), (3, 4), (5, 7), (8, 11), (12, 99))
WALL_BANDS = ((45, 70), (30, 44), (15, 29), (5, 14), (0, 4))
#: The others in riichi at the decision.
RIICHI_BANDS = ((0, 0), (1, 1), (2, 3))


def hazard_by_interval(X: np.ndarray, y: np.ndarray, p: np.ndarray) -> dict[str, dict[str, dict]]:
    """Another's win observed and predicted by the hazard (``P_O``) over its interval rows
    ``X`` (:func:`regressors.hazard.hazard_features`), by the interval ``q``, by the tiles
    left then and by the others in riichi at the decision: a hazard fitted on every interval
    at once can be right on the whole and off by turn, or facing a riichi."""
    q, wall = hazard_interval(X)
    riichi = np.rint(X[:, HAZARD_FEATURES.index("riichi_others")]).astype(int)
    out: dict[str, dict[str, dict]] = {}
    for axis, (values, bands) in {"q": (q, Q_BANDS), "tiles_left_then": (wall, WALL_BANDS),
                                  "riichi_others": (riichi, RIICHI_BANDS)}.items():
        out[axis] = {}
        for lo, hi in bands:
            sel = (values >= lo) & (values <= hi)
            obs, pred = int(y[sel].sum()), float(p[sel].sum())
            name = str(lo) if lo == hi else f"{lo}-{hi}"
            out[axis][name] = {"n": int(sel.sum()), "observed": obs, "predicted": round(pred, 1),
                               "ratio": round(obs / pred, 3) if pred > 0 else None}
    return out


def format_hazard_bands(res: dict) -> str:
    """:func:`hazard_by_interval`'s figures, one line an axis."""
    def cell(name: str, r: dict) -> str:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        return f"{name}: {r['observed']}/{r['predicted']:.0f} ({ratio})"

    lines = ["another's win in the hazard's intervals, observed / predicted (ratio)"]
    lines += [f"  by {axis}: " + ", ".join(cell(k, r) for k, r in rows.items()) for axis, rows in res.items()]
    return "\n".join(lines)


def calibration_plot(curves: dict, path: Path) -> Path:
    plt = pyplot()

    fig, axes = plt.subplots(1, len(curves), figsize=(4.5 * len(curves), 4.2))
    for ax, (name, (p, y)) in zip(np.atleast_1d(axes), curves.items()):
        qs = np.unique(np.quantile(p, np.linspace(0, 1, 11)))
        idx = np.clip(np.searchsorted(qs, p, side="right") - 1, 0, max(len(qs) - 2, 0))
        xs = [p[idx == b].mean() for b in range(len(qs) - 1) if (idx == b).any()]
        ys = [y[idx == b].mean() for b in range(len(qs) - 1) if (idx == b).any()]
        top = max(max(xs, default=0), max(ys, default=0), 1e-3) * 1.05
        ax.plot([0, top], [0, top], "k:", lw=1)
        ax.plot(xs, ys, "o-")
        ax.set(title=name, xlabel="predicted", ylabel="observed", xlim=(0, top), ylim=(0, top))
    return save_figure(fig, path, dpi=90)


def format_table(res: dict) -> str:
    lines = ["| estimator | n | log-loss | baseline log-loss | Brier | AUC |", "|---|---|---|---|---|---|"]
    for name, r in res.items():
        if name.startswith("_"):
            continue
        a = "-" if r["auc"] is None else f"{r['auc']:.3f}"
        lines.append(f"| {name} | {r['n']} | {r['log_loss']:.4f} | {r['baseline_log_loss']:.4f} | "
                     f"{r['brier']:.4f} | {a} |")
    return "\n".join(lines)


def report_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The options of a held-out report (records, models, cache, plots, JSON)."""
    ap = argparse.ArgumentParser(prog=prog, description=description,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, nargs="+", help="held-out record glob(s) or paths")
    ap.add_argument("--models", default=str(DEFAULT_DIR), help="LR model directory (default: shipped)")
    ap.add_argument("--cache", default=None, help="dataset cache directory")
    ap.add_argument("--plots", default=None, help="directory for calibration PNGs")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def run_report(args: argparse.Namespace, extra_rows: ExtraRows | None = None) -> int:
    """Evaluate on ``args.records`` and print the table (or JSON); the body of both reports."""
    for option in ("cache", "plots"):  # before the models are loaded and the records replayed
        if getattr(args, option):
            check_output_dir(getattr(args, option), f"--{option}")
    est = Estimators.load(args.models)
    base = load_baselines(args.models)
    spec = args.records if len(args.records) > 1 else args.records[0]
    ds = load_or_build(spec, args.cache, progress=not args.json)
    res = evaluate(est, ds, base, extra_rows)
    curves = res.pop("_curves")
    bands = res.pop("_hazard_by_interval", None)
    if args.plots:
        calibration_plot(curves, Path(args.plots) / "calibration.png")
    if args.json:
        print(json.dumps({**res, "hazard_by_interval": bands} if bands else res))
    else:
        print(f"{ds.n_games} games\n" + format_table(res) + ("\n\n" + format_hazard_bands(bands) if bands else ""))
    return 0


@reports_errors
def main(argv: list[str] | None = None) -> int:
    return run_report(report_parser("python -m regressors.report", __doc__).parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
