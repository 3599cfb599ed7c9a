"""A full hanchan in libriichi's arena (PyPI ``mjai``, the simulator of mjai.app) with our
mjai bot, ``python -m player.mjai_bot``, at all four seats.

``mjai.Simulator`` runs each bot in a docker container (``docker run smly/mjai-client:v3``
with the bot's zip, then HTTP to a server inside it); here there is no docker daemon and no
network to pull that image, so the same pieces run without the container: libriichi's
``Match`` (``mjai.mlibriichi.arena``, the Rust arena that deals, scores and judges the
game) drives ``mjai.engine.DockerMjaiLogEngine``, the package's own per-seat adapter (it
hides others' draws and hands and sends ``start_game`` / event batches / ``end_kyoku`` /
``end_game`` exactly as to a container), and only the transport is ours: each bot is a
subprocess fed one JSON line per message, as mjai.app's ``bot.py`` is.
"""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

mjai_engine = pytest.importorskip("mjai.engine")
arena = pytest.importorskip("mjai.mlibriichi.arena")

ROOT = Path(__file__).resolve().parents[1]


class _PipeClient:
    """``mjai.MjaiPlayerClient`` with a pipe for docker + HTTP: ``react(line) -> line``, and
    the same check it makes (a bot asked to discard after its own draw must not pass)."""

    def __init__(self, seat: int, args: list[str], log: Path) -> None:
        self.seat = seat
        self.stderr = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "player.mjai_bot", str(seat), "--agent", "efficiency", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True, cwd=ROOT)
        self.lines = 0

    def react(self, events: str) -> str:
        self.proc.stdin.write(events + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"bot of seat {self.seat} stopped (exit {self.proc.wait()})")
        self.lines += 1
        last = json.loads(events)[-1]
        if last["type"] == "tsumo" and last["actor"] == self.seat and json.loads(answer)["type"] == "none":
            raise RuntimeError(f"invalid response: {answer}")
        return answer.strip()

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        self.stderr.close()
        return code


def test_our_bot_plays_a_full_hanchan_in_libriichis_arena_at_every_seat(tmp_path):
    # Two seats with the default time budget (agent in a worker), two without.
    clients = [_PipeClient(seat, [] if seat % 2 == 0 else ["--time-budget", "0"],
                           tmp_path / f"bot{seat}.stderr") for seat in range(4)]
    try:
        agents = [mjai_engine.DockerMjaiLogEngine(name=str(seat), player=client)
                  for seat, client in enumerate(clients)]
        arena.Match(log_dir=str(tmp_path)).py_match(*agents, seed_start=(10000, 2000))
    finally:
        codes = [client.close() for client in clients]
    stderrs = [(tmp_path / f"bot{seat}.stderr").read_text() for seat in range(4)]
    assert codes == [0, 0, 0, 0], stderrs
    assert not any("error" in text.lower() or "Traceback" in text for text in stderrs), stderrs

    (log,) = tmp_path.glob("*.json.gz")
    events = [json.loads(line) for line in gzip.open(log, "rt")]
    assert events[0]["type"] == "start_game" and events[-1]["type"] == "end_game"
    # The arena ends a game its bots break with a ryukyoku of reason "error".
    assert not [e for e in events if e["type"] == "ryukyoku" and e.get("reason") == "error"]
    starts = [e for e in events if e["type"] == "start_kyoku"]
    assert {e["bakaze"] for e in starts} >= {"E", "S"}  # a hanchan, not an east-only game
    # Points are conserved: every deal's scores and sticks, and the end of the last hand.
    for start in starts:
        assert sum(start["scores"]) + 1000 * start["kyotaku"] == 100_000
    last = max(i for i, e in enumerate(events) if e["type"] == "start_kyoku")
    final = list(events[last]["scores"])
    sticks = events[last]["kyotaku"]
    for e in events[last:]:
        if e["type"] == "reach_accepted":
            final[e["actor"]] -= 1000
            sticks += 1
        elif e.get("deltas"):
            final = [s + d for s, d in zip(final, e["deltas"])]
            if e["type"] == "hora":
                sticks = 0
    assert sum(final) + 1000 * sticks == 100_000
    # Every seat answered every message (the arena asks each bot at every event batch).
    assert all(client.lines > 50 for client in clients)
    # The bots with a time budget said how their decisions went.
    for seat in (0, 2):
        assert f"mjai_bot: seat {seat}: " in stderrs[seat] and "decisions with a 1.5 s budget" in stderrs[seat]
