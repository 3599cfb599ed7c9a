"""iter_decisions against the engine that played the game, and on real Tenhou games.

Self-play: riichienv plays a game and records, at every point it asks a seat, the legal
actions and the action taken. Replayed from the mjai log alone, iter_decisions must find
the same points, in the same order, with the same legal actions and the same choice (the
live engine sees passes, so this also checks the furiten that the state adds to a replay).
Real games: every choice of the phoenix players must be among the legal actions.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
import riichienv

from game.actions import legal_from_engine, to_mjai
from game.decisions import canonical_tiles, iter_decisions
from game.errors import RecordError
from game.records import read_events
from game.state import TableState
from game.tiles import id_to_mjai

from test_state import _policy  # the self-play policy that reaches riichi, wins and kans

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def key(action: dict) -> str:
    if "consumed" in action:
        action = {**action, "consumed": canonical_tiles(action["consumed"])}
    return json.dumps(action, sort_keys=True)


def live_game(seed: int):
    """One east game; per seat, the (legal keys, chosen key) of every time it was asked."""
    env = riichienv.RiichiEnv(game_mode=1, seed=seed, rule=riichienv.GameRule.default_tenhou())
    observations = env.reset()
    rng = random.Random(seed)
    asked: list[list[tuple[frozenset, str]]] = [[], [], [], []]
    while not env.done():
        target = env.current_player if env.phase == riichienv.Phase.WaitResponse else None
        actions = {}
        for pid, obs in observations.items():
            legal = obs.legal_actions()
            if not legal:
                continue
            choice = _policy(obs, legal, rng)
            mjai, _ = legal_from_engine(legal, pid, target=target, drawn=env.drawn_tile)
            chosen = to_mjai(choice, pid, target=target, drawn=env.drawn_tile)
            asked[pid].append((frozenset(map(key, mjai)), key(chosen)))
            actions[pid] = choice
        observations = env.step(actions)
    return env.mjai_log, asked


@pytest.mark.parametrize("seed", range(8))
def test_replay_finds_the_engines_decisions(seed):
    log, asked = live_game(seed)
    found: list[list[tuple[frozenset, str, int]]] = [[], [], [], []]
    for d in iter_decisions(log):
        found[d.seat].append((frozenset(map(key, d.legal)), key(d.chosen), d.index))
        assert len(d.legal) == len({key(a) for a in d.legal})  # no duplicates
    overridden = 0
    for seat in range(4):
        assert len(found[seat]) == len(asked[seat])
        for n, ((legal, chosen, index), (live_legal, live_chosen)) in enumerate(
                zip(found[seat], asked[seat])):
            assert legal == live_legal, f"seat {seat}, decision {n}"
            if chosen != live_chosen:
                # A call that a higher claim (pon, kan, ron of another seat) overrode
                # leaves no trace in the record: the record reads it as a pass.
                assert json.loads(live_chosen)["type"] in ("chi", "pon", "daiminkan")
                assert chosen == key({"type": "none"})
                assert _claimed_by_other(log, index, seat), f"seat {seat}, decision {n}"
                overridden += 1
    assert overridden <= 3


def _claimed_by_other(log, index, seat) -> bool:
    k = index + 1
    while log[k]["type"] in ("reach_accepted", "dora"):
        k += 1
    return log[k]["type"] in ("pon", "daiminkan", "hora") and log[k]["actor"] != seat


def test_decisions_of_some_seats_and_snapshots():
    log, asked = live_game(11)
    every = list(iter_decisions(log))
    only = list(iter_decisions(log, seats=[2]))
    assert [(d.index, d.chosen) for d in every if d.seat == 2] == \
        [(d.index, d.chosen) for d in only]
    assert len(only) == len(asked[2])
    first = only[0]
    assert first.state.seat == 2 and len(first.state.hand_ids) + 3 * len(first.state.melds[2]) in (13, 14)
    # Each decision keeps its own snapshot: the first is unchanged at the end.
    assert first.state.n_events == first.index + 1
    assert all(d.state is not first.state for d in only[1:])


def test_the_state_of_a_decision_holds_the_chosen_tile():
    log, _ = live_game(12)
    for d in iter_decisions(log):
        c = d.chosen
        if c["type"] == "dahai":
            assert c["pai"] in _names(d.state.hand_ids)
            if c["tsumogiri"]:
                assert _names([d.state.drawn]) == [c["pai"]]
        elif c["type"] in ("chi", "pon"):
            assert d.state.last_discard is not None and d.state.last_discard[0] == c["target"]


def _names(ids):
    return [id_to_mjai(t) for t in ids]


def test_a_broken_record_raises_record_error():
    log, _ = live_game(13)
    cut = next(i for i, e in enumerate(log) if e["type"] == "dahai" and i > 30)
    broken = log[:cut] + log[cut + 1:]  # a discard goes missing
    with pytest.raises(RecordError) as info:
        list(iter_decisions(broken))
    assert info.value.position is not None and info.value.position.startswith("event ")


# --- real games -------------------------------------------------------------------------

MJLOGS = sorted((DATA / "phoenix" / "mjlog").glob("*.xml"))
EDGE = sorted((DATA / "edge_rounds").glob("*.json"))


def test_real_data_is_there():
    assert len(MJLOGS) >= 40 and len(EDGE) >= 20


@pytest.mark.parametrize("path", MJLOGS[::3] + EDGE, ids=lambda p: p.name)
def test_phoenix_choices_are_legal(path):
    events = read_events(path)
    counts = Counter()
    for d in iter_decisions(events):
        assert d.chosen in d.legal, (d.index, d.chosen, d.legal)
        counts[d.chosen["type"]] += 1
    assert counts["dahai"] > 0


@pytest.mark.parametrize("path", MJLOGS, ids=lambda p: p.name)
def test_phoenix_scores_follow_tenhous_deltas(path):
    """Tracked scores equal every deal's scores and Tenhou's final scores (``owari``)."""
    events = read_events(path)
    state = TableState(1)
    hands = 0
    for event in events:
        if event["type"] == "start_kyoku" and hands:
            assert (state.scores, state.kyotaku) == (event["scores"], event["kyotaku"])
        hands += event["type"] == "start_kyoku"
        if event["type"] == "end_game" and "scores" in event:
            state.update({"type": "end_game"})  # sticks left go to the top, as Tenhou pays
            assert state.scores == event["scores"]
        else:
            state.update(event)
    assert hands >= 1
