"""The engine adapter: one riichienv game seen through mjai events and mjai actions.

riichienv 0.4.11 plays the game (Tenhou rules, ``GameRule.default_tenhou()``); this module
hides it (DESIGN.md, "Engine"). Each seat gets the mjai events it may see, in order, from
``Observation.new_events()`` (riichienv already masks others' hands and draws as ``"?"``),
and its legal actions as distinct mjai dicts (``game/actions.py``).

Facts about riichienv that shape this code (checked in ``tests/test_engine.py``):

* ``RiichiEnv(game_mode=1)`` is an east-only game, ``2`` a south game (hanchan); an unknown
  *string* game mode silently gives a one-hand game, so only the two integers are used.
* A seed fixes the walls: the k-th hand of a game gets the same wall (the same deal seen
  from the dealer, the same draws and dora) whatever was played before. Which seat deals
  the k-th hand, its honba and whether there is a k-th hand at all depend on play.
* ``step`` returns the observations as a dict whose order is not stable between runs;
  seats are visited in seat order so that seeded agents repeat exactly.
* riichienv lists one action per physical tile; equal mjai dicts are merged.
"""
from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from riichienv import Action, GameRule, RiichiEnv

from game.actions import legal_from_engine
from game.state import seat_view

EAST_GAME, SOUTH_GAME = 1, 2
Event = dict[str, Any]


@dataclass
class Pending:
    """A seat that must choose now: its unseen events, then its legal actions."""

    seat: int
    events: list[Event]
    legal: list[Event]
    engine_actions: list[Action]


class EngineGame:
    """One game on riichienv: ``pending()`` the choices, ``step()`` them, until ``done``.

    Events are parsed once per game and shared between the seats' streams: consumers must
    treat event dicts as read-only.
    """

    def __init__(self, seed: int, *, hanchan: bool = False, rule: GameRule | None = None,
                 names: Sequence[str] | None = None):
        """``names``: the players' names, carried in ``start_game`` as an mjai server sends
        them (riichienv's has none), so that an agent can tell whom it plays."""
        self.seed = int(seed)
        self.names = None if names is None else [str(n) for n in names]
        self.env = RiichiEnv(game_mode=SOUTH_GAME if hanchan else EAST_GAME, seed=self.seed,
                             rule=rule if rule is not None else GameRule.default_tenhou())
        self._parsed: dict[str, Event] = {}
        self._has_drawn = [False] * 4     # the seat drew and has not discarded yet
        self._offer_from = [0] * 4        # seat of the last dahai/kakan this seat saw
        self._delivered = [0] * 4         # events given to each seat so far
        self._log: list[Event] | None = None
        self._obs = self.env.reset()

    @property
    def done(self) -> bool:
        return self.env.done()

    def pending(self) -> list[Pending]:
        """The seats that must act now, in seat order, each with its new events."""
        out = []
        for seat in sorted(self._obs):
            obs = self._obs[seat]
            events = self._events(obs.new_events(), seat)
            actions = obs.legal_actions()
            if not actions:
                continue
            drawn = self.env.drawn_tile if self._has_drawn[seat] else None
            legal, engine = legal_from_engine(actions, seat, target=self._offer_from[seat],
                                              drawn=drawn)
            out.append(Pending(seat, events, legal, engine))
        return out

    def fork(self) -> "EngineGame":
        """An independent copy of the game as it stands (the engine cloned, walls included):
        what it plays from here does not touch this one. Taken after :meth:`pending`, it
        continues from :meth:`step` with that call's choices."""
        twin = copy.copy(self)
        twin.env = self.env.clone()
        twin._has_drawn, twin._offer_from = list(self._has_drawn), list(self._offer_from)
        twin._delivered, twin._log = list(self._delivered), None
        return twin

    def step(self, chosen: dict[int, Action]) -> None:
        """Apply one engine action per pending seat."""
        self._obs = self.env.step(chosen)

    def final_events(self, seat: int) -> list[Event]:
        """The events ``seat`` has not yet been given, up to ``end_game`` once ``done``.

        Taken from the full log, masked: riichienv's ``new_events`` loses the last events
        of a game for the seat whose tsumo win ended it.
        """
        log = self.log
        rest = [seat_view(e, seat) for e in log[self._delivered[seat]:]]
        self._delivered[seat] = len(log)
        return rest

    @property
    def log(self) -> list[Event]:
        """The full mjai log with every hand and draw visible (read once the game is done:
        riichienv re-parses the whole log from JSON at each ``mjai_log`` access)."""
        if self._log is None or not self.done:
            self._log = self.env.mjai_log
            if self.names is not None and self._log and self._log[0]["type"] == "start_game":
                self._log[0] = {**self._log[0], "names": list(self.names)}
        return self._log

    def scores(self) -> list[int]:
        return list(self.env.scores())

    def _events(self, raw: list[str], seat: int) -> list[Event]:
        parsed = self._parsed
        self._delivered[seat] += len(raw)
        out = []
        for text in raw:
            event = parsed.get(text)
            if event is None:
                event = json.loads(text)
                if event["type"] == "start_game" and self.names is not None:
                    event["names"] = list(self.names)
                parsed[text] = event
            out.append(event)
            self._track(event, seat)
        return out

    def _track(self, event: Event, seat: int) -> None:
        """Keep what turning engine actions into mjai needs: the drawn tile, the target."""
        kind = event["type"]
        if kind == "tsumo":
            if event["actor"] == seat:
                self._has_drawn[seat] = True
        elif kind == "dahai" or kind == "kakan":
            self._offer_from[seat] = event["actor"]
            if event["actor"] == seat:
                self._has_drawn[seat] = False
        elif kind in ("chi", "pon", "daiminkan", "ankan") and event["actor"] == seat:
            self._has_drawn[seat] = False
