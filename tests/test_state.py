"""TableState against riichienv's own view of self-play games, and on hand-made records.

The oracle is the engine that plays the game: at every point where it asks a seat to act,
the seat's state rebuilt from the mjai events alone (others' draws hidden) must hold the
same concealed tiles, rivers, melds, dora indicators, scores and sticks as the engine's
Observation, the wall count must match the engine's wall, ``unseen`` must be 4 minus the
copies the engine shows that seat, and furiten must agree with the ron the engine offers.
"""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
import riichienv
from riichienv import ActionType as AT

from game.errors import RecordError
from game.state import LIVE_WALL, TableState, seat_view
from game.tiles import id_to_mjai, kind_of

DEAD_WALL = 14
_RON, _TSUMO = int(AT.RON), int(AT.TSUMO)


# --- self-play games that reach riichi, wins, kans, calls and passed wins -----------------

def _policy(obs, legal, rng: random.Random):
    by_type: dict[int, list] = {}
    for a in legal:
        by_type.setdefault(int(a.action_type), []).append(a)
    for t, p in ((_TSUMO, 0.9), (_RON, 0.85), (int(AT.RIICHI), 0.8), (int(AT.ANKAN), 0.5),
                 (int(AT.KAKAN), 0.5), (int(AT.DAIMINKAN), 0.3), (int(AT.KYUSHU_KYUHAI), 0.5),
                 (int(AT.PON), 0.15), (int(AT.CHI), 0.1)):
        if t in by_type and rng.random() < p:
            return rng.choice(by_type[t])
    discards = by_type.get(int(AT.DISCARD))
    if discards:  # keep the shanten low so that hands reach tenpai
        hand = list(obs.hand)

        def shanten_after(a):
            rest = list(hand)
            rest.remove(a.tile)
            return riichienv.calculate_shanten(rest), rng.random()
        return min(discards, key=shanten_after)
    passes = by_type.get(int(AT.PASS))
    return passes[0] if passes else rng.choice(legal)


def selfplay(seed: int):
    """Play one east game. Returns its mjai log, how often the engine asked each seat, and
    the final scores. (``env.mjai_log`` decodes the whole log on each access: read it once.)
    """
    env = riichienv.RiichiEnv(game_mode=1, seed=seed, rule=riichienv.GameRule.default_tenhou())
    observations = env.reset()
    rng = random.Random(seed)
    asked = Counter()
    while not env.done():
        actions = {}
        for pid, obs in observations.items():
            legal = obs.legal_actions()
            if legal:
                asked[pid] += 1
                actions[pid] = _policy(obs, legal, rng)
        observations = env.step(actions)
    return env.mjai_log, asked, list(env.scores())


SEEDS = range(10)


@pytest.fixture(scope="module")
def games():
    return [selfplay(s) for s in SEEDS]


NAME = tuple(id_to_mjai(t) for t in range(136))  # tables: the checks run ~10^5 times


def names(ids) -> list[str]:
    return sorted(NAME[t] for t in ids)


def kinds(ids) -> list[int]:
    return sorted(t >> 2 for t in ids)


# --- the state against the engine after every event -----------------------------------

def follow(log, checked: Counter) -> None:
    """Replay ``log`` in riichienv and in four states fed each seat's view; compare them
    after every event (the engine numbers copies its own way, so tiles compare by name).
    """
    env = riichienv.RiichiEnv(game_mode=2, rule=riichienv.GameRule.default_tenhou())
    states = [TableState(s) for s in range(4)]
    for event in log:
        env.apply_event(event)
        for seat, state in enumerate(states):
            state.update(seat_view(event, seat))
        if event["type"] in ("start_game", "end_kyoku", "end_game"):
            continue
        observations = env.get_observations([0, 1, 2, 3])
        for seat, state in enumerate(states):
            obs = observations[seat]
            _compare(state, obs, event, checked)
            _check_ron(state, event, obs.legal_actions(), checked)
            assert state.tiles_left == len(env.wall) - DEAD_WALL


