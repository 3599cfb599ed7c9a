"""cnn-bot's decision-feature planes (cnn.features) on real phoenix decisions, checked
against the ``mahjong`` library's shanten (an independent implementation)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cnn.features import ACCEPT_STEPS, FIRST, GAP_STEPS, LEFT_STEPS, feature_planes
from cnn.rules import chi_class
from game.tiles import mjai_to_kind

REPO = Path(__file__).resolve().parents[1]
GAME = REPO.parent / "shared" / "data" / "phoenix" / "mjlog" / "mjx__2010091009gm-00a9-0000-83af2648.xml"


def lib_shanten(counts: np.ndarray) -> int:
    from mahjong.shanten import Shanten

    closed = int(counts.sum()) >= 13
    return int(Shanten().calculate_shanten(counts.tolist(), use_chiitoitsu=closed, use_kokushi=closed))


@pytest.fixture(scope="module")
def decisions():
    from game.decisions import iter_decisions
    from game.records import read_events

    return [d for d in iter_decisions(read_events(GAME)) if len(d.legal) >= 2]


def plane(x: np.ndarray, ch: int) -> np.ndarray:
    return x[ch - FIRST]


def test_own_turn_shanten_and_acceptance_match_the_library(decisions):
    own = [d for d in decisions if any(a["type"] == "dahai" for a in d.legal)][::12][:25]
    assert len(own) == 25
    for d in own:
        x = feature_planes(d.state, d.legal)
        hand = np.asarray(d.state.hand, dtype=np.int64)
        unseen = np.asarray(d.state.unseen, dtype=np.int64)
        after = {t: lib_shanten(hand - np.eye(34, dtype=np.int64)[t]) for t in np.flatnonzero(hand)}
        best = min(after.values())
        keeps = plane(x, 112)[:, 0].astype(bool)
        assert set(np.flatnonzero(keeps)) == {t for t, s in after.items() if s == best}
        assert plane(x, 91 + min(max(best, 0), 3)).all()  # the shanten one-hot
        for t, s in after.items():
            rest = hand - np.eye(34, dtype=np.int64)[t]
            accept = sum(int(unseen[u]) for u in range(34)
                         if unseen[u] and rest[u] < 4 and lib_shanten(rest + np.eye(34, dtype=np.int64)[u]) < s)
            assert plane(x, 113)[t].tolist() == [int(accept >= step) for step in ACCEPT_STEPS]
        left = [bool(plane(x, 87 + i).all()) for i in range(4)]
        assert left == [d.state.tiles_left >= s for s in LEFT_STEPS]


def test_call_options_match_the_library(decisions):
    calls = [d for d in decisions if any(a["type"] in ("pon", "chi") for a in d.legal)]
    assert len(calls) >= 20
    seen = set()
    for d in calls:
        x = feature_planes(d.state, d.legal)
        hand = np.asarray(d.state.hand, dtype=np.int64)
        now = lib_shanten(hand)
        assert plane(x, 91 + min(max(now, 0), 3)).all()
        slots = {}
        for a in d.legal:
            if a["type"] in ("pon", "chi"):
                after = hand.copy()
                for n in a["consumed"]:
                    after[mjai_to_kind(n)] -= 1
                slot = 0 if a["type"] == "pon" else chi_class(a)
                slots[slot] = min(slots.get(slot, 99), lib_shanten(after))
        for slot in range(4):
            base = 95 + 4 * slot
            flags = [bool(plane(x, base + i).all()) for i in range(3)]
            if slot in slots:
                seen.add((slot, slots[slot] < now, slots[slot] == now))
                assert flags == [True, slots[slot] < now, slots[slot] == now]
            else:
                assert not plane(x, base).any() and not plane(x, base + 3).any()
    assert any(improves for _, improves, _ in seen) and any(same for _, _, same in seen)


def test_a_value_pon_keeps_a_yaku_and_a_terminal_chi_into_an_open_hand_does_not():
    from game.state import TableState
    from game.tiles import parse_hand, to_counts

    st = TableState(0)
    ids = parse_hand("19m19p1s23s556677z")  # the dealer (east), round east
    st.hand_ids, st.hand = ids, to_counts(ids)
    st.last_discard = (3, parse_hand("7z")[0])
    pon = {"type": "pon", "actor": 0, "target": 3, "pai": "C", "consumed": ["C", "C"]}
    chi = {"type": "chi", "actor": 0, "target": 3, "pai": "1s", "consumed": ["2s", "3s"]}
    x = feature_planes(st, [pon, {"type": "none"}])
    assert plane(x, 111).all()  # chun is a value tile
    assert plane(x, 98).all()  # the pon keeps a yaku (yakuhai)
    st.last_discard = (3, parse_hand("1s")[0])
    x = feature_planes(st, [chi, {"type": "none"}])
    assert not plane(x, 111).any()
    assert plane(x, 95 + 4 * chi_class(chi)).all()  # legal
    assert not plane(x, 95 + 4 * chi_class(chi) + 3).any()  # no yakuhai set, terminals, three suits


def passed_kinds(events: list[dict], seat: int, j: int) -> set[int]:
    """The kinds ``j`` cannot ron, read straight from the mjai events of the hand so far:
    its own discards, and every other seat's discard after j's riichi tile (for good) or, not
    in riichi, after j's last discard (temporary furiten)."""
    start = max(i for i, e in enumerate(events) if e["type"] == "start_kyoku")
    hand = events[start:]
    own = {mjai_to_kind(e["pai"]) for e in hand if e["type"] == "dahai" and e["actor"] == j}
    dahai = [i for i, e in enumerate(hand) if e["type"] == "dahai"]
    reach = [i for i, e in enumerate(hand) if e["type"] == "reach" and e["actor"] == j]
    mine = [i for i in dahai if hand[i]["actor"] == j]
    if reach:
        since = next(i for i in mine if i > reach[0])
    else:
        since = mine[-1] if mine else -1
    return own | {mjai_to_kind(hand[i]["pai"]) for i in dahai if i > since and hand[i]["actor"] != j}


