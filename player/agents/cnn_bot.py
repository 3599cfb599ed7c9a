"""cnn-bot: the CNN Mahjong player of Gao et al. (thesis ch. 7, paper P§V; specs/cnn_bot.md).

It keeps the seat's TableState from the events it observes, encodes it into the paper's
planes with the seat's past situations, and lets :class:`cnn.policy.CnnPolicy` pick among
the legal actions: win always, isolated closed kans only, riichi / pon / chi nets, and the
discard net masked to the legal tiles.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from cnn.encoders import SeatHistory
from cnn.policy import THRESHOLD_TASKS, CnnPolicy, check_threshold, load_nets
from game.errors import MahjongError
from game.state import TableState
from player.agents.base import Agent, Event


class CnnBot(Agent):
    """``CnnBot(models_dir=None, device="cpu", **thresholds)``; the default weights are in
    ``cnn/models``. ``thresholds``: the P(act) above which the ``pon``, ``chi`` or ``riichi``
    net acts, in place of the one its checkpoint holds (chosen on held-out games), e.g.
    ``cnn-bot:riichi=0.4`` for an ablation.

    A missing or mismatched weight file raises :class:`game.errors.ModelFileError` naming it.
    """

    name = "cnn-bot"

    def __init__(self, models_dir: str | Path | None = None, device: str = "cpu", seed: int | None = None,
                 views: int = 1, **thresholds: float):
        super().__init__()  # deterministic: ``seed`` is accepted for a uniform registry
        unknown = set(thresholds) - set(THRESHOLD_TASKS)
        if unknown:
            raise MahjongError(f"unknown cnn-bot option(s) {sorted(unknown)}; known: models_dir, device, views, "
                               f"{', '.join(THRESHOLD_TASKS)}")
        nets = load_nets(models_dir, device=device)
        for task, t in thresholds.items():
            nets[task].config = replace(nets[task].config, threshold=check_threshold(task, t))
        self.policy = CnnPolicy(nets, device=device, views=int(views))
        self.state: TableState | None = None
        self.history = SeatHistory()

    def start_game(self, seat: int) -> None:
        super().start_game(seat)
        self.state = TableState(seat)
        self.history = SeatHistory()

    def observe(self, event: Event) -> None:
        if self.state is None:
            self.start_game(self.seat if self.seat >= 0 else 0)
        self.state.update(event)

    def act(self, legal: list[Event]) -> Event:
        return self.policy.decide(self.state, self.history, legal)
