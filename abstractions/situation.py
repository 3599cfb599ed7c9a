"""The MDP parameters of one decision, built from a table state and the estimators.

Kurita & Hoki Sec. VI-B/VI-C (``specs/kurita_hoki.md`` 2, 5, 7): every ending of the hand in
progress is valued by the expected final rank of the situation after it (Eq. 1 with
``U_game(x) = -x``, so a payoff is minus an expected rank and higher is better), and the chance
parameters of the solitary MDPs come from the estimators of ``regressors/``:

* ``P_L(t)``, ``U_L(t)`` (Eq. 20): the estimators' per-opponent ron probabilities; ``U_L`` is
  the ron-probability-weighted mean over the opponents of the expected payoff after paying
  that opponent's win (its point-class distribution, ``win_value``);
* ``P_O[n]`` (other win, Eq. 8): per future turn, the hazard model's chance that another
  player's win ends the hand before our next draw (``regressors.hazard``; after our riichi
  its own curve, the others facing a riichi), ``P_end[n]`` its abortive-draw rate; ``U_O``
  the payoff of another's win in which we do not pay, weighted by the opponents' tenpai
  probabilities, by tsumo or a third player's ron in the records' shares;
* ``U_tw`` / ``U_nw``: the washout with us tenpai / noten, the noten payments taken in
  expectation over the opponents' tenpai patterns (independent), each opponent tenpai with
  its projected chance *at the exhaustive draw* (Eq. 19: "the probabilities when a hand
  ends");
* ``P_L(t)`` at later turns: the deal-in chances grow with the opponents' projected tenpai
  (``lose_growth[n]``: Eq. 20 with each opponent's tenpai chance ``n`` turns ahead, counted
  for the tenpai hands that give no sign, not in riichi; without ``projected_deal_in`` their
  summed tenpai chance then over the sum now);
* ``T``: the horizon ``T_max = 1 + W // 4`` (spec 5.1): the wall's end, where the washout
  is paid; another's win after our last discard is ``P_O[T]``;
* furiten: a hand with any wait among our discards cannot ron at all (Tenhou's rule);
* win payoffs: the scorer's points (dora, red fives still held, riichi, expected ura and
  ippatsu at the records' rate for riichi hands) through a per-hand table of points ->
  expected final rank (ron paid by one of the three opponents, equally likely; tsumo split by the dealer rule;
  honba and riichi sticks on top; the dealer repeats);
* after our kan (:func:`after_kan`): the same chance parameters, one turn less when the kan
  takes it, the payoffs of the hand with its kan and the new dora indicator in expectation
  (with ``TableModel.kan_dora`` in the opponents' wins too).

:class:`TableModel` switches each of these back to the first player's choices (the ratio
horizon ``max(1, round(r T_max))`` paid as a washout, one ``P_O`` for every turn, the
opponents' tenpai *now* at the washout, furiten by own discards only) for the ablations.

Post-hand scores go to the final-rank model (``regressors.final_rank``) at the next hand's
situation (dealer repeat, honba, sticks, game over). Everything that depends on the scores
only is cached per hand situation (:class:`RankTable`), so a decision costs the estimators
plus a few vectorised look-ups.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numba
import numpy as np

from abstractions.params import LaterRiichi, MDPParams, RiichiParams
from game.errors import MahjongError, ModelFileError
from game.tiles import dora_from_indicator
from regressors.discards import kind_weights
from regressors.ron_points import factors as ron_points_factors
from regressors.ron_wall import per_turn as ron_wall_per_turn
from regressors.features import hand_shanten, n_takes, safe_kinds
from regressors.hazard import wall_shares
from search.retrograde import MAX_DRAW_SHARE
from search.scorer import F_POINTS, _all_counts4, expected_score_nb, score_nb

#: Points grid of the win-payoff tables (100-point steps up to a double yakuman).
GRID = np.arange(0, 96_100, 100, dtype=np.float64)
#: After our riichi the others fold: their win and discard chances scale by this (Sec. VI-E).
RIICHI_OTHER_SCALE = 0.8


# --- the final-rank model over many post-hand score vectors ------------------------------

def _exact_ranks(scores: np.ndarray) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    seats = np.arange(4)
    ahead = (s[:, :, None] > s[:, None, :]) | ((s[:, :, None] == s[:, None, :]) & (seats[:, None] < seats[None, :]))
    return (4 - ahead.sum(2)).astype(np.float64)


@dataclass(frozen=True)
class HandContext:
    """The situation at the start of the hand in progress (phi_hand of Eq. 1)."""

    seat: int
    scores: tuple[int, int, int, int]
    round_wind: int
    kyoku: int
    dealer: int
    honba: int
    kyotaku: int
    hanchan: bool = False

    @classmethod
    def of(cls, state, hanchan: bool = False) -> "HandContext":
        return cls(int(state.seat), tuple(int(x) for x in state.scores), int(state.round_wind), int(state.kyoku),
                   int(state.dealer), int(state.honba), int(state.kyotaku), bool(hanchan))


def expected_ranks(rank_model, ctx: HandContext, deltas: np.ndarray, *, winner: np.ndarray | None = None,
                   renchan: np.ndarray, sticks_taken: np.ndarray, riichi_paid: int = 0) -> np.ndarray:
    """Expected final rank of ``ctx.seat`` after each outcome (Eq. 1 with U_game = -x, negated).

    ``deltas`` (n, 4): score changes of the outcome (honba and sticks included);
    ``renchan`` (n,) bool: the dealer repeats; ``sticks_taken`` (n,) bool: a win took the
    riichi sticks (``kyotaku`` then goes to 0, else it stays). ``riichi_paid`` extra sticks
    put on the table by *i* during the hand (its 1000 points already in ``deltas``).
    A win resets honba unless the dealer wins; a washout adds one (spec 8, Tenhou rules).
    """
    d = np.atleast_2d(np.asarray(deltas, dtype=np.float64))
    n = d.shape[0]
    scores = np.asarray(ctx.scores, dtype=np.float64)[None, :] + d
    renchan = np.broadcast_to(np.asarray(renchan, dtype=bool), (n,))
    taken = np.broadcast_to(np.asarray(sticks_taken, dtype=bool), (n,))
    out = np.empty(n)
    total = 8 if ctx.hanchan else 4
    idx = 4 * ctx.round_wind + ctx.kyoku
    last = idx >= total - 1
    top = scores.max(1)
    me = ctx.seat
    # game over: someone below zero; the last hand passed without a repeat (or a repeat with
    # the dealer on top: Tenhou's agari-yame), once someone has 30,000
    dealer_top = _exact_ranks(scores)[:, ctx.dealer] == 1
    over = (scores.min(1) < 0) | (last & (top >= 30000) & (~renchan | dealer_top))
    if over.any():
        out[over] = _exact_ranks(scores[over])[:, me]
    live = ~over
    for rep in (False, True):
        for tk in (False, True):
            sel = live & (renchan == rep) & (taken == tk)
            if not sel.any():
                continue
            if rep:
                rw, ky, dl = ctx.round_wind, ctx.kyoku, ctx.dealer
            else:
                rw, ky, dl = (ctx.round_wind + (ctx.kyoku + 1) // 4, (ctx.kyoku + 1) % 4, (ctx.dealer + 1) % 4)
            honba = ctx.honba + 1 if (rep or not tk) else 0
            sticks = 0 if tk else ctx.kyotaku + riichi_paid
            P = rank_model.rank_probs_batch(scores[sel], rw, ky, dl, honba, sticks, ctx.hanchan)
            out[sel] = P[:, me, :] @ np.arange(1, 5)
    return out


# --- payments ------------------------------------------------------------------------------

def _ron_deltas(winner: int, payer: int, points: np.ndarray, honba: int, kyotaku: int) -> np.ndarray:
    d = np.zeros((len(points), 4))
    pay = points + 300 * honba
    d[:, payer] -= pay
    d[:, winner] += pay + 1000 * kyotaku
    return d


def _tsumo_deltas(winner: int, dealer: int, points: np.ndarray, honba: int, kyotaku: int) -> np.ndarray:
    """Tsumo payments from the hand's total value (dealer pays half a non-dealer's win)."""
    d = np.zeros((len(points), 4))
    for s in range(4):
        if s == winner:
            continue
        if winner == dealer:
            share = points / 3.0
        else:
            share = points / 2.0 if s == dealer else points / 4.0
        d[:, s] -= share + 100 * honba
        d[:, winner] += share + 100 * honba
    d[:, winner] += 1000 * kyotaku
    return d


def _noten_deltas(tenpai: np.ndarray) -> np.ndarray:
    """(n, 4) noten payments for rows of four tenpai flags (3,000 points split)."""
    t = np.asarray(tenpai, dtype=bool)
    k = t.sum(1, keepdims=True).astype(float)
    gain = np.where(t, 3000.0 / np.maximum(k, 1), -3000.0 / np.maximum(4 - k, 1))
    return np.where((k == 0) | (k == 4), 0.0, gain)


class RankTable:
    """Payoffs (minus the expected final rank) of every outcome class of one hand situation.

    Built once per distinct :class:`HandContext` (scores, sticks, honba, round); the agent
    keeps the last one, so the decisions of a hand share it.
    """

    def __init__(self, rank_model, ctx: HandContext, win_points: np.ndarray, p_other_tsumo: float,
                 points_by_way: np.ndarray | None = None):
        """``p_other_tsumo``: the share of tsumo among the wins we do not pay (the rest: a
        third player's ron). ``points_by_way`` ([2, 4], :func:`points_by_way`): each seat's
        win classes are worth this much by ron (row 0) and by tsumo (row 1) over their points
        (None: as their points either way)."""
        self.ctx = ctx
        self.p_other_tsumo = float(p_other_tsumo)
        self.points_by_way = None if points_by_way is None else np.asarray(points_by_way, dtype=np.float64)
        f_ron, f_tsumo = (np.ones(4), np.ones(4)) if points_by_way is None else self.points_by_way
        me, dl, hb, ks = ctx.seat, ctx.dealer, ctx.honba, ctx.kyotaku
        self.rank_model = rank_model
        opp = [(me + k) % 4 for k in (1, 2, 3)]
        g = GRID
        # i's ron from each opponent, and tsumo, on the points grid
        ron = np.concatenate([_ron_deltas(me, j, g, hb, ks) for j in opp])
        er = expected_ranks(rank_model, ctx, ron, renchan=np.full(len(ron), me == dl), sticks_taken=np.ones(len(ron), bool))
        self.u_ron_grid_j = -er.reshape(3, len(g))  # by payer: the opponents after us in turn order
        self.u_ron_grid = self.u_ron_grid_j.mean(0)
        ts = _tsumo_deltas(me, dl, g, hb, ks)
        self.u_tsumo_grid = -expected_ranks(rank_model, ctx, ts, renchan=np.full(len(g), me == dl),
                                            sticks_taken=np.ones(len(g), bool))
        # another's win, per opponent j and point class c: j rons i (lose), j tsumo, j rons k
        self.win_points = np.asarray(win_points, dtype=np.float64)  # [4, classes]
        nc = self.win_points.shape[1]
        self.u_lose_j = np.zeros((4, nc))
        self.u_other_j = np.zeros((4, nc))
        for j in opp:
            ron_pts, tsumo_pts = self.win_points[j] * f_ron[j], self.win_points[j] * f_tsumo[j]
            rep = np.full(nc, j == dl)
            tk = np.ones(nc, bool)
            self.u_lose_j[j] = -expected_ranks(rank_model, ctx, _ron_deltas(j, me, ron_pts, hb, ks), renchan=rep,
                                               sticks_taken=tk)
            u_ts = -expected_ranks(rank_model, ctx, _tsumo_deltas(j, dl, tsumo_pts, hb, ks), renchan=rep,
                                   sticks_taken=tk)
            thirds = [k for k in opp if k != j]
            u_rk = np.mean([-expected_ranks(rank_model, ctx, _ron_deltas(j, k, ron_pts, hb, ks), renchan=rep,
                                            sticks_taken=tk) for k in thirds], axis=0)
            self.u_other_j[j] = self.p_other_tsumo * u_ts + (1 - self.p_other_tsumo) * u_rk
        # washout: every tenpai pattern of the 4 seats (16 rows), i's payoff per pattern
        pats = ((np.arange(16)[:, None] >> np.arange(4)[None, :]) & 1).astype(bool)
        self.patterns = pats
        self.u_wash = -expected_ranks(rank_model, ctx, _noten_deltas(pats), renchan=pats[:, dl],
                                      sticks_taken=np.zeros(16, bool))
        # the same after i's riichi (1000 points on the table): the riichi stick's cost
        rdel = _noten_deltas(pats)
        rdel[:, me] -= 1000
        self.u_wash_riichi = -expected_ranks(rank_model, ctx, rdel, renchan=pats[:, dl],
                                             sticks_taken=np.zeros(16, bool), riichi_paid=1)
        # nine-terminals abort: nothing paid, the dealer repeats, honba + 1
        self.u_abort = float(-expected_ranks(rank_model, ctx, np.zeros((1, 4)), renchan=np.ones(1, bool),
                                             sticks_taken=np.zeros(1, bool))[0])

    def u_win(self, points: np.ndarray, tsumo: bool, payer: np.ndarray | None = None) -> np.ndarray:
        """Payoff of i's win worth ``points`` (hand value, no honba/sticks); NaN stays NaN.
        ``payer`` ([3], summing to 1): each opponent's chance of paying a ron, in turn order
        after us (None: equally likely)."""
        p = np.asarray(points, dtype=np.float64)
        if tsumo:
            grid = self.u_tsumo_grid
        else:
            grid = self.u_ron_grid if payer is None else np.asarray(payer, dtype=np.float64) @ self.u_ron_grid_j
        out = np.interp(p, GRID, grid)
        return np.where(np.isnan(p), np.nan, out)

    def washout(self, p_tenpai: np.ndarray, me_tenpai: bool, riichi: bool = False) -> float:
        """Expected washout payoff with i tenpai or not, the others by ``p_tenpai`` (independent)."""
        pt = np.clip(np.asarray(p_tenpai, dtype=np.float64), 0.0, 1.0)
        me = self.ctx.seat
        w = np.ones(16)
        for s in range(4):
            if s == me:
                w *= self.patterns[:, s] == me_tenpai
            else:
                w *= np.where(self.patterns[:, s], pt[s], 1.0 - pt[s])
        u = self.u_wash_riichi if riichi else self.u_wash
        return float(w @ u)


# --- the win-payoff callable (scorer -> points -> expected rank) ---------------------------

@numba.njit(cache=True)
def _points_nb(hands14, tiles, tsumo, melds, nmeld, seat_wind, round_wind, riichi, dmult, red_held, red_fixed,
               p_ippatsu, n_ura, unseen, n_new, five_now, red_rate):
    """Hand value (points) of each completed hand; NaN where it is no win (no yaku).
    ``n_new``: dora indicators still to be revealed (after our kan), in expectation;
    ``red_rate[s]``: the chance that a copy of suit ``s``'s five drawn from now on is its
    red (0 when the red is seen), ``five_now[s]`` the copies held now: a win with more copies
    counts the red in expectation."""
    m = hands14.shape[0]
    out = np.empty(m)
    red_p = np.zeros(3)
    any_rate = red_rate.max() > 0.0
    for i in range(m):
        h = hands14[i].copy()
        w = tiles[i]
        red = red_fixed
        for k in range(34):
            if red_held[k] > 0 and h[k] > 0:
                red += 1
        h[w] -= 1
        ms = melds[i, :nmeld[i]]
        reds = False
        red_p[:] = 0.0
        if any_rate:
            allc = _all_counts4(h, ms, w)  # the win's copies of each kind, melds included
            for s in range(3):
                new = allc[9 * s + 4] - five_now[s]
                if red_rate[s] > 0.0 and new > 0:
                    red_p[s] = min(1.0, new * red_rate[s])
                    reds = True
        if riichi > 0 or n_new > 0 or reds:
            pts = expected_score_nb(h, ms, w, tsumo, seat_wind, round_wind, riichi, dmult, red, 0, 0,
                                    p_ippatsu, n_ura, unseen, n_new, red_p)[F_POINTS]
        else:
            pts = float(score_nb(h, ms, w, tsumo, seat_wind, round_wind, 0, dmult, red, 0, 0, 0, 0)[F_POINTS])
        out[i] = pts if pts > 0 else np.nan
    return out


@dataclass
class WinPayoff:
    """``payoff(hands14, tiles, tsumo[, melds])`` of :class:`abstractions.params.MDPParams`:
    the scorer's points through the :class:`RankTable`."""

    table: RankTable
    seat_wind: int
    round_wind: int
    dora_mult: np.ndarray
    red_held: np.ndarray       # uint8[34]: red fives in the concealed hand (counted while the kind is held)
    red_fixed: int             # red fives in the melds
    unseen: np.ndarray
    n_ura: int                 # ura indicators at a riichi win (one per dora indicator)
    riichi: int = 0
    p_ippatsu: float = 0.0     # chance of ippatsu in a riichi win (records' share)
    n_new_dora: int = 0        # dora indicators still to come (our kan's), in expectation
    root_melds: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    five_now: np.ndarray = field(default_factory=lambda: np.zeros(3, np.int64))  # fives of each suit held (hand and melds)
    red_rate: np.ndarray = field(default_factory=lambda: np.zeros(3))  # a later five's chance of being the red (red_fives)
    payer: np.ndarray | None = None  # [3] each opponent's chance of paying our ron (ron_payer; None: alike)

    def points(self, hands14, tiles, tsumo: bool, melds=None) -> np.ndarray:
        h = np.ascontiguousarray(hands14, dtype=np.uint8)
        m = h.shape[0]
        if melds is None:
            rows = np.full((m, 4, 2), -1, np.int64)
            k = len(self.root_melds)
            if k:
                rows[:, :k] = self.root_melds[None]
        else:
            rows = np.ascontiguousarray(melds, dtype=np.int64)
        nmeld = (rows[:, :, 0] >= 0).sum(1).astype(np.int64)
        return _points_nb(h, np.ascontiguousarray(tiles, dtype=np.int64), bool(tsumo), rows, nmeld,
                          int(self.seat_wind), int(self.round_wind), int(self.riichi), self.dora_mult,
                          self.red_held, int(self.red_fixed), float(self.p_ippatsu), int(self.n_ura), self.unseen,
                          int(self.n_new_dora), self.five_now, self.red_rate)

    def __call__(self, hands14, tiles, tsumo: bool, melds=None) -> np.ndarray:
        return self.table.u_win(self.points(hands14, tiles, tsumo, melds), bool(tsumo), self.payer)


# --- the parameters of one decision --------------------------------------------------------

@dataclass
class Situation:
    """One decision's MDP inputs (``params``) and what the agent reports with them."""

    params: MDPParams
    table: RankTable
    estimates: object          # regressors.estimators.DecisionEstimates
    t_max: int
    payoff: WinPayoff          # the win payoff without riichi (``params.payoff`` is the riichi one in riichi)
    root_melds: list[tuple[str, int]]
    p_ippatsu: float = 0.0     # ippatsu in a riichi win (records' share)
    p_ron: np.ndarray | None = None          # [4, 34] the ron chances ``U_L`` is weighted by (scaled as the model says)
    other_weights: np.ndarray | None = None  # [3] the opponents' weights in ``U_O`` (their tenpai chances)


def root_melds(state) -> list[tuple[str, int]]:
    """The seat's melds as scorer ``(mjai type, kind)`` rows (a chi names its lowest kind)."""
    return [(m.type, min(t >> 2 for t in m.tiles)) for m in state.melds[state.seat]]


def _red_counts(state) -> tuple[np.ndarray, int]:
    from game.tiles import RED_IDS

    held = np.zeros(34, np.uint8)
    for t in state.hand_ids:
        if t in RED_IDS:
            held[t >> 2] += 1
    fixed = sum(1 for m in state.melds[state.seat] for t in m.tiles if t in RED_IDS)
    return held, fixed


def can_declare_riichi(state) -> bool:
    """The seat may still declare riichi some day: not yet in riichi, every meld a closed kan."""
    return not state.riichi[state.seat] and all(m.type == "ankan" for m in state.melds[state.seat])


def red_draws(state) -> tuple[np.ndarray, np.ndarray]:
    """Each suit's fives held now (concealed and melded) and the chance that a five of that
    suit drawn (or called) from now on is its red: ``1 / unseen copies`` while the red is
    unseen (every unseen copy alike), else 0."""
    from game.tiles import RED_IDS, RED_KINDS

    seen = set(int(t) for t in state.hand_ids) | set(int(t) for t in state.dora_indicators)
    for j in range(4):
        seen.update(int(d.tile) for d in state.discards[j])
        seen.update(int(t) for m in state.melds[j] for t in m.tiles)
    me = state.seat
    now = np.zeros(3, np.int64)
    rate = np.zeros(3)
    for s, (rid, k) in enumerate(zip(RED_IDS, RED_KINDS)):
        now[s] = int(state.hand[k]) + sum(1 for m in state.melds[me] for t in m.tiles if int(t) >> 2 == k)
        u = int(state.unseen[k])
        if rid not in seen and u > 0:
            rate[s] = 1.0 / u
    return now, rate


def ron_payers(hazards, me: int) -> np.ndarray:
    """[2, 3]: each opponent's chance of paying our ron (turn order after ``me``), we free
    (row 0) or in riichi (row 1): its share of discarding our waits by its class
    (``Hazards.ron_share_by``: one in riichi throws what it draws, a closed free hand holds
    back) over the three's sum."""
    opp = [(me + k) % 4 for k in (1, 2, 3)]
    by = np.asarray(hazards.ron_share_by, dtype=np.float64)[:, opp]
    tot = by.sum(1, keepdims=True)
    return np.where(tot > 0, by / np.where(tot > 0, tot, 1.0), 1.0 / 3.0)


def _win_payoffs(state, table: RankTable, p_ippatsu: float, *, new_dora: int = 0,
                 reds: bool = False, payers: np.ndarray | None = None) -> tuple[WinPayoff, WinPayoff]:
    """The win payoffs of the seat's hand without and with riichi (Sec. VI-C, VI-E): the
    scorer's points with the dora shown and the red fives held or melded; a riichi win with
    the expected ura dora and ippatsu. ``new_dora``: indicators still to come (our kan's),
    counted in expectation (each an unseen tile, like an ura indicator), each with its ura.
    ``reds``: a five drawn later may be its suit's unseen red (:func:`red_draws`), in expectation.
    ``payers`` ([2, 3], :func:`ron_payers`): who pays our ron, free and in riichi (None: alike)."""
    from search.scorer import melds_array

    dm = np.zeros(34, np.uint8)
    for ind in state.dora_indicators:
        dm[dora_from_indicator(int(ind) >> 2)] += 1
    red_held, red_fixed = _red_counts(state)
    five_now, red_rate = red_draws(state) if reds else (np.zeros(3, np.int64), np.zeros(3))
    common = dict(table=table, seat_wind=int(state.seat_wind), round_wind=int(state.round_wind), dora_mult=dm,
                  red_held=red_held, red_fixed=red_fixed, unseen=np.ascontiguousarray(state.unseen, dtype=np.uint8),
                  n_ura=len(state.dora_indicators) + new_dora, root_melds=melds_array(root_melds(state)),
                  n_new_dora=new_dora, five_now=five_now, red_rate=red_rate)
    free, riichi = (None, None) if payers is None else (payers[0], payers[1])
    return WinPayoff(**common, payer=free), WinPayoff(**common, riichi=1, p_ippatsu=float(p_ippatsu), payer=riichi)


@dataclass(frozen=True)
class TableModel:
    """How the MDPs model the table: the chance player (the opponents, the wall) and the
    rules; each switch is a fix on, or off for the first player's choice (ablations).

    ``full_horizon``: ``T = T_max`` (else the paper's ``max(1, round(r T_max))``, spec A7: the
    ratio ``r`` was fitted on when hands really ended, others' wins included, which ``P_O``
    also models, so the cut counts that ending twice and pays it as a washout).
    ``hazard``: per-turn ``P_O[n]`` and ``P_end`` from ``hazards`` (else the hand-end model's
    one number for every turn, scaled by :data:`RIICHI_OTHER_SCALE` after our riichi, and no
    abortive draws). ``projected_washout``: the opponents' tenpai at the draw (else now).
    ``furiten``: a hand with a wait among our discards has no ron at all (else only those
    kinds are not ronned). ``rising_deal_in``: later discards deal in as the opponents'
    projected tenpai says (else at today's rates all hand long). ``three_discards``: the
    three opponents' discards between our turns, each a chance of ron and pon, chi on the
    left player's (else one discard a turn with chi weighted by 1/3: a third of the ron and
    pon chances). ``rising_fold``: a fold's discards deal in at the grown chances of the turns
    they are made in (else at today's: early, when nobody is near tenpai, a later fold looked
    free, and the planner pushed hands it could not safely abandon). ``ron_share``: the others
    discard our waits at the share of random the records show (``Hazards.ron_scale``, and
    ``ron_scale_riichi`` after our riichi: they hold back tiles that look dangerous; else as
    often as the unseen counts say). ``projected_deal_in`` (with ``rising_deal_in``): the growth
    from Eq. 20 with each opponent's projected tenpai, for the tenpai hands not in riichi
    (:func:`_projected_lose_growth`; else the summed tenpai ratio with today's sum at least
    :data:`GROWTH_FLOOR`, every later tenpai hand counted, the ones that will declare riichi
    too, though the player answers a riichi when it comes). ``locked_growth`` (with
    ``projected_deal_in``): the locked states after our riichi (and a decision already in
    riichi) grow their deal-ins with every later tenpai hand, the riichi ones too, since a
    riichi hand cannot answer them (else with the dama share, as a free hand).
    ``later_riichi`` (with ``projected_deal_in``): the riichi share of the opponents' later
    tenpai hands comes as a chance event between our turns, into a world facing the riichi
    (:func:`later_riichi`; else it is answered free of cost, a fold that PSM never pays for;
    the ending probabilities do not follow the event). ``read_deal_in``: a free hand's later
    discards meet :data:`LATER_DEAL_IN` of the grown deal-in chances (else all of them: PSM
    plans blind to what the table will show, while the player reads it each turn).
    ``tenpai_other``: another's win comes at ``Hazards.tenpai_other`` times ``P_O[n]`` while our
    hand is tenpai and not locked in riichi (the hazard knows nothing of our hand; else the
    same ``P_O`` at every state). ``draw_share``: a draw completes our hand at
    ``Hazards.draw_share`` of its unseen share, the other draws take up the rest (else as often
    as the unseen counts say). ``wall_share``: at each later draw the kinds that complete our
    hand (tenpai) or lower its shanten come at ``regressors.hazard.wall_shares`` of their unseen
    share, falling from 1 as the wall runs down (``Hazards.share_slope``), the others take up
    the rest (the others keep the tiles we need; overrides ``draw_share``; else late hands
    reached tenpai and won more often than they did: 1 shanten with 0-14 tiles left, tenpai
    washout 0.243 predicted, 0.171 realised; docs/sessions.md "Session 38"). ``pool_shrink`` (with
    ``wall_share``): the completing draws of a tenpai state come over the pool of *that* draw
    (:func:`shrinking_pool`: the others' discards leave it while our waits, neither drawn nor
    ronned, stay), as ``wall_shares`` were measured (else over the root's pool: at the riichi
    declarations of 200 self-play games 154 tsumo expected where 184 happened, 181 with it;
    against cnn-bot 82 / 98, 97 with it; even in 2,000 report games against cnn-bot,
    docs/sessions.md "Session 39", "Session 40"; on since session 54, again even in 2,000 games
    and truer at the riichi declarations of its own self-play). ``ron_by_discarder`` (with ``ron_share``): the share is each
    opponent's own by its class (``Hazards.ron_share_by``: one in riichi throws what it draws,
    a free closed hand holds back), the three discards of a turn at their mean (they carry
    the same ron chances, so the mean is exact for the ron; else one share for every table).
    ``discard_mix``: the opponents' discards come by tile class as the records say
    (``Hazards.discards``, ``MDPParams.disc_weight`` from :func:`regressors.discards.kind_weights`: honours and terminals about
    twice their unseen share, middle tiles about 0.6 of it, more so in the first turns), the ron
    shares turned to match (else at random among the unseen tiles, spec A5; on since session 44's
    two report sets against cnn-bot, 2,000 games: -0.067 +- 0.028 rank). ``ron_wall`` (with
    ``ron_share``): the share by turn, at the band of the wall the others' discards are made at
    (``Hazards.ron_wall``, :func:`regressors.ron_wall.per_turn`: a quiet wait is discarded
    more often early, when nobody reads it, than late; else one share for the whole hand).
    ``kan_dora``: after our kan the opponents' wins are valued with the new indicator shown
    (:func:`after_kan`'s ``opponent_classes``: the win-value model's fitted weight of one more
    indicator, about 1.25-1.4 times their points; else only our own wins gain it, and a kan
    looks better than it is).
    ``red_fives``: a five of a suit whose red is unseen, drawn or called from now on, is the
    red at ``1 / unseen copies`` (:func:`red_draws`; the win payoffs count that han in
    expectation, ``search.scorer.with_red_nb``; else only the reds held now count, and a hand
    that needs a five looks cheaper than it is). At a call of a five the called copy counts
    as one that may be red, though it is seen (a small over-count in that branch).
    ``ron_payer``: our ron is paid by each opponent at its ``ron_share_by`` share of our waits
    (:func:`ron_payers`: one in riichi about 1.6 times as often as a closed free hand; else by
    each alike), which counts where a direct hit on the leader decides the rank.
    ``ron_points``: an opponent's win classes are worth its class's share (in riichi, dama,
    open) by ron and by tsumo (``Hazards.ron_points``, :mod:`regressors.ron_points`: at the
    cnn-bot table a riichi's ron 0.91 of the mean of its wins, its tsumo 1.16) in the payoffs of
    paying its ron (``U_L``) and of its tsumo or its ron on a third (``U_O``); else the win
    model's mean either way, which overstates a deal-in (its mean counts the tsumo wins' menzen
    tsumo han and their payment by all three). The world after a later riichi keeps the
    opponent's present class.
    ``fold_turns`` (with ``hazard``): a fold that PSM plans ``n`` discards ahead meets another's
    win at ``P_O`` of the turns it is played in (``MDPParams.fold_turns``; issue 8 asks for FSM
    with PSM's hazards; else at FSM's one constant, the mean of ``P_O`` over the turns left,
    while a hand's first turns' hazard is about a tenth of its middle turns').
    ``fold_tail``: a planned fold's last discard meets another's win too, as PSM's own last
    discard does (``P_O[T]``; ``MDPParams.fold_tail``): the hand runs on to the wall's end after
    it. Without it the fold ends noten right after its last discard, and at 1 shanten with 0-14
    tiles left PSM's folds predicted another's win in 0.13 of them where 0.25 came (session 53's
    default on its own self-play, 92 decisions; docs/sessions.md "Session 54"); on since session 55
    (with ``hazard_s54.json``, every 0-2 shanten cell of its own self-play within 0.05, and even
    in 2,000 paired games against cnn-bot; docs/sessions.md "Session 55").
    ``ron_share`` is on since the calibration of the Method 2 player's own games: without it
    PSM was too sure of winning near tenpai (1 shanten: win 0.29 predicted, 0.22 realised; with
    it 0.22 / 0.22). ``projected_deal_in`` is on since the calibration of session 11's default
    (estimators that know dama hands): without it PSM expected a deal-in in 0.23-0.25 of the
    1-shanten hands with 30-59 tiles left, where 0.15-0.17 dealt in (with it 0.17-0.18).
    """

    full_horizon: bool = True
    hazard: bool = True
    projected_washout: bool = True
    furiten: bool = True
    rising_deal_in: bool = True
    three_discards: bool = True
    rising_fold: bool = True
    ron_share: bool = True  # the wins near tenpai as the records say (docs/strength_history.md)
    projected_deal_in: bool = True  # later deal-ins as the records say (README, "Strength")
    locked_growth: bool = False  # after riichi every later tenpai hand counts (README, "Strength")
    riichi_decay: bool = False  # a riichi's danger leaves the tiles the others pass
    ron_given_wait: bool = False  # a tenpai hand rons its waits at its class's share
    later_riichi: bool = False  # an opponent's later riichi as a chance event (PSM)
    read_deal_in: bool = False  # later deal-ins at LATER_DEAL_IN of the grown chances
    tenpai_other: bool = False  # another's win rarer while we are tenpai (Hazards.tenpai_other)
    draw_share: bool = False  # we draw our waits less often than their unseen share (Hazards.draw_share)
    ron_by_discarder: bool = False  # with ron_share: the share of each discarder's class (Hazards.ron_share_by)
    wall_share: bool = True  # we draw our useful kinds less often as the wall runs down (docs/sessions.md, "Session 38")
    pool_shrink: bool = True  # with wall_share: our waits over the pool of each draw (docs/sessions.md, "Session 39"; on since "Session 54")
    discard_mix: bool = True  # the others discard by tile class as the records say (Hazards.discards, docs/sessions.md "Session 43", on since "Session 44")
    ron_wall: bool = False  # with ron_share: the ron share by the wall (Hazards.ron_wall, docs/sessions.md "Session 44")
    kan_dora: bool = False  # our kan's new dora in the opponents' wins too (after_kan, docs/sessions.md "Session 46")
    red_fives: bool = False  # a five drawn later may be the unseen red (red_draws, docs/sessions.md "Session 46")
    ron_payer: bool = False  # our ron paid by each opponent at its share of our waits (ron_payers, docs/sessions.md "Session 46")
    ron_points: bool = False  # the others' wins worth their class's share by ron and by tsumo (Hazards.ron_points, docs/sessions.md "Session 47")
    fold_turns: bool = False  # with hazard: a planned fold meets P_O[n] of its own turns (docs/sessions.md "Session 49")
    fold_tail: bool = True  # a planned fold meets another's win after its last discard too (docs/sessions.md "Session 54"; on since "Session 55")


#: With ``read_deal_in``: the share of the grown deal-in chances (``lose_growth[n]``, ``n >= 1``)
#: that a free hand's later discards meet. PSM plans its later discards at today's dangers
#: grown, blind to what the table will show meanwhile; the player re-reads the table at each
#: turn and keeps its discards off the waits it can read. Fitted on the calibration of 200
#: development games against ``efficiency`` (``runs/dev_vseff``, every 3rd decision): at 1
#: shanten PSM predicted 0.184 deal-ins with 1.0 and 0.122 with 0.5 where 0.145 happened
#: (1/45-59 tiles: 0.175 / 0.116 / 0.134; all decisions 0.136 / 0.112 / 0.124); the share
#: that matches, interpolated linearly between the two, is 0.65-0.75 (docs/sessions.md, "Session 16").
LATER_DEAL_IN = 0.7
#: The first player's model (every fix off).
FIRST_TABLE_MODEL = TableModel(*[False] * len(TableModel.__dataclass_fields__))
#: Today's summed tenpai chance of the opponents counts as at least this much in
#: ``lose_growth`` (without ``projected_deal_in``): a guard against dividing by the near-zero
#: chances of a hand's first turns, which also kept their later deal-ins near zero while the
#: estimators knew no dama hands (before session 11).
GROWTH_FLOOR = 1e-3


def shrinking_pool(unseen: np.ndarray, tiles_left: int, T: int) -> np.ndarray:
    """``pool_shrink``: the root's unseen pool over the pool at the draw of ``draw_share[n]``,
    ``n = 0..T-1`` (the draw after our ``n + 1``-th discard from the root: the others' three
    discards since ours, four tiles a turn before them, our waits among them unronned only by
    chance), never below what the wall cannot give up (the dead wall and the others' hands):
    the factor on a tenpai state's completing draws, whose share ``wall_shares`` measured over
    the pool of each draw."""
    u = float(np.sum(unseen))
    now = np.maximum(u - 3.0 - 4.0 * np.arange(T), u - max(int(tiles_left), 0))
    return u / np.maximum(now, 1.0)


def hazard_turns(t_max: int) -> np.ndarray:
    """The hazard intervals ``q`` of ``P_O[n]``, ``n = 0..t_max``: ``q = max(n, 1)`` (``n = 0``
    is the interval in progress at a call decision, ``n`` the one after our ``n``-th discard)."""
    return np.maximum(np.arange(t_max + 1), 1)


def _ron_scale(hazards, model: TableModel, in_riichi: bool, me: int, tiles_left: int, T: int) -> float | np.ndarray:
    """The share of random at which the others discard our waits (1: ``ron_share`` off), with
    ``ron_wall`` by turn (T numbers) at the bands of the wall, with ``ron_by_discarder`` the
    mean of the three opponents' by their class now; with ``discard_mix`` the share of the
    class-weighted discards instead (at most 1)."""
    if not model.ron_share:
        return 1.0
    if model.ron_wall:
        scale = ron_wall_per_turn(hazards.ron_wall, tiles_left, T, in_riichi)
    elif model.ron_by_discarder:
        by = np.asarray(hazards.ron_share_by[1 if in_riichi else 0], dtype=np.float64)
        scale = float(np.mean([by[(me + k) % 4] for k in (1, 2, 3)]))
    else:
        scale = float(hazards.ron_scale_riichi if in_riichi else hazards.ron_scale)
    if model.discard_mix:  # the same rons over the discards expected by class, not at random
        scale = scale * float(hazards.discards["ron_factor_riichi" if in_riichi else "ron_factor"])
    return np.minimum(scale, 1.0) if np.ndim(scale) else min(scale, 1.0)


def _lose_growth(pt_now: np.ndarray, pt_ahead: np.ndarray, T: int, p_lose: np.ndarray) -> np.ndarray:
    """``lose_growth[n]``, ``n = 0..T-1``: the opponents' summed tenpai chance ``n`` of our
    discards ahead over the sum now (1 at ``n = 0``), kept where every ``P_L`` stays <= 0.95
    (the riichi states share ``p_lose``). Today's sum counts as at least
    :data:`GROWTH_FLOOR`, so early in a hand, when nobody is near tenpai, the later deal-ins
    stay small (``projected_deal_in`` lifts this)."""
    g = np.ones(T)
    if T > 1:
        g[1:] = pt_ahead[1:T].sum(1) / max(float(pt_now.sum()), GROWTH_FLOOR)
    top = float(p_lose.max())
    return np.clip(g, 1e-3, 0.95 / top if top > 0 else np.inf)


def _projected_lose_growth(p_wait: np.ndarray, pt_now: np.ndarray, pt_ahead: np.ndarray, T: int,
                           p_lose: np.ndarray, share: float, riichi: np.ndarray | None = None,
                           keep: float = 1.0) -> np.ndarray:
    """``lose_growth[n]``, ``n = 0..T-1``: the deal-in chance of our discard ``n`` discards
    ahead over today's (1 at ``n = 0``), kept where every ``P_L`` stays <= 0.95 (the riichi
    states share ``p_lose``). Eq. 20 with each opponent's tenpai chance then gives the ratio
    ``sum_j P^j_T[n] W_j / sum_j P^j_T W_j``, ``W_j = sum_t p_wait[j, t]`` (the waits weigh
    the opponents, so a table where nobody is near tenpai yet, ``P_T`` about 1e-5, grows to
    the chances of the turns when they are). Only ``share`` of the growth is counted: the
    tenpai hands that give no sign (not in riichi); a riichi declared later is answered at
    that decision, with its own deal-in chances. The opponents already in riichi
    (``riichi``, with ``riichi_decay``) keep ``keep ** n`` of their share ``n`` discards
    ahead: what the others pass meanwhile cannot be ronned."""
    g = np.ones(T)
    w = p_wait.sum(1)
    now = float(pt_now @ w)
    if T > 1 and now > 0:
        terms = pt_now + share * (pt_ahead[1:T] - pt_now)  # [T - 1, 3]: each opponent's tenpai then
        if riichi is not None and riichi.any():
            terms[:, riichi] = pt_now[riichi] * keep ** np.arange(1, T)[:, None]
        g[1:] = terms @ w / now
    top = float(p_lose.max())
    return np.clip(g, 1e-3, 0.95 / top if top > 0 else np.inf)


def checked_riichi_danger(k) -> float:
    """``riichi_danger`` (:func:`build_situation`) as a float; ``MahjongError`` below 0."""
    k = float(k)
    if k < 0.0:
        raise MahjongError(f"riichi_danger must be >= 0, got {k}")
    return k


#: The :class:`TableModel` options that read a fit of the hazard file: option -> (the
#: ``Hazards`` field, what it holds, the module that fits it).
HAZARD_FITS = {"discard_mix": ("discards", "the opponents' discard weights", "regressors.discards"),
               "ron_wall": ("ron_wall", "the ron shares by the wall", "regressors.ron_wall"),
               "ron_points": ("ron_points", "the win points by ron and by tsumo", "regressors.ron_points")}


def check_hazard_fits(hazards, options) -> None:
    """``ModelFileError`` naming the command that fits it where ``hazards`` (``Hazards`` or the
    estimators' hazard model) lacks the fit of one of ``options`` (keys of :data:`HAZARD_FITS`)."""
    for option in options:
        attr, what, module = HAZARD_FITS[option]
        if getattr(hazards, attr) is None:
            raise ModelFileError(f"{option} needs a hazard file with {what} "
                                 f"(python -m {module} --records GLOB --write FILE)")


def points_by_way(state, hazards) -> np.ndarray:
    """``ron_points``: [2, 4] each seat's win worth by ron (row 0) and by tsumo (row 1) over the
    win model's mean, by its class now (in riichi, dama, open; ``Hazards.ron_points``)."""
    check_hazard_fits(hazards, ["ron_points"])
    return np.stack(ron_points_factors(hazards.ron_points, [state.riichi[j] for j in range(4)],
                                       [n_takes(state.melds[j]) > 0 for j in range(4)]))


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Two optional arrays equal (both None, or equal values)."""
    return (a is None) == (b is None) and (a is None or np.array_equal(a, b))


def opponent_payoffs(table: RankTable, class_probs: np.ndarray, p_ron: np.ndarray, wt: np.ndarray,
                     me: int) -> tuple[np.ndarray, float, np.ndarray]:
    """Eq. 20's ``U_L(t)`` (the ron-chance-weighted mean over the opponents of the payoff of
    paying each one's win) and ``U_O`` (another's win we do not pay, weighted by ``wt``, the
    opponents' tenpai chances), with the opponents' win classes ``class_probs`` ([4, classes]);
    also ``U_O`` by opponent ([4])."""
    probs = np.asarray(class_probs, dtype=np.float64)
    ul_j = (probs * table.u_lose_j).sum(1)    # [4] payoff of paying j's win
    uo_j = (probs * table.u_other_j).sum(1)   # [4] payoff of j's win paid by others
    opp = [(me + k) % 4 for k in (1, 2, 3)]
    w = np.asarray(p_ron, dtype=np.float64)[opp]  # [3, 34]
    tot = w.sum(0)
    mean_ul = float(np.mean(ul_j[opp]))
    u_lose = np.where(tot > 0, (w * ul_j[opp, None]).sum(0) / np.where(tot > 0, tot, 1.0), mean_ul)
    u_other = float((wt * uo_j[opp]).sum() / wt.sum())
    return u_lose, u_other, uo_j


def build_situation(state, estimates, rank_model, *, table: RankTable | None = None,
                    hanchan: bool = False, hazards, model: TableModel = TableModel(),
                    riichi_danger: float = 1.0) -> Situation:
    """The MDP parameters of ``state``'s decision (Sec. VI-C) from the estimators' output.

    ``estimates``: ``Estimators.decision(state)``; ``hazards``: ``Estimators.hazards(state,
    estimates, hazard_turns(T_max))`` (with ``facing=True`` for ``model.later_riichi``);
    ``rank_model``: the final-rank model; ``table``: a
    :class:`RankTable` to reuse when its context is this hand's; ``riichi_danger``: the chance
    that each kind deals into an opponent in riichi, times this (capped at 1; 1: the estimators'),
    and ``P_L`` (Eq. 20) from the scaled chances.
    """
    me = int(state.seat)
    if not 0 <= me < 4:
        raise MahjongError(f"seat {me} is outside 0..3")
    ctx = HandContext.of(state, hanchan)
    # a ron by j hits us one time in three: the tsumo share among the wins we do not pay
    pts = float(hazards.p_tsumo)
    p_other_tsumo = pts / (pts + (1.0 - pts) * 2.0 / 3.0)
    by_way = points_by_way(state, hazards) if model.ron_points else None
    if table is None or table.ctx != ctx or not np.array_equal(table.win_points, estimates.win_class_points) \
            or table.p_other_tsumo != p_other_tsumo or not _same(table.points_by_way, by_way):
        table = RankTable(rank_model, ctx, estimates.win_class_points, p_other_tsumo, by_way)
    p_ron = np.clip(np.asarray(estimates.p_ron, dtype=np.float64), 0.0, 1.0)
    p_lose = np.clip(np.asarray(estimates.p_lose, dtype=np.float64), 0.0, 1.0)
    rho = np.ones(4)
    if model.ron_given_wait:
        rho = np.asarray(hazards.ron_given_wait, dtype=np.float64)
        p_ron = p_ron * rho[:, None]
    if riichi_danger != 1.0:
        k = checked_riichi_danger(riichi_danger)
        k = np.array([k if state.riichi[j] and j != me else 1.0 for j in range(4)])
        p_ron = np.clip(p_ron * k[:, None], 0.0, 1.0)
    if model.ron_given_wait or riichi_danger != 1.0:  # Eq. 20's union of the scaled chances
        p_lose = 1.0 - np.prod(1.0 - p_ron, axis=0)
    opp = [(me + k) % 4 for k in (1, 2, 3)]
    pt = np.clip(np.asarray(estimates.p_tenpai, dtype=np.float64), 0.0, 1.0)
    wt = pt[opp] + 1e-3                       # who wins when someone else does
    u_lose, u_other, uo_j = opponent_payoffs(table, estimates.win_class_probs, p_ron, wt, me)
    t_max = 1 + max(0, int(state.tiles_left)) // 4
    T = t_max if model.full_horizon else max(1, min(int(estimates.horizon), t_max))
    pt_end = np.clip(hazards.p_tenpai_end, 0.0, 1.0) if model.projected_washout else pt
    u_tw = table.washout(pt_end, True)
    u_nw = table.washout(pt_end, False)
    if model.hazard:
        p_other = np.clip(np.asarray(hazards.p_other, dtype=np.float64)[:T + 1], 0.0, 0.95)
        p_other_riichi = np.clip(np.asarray(hazards.p_other_riichi, dtype=np.float64)[:T + 1], 0.0, 0.95)
        p_end = float(hazards.p_abort)
        # FSM's one constant (Eq. 11): the mean hazard of the turns a fold would last
        fsm_p = float(np.mean(p_other[1:])) if T > 1 else float(p_other[-1])
    else:
        p_other = float(np.clip(estimates.p_end, 0.0, 0.95))
        p_other_riichi = p_other * RIICHI_OTHER_SCALE
        p_end = 0.0
        fsm_p = float(np.clip(estimates.p_end, 0.02, 0.5))
    in_riichi = bool(state.riichi[me])
    plain, riichi_pay = _win_payoffs(state, table, float(hazards.p_ippatsu), reds=model.red_fives,
                                     payers=ron_payers(hazards, me) if model.ron_payer else None)
    growth = locked_growth = 1.0
    if model.rising_deal_in and model.projected_deal_in:
        p_wait, ahead = np.asarray(estimates.p_wait)[opp] * rho[opp, None], hazards.p_tenpai_ahead[:, opp]
        decay = dict(riichi=np.array([bool(state.riichi[j]) for j in opp]),
                     keep=1.0 - float(hazards.riichi_pass)) if model.riichi_decay else {}
        growth = _projected_lose_growth(p_wait, pt[opp], ahead, T, p_lose, float(hazards.dama_share), **decay)
        # a riichi hand cannot answer a later riichi: every later tenpai hand counts
        locked_growth = _projected_lose_growth(p_wait, pt[opp], ahead, T, p_lose, 1.0, **decay) \
            if model.locked_growth else growth
    elif model.rising_deal_in:
        growth = locked_growth = _lose_growth(pt[opp], hazards.p_tenpai_ahead[:, opp], T, p_lose)
    if model.read_deal_in and np.ndim(growth):
        growth = np.concatenate([growth[:1], LATER_DEAL_IN * growth[1:]])  # a locked hand reads nothing
    riichi = None
    if can_declare_riichi(state):
        # a riichi hand is tenpai at a washout: the stick's cost there stands for every non-win ending
        stick = table.washout(pt, True) - table.washout(pt, True, riichi=True)
        riichi = RiichiParams(stick=max(0.0, float(stick)), payoff=riichi_pay, p_other=p_other_riichi,
                              ron_scale=_ron_scale(hazards, model, True, me, state.tiles_left, T)
                              if model.ron_share else None,
                              lose_growth=locked_growth)
    own = np.zeros(34, bool)
    for d in state.discards[me]:
        own[d.kind] = True
    if in_riichi:
        growth = locked_growth
    draw_share, progress_share = (float(hazards.draw_share) if model.draw_share else 1.0), (1.0, 1.0, 1.0)
    if model.wall_share:
        shares = wall_shares(hazards.share_slope, state.tiles_left, np.arange(T))
        if model.pool_shrink:
            shares[0] = np.minimum(shares[0] * shrinking_pool(np.asarray(state.unseen), state.tiles_left, T),
                                   MAX_DRAW_SHARE)
        draw_share, progress_share = shares[0], shares[1:]
    disc_weight = None  # spec A5's: the unseen counts
    if model.discard_mix:
        disc_weight = kind_weights(np.asarray(hazards.discards["weights"]), int(state.tiles_left), T)
    params = MDPParams(T=T, lose_growth=growth, p_lose=p_lose, u_lose=u_lose, p_other=p_other, u_other=u_other,
                       p_end=p_end, ron_scale=_ron_scale(hazards, model, in_riichi, me, state.tiles_left, T), disc_weight=disc_weight,
                       tenpai_other=float(hazards.tenpai_other) if model.tenpai_other and model.hazard else 1.0,
                       draw_share=draw_share, progress_share=progress_share,
                       u_tw=u_tw, u_nw=u_nw, ron_ok=~own, furiten=model.furiten,
                       payoff=riichi_pay if in_riichi else plain,
                       fsm_p=fsm_p, fold_growth=model.rising_fold, fold_turns=model.fold_turns and model.hazard, fold_tail=model.fold_tail,
                       riichi=riichi, calls=True,
                       discards_per_turn=3 if model.three_discards else 1,
                       seat_wind=int(state.seat_wind), round_wind=int(state.round_wind), yaku=True)
    if model.later_riichi and model.rising_deal_in and model.projected_deal_in and model.hazard:
        params.later_riichi = later_riichi(params, hazards, estimates, table, me, pt_end, u_other_j=uo_j, wt=wt,
                                           ron_share=model.ron_share)
    return Situation(params=params, table=table, estimates=estimates, t_max=t_max, payoff=plain,
                     root_melds=root_melds(state), p_ippatsu=float(hazards.p_ippatsu), p_ron=p_ron, other_weights=wt)


def riichi_arrivals(pt_now: np.ndarray, pt_ahead: np.ndarray, T: int, dama_share: float,
                    can: np.ndarray) -> np.ndarray:
    """(T, 3): each opponent's chance of declaring riichi in the interval after our ``n``-th
    discard, none declared yet: the rise of its projected tenpai chance from our ``n``-th
    discard to the next (``pt_ahead[n]``, ``n >= 1``; ``pt_now`` at ``n = 0``), the share that
    declares (``1 - dama_share``), over the chance it has not declared by then; 0 for those
    that cannot (open, or in riichi already)."""
    P = np.vstack([pt_now[None], pt_ahead[1:T + 1]])
    d = 1.0 - float(dama_share)
    rise = d * np.clip(np.diff(P, axis=0), 0.0, None)
    return np.clip(rise / np.maximum(1.0 - d * P[:-1], 1e-6), 0.0, 1.0) * np.asarray(can, float)


def later_riichi(params: MDPParams, hazards, estimates, table: RankTable, me: int, pt_end: np.ndarray, *,
                 u_other_j: np.ndarray, wt: np.ndarray, ron_share: bool = False) -> LaterRiichi | None:
    """An opponent's later riichi as a chance event (``TableModel.later_riichi``).

    ``q[n] = 1 - prod_j (1 - r_j[n])`` with :func:`riichi_arrivals`; the world after it is the
    decision's with a riichi by ``j`` in the share ``w_j`` of its arrivals: its discards deal in
    also at ``p_wait[j, t]`` (tenpai for sure, Eq. 20) paid ``U_L`` of j's riichi win (the
    win-value model's classes with j in riichi), its other-win
    hazard, washouts and ``U_O`` those of a table with j in riichi, and the deal-in chances no
    longer grow (the riichi's danger stands from the start). With ``ron_share`` the others
    discard our waits at the share of that table: the declarer's own share becomes a riichi
    discarder's (``Hazards.ron_share_by``: a riichi throws what it draws), the ron chances
    scaled by the three discarders' mean after over before. None when no opponent can declare.
    """
    if hazards.p_other_facing is None:
        raise MahjongError("later_riichi needs the hazards of a table facing a riichi: "
                           "Estimators.hazards(..., facing=True)")
    T = params.T
    opp = [(me + k) % 4 for k in (1, 2, 3)]
    pt = np.clip(np.asarray(estimates.p_tenpai, dtype=np.float64), 0.0, 1.0)
    r = riichi_arrivals(pt[opp], np.asarray(hazards.p_tenpai_ahead)[:, opp], T, float(hazards.dama_share),
                        np.asarray(hazards.can_riichi)[opp])
    total = r.sum(0)
    if total.sum() <= 0:
        return None
    w = total / total.sum()                                   # [3] who declares
    q = 1.0 - np.prod(1.0 - r, axis=1)
    a = params.p_lose
    pw = np.asarray(estimates.p_wait, dtype=np.float64)[opp]  # [3, 34]
    b = w @ pw
    p_lose = a + b - a * b
    # paying j's win with j in riichi (its point classes then)
    ul_j = (np.asarray(hazards.win_class_probs_riichi, dtype=np.float64) * table.u_lose_j).sum(1)
    ul_riichi = np.where(b > 0, (w[:, None] * pw * ul_j[opp, None]).sum(0) / np.where(b > 0, b, 1.0), 0.0)
    u_lose = np.where(p_lose > 0, (a * params.u_lose + (1 - a) * b * ul_riichi) / np.where(p_lose > 0, p_lose, 1.0),
                      params.u_lose)
    facing = np.asarray(hazards.p_other_facing)[opp, :T + 1]
    facing_riichi = np.asarray(hazards.p_other_facing_riichi)[opp, :T + 1]
    p_other = np.clip(w @ facing, 0.0, 0.95)
    washouts = []
    for j in opp:
        pe = np.array(pt_end, dtype=np.float64)
        pe[j] = 1.0
        washouts.append((table.washout(pe, True), table.washout(pe, False)))
    u_tw, u_nw = w @ np.array(washouts)
    wt_after = wt + w
    u_other = float((wt_after * u_other_j[opp]).sum() / wt_after.sum())
    riichi = params.riichi
    ron_scale = params.ron_scale
    if ron_share:
        ron_scale = np.minimum(1.0, ron_scale * _declarer_ron_ratio(hazards, w, opp, 0))
    if riichi is not None:
        riichi = replace(riichi, p_other=np.clip(w @ facing_riichi, 0.0, 0.95), lose_growth=1.0)
        if ron_share and riichi.ron_scale is not None:
            riichi = replace(riichi, ron_scale=np.minimum(1.0, riichi.ron_scale * _declarer_ron_ratio(hazards, w, opp, 1)))
    after = replace(params, p_lose=p_lose, u_lose=u_lose, p_other=p_other, u_other=u_other, u_tw=float(u_tw),
                    u_nw=float(u_nw), lose_growth=1.0, fsm_p=float(np.mean(p_other[1:])) if T > 1 else float(p_other[-1]),
                    ron_scale=ron_scale, riichi=riichi, later_riichi=None)
    return LaterRiichi(q=q, params=after)


def _declarer_ron_ratio(hazards, w: np.ndarray, opp: list[int], own: int) -> float:
    """How much more often the three opponents discard our waits once ``j`` (weight ``w_j``)
    has declared: the sum of their ``ron_share_by`` (row ``own``: we free 0, in riichi 1) with
    j's share a riichi discarder's, over the sum now."""
    by = np.asarray(hazards.ron_share_by[own], dtype=np.float64)[opp]
    total = by.sum()
    if total <= 0:
        return 1.0
    return float(w @ (total - by + float(hazards.ron_share_riichi[own])) / total)


def after_kan(sit: Situation, state, opponent_classes: np.ndarray | None = None) -> Situation:
    """The situation of our kan (closed, added or open), right after it and before the
    replacement draw: ``state`` is the seat's table state with the kan applied.

    The chance parameters (Sec. VI-C) stay the decision's; the horizon loses the turn the
    kan moves into the dead wall (the replacement draw takes the live wall's last tile:
    ``T = 1 + (W - 1) // 4`` with ``W`` tiles left, at most the decision's ``T``); the win
    payoffs are those of the hand with its kan (fu, red fives, sankantsu by the scorer), the
    new dora indicator (and its ura) counted in expectation; riichi stays possible while
    every meld is a closed kan. ``opponent_classes`` ([4, classes]): the opponents' win
    classes with the new indicator shown (``regressors.payoffs.WinValueModel.value_with_new_dora``),
    from which ``U_L`` and ``U_O`` are made again (:func:`opponent_payoffs`): the new dora is
    in their hands too; None keeps the decision's. Not modelled: chankan on an added kan,
    rinshan kaihou, the new dora in the world after a later riichi (``later_riichi`` keeps the
    decision's payoffs); a kan in riichi loses the ippatsu.
    """
    p = sit.params
    in_riichi = bool(state.riichi[state.seat])
    # the riichi payoff's payers: the riichi option's, or in riichi the decision's own payoff's
    riichi_payer = sit.params.riichi.payoff.payer if sit.params.riichi is not None else sit.params.payoff.payer
    payers = None if sit.payoff.payer is None else np.vstack([sit.payoff.payer, riichi_payer])
    plain, riichi_pay = _win_payoffs(state, sit.table, 0.0 if in_riichi else sit.p_ippatsu, new_dora=1,
                                     reds=bool(np.any(sit.payoff.red_rate > 0)),  # a red seen stays seen
                                     payers=payers)
    T = max(1, min(int(p.T), 1 + max(0, int(state.tiles_left) - 1) // 4))
    declare = can_declare_riichi(state)
    u_lose, u_other = p.u_lose, p.u_other
    if opponent_classes is not None:
        if sit.p_ron is None or sit.other_weights is None:
            raise MahjongError("after_kan: the situation carries no ron weights (not made by build_situation)")
        u_lose, u_other, _ = opponent_payoffs(sit.table, opponent_classes, sit.p_ron, sit.other_weights,
                                              int(state.seat))

    def cut(q: MDPParams, payoffs: bool = True) -> MDPParams:
        riichi = None
        if q.riichi is not None and declare:
            riichi = replace(q.riichi, payoff=riichi_pay, p_other=_first(q.riichi.p_other, T + 1),
                             lose_growth=_first(q.riichi.lose_growth, T), ron_scale=_first(q.riichi.ron_scale, T))
        later = q.later_riichi
        if later is not None:
            later = LaterRiichi(q=_first(later.q, T), params=cut(later.params, payoffs=False))
        opp = dict(u_lose=u_lose, u_other=u_other) if payoffs else {}
        return replace(q, T=T, p_other=_first(q.p_other, T + 1), lose_growth=_first(q.lose_growth, T),
                       p_end=_first(q.p_end, T), draw_share=_first(q.draw_share, T), ron_scale=_first(q.ron_scale, T),
                       progress_share=q.progress_share if np.ndim(q.progress_share) < 2 else
                       np.asarray(q.progress_share)[:, :T],
                       payoff=riichi_pay if in_riichi else plain, riichi=riichi, later_riichi=later, **opp)
    return replace(sit, params=cut(p), payoff=plain, root_melds=root_melds(state))


def _first(x, n: int):
    """The first ``n`` per-turn numbers of ``x`` (a number stays a number)."""
    return x if np.ndim(x) == 0 else np.asarray(x)[:n]


def with_ron_model(est, state, ron_model):
    """``est`` with its per-opponent ron chances ``P(ron_j(t))`` from ``ron_model`` (an object
    whose ``predict([view])["p_ron"]`` is [1, 4, 34] by absolute seat, e.g. the CNN estimators
    of ``cnn.estimators``, which learn Eq. 20's product in one piece) instead of the tenpai x
    wait-histogram product, and ``P_L`` their union. What any observer knows stays exact: our
    own row and every kind an opponent cannot ron now (``regressors.features.safe_kinds``)
    are 0. The tenpai chances and ``p_wait`` (the later deal-ins' growth) stay the LR's."""
    p_ron = np.clip(np.asarray(ron_model.predict([state])["p_ron"][0], dtype=np.float64), 0.0, 1.0)
    me = int(state.seat)
    p_ron[me] = 0.0
    for j in range(4):
        if j != me:
            p_ron[j, safe_kinds(state, j)] = 0.0
    return replace(est, p_ron=p_ron, p_lose=1.0 - np.prod(1.0 - p_ron, axis=0))


def scaled_hazards(hazards, k: float):
    """``hazards`` with another's win ``k`` times as likely in every interval (``P_O``, with us
    in riichi too, and the worlds of a riichi declared now); the rest as fitted. ``k = 1``:
    ``hazards`` itself. The build clips ``P_O`` to 0.95."""
    k = checked_hazard_scale(k)
    if k == 1.0:
        return hazards
    facing = {f: None if getattr(hazards, f) is None else k * np.asarray(getattr(hazards, f))
              for f in ("p_other_facing", "p_other_facing_riichi")}
    return replace(hazards, p_other=k * np.asarray(hazards.p_other),
                   p_other_riichi=k * np.asarray(hazards.p_other_riichi), **facing)


def checked_hazard_scale(k) -> float:
    """``hazard_scale`` (:func:`situation_of`) as a float; ``MahjongError`` outside (0, 4]."""
    k = float(k)
    if not 0.0 < k <= 4.0:
        raise MahjongError(f"hazard_scale must be in (0, 4], got {k}")
    return k


def situation_of(state, estimators, *, table: RankTable | None = None, hanchan: bool = False,
                 model: TableModel = TableModel(), riichi_danger: float = 1.0, ron_model=None,
                 hazard_scale: float = 1.0) -> Situation:
    """:func:`build_situation` with the estimates and hazards of ``estimators``
    (``regressors.Estimators``) for ``state``'s seat; ``ron_model``: the deal-in chances from
    it instead (:func:`with_ron_model`); ``hazard_scale``: another's win that many times as
    likely in every interval (:func:`scaled_hazards`; 1: as fitted)."""
    sh = hand_shanten(state)
    est = estimators.decision(state, sh)
    if ron_model is not None:
        est = with_ron_model(est, state, ron_model)
    hz = estimators.hazards(state, est, hazard_turns(1 + max(0, int(state.tiles_left)) // 4),
                            facing=model.later_riichi, shanten=sh)
    hz = scaled_hazards(hz, hazard_scale)
    return build_situation(state, est, estimators.final_rank, table=table, hanchan=hanchan, hazards=hz,
                           model=model, riichi_danger=riichi_danger)
