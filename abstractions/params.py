"""The parameter bundle of the solitary MDPs (Kurita & Hoki Sec. VI-C; ``kurita_hoki.md`` 5, 9.2).

Everything is plain numbers and arrays, so the estimators (regressors, CNNs) and the scorer
plug in from above without this package knowing them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numba
import numpy as np

from game.errors import MahjongError
from search.scorer import ANKAN, F_POINTS, score_nb
from search.retrograde import draw_shares

#: ``payoff(hands14 (m, 34) uint8, win_tile (m,) int, tsumo: bool[, melds (m, 4, 2) int64]) ->
#: (m,) float``: the payoff of winning with each completed concealed hand (``hands14`` already
#: holds the winning tile). ``melds`` rows are scorer rows ``(type, kind)`` (root melds first,
#: then the calls of the state; ``(-1, -1)`` pads); it is passed only when the graph holds
#: melds, so a three-argument callable serves closed graphs. NaN means "no win" (no yaku).
Payoff = Callable[..., np.ndarray]


@dataclass
class RiichiParams:
    """The locked states after a riichi declaration (Sec. VI-E; spec 7 and 9.2 A11).

    ``stick`` is the payoff the 1000-point riichi stick costs in every ending but a win (a win
    takes it back): unless given, the locked states' ``u_lose``, ``u_other``, ``u_tw`` and
    ``u_nw`` are the base ones minus ``stick``. ``payoff`` is the win payoff of a riichi hand
    (riichi han, expected ura dora and ippatsu; e.g. ``search.scorer.expected_score_nb``
    through the rank model); None takes the base payoff. The others' reaction to the riichi
    (they fold: fewer other wins, safer discards) goes in ``p_other``, ``p_end``, ``p_disc``,
    ``ron_scale`` and ``p_lose`` (None: the base values). After the declaration the hand only discards its
    draw (tsumogiri) or wins; it cannot fold or call, so ``lose_growth`` (None: the base one)
    may count the opponents' later tenpai hands that a free hand would answer.
    """

    stick: float = 0.0
    payoff: Payoff | float | None = None
    p_lose: np.ndarray | None = None
    u_lose: np.ndarray | None = None
    p_other: float | np.ndarray | None = None
    u_other: float | None = None
    p_end: float | np.ndarray | None = None
    u_tw: float | None = None
    u_nw: float | None = None
    p_disc: np.ndarray | None = None
    ron_scale: float | np.ndarray | None = None
    lose_growth: float | np.ndarray | None = None

    def arrays(self, base: "MDPParams") -> dict:
        """The locked states' parameters in the shapes of :func:`search.retrograde.solve`."""
        T, st = base.T, float(self.stick)
        pl = base.p_lose if self.p_lose is None else _vec(self.p_lose, 34, "riichi.p_lose")
        po = base.p_other if self.p_other is None else _per_turn(self.p_other, T, "riichi.p_other")
        pe = base.p_end if self.p_end is None else _vec(self.p_end, T, "riichi.p_end")
        pd = base.p_disc if self.p_disc is None else _vec(self.p_disc, 34, "riichi.p_disc")
        if ((pl < 0) | (pl > 1)).any() or ((po < 0) | (po > 1)).any() or ((pe < 0) | (pe > 1)).any():
            raise MahjongError("riichi probabilities must lie in [0, 1]")
        if (pd < 0).any() or pd.sum() > 1 + 1e-9:
            raise MahjongError("riichi.p_disc must be a distribution over the 34 kinds")
        gl = base.lose_growth if self.lose_growth is None else _vec(self.lose_growth, T, "riichi.lose_growth")
        if (gl <= 0).any() or float(pl.max()) * float(gl.max()) > 1 + 1e-12:
            raise MahjongError("riichi.lose_growth must be positive and keep p_lose * lose_growth within [0, 1]")
        return dict(g_lose=gl, p_lose=pl, u_lose=base.u_lose - st if self.u_lose is None else _vec(self.u_lose, 34, "riichi.u_lose"),
                    p_other=po, u_other=base.u_other - st if self.u_other is None else float(self.u_other),
                    p_end=pe, u_tw=base.u_tw - st if self.u_tw is None else float(self.u_tw),
                    u_nw=base.u_nw - st if self.u_nw is None else float(self.u_nw), p_disc=pd,
                    ron_scale=base.ron_scale if self.ron_scale is None else _scales(self.ron_scale, T, "riichi.ron_scale"))


