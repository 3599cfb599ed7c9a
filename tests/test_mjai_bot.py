"""The mjai bot answers a game's events exactly as the same agent played it live."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from game.decisions import iter_decisions
from game.match import play_game
from player.agents.efficiency import EfficiencyAgent
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


# --- the protocol as mjai.app, Mortal's arena and the original mjai server speak it ---------

# The two messages of the `mjai` package's own bot verification (mjai/verify.py,
# verify_start_kyoku_response), byte for byte.
VERIFY_START_GAME = '[{"type":"start_game","names":["0","1","2","3"],"id":0}]'
VERIFY_START_KYOKU = '[{"type":"start_kyoku","bakaze":"E","dora_marker":"2s","kyoku":1,"honba":0,"kyotaku":0,"oya":0,"scores":[25000,25000,25000,25000],"tehais":[["E","6p","9m","8m","C","2s","7m","S","6m","1m","S","3s","8m"],["?","?","?","?","?","?","?","?","?","?","?","?","?"],["?","?","?","?","?","?","?","?","?","?","?","?","?"],["?","?","?","?","?","?","?","?","?","?","?","?","?"]]},{"type":"tsumo","actor":0,"pai":"1m"}]'  # noqa: E501
VERIFY_HAND = ["E", "6p", "9m", "8m", "C", "2s", "7m", "S", "6m", "1m", "S", "3s", "8m", "1m"]


def _bot_cli(*args, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "player.mjai_bot", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("first", [VERIFY_START_GAME, VERIFY_START_GAME.replace('"id":0', '"id":7')])
def test_the_mjai_package_verification_gets_none_then_a_discard_from_the_hand(first):
    """mjai.app's own check: integer id (its game counter, 7 for the eighth game), then a
    deal and a draw for the bot's seat; the answer must be a discard of a tile in hand."""
    run = _bot_cli("0", stdin=first + "\n" + VERIFY_START_KYOKU + "\n")
    assert run.returncode == 0, run.stderr
    none, answer = [json.loads(line) for line in run.stdout.splitlines()]
    assert none == {"type": "none"}
    assert answer["type"] == "dahai" and answer["actor"] == 0 and answer["pai"] in VERIFY_HAND


def test_without_a_seat_start_game_id_names_it_and_a_bad_id_is_one_line():
    run = _bot_cli(stdin=VERIFY_START_GAME.replace('"id":0', '"id":"0"') + "\n" + VERIFY_START_KYOKU + "\n")
    assert run.returncode == 0 and json.loads(run.stdout.splitlines()[1])["actor"] == 0
    run = _bot_cli(stdin=VERIFY_START_GAME.replace('"id":0', '"id":7') + "\n")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == ("error: <stdin>:line 1: start_game id 7 is no seat 0..3: give the "
                          "bot's seat on the command line\n")


def test_a_malformed_deal_is_one_line_naming_the_line():
    bad = VERIFY_START_KYOKU.replace('"oya":0', '"oya":7')
    run = _bot_cli("0", stdin=VERIFY_START_GAME + "\n" + bad + "\n")
    assert run.returncode == 2 and run.stdout.splitlines() == ['{"type":"none"}']
    assert run.stderr == ("error: <stdin>:line 2: malformed event: start_kyoku oya 7 is not an "
                          "integer in 0..3\n")


def _app_batches(events: list[dict], seat: int) -> list[list[dict]]:
    """Lines as mjai.app sends them: events up to each one that asks ``seat`` to act (from
    the record's decisions), ``end_kyoku`` and ``end_game`` alone on their lines."""
    asks = {d.index for d in iter_decisions(events, seats=[seat])}
    batches, current = [], []
    for i, event in enumerate(events):
        if event["type"] in ("end_kyoku", "end_game") and current:
            batches.append(current)
            current = []
        current.append(event)
        if i in asks or event["type"] in ("start_game", "end_kyoku", "end_game"):
            batches.append(current)
            current = []
    return batches + ([current] if current else [])


def test_batched_games_back_to_back_answer_every_line_as_the_live_player():
    seat = 3
    bot = MjaiBot(make_agent("efficiency", seed=seat), seat)
    for seed in (14, 15):  # the second start_game starts a new game in the same bot
        events = [{**e, "id": seed} if e["type"] == "start_game" else e for e in _game(seed).events]
        chosen = {d.index: d.chosen for d in iter_decisions(events, seats=[seat])}
        index = 0
        for batch in _app_batches(events, seat):
            index += len(batch)
            answer = bot.react(batch)
            assert answer == chosen.get(index - 1, NONE), (seed, index - 1, batch[-1])
            if batch[-1]["type"] in ("start_game", "end_kyoku", "end_game"):
                assert answer == NONE


class _LengthAware(EfficiencyAgent):
    """Notes the game length it was told at each deal."""

    hanchan = False

    def __init__(self) -> None:
        super().__init__()
        self.told: list[tuple[str, bool]] = []

    def observe(self, event):
        super().observe(event)
        if event["type"] == "start_kyoku":
            self.told.append((event["bakaze"], self.hanchan))


@pytest.mark.parametrize("hanchan, expected", [
    (None, {"E": False, "S": True}),   # inferred: the south round shows a hanchan
    (True, {"E": True, "S": True}),    # --hanchan
    (False, {"E": False, "S": False}),  # --tonpu
])
def test_the_game_length_is_given_or_inferred_from_the_round_wind(hanchan, expected):
    events = play_game([make_agent("efficiency", seed=s) for s in range(4)], seed=20,
                       hanchan=True).events
    agent = _LengthAware()
    bot = MjaiBot(agent, 1, hanchan=hanchan)
    for event in events:
        bot.react([event])
    assert {wind for wind, _ in agent.told} == {"E", "S"}
    assert all(told == expected[wind] for wind, told in agent.told)


def test_the_mdp_agent_is_told_the_length_and_keeps_its_own_setting_when_inferring():
    start = json.loads(VERIFY_START_GAME)
    told = MjaiBot(make_agent("mdp"), 0, hanchan=True)
    told.react(start)
    assert told.agent.hanchan is True
    own = MjaiBot(make_agent("mdp:hanchan=1"), 0)
    own.react(start + json.loads(VERIFY_START_KYOKU)[:1])
    assert own.agent.hanchan is True
