"""A base agent whose chosen kinds of decision are taken by a teacher: where a teacher's
strength lies, measured in whole games (an ablation; ``player.audit`` measures one decision
at a time).

``hybrid:riichi=1`` is cnn-bot playing every decision but the riichi choices, which the MDP
player makes. The kinds of a decision, in this order:

* ``riichi``: riichi is on offer. The teacher answers; if it declares, it also picks the
  discard that goes with the declaration. If it stays dama, the decision is then the kind it
  would be without the offer (``facing`` or ``discard``) and goes to whoever takes that kind.
* ``call``: a chi or pon is on offer at another's discard (kans alone are the base's).
* ``facing``: an own-turn discard while another seat is in riichi and this one is not.
* ``discard``: every other own-turn decision of a hand not in riichi (a closed or added kan
  on offer beside the discards included).

Wins on offer and everything else (an open kan offered alone, a riichi hand's draws) are the
base's. Both agents see every event, and the base is asked at every decision, its answer
dropped where the teacher's is taken, so that its own memory of the hand (cnn-bot's past
situations) is what it would be playing alone. ``stats`` counts the decisions by who took
them (a riichi offer as the teacher's, whoever picks a dama discard after it).
"""
from __future__ import annotations

from collections import Counter

from game.errors import MahjongError
from game.state import TableState
from player.agents.base import Agent, Event, find

KINDS = ("riichi", "call", "facing", "discard")


def decision_kind(legal: list[Event], state, seat: int) -> str | None:
    """The kind of the decision ``legal`` (:data:`KINDS`, riichi left out), or None for one
    that stays the base's."""
    types = {a["type"] for a in legal}
    if "hora" in types:
        return None
    if types & {"pon", "chi"}:
        return "call"
    if "dahai" not in types or state.riichi[seat]:
        return None
    threat = any(state.riichi[s] for s in range(4) if s != seat)
    return "facing" if threat else "discard"


class HybridAgent(Agent):
    """``HybridAgent(base="cnn-bot", teacher="mdp", riichi=0, call=0, facing=0, discard=0)``:
    the ``teacher`` takes the kinds set to 1, the ``base`` the rest (module docstring).
    ``base`` and ``teacher`` are registry names without options."""

    name = "hybrid"

    def __init__(self, seed: int | None = None, base: str = "cnn-bot", teacher: str = "mdp",
                 riichi: int = 0, call: int = 0, facing: int = 0, discard: int = 0) -> None:
        super().__init__()
        from player.registry import make_agent  # the registry imports this module's factory

        if ":" in str(base) or ":" in str(teacher):
            raise MahjongError("hybrid: base and teacher are plain agent names (no options)")
        self.base = make_agent(str(base), seed=seed)
        self.teacher = make_agent(str(teacher), seed=seed)
        self.kinds = {k for k, on in zip(KINDS, (riichi, call, facing, discard)) if int(on)}
        self._teacher_next = False  # the teacher declared riichi: its discard comes next
        self.state: TableState | None = None
        self.stats: Counter = Counter()

    def start_game(self, seat: int) -> None:
        super().start_game(seat)
        self.base.start_game(seat)
        self.teacher.start_game(seat)
        self.state = TableState(seat)
        self._teacher_next = False

    def reseed(self, seed: int) -> None:
        self.base.reseed(seed)
        self.teacher.reseed(seed)

    def observe(self, event: Event) -> None:
        if self.state is None:
            self.start_game(self.seat if self.seat >= 0 else 0)
        self.state.update(event)
        self.base.observe(event)
        self.teacher.observe(event)

    def act(self, legal: list[Event]) -> Event:
        self.stats["decisions"] += 1
        own = self.base.act(legal)
        if self._teacher_next:
            self._teacher_next = False
            return self._teacher(legal, "riichi")
        if "riichi" in self.kinds and find(legal, "reach") is not None and find(legal, "hora") is None:
            answer = self._teacher(legal, "riichi")
            if answer["type"] == "reach":
                self._teacher_next = True
                return answer
            legal = [a for a in legal if a["type"] != "reach"]  # dama: the rest of the decision
            if decision_kind(legal, self.state, self.seat) in self.kinds:
                return answer
            return self.base.act(legal) if own["type"] == "reach" else own
        kind = decision_kind(legal, self.state, self.seat)
        if kind in self.kinds:
            return self._teacher(legal, kind)
        self.stats["base"] += 1
        return own

    def _teacher(self, legal: list[Event], kind: str) -> Event:
        """The teacher's answer, counted by kind (a riichi offer counts as ``riichi`` whoever
        then picks the dama discard)."""
        self.stats[f"teacher_{kind}"] += 1
        return self.teacher.act(legal)