@dataclass
class LaterRiichi:
    """An opponent's riichi as a chance event of the hand in progress (``TableModel.later_riichi``).

    ``q[n]``, ``n = 0..T-1``: the chance that an opponent declares riichi in the interval after
    *i*'s ``n``-th discard, none having declared since the root; ``params``: the world after
    it (its deal-in chances, hazards and washouts; no further event), solved over the same
    graph and horizon. Without it a later riichi costs nothing: the growth of the deal-ins
    counts only the tenpai hands that give no sign.
    """

    q: np.ndarray
    params: "MDPParams"

    def checked(self, T: int) -> "LaterRiichi":
        q = _vec(self.q, T, "later_riichi.q")
        if ((q < 0) | (q > 1)).any():
            raise MahjongError("later_riichi.q must lie in [0, 1]")
        if not isinstance(self.params, MDPParams) or int(self.params.T) != T or self.params.later_riichi is not None:
            raise MahjongError("later_riichi.params must be MDPParams of the same horizon without a later riichi")
        return LaterRiichi(q=q, params=self.params)


@dataclass
class MDPParams:
    """Inputs of PSM / FSM / WSM / TSM.

    Attributes
    ----------
    T : int
        Horizon: the discards player *i* can still make (a 14-tile root's own discard counts).
    p_lose, u_lose : float[34]
        Probability that a discard of each kind is ronned at once, and the payoff then (Eq. 20).
    p_other : float, float[T] or float[T+1]
        Per turn ``n = 0..T-1``: probability that the hand ends by another player's win before
        *i*'s next draw; payoff ``u_other``. Entry ``T``, when given, is the chance that another
        wins after *i*'s last discard, before the washout at the horizon (0 otherwise).
    lose_growth : float or float[T]
        Per turn ``n``: the deal-in chances of *i*'s discard after ``n`` earlier ones are
        ``p_lose * lose_growth[n]`` (the opponents get closer to tenpai; the root's discard,
        ``n = 0``, uses ``p_lose`` itself). Positive, and ``p_lose * lose_growth <= 1``.
    p_end : float or float[T]
        Per turn: probability that the hand ends in a draw before *i*'s next draw (abortive or an
        earlier exhaustive draw); payoff ``u_tw`` / ``u_nw`` by *i*'s tenpai.
    u_tw, u_nw : float
        Washout payoffs with *i* tenpai / noten (also at the horizon).
    p_disc : float[34], optional
        Opponents' discard distribution for *i*'s ron chances; default proportional to the unseen
        counts (spec A5), times ``disc_weight`` when given.
    disc_weight : float[34], optional
        The weight of each kind in the default ``p_disc``: the opponents discard a kind at its
        unseen copies times this, normalised (``regressors.discards.kind_weights``); applied
        to the pool that ``checked`` is given, the graph's (which at a call decision counts
        the tile on offer). Not with ``p_disc``.
    ron_scale : float or float[T]
        The opponents discard a kind *i* can ron at this share of ``p_disc`` (in [0, 1]: they
        hold back the tiles that look dangerous); T numbers: by the discards *i* has made
        before theirs.
    tenpai_other : float
        ``p_other`` times this at the tenpai states not locked in riichi (in [0, 1]: another
        wins less often while *i* is tenpai; the locked states' ``p_other`` is their own).
    draw_share : float or float[T]
        *i* draws a kind that completes its hand at this share of its unseen share (the
        others hold some of our waits; above 1, up to ``search.retrograde.MAX_DRAW_SHARE``,
        where the pool has shrunk since the root while the waits stayed), the other kinds
        more often by as much, the waits at most every draw; T numbers: by the discards made
        before the draw.
    progress_share : 3 floats or float[3, T]
        At 1, 2 and 3+ shanten, *i* draws a kind after which an exchange lowers its shanten at
        this share of its unseen share (in [0, 1]: the others keep the tiles we need too), the
        other kinds more often by as much; (3, T): by turn as ``draw_share``. ``checked()``
        gives both by turn (T and (3, T) numbers).
    ron_ok : bool[34], optional
        Kinds *i* may ron (False for furiten kinds, spec A13); default all.
    furiten : bool
        Tenhou's furiten: a hand any of whose waits is a kind with ``ron_ok`` False cannot
        ron at all (tsumo stays); False: only those kinds are not ronned.
    payoff : Payoff or float
        Win payoffs (a constant, or a callable such as the scorer + rank model).
    fsm_p, fold : float, bool
        FSM's constant other-win probability (spec A2) and whether PSM may fold (A1).
    fold_growth : bool
        A fold's discards are ronned with the grown chances ``p_lose * lose_growth[n]`` of the
        turns they are made in, as PSM's own discards (False: ``p_lose``, today's dangers).
    fold_turns : bool
        After each of a fold's discards another wins at ``p_other`` of the turn it is made in,
        as after PSM's own (False: ``fsm_p`` at every turn; ``fsm_p`` orders the fold's kinds
        either way).
    fold_tail : bool
        A fold's last discard too meets another's win (``fsm_p``, or ``p_other`` of its turn
        with ``fold_turns``) before ``U_E``: the hand runs on to the wall's end after it, as
        PSM's last discard meets ``P_O[T]`` (False: Eq. 11 as reconstructed, ``U_E`` right after it).
    u_end : float, optional
        FSM's end payoff ``U_E``; default ``u_nw``.
    tsumo_forced : bool
        A legal tsumo must be taken (the rule of ``shimizu.md``'s mini-mahjong).
    riichi : RiichiParams, optional
        Allows "riichi + discard" into the locked twins of closed tenpai hands (spec A11) and
        gives their parameters; None: no riichi declarations.
    calls : bool
        Allows TAKE (pon, chi; Eq. 10) into the graph's open states.
    p_chi : float
        Share of the opponents' discards made by the left player, the only one *i* may chi
        from (spec 9.2 A3: one opponents'-discard node per turn, chi weighted); used with
        ``discards_per_turn = 1``.
    discards_per_turn : int
        1: one opponents'-discard node between *i*'s turns (chi weighted by ``p_chi``); 3: the
        three opponents' discards in turn (right, across, left), each a chance of ron and pon,
        chi on the left player's only (spec A3's recommended reading).
    seat_wind, round_wind : int
        0..3 (E S W N), for the yaku of open hands (yakuhai).
    yaku : bool
        A full-size open hand (13 tiles with its melds) wins only with a yaku (scorer check,
        spec A14): its win payoffs become NaN (no win) without one.
    later_riichi : LaterRiichi, optional
        An opponent's later riichi as a chance event between *i*'s turns (PSM only); None:
        none modelled.
    split_fold : bool
        PSM's tracked endings give each planned fold's own endings (the FSM's lose, another's
        win, noten at its end, from the state and turn it folds at) in place of ``fold``.
        The values are the same.
    """

    T: int
    p_lose: np.ndarray = field(default_factory=lambda: np.zeros(34))
    u_lose: np.ndarray = field(default_factory=lambda: np.zeros(34))
    p_other: float | np.ndarray = 0.0
    u_other: float = 0.0
    p_end: float | np.ndarray = 0.0
    lose_growth: float | np.ndarray = 1.0
    u_tw: float = 0.0
    u_nw: float = 0.0
    p_disc: np.ndarray | None = None
    disc_weight: np.ndarray | None = None
    ron_scale: float | np.ndarray = 1.0
    tenpai_other: float = 1.0
    draw_share: float | np.ndarray = 1.0
    progress_share: tuple[float, float, float] | np.ndarray = (1.0, 1.0, 1.0)
    ron_ok: np.ndarray | None = None
    furiten: bool = False
    payoff: Payoff | float = 1.0
    fsm_p: float = 0.1
    fold: bool = True
    fold_growth: bool = False
    fold_turns: bool = False
    fold_tail: bool = False
    u_end: float | None = None
    tsumo_forced: bool = False
    riichi: RiichiParams | None = None
    calls: bool = True
    p_chi: float = 1.0 / 3.0
    discards_per_turn: int = 1
    seat_wind: int = 0
    round_wind: int = 0
    yaku: bool = True
    later_riichi: LaterRiichi | None = None
    split_fold: bool = False

    def checked(self, unseen: np.ndarray) -> "MDPParams":
        """A copy with every array at its full shape and dtype; raises ``MahjongError``."""
        T = int(self.T)
        if T < 1:
            raise MahjongError(f"horizon T must be >= 1, got {self.T}")
        pl = _vec(self.p_lose, 34, "p_lose")
        if ((pl < 0) | (pl > 1)).any():
            raise MahjongError("p_lose must lie in [0, 1]")
        po = _per_turn(self.p_other, T, "p_other")
        pe = _vec(self.p_end, T, "p_end")
        if ((po < 0) | (po > 1)).any() or ((pe < 0) | (pe > 1)).any():
            raise MahjongError("p_other and p_end must lie in [0, 1]")
        gl = _vec(self.lose_growth, T, "lose_growth")
        top = max(float(pl.max()), 0.0 if self.riichi is None or self.riichi.p_lose is None
                  else float(np.max(self.riichi.p_lose)))
        if (gl <= 0).any() or top * float(gl.max()) > 1 + 1e-12:
            raise MahjongError("lose_growth must be positive and keep p_lose * lose_growth within [0, 1]")
        if self.p_disc is None:
            w = np.asarray(unseen, dtype=np.float64)
            if self.disc_weight is not None:
                dw = _vec(self.disc_weight, 34, "disc_weight")
                if (dw < 0).any():
                    raise MahjongError("disc_weight must not be negative")
                w = w * dw
            pd = w / w.sum() if w.sum() > 0 else np.zeros(34)
        elif self.disc_weight is not None:
            raise MahjongError("give p_disc or disc_weight, not both")
        else:
            pd = _vec(self.p_disc, 34, "p_disc")
            if (pd < 0).any() or pd.sum() > 1 + 1e-9:
                raise MahjongError("p_disc must be a distribution over the 34 kinds")
        ron = np.ones(34, np.bool_) if self.ron_ok is None else np.asarray(self.ron_ok, dtype=np.bool_)
        if ron.shape != (34,):
            raise MahjongError("ron_ok must have 34 entries")
        if not 0.0 <= float(self.p_chi) <= 1.0:
            raise MahjongError(f"p_chi must lie in [0, 1], got {self.p_chi}")
        if int(self.discards_per_turn) not in (1, 3):
            raise MahjongError(f"discards_per_turn must be 1 or 3, got {self.discards_per_turn}")
        if not (0 <= int(self.seat_wind) <= 3 and 0 <= int(self.round_wind) <= 3):
            raise MahjongError("seat_wind and round_wind must be 0..3")
        if self.riichi is not None and not isinstance(self.riichi, RiichiParams):
            raise MahjongError("riichi must be a RiichiParams or None")
        try:
            shares = draw_shares(self.draw_share, self.progress_share, T)
        except ValueError as err:
            raise MahjongError(str(err)) from None
        return MDPParams(T=T, p_lose=pl, u_lose=_vec(self.u_lose, 34, "u_lose"), p_other=po,
                         u_other=float(self.u_other), p_end=pe, lose_growth=gl, u_tw=float(self.u_tw),
                         u_nw=float(self.u_nw), p_disc=pd, ron_scale=_scales(self.ron_scale, T, "ron_scale"),
                         tenpai_other=_scale(self.tenpai_other, "tenpai_other"),
                         draw_share=shares[0], progress_share=shares[1:], ron_ok=ron, furiten=bool(self.furiten), payoff=self.payoff,
                         fsm_p=float(self.fsm_p), fold=bool(self.fold), fold_growth=bool(self.fold_growth),
                         fold_turns=bool(self.fold_turns), fold_tail=bool(self.fold_tail), u_end=float(self.u_nw if self.u_end is None else self.u_end),
                         tsumo_forced=bool(self.tsumo_forced), riichi=self.riichi, calls=bool(self.calls),
                         p_chi=float(self.p_chi), discards_per_turn=int(self.discards_per_turn),
                         seat_wind=int(self.seat_wind), round_wind=int(self.round_wind), yaku=bool(self.yaku),
                         later_riichi=None if self.later_riichi is None else self.later_riichi.checked(T),
                         split_fold=bool(self.split_fold))


