"""The "tsumogiri" baseline: discards every drawn tile and passes on everything else."""
from __future__ import annotations

from player.agents.base import Agent, Event


class TsumogiriAgent(Agent):
    """Discards the tile it just drew and passes every call, win and riichi chance.

    It never calls, never declares riichi and never wins (not even a tsumo or a ron of a
    complete hand): it only discards the drawn tile and passes. After a situation with no
    drawn tile (cannot happen, since it never calls) it discards the first legal tile.
    Deterministic, so it needs no seed.
    """

    name = "tsumogiri"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()  # ``seed`` is accepted (and unused) so every agent takes one

    def act(self, legal: list[Event]) -> Event:
        first_discard = None
        for action in legal:
            kind = action["type"]
            if kind == "none":
                return action
            if kind == "dahai":
                if action["tsumogiri"]:
                    return action
                if first_discard is None:
                    first_discard = action
        return first_discard if first_discard is not None else legal[0]
