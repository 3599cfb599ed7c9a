"""``player.analyze``: every legal action of a recorded situation, valued by the MDP player.

Oracle: the player itself, fed the same record up to the same decision, must choose the
action that analyze ranks best, with the same values (one code path).
"""
from __future__ import annotations

from pathlib import Path
import json

import pytest

from game.decisions import iter_decisions
from game.errors import MahjongError
from game.records import read_events
from game.state import seat_view
from player.agents.mdp import MdpAgent
from player.analyze import VALUED, analyze
from regressors.estimators import Estimators

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))


@pytest.fixture(scope="module")
def record():
    return read_events(PHOENIX[2])


def test_analyze_equals_the_players_own_decision(record):
    est = Estimators.default()
    seat = 1
    decisions = list(iter_decisions(record, seats=[seat]))
    agent = MdpAgent(estimators=est, hanchan=True)
    agent.start_game(seat)
    fed, checked = 0, 0
    for k, d in enumerate(decisions[:60]):
        res = analyze(record, seat, decision=k, agent=MdpAgent(estimators=est, hanchan=True))
        json.dumps(res)  # plain data
        for e in record[fed:d.index + 1]:
            agent.observe(seat_view(e, seat))
        fed = d.index + 1
        choice = agent.act(d.legal)
        if res["method"] not in VALUED:
            continue
        assert res["actions"][res["best"]]["action"] == choice
        assert [a["value"] for a in res["actions"]] == [v for _, v in agent.last_values]
        for a in res["actions"]:
            assert (a["deal_in"] is None) == (a["action"]["type"] != "dahai")
            if a["endings"] is not None:
                assert sum(a["endings"].values()) == pytest.approx(1.0, abs=1e-9)
                assert a["expected_rank"] == pytest.approx(-a["value"])
        checked += 1
    assert checked > 20


def test_bad_requests(record):
    with pytest.raises(MahjongError):
        analyze(record, 5)
    with pytest.raises(MahjongError):
        analyze(record, 0, decision=10_000)


def test_root_only_solves_give_the_full_solves_root_values(record, monkeypatch):
    """The player solves only the (state, turn) pairs its root reads (``root_only``): every
    root value and ending of a real record's decisions equals the full solve's, bit for bit."""
    import numpy as np

    import player.agents.mdp as mdp
    from abstractions import solve_psm

    seen = {"own": 0, "call": 0, "skipped": 0}

    def both(graph, params, **kw):
        full = solve_psm(graph, params, **kw)
        part = solve_psm(graph, params, root_only=True, **{k: v for k, v in kw.items() if k != "root_only"})
        for key in ("discards", "riichi", "calls", "tsumo", "stay", "pass_"):
            assert getattr(part, key) == getattr(full, key), key
        assert part.probs.keys() == full.probs.keys()
        for key, pr in full.probs.items():
            assert np.array_equal(part.probs[key], pr), key
        seen["own" if len(graph.root_discards) else "call"] += 1
        seen["skipped"] += int(np.isnan(part.VF).sum())
        return part

    monkeypatch.setattr(mdp, "solve_psm", both)
    agent = MdpAgent(estimators=Estimators.default(), hanchan=True, method2=False)  # PSM at every shanten
    for d in list(iter_decisions(record, seats=[2]))[:40]:
        agent.value(d.state, d.legal)
    assert seen["own"] > 20 and seen["call"] >= 3 and seen["skipped"] > 0
