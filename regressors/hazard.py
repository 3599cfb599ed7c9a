"""How the hand in progress will end: per-turn hazards and the tenpai at the draw.

The solitary MDPs (``specs/kurita_hoki.md`` 3.1, 5.3, A5) need, for every future turn ``q``
of player *i* (``q = 1`` the interval after the discard *i* is choosing now):

* ``P_O[q]``: the chance that another player's win ends the hand between *i*'s ``q``-th
  discard and *i*'s next draw, given that the hand is still going (a discrete-time hazard);
* ``P_end[q]``: the same for an abortive draw (four riichi, four kans, ...);
* ``P^j_T,end``: the chance that opponent *j* is tenpai when the wall runs out, given that
  it does (the noten payments of the washout payoffs ``U_tw``, ``U_nw``; Eq. 19's "tenpai
  probabilities when a hand ends");
* ``P^j_T[q]``: opponent *j*'s tenpai chance at *i*'s ``q``-th discard from now, the hand
  still going: the deal-in chances of Eq. 20 grow with it over the MDP's turns.

:class:`HazardModel` holds two logistic regressions fitted on the discard rows of records
(``regressors.datasets``: ``end_kind``, ``t_left``, ``reach_q``, ``end_tenpai``), each row
expanded into one row per future interval it survived into, with the features of *now* and
of that interval (tiles left then, whether *i* is in riichi then). The abortive-draw hazard
is one rate per interval, counted in the same rows. Two shares of the records' wins complete
the endings: ``p_tsumo`` (a win by tsumo, not ron) and ``p_ippatsu`` (a riichi win with
ippatsu). Two ratios say how much less often the others discard a tenpai player's waits
than if they threw their tiles at random (its unseen tiles): ``ron_scale`` for a hand not in
riichi, ``ron_scale_riichi`` for a riichi (the discards of the records' tenpai players' waits
over the share of those waits among their unseen tiles, summed over the others' discards).
One rate says how fast a riichi's danger leaves the tiles we hold: ``riichi_pass``, the share
of the kinds in our hand that a riichi player can still ron which the others discard before
our next discard with the hand going on (:func:`replay_rates`; a kind passed after the
declaration can never be ronned by it, and had it been a wait the hand would have ended).
And a tenpai hand does not ron every discard of its waits (a wait without a yaku, furiten):
``ron_given_wait`` is the share ronned, for a riichi, a closed hand not in riichi (dama) and
an open hand (:func:`replay_rates`; Eq. 20's ``P_T P(t is j's wait)`` counts them all).
``tenpai_other`` says how much rarer another's win is while *i*'s own hand is tenpai than
the hazard, which knows nothing of *i*'s hand, predicts (:func:`tenpai_other_ratio`), and
``draw_share`` how much less often a tenpai hand draws its waits than their unseen share says,
and ``share_slope`` how that share falls as the wall runs down, at tenpai and at 1, 2 and 3+
shanten for the kinds that lower the shanten (:func:`replay_rates`, :func:`wall_shares`). ``ron_share_by`` splits ``ron_scale`` by who discards: a riichi
player throws what it draws, a free closed hand holds back (:func:`ron_share_by_discarder`).
``discards`` (in files fitted since session 43) says what the opponents discard: the weight of
each tile class by the wall against random picks among their unseen tiles
(:mod:`regressors.discards`). ``ron_wall`` (since session 44) splits ``ron_scale`` and
``ron_scale_riichi`` by the tiles left (:mod:`regressors.ron_wall`). ``ron_points`` (since
session 47) says what a win is worth by ron and by tsumo over the win-value model's mean, by
the winner's class (:mod:`regressors.ron_points`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from game.errors import ModelFileError
from regressors.base import LogReg, load_json, save_json
from regressors.discards import check as check_discards, fit as fit_discards
from regressors.ron_wall import check as check_ron_wall, fit as fit_ron_wall
from regressors.ron_points import check as check_ron_points, fit as fit_ron_points

KIND = "hazard"

#: Bins of the live-wall tiles left in an interval (the hazard is not monotone in it: it
#: rises through the middle of the hand and falls in the last go-around, when fewer draws
#: are left in the interval).
WALL_BINS = (4, 10, 20, 30, 40, 50)
#: Bands of the interval ``q`` (session 33): with ``q`` as one linear term the hazard was off by
#: the interval on held-out self-play (observed / predicted other wins 0.88 at ``q`` = 1, 1.10 at
#: 5-7, 0.87 at 12+; with the bands 0.96-1.05; docs/sessions.md, "Session 33").
Q_BAND_FEATURES = ("q_eq_1", "q_eq_2", "q_3_to_4", "q_ge_12", "q_ge_12_x_tiles_left_then")
#: The others' riichi by the wall and the interval (session 51): with ``riichi_others`` as one
#: term (and ``riichi_x_turns``) the hazard facing a riichi was off by the wall on games of
#: session 45's player (another's win observed / predicted 1.86 with 45-70 tiles left then, 0.89
#: at 15-29, 1.20 at 5-14 and 1.58 at 0-4; refitted with these, held out by game: 1.26, 0.96,
#: 1.04 and 1.03; docs/sessions.md, "Session 51").
RIICHI_WALL_FEATURES = ("riichi_x_lt_4", "riichi_x_lt_10", "riichi_x_lt_20", "riichi_x_ge_40",
                        "riichi_x_q_eq_1", "riichi_x_q_eq_2")
#: Our own hand now (session 54): fitted on every seat alike, the hazard of session 52 saw
#: another's win 1.19-1.33 times as often as it predicted after the discards of a seat at 1
#: shanten with fewer than 15 tiles left and no riichi on the table, in every interval ahead
#: (every seat there: 0.87-1.08; 300 games of the default's self-play, docs/sessions.md "Session 54").
#: ``calm``: no other seat in riichi now; ``lt_15``: fewer than 15 tiles left now.
OWN_HAND_FEATURES = ("own_tenpai", "own_1_shanten", "own_1_shanten_x_calm", "own_tenpai_x_lt_15",
                     "own_1_shanten_x_lt_15", "own_1_shanten_x_calm_x_lt_15")
HAZARD_FEATURES = ("tiles_left_then", *(f"tiles_left_then_lt_{b}" for b in WALL_BINS), "turns_ahead",
                   "riichi_others", "sum_pt", "max_pt", "any_open_pt", "own_riichi_then", "sum_pt_x_late",
                   "riichi_x_turns", *Q_BAND_FEATURES, *RIICHI_WALL_FEATURES, *OWN_HAND_FEATURES)
#: The features of hazard files fitted before the bands (their leading columns): such a file
#: still loads and reads those columns only (every shipped file before session 51: the bands
#: played no better in games, docs/sessions.md "Session 33", and some of their records are gone).
HAZARD_FEATURES_LINEAR_Q = HAZARD_FEATURES[:-len(Q_BAND_FEATURES) - len(RIICHI_WALL_FEATURES) - len(OWN_HAND_FEATURES)]
#: The features of hazard files fitted with the bands and before the riichi terms.
HAZARD_FEATURES_BANDS = HAZARD_FEATURES[:-len(RIICHI_WALL_FEATURES) - len(OWN_HAND_FEATURES)]
#: The features of hazard files fitted with the riichi terms and before our own hand's
#: (``hazard_s51.json``, ``hazard_s52.json``).
HAZARD_FEATURES_RIICHI = HAZARD_FEATURES[:-len(OWN_HAND_FEATURES)]
#: Every feature list a hazard file may hold: each a leading part of the next.
HAZARD_FEATURE_SETS = (HAZARD_FEATURES_LINEAR_Q, HAZARD_FEATURES_BANDS, HAZARD_FEATURES_RIICHI, HAZARD_FEATURES)
END_TENPAI_FEATURES = ("pt", "riichi", "open", "tiles_left", "pt_x_tiles_left")
#: Bins of the turns ahead (lower bounds) of the tenpai projection.
AHEAD_BINS = (2, 3, 5, 7, 10)
TENPAI_AHEAD_FEATURES = ("pt", "riichi", "open", "tiles_left", "turns_ahead", "tiles_left_then",
                         "pt_x_turns_ahead", *(f"turns_ahead_ge_{b}" for b in AHEAD_BINS),
                         *(f"tiles_left_then_lt_{b}" for b in WALL_BINS), "logit_pt")
#: Farthest turn ahead of the tenpai projection's training pairs (later turns reuse it).
MAX_AHEAD = 12


def hazard_features(tiles_left: np.ndarray, q: np.ndarray, riichi_others: np.ndarray, pt: np.ndarray,
                    open_pt: np.ndarray, own_riichi: np.ndarray, own_shanten: np.ndarray) -> np.ndarray:
    """Rows of :data:`HAZARD_FEATURES`.

    ``tiles_left``: live-wall tiles at *i*'s decision (after its draw); ``q``: the interval
    (1 = after the discard made now); ``pt`` (n, 3): the opponents' tenpai probabilities now
    (riichi = 1); ``open_pt``: the largest of them among open opponents; ``own_riichi``: *i*
    is in riichi during interval ``q``; ``own_shanten``: *i*'s shanten now (its hand at the
    decision; -1 counts as tenpai).
    """
    q = np.asarray(q, dtype=np.float64)
    w_now = np.asarray(tiles_left, dtype=np.float64)
    w_then = np.maximum(w_now - 4.0 * (q - 1.0), 0.0)
    late = 1.0 - w_then / 70.0
    pt = np.asarray(pt, dtype=np.float64)
    ro = np.asarray(riichi_others, dtype=np.float64)
    bins = [(w_then < b).astype(float) for b in WALL_BINS]
    far = (q >= 12).astype(float)
    return np.column_stack([w_then / 70.0, *bins, q / 18.0, ro, pt.sum(1), pt.max(1),
                            np.asarray(open_pt, dtype=np.float64), np.asarray(own_riichi, dtype=np.float64),
                            pt.sum(1) * late, ro * q / 18.0,
                            q == 1, q == 2, (q >= 3) & (q <= 4), far, far * w_then / 70.0,
                            ro * (w_then < 4), ro * (w_then < 10), ro * (w_then < 20), ro * (w_then >= 40),
                            ro * (q == 1), ro * (q == 2), *_own_hand_columns(own_shanten, ro, w_now)]).astype(np.float32)


def _own_hand_columns(own_shanten: np.ndarray, riichi_others: np.ndarray, tiles_left: np.ndarray) -> list[np.ndarray]:
    """The columns of :data:`OWN_HAND_FEATURES`."""
    sh = np.asarray(own_shanten, dtype=np.float64)
    tenpai, one = (sh <= 0).astype(float), (sh == 1).astype(float)
    calm, late = (riichi_others == 0).astype(float), (tiles_left < 15).astype(float)
    return [tenpai, one, one * calm, tenpai * late, one * late, one * calm * late]


def hazard_interval(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(q, tiles left then)`` of :func:`hazard_features` rows, as integers: the interval
    and the wall that each row's features were made from."""
    q = X[:, HAZARD_FEATURES.index("turns_ahead")] * 18.0
    wall = X[:, HAZARD_FEATURES.index("tiles_left_then")] * 70.0
    return np.rint(q).astype(int), np.rint(wall).astype(int)


