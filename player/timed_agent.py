"""An agent with a per-decision time budget: its answer comes in time, or a fallback's does.

The agent runs in a worker process; the bot's own process follows the same events with a
fast fallback agent (the efficiency agent). At a decision the fallback's action is computed
first (a few ms), the worker is asked, and its answer is taken if it comes within the
budget. Otherwise the fallback's action is played, the decision is counted, and the worker,
busy with an answer nobody will use, is killed and started again; the new one replays the
game's events, so the agent never believes it played a move it did not.

Why a process and not a thread: the numba kernels of the MDP hold the GIL (none is compiled
``nogil``), so a thread that waits with a timeout only wakes when a kernel call returns,
and a thread cannot be stopped; a process answers nothing late and can be killed at once.
The answer time is bounded by the budget plus the fallback's decision and a kill.

While a restarted worker is still loading (a second or two for the MDP), decisions are
answered by the fallback without asking it, and it is never killed then: a budget shorter
than a cold start would otherwise kill it forever. The worker decides once on a fixed deal
before it reports ready, so the kernels' first-call cost (numba cache load or compile) is
paid outside any budget.
"""
from __future__ import annotations

import multiprocessing as mp
import queue
import sys
import time
import traceback
from collections import Counter
from typing import Any

from game.errors import MahjongError
from player.agents.base import Agent, Event

# A deal and a draw (the `mjai` package's verification hand) decided once to warm up.
_WARM_SEAT = 0
_WARM_EVENTS = [
    {"type": "start_game", "names": ["0", "1", "2", "3"]},
    {"type": "start_kyoku", "bakaze": "E", "dora_marker": "2s", "kyoku": 1, "honba": 0,
     "kyotaku": 0, "oya": 0, "scores": [25000] * 4,
     "tehais": [["E", "6p", "9m", "8m", "C", "2s", "7m", "S", "6m", "1m", "S", "3s", "8m"]]
     + [["?"] * 13] * 3},
    {"type": "tsumo", "actor": 0, "pai": "1m"},
]


def warm_up(agent: Agent) -> None:
    """One decision on a fixed deal, so the first real one pays no first-call cost."""
    from game.decisions import LiveSeat

    live = LiveSeat(_WARM_SEAT)
    agent.start_game(_WARM_SEAT)
    legal = None
    for event in _WARM_EVENTS:
        legal = live.feed(event)
        agent.observe(event)
    agent.act(legal)


def _worker(spec: str, seed: int, inbox: Any, outbox: Any) -> None:
    """The agent's process: build and warm it, say ready, then follow the messages."""
    sys.stdout = sys.stderr  # stdout is the bot's answer channel
    from player.registry import make_agent

    try:
        agent = make_agent(spec, seed=seed)
        warm_up(agent)
    except BaseException as exc:  # reported to the bot, which raises it there
        outbox.put(("error", _describe(exc)))
        return
    outbox.put(("ready", getattr(agent, "hanchan", None)))
    while True:
        kind, n, payload = inbox.get()
        try:
            if kind == "start_game":
                agent.start_game(payload)
            elif kind == "observe":
                agent.observe(payload)
            elif kind == "hanchan":
                if hasattr(agent, "hanchan"):
                    agent.hanchan = payload
            elif kind == "act":
                outbox.put(("action", n, agent.act(payload)))
            else:  # "stop"
                return
        except BaseException as exc:
            outbox.put(("error", _describe(exc)))
            return


def _describe(exc: BaseException) -> tuple[bool, str]:
    """(is it one of our input errors, the text to raise again in the bot)."""
    if isinstance(exc, MahjongError):
        return True, str(exc)
    return False, "".join(traceback.format_exception(exc))


class WorkerError(RuntimeError):
    """The agent's process failed with an exception that is not bad input: a bug."""


