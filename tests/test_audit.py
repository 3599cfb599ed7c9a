"""The rollout audit (player/audit.py) and the engine's fork it stands on.

The fork is checked against plain play of the same seed (the engine's walls and the
deterministic agents repeat exactly); the audit's chosen branch against the game itself;
its statistics against hand computations.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from game.engine import EngineGame
from game.match import play_game
from player import audit
from player.agents.efficiency import EfficiencyAgent


def _play(game, agents, steps=None):
    """Play ``game`` on (``steps`` steps or to the end); the last pending list is returned."""
    n = 0
    while not game.done and (steps is None or n < steps):
        pending = game.pending()
        for p in pending:
            for e in p.events:
                agents[p.seat].observe(e)
        chosen = {p.seat: p.engine_actions[p.legal.index(agents[p.seat].act(p.legal))] for p in pending}
        game.step(chosen)
        n += 1
    if game.done:
        for s, a in enumerate(agents):
            for e in game.final_events(s):
                a.observe(e)
    return game.scores()


def _agents():
    agents = [EfficiencyAgent() for _ in range(4)]
    for s, a in enumerate(agents):
        a.start_game(s)
    return agents


def test_a_fork_plays_on_as_the_game_and_leaves_it_untouched():
    seed = 20261127
    whole = play_game(_agents(), seed)
    game, agents = EngineGame(seed, names=whole.names), _agents()
    _play(game, agents, steps=150)
    twin, twin_agents = game.fork(), [audit.fork_agent(a) for a in agents]
    # the fork, played with other choices first (always the last legal action for 20 steps)
    for _ in range(20):
        pending = twin.pending()
        for p in pending:
            for e in p.events:
                twin_agents[p.seat].observe(e)
        twin.step({p.seat: p.engine_actions[-1] for p in pending})
    # ... does not change the game, which ends as the unforked one did
    assert _play(game, agents) == whole.scores
    assert game.log == whole.events
    # and a fork played with the same choices ends the same way too
    game2, agents2 = EngineGame(seed, names=whole.names), _agents()
    _play(game2, agents2, steps=150)
    assert _play(game2.fork(), [audit.fork_agent(a) for a in agents2]) == whole.scores


def test_fork_agent_shares_models_and_copies_the_table():
    from player.registry import make_agent

    mdp = make_agent("mdp")
    mdp.start_game(1)
    twin = audit.fork_agent(mdp)
    assert twin.est is mdp.est and twin._scenarios is mdp._scenarios
    assert twin.state is not mdp.state and twin.fallback is not mdp.fallback
    assert twin.state.seat == 1


def test_audit_of_a_game_rows_and_the_chosen_branch_is_the_game(tmp_path):
    rows_by_game = audit.audit("mdp", "efficiency", 1, tmp_path / "a", seed=7, every=3, workers=1, verify=True)
    rows = audit.read_rows(tmp_path / "a" / audit.AUDIT)
    assert rows and rows_by_game["rows"] == len(rows)
    assert {r["kind"] for r in rows} <= set(audit.KINDS)
    for r in rows:
        # agents are deterministic: the fork that replays the chosen action ends the hand as the game did
        assert r["verify_value"] == pytest.approx(r["chosen_value"], abs=1e-12)
        assert r["verify_points"] == r["chosen_points"]
        assert r["alt"] != r["chosen"]
        assert -4.0 <= r["alt_value"] <= -1.0 and -4.0 <= r["chosen_value"] <= -1.0
        if r["kind"] == "riichi":
            assert (r["chosen"]["type"] == "reach") == (r["label"] == "declared")
            assert (r["alt"]["type"] == "reach") == (r["label"] == "dama")
        if r["kind"] == "call":
            assert (r["alt"]["type"] == "none") == (r["label"] == "called")
    assert all(g.get("verify_mismatch", 0) == 0 for g in rows_by_game["groups"])
    assert [json.loads(line)["game"] for line in (tmp_path / "a" / audit.GAMES).read_text().splitlines()] == [0]


class _Valued:
    def __init__(self, values):
        self.last_values = values


def _dahai(pai):
    return {"type": "dahai", "actor": 0, "pai": pai, "tsumogiri": False}


def test_alternatives_flip_riichi_and_calls_to_the_best_valued_other():
    d1, d2, reach = _dahai("1m"), _dahai("9p"), {"type": "reach", "actor": 0}
    agent = _Valued([(d1, -2.5), (d2, -2.4), (reach, -2.3)])
    assert audit.alternative("riichi", agent, None, [d1, d2, reach], reach) == ("declared", d2)
    assert audit.alternative("riichi", agent, None, [d1, d2, reach], d2) == ("dama", reach)
    pon = {"type": "pon", "actor": 0, "target": 3, "pai": "E", "consumed": ["E", "E"]}
    chi = {"type": "chi", "actor": 0, "target": 3, "pai": "3m", "consumed": ["4m", "5m"]}
    none = {"type": "none"}
    agent = _Valued([(pon, -2.6), (chi, -2.55), (none, -2.5)])
    assert audit.alternative("call", agent, None, [pon, chi, none], none) == ("passed", chi)
    assert audit.alternative("call", agent, None, [pon, chi, none], pon) == ("called", none)
    # a discard: the best-valued discard of another kind
    d3 = _dahai("9p")
    agent = _Valued([(d1, -2.5), (d2, -2.4), (_dahai("5s"), -2.45)])
    assert audit.alternative("discard", agent, None, [d1, d2, _dahai("5s")], d2) == ("runner_up", _dahai("5s"))
    assert audit.alternative("discard", _Valued([]), None, [d1, d3], d3) is None  # nothing valued


def _row(game, rnd, d, pred=None, kind="facing", label="pushed"):
    return {"game": game, "round": rnd, "honba": 0, "kind": kind, "label": label, "alt_value": -2.0 + d,
            "chosen_value": -2.0, "pred_alt": None if pred is None else -2.0 + pred,
            "pred_chosen": None if pred is None else -2.0, "shanten": 1, "tiles_left": 40,
            "scores": [25000] * 4, "seat": 0}


def test_summary_clusters_the_rows_of_a_hand_and_fits_the_slope():
    ds = [0.1, 0.3, -0.2, 0.0, 0.4]
    hands = [(0, 0), (0, 0), (0, 1), (1, 0), (1, 0)]
    rows = [_row(g, r, d, pred=d / 2) for (g, r), d in zip(hands, ds)]
    (g,) = audit.summarize(rows, games=2)["groups"]
    x = np.array(ds)
    sums = [0.1 + 0.3 - 2 * x.mean(), -0.2 - x.mean(), 0.0 + 0.4 - 2 * x.mean()]  # per hand, centred
    assert g["n"] == 5 and g["per_game"] == 2.5
    assert g["gain_alt"] == pytest.approx(x.mean())
    assert g["se"] == pytest.approx(math.sqrt(sum(s * s for s in sums) * 3 / 2) / 5)
    assert g["slope"] == pytest.approx(2.0)  # realised = 2 x predicted
    assert g["alt_better"] == pytest.approx(3 / 5) and g["alt_worse"] == pytest.approx(1 / 5)
    split = audit.summarize(rows, games=2, by=["shanten", "tiles"])["groups"]
    assert [(s["shanten"], s["tiles"], s["n"]) for s in split] == [("1", "30+", 5)]


@pytest.mark.parametrize("args, message", [
    (["--summary", "{tmp}/missing.jsonl"], "no such file"),
    (["--summary", "{tmp}/bad.jsonl"], "bad.jsonl:2"),
    (["--summary", "{tmp}/good.jsonl", "--by", "colour"], "unknown field"),
    (["--out", "{tmp}/good.jsonl", "--games", "1"], "is a file"),
    (["--player", "efficiency", "--out", "{tmp}/x", "--games", "1"], "try --alt"),
    (["--out", "{tmp}/y", "--games", "0"], "must be >= 1"),
    (["--summary", "{tmp}/good.jsonl", "--bins", "-1"], "--bins must be"),
    (["--summary", "{tmp}/good.jsonl", "--plot", "{tmp}"], "is a directory"),
])
def test_bad_input_exits_2_naming_it(tmp_path, capsys, args, message):
    (tmp_path / "bad.jsonl").write_text(json.dumps(_row(0, 0, 0.1)) + "\n{not json\n")
    (tmp_path / "good.jsonl").write_text(json.dumps(_row(0, 0, 0.1)) + "\n")
    rc = audit.main([a.format(tmp=tmp_path) for a in args])
    assert rc == 2
    assert message in capsys.readouterr().err
    assert (tmp_path / "good.jsonl").read_text().count("\n") == 1  # nothing already written is lost


def test_alt_agents_rows_only_where_they_differ(tmp_path):
    summary = audit.audit("mdp", "efficiency", 1, tmp_path / "b", seed=11, workers=1,
                          alt=["mdp", "efficiency"])
    rows = audit.read_rows(tmp_path / "b" / audit.AUDIT)
    # a shadow of the player itself never differs; the rule-based agent does
    assert not [r for r in rows if r["alt_agent"] == "mdp"]
    eff = [r for r in rows if r["alt_agent"] == "efficiency"]
    assert eff and all(r["alt"] != r["chosen"] and r["label"] == "differs" for r in eff)
    (total,) = summary["totals"]
    assert total["alt"] == "efficiency" and total["rows"] == len(eff) and total["games"] == 1
    assert total["gain_per_game"] == pytest.approx(sum(r["alt_value"] - r["chosen_value"] for r in eff))
    # the same folder with other alternatives is another audit
    with pytest.raises(audit.MahjongError, match="another audit"):
        audit.audit("mdp", "efficiency", 1, tmp_path / "b", seed=11, workers=1, alt=["efficiency"])


def test_totals_count_games_without_rows_as_zero():
    rows = [{**_row(0, 0, 0.2), "alt_agent": "x"}, {**_row(0, 1, -0.1), "alt_agent": "x"},
            {**_row(2, 0, 0.4), "alt_agent": "x"}]
    (t,) = audit._totals(rows, games=4)
    sums = np.array([0.1, 0.4, 0.0, 0.0])
    assert t["gain_per_game"] == pytest.approx(sums.mean())
    assert t["se"] == pytest.approx(sums.std(ddof=1) / 2)


def test_value_bins_split_by_predicted_difference():
    rows = [_row(g, 0, d, pred=d) for g, d in enumerate([0.05, -0.3, 0.1, -0.1, 0.0, 0.2])]
    bins = audit.value_bins(rows, n_bins=3)
    assert [b["n"] for b in bins] == [2, 2, 2]
    assert [b["pred_lo"] for b in bins] == pytest.approx([-0.3, 0.0, 0.1])
    for b in bins:  # realised equals predicted row by row here
        assert b["realised"] == pytest.approx(b["predicted"])


def test_the_bins_plot_is_a_png(tmp_path):
    rows = [_row(g, 0, d, pred=d, kind=k) for g, d in enumerate([0.05, -0.3, 0.1, -0.1]) for k in ("facing", "call")]
    path = audit.plot_bins(audit.value_bins(rows, n_bins=2), tmp_path / "fig" / "bins.png")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_any_agent_with_a_table_can_be_audited_against_another(tmp_path):
    # efficiency keeps no values: rows carry no prediction, the rank model is the shipped one
    summary = audit.audit("efficiency", "tsumogiri", 1, tmp_path / "c", seed=5, workers=1, alt=["tsumogiri"])
    rows = audit.read_rows(tmp_path / "c" / audit.AUDIT)
    assert rows and all(r["pred_alt"] is None and r["method"] is None for r in rows)
    assert all(r["alt"]["type"] == "dahai" and r["alt"]["tsumogiri"] for r in rows if r["kind"] == "discard")
    assert summary["totals"][0]["rows"] == len(rows)
