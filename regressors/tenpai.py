"""Opponents' tenpai, P^j_T (Sec. VI-B): logistic regressions fitted per number of calls and
per number of discards, as the paper says, on the opponent's discards, calls and riichi.

A riichi player is tenpai by the rules (P = 1); the regressions cover the others. A bucket
with too few rows borrows the model of its calls bucket pooled over turns (and that one the
global model), so sparse corners of the records do not give wild fits.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from regressors.base import LogReg, load_json, save_json
from regressors.features import TENPAI_FEATURES

KIND = "tenpai"
MIN_ROWS = 300
N_TURN_BUCKETS = 6
N_TAKE_BUCKETS = 4


def buckets(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(takes bucket, turn bucket) of feature rows (columns ``takes`` and ``turn``)."""
    turns = np.rint(X[:, TENPAI_FEATURES.index("turn")] * 18).astype(int)
    takes = X[:, TENPAI_FEATURES.index("takes")].astype(int)
    tb = np.minimum(turns // 3, N_TURN_BUCKETS - 1)
    return np.minimum(takes, N_TAKE_BUCKETS - 1), tb


class TenpaiModel:
    def __init__(self, C: float = 0.5):
        self.C = C
        self.models: dict[str, LogReg] = {}

    def fit(self, X: np.ndarray, y: np.ndarray) -> "TenpaiModel":
        """Rows of non-riichi opponents; y = tenpai now."""
        ka, tu = buckets(X)
        self.models = {"all": LogReg(TENPAI_FEATURES, C=self.C).fit(X, y)}
        for a in range(N_TAKE_BUCKETS):
            m = ka == a
            if m.sum() >= MIN_ROWS and len(np.unique(y[m])) == 2:
                self.models[f"{a}"] = LogReg(TENPAI_FEATURES, C=self.C).fit(X[m], y[m])
            for b in range(N_TURN_BUCKETS):
                mb = m & (tu == b)
                if mb.sum() >= MIN_ROWS and len(np.unique(y[mb])) == 2:
                    self.models[f"{a}/{b}"] = LogReg(TENPAI_FEATURES, C=self.C).fit(X[mb], y[mb])
        return self

    def predict_proba(self, X: np.ndarray, riichi: np.ndarray | None = None) -> np.ndarray:
        """P(tenpai) per row; rows with ``riichi`` set are 1."""
        X = np.atleast_2d(X)
        ka, tu = buckets(X)
        out = np.empty(len(X))
        keys = [f"{a}/{b}" if f"{a}/{b}" in self.models else (f"{a}" if f"{a}" in self.models else "all")
                for a, b in zip(ka, tu)]
        for key in set(keys):
            m = np.array([k == key for k in keys])
            out[m] = self.models[key].predict_proba(X[m])
        if riichi is not None:
            out[np.asarray(riichi, dtype=bool)] = 1.0
        return out

    def predict_rows(self, arr: dict) -> np.ndarray:
        """P_T[n, 3] of the three opponents of every ``dec_*`` row of a dataset (riichi = 1)."""
        n = len(arr["dec_tile"])
        return self.predict_proba(arr["dec_tf"].reshape(n * 3, -1), riichi=arr["dec_riichi"].reshape(-1)).reshape(n, 3)

    def save(self, path: str | Path) -> Path:
        return save_json({"C": self.C, "models": {k: m.to_dict() for k, m in self.models.items()}},
                         path, KIND)

    @classmethod
    def load(cls, path: str | Path) -> "TenpaiModel":
        d = load_json(path, KIND)
        m = cls(d["C"])
        m.models = {k: LogReg.from_dict(v, TENPAI_FEATURES, str(path)) for k, v in d["models"].items()}
        return m
