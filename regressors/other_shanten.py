"""Another's win by our own shanten: is the hazard off by the hand it plans for?

The other-win hazard ``P_O`` (:class:`regressors.hazard.HazardModel`) is fitted on every
seat's discards with features of the table only: it knows nothing of the seat's own hand,
and PSM applies it alike at every state of its graph. The calibration of the player's own
self-play missed another's win late in the hand at 1 shanten (0-14 tiles left: 0.237-0.248
predicted, 0.320-0.354 realised; docs/sessions.md, "Session 51"), which a hazard that rises
while our hand is slow would explain.

This command measures it on the discard rows of records (``regressors.datasets``): the
observed over the predicted other wins in the interval after a discard (``q = 1``) of a seat
not in riichi, by the seat's shanten class (tenpai, 1, 2, 3+; the 14-tile hand's shanten at
the discard) and by the tiles left (:data:`regressors.ron_wall.BANDS`), over the same ratio
of every such seat in the band (the band's level, shown beside): a ratio of 1 everywhere
says the hazard's error does not depend on our hand. Each cell is smoothed by half a
predicted win at its band's level (an empty cell: 1), the band's level by half a win at 1.
On 300 games of today's default's self-play the ratios stand at 0.90-1.08 in the bands
of 15-44 tiles, 0.97 at 1 shanten with 0-14 left, while the levels rise from 0.78 to 1.17
(docs/sessions.md, "Session 52"): the late misses are the hazard's level, not our hand.

    python -m regressors.other_shanten --records 'runs/selfplay/*.mjson.gz' [--hazard FILE] [--json]
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np

from regressors.hazard import HazardModel, first_intervals
from regressors.ron_wall import BANDS, band_of

#: The seat's shanten classes, in the order of the ratios' columns.
CLASSES = ("tenpai", "1", "2", "3+")
#: The predicted wins of the prior that smooths each cell (at its band's level) and each band (at 1).
SMOOTH = 0.5


def by_shanten(model, arr: dict, pt: np.ndarray) -> dict:
    """The table against ``model``'s hazard: per band (rows) and shanten class (columns)
    ``(O_c / E_c) / (O_b / E_b)``, ``O`` the observed and ``E`` the predicted other wins of
    :func:`regressors.hazard.first_intervals`, ``c`` the cell, ``b`` its band (smoothed:
    :data:`SMOOTH`); with the counts."""
    o, e, ctx, shanten = first_intervals(model, arr, pt)
    band, cls = band_of(ctx[:, 0]), np.minimum(shanten, len(CLASSES) - 1)
    nb, nc = len(BANDS), len(CLASSES)
    obs, exp = np.zeros((nb, nc)), np.zeros((nb, nc))
    np.add.at(obs, (band, cls), o)
    np.add.at(exp, (band, cls), e)
    level = (obs.sum(1, keepdims=True) + SMOOTH) / (exp.sum(1, keepdims=True) + SMOOTH)
    ratio = (obs + SMOOTH * level) / (exp + SMOOTH) / level  # an empty cell: 1
    rows = np.zeros((nb, nc), np.int64)
    np.add.at(rows, (band, cls), 1)
    return {"bands": [list(b) for b in BANDS], "classes": list(CLASSES), "ratio": np.round(ratio, 4).tolist(),
            "band_level": np.round(level[:, 0], 4).tolist(), "observed": obs.astype(int).tolist(),
            "expected": np.round(exp, 1).tolist(), "rows": rows.tolist()}


def format_table(d: dict) -> str:
    lines = ["| tiles left | " + " | ".join(d["classes"]) + " | band O / E |", "|---" * (len(d["classes"]) + 2) + "|"]
    for b, (lo, hi) in enumerate(d["bands"]):
        cells = [f"{d['ratio'][b][c]:.2f} ({d['observed'][b][c]} / {d['expected'][b][c]:.0f})"
                 for c in range(len(d["classes"]))]
        lines.append(f"| {lo}-{hi} | " + " | ".join(cells) + f" | {d['band_level'][b]:.2f} |")
    lines.append(f"({int(np.sum(d['rows']))} first intervals; each cell: ratio (observed / predicted wins))")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from game.cli import reports_errors
    from regressors.datasets import load_or_build
    from regressors.estimators import DEFAULT_DIR, Estimators

    @reports_errors
    def run() -> int:
        ap = argparse.ArgumentParser(prog="python -m regressors.other_shanten", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
        ap.add_argument("--records", required=True, nargs="+", help="record glob(s) or paths")
        ap.add_argument("--cache", default=None, help="dataset cache directory")
        ap.add_argument("--models", default=str(DEFAULT_DIR),
                        help="estimators whose tenpai model gives the features and whose hazard is measured "
                             "without --hazard (default: shipped)")
        ap.add_argument("--hazard", default=None, help="a hazard file to measure instead of --models' own")
        ap.add_argument("--json", action="store_true", help="print one JSON object")
        args = ap.parse_args(argv)
        est = Estimators.load(args.models)
        target = HazardModel.load(args.hazard) if args.hazard else est.hazard  # a bad file fails before the replay
        spec = args.records if len(args.records) > 1 else args.records[0]
        arr = load_or_build(spec, args.cache, progress=not args.json).arrays
        d = by_shanten(target, arr, est.tenpai.predict_rows(arr))
        print(json.dumps(d) if args.json else format_table(d))
        return 0

    return run()


if __name__ == "__main__":
    import sys

    sys.exit(main())
