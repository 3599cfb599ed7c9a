"""Estimators of Kurita & Hoki Sec. VI-B/VI-C (see regressors/README.md)."""


def __getattr__(name: str):
    # lazy: importing the package must not pull numba/scikit-learn in
    if name in ("Estimators", "load_default", "DecisionEstimates"):
        from regressors import estimators

        return getattr(estimators, name)
    raise AttributeError(name)
