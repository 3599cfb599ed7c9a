"""Feature functions of the estimators, on one seat's view of the table.

``view`` is a :class:`game.state.TableState`: the player's own at play time, and the
discarding seat's own one of :class:`regressors.replay.FullReplay` when a dataset is built
from records, so training and play read the very same fields (``discards``, ``melds``,
``riichi``, ``riichi_turn``, ``unseen``, ``tiles_left``, ``dealer``, ...). Tiles are read
as kinds (``id // 4``) and red fives by their ids (game/tiles.py ``RED_IDS``). Features are
plain float32 vectors with fixed names, saved beside the coefficients so a model file and
the code can be checked against each other.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from game.tiles import RED_IDS, dora_from_indicator

if TYPE_CHECKING:
    from game.state import TableState

TAKES = ("chi", "pon", "daiminkan", "kakan")
MIDDLE = np.zeros(34, dtype=bool)
for _s in range(3):
    MIDDLE[9 * _s + 2: 9 * _s + 7] = True  # 3..7 of each suit
YAOCHU = ~MIDDLE.copy()
for _s in range(3):
    YAOCHU[9 * _s + 1] = YAOCHU[9 * _s + 7] = False  # 2 and 8 are neither
_MIDDLE_LIST = MIDDLE.tolist()
_YAOCHU_LIST = YAOCHU.tolist()


def n_takes(melds: Sequence) -> int:
    """Calls that took a discard (chi, pon, daiminkan; a kakan upgrades a pon): the paper's
    "number of TAKE actions since DEAL"."""
    return sum(1 for m in melds if m.type in TAKES)


def hand_shanten(view: TableState) -> int:
    """The shanten of ``view``'s concealed hand (our kernel, checked against riichienv's), as
    the decision rows of training and the estimates of play read it."""
    from search.shanten import shanten

    return int(shanten(np.asarray(view.hand, np.uint8)))


def dora_kinds(view: TableState) -> np.ndarray:
    out = np.zeros(34, dtype=np.int8)
    for ind in view.dora_indicators:
        out[dora_from_indicator(ind // 4)] += 1
    return out


def yakuhai_kinds(view: TableState, seat: int) -> np.ndarray:
    """Dragons, the round wind and the seat's own wind."""
    out = np.zeros(34, dtype=bool)
    out[31:34] = True
    out[27 + view.round_wind % 4] = True
    out[27 + (seat - view.dealer) % 4] = True
    return out


# --- opponents' tenpai (Sec. VI-B, Mizukami-style features) ------------------------------

TENPAI_FEATURES = (
    "turn", "takes", "tiles_left", "tsumogiri_last3", "tsumogiri_last6", "tedashi_last",
    "middle_last6_tedashi", "yaochu_first6", "middle_share", "dora_discarded",
    "yakuhai_melds", "dora_in_melds", "flush_melds", "turns_since_take", "is_dealer",
    "others_riichi", "honor_share_late",
)


