"""Fast scorer (numba): han, fu and points of a winning hand, for the search's payoffs.

Kurita & Hoki compute the win payoff with the dora tiles, and for riichi hands with the
expected ura dora (``specs/kurita_hoki.md`` section 7; section 9.1 item 3 asks for a fast han
counter because the ``mahjong`` library costs about 1 ms a call). Rules are Tenhou's: open
tanyao, red fives, no kiriage mangan, kazoe yakuman at 13 han, no double yakuman (several
yakuman do add up), a double-wind head is 4 fu.

Inputs of the kernels (all flat arrays, no Python objects):

* ``hand``: uint8[34] concealed tiles *without* the winning tile;
* ``melds``: int64[k, 2] rows ``(type, tile)`` with type ``CHI`` (tile = lowest kind),
  ``PON``, ``MINKAN`` (daiminkan or kakan) or ``ANKAN`` (closed kan);
* ``win``: the winning kind; ``tsumo``; ``seat_wind`` / ``round_wind`` 0..3 (E S W N;
  seat wind 0 is the dealer); ``riichi`` 0 none, 1 riichi, 2 double riichi;
* ``dora_mult``: uint8[34], how many indicators point at each kind (see :func:`dora_mult`);
  ``red``: red fives held; ``yaku_han``: han of yaku the scorer does not see (ippatsu,
  haitei, rinshan, chankan; they make a win of a hand without other yaku);
  ``bonus_han``: han that are no yaku (ura dora);
* ``honba``, ``sticks``: for the winner's gain.

Each scoring kernel returns int64[8] indexed by the ``F_*`` constants: han, fu, yakuman
count, points (Tenhou's hand value: the ron payment, or the sum of the tsumo payments),
ron payment, tsumo payment of the dealer, tsumo payment of each non-dealer, and the
winner's gain with honba and sticks. A hand without a yaku (or no winning shape) gives
all zeros. The decomposition, and the reading of the winning tile, that pays most is used.

Haitei/houtei, rinshan, chankan, tenhou/chiihou and nagashi are not recognised (the search
does not model them); ippatsu, ura dora, the dora of a kan's indicator still to come and
the red fives among copies still to be drawn enter as expectations in :func:`expected_score_nb`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numba
import numpy as np

from game.errors import TileError
from game.tiles import dora_from_indicator

CHI, PON, MINKAN, ANKAN = 0, 1, 2, 3

F_HAN, F_FU, F_YAKUMAN, F_POINTS, F_RON, F_TSUMO_DEALER, F_TSUMO_CHILD, F_GAIN = range(8)
N_FIELDS = 8

_MAX_DECOMP = 64


# --- tiles ------------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _is_yao(k: int) -> bool:
    return k >= 27 or k % 9 == 0 or k % 9 == 8


@numba.njit(cache=True, inline="always")
def _is_green(k: int) -> bool:
    return k == 19 or k == 20 or k == 21 or k == 23 or k == 25 or k == 32


@numba.njit(cache=True, inline="always")
def _is_terminal(k: int) -> bool:
    return k < 27 and (k % 9 == 0 or k % 9 == 8)


# --- points -----------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _ceil100(x: int) -> int:
    return (x + 99) // 100 * 100


@numba.njit(cache=True)
def base_points_nb(han: int, fu: int, yakuman: int) -> int:
    """Basic points: fu * 2**(han+2) below mangan, then the limits (no kiriage)."""
    if yakuman > 0:
        return 8000 * yakuman
    if han >= 13:
        return 8000
    if han >= 11:
        return 6000
    if han >= 8:
        return 4000
    if han >= 6:
        return 3000
    if han >= 5:
        return 2000
    b = fu * (1 << (han + 2))
    return 2000 if b > 2000 else b


@numba.njit(cache=True)
def payments_nb(han: int, fu: int, yakuman: int, dealer: bool, tsumo: bool,
                honba: int, sticks: int, out: np.ndarray) -> None:
    """Fill points, ron / tsumo payments and the winner's gain into ``out`` (F_* fields)."""
    base = base_points_nb(han, fu, yakuman)
    out[F_HAN] = han
    out[F_FU] = fu
    out[F_YAKUMAN] = yakuman
    out[F_RON] = 0
    out[F_TSUMO_DEALER] = 0
    out[F_TSUMO_CHILD] = 0
    if not tsumo:
        pay = _ceil100(base * (6 if dealer else 4))
        out[F_POINTS] = pay
        out[F_RON] = pay
        out[F_GAIN] = pay + 300 * honba + 1000 * sticks
    elif dealer:
        each = _ceil100(2 * base)
        out[F_TSUMO_CHILD] = each
        out[F_POINTS] = 3 * each
        out[F_GAIN] = 3 * each + 300 * honba + 1000 * sticks
    else:
        d = _ceil100(2 * base)
        c = _ceil100(base)
        out[F_TSUMO_DEALER] = d
        out[F_TSUMO_CHILD] = c
        out[F_POINTS] = d + 2 * c
        out[F_GAIN] = d + 2 * c + 300 * honba + 1000 * sticks


