"""Value of another player's win: the points of a deal-in and of an "other win" (Sec. VI-C).

A multinomial logistic regression over point classes (1,000 ... yakuman in non-dealer
terms; a dealer's points are 1.5 times) on the winner's public features: riichi, calls,
dora in melds, yakuhai, flush-looking melds. The player turns the class distribution into
rank changes with the final-rank model (an expectation over classes, not over points).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from regressors.base import LogReg, load_json, save_json
from regressors.datasets import N_POINT_CLASSES, POINT_BOUNDS
from regressors.features import WIN_VALUE_FEATURES, win_value_features

KIND = "win_value"
# Typical non-dealer points of each class (used until a class has data).
DEFAULT_POINTS = (1000, 2000, 3900, 5800, 8000, 12000, 16000, 24000, 32000)


class WinValueModel:
    # Strong regularisation: ~1,000 wins per few hundred games. C=0.03 is the strongest
    # setting within one standard error of the best held-out self-play log-loss (the
    # "one-SE rule"); C=1 was 0.04 better on self-play but worse than the base rates on
    # the phoenix games (regressors/README.md).
    def __init__(self, C: float = 0.03):
        self.lr = LogReg(WIN_VALUE_FEATURES, n_classes=N_POINT_CLASSES, C=C)
        self.points = np.array(DEFAULT_POINTS, dtype=float)

    def fit(self, X, cls, points, dealer) -> "WinValueModel":
        self.lr.fit(X, cls)
        base = np.where(dealer, points * 2 / 3, points)
        for c in range(N_POINT_CLASSES):
            m = cls == c
            if m.sum() >= 5:
                self.points[c] = base[m].mean()
        return self

    def predict_proba(self, X) -> np.ndarray:
        return self.lr.predict_proba(X)

    def class_points(self, dealer: bool) -> np.ndarray:
        """Points of each class for a dealer or non-dealer winner (rounded to 100)."""
        return np.round(self.points * (1.5 if dealer else 1.0), -2)

    def value(self, view, j: int) -> tuple[np.ndarray, np.ndarray]:
        """(class probabilities, class points) of seat ``j``'s win."""
        p = self.predict_proba(win_value_features(view, j)[None])[0]
        return p, self.class_points(j == view.dealer)

    def value_in_riichi(self, view, j: int) -> np.ndarray:
        """The class probabilities of seat ``j``'s win were it in riichi now (the world after
        a later riichi, ``abstractions.situation.later_riichi``)."""
        x = win_value_features(view, j)
        x[WIN_VALUE_FEATURES.index("riichi")] = 1.0
        return self.predict_proba(x[None])[0]

    def value_with_new_dora(self, view, j: int, new: int = 1) -> np.ndarray:
        """The class probabilities of seat ``j``'s win were ``new`` more dora indicators shown
        (after our kan: ``abstractions.situation.after_kan``); the feature's fitted weight says
        how much an indicator raises a win (one more: about 1.25-1.4 times the points)."""
        x = win_value_features(view, j)
        x[WIN_VALUE_FEATURES.index("dora_indicators")] += float(new)
        return self.predict_proba(x[None])[0]

    def expected_points(self, view, j: int) -> float:
        p, pts = self.value(view, j)
        return float(p @ pts)

    def save(self, path) -> Path:
        return save_json({"model": self.lr.to_dict(), "points": self.points.tolist(),
                          "bounds": list(POINT_BOUNDS)}, path, KIND)

    @classmethod
    def load(cls, path) -> "WinValueModel":
        d = load_json(path, KIND)
        m = cls()
        m.lr = LogReg.from_dict(d["model"], WIN_VALUE_FEATURES, str(path))
        m.points = np.array(d["points"], dtype=float)
        return m