def tenpai_features(view: TableState, j: int) -> np.ndarray:
    """Features of seat ``j`` being tenpai now, from its discards, calls and the table.

    Plain Python on the short discard list: small numpy arrays cost more than they save.
    """
    ds = view.discards[j]
    melds = view.melds[j]
    n = len(ds)
    kinds = [d.kind for d in ds]
    tg = [d.tsumogiri for d in ds]
    k6, t6 = kinds[-6:], tg[-6:]
    dora = dora_kinds(view)
    yak = yakuhai_kinds(view, j)
    meld_kinds = [t // 4 for m in melds for t in m.tiles]
    suits = {k // 9 for k in meld_kinds if k < 27}
    last_take = _last_take_turn(view, j)
    mid = _MIDDLE_LIST
    return np.array([
        n / 18.0,
        n_takes(melds),
        view.tiles_left / 70.0,
        sum(tg[-3:]) / len(tg[-3:]) if n else 0.0,
        sum(t6) / len(t6) if n else 0.0,
        float(n > 0 and not tg[-1]),
        float(sum(1 for k, t in zip(k6, t6) if mid[k] and not t)),
        float(sum(1 for k in kinds[:6] if _YAOCHU_LIST[k])),
        sum(1 for k in kinds if mid[k]) / n if n else 0.0,
        float(sum(1 for k in kinds if dora[k] > 0)),
        float(sum(1 for m in melds if m.type != "chi" and yak[m.tiles[0] // 4])),
        float(sum(int(dora[k]) for k in meld_kinds)),
        float(len(suits) <= 1 and len(melds) > 0),
        (n - last_take) / 6.0 if last_take is not None else 0.0,
        float(j == view.dealer),
        float(sum(view.riichi[s] for s in range(4) if s != j)),
        sum(1 for k in k6 if k >= 27) / len(k6) if n else 0.0,
    ], dtype=np.float32)


def _last_take_turn(view: TableState, j: int) -> int | None:
    """How many discards j had made when it made its last take (None without takes):
    j's discards before the called tile in the order of play (:func:`discard_order`)."""
    takes = [m for m in view.melds[j] if m.type in TAKES and m.from_seat is not None]
    if not takes:
        return None
    m = takes[-1]
    made = 0
    for s, n in discard_order(view):
        if s == m.from_seat and view.discards[s][n].tile == m.called:
            return made
        made += s == j
    return max(0, len(view.discards[j]) - 1)  # not reached on a consistent table


def turn_bucket(turn: int) -> int:
    """The paper fits P_T per number of discards; buckets of three keep each fit populated."""
    return min(turn // 3, 5)


def takes_bucket(takes: int) -> int:
    return min(takes, 3)


# --- deal-in: closed-hand wait categories (Eq. 20, histograms) ---------------------------

N_WAIT_CATS = 16
WAIT_CAT_NAMES = (
    "genbutsu", "suji19", "nosuji19", "suji28", "nosuji28", "suji37", "nosuji37",
    "double_suji456", "half_suji456", "nosuji456", "honor_yakuhai", "honor_guest",
    "nochance_19", "nochance_28", "nochance_37", "nochance_456",
)


def discard_order(view: TableState) -> list[tuple[int, int]]:
    """Every discard of the hand so far as (seat, index in its river), in the order made.

    Rebuilt from public fields: play starts at the dealer and passes to the next seat,
    except after a called discard, when the caller (the meld whose ``called`` id is that
    tile) discards next; a kan's rinshan draw does not change whose discard comes next.
    """
    callers = {m.called: s for s in range(4) for m in view.melds[s] if m.called is not None}
    left = [len(r) for r in view.discards]
    pos = [0, 0, 0, 0]
    order: list[tuple[int, int]] = []
    p = view.dealer
    while pos[p] < left[p]:
        d = view.discards[p][pos[p]]
        order.append((p, pos[p]))
        pos[p] += 1
        p = callers.get(d.tile, (p + 1) % 4) if d.called else (p + 1) % 4
    return order


def safe_kinds(view: TableState, j: int) -> np.ndarray:
    """Kinds j cannot ron now, as any observer can tell: its own discards, and every kind
    another seat discarded after j's last discard (a passed win: temporary furiten until
    j discards again) or, when j is in riichi, after its declaration tile (for good)."""
    safe = np.zeros(34, dtype=bool)
    ds = view.discards[j]
    for d in ds:
        safe[d.kind] = True
    since = view.riichi_turn[j] if view.riichi[j] and view.riichi_turn[j] is not None else len(ds) - 1
    order = discard_order(view)
    if since < 0:
        start = 0  # no discard yet: every discard so far was passed
    else:
        start = order.index((j, since)) + 1 if (j, since) in order else len(order)
    for s, n in order[start:]:
        if s != j:
            safe[view.discards[s][n].kind] = True
    return safe


def _suji_tables() -> tuple[np.ndarray, ...]:
    k = np.arange(27)
    n = k % 9 + 1
    lo = np.where(n >= 4, k - 3, k)  # suji partners (k itself when there is none)
    hi = np.where(n <= 6, k + 3, k)
    group = np.select([np.isin(n, (1, 9)), np.isin(n, (2, 8)), np.isin(n, (3, 7))], [0, 1, 2], 3)
    # kinds that a two-sided wait on k needs in hand: no chance when all are visible
    na = np.where(n >= 3, k - 1, k + 1)
    na = np.where(n == 9, k - 1, na)
    na = np.where(n == 8, k - 1, na)
    nb = np.where((n >= 3) & (n <= 7), k + 1, na)
    return lo, hi, n, group, na, nb


_LO, _HI, _N, _GROUP, _NA, _NB = _suji_tables()
_SINGLE_SIDED = ~np.isin(_N, (4, 5, 6))
# Category of a suited kind by its group (1-9, 2-8, 3-7) with suji, without, and of a
# 4-6 kind by its number of suji: looked up, not recomputed at every decision.
_WITH_SUJI = np.array([1, 3, 5, 0])[_GROUP]
_DOUBLE_BY_SUJI = np.array([9, 8, 7])
_KABE_APPLIES = np.isin(np.arange(N_WAIT_CATS), (2, 4, 6, 9))  # the no-suji categories


def wait_categories(view: TableState, j: int) -> tuple[np.ndarray, np.ndarray]:
    """(category[34], unseen[34]) of each kind as a wait of closed seat ``j``.

    Suji is read against the kinds j cannot ron (:func:`safe_kinds`); "no chance" (kabe)
    when every copy of a kind needed for a two-sided wait on the tile is visible to the
    observer.
    """
    safe = safe_kinds(view, j)
    unseen = np.minimum(np.asarray(view.unseen, dtype=np.int64), 4)
    n_suji = (safe[_LO] & (_N >= 4)).astype(np.int64) + (safe[_HI] & (_N <= 6))
    suited = np.where(_SINGLE_SIDED, _WITH_SUJI + (n_suji == 0), _DOUBLE_BY_SUJI[n_suji])
    nochance = (unseen[_NA] == 0) & (unseen[_NB] == 0)
    suited = np.where(nochance & _KABE_APPLIES[suited], 12 + _GROUP, suited)
    honors = np.where(yakuhai_kinds(view, j)[27:], 10, 11)
    cat = np.concatenate([suited, honors])
    cat[safe] = 0
    return cat, unseen


# --- final rank (Eq. 1) ------------------------------------------------------------------

RANK_FEATURES = tuple(
    [f"{name}_{k}" for k in (1, 2, 3) for name in ("diff", "diff_scaled", "diff_tanh", "ahead")]
    + ["rank_1", "rank_2", "rank_3", "rank_4", "rank_1_late", "rank_2_late", "rank_3_late",
       "rank_4_late", "own_score", "above_30k", "is_dealer", "seat_order", "honba", "kyotaku",
       "inv_hands_left", "last_hand"]
)


def hands_left(round_wind: int, kyoku: int, hanchan: bool) -> int:
    """Regular hands still to play, this one included (1 in an extension round)."""
    total = 8 if hanchan else 4
    return max(total - (4 * round_wind + kyoku), 1)


def current_ranks(scores: Sequence[int]) -> list[int]:
    """Ranks 1..4 by score, ties to the seat nearer the first dealer (Tenhou)."""
    order = sorted(range(4), key=lambda s: (-scores[s], s))
    ranks = [0] * 4
    for r, s in enumerate(order):
        ranks[s] = r + 1
    return ranks


def rank_features(scores: Sequence[int], p: int, round_wind: int, kyoku: int, dealer: int,
                  honba: int, kyotaku: int, hanchan: bool = False) -> np.ndarray:
    """Features of player ``p``'s final rank from the situation at the start of a hand."""
    left = hands_left(round_wind, kyoku, hanchan)
    scale = 1.0 / math.sqrt(left)
    out: list[float] = []
    for k in (1, 2, 3):
        q = (p + k) % 4
        d = (scores[p] - scores[q]) / 10000.0
        ahead = 1.0 if (scores[p] > scores[q] or (scores[p] == scores[q] and p < q)) else 0.0
        out += [d, d * scale, math.tanh(2.0 * d * scale), ahead]
    rank = current_ranks(scores)[p]
    onehot = [1.0 if rank == r else 0.0 for r in (1, 2, 3, 4)]
    late = 1.0 / left
    out += onehot + [v * late for v in onehot]
    out += [scores[p] / 10000.0 - 2.5, float(scores[p] >= 30000), float(p == dealer), p / 3.0,
            honba / 5.0, kyotaku / 4.0, late, float(left == 1)]
    return np.array(out, dtype=np.float32)


def rank_features_batch(scores: np.ndarray, round_wind: int, kyoku: int, dealer: int, honba: int,
                         kyotaku: int, hanchan: bool) -> np.ndarray:
    """:func:`rank_features` for every seat of every row of ``scores`` (n, 4):
    (n, 4, F) float32, the same numbers (tested)."""
    total = 8 if hanchan else 4
    left = max(total - (4 * round_wind + kyoku), 1)
    scale = 1.0 / math.sqrt(left)
    s = np.asarray(scores, dtype=np.float64)
    n = s.shape[0]
    seats = np.arange(4)
    # rank with Tenhou's tie order: a higher score, or an equal one at a lower seat, is ahead
    ahead_m = (s[:, :, None] > s[:, None, :]) | ((s[:, :, None] == s[:, None, :]) & (seats[:, None] < seats[None, :]))
    rank = 4 - ahead_m.sum(2)  # 1..4
    cols = []
    for k in (1, 2, 3):
        q = (seats + k) % 4
        d = (s - s[:, q]) / 10000.0
        ah = ahead_m[:, seats, q].astype(np.float64)
        cols += [d, d * scale, np.tanh(2.0 * d * scale), ah]
    late = 1.0 / left
    onehot = [(rank == r).astype(np.float64) for r in (1, 2, 3, 4)]
    cols += onehot + [o * late for o in onehot]
    cols += [s / 10000.0 - 2.5, (s >= 30000).astype(np.float64), np.broadcast_to(seats == dealer, (n, 4)).astype(float),
             np.broadcast_to(seats / 3.0, (n, 4)), np.full((n, 4), honba / 5.0), np.full((n, 4), kyotaku / 4.0),
             np.full((n, 4), late), np.full((n, 4), float(left == 1))]
    return np.stack(cols, axis=2).astype(np.float32)


# --- hand end / horizon / win value --------------------------------------------------------

HAND_END_FEATURES = ("riichi_others", "sum_pt", "max_pt", "tiles_left", "last_go_around",
                     "own_turn", "any_open_pt")


def hand_end_features(view: TableState, seat: int, pt: np.ndarray) -> np.ndarray:
    """Features of "the hand ends before seat's next turn"; ``pt`` = P_T of the 3 others
    (in the order seat+1, seat+2, seat+3; riichi players count as 1)."""
    others = [(seat + k) % 4 for k in (1, 2, 3)]
    open_pt = max((pt[i] for i, j in enumerate(others) if n_takes(view.melds[j]) > 0), default=0.0)
    return np.array([
        sum(view.riichi[j] for j in others), float(np.sum(pt)), float(np.max(pt)),
        view.tiles_left / 70.0, float(view.tiles_left < 4), len(view.discards[seat]) / 18.0,
        open_pt,
    ], dtype=np.float32)


HORIZON_FEATURES = HAND_END_FEATURES + ("own_shanten", "own_takes", "own_riichi")


def horizon_features(view: TableState, seat: int, pt: np.ndarray, shanten: int) -> np.ndarray:
    """Features of the ratio r = T'/T_max (Sec. VI-C): the hand-end ones plus own progress."""
    base = hand_end_features(view, seat, pt)
    return np.concatenate([base, np.array([min(max(shanten, 0), 4) / 4.0,
                                           n_takes(view.melds[seat]),
                                           float(view.riichi[seat])], dtype=np.float32)])


WIN_VALUE_FEATURES = ("is_dealer", "riichi", "takes", "dora_indicators", "dora_in_melds",
                      "red_in_melds", "yakuhai_melds", "flush_melds", "turn", "closed_kans")


def win_value_features(view: TableState, j: int) -> np.ndarray:
    """Features of the points of seat ``j``'s win, from what is public."""
    melds = view.melds[j]
    dora = dora_kinds(view)
    yak = yakuhai_kinds(view, j)
    meld_kinds = [t // 4 for m in melds for t in m.tiles]
    suits = {k // 9 for k in meld_kinds if k < 27}
    return np.array([
        float(j == view.dealer), float(view.riichi[j]), n_takes(melds), len(view.dora_indicators),
        float(sum(int(dora[k]) for k in meld_kinds)),
        float(sum(1 for m in melds for t in m.tiles if t in RED_IDS)),
        float(sum(1 for m in melds if m.type != "chi" and yak[m.tiles[0] // 4])),
        float(len(suits) <= 1 and len(melds) > 0), len(view.discards[j]) / 18.0,
        float(sum(1 for m in melds if m.type == "ankan")),
    ], dtype=np.float32)