# --- decompositions ---------------------------------------------------------------------

@numba.njit(cache=True)
def _decompose(c: np.ndarray, n_sets: int, heads: np.ndarray, sets: np.ndarray) -> int:
    """All ways to split the concealed counts ``c`` (14 - 3 * calls tiles) into one head
    and ``n_sets`` sets. Fills heads[d] and sets[d, s] = (type CHI/PON, tile); returns the
    number of decompositions. ``c`` is restored on return."""
    nd = 0
    tile = np.empty(5, np.int64)
    nxt = np.empty(5, np.int64)
    applied = np.empty(5, np.int64)
    for hd in range(34):
        if c[hd] < 2:
            continue
        c[hd] -= 2
        if n_sets == 0:
            ok = True
            for k in range(34):
                if c[k] != 0:
                    ok = False
                    break
            if ok and nd < heads.shape[0]:
                heads[nd] = hd
                nd += 1
            c[hd] += 2
            continue
        depth = 0
        k = 0
        while c[k] == 0:
            k += 1
        tile[0] = k
        nxt[0] = 0
        applied[0] = 0
        while depth >= 0:
            i = tile[depth]
            if applied[depth] == 1:
                c[i] += 3
            elif applied[depth] == 2:
                c[i] += 1
                c[i + 1] += 1
                c[i + 2] += 1
            applied[depth] = 0
            opt = nxt[depth]
            moved = False
            if opt == 0:
                nxt[depth] = 1
                if c[i] >= 3:
                    c[i] -= 3
                    applied[depth] = 1
                    moved = True
            elif opt == 1:
                nxt[depth] = 2
                if i < 27 and i % 9 <= 6 and c[i + 1] > 0 and c[i + 2] > 0:
                    c[i] -= 1
                    c[i + 1] -= 1
                    c[i + 2] -= 1
                    applied[depth] = 2
                    moved = True
            else:
                depth -= 1
                continue
            if not moved:
                continue
            if depth + 1 == n_sets:
                if nd < heads.shape[0]:
                    heads[nd] = hd
                    for s in range(n_sets):
                        sets[nd, s, 0] = CHI if applied[s] == 2 else PON
                        sets[nd, s, 1] = tile[s]
                    nd += 1
            else:
                k = 0
                while k < 34 and c[k] == 0:
                    k += 1
                if k < 34:
                    depth += 1
                    tile[depth] = k
                    nxt[depth] = 0
                    applied[depth] = 0
        c[hd] += 2
    return nd


# --- one reading of a regular hand ------------------------------------------------------

