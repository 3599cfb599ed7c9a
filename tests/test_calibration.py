"""``python -m player.calibration``: predicted vs realised endings of recorded decisions.

Oracles: Tenhou's own noten payments (who was tenpai at an exhaustive draw) and ``hora``
events of the phoenix records for the realised endings; the engine-checked table state for
the decisions; a malformed record must give the project's one-line error and exit 2.
"""
from __future__ import annotations

from pathlib import Path
import json

import numpy as np
import pytest

from game.records import read_events
from player.calibration import ENDINGS, Row, gap_se, main, realised_endings, summarize

PHOENIX = sorted(str(p) for p in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
                                   / "mjlog").glob("*.xml"))


def test_realised_endings_agree_with_tenhous_payments():
    checked = 0
    for path in PHOENIX[:12]:
        events = read_events(path)
        ends = realised_endings(events)
        start = -1
        for i, e in enumerate(events):
            if e["type"] == "start_kyoku":
                start = i
            elif e["type"] == "ryukyoku" and e.get("reason") == "exhaustive" and any(e["deltas"]):
                for s in range(4):
                    want = "tenpai_washout" if e["deltas"][s] > 0 else "noten_washout"
                    assert ENDINGS[ends[(start, s)]] == want
                    checked += 1
            elif e["type"] == "hora":
                w, t = e["actor"], e["target"]
                assert ENDINGS[ends[(start, w)]] == "win"
                if t != w:
                    assert ENDINGS[ends[(start, t)]] in ("lose", "win")  # double ron: a winner paid nobody
    assert checked >= 40


def test_a_planned_fold_is_predicted_as_it_ends():
    """A phoenix decision where PSM plans to fold (seat 3 before its 2s, event 82 of
    gimite__test.xml): the calibration's agent (``split_fold``) gives the same values and shows
    that fold as the fold's own endings, so win and tenpai washout stay and the fold's share
    goes to lose, another's win and noten."""
    from game.decisions import iter_decisions
    from player.registry import make_agent

    path = next(p for p in PHOENIX if p.endswith("gimite__test.xml"))
    d = next(d for d in iter_decisions(read_events(path), seats=[3]) if d.index == 82)
    plain = make_agent("mdp").value(d.state, d.legal)
    split_agent = make_agent("mdp")
    split_agent.split_fold = True
    split = split_agent.value(d.state, d.legal)
    fold = ENDINGS.index("noten_washout") + 1
    assert max(e[fold] for _, _, e in plain if e is not None) > 0.1
    for (a, v, e), (b, w, f) in zip(plain, split):
        assert a == b and v == w
        if e is None:
            continue
        assert len(f) == len(e) and f[fold:].sum() == 0.0 and f.sum() == pytest.approx(1.0, abs=1e-9)
        for o in ("win", "tenpai_washout"):
            assert f[ENDINGS.index(o)] == pytest.approx(e[ENDINGS.index(o)], abs=1e-9)
        for o in ("lose", "other_win", "noten_washout"):
            assert f[ENDINGS.index(o)] >= e[ENDINGS.index(o)] - 1e-9
        assert f[:fold].sum() - e[:fold].sum() == pytest.approx(e[fold], abs=1e-9)