class TimedAgent(Agent):
    """Agent ``spec`` (a registry name with options) with ``budget`` seconds per decision;
    ``fallback`` answers a decision that runs over (an :class:`Agent` fed the same events).

    ``stats`` counts ``decisions``, ``in_time`` (the agent's answer), ``over_budget`` (its
    answer came too late: fallback, worker restarted), ``not_ready`` (asked while the worker
    was restarting: fallback), ``restarts``; ``slowest`` is the longest wait on an answer
    that came in time, in seconds.
    """

    def __init__(self, spec: str, budget: float, fallback: Agent, *, seed: int = 0) -> None:
        super().__init__()
        if not budget > 0:
            raise MahjongError(f"time budget must be positive seconds, got {budget}")
        self.spec = spec
        self.budget = float(budget)
        self.fallback = fallback
        self.seed = seed
        self.stats: Counter = Counter()
        self.slowest = 0.0
        self._ctx = mp.get_context("spawn")  # no fork of a process with numba/torch threads
        self._history: list[tuple[str, Any]] = []  # the game so far, replayed by a new worker
        self._hanchan: bool | None = None
        self._asked = 0
        warm_up(fallback)
        self._start()
        self._agent_hanchan = self._wait_ready(None)  # the first start waits, however long

    # --- the worker ----------------------------------------------------------------------

    def _start(self) -> None:
        self._inbox = self._ctx.Queue()   # a feeder thread writes: put never blocks the bot
        self._outbox = self._ctx.Queue()
        self._proc = self._ctx.Process(target=_worker, args=(self.spec, self.seed, self._inbox,
                                                              self._outbox), daemon=True)
        self._proc.start()
        self._ready = False
        for kind, payload in self._history:
            self._inbox.put((kind, 0, payload))

    def _wait_ready(self, timeout: float | None) -> Any:
        """Wait up to ``timeout`` s (None: as long as the worker lives) for its ready message;
        returns what it says of the agent's game length."""
        while True:
            try:
                message = self._outbox.get(timeout=1.0 if timeout is None else timeout)
            except queue.Empty:
                if timeout is not None:
                    return None
                if not self._proc.is_alive():
                    raise WorkerError(f"the agent's process died while starting "
                                      f"(exit code {self._proc.exitcode})")
                continue
            self._raise_if_error(message)
            self._ready = True
            return message[1]

    def _raise_if_error(self, message: tuple) -> None:
        if message[0] == "error":
            ours, text = message[1]
            self.close()
            if ours:
                raise MahjongError(text)
            raise WorkerError(f"the agent's process failed:\n{text}")

    def _restart(self) -> None:
        self.close()
        self.stats["restarts"] += 1
        self._start()

    def close(self) -> None:
        """Stop the worker (at the end of the input; a daemon dies with the bot anyway)."""
        self._proc.kill()  # SIGKILL: a numba kernel cannot delay it
        self._proc.join(timeout=1)
        for q in (self._inbox, self._outbox):
            q.cancel_join_thread()  # what the dead worker left unread must not hold up exit
            q.close()

    def _send(self, kind: str, payload: Any) -> None:
        self._history.append((kind, payload))
        self._inbox.put((kind, 0, payload))

    # --- the agent interface ---------------------------------------------------------------

    @property
    def hanchan(self) -> bool | None:
        """The agent's game length: its own setting until one is told (None: it has none)."""
        return self._hanchan if self._hanchan is not None else self._agent_hanchan

    @hanchan.setter
    def hanchan(self, value: bool) -> None:
        self._hanchan = bool(value)
        self._send("hanchan", bool(value))

    def start_game(self, seat: int) -> None:
        super().start_game(seat)
        self.fallback.start_game(seat)
        self._history = [] if self._hanchan is None else [("hanchan", self._hanchan)]
        self._send("start_game", seat)

    def observe(self, event: Event) -> None:
        self.fallback.observe(event)
        self._send("observe", event)

    def act(self, legal: list[Event]) -> Event:
        start = time.monotonic()
        deadline = start + self.budget
        self.stats["decisions"] += 1
        safe = self.fallback.act(legal)
        if not self._ready:
            self._wait_ready(max(0.0, deadline - time.monotonic()))
            if not self._ready:
                self.stats["not_ready"] += 1
                return safe
        self._asked += 1
        self._inbox.put(("act", self._asked, legal))
        while True:
            try:
                message = self._outbox.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stats["over_budget"] += 1
                self._restart()
                return safe
            self._raise_if_error(message)
            if message[0] == "action" and message[1] == self._asked:
                self.stats["in_time"] += 1
                self.slowest = max(self.slowest, time.monotonic() - start)
                return message[2]

    def summary(self) -> str:
        """One line for stderr: decisions, how many the fallback answered and why."""
        s = self.stats
        return (f"{s['decisions']} decisions with a {self.budget:g} s budget: {s['in_time']} by "
                f"{self.spec} (slowest {self.slowest:.2f} s), {s['over_budget']} over the budget "
                f"and {s['not_ready']} while it restarted answered by {self.fallback.name} "
                f"({s['restarts']} restarts)")
