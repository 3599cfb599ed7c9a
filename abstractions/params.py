"""The parameter bundle of the solitary MDPs (Kurita & Hoki Sec. VI-C; ``kurita_hoki.md`` 5, 9.2).

Everything is plain numbers and arrays, so the estimators (regressors, CNNs) and the scorer
plug in from above without this package knowing them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from game.errors import MahjongError

#: ``payoff(hands14 (m, 34) uint8, win_tile (m,) int, tsumo: bool) -> (m,) float``: the payoff
#: of winning with each completed hand (``hands14`` already holds the winning tile).
Payoff = Callable[[np.ndarray, np.ndarray, bool], np.ndarray]


@dataclass
class MDPParams:
    """Inputs of PSM / FSM / WSM / TSM.

    Attributes
    ----------
    T : int
        Horizon: the discards player *i* can still make (a 14-tile root's own discard counts).
    p_lose, u_lose : float[34]
        Probability that a discard of each kind is ronned at once, and the payoff then (Eq. 20).
    p_other : float or float[T]
        Per turn ``n = 0..T-1``: probability that the hand ends by another player's win before
        *i*'s next draw; payoff ``u_other``.
    p_end : float or float[T]
        Per turn: probability that the hand ends in a draw before *i*'s next draw (abortive or an
        earlier exhaustive draw); payoff ``u_tw`` / ``u_nw`` by *i*'s tenpai.
    u_tw, u_nw : float
        Washout payoffs with *i* tenpai / noten (also at the horizon).
    p_disc : float[34], optional
        Opponents' discard distribution for *i*'s ron chances; default proportional to the unseen
        counts (spec A5).
    ron_ok : bool[34], optional
        Kinds *i* may ron (False for furiten kinds, spec A13); default all.
    payoff : Payoff or float
        Win payoffs (a constant, or a callable such as the scorer + rank model).
    fsm_p, fold : float, bool
        FSM's constant other-win probability (spec A2) and whether PSM may fold (A1).
    u_end : float, optional
        FSM's end payoff ``U_E``; default ``u_nw``.
    tsumo_forced : bool
        A legal tsumo must be taken (the rule of ``shimizu.md``'s mini-mahjong).
    """

    T: int
    p_lose: np.ndarray = field(default_factory=lambda: np.zeros(34))
    u_lose: np.ndarray = field(default_factory=lambda: np.zeros(34))
    p_other: float | np.ndarray = 0.0
    u_other: float = 0.0
    p_end: float | np.ndarray = 0.0
    u_tw: float = 0.0
    u_nw: float = 0.0
    p_disc: np.ndarray | None = None
    ron_ok: np.ndarray | None = None
    payoff: Payoff | float = 1.0
    fsm_p: float = 0.1
    fold: bool = True
    u_end: float | None = None
    tsumo_forced: bool = False

    def checked(self, unseen: np.ndarray) -> "MDPParams":
        """A copy with every array at its full shape and dtype; raises ``MahjongError``."""
        T = int(self.T)
        if T < 1:
            raise MahjongError(f"horizon T must be >= 1, got {self.T}")
        pl = _vec(self.p_lose, 34, "p_lose")
        if ((pl < 0) | (pl > 1)).any():
            raise MahjongError("p_lose must lie in [0, 1]")
        po = _vec(self.p_other, T, "p_other")
        pe = _vec(self.p_end, T, "p_end")
        if ((po < 0) | (po > 1) | (pe < 0) | (pe > 1)).any():
            raise MahjongError("p_other and p_end must lie in [0, 1]")
        if self.p_disc is None:
            w = np.asarray(unseen, dtype=np.float64)
            pd = w / w.sum() if w.sum() > 0 else np.zeros(34)
        else:
            pd = _vec(self.p_disc, 34, "p_disc")
            if (pd < 0).any() or pd.sum() > 1 + 1e-9:
                raise MahjongError("p_disc must be a distribution over the 34 kinds")
        ron = np.ones(34, np.bool_) if self.ron_ok is None else np.asarray(self.ron_ok, dtype=np.bool_)
        if ron.shape != (34,):
            raise MahjongError("ron_ok must have 34 entries")
        return MDPParams(T=T, p_lose=pl, u_lose=_vec(self.u_lose, 34, "u_lose"), p_other=po,
                         u_other=float(self.u_other), p_end=pe, u_tw=float(self.u_tw), u_nw=float(self.u_nw),
                         p_disc=pd, ron_ok=ron, payoff=self.payoff, fsm_p=float(self.fsm_p), fold=bool(self.fold),
                         u_end=float(self.u_nw if self.u_end is None else self.u_end),
                         tsumo_forced=bool(self.tsumo_forced))


def _vec(x, n: int, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        return np.full(n, float(a))
    if a.shape != (n,):
        raise MahjongError(f"{name} must be a number or {n} numbers, got shape {a.shape}")
    return a.copy()


def win_payoffs(graph, payoff: Payoff | float) -> tuple[np.ndarray, np.ndarray]:
    """Tsumo and ron payoffs aligned to ``graph``'s win list."""
    states, tiles = graph.win_pairs()
    m = len(states)
    if not callable(payoff):
        return np.full(m, float(payoff)), np.full(m, float(payoff))
    hands14 = graph.hands[states].copy()
    hands14[np.arange(m), tiles] += 1
    ts = np.asarray(payoff(hands14, tiles, True), dtype=np.float64)
    rn = np.asarray(payoff(hands14, tiles, False), dtype=np.float64)
    if ts.shape != (m,) or rn.shape != (m,):
        raise MahjongError(f"payoff must return {m} values")
    return ts, rn
