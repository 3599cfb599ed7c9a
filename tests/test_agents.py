"""Agents: legality over whole games, wins taken, folding, strength against the baselines."""
from __future__ import annotations

from collections import defaultdict

import pytest

from game.match import play_game
from game.tiles import id_to_mjai, parse_hand
from player.agents.efficiency import EfficiencyAgent
from player.agents.tsumogiri import TsumogiriAgent
from player.registry import make_agent


class WatchedEfficiency(EfficiencyAgent):
    """Counts the wins it was offered and the ones it took."""

    offered = 0
    taken = 0

    def act(self, legal):
        choice = super().act(legal)
        if any(a["type"] == "hora" for a in legal):
            WatchedEfficiency.offered += 1
            WatchedEfficiency.taken += choice["type"] == "hora"
        return choice


def replayed_scores(events: list[dict]) -> list[int]:
    """Final scores from the log: each hand's start, riichi deposits and hora/ryukyoku deltas."""
    scores = None
    for e in events:
        if e["type"] == "start_kyoku":
            assert scores is None or scores == e["scores"]
            scores = list(e["scores"])
        elif e["type"] == "reach_accepted":
            scores[e["actor"]] -= 1000
        elif e["type"] in ("hora", "ryukyoku"):
            scores = [a + b for a, b in zip(scores, e["deltas"])]
    return scores


@pytest.fixture(scope="module")
def efficiency_games():
    # play_game raises IllegalActionError on any illegal choice: these games are the check.
    return [play_game([WatchedEfficiency() for _ in range(4)], seed) for seed in range(6)]


def test_efficiency_games_are_legal_and_score_consistently(efficiency_games):
    for result in efficiency_games:
        assert result.events[-1]["type"] == "end_game"
        assert replayed_scores(result.events) == result.scores
        assert sum(result.scores) <= 100_000
    kinds = {e["type"] for r in efficiency_games for e in r.events}
    # The agent really uses the whole action range, not only discards.
    assert {"reach", "hora", "pon"} <= kinds and kinds & {"chi"}


def test_efficiency_takes_every_win_offered(efficiency_games):
    assert WatchedEfficiency.offered >= 10
    assert WatchedEfficiency.taken == WatchedEfficiency.offered


def deal(seat_hand: str, seat: int = 0) -> list[dict]:
    tehais = [["?"] * 13 for _ in range(4)]
    tehais[seat] = [id_to_mjai(t) for t in parse_hand(seat_hand)]
    return [
        {"type": "start_game"},
        {"type": "start_kyoku", "bakaze": "E", "kyoku": 1, "honba": 0, "kyotaku": 0, "oya": 0,
         "dora_marker": "9s", "scores": [25000] * 4, "tehais": tehais},
    ]


def turn(actor: int, pai: str, *, me: int = 0, drawn: str = "?") -> list[dict]:
    return [{"type": "tsumo", "actor": actor, "pai": drawn if actor == me else "?"},
            {"type": "dahai", "actor": actor, "pai": pai, "tsumogiri": actor != me or pai == drawn}]


def discards_of(hand: str, drawn: str) -> list[dict]:
    names = sorted({id_to_mjai(t) for t in parse_hand(hand)} | {drawn})
    return [{"type": "dahai", "actor": 0, "pai": n, "tsumogiri": n == drawn} for n in names]


POOR = "1m4m7m2p5p8p3s6s9s1z2z3z4z"   # shanten far from tenpai


def test_efficiency_folds_to_genbutsu_against_riichi():
    agent = EfficiencyAgent()
    agent.start_game(0)
    events = deal(POOR)
    events += turn(0, "N", drawn="N")
    events += turn(1, "8p")
    events += [{"type": "tsumo", "actor": 2, "pai": "?"},
               {"type": "reach", "actor": 2},
               {"type": "dahai", "actor": 2, "pai": "7m", "tsumogiri": True},
               {"type": "reach_accepted", "actor": 2}]
    events += turn(3, "1p")
    events.append({"type": "tsumo", "actor": 0, "pai": "5s"})
    for e in events:
        agent.observe(e)
    choice = agent.act(discards_of(POOR, "5s"))
    # 7m is the riichi's own discard; 8p went by before the riichi, from another seat, so
    # only 7m is genbutsu against seat 2. (Without the riichi it throws an honor, below.)
    assert choice["pai"] == "7m", choice


def test_efficiency_without_threat_throws_an_isolated_honor():
    agent = EfficiencyAgent()
    agent.start_game(0)
    events = deal(POOR) + turn(0, "N", drawn="N") + turn(1, "8p") + turn(2, "7m") \
        + turn(3, "1p") + [{"type": "tsumo", "actor": 0, "pai": "5s"}]
    for e in events:
        agent.observe(e)
    choice = agent.act(discards_of(POOR, "5s"))
    assert choice["pai"] in {"S", "W", "N"}, choice


def test_efficiency_pushes_a_tenpai_hand_against_riichi():
    agent = EfficiencyAgent()
    agent.start_game(0)
    tenpai = "123m456p789s1122z"   # 13 tiles: tenpai on E/S shanpon
    events = deal(tenpai) + turn(0, "9p", drawn="9p")
    events += [{"type": "tsumo", "actor": 1, "pai": "?"}, {"type": "reach", "actor": 1},
               {"type": "dahai", "actor": 1, "pai": "N", "tsumogiri": True},
               {"type": "reach_accepted", "actor": 1}]
    events += turn(2, "1s") + turn(3, "2s") + [{"type": "tsumo", "actor": 0, "pai": "C"}]
    for e in events:
        agent.observe(e)
    legal = discards_of(tenpai, "C")
    # Keeping tenpai means throwing the drawn chun (not a tile of the hand).
    assert agent.act(legal)["pai"] == "C"


def test_tsumogiri_agent_only_discards_its_draws():
    result = play_game([TsumogiriAgent(), make_agent("random", seed=1),
                        make_agent("random", seed=2), make_agent("random", seed=3)], 4)
    mine = [e for e in result.events if e.get("actor") == 0 and e["type"] != "tsumo"]
    assert mine and all(e["type"] == "dahai" and e["tsumogiri"] for e in mine)


def test_efficiency_beats_the_baselines():
    ranks = defaultdict(list)
    lineup = ["efficiency", "random", "tsumogiri", "efficiency"]
    for game in range(8):
        names = lineup[game % 4:] + lineup[:game % 4]
        result = play_game([make_agent(n, seed=game) for n in names], 200 + game)
        for name, rank in zip(names, result.ranks):
            ranks[name].append(rank)
    mean = {name: sum(r) / len(r) for name, r in ranks.items()}
    assert mean["efficiency"] < 2.0
    assert mean["random"] > 2.7 and mean["tsumogiri"] > 2.7
