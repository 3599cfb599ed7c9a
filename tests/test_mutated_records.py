"""Mutated real records: the readers, the table state and the mjai bot raise only our errors.

Real games from ``../shared/data`` (Tenhou mjlog XML, tenhou.net/6 JSON, and their mjai
JSONL conversion) are mutated the ways files break: lines or tags dropped, repeated,
swapped or cut, a field given another value or another type, tiles renamed to unknown
names, seats out of range, XML attributes mangled. Whatever comes out must be the events
of a record or a :class:`~game.errors.MahjongError` (one line naming file and position at
the command line); any other exception is a bug of ours. Every crash found this way is
kept as an ``@example``.

The examples are derandomized and few, so CI runs the same fast set; for a long hunt run
``HYPOTHESIS_PROFILE=hunt python -m pytest tests/test_mutated_records.py``.
"""
from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from game.errors import MahjongError
from game.records.__main__ import main as records_main
from game.records.check import check_events
from game.records.events import event_problem
from game.records.mjai import read_mjai
from game.records.mjlog import read_mjlog
from game.records.tenhou6 import read_tenhou6
from game.state import TableState, seat_view
from player.mjai_bot import MjaiBot
from player.registry import make_agent

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
# Small real games of each format (a few hands each keep every example fast).
MJLOG_FILES = ["mjx__encdec-tenhou.xml", "mjx__encdec-nine-gates.xml", "mjx__double-ron.xml"]
TENHOU6_FILES = ["phoenix/tenhou6/mjlog2json__2019021004gm-00a9-0000-e2f6516d.json",
                 "edge_rounds/chankan.json", "edge_rounds/double_ron.json",
                 "edge_rounds/confusing_nakis_0.json"]

settings.register_profile("ci", max_examples=50, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("hunt", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")


@lru_cache(maxsize=None)
def _text(name: str) -> str:
    path = DATA / "phoenix" / "mjlog" / name if name.endswith(".xml") else DATA / name
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _mjai_lines(name: str, seat: int | None = None) -> tuple[str, ...]:
    events = read_mjlog(_text(name), name)
    if seat is not None:
        events = [seat_view(e, seat) for e in events]
    return tuple(json.dumps(e, ensure_ascii=False) for e in events)


# --- what a mutation may put in a field --------------------------------------------------

_ODD_TILES = ["0m", "10p", "5zr", "x", "", "?", "5mr", "E ", "e", "6sr", "1z"]
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 200), st.sampled_from([-1, 4, 7, 255, 256, 2**31, -(2**40)]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(_ODD_TILES),
    st.text(max_size=4), st.lists(st.integers(-2, 140), max_size=14),
    st.lists(st.sampled_from(_ODD_TILES + ["1m", "9s", "C"]), max_size=14),
    st.dictionaries(st.sampled_from(["type", "actor", "pai"]), st.integers(-1, 5), max_size=2),
)


def _mutate_list(draw, items: list, what: st.SearchStrategy) -> list:
    """Drop, repeat, swap or replace elements of ``items`` (a few times)."""
    items = list(items)
    for _ in range(draw(st.integers(1, 3))):
        if not items:
            break
        i = draw(st.integers(0, len(items) - 1))
        j = draw(st.integers(0, len(items) - 1))
        op = draw(st.sampled_from(["drop", "dup", "swap", "replace"]))
        if op == "drop":
            del items[i]
        elif op == "dup":
            items.insert(j, items[i])
        elif op == "swap":
            items[i], items[j] = items[j], items[i]
        else:
            items[i] = draw(what)
    return items


# --- mjai JSONL --------------------------------------------------------------------------

@st.composite
def mutated_mjai(draw, seat: int | None = None) -> str:
    """A real game as mjai JSONL (as ``seat`` sees it, when given), mutated."""
    lines = list(_mjai_lines(draw(st.sampled_from(MJLOG_FILES)), seat))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["field", "field", "tile", "lines", "cut"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op in ("field", "tile"):
            try:
                event = json.loads(lines[i])
            except json.JSONDecodeError:
                continue
            if not isinstance(event, dict):
                continue
            keys = sorted(event) + ["actor", "pai", "target"]
            key = draw(st.sampled_from(keys))
            if op == "tile" and isinstance(event.get(key), list):
                value = list(event[key])
                if value:
                    value[draw(st.integers(0, len(value) - 1))] = draw(st.sampled_from(_ODD_TILES))
                event[key] = value
            else:
                event[key] = draw(st.sampled_from(_ODD_TILES)) if op == "tile" else draw(_VALUES)
            lines[i] = json.dumps(event)
        elif op == "lines":
            lines = _mutate_list(draw, lines, st.sampled_from(lines + ["{}", "[]", "null", "{"]))
            if not lines:
                lines = ["{}"]
        else:
            lines = lines[:i + 1]
            lines[-1] = lines[-1][:draw(st.integers(0, len(lines[-1])))]
    return "\n".join(lines) + "\n"


# --- tenhou.net/6 JSON -------------------------------------------------------------------

def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, list):
        for k, child in enumerate(node):
            yield from _paths(child, prefix + (k,))
    elif isinstance(node, dict):
        for k, child in node.items():
            yield from _paths(child, prefix + (k,))


@st.composite
def mutated_tenhou6(draw) -> str:
    game = json.loads(_text(draw(st.sampled_from(TENHOU6_FILES))))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(game) if p]
        path = draw(st.sampled_from(paths))
        parent = game
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        op = draw(st.sampled_from(["value", "value", "tile", "list"]))
        if op == "list" and isinstance(parent, list):
            parent[:] = _mutate_list(draw, parent, _VALUES)
        elif op == "tile":
            parent[key] = draw(st.sampled_from([0, 10, 38, 54, 60, 99, -1, "r60", "c1", "p", "k11111111"]))
        else:
            parent[key] = draw(_VALUES)
    text = json.dumps(game, ensure_ascii=False)
    if draw(st.integers(0, 9)) == 0:
        text = text[:draw(st.integers(0, len(text)))]
    return text


