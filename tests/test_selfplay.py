"""Self-play (player/selfplay.py): one readable gzip mjai log per game, resumable."""
from __future__ import annotations

import os

import pytest

from game.records import read_events
from game.match import ranks_from_scores
from player import selfplay


def test_selfplay_writes_readable_logs_and_resumes(tmp_path, capsys):
    out = tmp_path / "sp"
    assert selfplay.main(["--agent", "random", "--games", "3", "--out", str(out),
                          "--seed", "5", "--workers", "2"]) == 0
    logs = sorted(out.glob("*.mjson.gz"))
    assert [p.name.split("-")[0] for p in logs] == ["000000", "000001", "000002"]
    for p in logs:
        events = read_events(p)
        assert events[0]["type"] == "start_game" and events[-1]["type"] == "end_game"
        assert sum(e["type"] == "start_kyoku" for e in events) >= 4  # east-only: 4+ hands
        assert {e["actor"] for e in events if e["type"] == "dahai"} == {0, 1, 2, 3}
    # Each game's walls come from its own seed: different games, different deals.
    deals = {tuple(read_events(p)[1]["tehais"][0]) for p in logs}
    assert len(deals) == 3

    # Resume: existing logs are kept as they are, a missing one is played again (the same
    # game, byte for byte), and a temp file left by a killed run is cleared.
    kept = logs[0].stat().st_mtime_ns
    lost = logs[1].read_bytes()
    logs[1].unlink()
    stale = out / selfplay.TMP_DIR / "000001-1.123.mjson.gz"
    stale.write_bytes(b"half")
    capsys.readouterr()
    assert selfplay.main(["--agent", "random", "--games", "4", "--out", str(out),
                          "--seed", "5", "--workers", "1"]) == 0
    assert "2 of 4 logs already" in capsys.readouterr().err
    assert logs[0].stat().st_mtime_ns == kept
    assert logs[1].read_bytes() == lost
    assert len(list(out.glob("*.mjson.gz"))) == 4
    assert not stale.exists()


def test_selfplay_log_matches_a_direct_game(tmp_path):
    # The log is the game that play_game gives for the same seeds.
    paths = selfplay.selfplay("random", 1, tmp_path, seed=9, workers=1)
    seed = selfplay.derive_seed(9, 0)
    direct = selfplay.play(["random"] * 4, seed, [selfplay.derive_seed(seed, 1000 + s)
                                                  for s in range(4)], False)
    assert read_events(paths[0]) == direct.events
    assert ranks_from_scores(direct.scores) == direct.ranks


def test_unknown_agent_exits_2(tmp_path, capsys):
    assert selfplay.main(["--agent", "nosuch", "--games", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nosuch" in err[0] and "efficiency" in err[0]


def test_reused_agents_play_as_fresh_ones():
    # Workers reuse their agents; a reseeded, reused agent must play like a new one.
    from player.registry import make_agent

    seed = selfplay.derive_seed(2, 0)
    names = ["random", "efficiency", "random", "tsumogiri"]
    seeds = [selfplay.derive_seed(seed, 1000 + s) for s in range(4)]
    selfplay.play(names, selfplay.derive_seed(2, 1), [7, 7, 7, 7], False)  # use them once
    reused = selfplay.play(names, seed, seeds, False)
    from game.match import play_game
    fresh = play_game([make_agent(n, seed=a) for n, a in zip(names, seeds)], seed)
    assert reused.events == fresh.events


def test_a_run_without_a_terminal_logs_plain_progress_lines(tmp_path, capsys, monkeypatch):
    """In a log file (stderr not a terminal) a long run writes a plain line at most every
    ``LOG_EVERY_S`` seconds, with the count done, out of all, counting games done before a
    resume; a short run writes none."""
    assert list(selfplay._log_lines(iter(range(3)), "relabel", 5, 2, "game", every_s=0.0)) == [0, 1, 2]
    lines = capsys.readouterr().err.splitlines()
    assert [x.split(",")[0] for x in lines] == ["relabel: 3/5 games", "relabel: 4/5 games", "relabel: 5/5 games"]
    assert lines[-1].endswith("about 0 min left")
    monkeypatch.setattr(selfplay, "LOG_EVERY_S", 3600.0)
    assert selfplay.main(["--agent", "random", "--games", "2", "--out", str(tmp_path / "sp"), "--workers", "1"]) == 0
    assert "games," not in capsys.readouterr().err


def _square_or_fail(x: int) -> int:
    if x == 7:
        raise ValueError("task 7 fails")
    if x == 9:
        os._exit(3)  # a worker killed (out of memory, a signal)
    return x * x


def test_the_pool_returns_every_result_and_stops_on_a_worker_error():
    # Every result once, in any order; a task's error reaches the caller, and a worker that
    # dies is an error too, never a hang (a multiprocessing.Pool waits for its result for good).
    from concurrent.futures.process import BrokenProcessPool

    from player.selfplay import run_pool

    tasks = [x for x in range(40) if x not in (7, 9)]
    assert sorted(run_pool(_square_or_fail, tasks, 2, desc="t")) == [x * x for x in tasks]
    with pytest.raises(ValueError, match="task 7 fails"):
        list(run_pool(_square_or_fail, [x for x in range(200) if x != 9], 2, desc="t"))
    with pytest.raises(BrokenProcessPool):
        list(run_pool(_square_or_fail, [9, *range(10, 200)], 2, desc="t"))
