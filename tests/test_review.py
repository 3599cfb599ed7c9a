"""``player.review``: a real phoenix hanchan reviewed for one seat, its CLI and its HTML page.

Oracles: the record itself (the action each decision's entry calls "recorded" is the seat's
next event in the record), the MDP player playing the same record along (its choice is the
review's best), the definitions of agreement and loss recomputed from the candidates, and
headless Chromium for the page (no console error, a non-blank screenshot).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from game.records import read_events
from game.state import seat_view
from game.tiles import mjai_to_kind
from player.agents.mdp import MdpAgent
from player.analyze import VALUED
from player.review import kyoku_labels, main, review
from player.review_html import html_report
from regressors.estimators import Estimators

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix"
RECORD = DATA / "mjlog" / "gimite__test.xml"
TENHOU6 = sorted((DATA / "tenhou6").glob("*.json"))
EDGE = DATA.parent / "edge_rounds"  # one-hand records: a batch test in seconds


@pytest.fixture(scope="module")
def events():
    return read_events(RECORD)


@pytest.fixture(scope="module")
def reviewed(events):
    return review(events, 1, kyoku={"E1", "E2"}, agent=MdpAgent(estimators=Estimators.default(), hanchan=True))


def _next_own_event(events: list[dict], index: int, seat: int) -> dict:
    """The seat's answer after event ``index``, read from the record: its next action, or a
    pass when the next event is a draw or someone else's action."""
    for e in events[index + 1:]:
        if e.get("type") in ("dora", "reach_accepted"):
            continue
        return e if e.get("actor") == seat and e["type"] != "tsumo" else {"type": "none"}
    return {"type": "none"}


def test_recorded_actions_are_the_records(events, reviewed):
    assert reviewed["name"] == events[0]["names"][1]
    # A label without honba takes every honba of its hand (E2 and its repeat E2-1).
    assert {e["kyoku"] for e in reviewed["decisions"]} == {"E1", "E2", "E2-1"}
    assert len(reviewed["decisions"]) > 15
    for e in reviewed["decisions"]:
        nxt = _next_own_event(events, e["event_index"], 1)
        assert e["recorded"]["type"] == nxt["type"]
        if nxt["type"] == "dahai":
            assert mjai_to_kind(e["recorded"]["pai"]) == mjai_to_kind(nxt["pai"])
        if e["actual"] is not None:
            played = e["actions"][e["actual"]]["action"]
            assert played["type"] == nxt["type"]


def test_agreement_and_loss_follow_the_values(reviewed):
    agreed = []
    for e in reviewed["decisions"]:
        if e["method"] not in VALUED:
            assert e["agree"] is None and e["loss"] is None
            continue
        ranks = [a["expected_rank"] for a in e["actions"]]
        best, actual = e["best"], e["actual"]
        # The best is the least expected rank, or a discard within the player's tie of it.
        assert ranks[best] <= min(r for r in ranks if r is not None) + reviewed["tie"] + 1e-8
        if ranks[actual] is not None:
            assert e["loss"] == pytest.approx(max(0.0, ranks[actual] - ranks[best]), abs=2e-6)
        a, b = e["actions"][actual]["action"], e["actions"][best]["action"]
        same = a["type"] == b["type"] and (a["type"] != "dahai" or mjai_to_kind(a["pai"]) == mjai_to_kind(b["pai"]))
        assert e["agree"] == same
        agreed.append(same)
    assert reviewed["summary"]["agreement"] == pytest.approx(np.mean(agreed), abs=1e-4)
    assert sum(h["valued"] for h in reviewed["hands"]) == reviewed["summary"]["valued"] == len(agreed)


def test_best_is_the_players_choice(events, reviewed):
    agent = MdpAgent(estimators=Estimators.default(), hanchan=True)
    agent.start_game(1)
    by_index = {e["event_index"]: e for e in reviewed["decisions"] if e["best"] is not None}
    fed, checked = 0, 0
    for i in sorted(by_index)[:25]:
        for ev in events[fed:i + 1]:
            agent.observe(seat_view(ev, 1))
        fed = i + 1
        legal = [a["action"] for a in by_index[i]["actions"]]
        choice = agent.act(legal)
        assert choice == legal[by_index[i]["best"]]
        checked += 1
    assert checked >= 20


