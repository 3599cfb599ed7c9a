"""The scenario probabilities of Method 2 (Kurita & Hoki Eq. 18; ``kurita_hoki.md`` 4.2).

Five scenarios end a hand for player *i*: win, lose (deal in), another's win, tenpai washout,
noten washout (:data:`SCENARIOS`). Eq. 18 writes their probabilities with four binary ones,
each a logistic regression on features of the WSM, TSM and FSM run from the hand after the
action and of the table (:data:`BRANCH_FEATURES`: the paper's groups, each branch its own MDP's
numbers; not spec A6's union of them, which measured worse):

* ``p1`` = P(win),
* ``p2`` = P(lose | no win),
* ``p3`` = P(washout | neither),
* ``p4`` = P(tenpai | washout),

so ``P(win) = p1``, ``P(lose) = (1 - p1) p2``, ``P(other win) = (1 - p1)(1 - p2)(1 - p3)``,
``P(tenpai washout) = (1 - p1)(1 - p2) p3 p4`` and ``P(noten washout) = (1 - p1)(1 - p2) p3
(1 - p4)``. Each ``p_k`` is fitted on the decisions whose hand reached its branch, labelled
with how the hand really ended (``player.scenario_data`` builds the rows from records; a
discard ronned at once is Eq. 4's own term, not a row).

    python -m regressors.scenarios --data runs/scenarios/*.npz --out regressors/models/scenarios.json
    python -m regressors.scenarios --data runs/scenarios/*.npz --folds 5   # a refit, 5-fold by game, beside the shipped fit
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from game.cli import reports_errors
from game.errors import MahjongError, ModelFileError
from regressors.base import LogReg, load_json, save_json

KIND = "scenarios"
#: The endings, in ``search.retrograde.OUTCOMES`` order (its ``fold`` is not an ending).
SCENARIOS = ("win", "lose", "other_win", "tenpai_washout", "noten_washout")
#: The features a decision's rows carry: the MDP runs' own (WSM's win chance and value, TSM's
#: tenpai chance, FSM's lose chance, Eq. 14) with their logits, the table's (riichi opponents,
#: the others' summed tenpai chance, our discards so far, the wall) and the hand's. The
#: action's own discard's deal-in is not among them: Eq. 4 weighs it in outside Eq. 17, so the
#: regressions describe the hand after that discard passed. The wall enters three times
#: (``tiles_left / 70``, its log and its square): a far hand's washout grows steeply in the
#: last turns, which one linear term spread over the whole hand (the 2-shanten hands with
#: under 30 tiles left expected another's win 0.11-0.14 too often, docs/sessions.md "Session 16").
SCENARIO_FEATURES = ("wsm_p_win", "wsm_logit", "wsm_value", "tsm_p_tenpai", "tsm_logit", "fsm_p_lose",
                     "fsm_logit", "n_riichi", "sum_pt", "n_dahai", "tiles_left", "shanten", "melds",
                     "wall_log", "wall_sq")
_TABLE = ("n_riichi", "sum_pt", "tiles_left", "wall_log", "wall_sq", "n_dahai")
#: The features of each ``p_k``: the paper's groups (``kurita_hoki.md`` 4.2), each branch its
#: own MDP's numbers (win: WSM, lose: FSM, washout and tenpai at it: TSM) and the table's. Spec
#: A6's union of every list on every branch fitted about as well (held-out log loss 1.207 vs
#: 1.216 on 20,156 decisions of the player's own games) but its collinear MDP features took
#: signs that flip from fit to fit (TSM's tenpai chance lowering the win chance), and the
#: discards they ranked agreed less with the phoenix players at every refit.
BRANCH_FEATURES = {
    "p1_win": ("wsm_p_win", "wsm_logit", "wsm_value", "melds") + _TABLE,
    "p2_lose": ("fsm_p_lose", "fsm_logit") + _TABLE,
    "p3_washout": ("tsm_p_tenpai", "tsm_logit") + _TABLE,
    "p4_tenpai": ("tsm_p_tenpai", "tsm_logit") + _TABLE,
}
#: :data:`BRANCH_FEATURES` with the hand's shanten on P(lose | no win) (``--lose-shanten``): FSM's
#: deal-in chance does not tell a 3-shanten hand, which folds sooner, from a 2-shanten one (held
#: out, 5 folds by game on session 55's 31,969 rows: log loss -0.0009 +- 0.0003; at 3 shanten with
#: 30-59 tiles left the deal-ins 0.147 / 0.117 predicted against 0.127 / 0.080 realised come to
#: 0.125 / 0.095; docs/sessions.md "Session 56").
LOSE_SHANTEN_FEATURES = {**BRANCH_FEATURES, "p2_lose": BRANCH_FEATURES["p2_lose"] + ("shanten",)}
#: The probability features' logits are taken of values clipped to [EPS, 1 - EPS].
EPS = 1e-4
#: The four regressions of the tree, each with the labels it is fitted on.
BRANCHES = ("p1_win", "p2_lose", "p3_washout", "p4_tenpai")


def logit(p: float) -> float:
    q = min(max(float(p), EPS), 1.0 - EPS)
    return float(np.log(q / (1.0 - q)))


def feature_row(*, wsm_p_win: float, wsm_value: float, tsm_p_tenpai: float, fsm_p_lose: float,
                n_riichi: int, sum_pt: float, n_dahai: int, tiles_left: int,
                shanten: int, melds: int) -> np.ndarray:
    """One row of :data:`SCENARIO_FEATURES` (rank-unit ``wsm_value`` = ``V^WSM``)."""
    wall = tiles_left / 70.0
    return np.array([wsm_p_win, logit(wsm_p_win), wsm_value, tsm_p_tenpai, logit(tsm_p_tenpai), fsm_p_lose,
                     logit(fsm_p_lose), n_riichi, sum_pt, n_dahai / 18.0, wall, shanten, melds,
                     np.log1p(tiles_left) / np.log(71.0), wall * wall], dtype=np.float64)


def branch_labels(y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each of :data:`BRANCHES`: the rows that reach it and their binary labels."""
    y = np.asarray(y, dtype=np.int64)
    win, lose = y == 0, y == 1
    washout = (y == 3) | (y == 4)
    reach2 = ~win
    reach3 = reach2 & ~lose
    return [(np.ones(len(y), bool), win), (reach2, lose[reach2]), (reach3, washout[reach3]),
            (washout, (y == 3)[washout])]


