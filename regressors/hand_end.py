"""The hand ends before our next turn, and the horizon ratio r = T / T_max (Sec. VI-C).

* :class:`HandEndModel`: P(another player's win or a draw ends the hand between our discard
  and our next turn) -- the PSM's OTHER WIN chance P_O (``specs/kurita_hoki.md`` 3.1, A5),
  from the opponents' riichi and tenpai probabilities, the wall and our turn.
* :class:`HorizonModel`: logistic regression with fractional labels T'/T_max in [0, 1]
  (T' = our discards until the hand really ended, T_max = 1 + tiles_left // 4), fitted on
  decisions whose hand we did not win; T = max(1, round(r T_max)) (A7).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from regressors.base import LogReg, load_json, save_json
from regressors.features import HAND_END_FEATURES, HORIZON_FEATURES

END_KIND = "hand_end"
HORIZON_KIND = "horizon"


def dataset_context(arr: dict, pt: np.ndarray, with_shanten: bool) -> np.ndarray:
    """Hand-end (or horizon) feature rows of the ``dec_*`` rows, given P_T[n, 3]."""
    ctx = arr["dec_ctx"]
    riichi = arr["dec_riichi"]
    open_ = arr["dec_takes"] > 0
    X = np.column_stack([
        riichi.sum(1), pt.sum(1), pt.max(1), ctx[:, 0] / 70.0, (ctx[:, 0] < 4).astype(float),
        ctx[:, 1] / 18.0, np.where(open_, pt, 0.0).max(1),
    ])
    if with_shanten:
        X = np.column_stack([X, np.clip(ctx[:, 4], 0, 4) / 4.0, ctx[:, 2], ctx[:, 3]])
    return X.astype(np.float32)


class HandEndModel:
    def __init__(self, C: float = 1.0):
        self.lr = LogReg(HAND_END_FEATURES, C=C)

    def fit(self, X, y) -> "HandEndModel":
        self.lr.fit(X, y)
        return self

    def predict_proba(self, X) -> np.ndarray:
        return self.lr.predict_proba(X)

    def save(self, path) -> Path:
        return save_json({"model": self.lr.to_dict()}, path, END_KIND)

    @classmethod
    def load(cls, path) -> "HandEndModel":
        m = cls()
        m.lr = LogReg.from_dict(load_json(path, END_KIND)["model"], HAND_END_FEATURES, str(path))
        return m


class HorizonModel:
    def __init__(self, C: float = 1.0):
        self.lr = LogReg(HORIZON_FEATURES, C=C)

    def fit(self, X, r) -> "HorizonModel":
        """Fractional labels: each row twice, as 1 with weight r and as 0 with weight 1 - r."""
        r = np.clip(np.asarray(r, dtype=float), 0.0, 1.0)
        X2 = np.vstack([X, X])
        y2 = np.concatenate([np.ones(len(r), int), np.zeros(len(r), int)])
        w2 = np.concatenate([r, 1.0 - r])
        self.lr.fit(X2, y2, sample_weight=w2)
        return self

    def predict_proba(self, X) -> np.ndarray:
        """The ratio r per row."""
        return self.lr.predict_proba(X)

    @staticmethod
    def horizon(r: float, tiles_left: int) -> int:
        """T = max(1, round(r T_max)), T_max = 1 + tiles_left // 4."""
        return max(1, int(round(r * (1 + tiles_left // 4))))

    def save(self, path) -> Path:
        return save_json({"model": self.lr.to_dict()}, path, HORIZON_KIND)

    @classmethod
    def load(cls, path) -> "HorizonModel":
        m = cls()
        m.lr = LogReg.from_dict(load_json(path, HORIZON_KIND)["model"], HORIZON_FEATURES, str(path))
        return m
