"""The hybrid agent: a base agent whose chosen kinds of decision a teacher takes."""
from __future__ import annotations

import pytest

from game.errors import MahjongError
from game.match import play_game
from game.state import TableState
from player.agents.efficiency import RIICHI_MIN_LEFT, EfficiencyAgent
from player.agents.hybrid import HybridAgent, decision_kind
from player.registry import make_agent, model_files


class Watched(HybridAgent):
    """Keeps every (legal, answer, tiles left) of its decisions."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def act(self, legal):
        answer = super().act(legal)
        self.seen.append((legal, answer, self.state.tiles_left))
        return answer


def test_a_hybrid_without_kinds_plays_its_base_games():
    for seed in (3, 4):
        alone = play_game([EfficiencyAgent() for _ in range(4)], seed)
        hybrid = Watched(base="efficiency", teacher="cnn-bot")
        mixed = play_game([hybrid, *(EfficiencyAgent() for _ in range(3))], seed)
        assert mixed.scores == alone.scores
        assert [e for e in mixed.events if e["type"] != "start_game"] == \
            [e for e in alone.events if e["type"] != "start_game"]
        assert set(hybrid.stats) == {"decisions", "base"}
        assert hybrid.stats["decisions"] == hybrid.stats["base"] == len(hybrid.seen)


def test_the_teacher_takes_every_riichi_choice_and_its_discard():
    # efficiency (the teacher here) declares whenever 6+ draws are left; cnn-bot alone
    # declines some: every offer must end in the teacher's answer.
    offers = declared = 0
    for seed in range(8):
        hybrid = Watched(base="cnn-bot", teacher="efficiency", riichi=1)
        result = play_game([hybrid, *(EfficiencyAgent() for _ in range(3))], seed)
        game_offers = game_declared = 0
        for (legal, answer, left), nxt in zip(hybrid.seen, hybrid.seen[1:] + [None]):
            types = {a["type"] for a in legal}
            if "reach" in types and "hora" not in types:
                game_offers += 1
                assert (answer["type"] == "reach") == (left >= RIICHI_MIN_LEFT)
            if answer["type"] == "reach":
                game_declared += 1
                assert nxt is not None and nxt[1]["type"] == "dahai"
        reaches = sum(e["type"] == "reach" and e["actor"] == 0 for e in result.events)
        assert reaches == game_declared
        assert hybrid.stats["teacher_riichi"] == game_offers + game_declared
        assert hybrid.stats["decisions"] == len(hybrid.seen) == hybrid.stats["base"] + hybrid.stats["teacher_riichi"]
        offers, declared = offers + game_offers, declared + game_declared
    assert offers >= 5 and declared >= 5


def test_decision_kinds():
    state = TableState(0)
    state.update({"type": "start_game", "names": ["a", "b", "c", "d"]})
    dahai = [{"type": "dahai", "actor": 0, "pai": "1m", "tsumogiri": False}]
    assert decision_kind(dahai, state, 0) == "discard"
    assert decision_kind([{"type": "pon", "actor": 0}, {"type": "none"}], state, 0) == "call"
    assert decision_kind([{"type": "hora", "actor": 0}, *dahai], state, 0) is None
    assert decision_kind([{"type": "daiminkan", "actor": 0}, {"type": "none"}], state, 0) is None
    state.riichi[2] = True
    assert decision_kind(dahai, state, 0) == "facing"
    state.riichi[0] = True
    assert decision_kind(dahai, state, 0) is None


def test_hybrid_options_are_checked_and_its_model_files_are_its_agents():
    with pytest.raises(MahjongError):
        make_agent("hybrid:base=cnn-bot:riichi=0.5")
    assert model_files("hybrid:base=efficiency,teacher=cnn-bot") == model_files("cnn-bot")
    assert set(model_files("hybrid")) == set(model_files("cnn-bot")) | set(model_files("mdp"))
