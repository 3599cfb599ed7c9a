"""The bundle of trained estimators the MDP player loads once and calls once per decision.

    est = Estimators.default()            # the parameters shipped in regressors/models/
    d = est.decision(state)               # a TableState (or any view with its fields)
    d.p_lose[t], d.p_ron[j, t], d.p_tenpai[j], d.p_end, d.horizon, d.win_value[j]
    est.hazards(state, d, q)              # per-turn other-win hazards, tenpai at the draw

Every file is plain JSON (see :mod:`regressors.base`); a missing or mismatched one raises
``ModelFileError`` naming it.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from regressors.deal_in import WaitHistogram, deal_in_probs
from regressors.final_rank import FinalRankModel
from regressors.hand_end import HandEndModel, HorizonModel
from regressors.hazard import OWN_CLASSES, HazardModel, wait_class
from regressors.features import hand_end_features, hand_shanten, horizon_features
from regressors.payoffs import WinValueModel
from regressors.tenpai import TenpaiModel

DEFAULT_DIR = Path(__file__).resolve().parent / "models"
FILES = {
    "final_rank": ("final_rank.json", FinalRankModel),
    "tenpai": ("tenpai.json", TenpaiModel),
    "wait_histogram": ("wait_histogram.json", WaitHistogram),
    "hand_end": ("hand_end.json", HandEndModel),
    "horizon": ("horizon.json", HorizonModel),
    "win_value": ("win_value.json", WinValueModel),
    "hazard": ("hazard.json", HazardModel),
}


def load_default(name: str, directory: str | Path | None = None):
    """One shipped estimator by name (``final_rank``, ``tenpai``, ``wait_histogram``,
    ``hand_end``, ``horizon``, ``win_value``, ``hazard``)."""
    from game.errors import ModelFileError

    if name not in FILES:
        raise ModelFileError(f"unknown estimator {name!r}; known: {', '.join(FILES)}")
    fname, cls = FILES[name]
    return cls.load(Path(directory or DEFAULT_DIR) / fname)


def load_rank_model(path: str | Path):
    """Eq. 1's model from a file of either kind: ``final_rank`` (the logistic regression of
    ``regressors.final_rank``) or ``rank_sim`` (playouts of recorded hands, ``regressors.rank_sim``)."""
    from regressors.base import file_kind
    from regressors.rank_sim import KIND as SIM_KIND, SimRankModel

    return SimRankModel.load(path) if file_kind(path) == SIM_KIND else FinalRankModel.load(path)


@dataclass
class DecisionEstimates:
    """What one decision needs, by absolute seat (the deciding seat's own row is zero)."""

    p_lose: np.ndarray      # [34] P_L(t): the discard of kind t is ronned at once
    p_ron: np.ndarray       # [4, 34] P(ron_j(t)), Eq. 20
    p_tenpai: np.ndarray    # [4] P^j_T
    p_end: float            # the hand ends (another's win or a draw) before our next turn
    ratio: float            # r = T / T_max
    horizon: int            # T = max(1, round(r T_max))
    win_class_probs: np.ndarray   # [4, classes] point class of j's win
    win_class_points: np.ndarray  # [4, classes] points of each class for j
    win_value: np.ndarray   # [4] expected points of j's win
    p_wait: np.ndarray      # [4, 34] P(t is j's wait | j tenpai): P(ron_j(t)) = P^j_T p_wait[j, t]


@dataclass
class Hazards:
    """The endings of the hand over our future turns (``regressors.hazard``)."""

    p_other: np.ndarray         # [len(q)] another's win in each interval q, hand going on
    p_other_riichi: np.ndarray  # the same with us in riichi (the others fold)
    p_abort: float              # an abortive draw in an interval
    p_tenpai_end: np.ndarray    # [4] each opponent tenpai at an exhaustive draw (own seat 0)
    p_tenpai_ahead: np.ndarray  # [len(q), 4] each opponent's tenpai chance at interval q (own seat 0)
    p_tsumo: float              # share of wins by tsumo
    p_ippatsu: float            # share of riichi wins with ippatsu
    ron_scale: float            # the others discard our waits at this share of random
    ron_scale_riichi: float     # the same with us in riichi
    dama_share: float           # share of the opponents' tenpai hands not in riichi (no sign given)
    riichi_pass: float          # share of our kinds a riichi can ron that the others pass in a turn
    ron_given_wait: np.ndarray  # [4] share of the discards of its waits each seat rons (its class's)
    tenpai_other: float         # p_other times this while our hand is tenpai (not in riichi)
    draw_share: float           # we draw our waits at this share of their unseen share
    ron_share_by: np.ndarray    # [2, 4] ron_scale (free, in riichi) by each seat as the discarder (own seat 0)
    share_slope: tuple          # our useful draws' share falls by this as the wall runs down (tenpai, 1, 2, 3+ shanten)
    discards: dict | None = None  # the opponents' discard weights by tile class (regressors.discards), if fitted
    ron_wall: dict | None = None  # the ron shares by the tiles left (regressors.ron_wall), if fitted
    ron_points: dict | None = None  # a win's worth by ron and by tsumo by the winner's class (regressors.ron_points), if fitted
    # a riichi declared now by seat j (``hazards(..., facing=True)`` only; else None)
    p_other_facing: np.ndarray | None = None         # [4, len(q)] p_other were seat j in riichi now
    p_other_facing_riichi: np.ndarray | None = None  # the same with us in riichi too
    can_riichi: np.ndarray | None = None             # [4] seat j may still declare (closed, not in riichi)
    win_class_probs_riichi: np.ndarray | None = None  # [4, classes] j's win classes were j in riichi
    ron_share_riichi: np.ndarray | None = None  # [2] ron_share_by of a discarder in riichi (we free, in riichi)


class Estimators:
    def __init__(self, models: dict):
        self.final_rank: FinalRankModel = models["final_rank"]
        self.tenpai: TenpaiModel = models["tenpai"]
        self.waits: WaitHistogram = models["wait_histogram"]
        self.hand_end: HandEndModel = models["hand_end"]
        self.horizon_model: HorizonModel = models["horizon"]
        self.win_value: WinValueModel = models["win_value"]
        self.hazard: HazardModel = models["hazard"]

    def with_final_rank(self, rank_model) -> "Estimators":
        """A copy whose Eq. 1 model is ``rank_model`` (the other estimators shared)."""
        out = copy.copy(self)
        out.final_rank = rank_model
        return out

    def with_hazard(self, hazard) -> "Estimators":
        """A copy whose hazard model (``regressors.hazard.HazardModel``) is ``hazard``."""
        out = copy.copy(self)
        out.hazard = hazard
        return out

    @classmethod
    def load(cls, directory: str | Path) -> "Estimators":
        return cls({name: load_default(name, directory) for name in FILES})

    @classmethod
    def default(cls) -> "Estimators":
        return cls.load(DEFAULT_DIR)

    def save(self, directory: str | Path) -> None:
        d = Path(directory)
        for name, (fname, _) in FILES.items():
            model = {"final_rank": self.final_rank, "tenpai": self.tenpai, "wait_histogram": self.waits,
                     "hand_end": self.hand_end, "horizon": self.horizon_model,
                     "win_value": self.win_value, "hazard": self.hazard}[name]
            model.save(d / fname)

    def decision(self, view, shanten: int | None = None) -> DecisionEstimates:
        """All per-decision estimates for the seat of ``view``, vectorised over tiles.

        ``shanten`` is the deciding hand's (for the horizon); computed when not given.
        """
        me = view.seat
        p_lose, p_ron, pt, p_wait = deal_in_probs(view, self.tenpai, self.waits)
        others = [(me + k) % 4 for k in (1, 2, 3)]
        pt3 = pt[others]
        p_end = float(self.hand_end.predict_proba(hand_end_features(view, me, pt3)[None])[0])
        if shanten is None:
            shanten = hand_shanten(view)
        r = float(self.horizon_model.predict_proba(horizon_features(view, me, pt3, shanten)[None])[0])
        probs = np.zeros((4, len(self.win_value.points)))
        points = np.zeros_like(probs)
        for j in others:
            probs[j], points[j] = self.win_value.value(view, j)
        return DecisionEstimates(p_lose, p_ron, pt, p_end, r, HorizonModel.horizon(r, view.tiles_left),
                                 probs, points, (probs * points).sum(1), p_wait)

    def kan_win_classes(self, view, new: int = 1) -> np.ndarray:
        """[4, classes]: the opponents' win classes of ``view``'s seat were ``new`` more dora
        indicators shown (our kan's; the seat's own row is zero)."""
        me = view.seat
        out = np.zeros((4, len(self.win_value.points)))
        for j in ((me + k) % 4 for k in (1, 2, 3)):
            out[j] = self.win_value.value_with_new_dora(view, j, new)
        return out

    def hazards(self, view, d: DecisionEstimates, q: np.ndarray, *, facing: bool = False,
                shanten: int | None = None) -> Hazards:
        """Per-interval endings for ``view``'s seat (``q = 1``: after the discard made now).
        ``facing``: also the table were an opponent to declare riichi now (the hazards, its
        win classes, who may declare), for ``abstractions.situation.later_riichi``.
        ``shanten``: the seat's hand's (read by hazard files since session 54); computed when
        not given."""
        from regressors.features import n_takes

        me = view.seat
        sh = hand_shanten(view) if shanten is None else int(shanten)
        others = [(me + k) % 4 for k in (1, 2, 3)]
        pt = d.p_tenpai[others]
        riichi = np.array([bool(view.riichi[j]) for j in others])
        open_ = np.array([n_takes(view.melds[j]) > 0 for j in others])
        w = int(view.tiles_left)
        hz = self.hazard
        end = np.zeros(4)
        end[others] = hz.p_tenpai_end(w, pt, riichi, open_)
        ahead = np.zeros((len(q), 4))
        ahead[:, others] = hz.p_tenpai_ahead(w, pt, riichi, open_, q)
        out = Hazards(hz.p_other(w, pt, riichi, open_, q, bool(view.riichi[me]), sh),
                      hz.p_other(w, pt, riichi, open_, q, True, sh), hz.p_abort, end, ahead, hz.p_tsumo,
                      hz.p_ippatsu, hz.ron_scale, hz.ron_scale_riichi, hz.dama_share, hz.riichi_pass,
                      np.array([hz.ron_given_wait[wait_class(view, j)] for j in range(4)]), hz.tenpai_other,
                      hz.draw_share, np.array([[hz.ron_share_by[o][wait_class(view, j)] if j != me else 0.0
                                                for j in range(4)] for o in OWN_CLASSES]), hz.share_slope,
                      hz.discards, hz.ron_wall, hz.ron_points)
        if facing:
            p_o = np.zeros((2, 4, len(q)))
            classes = np.zeros_like(d.win_class_probs)
            for x, j in enumerate(others):
                one = np.arange(3) == x
                for r, own in enumerate((bool(view.riichi[me]), True)):
                    p_o[r, j] = hz.p_other(w, np.where(one, 1.0, pt), riichi | one, open_, q, own, sh)
                classes[j] = self.win_value.value_in_riichi(view, j)
            can = np.zeros(4, bool)
            can[others] = ~riichi & ~open_
            out = replace(out, p_other_facing=p_o[0], p_other_facing_riichi=p_o[1], can_riichi=can,
                          win_class_probs_riichi=classes,
                          ron_share_riichi=np.array([hz.ron_share_by[o]["riichi"] for o in OWN_CLASSES]))
        return out
