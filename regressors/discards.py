"""What the opponents discard: the MDPs' opponents' discard distribution ``p_disc`` fitted.

The solitary MDPs meet three opponents' discards between two of our turns (Eq. 9-10): each of
kind ``u`` with chance ``p_disc[u]``, ronned (at ``ron_scale``) or called. Spec A5 takes
``p_disc`` proportional to the unseen copies, as if the others threw their tiles at random.
They do not: honours and terminals leave their hands far more often than their unseen share
says, middle tiles far less (at the cnn-bot table, a wind 4.2 times its share in the first
turns and about 2 times later, a 3-7 tile 0.17 times, then about 0.6 times). So a yakuhai
pair's pon, an honour wait's ron and a middle tile's chi come at other rates than random.

This module fits, on the discard rows of records (``regressors.datasets``), the *discard
weight* of each tile class (:data:`CLASSES`) by the wall's tiles left (:data:`BANDS`): the
class's discards over the discards expected were each discarder's pick random among its
unseen tiles. A decision's ``p_disc`` is then the unseen copies times the class weights
averaged over the turns of its horizon (:func:`kind_weights`, ``MDPParams.disc_weight``; the
kernels take one ``p_disc`` for every turn), normalised over the graph's pool. The records' ron shares (``HazardModel.ron_scale``,
``ron_scale_riichi``) were measured against random discards; against the weighted ones the
same rons are :func:`ron_factors` times as many of the expected: the waits' class mix (the
closed tenpai hands' wait rows) expected at random over expected by weight.

    python -m regressors.discards --records 'runs/logs/*.mjson.gz' [--write regressors/models/hazard.json]

prints the table and, with ``--write``, stores it in a hazard file as ``discards`` (read by
``HazardModel``; played by ``mdp:discard_mix=1``).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Tile classes of the discard weights: terminals, 2 / 8, 3-7, winds, dragons.
CLASSES = ("terminal", "two_eight", "middle", "wind", "dragon")
#: Bands of the live wall's tiles left at the discard, inclusive (low, high), first to last.
BANDS = ((60, 70), (50, 59), (40, 49), (30, 39), (20, 29), (0, 19))


def kind_class() -> np.ndarray:
    """(34,) the :data:`CLASSES` index of each kind."""
    out = np.empty(34, np.int64)
    for k in range(27):
        r = k % 9
        out[k] = 0 if r in (0, 8) else 1 if r in (1, 7) else 2
    out[27:31] = 3
    out[31:34] = 4
    return out


KIND_CLASS = kind_class()


def _band(tiles_left: np.ndarray) -> np.ndarray:
    """The :data:`BANDS` index of each wall: the bands whose low end lies above it."""
    lows = np.array([lo for lo, _ in BANDS])
    return (lows > np.asarray(tiles_left)[..., None]).sum(-1)


def fit_weights(arr: dict) -> np.ndarray:
    """(len(BANDS), len(CLASSES)): discards of each class over those expected at random among
    the discarder's unseen tiles, by the tiles left at the discard (1.0 where a band holds
    none; each count smoothed by half a discard)."""
    tile = arr["dec_tile"].astype(np.int64)
    unseen = arr["dec_unseen"].astype(np.float64)
    share = unseen / np.maximum(unseen.sum(1, keepdims=True), 1.0)
    by_class = np.stack([share[:, KIND_CLASS == c].sum(1) for c in range(len(CLASSES))], 1)
    band = _band(arr["dec_ctx"][:, 0])
    out = np.ones((len(BANDS), len(CLASSES)))
    for b in range(len(BANDS)):
        sel = band == b
        if sel.any():
            seen = np.bincount(KIND_CLASS[tile[sel]], minlength=len(CLASSES))
            out[b] = (seen + 0.5) / (by_class[sel].sum(0) + 0.5)
    return out


def kind_weights(weights: np.ndarray, tiles_left: int, T: int) -> np.ndarray:
    """(34,) each kind's discard weight over a horizon of ``T`` turns from ``tiles_left``: the
    mean of its class's weight at the walls ``tiles_left - 4 n``, ``n = 0..T-1``."""
    walls = np.maximum(int(tiles_left) - 4 * np.arange(max(int(T), 1)), 0)
    per_class = np.asarray(weights)[_band(walls)].mean(0)
    return per_class[KIND_CLASS]