def test_safety_planes_follow_the_events_of_real_games():
    """Planes 114-122 on every third decision of two phoenix games: the safe kinds of each
    opponent equal the events' own reading; a kind it cannot ron carries no danger; an
    opponent in riichi is tenpai on all four steps and has dangerous kinds."""
    from game.decisions import iter_decisions
    from game.records import read_events

    checked = riichi_seen = 0
    for name in ("mjx__2010091009gm-00a9-0000-83af2648.xml", "mjlog2json__2019021004gm-00a9-0000-e2f6516d.xml"):
        events = read_events(GAME.parent / name)
        for d in list(iter_decisions(events))[::3]:
            if len(d.legal) < 2:
                continue
            x = feature_planes(d.state, d.legal)
            for r in (1, 2, 3):
                j = (d.seat + r) % 4
                safe = set(np.flatnonzero(plane(x, 113 + r)[:, 0]))
                assert safe == passed_kinds(events[:d.index + 1], d.seat, j), (name, d.index, r)
                assert (plane(x, 113 + r) == plane(x, 113 + r)[:, :1]).all()  # a row mark
                assert not plane(x, 119 + r)[sorted(safe)].any()
                if d.state.riichi[j]:
                    riichi_seen += 1
                    assert plane(x, 116 + r).all()
                    assert plane(x, 119 + r)[:, 2].any()  # some kind >= 5 % to deal in
            checked += 1
    assert checked > 150 and riichi_seen > 20


def event_scores(events: list[dict]) -> list[int]:
    """The seats' scores read straight from the mjai events: the hand's ``start_kyoku`` scores
    less 1,000 for each riichi accepted since."""
    start = max(i for i, e in enumerate(events) if e["type"] == "start_kyoku")
    scores = list(events[start]["scores"])
    for e in events[start:]:
        if e["type"] == "reach_accepted":
            scores[e["actor"]] -= 1000
    return scores


def test_score_gap_planes_follow_the_scores_of_real_games():
    """Planes 123-128 on every decision of two phoenix games: opponent r's score above (123+r)
    or below (126+r) the seat's, a thermometer of GAP_STEPS over the copy axis, the same on
    every row; the gaps are those of the events' scores, and both sides and every step occur."""
    from game.decisions import iter_decisions
    from game.records import read_events

    steps_seen = np.zeros((2, len(GAP_STEPS)), dtype=int)
    for name in ("mjx__2010091009gm-00a9-0000-83af2648.xml", "mjlog2json__2019021004gm-00a9-0000-e2f6516d.xml"):
        events = read_events(GAME.parent / name)
        for d in iter_decisions(events):
            x = feature_planes(d.state, d.legal, safety=False)
            scores = event_scores(events[:d.index + 1])
            for r in (0, 1, 2):
                gap = scores[(d.seat + r + 1) % 4] - scores[d.seat]
                above, below = plane(x, 123 + r), plane(x, 126 + r)
                assert (above == above[:1]).all() and (below == below[:1]).all()
                assert above[0].tolist() == [int(gap >= s) for s in GAP_STEPS], (name, d.index, r, gap)
                assert below[0].tolist() == [int(-gap >= s) for s in GAP_STEPS], (name, d.index, r, gap)
                steps_seen += np.stack([above[0], below[0]])
    assert (steps_seen > 0).all()