def end_tenpai_features(pt: np.ndarray, riichi: np.ndarray, open_: np.ndarray, tiles_left: np.ndarray) -> np.ndarray:
    """Rows of :data:`END_TENPAI_FEATURES` for one opponent each."""
    pt = np.asarray(pt, dtype=np.float64)
    w = np.asarray(tiles_left, dtype=np.float64) / 70.0
    return np.column_stack([pt, np.asarray(riichi, dtype=np.float64), np.asarray(open_, dtype=np.float64), w,
                            pt * w]).astype(np.float32)


def tenpai_ahead_features(pt: np.ndarray, riichi: np.ndarray, open_: np.ndarray, tiles_left: np.ndarray,
                          q: np.ndarray) -> np.ndarray:
    """Rows of :data:`TENPAI_AHEAD_FEATURES`: one opponent now, ``q`` of *i*'s discards ahead."""
    pt = np.asarray(pt, dtype=np.float64)
    q = np.minimum(np.asarray(q, dtype=np.float64), MAX_AHEAD)
    w = np.asarray(tiles_left, dtype=np.float64)
    w_then = np.maximum(w - 4.0 * q, 0.0)
    c = np.clip(pt, 1e-4, 1 - 1e-4)
    return np.column_stack([pt, np.asarray(riichi, dtype=np.float64), np.asarray(open_, dtype=np.float64),
                            w / 70.0, q / 18.0, w_then / 70.0, pt * q / 18.0,
                            *((q >= b).astype(float) for b in AHEAD_BINS),
                            *((w_then < b).astype(float) for b in WALL_BINS),
                            np.log(c / (1 - c))]).astype(np.float32)