def test_cli_on_a_real_game(tmp_path, capsys):
    png = tmp_path / "rel.png"
    rc = main(["--records", PHOENIX[1], "--every", "6", "--json", "--plot", str(png)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    n = out["decisions"]
    assert n > 20 and out["records"] == 1
    assert sum(c["n"] for c in out["by_shanten"].values()) == n
    assert sum(c["n"] for c in out["cells"].values()) == n
    pred = out["overall"]["predicted"]
    real = out["overall"]["realised"]
    assert sum(pred.values()) == pytest.approx(1.0, abs=1e-3) and sum(real.values()) == pytest.approx(1.0, abs=1e-3)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    facing = sum(c["n"] for c in out["facing_riichi"].values())
    assert 0 < facing < n  # the game has riichi declarations, and hands before them
    offer = out["riichi_on_offer"]
    assert 0 < offer["declared"]["n"] + offer["dama"]["n"] <= out["by_shanten"]["0"]["n"]


def test_cell_values_only_its_decisions(capsys):
    """``--cell 1/45-59``: the same rows of that cell as a run over every decision, no other."""
    assert main(["--records", PHOENIX[1], "--json"]) == 0
    full = json.loads(capsys.readouterr().out)["cells"]["1/45-59"]
    assert main(["--records", PHOENIX[1], "--json", "--cell", "1/45-59"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert full["n"] > 10 and out["decisions"] == full["n"] and list(out["cells"]) == ["1/45-59"]
    assert out["cells"]["1/45-59"]["predicted"] == full["predicted"]
    for bad in ("1/45-60", "x/45-59", "145-59"):
        assert main(["--records", PHOENIX[1], "--cell", bad]) == 2
    assert "want SHANTEN/TILES" in capsys.readouterr().err


def test_facing_riichi_cells_take_only_those_decisions():
    """The facing-riichi rows by shanten: their own decisions' means, apart from the others."""
    one = np.eye(len(ENDINGS))
    rows = [Row("f", 0, 1, 40, one[0], 0, False), Row("f", 0, 1, 30, one[1], 1, True),
            Row("f", 0, 1, 20, 0.5 * (one[1] + one[2]), 2, True), Row("f", 0, 2, 50, one[3], 3, True)]
    out = summarize(rows)
    f1, f2 = out["facing_riichi"]["1"], out["facing_riichi"]["2"]
    assert f1["n"] == 2 and f2["n"] == 1 and out["by_shanten"]["1"]["n"] == 3
    assert f1["predicted"]["lose"] == 0.75 and f1["predicted"]["other_win"] == 0.25
    assert f1["realised"]["lose"] == 0.5 and f1["realised"]["other_win"] == 0.5 and f1["max_gap"] == 0.25
    assert out["riichi_on_offer"] == {"declared": {"n": 0}, "dama": {"n": 0}}


def test_riichi_on_offer_rows_split_by_the_choice():
    """Where riichi was on offer the rows split by the recorded choice, each its own means;
    the rows where it was not on offer stay out of both."""
    one = np.eye(len(ENDINGS))
    rows = [Row("f", 0, 0, 40, one[0], 0, declared=True), Row("f", 0, 0, 35, one[1], 1, declared=True),
            Row("f", 0, 0, 30, one[2], 0, declared=False), Row("f", 0, 0, 25, one[3], 3)]
    out = summarize(rows)["riichi_on_offer"]
    dec, dama = out["declared"], out["dama"]
    assert dec["n"] == 2 and dama["n"] == 1
    assert dec["predicted"]["win"] == 0.5 and dec["predicted"]["lose"] == 0.5 and dec["max_gap"] == 0.0
    assert dama["predicted"]["other_win"] == 1.0 and dama["realised"]["win"] == 1.0 and dama["max_gap"] == 1.0


def test_cli_bad_inputs_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.mjson"
    bad.write_text('{"type": "start_game"}\nnot json\n')
    assert main(["--records", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.mjson" in err[0]
    assert main(["--records", str(tmp_path / "none*.xml")]) == 2
    assert main(["--records", PHOENIX[1], "--every", "0"]) == 2
    assert main(["--records", PHOENIX[1], "--agent", "efficiency"]) == 2
    capsys.readouterr()
    # evaluate names a seat by its agent's spec: a bare name that matches no seat is an error
    names = read_events(PHOENIX[1])[0]["names"]
    assert main(["--records", PHOENIX[1], "--name", "mdp:projected_deal_in=1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'mdp:projected_deal_in=1' is no player" in err[0] and names[0] in err[0]


def test_gap_se_takes_a_hands_decisions_as_one_cluster():
    """Two hands of two decisions each, both predicting a win at 0.5: one hand won, the other
    dealt in. The win gap is 0; by hands its SE is sqrt(2 * 2 * (1^2 + 1^2)) / 4 = 0.5 (two
    clusters whose gaps sum to -1 and +1), where four independent decisions would give 0.29."""
    p = np.zeros(len(ENDINGS))
    p[0] = p[1] = 0.5
    rows = [Row("f", 0, 1, 40, p, 0, hand=3), Row("f", 0, 1, 39, p, 0, hand=3),
            Row("f", 0, 1, 40, p, 1, hand=90), Row("f", 0, 1, 39, p, 1, hand=90)]
    se = gap_se(rows)
    assert se[0] == pytest.approx(0.5) and se[1] == pytest.approx(0.5) and se[2] == 0.0
    c = summarize(rows)["by_shanten"]["1"]
    assert c["hands"] == 2 and c["max_gap"] == 0.0 and c["clearly_off"] is False
    # the same seat in another record is another hand: three clusters summing -0.5, -0.5, +1,
    # sqrt(3/2 * 1.5) / 4 = 0.375
    assert gap_se([Row("g", 0, 1, 40, p, 0, hand=3), *rows[1:]])[0] == pytest.approx(0.375)


def test_a_cell_is_clearly_off_only_past_the_tolerance_and_two_se():
    """300 decisions of one hand each: predicted win 0.2, realised 0.5. The gap 0.3 is six
    of its SEs (about 0.029) past 0.05: clearly off; a gap of 0.06 with those SEs is not."""
    p = np.zeros(len(ENDINGS))
    p[0], p[2] = 0.2, 0.8
    rows = [Row("f", 0, 2, 50, p, 0 if i % 2 else 2, hand=i) for i in range(300)]
    c = summarize(rows)["cells"]["2/45-59"]
    assert c["judged"] and c["max_gap"] == pytest.approx(0.3) and c["clearly_off"] is True
    assert gap_se(rows)[0] == pytest.approx(np.sqrt(300 / 299 * 300 * 0.25) / 300, rel=1e-9)
    assert c["max_gap_se"] == pytest.approx(0.0289, abs=1e-4)
    q = p.copy()
    q[0], q[2] = 0.44, 0.56
    near = summarize([Row(r.file, 0, 2, 50, q, r.realised, hand=r.hand) for r in rows])["cells"]["2/45-59"]
    assert near["max_gap"] == pytest.approx(0.06) and near["max_gap"] > 0.05 and near["clearly_off"] is False
