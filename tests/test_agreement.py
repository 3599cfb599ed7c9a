"""``python -m player.agreement``: any agent's agreement with recorded choices.

Oracle: a deterministic agent replaying its own self-play games must agree with every own-turn
choice it made (only calls pre-empted by another seat's ron or call, which the record shows as
passes, can differ); real phoenix games give the expected shape of the report.
"""
from __future__ import annotations

from pathlib import Path
import json

from player.agreement import main
from player.selfplay import main as selfplay_main

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))


def test_an_agent_agrees_with_its_own_games(tmp_path, capsys):
    assert selfplay_main(["--agent", "efficiency", "--games", "3", "--seed", "5", "--out", str(tmp_path),
                          "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["--records", str(tmp_path / "*.mjson.gz"), "--agent", "efficiency", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["own_turn"]["n"] > 100 and out["own_turn"]["agreement"] == 1.0
    assert out["calls"]["n"] > 10 and out["calls"]["agreement"] >= 0.95
    assert out["riichi"]["n"] > 5 and out["riichi"]["agreement"] == 1.0
    assert sum(r["n"] for r in out["own_turn_by_shanten"].values()) == out["own_turn"]["n"]
    facing = out["facing_riichi"]  # its own choices facing a riichi: the same, so as often safe
    assert facing["n"] > 10 and facing["agreement"] == 1.0 and facing["recorded_safe"] == facing["agent_safe"]
    assert sum(r["n"] for r in out["facing_riichi_by_shanten"].values()) == facing["n"]


def test_real_games_and_bad_input(tmp_path, capsys):
    assert main(["--records", PHOENIX[1], "--agent", "efficiency", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 0.3 < out["own_turn"]["agreement"] < 0.9 and out["own_turn"]["n"] > 200
    facing = out["facing_riichi"]
    assert 0 < facing["n"] < out["own_turn"]["n"] and 0 < facing["recorded_safe"] < 1
    assert main(["--records", PHOENIX[1], "--agent", "nobody"]) == 2
    bad = tmp_path / "bad.mjson"
    bad.write_text("garbage\n")
    assert main(["--records", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "bad.mjson" in err[-1]


def test_heldout_takes_only_the_phoenix_games_no_net_saw(capsys):
    """``--heldout``: the 14 games of ``cnn.splits``, by default among the shared phoenix files;
    a set of records with none of them, or no records and no ``--heldout``, is refused."""
    from cnn.splits import HELDOUT_PHOENIX, is_heldout

    assert main(["--heldout", "--agent", "efficiency", "--every", "40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["records"] == len(HELDOUT_PHOENIX) == 14 and out["own_turn"]["n"] > 100
    seen = [p for p in PHOENIX if not is_heldout(Path(p))][:2]
    assert main(["--heldout", "--records", *seen, "--agent", "efficiency"]) == 2
    assert main(["--agent", "efficiency"]) == 2
    assert "held-out" in capsys.readouterr().err
