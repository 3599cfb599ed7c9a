"""How often the others discard a tenpai hand's waits, by the wall.

A tenpai hand rons when another discards one of its waits. The others do not throw their
tiles at random: ``HazardModel.ron_scale`` (``ron_scale_riichi`` for a riichi) is how often
they discard a tenpai player's waits over how often random picks among its unseen tiles
would, one number for the whole hand. The share is not one number: early in a hand nobody
reads a quiet (dama) wait and the others still shed their unwanted tiles, late they keep
back what looks dangerous. In the 42 phoenix games a dama hand's waits are discarded at 0.84
of random with 45 or more tiles left and at 0.36-0.38 with fewer than 30, a riichi's at about
0.2 once 45 are left; at the cnn-bot table the dama share falls less (0.63 to 0.51), the
riichi's stays at 0.36-0.39.

This module fits that share by the tiles left at the discard (:data:`BANDS`), for a hand not
in riichi (``free``) and in riichi, on the discard rows of records (``regressors.datasets``:
``dec_wait_t``, a discard that is one of a tenpai opponent's waits; ``dec_wait_share``, its
waits' share of its unseen tiles). A decision reads it by turn (:func:`per_turn`: the wall
``tiles_left - 4 n`` at the others' discards after our ``n``-th), which PSM takes as its
``ron_scale`` (played by ``mdp:ron_wall=1``).

    python -m regressors.ron_wall --records 'runs/logs/*.mjson.gz' [--write regressors/models/hazard.json]

prints the table and, with ``--write``, stores it in a hazard file as ``ron_wall``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Bands of the live wall's tiles left at the discard, inclusive (low, high), first to last.
#: Few hands are tenpai before 45 tiles are left, so the first band is wide.
BANDS = ((45, 70), (30, 44), (15, 29), (0, 14))
#: The classes of the tenpai hand whose waits are discarded.
CLASSES = ("free", "riichi")


def band_of(tiles_left) -> np.ndarray:
    """The :data:`BANDS` index of each wall (a wall above 70 in the first band, below 0 in the last)."""
    lows = np.array([lo for lo, _ in BANDS])
    return np.minimum((lows > np.asarray(tiles_left)[..., None]).sum(-1), len(BANDS) - 1)


def fit(arr: dict) -> dict:
    """The ``ron_wall`` entry of a hazard file: per class and band, the discards of a tenpai
    opponent's waits over their number were the discards random among its unseen tiles,
    each count smoothed by half a hit, at most 1; with the hits and expected counts."""
    band = band_of(arr["dec_ctx"][:, 0])
    out = {"bands": [list(b) for b in BANDS]}
    for name, riichi in zip(CLASSES, (False, True)):
        sel = arr["dec_tenpai"].astype(bool) & (arr["dec_riichi"].astype(bool) == riichi)
        hits = np.array([float(arr["dec_wait_t"][sel & (band == b)[:, None]].sum()) for b in range(len(BANDS))])
        expected = np.array([float(arr["dec_wait_share"][sel & (band == b)[:, None]].sum())
                             for b in range(len(BANDS))])
        out[name] = np.round(np.minimum(1.0, (hits + 0.5) / (expected + 0.5)), 4).tolist()
        out[f"{name}_hits"] = hits.astype(int).tolist()
        out[f"{name}_expected"] = np.round(expected, 1).tolist()
    out["rows"] = int(len(arr["dec_ctx"]))
    return out


def check(d: dict, where: str) -> dict:
    """A ``ron_wall`` entry read from a file, its shape checked (ValueError naming ``where``)."""
    if [tuple(b) for b in d["bands"]] != list(BANDS):
        raise ValueError(f"{where}: ron_wall was fitted on other bands")
    for name in CLASSES:
        r = np.asarray(d[name], dtype=np.float64)
        if r.shape != (len(BANDS),) or not ((r > 0) & (r <= 1)).all():
            raise ValueError(f"{where}: ron_wall {name} must be {len(BANDS)} shares in (0, 1]")
    return d


def per_turn(d: dict, tiles_left: int, T: int, riichi: bool) -> np.ndarray:
    """(T,) the share at the others' discards after our ``n``-th, ``n = 0..T-1``: the band of
    the wall ``tiles_left - 4 n`` then."""
    walls = int(tiles_left) - 4 * np.arange(max(int(T), 1))
    return np.asarray(d[CLASSES[int(bool(riichi))]], dtype=np.float64)[band_of(walls)]


def format_table(d: dict) -> str:
    lines = ["| tiles left | free | (hits / expected) | riichi | (hits / expected) |", "|---|---|---|---|---|"]
    for b, (lo, hi) in enumerate(d["bands"]):
        lines.append(f"| {lo}-{hi} | {d['free'][b]:.3f} | {d['free_hits'][b]} / {d['free_expected'][b]:.1f} | "
                     f"{d['riichi'][b]:.3f} | {d['riichi_hits'][b]} / {d['riichi_expected'][b]:.1f} |")
    lines.append(f"({d['rows']} discards)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from regressors.hazard import fit_entry_main

    return fit_entry_main(argv, prog="python -m regressors.ron_wall", entry="ron_wall", fit=fit, table=format_table,
                          description="How often the others discard a tenpai hand's waits, by the "
                                      "tiles left, fitted on records (ron_scale of mdp:ron_wall=1)")


if __name__ == "__main__":
    import sys

    sys.exit(main())