def _compare(state: TableState, obs, event: dict, checked: Counter) -> None:
    # Each attribute access of an Observation builds new Python objects: read them once.
    hand, dora, discards, melds = obs.hand, obs.dora_indicators, obs.discards, obs.melds
    assert names(state.hand_ids) == names(hand)
    assert np.array_equal(state.hand, np.bincount([t >> 2 for t in hand], minlength=34))
    assert names(state.dora_indicators) == names(dora)
    if event["type"] not in ("hora", "ryukyoku"):  # the engine pays at the next deal
        assert state.scores == list(obs.scores)
        assert state.kyotaku == obs.riichi_sticks
    assert (state.dealer, state.honba) == (obs.oya, obs.honba)
    assert state.round_wind == obs.round_wind
    seen = [t >> 2 for t in hand] + [t >> 2 for t in dora]
    riichi = obs.riichi_declared
    for p in range(4):
        river, meld_tiles = discards[p], [m.tiles for m in melds[p]]
        assert [NAME[d.tile] for d in state.discards[p]] == [NAME[t] for t in river]
        assert sorted(kinds(m.tiles) for m in state.melds[p]) == sorted(map(kinds, meld_tiles))
        seen += [t >> 2 for t in river] + [t >> 2 for ts in meld_tiles for t in ts]
        assert state.riichi[p] == riichi[p] or state.reach_declared[p]
    counts = np.bincount(seen, minlength=34)
    # A called tile is in its river and in the meld: count it once.
    for ms in state.melds:
        for m in ms:
            if m.called is not None:
                counts[m.called >> 2] -= 1
    assert np.array_equal(state.unseen, 4 - counts)
    checked["views"] += 1


def _check_ron(state: TableState, last: dict, legal, checked: Counter) -> None:
    """A riichi hand that is not furiten is always offered ron on a winning tile.

    (The other direction, furiten blocking ron, needs the live engine, which sees passes
    that leave no event: tests/test_decisions.py compares with it.)
    """
    if last["type"] not in ("dahai", "kakan") or last["actor"] == state.seat:
        return
    if kind_of(state.last_discard[1]) not in state.waits:
        return
    ron = any(int(a.action_type) == _RON for a in legal)
    if state.furiten:
        checked["furiten"] += 1
    elif state.riichi[state.seat]:
        assert ron, f"seat {state.seat} in riichi, not furiten, but no ron on {last}"
        checked["riichi ron"] += 1


def test_state_matches_engine_view_after_every_event(games):
    checked = Counter()
    for log, _, _ in games:
        follow(log, checked)
    # The games exercise what the test claims to check.
    assert checked["views"] > 10000 and checked["riichi ron"] > 0, checked


# --- whole logs -----------------------------------------------------------------------

def _replay(log, seat):
    state = TableState(seat)
    for event in log:
        yield event, state
        state.update(seat_view(event, seat))


def test_scores_after_each_hand_are_the_sums_of_deltas(games):
    hands = 0
    for log, _, final in games:
        for seat in range(4):
            state = TableState(seat)
            for i, event in enumerate(log):
                if event["type"] == "start_kyoku" and i > 1:
                    assert state.scores == event["scores"]
                    assert state.kyotaku == event["kyotaku"]
                    hands += 1
                state.update(seat_view(event, seat))
            assert state.scores == final
    assert hands > 20


def test_tiles_left_counts_the_draws(games):
    exhaustive = 0
    for log, _, _ in games:
        state = TableState(2)
        draws = 0
        for event in log:
            state.update(seat_view(event, 2))
            if event["type"] == "start_kyoku":
                draws = 0
            draws += event["type"] == "tsumo"
            if state.in_kyoku:
                assert state.tiles_left == LIVE_WALL - draws
            if event["type"] == "ryukyoku" and event.get("reason") == "exhaustive_draw":
                assert state.tiles_left == 0
                exhaustive += 1
    assert exhaustive > 0


