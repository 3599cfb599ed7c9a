"""A uniformly random player: the weakest baseline, and a fuzzer for the engine adapter."""
from __future__ import annotations

import random

from player.agents.base import Agent, Event


class RandomAgent(Agent):
    """Picks uniformly among the legal actions, from its own seeded generator.

    Seeding makes a whole game reproducible; ``start_game`` does not reseed, so the games of
    a match differ from one another but the match as a whole repeats.
    """

    name = "random"

    def __init__(self, seed: int | None = 0) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def act(self, legal: list[Event]) -> Event:
        return legal[self.rng.randrange(len(legal))]

    def reseed(self, seed: int) -> None:
        self.rng.seed(seed)
