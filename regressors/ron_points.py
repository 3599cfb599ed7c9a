"""What a win is worth by ron and by tsumo, against the win-value model's mean.

The win-value model (:class:`regressors.payoffs.WinValueModel`) predicts the points of a
seat's win whichever way it comes, so its classes mix rons and tsumo wins. The two are not
worth the same: a closed hand's tsumo adds menzen tsumo's han (and a riichi's ura and
ippatsu come with it as with a ron), so a deal-in into a riichi pays less than the model's
mean and another's tsumo costs more. In 400 games of today's player against three cnn-bot a
riichi's ron was worth 0.907 of the riichi wins' mean and its tsumo 1.160 (a non-dealer's ron
5,459 points on average, its tsumo 6,961); in the 42 phoenix games 0.887 and 1.087.

This module fits, by the winner's class (:data:`CLASSES`: in riichi, closed and not, open),
the mean points of a ron and of a tsumo over the mean of all its wins (a dealer's points
counted at 2/3, as the model's classes are), on the win rows of records
(``regressors.datasets``: ``win_points``, ``win_tsumo``, ``win_riichi``, ``win_dealer``, the
calls in ``win_x``). ``mdp:ron_points=1`` scales each opponent's win classes by its class's
factors in the payoffs of paying its ron (``U_L``) and of its tsumo and its ron on a third
(``U_O``; ``abstractions.situation.RankTable``).

    python -m regressors.ron_points --records 'runs/logs/*.mjson.gz' [--write regressors/models/hazard.json]

prints the table and, with ``--write``, stores it in a hazard file as ``ron_points``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: The winner's classes: in riichi, closed without riichi (dama), open.
CLASSES = ("riichi", "dama", "open")


def class_of(riichi: bool, open_: bool) -> int:
    """The :data:`CLASSES` index of a winner (a riichi hand is closed)."""
    return 0 if riichi else (2 if open_ else 1)


def fit(arr: dict) -> dict:
    """The ``ron_points`` entry of a hazard file: per class the mean points of a ron and of a
    tsumo over the mean of all the class's wins (dealers at 2/3), with the counts."""
    from regressors.features import WIN_VALUE_FEATURES

    pts = arr["win_points"].astype(np.float64) * np.where(arr["win_dealer"], 2.0 / 3.0, 1.0)
    tsumo = arr["win_tsumo"].astype(bool)
    opened = arr["win_x"][:, WIN_VALUE_FEATURES.index("takes")] > 0
    cls = np.array([class_of(r, o) for r, o in zip(arr["win_riichi"].astype(bool), opened)], dtype=int)
    out: dict = {"classes": list(CLASSES), "ron": [], "tsumo": [], "rons": [], "tsumos": []}
    for c in range(len(CLASSES)):
        m = cls == c
        rons, tsumos = int((m & ~tsumo).sum()), int((m & tsumo).sum())
        ron = tsu = 1.0  # too few to say: as the model's mean
        if rons >= 5 and tsumos >= 5:
            mean = pts[m].mean()
            ron = round(float(pts[m & ~tsumo].mean() / mean), 4)
            tsu = round(float(pts[m & tsumo].mean() / mean), 4)
        out["ron"].append(ron)
        out["tsumo"].append(tsu)
        out["rons"].append(rons)
        out["tsumos"].append(tsumos)
    return out


def check(d: dict, where: str) -> dict:
    """A ``ron_points`` entry read from a file, its shape checked (ValueError naming ``where``)."""
    if list(d["classes"]) != list(CLASSES):
        raise ValueError(f"{where}: ron_points was fitted on other classes")
    for key in ("ron", "tsumo"):
        r = np.asarray(d[key], dtype=np.float64)
        if r.shape != (len(CLASSES),) or not ((r > 0) & (r < 4)).all():
            raise ValueError(f"{where}: ron_points {key} must be {len(CLASSES)} factors in (0, 4)")
    return d


def factors(d: dict, riichi, open_) -> tuple[np.ndarray, np.ndarray]:
    """([n], [n]) the ron and tsumo factors of winners by their riichi and open flags."""
    idx = np.array([class_of(bool(r), bool(o)) for r, o in zip(riichi, open_)], dtype=int)
    return np.asarray(d["ron"], dtype=np.float64)[idx], np.asarray(d["tsumo"], dtype=np.float64)[idx]


def format_table(d: dict) -> str:
    lines = ["| winner | ron / mean | tsumo / mean | rons | tsumo wins |", "|---|---|---|---|---|"]
    for c, name in enumerate(d["classes"]):
        lines.append(f"| {name} | {d['ron'][c]:.3f} | {d['tsumo'][c]:.3f} | {d['rons'][c]} | {d['tsumos'][c]} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from regressors.hazard import fit_entry_main

    return fit_entry_main(argv, prog="python -m regressors.ron_points", entry="ron_points", fit=fit,
                          table=format_table,
                          description="What a win is worth by ron and by tsumo over the mean of its "
                                      "class's wins, fitted on records (mdp:ron_points=1)")


if __name__ == "__main__":
    import sys

    sys.exit(main())