def test_unseen_plus_seen_is_four_after_every_event(games):
    log = games[0][0]
    for seat in range(4):
        for event, state in _replay(log, seat):
            if not state.in_kyoku:
                continue
            seen = Counter(kind_of(t) for t in state.hand_ids)
            seen.update(kind_of(t) for t in state.dora_indicators)
            ids = {d.tile for river in state.discards for d in river}
            seen.update(kind_of(t) for t in ids)
            seen.update(kind_of(t) for ms in state.melds for m in ms for t in m.tiles
                        if t not in ids)
            assert all(state.unseen[k] + seen[k] == 4 for k in range(34))
            assert len(state.hand_ids) + 3 * len(state.melds[seat]) in (13, 14)


def test_state_ignores_what_the_seat_cannot_see(games):
    """Fed the full log (others' draws visible), a seat's state is the same."""
    log = games[1][0]
    hidden, full = TableState(3), TableState(3)
    for event in log:
        hidden.update(seat_view(event, 3))
        full.update(event)
        assert hidden.hand_ids == full.hand_ids
        assert np.array_equal(hidden.unseen, full.unseen)


def test_copy_is_a_snapshot(games):
    log = games[0][0]
    state = TableState(0)
    for event in log[:40]:
        state.update(event)
    snap = state.copy()
    before = (list(state.hand_ids), [list(r) for r in state.discards], state.unseen.copy(),
              list(state.scores), [list(m) for m in state.melds])
    for event in log[40:300]:
        state.update(event)
    assert (snap.hand_ids, snap.discards, list(snap.scores), snap.melds) == \
        (before[0], before[1], before[3], before[4])
    assert np.array_equal(snap.unseen, before[2])
    snap.update(log[40])  # a snapshot goes on by itself
    assert snap.n_events == 41


# --- hand-made records: furiten and impossible events ----------------------------------

def _kyoku(tehai: list[str], dora: str = "9s", seat: int = 0) -> list[dict]:
    filler = [["1m", "1m", "1m", "2m", "2m", "2m", "3m", "3m", "3m", "4m", "4m", "4m", "N"],
              ["1p", "1p", "1p", "2p", "2p", "2p", "3p", "3p", "3p", "4p", "4p", "4p", "N"],
              ["1s", "1s", "1s", "2s", "2s", "2s", "3s", "3s", "3s", "4s", "4s", "4s", "N"]]
    return [{"type": "start_game"},
            {"type": "start_kyoku", "bakaze": "E", "kyoku": 1, "honba": 0, "kyotaku": 0,
             "oya": 0, "dora_marker": dora, "scores": [25000] * 4,
             "tehais": filler[:seat] + [tehai] + filler[seat:]}]


TENPAI = ["5m", "6m", "7m", "2p", "3p", "4p", "6s", "7s", "8s", "E", "E", "E", "9p"]


def _feed(state: TableState, events: list[dict]) -> None:
    for e in events:
        state.update(e)


def test_own_discard_of_a_wait_is_permanent_furiten():
    state = TableState(0)
    _feed(state, _kyoku(TENPAI))
    assert state.waits == frozenset({kind_of(68)})  # 9p tanki
    _feed(state, [{"type": "tsumo", "actor": 0, "pai": "9p"},
                  {"type": "dahai", "actor": 0, "pai": "9p", "tsumogiri": True}])
    assert state.furiten
    for actor in (1, 2, 3, 0):
        _feed(state, [{"type": "tsumo", "actor": actor, "pai": "?" if actor else "C"},
                      {"type": "dahai", "actor": actor, "pai": "C" if not actor else "N",
                       "tsumogiri": True}])
    assert state.furiten