def tenpai_ahead_rows(arr: dict, pt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X, label) per opponent for every pair of a discard row and the same seat's discard
    ``q = 1..MAX_AHEAD`` turns later in the same hand: is the opponent tenpai then."""
    n = len(arr["dec_tile"])
    game, actor, t_left = arr["dec_game"], arr["dec_actor"], arr["dec_t_left"].astype(np.int64)
    order = np.lexsort((np.arange(n), actor, game))  # per (game, seat) in the order of play
    src, dst, qs = [], [], []
    for q in range(1, MAX_AHEAD + 1):
        a, b = order[:-q], order[q:]
        same = (game[a] == game[b]) & (actor[a] == actor[b]) & (t_left[b] == t_left[a] - q)
        src.append(a[same])
        dst.append(b[same])
        qs.append(np.full(int(same.sum()), q))
    src, dst, qs = np.concatenate(src), np.concatenate(dst), np.concatenate(qs)
    X = tenpai_ahead_features(pt[src].reshape(-1), arr["dec_riichi"][src].reshape(-1),
                              (arr["dec_takes"][src] > 0).reshape(-1), np.repeat(arr["dec_ctx"][src, 0], 3),
                              np.repeat(qs, 3))
    return X, arr["dec_tenpai"][dst].reshape(-1).astype(int)


def interval_counts(arr: dict) -> np.ndarray:
    """How many intervals each discard row survived into (:func:`expand_intervals`' rows a row)."""
    from regressors.datasets import END_KINDS

    t_left = np.maximum(arr["dec_t_left"].astype(np.int64), 1)
    return t_left - (arr["dec_end_kind"].astype(np.int64) == END_KINDS.index("deal_in"))


def abort_rate(y_abort: np.ndarray) -> float:
    """``P_end``: the abortive draws an interval, smoothed by half a draw."""
    return float((y_abort.sum() + 0.5) / (len(y_abort) + 1.0))


def expand_intervals(arr: dict, pt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, other_win label, abortive label) of every interval a discard row survived into.

    A row whose seat dealt in loses its last interval (the LOSE branch comes first); a row
    whose hand another player won or an abortive draw ended is labelled in its last
    interval; every earlier interval is a 0.
    """
    from regressors.datasets import END_KINDS

    t_left = np.maximum(arr["dec_t_left"].astype(np.int64), 1)
    kind = arr["dec_end_kind"].astype(np.int64)
    n_int = interval_counts(arr)
    row = np.repeat(np.arange(len(t_left)), n_int)
    q = np.concatenate([np.arange(1, k + 1) for k in n_int]) if len(n_int) else np.zeros(0, np.int64)
    last = q == t_left[row]
    y_other = last & (kind[row] == END_KINDS.index("other_win"))
    y_abort = last & (kind[row] == END_KINDS.index("abortive_draw"))
    ctx = arr["dec_ctx"]
    riichi = arr["dec_riichi"]
    open_ = arr["dec_takes"] > 0
    reach_q = arr["dec_reach_q"].astype(np.int64)
    own_riichi = (ctx[row, 3] > 0) | (q >= reach_q[row])
    X = hazard_features(ctx[row, 0], q, riichi[row].sum(1), pt[row], np.where(open_, pt, 0.0).max(1)[row],
                        own_riichi, ctx[row, 4])
    return X, y_other.astype(int), y_abort.astype(int)


def first_intervals(model: "HazardModel", arr: dict, pt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                              np.ndarray]:
    """``(observed, predicted, ctx, shanten)`` of the first interval (``q = 1``) after every
    discard row whose seat is not in riichi then, the hand going on past the discard: another's
    win in it (0/1), ``model``'s ``P_O`` of it, the row's ``dec_ctx`` and the seat's shanten
    (its 14-tile hand's at the discard, at least 0)."""
    from regressors.datasets import END_KINDS

    t_left = np.maximum(arr["dec_t_left"].astype(np.int64), 1)
    kind = arr["dec_end_kind"].astype(np.int64)
    ctx = arr["dec_ctx"]
    own_riichi = (ctx[:, 3] > 0) | (arr["dec_reach_q"].astype(np.int64) <= 1)
    keep = (t_left - (kind == END_KINDS.index("deal_in")) >= 1) & ~own_riichi
    open_pt = np.where(arr["dec_takes"] > 0, pt, 0.0).max(1)
    X = hazard_features(ctx[:, 0], np.ones(len(t_left)), arr["dec_riichi"].sum(1), pt, open_pt, own_riichi,
                        ctx[:, 4])
    observed = ((t_left == 1) & (kind == END_KINDS.index("other_win"))).astype(np.float64)
    shanten = np.maximum(ctx[:, 4].astype(np.int64), 0)
    return observed[keep], model.p_other_rows(X[keep]), ctx[keep], shanten[keep]


def tenpai_other_ratio(model: "HazardModel", arr: dict, pt: np.ndarray) -> float:
    """How much rarer another's win is in the interval after a discard of a tenpai hand (not in
    riichi) than ``model.other`` predicts, relative to the same ratio of the hands that are not
    tenpai: ``(O_t / E_t) / (O_n / E_n)`` over :func:`first_intervals`, ``O`` the other wins
    observed, ``E`` the predicted ones, ``t`` the rows whose hand is tenpai, ``n`` the rest; at
    most 1, each count smoothed by half a win. The hazard is fitted on every row, with no feature
    of the seat's own hand: while it is tenpai another's win is rarer (its ron comes first on
    some discards, and its hands come at tables where the others are slow)."""
    observed, expected, _, shanten = first_intervals(model, arr, pt)
    tenpai = shanten == 0
    ratio = ((observed[tenpai].sum() + 0.5) / (expected[tenpai].sum() + 0.5)) / \
        ((observed[~tenpai].sum() + 0.5) / (expected[~tenpai].sum() + 0.5))
    return float(min(1.0, ratio))


def end_tenpai_rows(arr: dict, pt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X, label) per opponent of every discard row whose hand ran to an exhaustive draw."""
    from regressors.datasets import END_KINDS

    sel = arr["dec_end_kind"] == END_KINDS.index("exhaustive_draw")
    n = int(sel.sum())
    w = np.repeat(arr["dec_ctx"][sel, 0], 3)
    X = end_tenpai_features(pt[sel].reshape(-1), arr["dec_riichi"][sel].reshape(-1),
                            (arr["dec_takes"][sel] > 0).reshape(-1), w)
    return X, arr["dec_end_tenpai"][sel].reshape(n * 3).astype(int)


class HazardModel:
    """Per-turn other-win and abortive-draw hazards and the opponents' tenpai at the draw."""

    def __init__(self, C: float = 1.0, features: tuple[str, ...] = HAZARD_FEATURES):
        self.other = LogReg(features, C=C)
        self.end_tenpai = LogReg(END_TENPAI_FEATURES, C=C)
        self.tenpai_ahead = LogReg(TENPAI_AHEAD_FEATURES, C=C)
        self.p_abort = 0.0
        self.p_tsumo = 0.5
        self.p_ippatsu = 0.0
        self.ron_scale = 1.0
        self.ron_scale_riichi = 1.0
        self.dama_share = 1.0
        self.riichi_pass = 0.0
        self.ron_given_wait = {c: 1.0 for c in WAIT_CLASSES}
        self.tenpai_other = 1.0
        self.draw_share = 1.0
        self.share_slope = (0.0, 0.0, 0.0, 0.0)
        self.ron_share_by = {o: {c: 1.0 for c in WAIT_CLASSES} for o in OWN_CLASSES}
        self.discards: dict | None = None  # regressors.discards.fit: the opponents' discard weights
        self.ron_wall: dict | None = None  # regressors.ron_wall.fit: the ron shares by the wall
        self.ron_points: dict | None = None  # regressors.ron_points.fit: a ron's and a tsumo's worth

    def fit(self, arr: dict, pt: np.ndarray) -> "HazardModel":
        """Fit on a dataset's arrays and the opponents' tenpai probabilities ``pt`` (n, 3)."""
        X, y_other, y_abort = expand_intervals(arr, pt)
        self.other.fit(self._other_columns(X), y_other)
        self.p_abort = abort_rate(y_abort)
        Xt, yt = end_tenpai_rows(arr, pt)
        self.end_tenpai.fit(Xt, yt)
        self.tenpai_ahead.fit(*tenpai_ahead_rows(arr, pt))
        self.p_tsumo = _share(arr["win_tsumo"])
        self.p_ippatsu = _share(arr["win_ippatsu"][arr["win_riichi"]])
        self.ron_scale = _ron_ratio(arr, riichi=False)
        self.ron_scale_riichi = _ron_ratio(arr, riichi=True)
        tenpai = arr["dec_tenpai"].astype(bool)
        self.dama_share = _share(~arr["dec_riichi"][tenpai].astype(bool))
        self.tenpai_other = tenpai_other_ratio(self, arr, pt)
        self.discards = fit_discards(arr)
        self.ron_wall = fit_ron_wall(arr)
        self.ron_points = fit_ron_points(arr)
        return self

    def p_other(self, tiles_left: int, pt: np.ndarray, riichi: np.ndarray, open_: np.ndarray,
                q: np.ndarray, own_riichi: bool, own_shanten: int) -> np.ndarray:
        """``P_O`` for each interval ``q`` of one decision; ``pt``, ``riichi``, ``open_``: the
        three opponents now; ``own_shanten``: ours now (read by files fitted since session 54)."""
        q = np.asarray(q, dtype=np.float64)
        n = len(q)
        pt3 = np.broadcast_to(np.asarray(pt, dtype=np.float64), (n, 3))
        open_pt = float(np.max(np.where(open_, pt, 0.0)))
        X = hazard_features(np.full(n, tiles_left), q, np.full(n, float(np.sum(riichi))), pt3,
                            np.full(n, open_pt), np.full(n, float(own_riichi)), np.full(n, int(own_shanten)))
        return self.p_other_rows(X)

    def p_other_rows(self, X: np.ndarray) -> np.ndarray:
        """``P_O`` of :func:`hazard_features` rows, by the features this model was fitted on."""
        return self.other.predict_proba(self._other_columns(X))

    def _other_columns(self, X: np.ndarray) -> np.ndarray:
        return X[:, :len(self.other.feature_names)]

    def p_tenpai_end(self, tiles_left: int, pt: np.ndarray, riichi: np.ndarray, open_: np.ndarray) -> np.ndarray:
        """Each of the three opponents' chance of being tenpai at an exhaustive draw."""
        X = end_tenpai_features(pt, riichi, open_, np.full(3, tiles_left))
        return self.end_tenpai.predict_proba(X)

    def p_tenpai_ahead(self, tiles_left: int, pt: np.ndarray, riichi: np.ndarray, open_: np.ndarray,
                       q: np.ndarray) -> np.ndarray:
        """(len(q), 3): each opponent's tenpai chance ``q`` of our discards from now."""
        q = np.asarray(q, dtype=np.float64)
        n = len(q)
        X = tenpai_ahead_features(np.tile(pt, n), np.tile(riichi, n), np.tile(open_, n),
                                  np.full(3 * n, tiles_left), np.repeat(q, 3))
        return self.tenpai_ahead.predict_proba(X).reshape(n, 3)

    def save(self, path) -> Path:
        return save_json({"other": self.other.to_dict(), "end_tenpai": self.end_tenpai.to_dict(),
                          "tenpai_ahead": self.tenpai_ahead.to_dict(),
                          "p_abort": self.p_abort, "p_tsumo": self.p_tsumo, "p_ippatsu": self.p_ippatsu,
                          "ron_scale": self.ron_scale, "ron_scale_riichi": self.ron_scale_riichi,
                          "dama_share": self.dama_share, "riichi_pass": self.riichi_pass,
                          "ron_given_wait": self.ron_given_wait, "tenpai_other": self.tenpai_other,
                          "draw_share": self.draw_share, "share_slope": list(self.share_slope),
                          "ron_share_by": self.ron_share_by,
                          **({"discards": self.discards} if self.discards is not None else {}),
                          **({"ron_wall": self.ron_wall} if self.ron_wall is not None else {}),
                          **({"ron_points": self.ron_points} if self.ron_points is not None else {})}, path, KIND)

    @classmethod
    def load(cls, path) -> "HazardModel":
        d = load_json(path, KIND)
        m = cls()
        try:
            held = list(d["other"].get("features", []))
            features = next((f for f in HAZARD_FEATURE_SETS if list(f) == held), HAZARD_FEATURES)
            m.other = LogReg.from_dict(d["other"], features, str(path))
            m.end_tenpai = LogReg.from_dict(d["end_tenpai"], END_TENPAI_FEATURES, str(path))
            m.tenpai_ahead = LogReg.from_dict(d["tenpai_ahead"], TENPAI_AHEAD_FEATURES, str(path))
            m.p_abort = float(d["p_abort"])
            m.p_tsumo = float(d["p_tsumo"])
            m.p_ippatsu = float(d["p_ippatsu"])
            m.ron_scale = float(d["ron_scale"])
            m.ron_scale_riichi = float(d["ron_scale_riichi"])
            m.dama_share = float(d["dama_share"])
            m.riichi_pass = float(d["riichi_pass"])
            m.ron_given_wait = {c: float(d["ron_given_wait"][c]) for c in WAIT_CLASSES}
            m.tenpai_other = float(d["tenpai_other"])
            m.draw_share = float(d["draw_share"])
            m.share_slope = tuple(float(x) for x in d["share_slope"])
            if len(m.share_slope) != 4:
                raise ValueError("share_slope")
            m.ron_share_by = {o: {c: float(d["ron_share_by"][o][c]) for c in WAIT_CLASSES} for o in OWN_CLASSES}
            if "discards" in d:
                m.discards = check_discards(d["discards"], str(path))
            if "ron_wall" in d:
                m.ron_wall = check_ron_wall(d["ron_wall"], str(path))
            if "ron_points" in d:
                m.ron_points = check_ron_points(d["ron_points"], str(path))
        except (KeyError, TypeError, ValueError) as err:
            raise ModelFileError(f"{path}: the hazard model lacks or garbles {err}; retrain it") from None
        return m


#: The classes of a tenpai hand for ``ron_given_wait``.
WAIT_CLASSES = ("riichi", "dama", "open")


def wait_class(view, j: int) -> str:
    """``riichi``, ``open`` (a called meld) or ``dama`` (closed, not in riichi) for seat j."""
    if view.riichi[j]:
        return "riichi"
    return "open" if any(m.type != "ankan" for m in view.melds[j]) else "dama"


def _random_share(view, waits) -> float:
    """The chance that a tile drawn at random among ``view``'s unseen tiles is one of ``waits``."""
    unseen = np.asarray(view.unseen, dtype=np.float64)
    return float(unseen[list(waits)].sum() / unseen.sum())


def replay_rates(paths) -> tuple[float, dict[str, float], float, tuple[float, ...]]:
    """``(riichi_pass, ron_given_wait, draw_share, share_slope)`` from one replay of the
    records, every seat's view:

    * ``riichi_pass``: over every seat's discards (not in riichi) facing exactly one riichi,
      the kinds in that seat's hand the riichi player can still ron (not among
      ``regressors.features.safe_kinds``) with copies unseen by the seat, the share of them
      that the others' discards have made safe by the seat's next draw, the hand going on
      (0.0 where the records hold none);
    * ``ron_given_wait``: of the discards of a kind among a tenpai player's waits (its own
      view: the records show every hand), the share it ronned, by :data:`WAIT_CLASSES` (1.0
      for a class the records never show);
    * ``draw_share``: over every draw of a seat whose hand is tenpai, the draws of its waits
      over their number if the draw were random among its unseen tiles (at most 1, smoothed
      by half a draw): the others hold some of its waits, so the wall has fewer of them;
    * ``share_slope``: the same share as a line in the tiles left ``W`` at the draw, ``1 - c
      (1 - W / 70)`` (:func:`wall_shares`: the hands are dealt at random, then the others keep
      what they need and what looks dangerous, and fold), ``c`` such that the useful draws
      expected match the count drawn, for each of tenpai (its waits) and 1, 2, 3+ shanten (the
      kinds whose draw lowers it, :func:`_useful_kinds`), within [0, 1]."""
    from game.records import read_events
    from game.state import TableState, seat_view
    from game.tiles import mjai_to_kind
    from regressors.features import safe_kinds

    held = passed = 0
    drew, expected = 0, 0.0
    s_drew, s_expected, s_lever = np.zeros(4), np.zeros(4), np.zeros(4)  # by row: tenpai, 1, 2, 3+
    seen = {c: 0 for c in WAIT_CLASSES}
    ronned = {c: 0 for c in WAIT_CLASSES}
    for path in paths:
        events = read_events(path)
        views = [TableState(s) for s in range(4)]
        pending: list[tuple | None] = [None] * 4  # each seat's (riichi player, live kinds) after its discard
        for i, e in enumerate(events):
            kind = e.get("type")
            if kind == "dahai":
                a, tile = e["actor"], mjai_to_kind(e["pai"])
                rons = set()
                for x in events[i + 1:i + 4]:  # a double ron: two hora events in a row
                    if x.get("type") != "hora":
                        break
                    rons.add(x["actor"])
                for v in views:
                    if v.seat != a and tile in v.waits:
                        c = wait_class(v, v.seat)
                        seen[c] += 1
                        ronned[c] += v.seat in rons
            if kind == "tsumo":
                v = views[e["actor"]]
                if len(v.hand_ids) % 3 == 1:
                    row, useful = 0, v.waits
                    if not useful:
                        sh, useful = _useful_kinds(v)
                        row = min(sh, 3)
                    if useful:
                        x = _random_share(v, useful)
                        hit = mjai_to_kind(e["pai"]) in useful
                        if row == 0:
                            expected += x
                            drew += hit
                        s_expected[row] += x
                        s_drew[row] += hit
                        s_lever[row] += x * (1.0 - min(v.tiles_left, WALL) / WALL)
            for s, view in enumerate(views):
                view.update(seat_view(e, s))
                if kind in ("start_kyoku", "hora", "ryukyoku", "end_kyoku"):
                    pending[s] = None
                elif kind == "tsumo" and e.get("actor") == s and pending[s] is not None:
                    j, live = pending[s]
                    if view.riichi[j]:
                        held += int(live.sum())
                        passed += int((live & safe_kinds(view, j)).sum())
                    pending[s] = None
                elif kind == "dahai" and e.get("actor") == s and not view.riichi[s]:
                    threats = [j for j in range(4) if j != s and view.riichi[j]]
                    if len(threats) == 1:
                        live = ~safe_kinds(view, threats[0]) & (np.asarray(view.unseen) > 0) \
                            & (np.asarray(view.hand) > 0)
                        pending[s] = (threats[0], live)
    return (passed / held if held else 0.0,
            {c: ronned[c] / seen[c] if seen[c] else 1.0 for c in WAIT_CLASSES},
            min(1.0, (drew + 0.5) / (expected + 0.5)),
            tuple(float(x) for x in np.clip((s_expected - s_drew) / np.maximum(s_lever, 1e-9), 0.0, 1.0)))


#: The live wall at a hand's first draw (136 - 4 x 13 dealt - 14 dead); the share lines of
#: :func:`wall_shares` start at 1 there.
WALL = 70


def wall_shares(slope, tiles_left: int, n: np.ndarray) -> np.ndarray:
    """(4, len(n)): the share of its unseen share at which a hand draws its useful kinds (rows:
    tenpai, 1, 2, 3+ shanten) at the draw after ``n`` more discards, ``W = tiles_left - 4 n``
    tiles left then: ``1 - slope (1 - W / 70)`` (:func:`replay_rates`)."""
    w = np.clip(tiles_left - 4 * np.asarray(n, np.float64), 0.0, WALL)
    return 1.0 - np.asarray(slope, np.float64)[:, None] * (1.0 - w / WALL)


def _useful_kinds(view) -> tuple[int, frozenset[int]]:
    """The shanten of ``view``'s own 3k+1 hand (not tenpai) and the kinds with copies unseen
    whose draw lowers it."""
    from search.shanten import shanten_batch

    hand = np.asarray(view.hand, dtype=np.int64)
    rows = np.repeat(hand[None], 35, axis=0)
    rows[np.arange(1, 35), np.arange(34)] += 1  # row 0: the hand itself
    ok = rows.max(axis=1) <= 4
    sh = np.full(35, 99)
    sh[ok] = shanten_batch(rows[ok].astype(np.uint8))
    unseen = np.asarray(view.unseen)
    return int(sh[0]), frozenset(int(u) for u in np.flatnonzero((sh[1:] < sh[0]) & (unseen > 0)))


#: The classes of our own tenpai hand for ``ron_share_by_discarder``: free (not in riichi,
#: closed or open) and in riichi, the two classes of the kernels' states.
OWN_CLASSES = ("free", "riichi")


def ron_share_by_discarder(paths, name: str | None = None) -> dict[str, dict[str, float]]:
    """``{own class: {discarder class: ratio}}``: how often the others discard the waits of a
    tenpai seat (not furiten; its own view, the records show every hand) over their number
    were each discard random among that seat's unseen tiles, by the seat's class
    (:data:`OWN_CLASSES`) and the discarder's (:data:`WAIT_CLASSES`: in riichi, closed, open),
    at most 1, smoothed by half a hit. A riichi player throws what it draws, a free closed
    hand holds back what looks dangerous. ``name``: only the seats of that player
    (``start_game``'s names), e.g. ours at a table of another kind."""
    from game.records import read_events
    from game.state import TableState, seat_view
    from game.tiles import mjai_to_kind

    hits = {o: {c: 0.0 for c in WAIT_CLASSES} for o in OWN_CLASSES}
    expected = {o: {c: 0.0 for c in WAIT_CLASSES} for o in OWN_CLASSES}
    for path in paths:
        events = read_events(path)
        names = events[0].get("names") or [None] * 4
        seats = [s for s in range(4) if name is None or names[s] == name]
        views = [TableState(s) for s in seats]
        for e in events:
            if e.get("type") == "dahai":
                a, tile = e["actor"], mjai_to_kind(e["pai"])
                for v in views:
                    if v.seat == a or len(v.hand_ids) % 3 != 1 or v.furiten:
                        continue
                    waits = v.waits
                    if waits:
                        own = "riichi" if v.riichi[v.seat] else "free"
                        c = wait_class(v, a)
                        expected[own][c] += _random_share(v, waits)
                        hits[own][c] += tile in waits
            for v in views:
                v.update(seat_view(e, v.seat))
    return {o: {c: min(1.0, (hits[o][c] + 0.5) / (expected[o][c] + 0.5)) for c in WAIT_CLASSES}
            for o in OWN_CLASSES}


def _ron_ratio(arr: dict, *, riichi: bool) -> float:
    """The others' discards of a tenpai player's waits over their number if the discards
    were random among its unseen tiles (``dec_wait_t`` / ``dec_wait_share`` of the rows where
    the opponent is tenpai, in riichi or not), at most 1, smoothed by half a hit."""
    sel = arr["dec_tenpai"] & (arr["dec_riichi"] == riichi)
    hits = float(arr["dec_wait_t"][sel].sum())
    expected = float(arr["dec_wait_share"][sel].sum())
    return min(1.0, (hits + 0.5) / (expected + 0.5))


def _share(flags: np.ndarray) -> float:
    """A smoothed share (add one half to each side)."""
    f = np.asarray(flags, dtype=bool)
    return float((f.sum() + 0.5) / (len(f) + 1.0))


def fit_entry_main(argv, *, prog: str, description: str, entry: str, fit, table) -> int:
    """The command of a module that fits one entry of a hazard file on records
    (:mod:`regressors.discards`, :mod:`regressors.ron_wall`): ``--records`` (globs or paths),
    ``--cache``, ``--json`` (else ``table(fit)``), ``--write FILE`` (the fit stored as
    ``entry`` of that hazard file, its other fields kept). Exit 2 on bad input."""
    import argparse
    import json

    from game.cli import reports_errors
    from regressors.datasets import load_or_build

    @reports_errors
    def run() -> int:
        ap = argparse.ArgumentParser(prog=prog, description=description)
        ap.add_argument("--records", required=True, nargs="+", help="record glob(s) or paths")
        ap.add_argument("--cache", default=None, help="dataset cache directory")
        ap.add_argument("--write", default=None, help="a hazard file to store the fit in (its other fields kept)")
        ap.add_argument("--json", action="store_true", help="print one JSON object")
        args = ap.parse_args(argv)
        spec = args.records if len(args.records) > 1 else args.records[0]
        d = fit(load_or_build(spec, args.cache, progress=not args.json).arrays)
        print(json.dumps(d) if args.json else table(d))
        if args.write:
            model = HazardModel.load(args.write)
            setattr(model, entry, d)
            model.save(args.write)
        return 0

    return run()
