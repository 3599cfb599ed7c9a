"""Deal-in probability of each tile, Eq. 20: P(ron_j(t)) = P(tenpai_j) x P(t in waits_j | tenpai_j).

The conditional factor comes in the paper's two ways (Sec. VI-C):

* opponent without calls: histograms from records over the wait category of t (genbutsu,
  suji by distance, no-chance, honours) and the number of copies of t the observer has not
  seen (:class:`WaitHistogram`);
* opponent with calls: enumeration of its possible tenpai shapes weighted by unseen counts
  (:mod:`regressors.enumerate_waits`).

Then P_L(t) = 1 - prod_j (1 - P(ron_j(t))) over the three opponents.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from regressors.base import load_json, save_json
from regressors.enumerate_waits import open_wait_probs
from regressors.features import N_WAIT_CATS, n_takes, safe_kinds, tenpai_features, wait_categories

KIND = "wait_histogram"


class WaitHistogram:
    """P(j can ron t | j tenpai, closed) as a (category x unseen count) table with backoff."""

    def __init__(self, prior: float = 20.0):
        self.prior = prior
        self.table = np.zeros((N_WAIT_CATS, 5))

    def fit(self, cat: np.ndarray, unseen: np.ndarray, y: np.ndarray) -> "WaitHistogram":
        cat, unseen, y = (np.asarray(a).ravel() for a in (cat, unseen, y))
        unseen = np.clip(unseen, 0, 4)
        hits = np.zeros((N_WAIT_CATS, 5))
        tot = np.zeros((N_WAIT_CATS, 5))
        np.add.at(hits, (cat, unseen), y.astype(float))
        np.add.at(tot, (cat, unseen), 1.0)
        p_all = (hits[1:].sum() + 1) / (tot[1:].sum() + 2)
        p_cat = (hits.sum(1) + self.prior * p_all) / (tot.sum(1) + self.prior)
        self.table = (hits + self.prior * p_cat[:, None]) / (tot + self.prior)
        self.table[0] = 0.0  # genbutsu: j cannot ron it
        return self

    def predict(self, cat: np.ndarray, unseen: np.ndarray) -> np.ndarray:
        return self.table[np.asarray(cat, dtype=int), np.clip(np.asarray(unseen, dtype=int), 0, 4)]

    def save(self, path: str | Path) -> Path:
        return save_json({"prior": self.prior, "table": self.table.tolist()}, path, KIND)

    @classmethod
    def load(cls, path: str | Path) -> "WaitHistogram":
        d = load_json(path, KIND)
        h = cls(d["prior"])
        h.table = np.array(d["table"], dtype=float)
        if h.table.shape != (N_WAIT_CATS, 5):
            from game.errors import ModelFileError

            raise ModelFileError(f"{path}: table shape {h.table.shape} != {(N_WAIT_CATS, 5)}")
        return h


def wait_probs(view, j: int, hist: WaitHistogram) -> np.ndarray:
    """P(t in ronnable waits of j | j tenpai) for all 34 kinds, as seen by ``view.seat``."""
    cats, unseen = wait_categories(view, j)
    if n_takes(view.melds[j]) == 0:
        return hist.predict(cats, unseen)
    n_conc = 13 - 3 * len(view.melds[j])
    p = open_wait_probs(n_conc, view.unseen, safe_kinds(view, j)) if n_conc in (10, 7, 4, 1) else None
    if p is None or not p.any():
        return hist.predict(cats, unseen)
    return p


def tenpai_probs(view, tenpai_model) -> np.ndarray:
    """P_T[4] of the other seats as ``view``'s seat sees them (its own entry zero)."""
    pt = np.zeros(4)
    others = [(view.seat + k) % 4 for k in (1, 2, 3)]
    X = np.stack([tenpai_features(view, j) for j in others])
    pt[others] = tenpai_model.predict_proba(X, riichi=[view.riichi[j] for j in others])
    return pt


def deal_in_probs(view, tenpai_model, hist: WaitHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(P_L[34], P(ron_j(t))[4, 34], P_T[4], P(t is j's wait | j tenpai)[4, 34]) for the seat
    of ``view`` (its own rows zero)."""
    p_wait = np.zeros((4, 34))
    pt = tenpai_probs(view, tenpai_model)
    others = [(view.seat + k) % 4 for k in (1, 2, 3)]
    for j in others:
        p_wait[j] = wait_probs(view, j, hist)
    p_ron = pt[:, None] * p_wait
    p_lose = 1.0 - np.prod(1.0 - p_ron, axis=0)
    return p_lose, p_ron, pt, p_wait


def dataset_deal_in(arr: dict, tenpai_model, hist: WaitHistogram) -> tuple[np.ndarray, np.ndarray]:
    """(P_L of the discarded tile, P_T[n, 3]) for the ``dec_*`` rows of a dataset."""
    n = len(arr["dec_tile"])
    pt = tenpai_model.predict_rows(arr)
    tile = arr["dec_tile"].astype(int)
    unseen_t = arr["dec_unseen"][np.arange(n), tile]
    pw = hist.predict(arr["dec_cat_t"], np.repeat(unseen_t[:, None], 3, axis=1))
    for r in range(n):
        for k in range(3):
            nc = int(arr["dec_nconc"][r, k])
            if arr["dec_takes"][r, k] > 0 and nc in (10, 7, 4, 1):
                p = open_wait_probs(nc, arr["dec_unseen"][r], arr["dec_safe"][r, k])
                if p.any():
                    pw[r, k] = p[tile[r]]
    p_lose = 1.0 - np.prod(1.0 - pt * pw, axis=1)
    return p_lose, pt


class UnseenBaseline:
    """The naive deal-in heuristic: the deal-in rate of a discard given how many copies of
    the tile the discarder has not seen (0..4), from training records."""

    def fit(self, unseen_t: np.ndarray, ronned: np.ndarray) -> "UnseenBaseline":
        u = np.clip(unseen_t.astype(int), 0, 4)
        base = (ronned.sum() + 1) / (len(ronned) + 2)
        self.rate = np.array([(ronned[u == k].sum() + 10 * base) / ((u == k).sum() + 10) for k in range(5)])
        return self

    def predict(self, unseen_t: np.ndarray) -> np.ndarray:
        return self.rate[np.clip(unseen_t.astype(int), 0, 4)]
