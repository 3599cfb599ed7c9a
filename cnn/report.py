"""Held-out quality of the CNN estimators beside the logistic regressions'.

    python -m cnn.report --records 'runs/heldout/*.mjson.gz' [--cnn FILE] [--json] [--plots DIR]

The table of ``python -m regressors.report`` (same options) with two more rows,
``tenpai_cnn`` and ``deal_in_cnn``, computed on the same decision points as the LR rows and
against the same baselines. It lives here, not in ``regressors/``, because it reads both
packages and ``regressors`` imports nothing of ``cnn`` (DESIGN.md's one-way flow).
"""
from __future__ import annotations

import functools
import sys
from collections.abc import Callable

import numpy as np

from cnn.estimator_planes import build_planes
from cnn.estimators import CnnEstimators
from game.cli import reports_errors
from game.errors import ModelFileError
from regressors.datasets import Dataset
from regressors.deal_in import UnseenBaseline
from regressors.report import report_parser, run_report

_CHUNK = 4096  # planes per forward pass


def cnn_rows(cnn: CnnEstimators, ds: Dataset, base: dict, entry: Callable[..., dict]) -> dict:
    """The report rows of the CNN estimators on the decision points of ``ds`` (the LR
    ``dec_*`` rows): tenpai of non-riichi opponents, and deal-in of every discard against the
    "unseen count" baseline."""
    pl = build_planes(ds.files)
    n = len(pl["ronned"])
    if n != len(ds.arrays["dec_tile"]):
        raise ModelFileError(f"CNN rows {n} != LR rows {len(ds.arrays['dec_tile'])}")
    pts, prs = [], []
    for s in range(0, n, _CHUNK):
        a, b = cnn.predict_planes(pl["planes"][s:s + _CHUNK])
        pts.append(a)
        prs.append(b)
    pt, pr = np.concatenate(pts), np.concatenate(prs)
    nr = ~pl["riichi"]
    yt = pl["tenpai"][nr].astype(float)
    p_lose = 1 - np.prod(1 - pr[np.arange(n), :, pl["tile"].astype(int)], axis=1)
    yd = pl["ronned"].astype(float)
    ub = UnseenBaseline()
    ub.rate = np.asarray(base["deal_in_unseen"])
    unseen_t = ds.arrays["dec_unseen"][np.arange(n), ds.arrays["dec_tile"].astype(int)]
    return {"tenpai_cnn": entry(pt[nr], yt, np.full(len(yt), base["tenpai"])),
            "deal_in_cnn": entry(p_lose, yd, ub.predict(unseen_t))}


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = report_parser("python -m cnn.report", __doc__)
    ap.add_argument("--cnn", default=None, help="CNN estimator weights (default: shipped)")
    args = ap.parse_args(argv)
    # Loaded before the dataset is built: a missing model is reported at once.
    cnn = CnnEstimators.load(args.cnn) if args.cnn else CnnEstimators.default()
    return run_report(args, extra_rows=functools.partial(cnn_rows, cnn))


if __name__ == "__main__":
    sys.exit(main())
