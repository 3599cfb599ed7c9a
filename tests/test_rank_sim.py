"""Eq. 1 by playouts of recorded hands (``regressors.rank_sim``): the playout rules against real
games (Tenhou's phoenix hanchan, the engine's east-only games), the model's distributions, the
agent's option and the command line."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from game.errors import ModelFileError
from game.match import play_game
from game.records import read_events
from player.agents.efficiency import EfficiencyAgent
from regressors.final_rank import FinalRankModel
from regressors.rank_sim import HandOutcomes, SimRankModel, _game_outcomes, main, play_hands, start_rows

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                  / "mjlog").glob("*.xml"))


def _final_scores(events: list[dict]) -> np.ndarray:
    """The scores after the last hand, from its start, its riichi sticks and its payments."""
    last = max(i for i, e in enumerate(events) if e.get("type") == "start_kyoku")
    sc = np.asarray(events[last]["scores"], dtype=float)
    for e in events[last:]:
        if e.get("type") == "reach_accepted":
            sc[int(e["actor"])] -= 1000
        elif e.get("type") in ("hora", "ryukyoku"):
            sc += np.asarray(e["deltas"], dtype=float)
    return sc


def _replays_every_start(events: list[dict], hanchan: bool) -> int:
    """From every hand start, the record's own later hands played in order end the game where
    and as it ended: the same scores, and no hand after the last (a poison outcome follows)."""
    rows = _game_outcomes(events)
    starts = [e for e in events if e.get("type") == "start_kyoku"]
    assert len(rows) == len(starts)
    o = HandOutcomes(*map(np.array, zip(*rows)))
    poison = len(o)  # a hand that would give seat 1 of the dealer 100,000 points
    base = np.vstack([o.base, [[0, 100_000, 0, 0]]])
    win, pay = np.append(o.winner, 1), np.append(o.payer, -1)
    ren, st = np.append(o.renchan, False), np.append(o.sticks, 0)
    final = _final_scores(events)
    for h, e in enumerate(starts):
        sc = np.asarray(e["scores"], dtype=float)
        seq = np.array(list(range(h, len(rows))) + [poison] * 3, dtype=np.int64)
        over = play_hands(sc, "ESWN".index(e["bakaze"]), e["kyoku"] - 1, e["oya"], e["honba"], e["kyotaku"],
                          8 if hanchan else 4, base, win, pay, ren, st, seq)
        assert over, (h, e)
        np.testing.assert_array_equal(sc, final, err_msg=f"from hand {h} of {len(starts)}")
    return len(starts)


def test_playouts_of_the_phoenix_games_end_as_they_ended():
    assert sum(_replays_every_start(read_events(p), hanchan=True) for p in PHOENIX) > 300


def test_playouts_of_engine_games_end_as_they_ended():
    hands = 0
    for seed in range(6):
        res = play_game([EfficiencyAgent() for _ in range(4)], seed=7000 + seed)
        hands += _replays_every_start(res.events, hanchan=False)
        assert [int(r) + 1 for r in start_rows(res.events)[0][-1]] == res.ranks
    assert hands >= 24


def test_an_outcome_keeps_the_points_on_the_table():
    """A win moves points between the seats (this hand's sticks to the winner, earlier ones
    taken out); a drawn hand leaves its riichi sticks on the table."""
    o = HandOutcomes.from_events(read_events(p) for p in PHOENIX)
    total = o.base.sum(1)
    np.testing.assert_array_equal(total[o.winner >= 0], 0)
    np.testing.assert_array_equal(total[o.winner < 0], -1000 * o.sticks[o.winner < 0])
    assert (o.winner < 0).any() and (o.payer[o.winner >= 0] < 0).any() and (o.payer >= 0).any()


def test_every_playout_gives_each_rank_once():
    o = HandOutcomes.from_events(read_events(p) for p in PHOENIX[:10])
    m = SimRankModel(o, n_sims=300, seed=1)
    S = np.array([[25000, 25000, 25000, 25000], [42000, 30000, 18000, 10000], [8000, 31000, 30000, 31000]])
    P = m.rank_probs_batch(S, 0, 3, 3, 1, 2)
    np.testing.assert_allclose(P.sum(2), 1.0)
    np.testing.assert_allclose(P.sum(1), 1.0)
    assert P[1, 0, 0] > P[1, 3, 0] and P[1, 3, 3] > P[1, 0, 3]  # the leader before the last hand
    # a finished game: the exact ranks
    np.testing.assert_array_equal(m.rank_probs([1000, 40000, 30000, 29000], 0, 3, 3, game_over=True).argmax(1),
                                  [3, 0, 1, 2])


def _one_by_one(m: SimRankModel, scores: np.ndarray, start: tuple) -> tuple[np.ndarray, int]:
    """The rank counts of every playout, each played by ``play_hands`` (the rules the record
    replays above check), and the playouts it leaves unfinished."""
    o, out, cut = m.outcomes, np.zeros((len(scores), 4, 4)), 0
    for r, row in enumerate(scores):
        for seq in m.seq:
            sc = row.astype(float)
            cut += not play_hands(sc, *start, o.base, o.winner, o.payer, o.renchan, o.sticks, seq)
            for k in range(4):
                out[r, k, sum(sc[q] > sc[k] or (sc[q] == sc[k] and q < k) for q in range(4))] += 1
    return out, cut


@pytest.mark.parametrize("start", [(0, 0, 0, 0, 0, 4), (0, 2, 1, 2, 1, 4), (0, 3, 3, 1, 2, 4), (1, 1, 0, 0, 0, 4),
                                   (0, 1, 1, 0, 0, 8), (1, 3, 3, 3, 1, 8), (2, 0, 0, 1, 0, 8)])
def test_the_batch_plays_the_same_games_as_play_hands(start):
    """``rank_probs_batch`` lays the hands out once and checks the scores only where the game
    may end: the same final ranks, playout by playout, as ``play_hands`` played one at a time,
    from rows near every end (a seat near zero, the all-last 30,000, ties)."""
    o = HandOutcomes.from_events(read_events(p) for p in PHOENIX[:10])
    m = SimRankModel(o, n_sims=150, max_hands=6, seed=3)
    rng = np.random.default_rng(sum(start))
    S = np.vstack([[[1000, 30000, 29000, 40000], [30000, 30000, 20000, 20000], [300, 300, 49700, 49700]],
                   rng.integers(0, 600, size=(12, 4)) * 100])
    want, cut = _one_by_one(m, S, start)
    np.testing.assert_array_equal(m.rank_probs_batch(S, *start[:5], hanchan=start[5] == 8), want / m.n_sims)
    assert m.truncated == cut


def test_the_agent_plays_with_a_playout_model(tmp_path):
    from player.agents.mdp import MdpAgent

    path = tmp_path / "rank.json"
    assert main(["--records", *PHOENIX[:4], "--out", str(path), "--sims", "200"]) == 0
    agent = MdpAgent(rank_file=str(path))
    assert isinstance(agent.est.final_rank, SimRankModel)
    res = play_game([agent, EfficiencyAgent(), EfficiencyAgent(), EfficiencyAgent()], seed=11)
    assert sorted(res.ranks) == [1, 2, 3, 4] and agent.est.final_rank.playouts > 0
    with pytest.raises(ModelFileError, match="missing"):
        MdpAgent(rank_file=str(tmp_path / "none.json"))
    # the default plays the shipped playouts; ``estimators``: the logistic regression
    assert isinstance(MdpAgent().est.final_rank, SimRankModel)
    assert isinstance(MdpAgent(rank_file="estimators").est.final_rank, FinalRankModel)


def test_the_command_reports_bad_input(tmp_path, capsys):
    assert main(["--records", str(tmp_path / "no*.xml"), "--out", str(tmp_path / "r.json")]) == 2
    assert main(["--records", PHOENIX[0], "--out", str(tmp_path)]) == 2
    assert "directory" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "rank_sim", "format_version": 1}))
    with pytest.raises(ModelFileError, match="bad.json"):
        SimRankModel.load(bad)
