"""Final-rank model, Eq. 1: P(RANK(x, i) | phi) by multinomial logistic regression.

phi is the situation at the start of a hand (scores, round, dealer, honba, sticks); the
player asks it for the situation after each possible outcome of the hand in progress and
turns the rank probabilities into an expected payoff U_hand = sum_x P(x) U_game(x), with
U_game(x) = -x by default (``specs/kurita_hoki.md`` A10: "expected final rank").
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from regressors.base import LogReg, load_json, save_json
from regressors.features import RANK_FEATURES, current_ranks, rank_features_batch

KIND = "final_rank"


class FinalRankModel:
    def __init__(self, C: float = 1.0):
        self.lr = LogReg(RANK_FEATURES, n_classes=4, C=C)

    def fit(self, X: np.ndarray, y: np.ndarray) -> "FinalRankModel":
        self.lr.fit(X, y)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """(n, 4) probabilities of final rank 1..4 for feature rows."""
        return self.lr.predict_proba(X)

    def rank_probs(self, scores: Sequence[int], round_wind: int, kyoku: int, dealer: int,
                   honba: int = 0, kyotaku: int = 0, *, hanchan: bool = False,
                   game_over: bool = False) -> np.ndarray:
        """(4 seats, 4 ranks): each seat's final-rank distribution from a situation.

        ``game_over`` gives the exact ranks of final scores (leftover sticks ignored). The
        four rows are renormalised so each rank is also taken once in expectation.
        """
        if game_over:
            out = np.zeros((4, 4))
            for s, r in enumerate(current_ranks(scores)):
                out[s, r - 1] = 1.0
            return out
        return self.rank_probs_batch(np.asarray([scores], dtype=np.float64), round_wind, kyoku, dealer, honba,
                                     kyotaku, hanchan)[0]

    def rank_probs_batch(self, scores: np.ndarray, round_wind: int, kyoku: int, dealer: int, honba: int,
                         kyotaku: int, hanchan: bool = False) -> np.ndarray:
        """(m, 4 seats, 4 ranks): :meth:`rank_probs` for each row of ``scores`` (m, 4), all at
        the start of the same hand."""
        X = rank_features_batch(scores, round_wind, kyoku, dealer, honba, kyotaku, hanchan)
        m = X.shape[0]
        P = self.predict_proba(X.reshape(m * 4, -1)).reshape(m, 4, 4)
        for _ in range(3):  # a few Sinkhorn steps: each rank is also taken once in expectation
            P = P / P.sum(axis=1, keepdims=True)
            P = P / P.sum(axis=2, keepdims=True)
        return P

    def expected_rank(self, *args, **kwargs) -> np.ndarray:
        """Expected final rank (1..4) of each seat: the Eq. 1 payoff with U_game(x) = -x, negated."""
        return self.rank_probs(*args, **kwargs) @ np.arange(1, 5)

    def save(self, path: str | Path) -> Path:
        return save_json({"model": self.lr.to_dict()}, path, KIND)

    @classmethod
    def load(cls, path: str | Path) -> "FinalRankModel":
        d = load_json(path, KIND)
        m = cls()
        m.lr = LogReg.from_dict(d["model"], RANK_FEATURES, str(path))
        return m
