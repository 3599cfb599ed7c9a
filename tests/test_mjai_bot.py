"""The mjai bot answers a game's events exactly as the same agent played it live."""
import json
import subprocess
import sys
from pathlib import Path

from game.decisions import iter_decisions
from game.match import play_game
from player.mjai_bot import NONE, MjaiBot
from player.registry import make_agent

ROOT = Path(__file__).resolve().parents[1]


def _game(seed):
    return play_game([make_agent("efficiency", seed=s) for s in range(4)], seed=seed)


def test_bot_replays_the_live_choices_of_every_seat():
    events = _game(11).events
    for seat in range(4):
        expected = {d.index: d.chosen for d in iter_decisions(events, seats=[seat])}
        bot = MjaiBot(make_agent("efficiency", seed=seat), seat)
        answers = {i: bot.react([e]) for i, e in enumerate(events)}
        assert {i: answers[i] for i in expected} == expected
        # Every other line is answered with a pass.
        assert all(a == NONE for i, a in answers.items() if i not in expected)


def test_batched_lines_answer_the_last_event():
    events = _game(12).events
    seat = 2
    first = next(d for d in iter_decisions(events, seats=[seat]) if d.chosen["type"] == "dahai")
    bot = MjaiBot(make_agent("efficiency", seed=seat), seat)
    assert bot.react(events[: first.index + 1]) == first.chosen


def test_cli_plays_from_stdin_and_rejects_a_bad_line():
    events = _game(13).events[:40]
    lines = "".join(json.dumps(e) + "\n" for e in events)
    run = subprocess.run([sys.executable, "-m", "player.mjai_bot", "1"], input=lines,
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(answers) == len(events)
    assert any(a["type"] == "dahai" and a["actor"] == 1 for a in answers)

    bad = lines.splitlines()[:3] + ['{"type": "tsumo", "actor": 1,']
    run = subprocess.run([sys.executable, "-m", "player.mjai_bot", "1"],
                         input="\n".join(bad) + "\n", capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 2
    assert "line 4" in run.stderr and "Traceback" not in run.stderr