def test_passed_ron_is_furiten_until_the_own_next_discard():
    state = TableState(0)
    _feed(state, _kyoku(TENPAI) + [{"type": "tsumo", "actor": 0, "pai": "C"},
                                   {"type": "dahai", "actor": 0, "pai": "C", "tsumogiri": True},
                                   {"type": "tsumo", "actor": 1, "pai": "?"},
                                   {"type": "dahai", "actor": 1, "pai": "9p", "tsumogiri": True}])
    assert not state.furiten  # the choice to ron is still open
    _feed(state, [{"type": "tsumo", "actor": 2, "pai": "?"}])
    assert state.furiten
    _feed(state, [{"type": "dahai", "actor": 2, "pai": "N", "tsumogiri": True},
                  {"type": "tsumo", "actor": 3, "pai": "?"},
                  {"type": "dahai", "actor": 3, "pai": "N", "tsumogiri": True}])
    assert state.furiten
    _feed(state, [{"type": "tsumo", "actor": 0, "pai": "F"},
                  {"type": "dahai", "actor": 0, "pai": "F", "tsumogiri": True}])
    assert not state.furiten


def test_passed_ron_under_riichi_stays_furiten():
    state = TableState(0)
    _feed(state, _kyoku(TENPAI) + [{"type": "tsumo", "actor": 0, "pai": "C"},
                                   {"type": "reach", "actor": 0},
                                   {"type": "dahai", "actor": 0, "pai": "C", "tsumogiri": True},
                                   {"type": "reach_accepted", "actor": 0},
                                   {"type": "tsumo", "actor": 1, "pai": "?"},
                                   {"type": "dahai", "actor": 1, "pai": "9p", "tsumogiri": True},
                                   {"type": "tsumo", "actor": 2, "pai": "?"}])
    assert state.riichi[0] and state.riichi_turn[0] == 0 and state.discards[0][0].riichi
    assert state.scores[0] == 24000 and state.kyotaku == 1
    _feed(state, [{"type": "dahai", "actor": 2, "pai": "N", "tsumogiri": True},
                  {"type": "tsumo", "actor": 3, "pai": "?"},
                  {"type": "dahai", "actor": 3, "pai": "N", "tsumogiri": True},
                  {"type": "tsumo", "actor": 0, "pai": "F"},
                  {"type": "dahai", "actor": 0, "pai": "F", "tsumogiri": True}])
    assert state.furiten


def test_calls_move_tiles_and_mark_the_river():
    state = TableState(1)
    _feed(state, _kyoku(TENPAI, seat=1) + [{"type": "tsumo", "actor": 0, "pai": "?"},
                                   {"type": "dahai", "actor": 0, "pai": "5p", "tsumogiri": False},
                                   {"type": "chi", "actor": 1, "target": 0, "pai": "5p",
                                    "consumed": ["3p", "4p"]}])
    assert state.discards[0][0].called
    meld = state.melds[1][0]
    assert (meld.type, meld.from_seat, id_to_mjai(meld.called)) == ("chi", 0, "5p")
    assert names(meld.tiles) == ["3p", "4p", "5p"]
    assert len(state.hand_ids) == 11 and state.to_discard == 1
    assert state.unseen[kind_of(52)] == 3  # the 5p, seen once although in river and meld


