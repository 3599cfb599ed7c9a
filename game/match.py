"""Matches: four agents play one game on the engine adapter.

``play_game(agents, seed)`` is an east-only game (Tenhou "tonpu"), ``hanchan=True`` a south
game. Agents only ever see mjai events and mjai legal actions (``game/engine.py``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from game.engine import EngineGame
from game.errors import IllegalActionError, MahjongError

Event = dict[str, Any]


class AgentLike(Protocol):
    """The agent interface of ``player/agents/base.py`` (``game`` imports no player code)."""

    name: str

    def start_game(self, seat: int) -> None: ...
    def observe(self, event: Event) -> None: ...
    def act(self, legal: list[Event]) -> Event: ...


@dataclass
class GameResult:
    """The outcome of one game; ``events`` is the full mjai log (every hand visible)."""

    seed: int
    names: list[str]
    scores: list[int]
    ranks: list[int]
    events: list[Event] = field(repr=False)
    decisions: int = 0          # choices asked of the agents (passes included)
    hanchan: bool = False


def ranks_from_scores(scores: Sequence[int]) -> list[int]:
    """Ranks 1..4 by seat; equal scores go to the lower seat first, as Tenhou does."""
    order = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
    ranks = [0] * len(scores)
    for place, seat in enumerate(order):
        ranks[seat] = place + 1
    return ranks


def play_game(agents: Sequence[AgentLike], seed: int, *, hanchan: bool = False,
              names: Sequence[str] | None = None) -> GameResult:
    """Play one game of the four ``agents`` (seat order) on the walls of ``seed``; the
    players' ``names`` (default: the agents' own) come in ``start_game``, to them and in the log.

    Raises :class:`IllegalActionError` naming the agent, the seed and the event when an
    agent returns an action that is not one of its legal actions.
    """
    if len(agents) != 4:
        raise MahjongError(f"a game needs 4 agents, got {len(agents)}")
    game = EngineGame(seed, hanchan=hanchan, names=[a.name for a in agents] if names is None else names)
    for seat, agent in enumerate(agents):
        agent.start_game(seat)
    last_seen: list[Event | None] = [None] * 4
    decisions = 0
    while not game.done:
        chosen = {}
        for p in game.pending():
            agent = agents[p.seat]
            for event in p.events:
                agent.observe(event)
            if p.events:
                last_seen[p.seat] = p.events[-1]
            choice = agent.act(p.legal)
            chosen[p.seat] = p.engine_actions[legal_index(choice, p.legal, agent, p.seat, seed,
                                                     last_seen[p.seat])]
            decisions += 1
        game.step(chosen)
    for seat, agent in enumerate(agents):
        for event in game.final_events(seat):
            agent.observe(event)
    scores = game.scores()
    return GameResult(seed=game.seed, names=[a.name for a in agents], scores=scores,
                      ranks=ranks_from_scores(scores), events=game.log,
                      decisions=decisions, hanchan=hanchan)


def legal_index(choice: Event, legal: list[Event], agent: AgentLike, seat: int, seed: int,
                event: Event | None) -> int:
    """The index of ``choice`` in ``legal``, or :class:`IllegalActionError` naming the agent,
    its seat, the game's seed and the last event it saw."""
    try:
        return legal.index(choice)
    except ValueError:
        raise IllegalActionError(
            f"agent {agent.name!r} (seat {seat}) chose the illegal action {choice!r} "
            f"in the game of seed {seed}, after the event {event!r}; legal: {legal!r}"
        ) from None