def test_kyoku_labels_and_filter(events):
    labels = [lab for _, lab in kyoku_labels(events)]
    starts = [e for e in events if e.get("type") == "start_kyoku"]
    assert len(labels) == len(starts) and labels[0] == "E1"
    assert all(lab.startswith(s["bakaze"]) for lab, s in zip(labels, starts))
    assert sum("-" in lab for lab in labels) == sum(s["honba"] > 0 for s in starts)


def test_cli_json_and_text(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main([str(RECORD), "--seat", "2", "--kyoku", "E1", "--out", str(out), "--quiet"]) == 0
    rev = json.loads(out.read_text())
    assert rev["seat"] == 2 and {e["kyoku"] for e in rev["decisions"]} == {"E1"}
    assert main([str(TENHOU6[0]), "--name", read_events(TENHOU6[0])[0]["names"][3], "--kyoku", "E1",
                 "--min-loss", "0.01", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "agreement" in text and "decisions with a loss >= 0.01" in text


def test_batch_agreement_is_player_agreements(capsys):
    from player.agreement import main as agreement_main

    assert agreement_main(["--records", str(RECORD), "--agent", "efficiency", "--json"]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert main(["--agreement", str(RECORD), "--agent", "efficiency", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == direct
    assert direct["riichi"]["n"] > 0 and 0.3 < direct["own_turn"]["agreement"] < 0.9


@pytest.mark.parametrize("argv, says", [
    (["--seat", "7"], "seat 7"),
    (["--name", "nobody"], "no player 'nobody'"),
    (["--seat", "0", "--kyoku", "W9"], "no hand W9"),
    ([], "choose a seat"),
    (["--seat", "0", "--agent", "efficiency"], "values every action"),
])
def test_cli_bad_requests(argv, says, capsys):
    assert main([str(RECORD), *argv, "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and says in err and "\n" not in err


def test_malformed_record_leaves_no_report(tmp_path, capsys):
    events = read_events(RECORD)
    bad = tmp_path / "bad.mjson"
    text = [json.dumps(e) for e in events[:200]]
    text[150] = text[150][:-5]  # a line cut short
    bad.write_text("\n".join(text) + "\n")
    out = tmp_path / "report.html"
    assert main([str(bad), "--seat", "0", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert str(bad) in err and "151" in err and "\n" not in err
    assert not out.exists() and os.listdir(tmp_path) == ["bad.mjson"]
    # An earlier report survives a failed run.
    out.write_text("earlier")
    assert main([str(bad), "--seat", "0", "--out", str(out), "--quiet"]) == 2
    assert out.read_text() == "earlier"
    assert main([str(RECORD), "--seat", "0", "--out", str(tmp_path), "--quiet"]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_batch_review_all_seats(tmp_path, capsys):
    """Two short real records and a broken one, every seat, two workers: one JSON report per
    record and seat equal to the single review's, the index's figures recomputed from them,
    the broken file named on one line, exit 2, no temp file left."""
    records = [EDGE / "confusing_nakis_2.json", EDGE / "confusing_nakis_7.json"]
    bad = tmp_path / "bad.mjson"
    bad.write_text("\n".join(json.dumps(e) for e in read_events(records[0])[:30])[:-3] + "\n")
    out = tmp_path / "reviews"
    assert main([str(records[0]), str(records[1]), str(bad), "--all-seats", "--json", "--workers", "2",
                 "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0] and "line 30" in err[0]
    names = sorted(os.listdir(out))
    assert names == sorted(["index.html", "index.json"] + [f"{r.stem}_seat{s}.json" for r in records for s in range(4)])
    index = json.loads((out / "index.json").read_text())
    assert [f["record"] for f in index["failed"]] == [str(bad)]
    assert [(Path(r["record"]).name, r["seat"]) for r in index["reports"]] == [(r.name, s) for r in records for s in range(4)]
    agreed, losses = [], []
    for row in index["reports"]:
        rev = json.loads((out / row["report"]).read_text())
        valued = [e for e in rev["decisions"] if e["agree"] is not None]
        assert row["valued"] == len(valued) > 0 and row["agreement"] == pytest.approx(np.mean([e["agree"] for e in valued]), abs=1e-4)
        agreed += [e["agree"] for e in valued]
        losses += [e["loss"] for e in valued if e["loss"] is not None]
    assert index["agreement"] == pytest.approx(np.mean(agreed), abs=1e-4)
    assert index["mean_loss"] == pytest.approx(np.mean(losses), abs=1e-4)
    # A report of the batch is the single review of that record and seat.
    single = tmp_path / "single.json"
    assert main([str(records[1]), "--seat", "2", "--out", str(single), "--quiet"]) == 0
    assert json.loads(single.read_text()) == json.loads((out / "confusing_nakis_7_seat2.json").read_text())
    html = (out / "index.html").read_text()
    assert all(f'href="{r["report"]}"' in html for r in index["reports"]) and str(bad) in html


def test_batch_requests(tmp_path, capsys):
    record = str(EDGE / "four_reach.json")
    assert main([record, "--all-seats", "--quiet"]) == 2
    assert "--out DIR" in capsys.readouterr().err
    assert main([record, record, "--out", str(tmp_path), "--quiet"]) == 2
    assert "choose the seats" in capsys.readouterr().err
    assert main([str(EDGE / "nothing*.json"), "--all-seats", "--out", str(tmp_path / "r"), "--quiet"]) == 2
    assert "no record file matches" in capsys.readouterr().err and not (tmp_path / "r").exists()


def test_hand_shows_each_tiles_deal_in(reviewed):
    """At an own-turn decision each hand tile sits over the deal-in chance of discarding it,
    the candidates' number; at a call decision the hand has no such cells."""
    import re

    from player.review_html import DEAL_IN_LEVELS, _card, tile

    own = [e for e in reviewed["decisions"] if any(a["action"]["type"] == "dahai" for a in e["actions"])]
    calls = [e for e in reviewed["decisions"] if not any(a["action"]["type"] == "dahai" for a in e["actions"])]
    assert len(own) > 10 and calls
    levels = set()
    for e in own:
        hand = _card(e, reviewed["names"], 1).split('<div class="river">')[0]
        cells = re.findall(r'<span class="t [^"]*">([^<]+)</span><span class="di d(\d)"[^>]*>([\d.]+)</span>', hand)
        assert len(cells) == len(e["table"]["hand"])
        deal_in = {mjai_to_kind(a["action"]["pai"]): a["deal_in"] for a in e["actions"] if a["action"]["type"] == "dahai"}
        shown = list(e["table"]["hand"])  # the drawn tile last
        if e["table"]["drawn"] in shown:
            shown.remove(e["table"]["drawn"])
            shown.append(e["table"]["drawn"])
        for (label, level, pct), name in zip(cells, shown):
            assert f">{label}<" in tile(name)
            x = deal_in[mjai_to_kind(name)]
            assert float(pct) == pytest.approx(100 * x, abs=0.051)
            assert int(level) == sum(x >= lim for lim in DEAL_IN_LEVELS)
            levels.add(int(level))
    assert len(levels) >= 2  # the colours tell tiles apart
    assert all('class="di' not in _card(e, reviewed["names"], 1) for e in calls)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]


def _screenshot(page: Path, png: Path, profile: Path, width: int = 420) -> list[str]:
    """Render ``page`` in headless Chromium to ``png``; the console lines it logged."""
    run = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},1600",
                          f"--screenshot={png}", page.as_uri()], capture_output=True, text=True, timeout=120)
    return [line for line in run.stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("MAHJONG_REQUIRE_CHROMIUM"),
                    reason="needs Debian's chromium (.ci/run installs it)")
def test_html_report_in_chromium(reviewed, tmp_path):
    import matplotlib.image

    assert CHROMIUM is not None, "MAHJONG_REQUIRE_CHROMIUM is set but chromium is not installed"
    page = tmp_path / "review.html"
    html = html_report({**reviewed, "record": str(RECORD)})
    assert "<script" not in html and "http" not in html.replace("http-equiv", "")  # self-contained
    page.write_text(html)
    png = tmp_path / "review.png"
    assert _screenshot(page, png, tmp_path / "profile") == []
    img = matplotlib.image.imread(str(png))
    assert img.shape[1] == 420 and img[..., :3].std() > 0.05  # drawn, not blank
    # The console check sees errors: a page that throws is caught.
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body>x<script>undefinedFunction()</script></body></html>")
    assert any("undefinedFunction" in line for line in _screenshot(broken, tmp_path / "b.png", tmp_path / "p2"))
