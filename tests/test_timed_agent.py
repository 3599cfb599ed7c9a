"""The per-decision time budget of the mjai bot: the agent's answer in time, else the
fallback's, counted; the late decision is abandoned (its worker killed), not waited for."""
import json
import subprocess
import sys
from pathlib import Path

from game.decisions import LiveSeat
from game.match import play_game
from game.state import seat_view
from player.mjai_bot import MjaiBot
from player.registry import make_agent
from player.timed_agent import TimedAgent

ROOT = Path(__file__).resolve().parents[1]
SEAT = 1
# A seed whose game asks seat 1 enough to mix own turns and calls (checked below).
EVENTS = play_game([make_agent("efficiency", seed=s) for s in range(4)], seed=31).events[:160]


def _asks(events) -> list[int]:
    """Indices of the events after which seat SEAT is asked to act."""
    live = LiveSeat(SEAT)
    return [i for i, e in enumerate(events) if live.feed(seat_view(e, SEAT)) is not None]


def _answers(agent) -> dict[int, dict]:
    """The bot's answer at every decision of seat SEAT in EVENTS."""
    asks = _asks(EVENTS)
    bot = MjaiBot(agent, SEAT)
    answers = {i: bot.react([e]) for i, e in enumerate(EVENTS)}
    return {i: answers[i] for i in asks}


def test_with_time_enough_every_answer_is_the_agents_own():
    expected = _answers(make_agent("mdp"))
    assert len(expected) >= 15 and {a["type"] for a in expected.values()} >= {"dahai", "none"}
    timed = TimedAgent("mdp", 600.0, make_agent("efficiency"))
    try:
        assert _answers(timed) == expected
    finally:
        timed.close()
    assert timed.stats["in_time"] == timed.stats["decisions"] == len(expected)
    assert timed.stats["over_budget"] == timed.stats["restarts"] == 0


def test_a_late_decision_is_the_fallbacks_counted_and_its_worker_restarted():
    """No answer can cross the process boundary in a microsecond: every decision is the
    efficiency agent's, each one asked of a ready worker is over the budget and restarts it,
    the others (worker still starting) are answered without asking."""
    fallback_only = _answers(make_agent("efficiency"))
    mdp_own = _answers(make_agent("mdp"))
    assert fallback_only != mdp_own  # the two players differ here, so the test can tell
    timed = TimedAgent("mdp", 1e-6, make_agent("efficiency"))
    try:
        assert _answers(timed) == fallback_only
    finally:
        timed.close()
    s = timed.stats
    assert s["in_time"] == 0 and s["over_budget"] >= 1
    assert s["over_budget"] + s["not_ready"] == s["decisions"] == len(fallback_only)
    assert s["restarts"] == s["over_budget"]
    assert f"{s['over_budget']} over the budget" in timed.summary()


def _bot_cli(*args, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "player.mjai_bot", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_cli_reports_the_fallbacks_at_end_game_and_rejects_a_negative_budget():
    lines = "".join(json.dumps(e) + "\n" for e in EVENTS[:60]) + '{"type":"end_game"}\n'
    asks = _asks(EVENTS[:60])
    run = _bot_cli(str(SEAT), "--agent", "mdp", "--time-budget", "0.000001", stdin=lines)
    assert run.returncode == 0, run.stderr
    (summary,) = [line for line in run.stderr.splitlines() if line.startswith("mjai_bot:")]
    assert summary.startswith(f"mjai_bot: seat {SEAT}: {len(asks)} decisions with a 1e-06 s budget: "
                              f"0 by mdp")
    assert "answered by efficiency" in summary
    run = _bot_cli(str(SEAT), "--time-budget", "-1", stdin="")
    assert run.returncode == 2 and "--time-budget must be >= 0" in run.stderr
