"""cnn-bot's plane encoders: known tiles at known plane positions, thermometers, history."""
from __future__ import annotations

from collections import namedtuple
from types import SimpleNamespace

import numpy as np
import pytest

from cnn.encoders import (
    MODEL_CHANNELS,
    N_PLANES,
    OFFER_PLANE,
    SeatHistory,
    channels,
    encode,
    rank_of,
    situation,
)
from game.tiles import mjai_to_kind, parse_hand, to_counts

Discard = namedtuple("Discard", "tile kind tsumogiri turn called riichi")
Meld = namedtuple("Meld", "type tiles called from_seat")


def make_state(**kw):
    """A stand-in with exactly the TableState contract's fields."""
    hand_ids = kw.pop("hand_ids", None) or parse_hand(kw.pop("tiles", "123m405p789s1122z"))
    base = dict(
        seat=1, dealer=0, round_wind=0, kyoku=0, honba=0, kyotaku=0,
        scores=[25000, 25000, 25000, 25000], hand=to_counts(hand_ids), hand_ids=hand_ids,
        drawn=None, discards=[[], [], [], []], melds=[[], [], [], []],
        riichi=[False] * 4, riichi_turn=[None] * 4, dora_indicators=[], tiles_left=70,
        unseen=np.full(34, 4, np.uint8), furiten=False, turns=[0, 0, 0, 0], last_discard=None,
    )
    base.update(kw)
    return SimpleNamespace(**base)