def tree(p: np.ndarray) -> np.ndarray:
    """Eq. 18: ``[n, 4]`` branch probabilities to ``[n, 5]`` scenario probabilities."""
    p1, p2, p3, p4 = (p[:, k] for k in range(4))
    rest = (1 - p1) * (1 - p2)
    return np.column_stack([p1, (1 - p1) * p2, rest * (1 - p3), rest * p3 * p4, rest * p3 * (1 - p4)])


def _columns(features: dict) -> dict[str, list[int]]:
    """Each branch's columns in rows of :data:`SCENARIO_FEATURES`."""
    return {b: [SCENARIO_FEATURES.index(f) for f in features[b]] for b in BRANCHES}


class ScenarioModel:
    """Eq. 18's four regressions; :meth:`predict` gives ``P(x)`` for the five scenarios.
    ``features``: each branch's names among :data:`SCENARIO_FEATURES` (default
    :data:`BRANCH_FEATURES`; a loaded model keeps its file's)."""

    def __init__(self, C: float = 1.0, features: dict | None = None):
        self.features = dict(BRANCH_FEATURES if features is None else features)
        self._cols = _columns(self.features)
        self.branches = [LogReg(self.features[b], C=C) for b in BRANCHES]

    def fit(self, X: np.ndarray, y: np.ndarray) -> "ScenarioModel":
        """``X``: rows of :data:`SCENARIO_FEATURES`; ``y``: the :data:`SCENARIOS` index of each
        row's real ending."""
        X = np.asarray(X, dtype=np.float64)
        for b, lr, (rows, labels) in zip(BRANCHES, self.branches, branch_labels(y)):
            if not rows.any():
                raise MahjongError(f"no decision reaches a branch of Eq. 18 ({len(y)} rows): more records needed")
            lr.fit(X[rows][:, self._cols[b]], labels.astype(np.int64))
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        return tree(np.column_stack([lr.predict_proba(X[:, self._cols[b]])
                                     for b, lr in zip(BRANCHES, self.branches)]))

    def save(self, path, meta: dict | None = None) -> Path:
        return save_json({"branches": {b: lr.to_dict() for b, lr in zip(BRANCHES, self.branches)},
                          "trained_on": meta or {}}, path, KIND)

    @classmethod
    def load(cls, path) -> "ScenarioModel":
        d = load_json(path, KIND)
        try:
            features = {b: tuple(d["branches"][b]["features"]) for b in BRANCHES}
        except (KeyError, TypeError):
            raise ModelFileError(f"{path}: not a scenarios model (each of {BRANCHES} needs its features)") from None
        unknown = sorted({f for names in features.values() for f in names} - set(SCENARIO_FEATURES))
        if unknown:
            raise ModelFileError(f"{path}: features {unknown} are not among the code's {list(SCENARIO_FEATURES)}; retrain it")
        m = cls(features=features)
        m.branches = [LogReg.from_dict(d["branches"][b], features[b], str(path)) for b in BRANCHES]
        return m