def _scale(x, name: str) -> float:
    v = float(x)
    if not 0.0 <= v <= 1.0:
        raise MahjongError(f"{name} must lie in [0, 1], got {x}")
    return v


def _scales(x, T: int, name: str) -> float | np.ndarray:
    """A share in [0, 1], or T of them (one a turn)."""
    if np.ndim(x) == 0:
        return _scale(x, name)
    a = _vec(x, T, name)
    if ((a < 0) | (a > 1)).any():
        raise MahjongError(f"{name} must lie in [0, 1], got {x}")
    return a


def _per_turn(x, T: int, name: str) -> np.ndarray:
    """``p_other`` as T+1 numbers: a number or T numbers for the turns before the horizon
    (no other win after the last discard), or T+1 numbers."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 1 and a.shape == (T + 1,):
        return a.copy()
    return np.append(_vec(x, T, name), 0.0)


def _vec(x, n: int, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        return np.full(n, float(a))
    if a.shape != (n,):
        raise MahjongError(f"{name} must be a number or {n} numbers, got shape {a.shape}")
    return a.copy()


def meld_rows(graph, states: np.ndarray) -> np.ndarray:
    """(m, 4, 2) int64 scorer rows ``(type, kind)`` of the melds of ``states`` (root melds
    first, then the state's calls; ``(-1, -1)`` pads)."""
    from search.hand_graph import CHI_CODE
    from search.scorer import CHI, PON

    m = len(states)
    out = np.full((m, 4, 2), -1, np.int64)
    k = len(graph.root_melds)
    if k:
        out[:, :k] = graph.root_melds[None]
    codes = graph.melds[states].astype(np.int64)
    for j in range(4 - k):
        c = codes[:, j]
        has = c >= 0
        out[has, k + j, 0] = np.where(c[has] >= CHI_CODE, CHI, PON)
        out[has, k + j, 1] = np.where(c[has] >= CHI_CODE, c[has] - CHI_CODE, c[has])
    return out


@numba.njit(cache=True)
def _yaku_mask(hands, melds, nmeld, tiles, skeys, r, seat_wind, round_wind, ok_t, ok_r):
    """``ok_t[i]`` / ``ok_r[i]``: the win ``tiles[i]`` by tsumo / ron on ``hands[i]`` (13 - 3 *
    melds tiles, without it) has a yaku (the scorer gives points without dora).

    An open hand's yaku by tsumo depend on the completed hand and its melds only (no menzen
    yaku), so that check runs once per completed hand (keyed ``skeys[i] + r[tiles[i]]``). A ron
    has the same yaku but for sanankou (a ron completing a triplet opens it), so the ron check
    runs again only where three concealed triplets could stand.
    """
    dm = np.zeros(34, np.uint8)
    m = hands.shape[0]
    size = 16
    while size < 2 * m:
        size *= 2
    keys = np.zeros(size, np.uint64)
    vals = np.full(size, -1, np.int8)
    mask = size - 1
    c = np.empty(34, np.uint8)
    for i in range(m):
        u = tiles[i]
        key = skeys[i] + r[u]
        j = int((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask
        while vals[j] != -1 and keys[j] != key:
            j = (j + 1) & mask
        if vals[j] == -1:
            sc = score_nb(hands[i], melds[i, :nmeld[i]], u, True, seat_wind, round_wind, 0, dm, 0, 0, 0, 0, 0)
            keys[j] = key
            vals[j] = 1 if sc[F_POINTS] > 0 else 0
        ok_t[i] = vals[j] == 1
        ok_r[i] = ok_t[i]
        if ok_t[i]:
            for k in range(34):
                c[k] = hands[i, k]
            c[u] += 1
            trip = 0
            for k in range(34):
                if c[k] >= 3:
                    trip += 1
            if trip >= 3:
                sc = score_nb(hands[i], melds[i, :nmeld[i]], u, False, seat_wind, round_wind, 0, dm, 0, 0, 0, 0, 0)
                ok_r[i] = sc[F_POINTS] > 0


def _call_payoff(payoff, hands14, tiles, tsumo, melds):
    if melds is None:
        return payoff(hands14, tiles, tsumo)
    try:
        return payoff(hands14, tiles, tsumo, melds)
    except TypeError as err:
        raise MahjongError(f"the graph holds melds: the payoff must take (hands14, tiles, tsumo, melds): {err}") from None


def win_payoffs(graph, payoff: Payoff | float, *, riichi_payoff: Payoff | float | None = None,
                yaku: bool = False, seat_wind: int = 0, round_wind: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Tsumo and ron payoffs aligned to ``graph``'s win list (NaN: no win).

    The wins of the riichi twins use ``riichi_payoff`` (default ``payoff``). With ``yaku``,
    the wins of full-size open hands without a yaku are NaN (spec A14).
    """
    states, tiles = graph.win_pairs()
    m = len(states)
    has_melds = graph.n_open > 0 or len(graph.root_melds) > 0
    melds = meld_rows(graph, states) if has_melds else None
    twin = graph.riichi[states]
    ts = np.empty(m)
    rn = np.empty(m)
    hands14 = graph.hands[states].copy()
    hands14[np.arange(m), tiles] += 1
    for pay, sel in ((payoff, ~twin), (payoff if riichi_payoff is None else riichi_payoff, twin)):
        if not sel.any():
            continue
        if not callable(pay):
            ts[sel] = rn[sel] = float(pay)
            continue
        ms = None if melds is None else melds[sel]
        a = np.asarray(_call_payoff(pay, hands14[sel], tiles[sel], True, ms), dtype=np.float64)
        b = np.asarray(_call_payoff(pay, hands14[sel], tiles[sel], False, ms), dtype=np.float64)
        if a.shape != (int(sel.sum()),) or b.shape != a.shape:
            raise MahjongError(f"payoff must return {int(sel.sum())} values")
        ts[sel], rn[sel] = a, b
    if yaku and melds is not None:
        nmeld = (melds[:, :, 0] >= 0).sum(1)
        is_open = (melds[:, :, 0] >= 0) & (melds[:, :, 0] != ANKAN)
        full = graph.hands[states].sum(1) + 3 * nmeld == 13
        sel = np.flatnonzero(is_open.any(1) & full & ~twin)
        if len(sel):
            from search.hand_graph import KEY_R

            h13 = np.ascontiguousarray(graph.hands[states[sel]])
            ok_t = np.empty(len(sel), np.bool_)
            ok_r = np.empty(len(sel), np.bool_)
            ms, nm, tl = np.ascontiguousarray(melds[sel]), nmeld[sel].astype(np.int64), tiles[sel].astype(np.int64)
            _yaku_mask(h13, ms, nm, tl, np.ascontiguousarray(graph.state_keys[states[sel]]), KEY_R,
                       int(seat_wind), int(round_wind), ok_t, ok_r)
            ts[sel[~ok_t]] = np.nan
            rn[sel[~ok_r]] = np.nan
    return ts, rn