# --- Tenhou mjlog XML --------------------------------------------------------------------

_TAG = re.compile(r"<[^<>]*>")


@st.composite
def mutated_mjlog(draw) -> str:
    text = _text(draw(st.sampled_from(MJLOG_FILES)))
    tags = _TAG.findall(text)
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["attr", "attr", "attr", "name", "tags", "cut"]))
        i = draw(st.integers(0, len(tags) - 1))
        if op == "attr":
            attrs = re.findall(r'(\w+)="([^"]*)"', tags[i])
            if not attrs:
                continue
            key, old = draw(st.sampled_from(attrs))
            parts = old.split(",")
            new = draw(st.one_of(
                st.sampled_from(["", "-1", "7", "999", "abc", ",", "1,2", "0" * 30, "1e3", "4294967296"]),
                st.integers(-5, 70000).map(str)))
            if len(parts) > 1 and draw(st.booleans()):
                parts[draw(st.integers(0, len(parts) - 1))] = new
                new = ",".join(parts)
            mangled = tags[i].replace(f'{key}="{old}"', draw(st.sampled_from(
                [f'{key}="{new}"', "", f'{key}="{new}" {key}="{old}"', f"{key}={new}"])), 1)
            tags[i] = mangled
        elif op == "name":
            tags[i] = re.sub(r"^<(/?)\w+", lambda m: f"<{m.group(1)}"
                             + draw(st.sampled_from(["T", "D200", "G", "N", "INIT", "AGARI", "X1", "REACH", "DORA", "UN"])),
                             tags[i], count=1)
        elif op == "tags":
            tags = _mutate_list(draw, tags, st.sampled_from(tags + ["<T>", "<N/>", "garbage", "</mjloggm>"]))
        else:
            tags = tags[:i + 1]
            tags[-1] = tags[-1][:draw(st.integers(0, len(tags[-1])))]
    return "".join(tags)


# --- crashes found, kept as examples -------------------------------------------------------

def _tenhou6_with(name: str, change) -> str:
    game = json.loads(_text(name))
    change(game)
    return json.dumps(game, ensure_ascii=False)


def _set(path, value):
    def change(game):
        node = game
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return change


CHANKAN = "edge_rounds/chankan.json"
# Each was a TypeError, ValueError or StopIteration out of the tenhou.net/6 reader.
T6_NAME_NOT_A_LIST = _tenhou6_with(CHANKAN, _set(["name"], True))
T6_CALL_LETTER_LAST = _tenhou6_with(CHANKAN, _set(["log", 0, 8, 0], "1111p"))
T6_WIN_WITHOUT_PLAY = _tenhou6_with(CHANKAN, lambda g: [g["log"][0].__setitem__(k, []) for k in range(5, 16, 3)]
                                    + [g["log"][0].__setitem__(k, []) for k in range(6, 16, 3)])
T6_SC_NOT_NUMBERS = _tenhou6_with(CHANKAN, _set(["sc"], ["a"] * 8))
# A KeyError of an unknown yaku id reported as "bad <AGARI>: KeyError(99)".
MJLOG_UNKNOWN_YAKU = _text("mjx__encdec-tenhou.xml").replace('yaku="', 'yaku="99,1,', 1)


# --- the properties ----------------------------------------------------------------------

def _events_or_our_error(read, text: str, name: str) -> list[dict] | None:
    try:
        return read(text, name)
    except MahjongError as exc:
        assert name in str(exc), f"the error names no file: {exc}"
        return None


