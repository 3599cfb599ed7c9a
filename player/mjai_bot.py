"""The mjai bot: any registered agent on stdin/stdout, as mjai servers and mjai.app run bots.

Each input line is one mjai event or a JSON array of events (mjai.app sends the events up
to the next one that needs an answer in one line). The bot answers every line with one
JSON line: its action when the last event asks it to act, else ``{"type":"none"}`` (also
to ``start_game``, ``end_kyoku`` and ``end_game``; a new ``start_game`` starts a new game).

    python -m player.mjai_bot 0 --agent efficiency < events.jsonl

The seat comes from the command line (mjai.app's ``bot.py <player_id>``; its
``start_game`` ``id`` then counts games and is ignored) or, without one, from
``start_game``'s ``id`` (the original mjai server: the seat, 0..3). The game length is
``--hanchan`` or ``--tonpu``; without either, an east-only game until a ``start_kyoku``
of the south (or a later) round shows a hanchan. Agents that value the game's end (``mdp``)
use it.

``--time-budget SECONDS`` (default 1.5) bounds every answer: the agent then runs in a worker
process and a decision it has not made in time is answered by the efficiency agent
(:mod:`player.timed_agent`), counted, and reported on stderr at ``end_game``. The default
fits mjai.app, whose simulator waits 2 s for an action (``mjai`` 0.2.1, ``Simulator``'s
``timeout``) and counts a late one as an error that ends the bot's game; the MDP's
decisions take 30 ms at the median and 0.25 s at the 99th percentile on a laptop core
(README, ``benchmarks/mdp_bench.py``), so only rare outliers fall back. ``--time-budget 0``
runs the agent in the bot's own process with no limit (play then never depends on the
machine's speed: Mortal's arena, tests).
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
from game.records.events import event_problem
from game.state import seat_view
from player.registry import AGENTS, make_agent
from player.timed_agent import TimedAgent

DEFAULT_BUDGET = 1.5  # seconds; see the module docstring

NONE = {"type": "none"}


class MjaiBot:
    """Answers mjai event batches for one seat with the actions of ``agent``.

    ``hanchan``: True or False fixes the game length the agent is told; None infers it
    from the round winds (a south round means a hanchan).
    """

    def __init__(self, agent: Any, seat: int | None = None, *, hanchan: bool | None = None):
        self.agent = agent
        self.seat = seat
        self.hanchan = hanchan
        self._agent_hanchan = getattr(agent, "hanchan", None)  # its own setting, if any
        self._live: LiveSeat | None = None

    def react(self, events: Iterable[dict[str, Any]]) -> dict[str, Any]:
        legal = None
        for event in events:
            legal = self._feed(event)
        return self.agent.act(legal) if legal else NONE

    def _feed(self, event: dict[str, Any]) -> list[dict[str, Any]] | None:
        # Checked before anything reads a field, so bad input is one RecordError.
        problem = event_problem(event)
        if problem is not None:
            raise RecordError(f"malformed event: {problem}")
        kind = event["type"]
        if kind == "start_game":
            self._start_game(event)
        elif kind == "end_game" and isinstance(self.agent, TimedAgent):
            print(f"mjai_bot: seat {self.seat}: {self.agent.summary()}", file=sys.stderr, flush=True)
        if self._live is None:
            raise RecordError(f"{kind!r} before start_game")
        if kind == "start_kyoku" and self.hanchan is None and event["bakaze"] != "E":
            self._tell_length(True)
        event = seat_view(event, self.seat)
        legal = self._live.feed(event)
        self.agent.observe(event)
        return legal

    def _start_game(self, event: dict[str, Any]) -> None:
        if self.seat is None:
            seat = event.get("id")
            if type(seat) is str and seat in ("0", "1", "2", "3"):
                seat = int(seat)
            if type(seat) is not int or not 0 <= seat < 4:
                raise RecordError(f"start_game id {seat!r} is no seat 0..3: give the bot's "
                                  f"seat on the command line")
            self.seat = seat
        self._live = LiveSeat(self.seat)
        self.agent.start_game(self.seat)
        self._tell_length(self.hanchan if self.hanchan is not None else self._agent_hanchan)

    def _tell_length(self, hanchan: bool | None) -> None:
        if hanchan is not None and hasattr(self.agent, "hanchan"):
            self.agent.hanchan = hanchan


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
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--hanchan", dest="hanchan", action="store_const", const=True,
                        help="the game is a hanchan (mjai.app, Mortal's arena)")
    length.add_argument("--tonpu", dest="hanchan", action="store_const", const=False,
                        help="the game is east-only")
    parser.add_argument("--time-budget", type=float, default=DEFAULT_BUDGET, metavar="SECONDS",
                        help="seconds per decision before the efficiency agent answers instead "
                             f"(default {DEFAULT_BUDGET}; 0 = no limit, the agent in this process)")
    args = parser.parse_args(argv)
    if args.time_budget < 0:
        parser.error(f"--time-budget must be >= 0 seconds, got {args.time_budget}")
    if args.time_budget > 0:
        agent = TimedAgent(args.agent, args.time_budget, make_agent("efficiency"), seed=args.seed)
    else:
        agent = make_agent(args.agent, seed=args.seed)
    bot = MjaiBot(agent, args.seat, hanchan=args.hanchan)
    try:
        for number, batch in enumerate(read_batches(sys.stdin), 1):
            try:
                answer = bot.react(batch)
            except RecordError as exc:
                raise RecordError(str(exc), path="<stdin>", position=f"line {number}") from None
            print(json.dumps(answer, separators=(",", ":")), flush=True)
    finally:
        if isinstance(agent, TimedAgent):
            agent.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