DEFAULT_PATH = Path(__file__).resolve().parent / "models" / "scenarios.json"
#: The regressions of the 1-shanten decisions (the player's ``m2_from=1``), fitted on those rows
#: alone (``--shanten 1``).
SHANTEN1_PATH = DEFAULT_PATH.with_name("scenarios_1.json")


def load_rows(paths: list[str], shanten: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, endings and game ids of ``player.scenario_data`` files (the ids number the
    games across the files in order, for a held-out split by game); ``shanten``: only the
    decisions of hands at these shanten numbers (default: all)."""
    Xs, ys, gs = [], [], []
    base = 0
    for p in paths:
        try:
            with np.load(p) as z:
                names = [str(n) for n in z["features"]]
                if names != list(SCENARIO_FEATURES):
                    raise MahjongError(f"{p}: its features {names} are not the code's; rebuild it")
                keep = np.ones(len(z["y"]), bool) if shanten is None else np.isin(z["shanten"], shanten)
                Xs.append(z["X"][keep])
                ys.append(z["y"][keep])
                gs.append(z["game"][keep] + base)
                base += int(z["game"].max()) + 1 if len(z["game"]) else 0
        except (OSError, KeyError, ValueError) as exc:
            raise MahjongError(f"{p}: not a scenario data file ({exc})") from None
    if not Xs:
        raise MahjongError("no scenario data files given")
    if not sum(len(y) for y in ys):
        at = "" if shanten is None else f" at shanten {shanten}"
        raise MahjongError(f"no rows{at} in {', '.join(map(str, paths))}")
    return np.vstack(Xs), np.concatenate(ys), np.concatenate(gs)


def _log_losses(P: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each row's log loss: ``-log P[row, y]``, the probability clipped at 1e-9."""
    return -np.log(np.clip(P[np.arange(len(y)), y], 1e-9, 1.0))


def _rates(y: np.ndarray) -> np.ndarray:
    """The share of the rows that ended in each scenario."""
    return np.bincount(y, minlength=len(SCENARIOS)) / max(len(y), 1)


def held_out_report(model: ScenarioModel, X: np.ndarray, y: np.ndarray) -> dict:
    """Mean predicted vs realised rate of each scenario and the log loss against the base
    rates (the constant model) on rows the model was not fitted on."""
    P = model.predict(X)
    R = _rates(y)
    ll = float(_log_losses(P, y).mean())
    ll0 = float(-np.mean(np.log(np.clip(R[y], 1e-9, 1.0))))
    return {"rows": int(len(y)), "predicted": dict(zip(SCENARIOS, P.mean(0).round(4).tolist())),
            "realised": dict(zip(SCENARIOS, R.round(4).tolist())), "log_loss": round(ll, 4),
            "log_loss_base_rates": round(ll0, 4)}


def cross_validated(X: np.ndarray, y: np.ndarray, games: np.ndarray, against: ScenarioModel, folds: int,
                    C: float = 1.0, seed: int = 0, features: dict | None = None) -> dict:
    """Log loss of a refit, ``folds``-fold by game (each fold's rows predicted by the regressions
    fitted on the others), beside that of the fitted model ``against`` on the same rows; the
    difference's standard error takes a game's rows as one cluster (its decisions share their
    hands' endings). Also each scenario's mean predicted rate by both, and the realised one.
    ``features``: the refit's branch features (default :data:`BRANCH_FEATURES`)."""
    ids = np.unique(games)
    if not 2 <= folds <= len(ids):
        raise MahjongError(f"--folds must be in 2..{len(ids)} (the games), got {folds}")
    game = np.searchsorted(ids, games)  # each row's game, 0..len(ids)-1
    f = np.random.default_rng(seed).permutation(len(ids))[game] % folds
    P_ref, P_old = np.empty((len(y), len(SCENARIOS))), against.predict(X)
    for k in range(folds):
        test = f == k
        P_ref[test] = ScenarioModel(C, features).fit(X[~test], y[~test]).predict(X[test])
    ll_ref, ll_old = _log_losses(P_ref, y), _log_losses(P_old, y)
    per_game = np.bincount(game, weights=ll_ref - ll_old)
    se = float(per_game.std(ddof=1) * np.sqrt(len(ids)) / len(y))
    return {"folds": folds, "rows": int(len(y)), "games": int(len(ids)),
            "log_loss_refit": round(float(ll_ref.mean()), 4), "log_loss_against": round(float(ll_old.mean()), 4),
            "difference": round(float((ll_ref - ll_old).mean()), 4), "difference_se": round(se, 4),
            "realised": dict(zip(SCENARIOS, _rates(y).round(4).tolist())),
            "predicted_refit": dict(zip(SCENARIOS, P_ref.mean(0).round(4).tolist())),
            "predicted_against": dict(zip(SCENARIOS, P_old.mean(0).round(4).tolist()))}


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m regressors.scenarios", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", required=True, help="npz files of python -m player.scenario_data")
    ap.add_argument("--out", default=str(DEFAULT_PATH), help="the model file to write (default: the shipped one)")
    ap.add_argument("--holdout", type=float, default=0.2,
                    help="share of the games held out to report on (default 0.2; the model is then "
                         "refitted on all of them)")
    ap.add_argument("--C", type=float, default=1.0, help="inverse regularisation of the regressions")
    ap.add_argument("--shanten", type=int, nargs="+", default=None,
                    help="fit only the decisions of hands at these shanten numbers (default: all rows; "
                         f"1 for the player's m2_from=1 model, {SHANTEN1_PATH.name})")
    ap.add_argument("--folds", type=int, default=None,
                    help="instead of fitting: the log loss of a refit, K-fold by game, beside that of "
                         "the model --against on the same rows (nothing is written)")
    ap.add_argument("--against", default=str(DEFAULT_PATH),
                    help="with --folds: the fitted model to compare with (default: the shipped one)")
    ap.add_argument("--lose-shanten", action="store_true",
                    help="P(lose | no win) also reads the hand's shanten (LOSE_SHANTEN_FEATURES)")
    args = ap.parse_args(argv)
    features = LOSE_SHANTEN_FEATURES if args.lose_shanten else BRANCH_FEATURES
    if args.folds is not None:
        X, y, g = load_rows(args.data, args.shanten)
        print(json.dumps(cross_validated(X, y, g, ScenarioModel.load(args.against), args.folds, args.C,
                                         features=features), indent=1))
        return 0
    if not 0.0 <= args.holdout < 1.0:
        raise MahjongError(f"--holdout must be in [0, 1), got {args.holdout}")
    if Path(args.out).is_dir():
        raise MahjongError(f"--out {args.out} is a directory; name a .json file")
    X, y, g = load_rows(args.data, args.shanten)
    games = np.unique(g)
    cut = games[int(round(len(games) * (1 - args.holdout)))] if args.holdout > 0 and len(games) > 1 else None
    report: dict = {"rows": int(len(y)), "games": int(len(games))}
    if cut is not None:
        fit_rows = g < cut
        report["held_out"] = held_out_report(ScenarioModel(args.C, features).fit(X[fit_rows], y[fit_rows]),
                                             X[~fit_rows], y[~fit_rows])
        report["held_out"]["games"] = int((games >= cut).sum())
    model = ScenarioModel(args.C, features).fit(X, y)
    meta = {"data": [str(p) for p in args.data], "rows": int(len(y)), "games": int(len(games)), "C": args.C,
            "shanten": args.shanten, "lose_shanten": bool(args.lose_shanten)}
    report["out"] = str(model.save(args.out, meta))
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
