"""Evaluation statistics (player/stats.py) and the evaluate command (player/evaluate.py).

The statistics are checked on hand-made results against scipy and by hand; the command on
tiny real matches (random vs tsumogiri), including a run killed half-way and resumed.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from game.errors import MahjongError
from player import stats

# ----------------------------------------------------------------------------- statistics


def test_rank_rates_counts_places():
    rates = stats.rank_rates([1, 1, 2, 4, 4, 4, 3, 1])
    assert rates.tolist() == [3 / 8, 1 / 8, 1 / 8, 3 / 8]
    with pytest.raises(MahjongError):
        stats.rank_rates([0, 1])


def test_mean_se_without_blocks_is_scipy_sem():
    x = np.array([1, 4, 2, 2, 3, 1, 4, 4, 2, 3], dtype=float)
    mean, se = stats.mean_se(x)
    assert mean == pytest.approx(x.mean())
    assert se == pytest.approx(sps.sem(x))
    # One value per block is the same as no blocks.
    assert stats.mean_se(x, np.arange(x.size))[1] == pytest.approx(sps.sem(x))


def test_mean_se_with_equal_blocks_is_sem_of_block_means():
    rng = np.random.default_rng(5)
    x = rng.integers(1, 5, size=40).astype(float)
    blocks = np.repeat(np.arange(10), 4)
    rng.shuffle(blocks)  # block membership, not position, is what counts
    means = np.array([x[blocks == b].mean() for b in range(10)])
    mean, se = stats.mean_se(x, blocks)
    assert mean == pytest.approx(x.mean())
    assert se == pytest.approx(sps.sem(means))
    assert sorted(stats.block_means(x, blocks)) == pytest.approx(sorted(means))


def test_t_test_matches_scipy():
    rng = np.random.default_rng(11)
    d = rng.normal(0.2, 1.5, size=37)
    ours = stats.t_test_zero(d)
    two = sps.ttest_1samp(d, 0.0)
    greater = sps.ttest_1samp(d, 0.0, alternative="greater")
    assert ours.t == pytest.approx(two.statistic)
    assert ours.df == 36
    assert ours.p_two_sided == pytest.approx(two.pvalue)
    assert ours.p_one_sided == pytest.approx(greater.pvalue)
    assert ours.se_diff == pytest.approx(sps.sem(d))


def test_t_test_reproduces_kurita_hoki_significance():
    # Sec. VII: per-game rank difference mean 0.0574, sd 1.822, 3557 games, one-tailed p 0.03.
    rng = np.random.default_rng(0)
    z = rng.normal(size=3557)
    d = (z - z.mean()) / z.std(ddof=1) * 1.822 + 0.0574
    res = stats.t_test_zero(d)
    assert res.mean_diff == pytest.approx(0.0574)
    assert res.sd_diff == pytest.approx(1.822)
    assert res.t == pytest.approx(1.879, abs=1e-3)
    assert round(res.p_one_sided, 2) == 0.03


def test_stable_dan_zeroes_expected_points():
    rates = [0.30, 0.27, 0.24, 0.19]
    for hanchan in (True, False):
        pts = stats.rank_points_table(hanchan)
        dan = stats.stable_dan(rates, hanchan)
        step = -pts[3] / (stats.RANK_POINTS_DAN + 2)
        loss = step * (dan + 2)
        assert sum(r * p for r, p in zip(rates[:3], pts[:3])) - rates[3] * loss == pytest.approx(0)
    # The classic phoenix formula: (6 r1 + 3 r2) / r4 - 2 for south games.
    assert stats.stable_dan(rates, True) == pytest.approx((6 * 0.30 + 3 * 0.27) / 0.19 - 2)


def _events(hands: list[list[dict]]) -> list[dict]:
    evs = [{"type": "start_game"}]
    for body in hands:
        evs.append({"type": "start_kyoku"})
        evs.extend(body)
        evs.append({"type": "end_kyoku"})
    evs.append({"type": "end_game"})
    return evs


def test_count_hand_events_counts_hands_not_events():
    log = _events([
        # Seat 1 riichis, seat 2 pons twice and deals in to a double ron of seats 0 and 1.
        [{"type": "reach", "actor": 1}, {"type": "reach_accepted", "actor": 1},
         {"type": "pon", "actor": 2, "target": 0}, {"type": "pon", "actor": 2, "target": 3},
         {"type": "hora", "actor": 0, "target": 2}, {"type": "hora", "actor": 1, "target": 2}],
        # Seat 3 chis and wins by tsumo; seat 0 declares riichi that is not accepted (ronned),
        # seat 1 makes a closed kan (not a call) and a kakan-free hand.
        [{"type": "chi", "actor": 3, "target": 2}, {"type": "ankan", "actor": 1},
         {"type": "reach", "actor": 0}, {"type": "hora", "actor": 3, "target": 3}],
        # An exhaustive draw.
        [{"type": "daiminkan", "actor": 0, "target": 1}, {"type": "ryukyoku"}],
    ])
    c = stats.count_hand_events(log)
    assert c["hands"] == [3, 3, 3, 3]
    assert c["wins"] == [1, 1, 0, 1]
    assert c["deal_ins"] == [0, 0, 1, 0]
    assert c["riichi"] == [0, 1, 0, 0]
    assert c["calls"] == [1, 0, 1, 1]
    assert "win_points" not in c  # these hora events carry no deltas: no points to sum


def _result(game: int, seat: int, ranks: list[int], counts: dict | None = None) -> dict:
    names = ["opp"] * 4
    names[seat] = "me"
    scores = [40000 - 10000 * r for r in ranks]
    return {"game": game, "block": game // 4, "seed": 100 + game // 4, "player_seat": seat,
            "names": names, "scores": scores, "ranks": ranks,
            "counts": counts or {"hands": [5] * 4, "wins": [1, 0, 0, 0], "deal_ins": [0, 1, 0, 0],
                                 "riichi": [1, 1, 0, 0], "calls": [0, 0, 2, 0]},
            "log": None}


def test_summarize_by_hand():
    # Two wall seeds, the player in seats 0..3 in each.
    results = [
        _result(0, 0, [1, 2, 3, 4]), _result(1, 1, [2, 1, 3, 4]),
        _result(2, 2, [4, 3, 2, 1]), _result(3, 3, [1, 2, 3, 4]),
        _result(4, 0, [3, 1, 2, 4]), _result(5, 1, [1, 4, 2, 3]),
        _result(6, 2, [2, 3, 1, 4]), _result(7, 3, [1, 3, 4, 2]),
    ]
    player_ranks = [1, 1, 2, 4, 3, 4, 1, 2]
    s = stats.summarize(list(reversed(results)))  # finishing order must not matter
    assert s["player"] == "me" and s["opponent"] == "opp"
    assert s["games"] == 8 and s["blocks"] == 2
    p, o = s["player_stats"], s["opponent_stats"]
    assert p["rank_rates"] == pytest.approx([3 / 8, 2 / 8, 1 / 8, 2 / 8])
    assert p["mean_rank"] == pytest.approx(np.mean(player_ranks))
    # Every game's ranks sum to 10: the opponents' pooled mean mirrors the player's.
    assert o["mean_rank"] == pytest.approx((10 - np.mean(player_ranks)) / 3)
    assert o["n"] == 24
    assert sum(o["rank_rates"]) == pytest.approx(1)
    # SE over the two wall seeds' means.
    m = [np.mean(player_ranks[:4]), np.mean(player_ranks[4:])]
    assert p["mean_rank_se"] == pytest.approx(sps.sem(m))
    # Test: per block, opponents' mean rank minus the player's rank, averaged.
    d = [np.mean([(10 - r) / 3 - r for r in player_ranks[:4]]),
         np.mean([(10 - r) / 3 - r for r in player_ranks[4:]])]
    ref = sps.ttest_1samp(d, 0.0)
    assert s["rank_test"]["t"] == pytest.approx(ref.statistic)
    assert s["rank_test"]["p_two_sided"] == pytest.approx(ref.pvalue)
    # East-only rank points +60/+30/0/-90.
    pts = {1: 60, 2: 30, 3: 0, 4: -90}
    assert p["rank_points_mean"] == pytest.approx(np.mean([pts[r] for r in player_ranks]))
    # Per-hand rates: the player sat in every seat twice, 5 hands a game.
    assert p["hands"] == 40
    assert p["win_rate"] == pytest.approx(2 / 40)       # seat 0 wins once a game
    assert p["deal_in_rate"] == pytest.approx(2 / 40)
    assert p["riichi_rate"] == pytest.approx(4 / 40)
    assert p["call_rate"] == pytest.approx(4 / 40)
    assert o["hands"] == 120
    assert o["win_rate"] == pytest.approx(6 / 120)
    assert o["call_rate"] == pytest.approx(12 / 120)
    assert p["points_per_win"] is None  # records without points
    json.dumps(s)  # serialisable as summary.json
    table = stats.format_table(s)
    assert "me" in table and "mean rank" in table and "points/win" not in table


def test_summarize_points_per_win_and_deal_in():
    """The points of the records pooled over the player's and the opponents' seats; a run
    with records from before the points (none in one record) reports none."""
    def counts(seat):  # seat 0 wins 8,000 in two hands, seat 1 pays 5,200 on one deal-in
        return {"hands": [5] * 4, "wins": [2, 0, 0, 0], "deal_ins": [0, 1, 0, 0], "riichi": [0] * 4,
                "calls": [0] * 4, "win_points": [8000, 0, 0, 0], "deal_in_points": [0, 5200, 0, 0]}
    results = [_result(g, g, [1, 2, 3, 4], counts(g)) for g in range(4)]
    s = stats.summarize(results)
    p, o = s["player_stats"], s["opponent_stats"]
    # the player sat once in each seat: 2 wins worth 8,000, 1 deal-in of 5,200
    assert p["points_per_win"] == pytest.approx(4000) and p["points_per_deal_in"] == pytest.approx(5200)
    assert o["points_per_win"] == pytest.approx(3 * 8000 / 6) and o["points_per_deal_in"] == pytest.approx(5200)
    assert "points/win" in stats.format_table(s)
    results[2]["counts"] = {k: v for k, v in results[2]["counts"].items() if k not in stats.POINT_KEYS}
    assert stats.summarize(results)["player_stats"]["points_per_win"] is None


def test_win_and_deal_in_points_are_tenhous():
    """The points of ``count_hand_events`` are Tenhou's own: each AGARI's ``sc`` changes in the
    phoenix records, read from the XML here, summed for the winner and the discarder."""
    files = sorted((Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog").glob("*.xml"))
    assert len(files) >= 40
    for f in files:
        want = {"win_points": [0] * 4, "deal_in_points": [0] * 4}
        for tag in re.findall(r"<AGARI [^>]*>", f.read_text()):
            who, frm = int(re.search(r' who="(\d)"', tag)[1]), int(re.search(r' fromWho="(\d)"', tag)[1])
            change = [100 * int(x) for x in re.search(r' sc="([^"]*)"', tag)[1].split(",")[1::2]]
            want["win_points"][who] += change[who]
            if frm != who:
                want["deal_in_points"][frm] -= change[frm]
        got = stats.count_hand_events(read_events(str(f)))
        assert {k: got[k] for k in stats.POINT_KEYS} == want, f.name


def test_summarize_rejects_bad_ranks():
    with pytest.raises(MahjongError):
        stats.summarize([_result(0, 0, [1, 1, 3, 4])])
    with pytest.raises(MahjongError):
        stats.summarize([])


def test_plot_ranks_writes_png(tmp_path):
    s = stats.summarize([_result(g, g % 4, [1, 2, 3, 4]) for g in range(8)])
    out = tmp_path / "ranks.png"
    stats.plot_ranks(s, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ----------------------------------------------------------------------------- the command

from game.records import read_events  # noqa: E402
from player import evaluate  # noqa: E402


def _run(tmp: Path, *args: str) -> int:
    return evaluate.main(["--out", str(tmp), *args])


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_tiny_run_writes_results_summary_plot_and_logs(tmp_path, capsys):
    out = tmp_path / "run"
    rc = _run(out, "--player", "random", "--vs", "tsumogiri", "--games", "7", "--workers", "2",
              "--seed", "3", "--save-logs")
    assert rc == 0
    captured = capsys.readouterr()
    assert "rounded up to 8" in captured.err
    assert "mean rank" in captured.out
    recs = sorted(_lines(out / "results.jsonl"), key=lambda r: r["game"])
    assert [r["game"] for r in recs] == list(range(8))
    # Four seat rotations over each wall seed.
    assert [r["player_seat"] for r in recs] == [0, 1, 2, 3] * 2
    assert recs[0]["seed"] == recs[3]["seed"] != recs[4]["seed"]
    for r in recs:
        assert r["names"][r["player_seat"]] == "random"
        assert r["names"].count("tsumogiri") == 3
        # The saved log agrees with the record: final scores, hands, wins.
        events = read_events(out / r["log"])
        assert events[0]["type"] == "start_game" and events[-1]["type"] == "end_game"
        assert events[0]["names"] == r["names"]  # calibration and review pick the player by name
        assert stats.count_hand_events(events) == r["counts"]
        assert sum(e["type"] == "start_kyoku" for e in events) == r["counts"]["hands"][0]
        assert sorted(r["ranks"]) == [1, 2, 3, 4]
        order = sorted(range(4), key=lambda s: (-r["scores"][s], s))
        assert [r["ranks"][s] for s in order] == [1, 2, 3, 4]
    summary = json.loads((out / "summary.json").read_text())
    assert summary == json.loads(json.dumps(evaluate._finite(
        {**stats.summarize(recs), "seed": 3})))
    assert summary["games"] == 8 and summary["blocks"] == 2
    assert (out / "ranks.png").read_bytes()[:4] == b"\x89PNG"


def _untimed(recs) -> dict[int, dict]:
    """Records by game without their timings, the only fields that differ between runs."""
    return {r["game"]: {k: v for k, v in r.items() if k not in ("wall_s", "cpu_s")} for r in recs}


def _summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def test_killed_and_resumed_run_gives_the_same_summary(tmp_path, capsys):
    # random against three efficiency copies: ranks and rates vary from game to game.
    common = ["--player", "random", "--vs", "efficiency", "--seed", "11"]
    full = tmp_path / "full"
    assert _run(full, *common, "--games", "8", "--workers", "2") == 0

    part = tmp_path / "part"
    assert _run(part, *common, "--games", "4", "--workers", "1") == 0
    results = part / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    # A kill in the middle of writing the 4th game: a cut last line without its newline.
    results.write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    capsys.readouterr()
    assert _run(part, *common, "--games", "8", "--workers", "2", "--resume") == 0
    warned = [x for x in capsys.readouterr().err.splitlines() if "warning" in x]
    assert warned == [f"evaluate: warning: {results}: dropped 1 cut last line (a write stopped "
                      f"by a kill); its game is played again"]

    assert _summary(part) == _summary(full)
    by_game = {r["game"]: r for r in _lines(results)}
    assert len(_lines(results)) == 8 == len(by_game)
    assert _untimed(by_game.values()) == _untimed(_lines(full / "results.jsonl"))
    # Not a degenerate match: the games end in different orders.
    assert len({tuple(r["ranks"]) for r in by_game.values()}) > 1


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    assert _run(out, "--player", "nosuch", "--vs", "random", "--games", "4") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nosuch" in err[0] and "random" in err[0]

    assert _run(out, "--player", "random", "--vs", "tsumogiri", "--games", "4",
                "--workers", "1") == 0
    capsys.readouterr()
    # Existing results without --resume are not overwritten.
    assert _run(out, "--player", "random", "--vs", "tsumogiri", "--games", "4") == 2
    assert "--resume" in capsys.readouterr().err
    # Another run's directory.
    assert _run(out, "--player", "tsumogiri", "--vs", "random", "--games", "4", "--resume") == 2
    assert "another run" in capsys.readouterr().err
    # A broken line that is not the last one names the file and the line.
    results = out / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text(lines[0] + "{not json\n" + "".join(lines[1:]))
    assert _run(out, "--player", "random", "--vs", "tsumogiri", "--games", "8",
                "--workers", "1", "--resume") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{results}:line 2" in err[0]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_bad_agent_option_exits_2_before_the_run_directory_is_written(tmp_path, capsys, workers):
    # An option the agent does not know fails when the first game builds it: nothing written.
    from player import selfplay

    out = tmp_path / "run"
    assert _run(out, "--player", "cnn-bot:riichi_threshold=0.4", "--vs", "random", "--games", "4",
                "--workers", workers) == 2
    assert "unknown cnn-bot option" in capsys.readouterr().err.strip().splitlines()[-1]
    assert selfplay.main(["--agent", "mdp:nosuch=1", "--games", "2", "--out", str(out), "--workers", workers]) == 2
    assert "unknown mdp option" in capsys.readouterr().err.strip().splitlines()[-1]
    assert not out.exists()


def test_identical_deterministic_agents_tie_exactly(tmp_path):
    # Duplicate seating: with the same walls and a deterministic agent in every seat, the four
    # games of a wall seed are one game seen from each seat, so the player takes each place
    # exactly once per seed: rates 1/4, mean rank 2.5, no rank advantage.
    out = tmp_path / "self"
    assert _run(out, "--player", "efficiency", "--vs", "efficiency", "--games", "8",
                "--workers", "2") == 0
    s = _summary(out)
    assert s["player_stats"]["rank_rates"] == [0.25] * 4
    assert s["player_stats"]["mean_rank"] == 2.5
    assert s["rank_test"]["mean_diff"] == 0
    recs = sorted(_lines(out / "results.jsonl"), key=lambda r: r["game"])
    for block in (recs[:4], recs[4:]):
        assert all(r["scores"] == block[0]["scores"] for r in block)


@pytest.mark.parametrize("args", [["--workers", "0"], ["--workers", "-3"], ["--out-is-file"]])
def test_bad_workers_or_out_exit_2_and_write_nothing(tmp_path, capsys, args):
    from player import selfplay

    target = tmp_path / "run"
    if args == ["--out-is-file"]:
        target.write_text("keep me")
        args = []
    for cmd in (evaluate.main, selfplay.main):
        rc = cmd(["--games", "4", "--out", str(target), *args] + (["--player", "random", "--vs", "random"]
                                                                  if cmd is evaluate.main else ["--agent", "random"]))
        assert rc == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "error:" in err[0] and ("--workers" in err[0] or "is a file" in err[0])
    assert not target.exists() or target.is_file() and target.read_text() == "keep me"


def test_record_rates_count_every_seat(tmp_path, capsys):
    """``python -m player.stats --records``: the per-hand rates of records, from their events."""
    files = sorted(str(x) for x in (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog").glob("*.xml"))[:3]
    assert stats.main(["--records", *files]) == 0
    out = json.loads(capsys.readouterr().out)
    events = [read_events(f) for f in files]
    hands = sum(sum(e["type"] == "start_kyoku" for e in ev) for ev in events)
    wins = sum(sum(e["type"] == "hora" for e in ev) for ev in events)
    assert out["hands"] == hands and out["wins_per_hand"] == pytest.approx(wins / (4 * hands))
    assert stats.main(["--records", str(tmp_path / "none*.xml")]) == 2


def test_kans_per_hand_of_one_named_seat(tmp_path, capsys):
    """``count_kans`` counts hands with a kan, each kind of kan; ``--name`` keeps the seats
    of one agent."""
    log = _events([
        [{"type": "ankan", "actor": 1, "consumed": ["E"] * 4},
         {"type": "kakan", "actor": 1, "pai": "S", "consumed": ["S"] * 3}, {"type": "ryukyoku"}],
        [{"type": "daiminkan", "actor": 2, "target": 1, "pai": "W", "consumed": ["W"] * 3},
         {"type": "ryukyoku"}],
    ])
    assert stats.count_kans(log) == [0, 1, 1, 0]
    # the file is read as a record: its events must be well formed
    deal = {"type": "start_kyoku", "bakaze": "E", "dora_marker": "1m", "kyoku": 1, "honba": 0, "kyotaku": 0,
            "oya": 0, "scores": [25000] * 4, "tehais": [["?"] * 13] * 4}
    log = [deal if e["type"] == "start_kyoku" else e for e in log]
    log[0] = {"type": "start_game", "names": ["a", "mdp", "b", "c"]}
    path = tmp_path / "g.mjson"
    path.write_text("\n".join(json.dumps(e) for e in log) + "\n")
    assert stats.main(["--records", str(path), "--name", "mdp"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == out["seat_hands"] == 2 and out["kans_per_hand"] == 0.5


def test_final_scores_from_the_events_are_tenhous():
    """``hand_outcomes``: the last hand's start, its deposits and payments, and the deposits
    left to the first place give Tenhou's own final scores in every phoenix game."""
    files = sorted((Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog").glob("*.xml"))
    assert len(files) >= 40
    for f in files:
        events = read_events(str(f))
        outcomes, final = stats.hand_outcomes(events)
        assert final == list(events[-1]["scores"]), f.name
        assert len(outcomes) == sum(e["type"] == "start_kyoku" for e in events)
        wins = sum(e["type"] == "hora" for e in events)
        assert sum(o.count("win") for o in outcomes.values()) == wins


def test_rank_edge_adds_up_to_each_seats_final_rank(capsys):
    """``python -m player.stats --edge``: a seat's hands' changes of expected final rank add up,
    over phases and over outcomes alike, to its final rank from Tenhou's scores less Eq. 1's
    expectation at the first hand."""
    from game.match import ranks_from_scores
    from regressors.estimators import load_default

    f = str(Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog"
            / "mjlog2json__2019080322gm-00a9-0000-81e85e04.xml")
    events = read_events(f)
    model = load_default("final_rank")
    start = next(e for e in events if e["type"] == "start_kyoku")
    for seat, name in enumerate(events[0]["names"]):
        assert stats.main(["--records", f, "--name", name, "--edge", "--hanchan"]) == 0
        out = json.loads(capsys.readouterr().out)
        want = ranks_from_scores(events[-1]["scores"])[seat] - model.expected_rank(
            list(start["scores"]), 0, 0, start["oya"], start["honba"], start["kyotaku"], hanchan=True)[seat]
        for by in ("phase", "outcome"):
            assert sum(v["rank_a_game"] for v in out[by].values()) == pytest.approx(want, abs=1e-9)
        assert sum(v["hands_a_game"] for v in out["phase"].values()) == sum(e["type"] == "start_kyoku" for e in events)
    assert stats.main(["--records", f, "--edge"]) == 2


def _tenhou_route(tag: str) -> str:
    """A win's route from Tenhou's own AGARI tag: riichi or double riichi among its yaku (ids
    1, 21), else open if a meld of ``m`` is a chi, pon, added kan or open kan, else dama."""
    yaku = [int(x) for x in re.search(r' yaku="([^"]*)"', tag)[1].split(",")[0::2]] if " yaku=" in tag else []
    if 1 in yaku or 21 in yaku:
        return "riichi"
    melds = [int(x) for x in re.search(r' m="([^"]*)"', tag)[1].split(",")] if " m=" in tag else []
    # chi (bit 2), pon (bit 3), added kan (bit 4); else a kan, closed where it came from nobody
    return "open" if any(m & 0x1C or m & 3 for m in melds) else "dama"


def test_win_routes_are_tenhous():
    """``count_hand_events(routes=True)``'s wins by route, by the events (reach_accepted, the
    calls), against each AGARI's own yaku and melds in the phoenix records, with the points of
    its ``sc``; without ``routes`` the counts have none of them."""
    files = sorted((Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phoenix" / "mjlog").glob("*.xml"))
    seen = {r: 0 for r in stats.ROUTES}
    for f in files:
        want = {f"{k}_{r}": [0] * 4 for k in ("wins", "win_points") for r in stats.ROUTES}
        for tag in re.findall(r"<AGARI [^>]*>", f.read_text()):
            who, route = int(re.search(r' who="(\d)"', tag)[1]), _tenhou_route(tag)
            want[f"wins_{route}"][who] += 1
            want[f"win_points_{route}"][who] += 100 * int(re.search(r' sc="([^"]*)"', tag)[1].split(",")[1::2][who])
            seen[route] += 1
        events = read_events(str(f))
        got = stats.count_hand_events(events, routes=True)
        assert {k: got[k] for k in want} == want, f.name
        assert set(got) - set(want) == set(stats.count_hand_events(events)), f.name
    assert min(seen.values()) >= 30  # every route is exercised
    rates = stats.record_rates([str(f) for f in files[:3]])
    assert sum(r["per_hand"] for r in rates["wins_by_route"].values()) == pytest.approx(rates["wins_per_hand"])
