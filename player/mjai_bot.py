"""The mjai bot: any registered agent on stdin/stdout, as mjai servers and mjai.app run bots.

Each input line is one mjai event or a JSON array of events (mjai.app sends the events up
to the next one that needs an answer in one line). The bot answers every line with one
JSON line: its action when the last event asks it to act, else ``{"type":"none"}``.

    python -m player.mjai_bot 0 --agent efficiency < events.jsonl

The seat comes from the command line (mjai.app's ``bot.py <player_id>``) or from
``start_game``'s ``id`` field (the original mjai server).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from game.cli import reports_errors
from game.decisions import LiveSeat
from game.errors import RecordError
from game.state import seat_view
from player.registry import AGENTS, make_agent

NONE = {"type": "none"}


class MjaiBot:
    """Answers mjai event batches for one seat with the actions of ``agent``."""

    def __init__(self, agent: Any, seat: int | None = None):
        self.agent = agent
        self.seat = seat
        self._live: LiveSeat | None = None

    def react(self, events: Iterable[dict[str, Any]]) -> dict[str, Any]:
        legal = None
        for event in events:
            legal = self._feed(event)
        return self.agent.act(legal) if legal else NONE

    def _feed(self, event: dict[str, Any]) -> list[dict[str, Any]] | None:
        if event.get("type") == "start_game":
            seat = event.get("id", self.seat)
            if seat is None:
                raise RecordError("no seat: give it on the command line or in start_game's id")
            self.seat = int(seat)
            self._live = LiveSeat(self.seat)
            self.agent.start_game(self.seat)
        if self._live is None:
            raise RecordError(f"{event.get('type')!r} before start_game")
        event = seat_view(event, self.seat)
        legal = self._live.feed(event)
        self.agent.observe(event)
        return legal


def read_batches(stream: TextIO, name: str = "<stdin>") -> Iterator[list[dict[str, Any]]]:
    """The event batches of an mjai input stream; a bad line raises RecordError naming it."""
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not JSON: {exc.msg}", path=name, position=f"line {number}") from None
        batch = data if isinstance(data, list) else [data]
        if not all(isinstance(e, dict) and "type" in e for e in batch):
            raise RecordError("expected an mjai event or a list of them", path=name,
                              position=f"line {number}")
        yield batch


@reports_errors
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m player.mjai_bot", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("seat", nargs="?", type=int, choices=range(4),
                        help="the bot's seat (else start_game's id)")
    parser.add_argument("--agent", default="efficiency",
                        help=f"registered agent to run (known: {', '.join(sorted(AGENTS))})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the agent's own randomness")
    args = parser.parse_args(argv)
    bot = MjaiBot(make_agent(args.agent, seed=args.seed), args.seat)
    for number, batch in enumerate(read_batches(sys.stdin), 1):
        try:
            answer = bot.react(batch)
        except RecordError as exc:
            raise RecordError(str(exc), path="<stdin>", position=f"line {number}") from None
        print(json.dumps(answer, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