def discards(text: str) -> list:
    return [Discard(t, t // 4, False, i, False, False) for i, t in enumerate(parse_hand(text))]


def k(name: str) -> int:
    return mjai_to_kind(name)


def test_variant_plane_counts_and_subsets():
    assert {m: len(c) for m, c in MODEL_CHANNELS.items()} == {"m56": 56, "m68": 68, "m86": 86}
    assert channels("m86", offer=True)[-1] == OFFER_PLANE == 86
    # the decision features follow the offer plane (cnn.features), read only on request
    assert channels("m86", offer=True, task="pon", features=1)[87:] == list(range(87, 95)) + list(range(95, 112))
    assert channels("m86", task="discard", features=1)[86:] == list(range(87, 95)) + [112, 113]
    # set 2 adds the opponents' safety planes to every task
    assert channels("m86", task="discard", features=2)[86:] == list(range(87, 95)) + [112, 113] + list(range(114, 123))
    assert channels("m86", offer=True, task="chi", features=2)[-9:] == list(range(114, 123))
    assert channels("m86", task="pon", features=3)[-15:] == list(range(114, 129))
    assert N_PLANES == 129
    # m56 = present 16 (no rank / kyoku) + past 1 (13) + past 2..4 (27): T Table 4.1
    assert MODEL_CHANNELS["m56"][:16] == list(range(14)) + [26, 27]
    assert MODEL_CHANNELS["m56"][16:] == list(range(28, 68))
    with pytest.raises(ValueError):
        channels("m99")


def test_known_tiles_land_in_known_rows_and_columns():
    state = make_state(
        tiles="1115m055p9s77z",  # three 1m, 5m, red 5p + two 5p, 9s, two chun
        discards=[discards("19m"), discards("1z1z1z"), [], discards("5s")],
        melds=[[], [Meld("pon", parse_hand("666p"), parse_hand("6p")[0], 0)],
               [Meld("ankan", parse_hand("2222s"), None, None)], []],
        dora_indicators=parse_hand("3m"),
        riichi=[False, False, True, False],
        scores=[30000, 25000, 20000, 25000],
        round_wind=1, kyoku=2, dealer=3, turns=[2, 1, 0, 1],
    )
    x = encode(situation(state), [])
    assert x.shape == (129, 34, 4) and x.dtype == np.uint8 and not x[87:].any()
    hand = x[0]
    assert hand[k("1m")].tolist() == [1, 1, 1, 0]  # thermometer from the left
    assert hand[k("5p")].tolist() == [1, 1, 1, 0]  # the red five counts as a five
    assert hand[k("C")].tolist() == [1, 1, 0, 0]
    assert hand.sum() == 10 and hand[k("2m")].sum() == 0
    assert x[1, k("5p")].tolist() == [1, 1, 1, 1] and x[1].sum() == 4  # red-five row mark
    # relative seats from seat 1: self = 1, shimocha = 2, toimen = 3, kamicha = 0
    assert x[2, k("E")].tolist() == [1, 1, 1, 0] and x[2].sum() == 3  # own discards
    assert x[3].sum() == 0  # seat 2 discarded nothing
    assert x[4, k("5s")].tolist() == [1, 0, 0, 0]  # toimen = seat 3
    assert x[5, k("1m")].sum() == 1 and x[5, k("9m")].sum() == 1  # kamicha = seat 0
    assert x[6, k("6p")].tolist() == [1, 1, 1, 0]  # own pon
    assert x[7, k("2s")].tolist() == [1, 1, 1, 1]  # shimocha's closed kan
    assert x[10, k("3m")].tolist() == [1, 0, 0, 0] and x[10].sum() == 1
    assert x[11].min() == 1 and x[12].max() == 0 and x[13].max() == 0  # seat 2 in riichi
    # rank: 25000 ties with seat 3 -> seat order puts seat 1 second after seat 0's 30000
    assert [x[14 + r].max() for r in range(4)] == [0, 1, 0, 0]
    assert x[14:18].sum() == 136
    assert x[18 + 6].min() == 1 and x[18:26].sum() == 136  # South 3 -> index 4 * 1 + 2
    assert x[26, k("S")].tolist() == [1, 1, 1, 1] and x[26].sum() == 4  # round wind South
    assert x[27, k("W")].sum() == 4 and x[27].sum() == 4  # seat 1 with dealer 3: West
    assert x[28:].sum() == 0  # no past, no offer


def test_every_count_row_is_a_prefix_of_ones():
    rng = np.random.default_rng(4)
    for _ in range(20):
        ids = [int(t) for t in rng.permutation(136)[:14]]
        state = make_state(hand_ids=ids)
        x = encode(situation(state), [])
        row_sums = x[0].sum(axis=1)
        expect = (np.arange(4)[None, :] < row_sums[:, None]).astype(np.uint8)
        assert np.array_equal(x[0], expect)
        assert np.array_equal(row_sums, to_counts(ids))


def test_rank_ties_break_by_seat_order():
    assert [rank_of([25000] * 4, s) for s in range(4)] == [0, 1, 2, 3]
    assert [rank_of([10000, 40000, 10000, 40000], s) for s in range(4)] == [2, 0, 3, 1]


NOW10 = [0] + list(range(2, 11))  # present hand, discards, melds, dora (aka plane skipped)


def test_history_gives_past_rounds_and_resets_per_hand():
    hist = SeatHistory()
    s0 = make_state(tiles="19m19p19s1234567z", turns=[0, 0, 0, 0])
    first = hist.encode(s0, discard_decision=True)
    assert first[28:86].sum() == 0  # nothing in the past yet
    s1 = make_state(tiles="19m19p19s1234566z", turns=[1, 1, 1, 1],
                    discards=[[], discards("7z"), [], []], riichi=[False, False, False, True])
    second = hist.encode(s1, discard_decision=True)
    assert np.array_equal(second[28:38], first[NOW10])  # past 1 = the first situation
    assert np.array_equal(second[38:41], first[11:14])  # past-1 riichi planes
    assert second[41:86].sum() == 0
    s2 = make_state(tiles="19m19p19s1234556z", turns=[2, 2, 2, 2],
                    discards=[[], discards("7z6z"), [], []])
    third = hist.encode(s2, discard_decision=True)
    assert np.array_equal(third[28:38], second[NOW10])
    assert np.array_equal(third[41:50], first[NOW10[:9]])  # past 2
    assert third[38:41].sum() == 136  # kamicha's riichi was on in past 1
    assert third[29].sum() == 1 and third[29, 33, 0] == 1  # own discards one round ago: 7z
    # a call decision between turns: past 1 is the last own discard decision
    call = make_state(tiles="19m19p19s1234556z", turns=[3, 3, 2, 2], last_discard=(0, 108))
    x = hist.encode(call, discard_decision=False, offered=27)
    assert np.array_equal(x[28:38], third[NOW10]) and x[OFFER_PLANE, 27].sum() == 4
    assert x[OFFER_PLANE].sum() == 4
    # the same decision again (riichi, then its discard) does not shift the past
    again = hist.encode(s2, discard_decision=True)
    assert np.array_equal(again, third)
    # a new hand forgets the past
    fresh = hist.encode(make_state(kyoku=1, dealer=1, turns=[0, 0, 0, 0]), discard_decision=True)
    assert fresh[28:86].sum() == 0


def test_planes_of_a_table_state_fed_by_mjai_events():
    """Seat 1's view of a short hand: draw, discards, a pon by seat 2, a riichi by seat 3."""
    from game.state import TableState

    q = ["?"] * 13
    tehai = ["1m", "1m", "1m", "2m", "5pr", "5p", "7p", "3s", "4s", "9s", "C", "C", "E"]
    events = [
        {"type": "start_game", "names": ["a", "b", "c", "d"]},
        {"type": "start_kyoku", "bakaze": "E", "dora_marker": "3m", "kyoku": 2, "honba": 0,
         "kyotaku": 0, "oya": 1, "scores": [24000, 26000, 25000, 25000],
         "tehais": [q, tehai, q, q]},
        {"type": "tsumo", "actor": 1, "pai": "8p"},
        {"type": "dahai", "actor": 1, "pai": "E", "tsumogiri": False},
        {"type": "tsumo", "actor": 2, "pai": "?"},
        {"type": "dahai", "actor": 2, "pai": "9m", "tsumogiri": True},
        {"type": "tsumo", "actor": 3, "pai": "?"},
        {"type": "dahai", "actor": 3, "pai": "N", "tsumogiri": True},
        {"type": "pon", "actor": 2, "target": 3, "pai": "N", "consumed": ["N", "N"]},
        {"type": "dahai", "actor": 2, "pai": "1p", "tsumogiri": False},
        {"type": "tsumo", "actor": 3, "pai": "?"},
        {"type": "reach", "actor": 3},
        {"type": "dahai", "actor": 3, "pai": "5sr", "tsumogiri": True},
        {"type": "reach_accepted", "actor": 3},
        {"type": "tsumo", "actor": 0, "pai": "?"},
        {"type": "dahai", "actor": 0, "pai": "1m", "tsumogiri": True},
    ]
    state = TableState(1)
    hist = SeatHistory()
    for ev in events:
        state.update(ev)
        if ev["type"] == "tsumo" and ev["actor"] == 1:
            first = hist.encode(state, discard_decision=True)
    x = hist.encode(state, discard_decision=False, offered=k("1m"))
    assert first[0, k("8p")].tolist() == [1, 0, 0, 0] and first[0].sum() == 14
    assert x[0].sum() == 13 and x[0, k("1m")].tolist() == [1, 1, 1, 0]
    assert x[0, k("8p")].sum() == 1 and x[0, k("E")].sum() == 0
    assert x[1, k("5p")].sum() == 4 and x[1].sum() == 4  # red 5p in hand
    assert x[2, k("E")].sum() == 1  # own discard
    assert x[3, k("9m")].sum() == 1 and x[3, k("1p")].sum() == 1  # shimocha (seat 2)
    assert x[4, k("N")].sum() == 1 and x[4, k("5s")].sum() == 1  # toimen: called N stays
    assert x[5, k("1m")].sum() == 1  # kamicha (seat 0)
    assert x[7, k("N")].tolist() == [1, 1, 1, 0] and x[7].sum() == 3  # shimocha's pon
    assert x[10, k("3m")].sum() == 1
    assert x[12].min() == 1 and x[11].max() == 0 and x[13].max() == 0  # toimen riichi
    # scores after the riichi stick: 24000, 26000, 25000, 24000 -> seat 1 is first
    assert x[14].min() == 1 and x[15:18].max() == 0
    assert x[18 + 1].min() == 1  # East 2
    assert x[26, k("E")].sum() == 4 and x[27, k("E")].sum() == 4  # seat 1 is the dealer
    assert np.array_equal(x[28:38], first[NOW10])  # past 1 = its discard decision
    assert x[OFFER_PLANE, k("1m")].sum() == 4
