"""The fast scorer against three oracles.

* the ``mahjong`` library (2.1.0) with Tenhou options (open tanyao, red fives, no kiriage,
  no double yakuman) and riichienv's ``HandEvaluator`` on thousands of random winning hands
  (closed and open, ron and tsumo, dealer or not, riichi, kans, hands concentrated in one or
  two suits so that honitsu/chinitsu/ittsu/sanshoku/yakuman shapes occur);
* every scored win of the Tenhou phoenix records in ``shared/data/phoenix/mjlog``: han, fu
  and points as Tenhou wrote them. Yaku the scorer does not model (ippatsu as an event,
  haitei/houtei, rinshan, chankan, tenhou/chiihou) and the ura dora are handed to it as
  ``bonus_han`` taken from the record's own yaku list: that is the compensation the search
  makes with expectations, and everything else (yaku, fu, dora, red fives, limits) is ours.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from game.errors import TileError
from game.tiles import hand_counts, mjai_to_kind
from search.scorer import (
    ANKAN, CHI, MINKAN, PON, Score, dora_mult, expected_score_nb, melds_array, score_hand,
    score_nb, score_waits_nb,
)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MJLOG = DATA / "phoenix" / "mjlog"

# --- random winning hands ---------------------------------------------------------------


def _random_win(rng: np.random.Generator):
    """A random complete hand: (hand counts w/o win, meld rows, win kind, ids of all tiles,
    concealed ids w/o win, meld id lists, win id), or None when the draw failed."""
    style = rng.integers(4)
    if style == 0:
        kinds = list(range(34))
    elif style == 1:  # one suit (+ honours)
        s = int(rng.integers(3))
        kinds = list(range(9 * s, 9 * s + 9)) + (list(range(27, 34)) if rng.random() < 0.5 else [])
    elif style == 2:  # two suits
        a, b = rng.choice(3, 2, replace=False)
        kinds = list(range(9 * a, 9 * a + 9)) + list(range(9 * b, 9 * b + 9))
    else:  # terminals and honours heavy
        kinds = [0, 8, 9, 17, 18, 26] + list(range(27, 34)) + list(rng.choice(27, 4))
    used = np.zeros(34, int)
    sets = []
    chiitoi = rng.random() < 0.08
    if rng.random() < 0.02:  # kokushi
        for k in (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33):
            used[k] = 1
        used[int(rng.choice([0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]))] += 1
        head = None
    elif chiitoi:
        pk = rng.choice(kinds, 7, replace=False) if len(set(kinds)) >= 7 else None
        if pk is None or len(set(int(x) for x in pk)) < 7:
            return None
        for k in pk:
            used[k] += 2
        head = None
    else:
        head = int(rng.choice(kinds))
        used[head] += 2
        for _ in range(4):
            for _try in range(20):
                k = int(rng.choice(kinds))
                if rng.random() < 0.55 and k < 27 and k % 9 <= 6:
                    if all(used[k + j] < 4 for j in range(3)):
                        sets.append((CHI, k))
                        for j in range(3):
                            used[k + j] += 1
                        break
                elif used[k] <= 1:
                    kan = rng.random() < 0.08 and used[k] == 0
                    sets.append((MINKAN if kan else PON, k))
                    used[k] += 4 if kan else 3
                    break
            else:
                return None
    # which sets are called
    melds = []
    concealed = used.copy()
    n_open = int(rng.integers(0, 4)) if rng.random() < 0.5 else 0
    for j, (t, k) in enumerate(sets):
        if t == MINKAN:
            t = ANKAN if rng.random() < 0.4 else MINKAN
            melds.append((t, k))
            concealed[k] -= 4
        elif j < n_open:
            melds.append((t, k))
            if t == CHI:
                for i in range(3):
                    concealed[k + i] -= 1
            else:
                concealed[k] -= 3
    if concealed.sum() == 0:
        return None
    # 136-ids: shuffle the copies so red fives (the first copy of 5s) appear at random
    copies = {k: list(rng.permutation(4) + 4 * k) for k in range(34)}
    meld_ids = []
    for t, k in melds:
        if t == CHI:
            meld_ids.append([copies[k + i].pop() for i in range(3)])
        elif t == PON:
            meld_ids.append([copies[k].pop() for _ in range(3)])
        else:
            meld_ids.append([copies[k].pop() for _ in range(4)])
    conc_ids = [copies[k].pop() for k in range(34) for _ in range(concealed[k])]
    win_id = conc_ids.pop(int(rng.integers(len(conc_ids))))
    hand = np.zeros(34, np.uint8)
    for i in conc_ids:
        hand[i // 4] += 1
    return hand, melds, win_id // 4, conc_ids, meld_ids, win_id


def _cases(n: int, seed: int):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        w = _random_win(rng)
        if w is None:
            continue
        hand, melds, win, conc_ids, meld_ids, win_id = w
        closed = all(t == ANKAN for t, _ in melds)
        cond = dict(
            tsumo=bool(rng.random() < 0.5),
            seat_wind=int(rng.integers(4)),
            round_wind=int(rng.integers(2)),
            riichi=int(rng.choice([0, 1, 1, 2])) if closed else 0,
            dora_ids=[int(x) for x in rng.choice(136, int(rng.integers(1, 3)), replace=False)],
            honba=int(rng.integers(3)),
        )
        out.append((w, cond))
    return out


def _ours(w, cond) -> Score:
    hand, melds, win, conc_ids, meld_ids, win_id = w
    all_ids = conc_ids + [win_id] + [i for m in meld_ids for i in m]
    red = sum(1 for i in all_ids if i in (16, 52, 88))
    return score_hand(hand, win, melds=melds, tsumo=cond["tsumo"],
                      seat_wind=cond["seat_wind"], round_wind=cond["round_wind"],
                      riichi=cond["riichi"], dora_indicators=[i // 4 for i in cond["dora_ids"]],
                      red=red, honba=cond["honba"])


def _mahjong_lib(w, cond):
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld

    hand, melds, win, conc_ids, meld_ids, win_id = w
    lib_melds = []
    for (t, _k), ids in zip(melds, meld_ids):
        typ = {CHI: Meld.CHI, PON: Meld.PON, MINKAN: Meld.KAN, ANKAN: Meld.KAN}[t]
        lib_melds.append(Meld(meld_type=typ, tiles=sorted(ids), opened=t != ANKAN))
    tiles = conc_ids + [win_id] + [i for m in meld_ids for i in m]
    config = HandConfig(
        is_tsumo=cond["tsumo"], is_riichi=cond["riichi"] > 0,
        is_daburu_riichi=cond["riichi"] == 2,
        player_wind=EAST + cond["seat_wind"], round_wind=EAST + cond["round_wind"],
        tsumi_number=cond["honba"],
        options=OptionalRules(has_open_tanyao=True, has_aka_dora=True,
                              has_double_yakuman=False, kiriage=False),
    )
    r = HandCalculator().estimate_hand_value(tiles, win_id, melds=lib_melds,
                                             dora_indicators=cond["dora_ids"], config=config)
    if r.error:
        return None
    return r


def _riichienv(w, cond):
    from riichienv import Conditions, HandEvaluator, Meld, MeldType

    hand, melds, win, conc_ids, meld_ids, win_id = w
    mt = {CHI: MeldType.Chi, PON: MeldType.Pon, MINKAN: MeldType.Daiminkan, ANKAN: MeldType.Ankan}
    rm = [Meld(mt[t], sorted(ids), t != ANKAN) for (t, _k), ids in zip(melds, meld_ids)]
    ev = HandEvaluator(sorted(conc_ids), rm)
    c = Conditions(tsumo=cond["tsumo"], riichi=cond["riichi"] > 0,
                   double_riichi=cond["riichi"] == 2,
                   player_wind=cond["seat_wind"], round_wind=cond["round_wind"],
                   honba=cond["honba"])
    r = ev.calc(win_id, cond["dora_ids"], c, [])
    return r if r.is_win and (r.han > 0 or r.yakuman) else None


# --- Tenhou's own scores ----------------------------------------------------------------

# Tenhou yaku ids handed over: ippatsu, chankan, rinshan, haitei, houtei (yaku), ura (no yaku).
_EVENT_YAKU_IDS = {2, 3, 4, 5, 6}
_URA_ID = 53
# tenhou, chiihou, renhou: no hand of the search can win them
_SKIP_IDS = {36, 37, 38}


def _mjlog_wins():
    from game.records.mjlog import decode_meld

    wins = []
    for path in sorted(MJLOG.glob("*.xml")):
        root = ET.parse(path).getroot()
        round_no = 0
        for el in root:
            if el.tag == "INIT":
                round_no = int(el.get("seed").split(",")[0])
                oya = int(el.get("oya"))
            if el.tag != "AGARI":
                continue
            who, from_who = int(el.get("who")), int(el.get("fromWho"))
            hai = [int(x) for x in el.get("hai").split(",")]
            win_id = int(el.get("machi"))
            melds = []
            meld_ids = []
            if el.get("m"):
                for code in el.get("m").split(","):
                    d = decode_meld(int(code), who)
                    t = {"chi": CHI, "pon": PON, "daiminkan": MINKAN, "kakan": MINKAN,
                         "ankan": ANKAN}[d["type"]]
                    melds.append((t, min(d["tiles"]) // 4))
                    meld_ids += d["tiles"]
            yaku = [int(x) for x in el.get("yaku", "").split(",") if x]
            pairs = dict(zip(yaku[::2], yaku[1::2]))
            yakuman = [int(x) for x in el.get("yakuman", "").split(",") if x]
            if _SKIP_IDS & (set(pairs) | set(yakuman)):
                continue
            fu, points, _limit = (int(x) for x in el.get("ten").split(","))
            conc = list(hai)
            conc.remove(win_id)
            hand = np.zeros(34, np.uint8)
            for i in conc:
                hand[i // 4] += 1
            honba = int(el.get("ba").split(",")[0])
            wins.append(dict(
                where=f"{path.name}:round {round_no} who {who}",
                hand=hand, melds=melds, win=win_id // 4, tsumo=who == from_who,
                seat_wind=(who - oya) % 4, round_wind=round_no // 4,
                riichi=2 if 21 in pairs else (1 if 1 in pairs else 0),
                dora=[int(x) // 4 for x in el.get("doraHai").split(",")],
                red=sum(1 for i in hai + meld_ids if i in (16, 52, 88)),
                yaku_han=sum(h for y, h in pairs.items() if y in _EVENT_YAKU_IDS),
                bonus=pairs.get(_URA_ID, 0),
                han=sum(pairs.values()), fu=fu, points=points, yakuman=len(yakuman),
                honba=honba,
            ))
    return wins


def test_every_phoenix_win_scores_as_tenhou_did():
    wins = _mjlog_wins()
    assert len(wins) > 300  # about 380 scored wins in the 42 games
    bad = []
    for w in wins:
        s = score_hand(w["hand"], w["win"], melds=w["melds"], tsumo=w["tsumo"],
                       seat_wind=w["seat_wind"], round_wind=w["round_wind"],
                       riichi=w["riichi"], dora_indicators=w["dora"], red=w["red"],
                       yaku_han=w["yaku_han"], bonus_han=w["bonus"], honba=w["honba"])
        if w["yakuman"]:
            got, want = (s.yakuman, s.points), (w["yakuman"], w["points"])
        else:
            # Tenhou writes the fu of limit hands too, so compare all three
            got, want = (s.han, s.fu, s.points), (w["han"], w["fu"], w["points"])
        if got != want:
            bad.append((w["where"], got, want))
    assert not bad, f"{len(bad)} of {len(wins)} wins differ, e.g. {bad[:5]}"


# --- random hands against the two libraries ---------------------------------------------

_DOUBLE_YAKUMAN_RIICHIENV = {47, 48, 49, 50}  # Tenhou counts these as single yakuman


def test_random_wins_agree_with_mahjong_library():
    cases = _cases(1200, seed=11)
    bad = []
    for w, cond in cases:
        ours = _ours(w, cond)
        lib = _mahjong_lib(w, cond)
        if lib is None:
            got, want = ours.points, 0
        else:
            yakuman = any(y.is_yakuman for y in lib.yaku)
            if cond["tsumo"]:
                pays = (lib.cost["main"], lib.cost["additional"])
                mine = (ours.tsumo_dealer, ours.tsumo_child) if cond["seat_wind"] else (
                    ours.tsumo_child, ours.tsumo_child)
            else:
                pays, mine = (lib.cost["main"],), (ours.ron,)
            got = (ours.yakuman > 0, mine) if yakuman else (ours.han, ours.fu, mine)
            want = (True, pays) if yakuman else (lib.han, lib.fu, pays)
        if got != want:
            bad.append((w[0].tolist(), w[1], w[2], cond, got, want))
    assert len(cases) == 1200
    assert not bad, f"{len(bad)} differ, e.g. {bad[:3]}"


def test_random_wins_agree_with_riichienv():
    cases = _cases(2000, seed=12)
    bad = []
    n_yakuman = 0
    for w, cond in cases:
        ours = _ours(w, cond)
        ref = _riichienv(w, cond)
        if ref is None:
            got, want = ours.gain, 0
        elif _DOUBLE_YAKUMAN_RIICHIENV & set(ref.yaku):
            got, want = ours.yakuman > 0, True
        else:
            total = ref.ron_agari if not cond["tsumo"] else (
                ref.tsumo_agari_oya + 2 * ref.tsumo_agari_ko if cond["seat_wind"]
                else 3 * ref.tsumo_agari_ko)
            got, want = ours.gain, total
            if not ref.yakuman and ours.yakuman == 0 and ours.han < 5:
                got, want = (ours.han, ours.fu, ours.gain), (ref.han, ref.fu, total)
        n_yakuman += ours.yakuman > 0
        if got != want:
            bad.append((w[0].tolist(), w[1], w[2], cond, got, want))
    assert n_yakuman > 20  # the generator reaches the yakuman shapes
    assert not bad, f"{len(bad)} differ, e.g. {bad[:3]}"


# --- the points table and the other entries ---------------------------------------------

@pytest.mark.parametrize("hand,win,kw,expect", [
    # riichi tanyao sanshoku dora 2, shanpon ron: 6 han 40 fu haneman (dealer by default)
    ("234m234p234s5588p", "8p", dict(riichi=1, dora_indicators=[mjai_to_kind("4p")]),
     (6, 40, 18000)),
    # riichi pinfu sanshoku, non-dealer ron: 4 han 30 fu = 7700 (no kiriage mangan)
    ("345m345p345s6799p", "8p", dict(riichi=1, seat_wind=1), (4, 30, 7700)),
    # menzen tsumo pinfu ittsu, dealer: 20 fu 4 han = 2600 all
    ("123456789m2399p", "1p", dict(tsumo=True), (4, 20, 7800)),
    # the same shape won on a penchan is no pinfu: 3 han 30 fu = 2000 all
    ("123456789m1299p", "3p", dict(tsumo=True), (3, 30, 6000)),
    # chiitoitsu only: 25 fu 2 han dealer ron
    ("1133557799m115p", "5p", dict(), (2, 25, 2400)),
    # open yakuhai (haku) only, kanchan ron, non-dealer: 20 + 4 (open honour pon) + 2 = 30 fu
    ("4677m", "5m", dict(seat_wind=2, melds=[("pon", 31), ("chi", 9), ("chi", 18)]),
     (1, 30, 1000)),
    # daisuushii is one yakuman at Tenhou
    ("2m", "2m", dict(melds=[("pon", 27), ("pon", 28), ("pon", 29), ("pon", 30)]),
     ("yakuman", 1, 48000)),
])
def test_known_hands(hand, win, kw, expect):
    s = score_hand(hand_counts(hand), mjai_to_kind(win), **kw)
    if expect[0] == "yakuman":
        assert (s.yakuman, s.points) == expect[1:]
    else:
        assert (s.han, s.fu, s.points) == expect


def test_limits_and_payments():
    from search.scorer import N_FIELDS, payments_nb

    out = np.zeros(N_FIELDS, np.int64)
    table = [  # han, fu, dealer, tsumo -> points
        (4, 30, False, False, 7700), (4, 30, True, False, 11600), (3, 60, False, False, 7700),
        (5, 30, False, False, 8000), (7, 30, True, False, 18000), (10, 30, False, False, 16000),
        (12, 30, False, False, 24000), (13, 30, False, False, 32000), (1, 30, False, True, 1100),
        (2, 20, False, True, 1500), (2, 25, True, False, 2400), (1, 40, True, True, 2100),
    ]
    for han, fu, dealer, tsumo, points in table:
        payments_nb(han, fu, 0, dealer, tsumo, 0, 0, out)
        assert out[3] == points, (han, fu, dealer, tsumo)
    payments_nb(2, 20, 0, False, True, 2, 1, out)  # 400/700 tsumo, 2 honba, 1 stick
    assert (out[5], out[6], out[7]) == (700, 400, 1500 + 600 + 1000)


def test_no_yaku_is_no_win():
    # open hand, no yaku: ron on 5s gives nothing; the same hand closed has menzen riichi
    s = score_hand(hand_counts("2344s"), mjai_to_kind("4s"),
                   melds=[("chi", 0), ("pon", 9), ("chi", 19)])
    assert not s.is_win and s.points == 0
    assert score_hand(hand_counts("2344s"), mjai_to_kind("4s"), yaku_han=1,
                      melds=[("chi", 0), ("pon", 9), ("chi", 19)]).is_win  # haitei


def test_score_waits_matches_single_calls_and_shanten():
    from search.shanten import shanten

    rng = np.random.default_rng(3)
    checked = 0
    for w, cond in _cases(200, seed=13):
        hand, melds, win = w[0], w[1], w[2]
        m = melds_array(melds)
        dm = dora_mult([i // 4 for i in cond["dora_ids"]])
        table = score_waits_nb(hand, m, cond["tsumo"], cond["seat_wind"], cond["round_wind"],
                               cond["riichi"], dm, 0, 0, 0, 0, 0)
        for k in range(34):
            one = score_nb(hand, m, k, cond["tsumo"], cond["seat_wind"], cond["round_wind"],
                           cond["riichi"], dm, 0, 0, 0, 0, 0)
            used = hand[k] + sum(1 for t, kk in melds for j in range(3 if t == CHI else 1)
                                 if (kk + j if t == CHI else kk) == k) * 1
            if table[k].any():
                full = hand.copy()
                full[k] += 1
                assert shanten(full) == -1
            if used < 4:
                assert (table[k] == one).all()
        assert table[win].any() or not score_nb(hand, m, win, cond["tsumo"], cond["seat_wind"],
                                                 cond["round_wind"], cond["riichi"], dm, 0, 0,
                                                 0, 0, 0).any()
        checked += 1
    assert checked == 200 and rng is not None


def test_expected_score_equals_enumeration_over_ura_indicators():
    from search.scorer import _all_counts4

    from game.tiles import dora_from_indicator

    rng = np.random.default_rng(4)
    n = 0
    for w, cond in _cases(300, seed=14):
        hand, melds, win = w[0], w[1], w[2]
        if cond["riichi"] == 0:
            continue
        m = melds_array(melds)
        dm = dora_mult([i // 4 for i in cond["dora_ids"]])
        unseen = rng.integers(0, 5, 34).astype(np.int64)
        p_ipp = float(rng.random())
        exp = expected_score_nb(hand, m, win, cond["tsumo"], cond["seat_wind"],
                                cond["round_wind"], cond["riichi"], dm, 0, 0, 0, p_ipp, 1,
                                unseen)
        allc = _all_counts4(hand, m, win)
        want = np.zeros(8)
        for u in range(34):
            for ipp, pw in ((0, 1 - p_ipp), (1, p_ipp)):
                s = score_nb(hand, m, win, cond["tsumo"], cond["seat_wind"],
                             cond["round_wind"], cond["riichi"], dm, 0, ipp,
                             int(allc[dora_from_indicator(u)]), 0, 0)
                want += unseen[u] / unseen.sum() * pw * s
        assert np.allclose(exp, want), (hand, melds, win, cond)
        n += 1
    assert n > 100


def test_bad_input_raises_tile_error():
    with pytest.raises(TileError):
        score_hand(hand_counts("123m456p789s11z"), 0)  # 14 tiles: the win is extra
    with pytest.raises(TileError):
        score_hand(hand_counts("123m456p789s1z"), 40)
    with pytest.raises(TileError):
        melds_array([("chi", 8)])


@pytest.mark.parametrize("riichi", [0, 1])
def test_expected_score_over_a_new_indicator_equals_enumeration(riichi):
    """The dora of a kan's indicator still to come (an unseen tile) in expectation: the
    scorer's sum against the plain enumeration over the unseen tiles (and, in riichi,
    over the ura indicators with it)."""
    from game.tiles import dora_from_indicator
    from search.scorer import _all_counts4

    rng = np.random.default_rng(8)
    hand = hand_counts("234m 55p 678s 11s")
    melds = melds_array([("ankan", mjai_to_kind("N"))])
    win = mjai_to_kind("1s")
    dm = dora_mult([mjai_to_kind("3m")])
    unseen = rng.integers(0, 4, 34).astype(np.int64)
    allc = _all_counts4(hand, melds, win)
    n_ura = 1 if riichi else 0  # the ura of the shown indicator; the kan's own ura on top
    exp = expected_score_nb(hand, melds, win, True, 1, 0, riichi, dm, 0, 0, 0, 0.0, n_ura + riichi, unseen, 1)
    p = unseen / unseen.sum()
    hits = np.array([allc[dora_from_indicator(u)] for u in range(34)])
    dist = np.zeros(21)
    dist[0] = 1.0
    for _ in range(1 + n_ura + riichi):  # independent draws, as the ura are
        new = np.zeros(21)
        for a in range(21):
            for u in range(34):
                if a + hits[u] < 21:
                    new[a + hits[u]] += dist[a] * p[u]
        dist = new
    want = sum(dist[j] * score_nb(hand, melds, win, True, 1, 0, riichi, dm, 0, 0, j, 0, 0) for j in range(21))
    assert np.allclose(exp, want)
    plain = expected_score_nb(hand, melds, win, True, 1, 0, riichi, dm, 0, 0, 0, 0.0, n_ura, unseen, 0)
    assert exp[3] > plain[3]


@pytest.mark.parametrize("riichi", [0, 1])
def test_expected_score_over_red_fives_to_draw_equals_enumeration(riichi):
    """Each suit's red five among the copies still to come, in expectation (two suits at
    once, independent): the scorer's sum against the plain enumeration of the four red
    outcomes (and, in riichi, of the ura indicators with them)."""
    from game.tiles import dora_from_indicator
    from search.scorer import _all_counts4

    rng = np.random.default_rng(5)
    hand = hand_counts("345m 55p 456s 678s 22p")
    melds = melds_array([])
    win = mjai_to_kind("2p")
    dm = dora_mult([mjai_to_kind("9s")])
    unseen = rng.integers(0, 4, 34).astype(np.int64)
    red_p = np.array([0.25, 0.0, 0.5])
    exp = expected_score_nb(hand, melds, win, False, 1, 0, riichi, dm, 1, 0, 0, 0.0, riichi, unseen, 0, red_p)
    allc = _all_counts4(hand, melds, win)
    p = unseen / unseen.sum()
    want = np.zeros(8)
    for rm, pm in ((0, 0.75), (1, 0.25)):
        for rs, ps in ((0, 0.5), (1, 0.5)):
            if riichi:
                for u in range(34):
                    want += pm * ps * p[u] * score_nb(hand, melds, win, False, 1, 0, riichi, dm, 1 + rm + rs, 0,
                                                      int(allc[dora_from_indicator(u)]), 0, 0)
            else:
                want += pm * ps * score_nb(hand, melds, win, False, 1, 0, 0, dm, 1 + rm + rs, 0, 0, 0, 0)
    assert np.allclose(exp, want)
    none = expected_score_nb(hand, melds, win, False, 1, 0, riichi, dm, 1, 0, 0, 0.0, riichi, unseen, 0, np.zeros(3))
    assert exp[3] > none[3]
    if not riichi:
        assert np.array_equal(none, score_nb(hand, melds, win, False, 1, 0, 0, dm, 1, 0, 0, 0, 0))