@numba.njit(cache=True)
def _eval_regular(stype: np.ndarray, stile: np.ndarray, sopen: np.ndarray, head: int,
                  wait: int, tsumo: bool, closed: bool, seat_wind: int, round_wind: int,
                  riichi: int, allc: np.ndarray, out3: np.ndarray) -> None:
    """Yaku han, fu and yakuman count of one reading: four sets (stype CHI/PON/MINKAN/ANKAN
    for kans, stile, sopen: counts as open for fu and ankou) plus ``head``. ``wait``:
    0 ryanmen, 1 kanchan/penchan, 2 tanki, 3 shanpon. ``allc``: every tile of the hand."""
    seat_k = 27 + seat_wind
    round_k = 27 + round_wind
    n_chi = 0
    n_kan = 0
    n_ankou = 0
    for s in range(4):
        if stype[s] == CHI:
            n_chi += 1
        else:
            if stype[s] >= MINKAN:
                n_kan += 1
            if not sopen[s]:
                n_ankou += 1
    # colours and tile classes over all tiles
    only_honor = True
    only_terminal = True
    only_yao = True
    no_yao = True
    only_green = True
    suits_used = 0
    has_honor = False
    for k in range(34):
        if allc[k] == 0:
            continue
        if k >= 27:
            has_honor = True
        else:
            suits_used |= 1 << (k // 9)
            only_honor = False
        if not _is_terminal(k):
            only_terminal = False
        if _is_yao(k):
            no_yao = False
        else:
            only_yao = False
        if not _is_green(k):
            only_green = False
    one_suit = suits_used == 1 or suits_used == 2 or suits_used == 4
    # pons of dragons / winds
    dragons = 0
    winds = 0
    for s in range(4):
        if stype[s] != CHI:
            t = stile[s]
            if t >= 31:
                dragons += 1
            elif t >= 27:
                winds += 1
    # --- yakuman
    yakuman = 0
    if n_ankou == 4:
        yakuman += 1
    if dragons == 3:
        yakuman += 1
    if winds == 4 or (winds == 3 and 27 <= head <= 30):
        yakuman += 1
    if only_honor:
        yakuman += 1
    if only_green:
        yakuman += 1
    if only_terminal:
        yakuman += 1
    if n_kan == 4:
        yakuman += 1
    if closed and n_kan == 0 and one_suit and not has_honor:
        base = 0
        while allc[base] == 0:
            base += 1
        base -= base % 9
        ok = True
        for j in range(9):
            need = 3 if (j == 0 or j == 8) else 1
            if allc[base + j] < need:
                ok = False
        if ok:
            yakuman += 1
    if yakuman > 0:
        out3[0] = 0
        out3[1] = 0
        out3[2] = yakuman
        return
    # --- regular yaku
    han = 0
    if closed:
        if riichi == 2:
            han += 2
        elif riichi == 1:
            han += 1
        if tsumo:
            han += 1
    head_fu = 0
    if head >= 31:
        head_fu += 2
    if head == seat_k:
        head_fu += 2
    if head == round_k:
        head_fu += 2
    pinfu = closed and n_chi == 4 and head_fu == 0 and wait == 0
    if pinfu:
        han += 1
    if no_yao:
        han += 1  # tanyao, open allowed (Tenhou)
    if closed:
        # iipeikou / ryanpeikou: pairs of identical concealed chis
        pairs = 0
        used = 0  # bitmask of sets already paired
        for a in range(4):
            if stype[a] != CHI or (used >> a) & 1:
                continue
            for b in range(a + 1, 4):
                if stype[b] == CHI and not (used >> b) & 1 and stile[b] == stile[a]:
                    used |= (1 << a) | (1 << b)
                    pairs += 1
                    break
        if pairs == 2:
            han += 3
        elif pairs == 1:
            han += 1
    for s in range(4):
        if stype[s] != CHI:
            t = stile[s]
            if t >= 31:
                han += 1
            if t == seat_k:
                han += 1
            if t == round_k:
                han += 1
    if one_suit:
        if has_honor:
            han += 3 if closed else 2
        else:
            han += 6 if closed else 5
    # ittsu and sanshoku doujun
    chi_mask = 0  # bit k: a chi starting at kind k (bitmasks: no allocation per reading)
    pon_mask = 0
    for s in range(4):
        if stype[s] == CHI:
            chi_mask |= 1 << stile[s]
        elif stile[s] < 27:
            pon_mask |= 1 << stile[s]
    for su in range(3):
        b = 9 * su
        ittsu = (1 << b) | (1 << (b + 3)) | (1 << (b + 6))
        if chi_mask & ittsu == ittsu:
            han += 2 if closed else 1
    for n in range(7):
        trio = (1 << n) | (1 << (9 + n)) | (1 << (18 + n))
        if chi_mask & trio == trio:
            han += 2 if closed else 1
            break
    for n in range(9):
        trio = (1 << n) | (1 << (9 + n)) | (1 << (18 + n))
        if pon_mask & trio == trio:
            han += 2
            break
    if n_chi == 0:
        han += 2  # toitoi
    if n_ankou == 3:
        han += 2
    if n_kan == 3:
        han += 2
    # chanta / junchan: every set and the head touch a terminal or honour, with a chi
    if n_chi > 0:
        all_touch = _is_yao(head)
        if all_touch:
            for s in range(4):
                t = stile[s]
                if stype[s] == CHI:
                    if not (t % 9 == 0 or t % 9 == 6):
                        all_touch = False
                elif not _is_yao(t):
                    all_touch = False
        if all_touch:
            if has_honor:
                han += 2 if closed else 1
            else:
                han += 3 if closed else 2
    elif only_yao:
        han += 2  # honroutou
    if dragons == 2 and head >= 31:
        han += 2  # shousangen
    # --- fu
    if pinfu:
        fu = 20 if tsumo else 30
    else:
        fu = 20 + head_fu
        if closed and not tsumo:
            fu += 10
        if tsumo:
            fu += 2
        if wait == 1 or wait == 2:
            fu += 2
        for s in range(4):
            if stype[s] == CHI:
                continue
            f = 2
            if stype[s] >= MINKAN:
                f *= 4
            if not sopen[s]:
                f *= 2
            if _is_yao(stile[s]):
                f *= 2
            fu += f
        if fu == 20:
            fu = 30  # open pinfu shape
        fu = (fu + 9) // 10 * 10
    out3[0] = han
    out3[1] = fu
    out3[2] = 0


@numba.njit(cache=True)
def _eval_chiitoi(allc: np.ndarray, tsumo: bool, riichi: int, out3: np.ndarray) -> None:
    only_honor = True
    only_yao = True
    no_yao = True
    suits_used = 0
    has_honor = False
    for k in range(34):
        if allc[k] == 0:
            continue
        if k >= 27:
            has_honor = True
        else:
            only_honor = False
            suits_used |= 1 << (k // 9)
        if _is_yao(k):
            no_yao = False
        else:
            only_yao = False
    if only_honor:
        out3[0] = 0
        out3[1] = 0
        out3[2] = 1
        return
    han = 2
    if riichi == 2:
        han += 2
    elif riichi == 1:
        han += 1
    if tsumo:
        han += 1
    if no_yao:
        han += 1
    if only_yao:
        han += 2
    if suits_used == 1 or suits_used == 2 or suits_used == 4:
        han += 3 if has_honor else 6
    out3[0] = han
    out3[1] = 25
    out3[2] = 0


# --- the whole hand ---------------------------------------------------------------------

@numba.njit(cache=True)
def _candidates(hand: np.ndarray, melds: np.ndarray, win: int, tsumo: bool, seat_wind: int,
                round_wind: int, riichi: int, cands: np.ndarray) -> int:
    """Every (yaku han, fu, yakuman) reading of the hand completed by ``win``; returns how
    many were written to ``cands`` (rows of 3)."""
    n_melds = melds.shape[0]
    c = np.zeros(34, np.int64)
    for k in range(34):
        c[k] = hand[k]
    c[win] += 1
    closed = True
    allc = c.copy()
    for j in range(n_melds):
        t = melds[j, 0]
        k = melds[j, 1]
        if t != ANKAN:
            closed = False
        if t == CHI:
            allc[k] += 1
            allc[k + 1] += 1
            allc[k + 2] += 1
        else:
            allc[k] += 3  # presence only; kans count 4 for dora elsewhere
    n = 0
    out3 = np.zeros(3, np.int64)
    if n_melds == 0:
        # kokushi
        kinds = 0
        total = 0
        for k in range(34):
            total += c[k]
            if c[k] > 0:
                if _is_yao(k):
                    kinds += 1
                else:
                    kinds = -99
        if kinds == 13 and total == 14:
            cands[n, 0] = 0
            cands[n, 1] = 0
            cands[n, 2] = 1
            return 1
        # chiitoitsu: seven distinct pairs
        pairs = 0
        for k in range(34):
            if c[k] == 2:
                pairs += 1
        if pairs == 7:
            _eval_chiitoi(allc, tsumo, riichi, out3)
            cands[n, 0] = out3[0]
            cands[n, 1] = out3[1]
            cands[n, 2] = out3[2]
            n += 1
    n_sets = 4 - n_melds
    heads = np.empty(_MAX_DECOMP, np.int64)
    sets = np.empty((_MAX_DECOMP, 4, 2), np.int64)
    nd = _decompose(c, n_sets, heads, sets)
    stype = np.empty(4, np.int64)
    stile = np.empty(4, np.int64)
    sopen = np.empty(4, np.bool_)
    for d in range(nd):
        for j in range(n_melds):
            t = melds[j, 0]
            stype[n_sets + j] = t
            stile[n_sets + j] = melds[j, 1]
            sopen[n_sets + j] = t != ANKAN
        # each place the winning tile can sit: the head, or a concealed set holding it
        for place in range(-1, n_sets):
            if place == -1:
                if heads[d] != win:
                    continue
                wait = 2
            else:
                t = sets[d, place, 0]
                k = sets[d, place, 1]
                if t == PON:
                    if k != win:
                        continue
                    wait = 3
                else:
                    if win < k or win > k + 2:
                        continue
                    if win == k + 1:
                        wait = 1
                    elif (win == k and k % 9 == 6) or (win == k + 2 and k % 9 == 0):
                        wait = 1
                    else:
                        wait = 0
            for s in range(n_sets):
                stype[s] = sets[d, s, 0]
                stile[s] = sets[d, s, 1]
                sopen[s] = False
            if place >= 0 and wait == 3 and not tsumo:
                sopen[place] = True  # a pon finished by ron is not concealed
            _eval_regular(stype, stile, sopen, heads[d], wait, tsumo, closed, seat_wind,
                          round_wind, riichi, allc, out3)
            if n < cands.shape[0]:
                cands[n, 0] = out3[0]
                cands[n, 1] = out3[1]
                cands[n, 2] = out3[2]
                n += 1
    return n


@numba.njit(cache=True)
def dora_count_nb(hand: np.ndarray, melds: np.ndarray, win: int, dora_mult: np.ndarray) -> int:
    """Dora in the concealed tiles, the winning tile and the melds (kans count four)."""
    d = 0
    for k in range(34):
        d += hand[k] * dora_mult[k]
    d += dora_mult[win]
    for j in range(melds.shape[0]):
        t = melds[j, 0]
        k = melds[j, 1]
        if t == CHI:
            d += dora_mult[k] + dora_mult[k + 1] + dora_mult[k + 2]
        elif t == PON:
            d += 3 * dora_mult[k]
        else:
            d += 4 * dora_mult[k]
    return d


@numba.njit(cache=True, inline="always")
def _better(a: np.ndarray, b: np.ndarray) -> bool:
    for f in (F_POINTS, F_YAKUMAN, F_HAN, F_FU):
        if a[f] != b[f]:
            return a[f] > b[f]
    return False


@numba.njit(cache=True)
def _best(cands: np.ndarray, n: int, yaku_han: int, extra: int, dealer: bool, tsumo: bool,
          honba: int, sticks: int, out: np.ndarray) -> None:
    """The reading that pays most with ``yaku_han`` han of yaku the scorer cannot see and
    ``extra`` han that are no yaku (dora, ura) added."""
    tmp = np.zeros(N_FIELDS, np.int64)
    for f in range(N_FIELDS):
        out[f] = 0
    for j in range(n):
        yakuman = cands[j, 2]
        han = cands[j, 0] + yaku_han
        if yakuman == 0 and han == 0:
            continue  # no yaku
        total = han + extra if yakuman == 0 else 0
        payments_nb(total, cands[j, 1], yakuman, dealer, tsumo, honba, sticks, tmp)
        # most points, then a real yakuman over kazoe, then most han, then most fu (as
        # Tenhou reports a tie)
        if _better(tmp, out):
            for f in range(N_FIELDS):
                out[f] = tmp[f]


@numba.njit(cache=True)
def score_nb(hand: np.ndarray, melds: np.ndarray, win: int, tsumo: bool, seat_wind: int,
             round_wind: int, riichi: int, dora_mult: np.ndarray, red: int, yaku_han: int,
             bonus_han: int, honba: int, sticks: int) -> np.ndarray:
    """int64[8] (F_* fields) of the hand completed by ``win``; zeros if it is no win.

    ``yaku_han``: han of yaku the scorer does not see (haitei, rinshan, chankan, ippatsu);
    they make a hand without other yaku a win. ``bonus_han``: han that are no yaku (ura).
    """
    cands = np.empty((_MAX_DECOMP * 5 + 1, 3), np.int64)
    out = np.zeros(N_FIELDS, np.int64)
    n = _candidates(hand, melds, win, tsumo, seat_wind, round_wind, riichi, cands)
    extra = dora_count_nb(hand, melds, win, dora_mult) + red + bonus_han
    _best(cands, n, yaku_han, extra, seat_wind == 0, tsumo, honba, sticks, out)
    return out


@numba.njit(cache=True)
def ura_distribution_nb(allc4: np.ndarray, n_indicators: int, unseen: np.ndarray) -> np.ndarray:
    """P(ura dora = j), j = 0..20: each ura indicator is an unseen tile drawn uniformly
    (independently: the few indicators hardly deplete the unseen pool). ``allc4``: every
    tile of the hand with kans counted four."""
    one = np.zeros(5, np.float64)
    tot = 0.0
    for u in range(34):
        tot += unseen[u]
    dist = np.zeros(21, np.float64)
    dist[0] = 1.0
    if tot <= 0.0 or n_indicators <= 0:
        return dist
    for u in range(34):
        if unseen[u] == 0:
            continue
        if u < 27:
            d = u - u % 9 + (u % 9 + 1) % 9
        elif u < 31:
            d = 27 + (u - 27 + 1) % 4
        else:
            d = 31 + (u - 31 + 1) % 3
        one[min(allc4[d], 4)] += unseen[u] / tot
    for _ in range(n_indicators):
        new = np.zeros(21, np.float64)
        for a in range(21):
            if dist[a] == 0.0:
                continue
            for b in range(5):
                if a + b < 21:
                    new[a + b] += dist[a] * one[b]
        dist = new
    return dist


@numba.njit(cache=True)
def _all_counts4(hand: np.ndarray, melds: np.ndarray, win: int) -> np.ndarray:
    a = np.zeros(34, np.int64)
    for k in range(34):
        a[k] = hand[k]
    a[win] += 1
    for j in range(melds.shape[0]):
        t = melds[j, 0]
        k = melds[j, 1]
        if t == CHI:
            a[k] += 1
            a[k + 1] += 1
            a[k + 2] += 1
        elif t == PON:
            a[k] += 3
        else:
            a[k] += 4
    return a


@numba.njit(cache=True)
def with_red_nb(dist: np.ndarray, red_p: np.ndarray) -> np.ndarray:
    """``dist`` (P(extra han = j), j = 0..20) with one more han at chance ``red_p[s]`` for
    each suit ``s``, independently: the red fives among copies still to be drawn."""
    out = dist.copy()
    for s in range(red_p.shape[0]):
        p = red_p[s]
        if p <= 0.0:
            continue
        new = np.zeros(21, np.float64)
        for a in range(21):
            if out[a] == 0.0:
                continue
            new[a] += out[a] * (1.0 - p)
            if a + 1 < 21:
                new[a + 1] += out[a] * p
        out = new
    return out


@numba.njit(cache=True)
def expected_score_nb(hand: np.ndarray, melds: np.ndarray, win: int, tsumo: bool,
                      seat_wind: int, round_wind: int, riichi: int, dora_mult: np.ndarray,
                      red: int, honba: int, sticks: int, p_ippatsu: float,
                      n_ura_indicators: int, unseen: np.ndarray,
                      n_new_indicators: int = 0, red_p=None) -> np.ndarray:
    """float64[8]: the F_* fields in expectation over ippatsu (probability ``p_ippatsu``)
    and ura dora (``n_ura_indicators`` drawn from ``unseen`` counts) for a riichi hand, over
    the dora of ``n_new_indicators`` indicators still to be revealed (a kan's, drawn the
    same way) for every hand, and over ``red_p`` (float64[3] or None): each suit's chance
    that its red five is among the hand's copies still to be drawn (:func:`with_red_nb`);
    a hand with none of them gets its plain score. The best reading is chosen per outcome."""
    cands = np.empty((_MAX_DECOMP * 5 + 1, 3), np.int64)
    n = _candidates(hand, melds, win, tsumo, seat_wind, round_wind, riichi, cands)
    extra = dora_count_nb(hand, melds, win, dora_mult) + red
    dealer = seat_wind == 0
    res = np.zeros(N_FIELDS, np.float64)
    tmp = np.zeros(N_FIELDS, np.int64)
    hidden = n_new_indicators + (n_ura_indicators if riichi > 0 else 0)
    reds = False
    if red_p is not None:
        for s in range(red_p.shape[0]):
            if red_p[s] > 0.0:
                reds = True
    if hidden == 0 and riichi == 0 and not reds:
        _best(cands, n, 0, extra, dealer, tsumo, honba, sticks, tmp)
        for f in range(N_FIELDS):
            res[f] = tmp[f]
        return res
    # ura and new dora are alike: each indicator an unseen tile, its dora han no yaku
    dist = ura_distribution_nb(_all_counts4(hand, melds, win), hidden, unseen)
    if reds:
        dist = with_red_nb(dist, red_p)
    p_ipp = p_ippatsu if riichi > 0 else 0.0
    for j in range(21):
        if dist[j] == 0.0:
            continue
        for ipp in range(2):
            w = dist[j] * (p_ipp if ipp == 1 else 1.0 - p_ipp)
            if w == 0.0:
                continue
            _best(cands, n, ipp, extra + j, dealer, tsumo, honba, sticks, tmp)
            for f in range(N_FIELDS):
                res[f] += w * tmp[f]
    return res


@numba.njit(cache=True)
def score_waits_nb(hand: np.ndarray, melds: np.ndarray, tsumo: bool, seat_wind: int,
                   round_wind: int, riichi: int, dora_mult: np.ndarray, red: int,
                   yaku_han: int, bonus_han: int, honba: int, sticks: int) -> np.ndarray:
    """int64[34, 8]: the score of the hand completed by each kind (zeros: no win, or a
    fifth copy). ``hand`` is a tenpai hand of 13 - 3 * calls tiles."""
    out = np.zeros((34, N_FIELDS), np.int64)
    used = _all_counts4(hand, melds, 0)
    used[0] -= 1
    for w in range(34):
        if used[w] >= 4:
            continue
        out[w] = score_nb(hand, melds, w, tsumo, seat_wind, round_wind, riichi, dora_mult,
                          red, yaku_han, bonus_han, honba, sticks)
    return out


# --- Python API -------------------------------------------------------------------------

MELD_TYPES = {"chi": CHI, "pon": PON, "daiminkan": MINKAN, "kakan": MINKAN,
              "minkan": MINKAN, "ankan": ANKAN}


@dataclass(frozen=True)
class Score:
    han: int
    fu: int
    yakuman: int
    points: int          # Tenhou's hand value: ron payment, or the sum of tsumo payments
    ron: int             # paid by the discarder (0 on tsumo)
    tsumo_dealer: int    # paid by the dealer on a non-dealer's tsumo
    tsumo_child: int     # paid by each non-dealer on a tsumo
    gain: int            # the winner's gain with honba and riichi sticks

    @property
    def is_win(self) -> bool:
        return self.points > 0


def dora_mult(indicator_kinds: Sequence[int]) -> np.ndarray:
    """uint8[34]: how many of the given indicators point at each kind."""
    m = np.zeros(34, np.uint8)
    for k in indicator_kinds:
        m[dora_from_indicator(int(k))] += 1
    return m


def melds_array(melds: Sequence[tuple]) -> np.ndarray:
    """int64[k, 2] meld rows from ``(type, tile_kind)`` pairs; type is a CHI..ANKAN code or
    an mjai name (``chi pon daiminkan kakan ankan``); a chi names its lowest kind."""
    arr = np.zeros((len(melds), 2), np.int64)
    for j, (t, k) in enumerate(melds):
        code = MELD_TYPES.get(t, t) if isinstance(t, str) else int(t)
        if code not in (CHI, PON, MINKAN, ANKAN):
            raise TileError(f"unknown meld type {t!r}")
        k = int(k)
        if not 0 <= k < 34 or (code == CHI and (k >= 27 or k % 9 > 6)):
            raise TileError(f"meld ({t!r}, {k}) names an impossible tile")
        arr[j] = code, k
    if len(melds) > 4:
        raise TileError("a hand has at most four melds")
    return arr


def _check_hand(hand, melds: np.ndarray, win: int) -> np.ndarray:
    c = np.asarray(hand)
    if c.shape != (34,) or c.min(initial=0) < 0 or c.max(initial=0) > 4:
        raise TileError("the concealed hand must be 34 counts in 0..4")
    if not 0 <= int(win) < 34:
        raise TileError(f"winning tile kind {win!r} is outside 0..33")
    if int(c.sum()) != 13 - 3 * len(melds):
        raise TileError(f"{int(c.sum())} concealed tiles do not fit {len(melds)} melds "
                        f"(want {13 - 3 * len(melds)}, without the winning tile)")
    return np.ascontiguousarray(c, dtype=np.uint8)


def score_hand(hand, win: int, *, melds: Sequence[tuple] = (), tsumo: bool = False,
               seat_wind: int = 0, round_wind: int = 0, riichi: int = 0,
               dora_indicators: Sequence[int] = (), red: int = 0, yaku_han: int = 0,
               bonus_han: int = 0, honba: int = 0, sticks: int = 0) -> Score:
    """Score the concealed ``hand`` (34 counts, without the winning tile) won on ``win``.

    ``dora_indicators`` are kinds; ``riichi`` 0/1/2 (double); ``yaku_han`` adds the han of
    yaku the scorer does not see (ippatsu, haitei, houtei, rinshan, chankan: they count as
    a yaku); ``bonus_han`` adds han that are no yaku (ura dora).
    """
    m = melds_array(melds)
    c = _check_hand(hand, m, win)
    dm = dora_mult(dora_indicators)
    r = score_nb(c, m, int(win), bool(tsumo), int(seat_wind), int(round_wind), int(riichi),
                 dm, int(red), int(yaku_han), int(bonus_han), int(honba), int(sticks))
    return Score(*(int(x) for x in r))