def ron_factors(arr: dict, weights: np.ndarray) -> tuple[float, float]:
    """``(free, riichi)``: over the wait rows of closed tenpai hands (not in riichi, in
    riichi), the share of the discards expected to be their waits at random over the share
    expected by the weights of the whole hand (:data:`BANDS` pooled by their rows): the
    factor that turns a ron share measured against random discards into one against
    :func:`p_disc`."""
    unseen = arr["wait_unseen"].astype(np.float64)
    waits = arr["wait_y"].astype(bool)
    riichi = arr["wait_riichi"].astype(bool)
    n_band = np.bincount(_band(arr["dec_ctx"][:, 0]), minlength=len(BANDS)).astype(np.float64)
    w = (np.asarray(weights) * n_band[:, None]).sum(0) / max(n_band.sum(), 1.0)
    wk = w[KIND_CLASS]
    at_random = (unseen * waits).sum(1) / np.maximum(unseen.sum(1), 1.0)
    by_weight = (unseen * wk * waits).sum(1) / np.maximum((unseen * wk).sum(1), 1e-12)
    out = []
    for sel in (~riichi, riichi):
        out.append(float(at_random[sel].sum() / by_weight[sel].sum()) if by_weight[sel].sum() > 0 else 1.0)
    return out[0], out[1]


def fit(arr: dict) -> dict:
    """The ``discards`` entry of a hazard file: weights, bands, classes and ron factors."""
    weights = fit_weights(arr)
    free, riichi = ron_factors(arr, weights)
    return {"classes": list(CLASSES), "bands": [list(b) for b in BANDS],
            "weights": np.round(weights, 4).tolist(), "ron_factor": round(free, 4),
            "ron_factor_riichi": round(riichi, 4), "rows": int(len(arr["dec_tile"]))}


def check(d: dict, where: str) -> dict:
    """A ``discards`` entry read from a file, its shape checked (ValueError naming ``where``)."""
    w = np.asarray(d["weights"], dtype=np.float64)
    if list(d["classes"]) != list(CLASSES) or [tuple(b) for b in d["bands"]] != list(BANDS):
        raise ValueError(f"{where}: discards were fitted on other classes or bands")
    if w.shape != (len(BANDS), len(CLASSES)) or not (w > 0).all():
        raise ValueError(f"{where}: discard weights must be {len(BANDS)} x {len(CLASSES)} positive numbers")
    if not (float(d["ron_factor"]) > 0 and float(d["ron_factor_riichi"]) > 0):
        raise ValueError(f"{where}: ron factors must be positive")
    return d


def format_table(d: dict) -> str:
    lines = ["| tiles left | " + " | ".join(d["classes"]) + " |", "|---" * (len(d["classes"]) + 1) + "|"]
    for (lo, hi), row in zip(d["bands"], d["weights"]):
        lines.append(f"| {lo}-{hi} | " + " | ".join(f"{x:.2f}" for x in row) + " |")
    lines.append(f"ron share factors (free / riichi): {d['ron_factor']:.3f} / {d['ron_factor_riichi']:.3f} "
                 f"({d['rows']} discards)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from regressors.hazard import fit_entry_main

    return fit_entry_main(argv, prog="python -m regressors.discards", entry="discards", fit=fit, table=format_table,
                          description="The opponents' discard weights by tile class and wall, "
                                      "fitted on records (p_disc of mdp:discard_mix=1)")


if __name__ == "__main__":
    import sys

    sys.exit(main())