@pytest.mark.parametrize("events, message", [
    ([{"type": "tsumo", "actor": 0, "pai": "C"},
      {"type": "dahai", "actor": 0, "pai": "1s", "tsumogiri": False}], "no 1s in hand"),
    ([{"type": "tsumo", "actor": 0, "pai": "C"},
      {"type": "dahai", "actor": 1, "pai": "N", "tsumogiri": False}], "out of turn"),
    ([{"type": "tsumo", "actor": 0, "pai": "E"},
      {"type": "dahai", "actor": 0, "pai": "E", "tsumogiri": True},
      {"type": "tsumo", "actor": 1, "pai": "?"},
      {"type": "dahai", "actor": 1, "pai": "E", "tsumogiri": True}], "a fifth E"),
    ([{"type": "tsumo", "actor": 0, "pai": "C"},
      {"type": "dahai", "actor": 0, "pai": "C", "tsumogiri": True},
      {"type": "chi", "actor": 2, "target": 0, "pai": "C", "consumed": ["C", "C"]}],
     "other than the one on the left"),
    ([{"type": "tsumo", "actor": 0, "pai": "C"},
      {"type": "dahai", "actor": 0, "pai": "C", "tsumogiri": True},
      {"type": "pon", "actor": 2, "target": 1, "pai": "C", "consumed": ["C", "C"]}],
     "did not just discard"),
    ([{"type": "tsumo", "actor": 0, "pai": "xx"}], "unknown tile"),
    ([{"type": "reach_accepted", "actor": 2}], "without a riichi declaration"),
    ([{"type": "shout"}], "unknown mjai event"),
    ([{"type": "tsumo", "actor": 0, "pai": "?"}], "unknown tile"),
])
def test_impossible_events_raise_record_error_with_the_index(events, message):
    state = TableState(0)
    _feed(state, _kyoku(TENPAI))
    with pytest.raises(RecordError, match=message) as info:
        _feed(state, events)
    assert info.value.position == f"event {2 + len(events) - 1}"


def _start(**changes) -> dict:
    start = _kyoku(TENPAI)[1]
    start.update(changes)
    return {k: v for k, v in start.items() if v is not None}


@pytest.mark.parametrize("event, message", [
    (_start(oya=7), "start_kyoku oya 7 is not an integer in 0..3"),
    (_start(bakaze="X"), "start_kyoku bakaze 'X' is not one of E S W N"),
    (_start(scores=None), "start_kyoku without 'scores'"),
    (_start(tehais=_start()["tehais"][:3]), "start_kyoku tehais holds 3 starting hands, not 4"),
    (_start(tehais=[TENPAI[:12]] + _start()["tehais"][1:]), "start_kyoku tehais of seat 0: .* is not a list of 13 tiles"),
    (_start(kyoku="1"), "start_kyoku kyoku '1' is not an integer in 1..4"),
    (_start(scores=[25000, 25000, 25000, 25000.5]), "start_kyoku scores .* is not four integer point counts"),
    ({"type": "tsumo", "actor": 7, "pai": "C"}, "tsumo actor 7 is not an integer in 0..3"),
    ({"type": "tsumo", "actor": True, "pai": "C"}, "tsumo actor True"),
    ({"type": "tsumo", "pai": "C"}, "tsumo without 'actor'"),
    ({"type": "tsumo", "actor": 0, "pai": ["C"]}, r"tsumo pai \['C'\] is an unknown tile"),
    ({"type": "chi", "actor": 1, "target": 0, "pai": "5p", "consumed": "34p"}, "chi consumed"),
    ({"type": "hora", "actor": 0, "target": 0, "deltas": [1, 2, 3]}, "hora deltas"),
    (["tsumo"], r"\['tsumo'\] is not a JSON object"),
])
def test_malformed_fields_are_record_errors_before_any_handler_runs(event, message):
    state = TableState(0)
    state.update({"type": "start_game"})
    before = state.n_events
    with pytest.raises(RecordError, match="malformed event: " + message) as info:
        state.update(event)
    assert info.value.position == f"event {before}" and state.n_events == before


def test_a_bug_inside_a_handler_is_not_reported_as_bad_input(monkeypatch):
    """Only the field check speaks for bad input: an exception of our own code passes through."""
    import game.state as state_module

    def broken(self, event):
        return {}["no such key"]
    monkeypatch.setitem(state_module._HANDLERS, "tsumo", broken)
    state = TableState(0)
    _feed(state, _kyoku(TENPAI))
    with pytest.raises(KeyError):
        state.update({"type": "tsumo", "actor": 0, "pai": "C"})