def _replay_everywhere(events: list[dict]) -> None:
    """The engine check and every seat's table state take the events or raise our error."""
    try:
        check_events(events)
    except MahjongError:
        pass
    for seat in range(4):
        state = TableState(seat)
        try:
            for event in events:
                # A seat's view of a malformed event is the event itself (update rejects it).
                state.update(seat_view(event, seat) if event_problem(event) is None else event)
        except MahjongError:
            pass


@settings.get_profile(PROFILE)
@given(mutated_mjai())
def test_mjai_reader_and_replays_raise_only_our_errors(text):
    events = _events_or_our_error(read_mjai, text, "fuzz.mjson")
    if events is not None:
        _replay_everywhere(events)


@settings.get_profile(PROFILE)
@given(mutated_tenhou6())
@example(T6_NAME_NOT_A_LIST)
@example(T6_CALL_LETTER_LAST)
@example(T6_WIN_WITHOUT_PLAY)
@example(T6_SC_NOT_NUMBERS)
def test_tenhou6_reader_and_replays_raise_only_our_errors(text):
    events = _events_or_our_error(read_tenhou6, text, "fuzz.json")
    if events is not None:
        _replay_everywhere(events)


@settings.get_profile(PROFILE)
@given(mutated_mjlog())
@example(MJLOG_UNKNOWN_YAKU)
def test_mjlog_reader_and_replays_raise_only_our_errors(text):
    events = _events_or_our_error(read_mjlog, text, "fuzz.xml")
    if events is not None:
        _replay_everywhere(events)


@pytest.fixture(scope="module")
def bot_agent():
    return make_agent("efficiency")


@st.composite
def seat_and_stream(draw) -> tuple[int, str]:
    seat = draw(st.integers(0, 3))
    return seat, draw(mutated_mjai(seat))


@settings.get_profile(PROFILE)
@given(seat_and_stream())
def test_mjai_bot_answers_or_raises_only_our_errors(bot_agent, seat_stream):
    """The bot is sent a mutated game as a server sends its seat, line by line."""
    seat, text = seat_stream
    bot = MjaiBot(bot_agent, seat)
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue  # read_batches turns this into its error line (test_mjai_bot)
        batch = data if isinstance(data, list) else [data]
        if not all(isinstance(e, dict) and "type" in e for e in batch):
            continue  # the same
        try:
            answer = bot.react(batch)
        except MahjongError:
            return
        assert isinstance(answer, dict) and "type" in answer


# --- the readers' errors at the command line -----------------------------------------------

@pytest.mark.parametrize("text, suffix, where, message", [
    (T6_NAME_NOT_A_LIST, ".json", "line 1", "'name' True is not a list of four names"),
    (T6_CALL_LETTER_LAST, ".json", "line 1 round 0", "unknown call string '1111p'"),
    (T6_WIN_WITHOUT_PLAY, ".json", "line 1 round 0", "a win before any tile was drawn or discarded"),
    (T6_SC_NOT_NUMBERS, ".json", "line 1", "'sc' ['a', 'a', "),
    (_tenhou6_with(CHANKAN, _set(["log", 0, 0], [0, -1, 0])), ".json", "line 1 round 0",
     "the round head [0, -1, 0] is not a list of 3 integers in 0..255"),
    (_tenhou6_with(CHANKAN, _set(["log", 0, 4, 3], 99)), ".json", "line 1 round 0",
     "unknown tenhou.net/6 tile code 99"),
    (MJLOG_UNKNOWN_YAKU, ".xml", "<AGARI>", "unknown yaku id 99"),
    (re.sub(r'(<INIT[^>]*) oya="0"', r'\1 oya="7"', _text("mjx__encdec-tenhou.xml"), count=1), ".xml", "<INIT>",
     "oya='7' is not an integer in 0..3"),
    (_text("gimite__test.xml").replace('<DORA hai="', '<DORA hax="', 1), ".xml", "<DORA>",
     "no attribute 'hai'"),
    (re.sub(r'<N who="(\d)"', '<N who="5"', _text("mjx__double-ron.xml"), count=1), ".xml", "<N>",
     "who='5' is not an integer in 0..3"),
])
def test_a_malformed_record_is_one_error_line_exit_2(tmp_path, capsys, text, suffix, where, message):
    """check: one ``ERROR file:position: message`` line and exit 2; convert: exit 2, one line on
    stderr, no output file."""
    path = tmp_path / f"bad{suffix}"
    path.write_text(text, encoding="utf-8")
    assert records_main(["check", str(path)]) == 2
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"ERROR {path}:") and where in line and message in line, line
    out = tmp_path / "out.mjson"
    assert records_main(["convert", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{path}:" in err[0] and message in err[0], err
    assert not out.exists()
