"""Logistic regression with plain-file parameters: the common piece of every estimator.

scikit-learn fits; prediction is a few numpy lines on the saved coefficients, so a model is
a JSON object (no pickle) and loading needs no scikit-learn. Every file names its kind,
format version and feature names; a missing or mismatched file raises ``ModelFileError``
naming it.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from game.errors import ModelFileError

FORMAT_VERSION = 1


class LogReg:
    """Binary or multinomial logistic regression on standardised features."""

    def __init__(self, feature_names: Sequence[str], n_classes: int = 2, C: float = 1.0):
        self.feature_names = tuple(feature_names)
        self.n_classes = n_classes
        self.C = C
        self.mean = np.zeros(len(self.feature_names))
        self.scale = np.ones(len(self.feature_names))
        self.coef = np.zeros((1 if n_classes == 2 else n_classes, len(self.feature_names)))
        self.intercept = np.zeros(self.coef.shape[0])

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> "LogReg":
        """Fit on labels 0..n_classes-1; a class missing from ``y`` gets a large negative
        intercept instead of an error (small buckets of records)."""
        from sklearn.linear_model import LogisticRegression

        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        self.mean = X.mean(axis=0)
        self.scale = X.std(axis=0)
        self.scale[self.scale < 1e-9] = 1.0
        Z = (X - self.mean) / self.scale
        present = np.unique(y)
        if len(present) == 1:  # a bucket with one class: a constant, smoothed rate
            self.coef[:] = 0.0
            rate = (len(y) + 0.5) / (len(y) + 1.0)
            if self.n_classes == 2:
                self.intercept[:] = np.log(rate / (1 - rate)) * (1 if present[0] == 1 else -1)
            else:
                self.intercept[:] = np.log((1 - rate) / (self.n_classes - 1))
                self.intercept[present[0]] = np.log(rate)
            return self
        model = LogisticRegression(C=self.C, max_iter=2000)
        model.fit(Z, y, sample_weight=sample_weight)
        if self.n_classes == 2:
            self.coef = model.coef_.copy()
            self.intercept = model.intercept_.copy()
        else:
            self.coef[:] = 0.0
            self.intercept[:] = -30.0
            coef = model.coef_ if len(present) > 2 else np.vstack([-model.coef_, model.coef_]) / 2
            icpt = model.intercept_ if len(present) > 2 else np.array([-1, 1]) * model.intercept_[0] / 2
            for row, cls in enumerate(model.classes_):
                self.coef[cls] = coef[row]
                self.intercept[cls] = icpt[row]
        return self

    def decision(self, X: np.ndarray) -> np.ndarray:
        Z = (np.atleast_2d(np.asarray(X, dtype=np.float64)) - self.mean) / self.scale
        return Z @ self.coef.T + self.intercept

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """P(class) per row: shape (n,) for a binary model (P of class 1), (n, K) otherwise."""
        z = self.decision(X)
        if self.n_classes == 2:
            return 1.0 / (1.0 + np.exp(-np.clip(z[:, 0], -40, 40)))
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    # --- plain-file parameters ---------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"features": list(self.feature_names), "n_classes": self.n_classes, "C": self.C,
                "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": self.intercept.tolist()}

    @classmethod
    def from_dict(cls, d: dict, feature_names: Sequence[str], where: str) -> "LogReg":
        if list(d.get("features", [])) != list(feature_names):
            raise ModelFileError(f"{where}: its features {d.get('features')} do not match the "
                                 f"code's {list(feature_names)}; retrain it")
        m = cls(feature_names, int(d["n_classes"]), float(d.get("C", 1.0)))
        m.mean = np.array(d["mean"], dtype=np.float64)
        m.scale = np.array(d["scale"], dtype=np.float64)
        m.coef = np.array(d["coef"], dtype=np.float64).reshape(m.coef.shape)
        m.intercept = np.array(d["intercept"], dtype=np.float64).reshape(m.intercept.shape)
        return m


def save_json(obj: dict, path: str | Path, kind: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"kind": kind, "format_version": FORMAT_VERSION, **obj}
    path.write_text(json.dumps(payload, separators=(",", ":")))
    return path


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ModelFileError(f"{path}: model file is missing") from None
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"{path}: cannot read the model file ({exc})") from None


def file_kind(path: str | Path) -> str | None:
    """The ``kind`` a model file names (None when it names none); ``ModelFileError`` as
    :func:`load_json` when it is missing or unreadable."""
    d = _read_json(Path(path))
    return d.get("kind") if isinstance(d, dict) else None


def load_json(path: str | Path, kind: str) -> dict:
    """Read a model file of ``kind``; ``ModelFileError`` naming the file when it is missing,
    unreadable, of another kind or of another format version."""
    path = Path(path)
    d = _read_json(path)
    if not isinstance(d, dict) or d.get("kind") != kind:
        raise ModelFileError(f"{path}: expected a {kind!r} model file, found "
                             f"{d.get('kind') if isinstance(d, dict) else type(d).__name__!r}")
    if d.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path}: format version {d.get('format_version')} != {FORMAT_VERSION}")
    return d
