"""The one interface every player implements (DESIGN.md, "Agents").

An agent is fed, in order, every mjai event its seat may see (others' draws show ``"?"``)
and, at each decision, asked to pick one of the legal actions (mjai dicts, see
``game/actions.py``). The same object serves the match runner, the mjai bot and review.
"""
from __future__ import annotations

from typing import Any

Event = dict[str, Any]


class Agent:
    """Base class: remembers its seat and ignores events; subclasses override ``act``."""

    name: str = "agent"

    def __init__(self) -> None:
        self.seat = -1

    def start_game(self, seat: int) -> None:
        """A new game begins with this agent at ``seat``; forget everything."""
        self.seat = seat

    def reseed(self, seed: int) -> None:
        """Put the agent's randomness where its constructor would with ``seed``.

        Match runners reuse one agent for many games (building one can cost more than a
        game), so a game's outcome must depend on its seeds alone. Deterministic agents
        need not override this.
        """

    def observe(self, event: Event) -> None:
        """One mjai event this seat may see, in game order."""

    def act(self, legal: list[Event]) -> Event:
        """Pick one element of ``legal`` (never empty) after the events before a decision."""
        raise NotImplementedError


def find(legal: list[Event], kind: str) -> Event | None:
    """The first legal action of mjai type ``kind``, or None."""
    for action in legal:
        if action["type"] == kind:
            return action
    return None
