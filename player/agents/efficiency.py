"""A rule-based tile-efficiency player, in the spirit of manue / the mjai.app reference bot.

* **Wins** whenever the engine offers a win.
* **Discards** to the least shanten, then the most acceptance (ukeire over unseen copies,
  ``search/ukeire.py``); ties prefer isolated honors and terminals and keep dora and
  red fives.
* **Riichi** whenever it is offered (tenpai, closed) with at least ``RIICHI_MIN_LEFT`` draws
  left in the wall.
* **Calls** pon of a value tile (yakuhai) when it does not raise the shanten; other
  chi/pon only when the hand keeps a yaku (yakuhai already, tanyao, honitsu) and the call
  lowers the shanten. Never daiminkan; ankan/kakan when they do not raise the shanten.
* **Folds** against a riichi, or an open hand with three calls, when its own hand is poor
  (shanten >= 2, or 1 late in the hand): it discards the safest tile by genbutsu, suji and
  visible counts (``player/agents/safety.py``) and passes every call.

It follows the table through :class:`game.state.TableState`.
"""
from __future__ import annotations

import numpy as np

from game.state import TableState
from game.tiles import dora_from_indicator, mjai_to_kind
from game.yaku_paths import YAOCHUU, keeps_yaku, value_kinds
from player.agents.base import Agent, Event, find
from player.agents.safety import danger_vector
from search.ukeire import Efficiency

RIICHI_MIN_LEFT = 6       # draws left in the wall needed to declare riichi
LATE_LEFT = 32            # from here on a one-shanten hand folds against a threat
OPEN_THREAT_MELDS = 3     # an open hand with this many calls counts as a threat
_KIND = {}


def kind_of_name(name: str) -> int:
    kind = _KIND.get(name)
    if kind is None:
        kind = _KIND[name] = mjai_to_kind(name)
    return kind


class EfficiencyAgent(Agent):
    """Shanten/ukeire discards, riichi, yaku-keeping calls, folding against threats."""

    name = "efficiency"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()  # deterministic: ``seed`` is accepted for a uniform registry
        self.eff = Efficiency()
        self.state = TableState(0)
        self.genbutsu = np.zeros((4, 34), dtype=bool)

    # --- following the table -----------------------------------------------------------

    def start_game(self, seat: int) -> None:
        super().start_game(seat)
        self.state = TableState(seat)
        self.genbutsu[:] = False

    def observe(self, event: Event) -> None:
        self.state.update(event)
        kind = event["type"]
        if kind == "dahai":
            k = kind_of_name(event["pai"])
            self.genbutsu[event["actor"], k] = True
            # A tile let pass after a riichi is safe against that riichi for good.
            for p in range(4):
                if self.state.riichi[p]:
                    self.genbutsu[p, k] = True
        elif kind == "start_kyoku":
            self.genbutsu[:] = False

    # --- decisions ---------------------------------------------------------------------

    def act(self, legal: list[Event]) -> Event:
        win = find(legal, "hora")
        if win is not None:
            return win
        if legal[0]["type"] == "none" or any(a["type"] in ("chi", "pon", "daiminkan")
                                             for a in legal):
            return self._respond(legal)
        return self._own_turn(legal)

    def _threats(self) -> list[int]:
        st = self.state
        return [p for p in range(4) if p != self.seat
                and (st.riichi[p] or len(st.melds[p]) >= OPEN_THREAT_MELDS)]

    def _folding(self, shanten: int, threats: list[int]) -> bool:
        if not threats or self.state.riichi[self.seat]:
            return False
        return shanten >= 2 or (shanten == 1 and self.state.tiles_left < LATE_LEFT)

    def folds(self) -> bool:
        """Whether it folds at this own turn (a threat, a poor hand, not in riichi itself)."""
        current = self.eff.hand_stats(self.state.hand, self.state.unseen)[0]
        return self._folding(current, self._threats())

    def _danger(self, threats: list[int], kinds: list[int] | None = None) -> np.ndarray:
        total = np.zeros(34)
        for p in threats:
            weight = 1.0 if self.state.riichi[p] else 0.6
            total += weight * danger_vector(self.genbutsu[p], self.state.unseen, kinds)
        return total

    def _own_turn(self, legal: list[Event]) -> Event:
        st = self.state
        counts = st.hand
        current = self.eff.hand_stats(counts, st.unseen)[0]
        threats = self._threats()
        folding = self._folding(current, threats)

        if not folding:
            nine = find(legal, "ryukyoku")
            if nine is not None and current >= 3:
                return nine
            reach = find(legal, "reach")
            if reach is not None and st.tiles_left >= RIICHI_MIN_LEFT:
                return reach
            kan = self._kan(legal, counts, current, threats)
            if kan is not None:
                return kan

        discards = [a for a in legal if a["type"] == "dahai"]
        if not discards:  # only kans/riichi/nine-terminals offered and all declined above
            return next(a for a in legal if a["type"] in ("reach", "ankan", "kakan", "ryukyoku"))
        kinds = [kind_of_name(a["pai"]) for a in discards]
        danger = self._danger(threats, kinds) if threats else np.zeros(34)
        best, best_key = discards[0], None
        for a, k, (sh, score) in zip(discards, kinds, efficiency_keys(st, discards, self.eff)):
            key = (-danger[k], sh, score) if folding else (sh, score - 0.5 * danger[k], 0.0)
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    def _yakuhai(self) -> set[int]:
        return value_kinds(self.state.seat_wind, self.state.round_wind)

    def _kan(self, legal: list[Event], counts: np.ndarray, current: int,
             threats: list[int]) -> Event | None:
        if threats and not self.state.riichi[self.seat]:
            return None  # a new dora helps the threat as much as us
        for a in legal:
            if a["type"] not in ("ankan", "kakan"):
                continue
            k = kind_of_name(a["consumed"][0])
            after = counts.copy()
            after[k] -= 4 if a["type"] == "ankan" else 1
            if self.eff.hand_stats(after, self.state.unseen)[0] <= current:
                return a
        return None

    def _respond(self, legal: list[Event]) -> Event:
        passing = find(legal, "none") or legal[0]
        st = self.state
        if st.riichi[self.seat]:
            return passing
        counts = st.hand
        current, _ = self.eff.hand_stats(counts, st.unseen)
        if self._folding(current, self._threats()):
            return passing
        yakuhai = self._yakuhai()
        best, best_shanten = passing, current
        for a in legal:
            if a["type"] not in ("chi", "pon"):
                continue
            k = kind_of_name(a["pai"])
            after = counts.copy()
            for name in a["consumed"]:
                after[kind_of_name(name)] -= 1
            shanten = self.eff.best_discard_shanten(after)
            if a["type"] == "pon" and k in yakuhai:
                ok = shanten <= current
            else:
                meld_kinds = [t // 4 for m in st.melds[self.seat] for t in m.tiles]
                call_kinds = [k] + [kind_of_name(n) for n in a["consumed"]]
                ok = shanten < current and keeps_yaku(after, meld_kinds, call_kinds, yakuhai)
            if ok and shanten < best_shanten + (1 if best is passing else 0):
                best, best_shanten = a, shanten
        return best


def efficiency_keys(state: TableState, discards: list[Event], eff: Efficiency) -> list[tuple[int, float]]:
    """``(-shanten after, acceptance + shape)`` of each discard of ``state``'s hand, larger
    better: the tile-efficiency order of this agent (acceptance over the unseen copies; lone
    honors then lone terminals thrown first; dora and red fives kept; tsumogiri among equals)."""
    shanten, accept = eff.discard_stats(state.hand, state.unseen)
    dora = [dora_from_indicator(i >> 2) for i in state.dora_indicators]
    yakuhai = value_kinds(state.seat_wind, state.round_wind)
    keys = []
    for a in discards:
        k = kind_of_name(a["pai"])
        shape = _throw_bonus(state.hand, k, yakuhai) - 4.0 * dora.count(k) \
            - (3.0 if a["pai"].endswith("r") else 0.0) + (0.01 if a["tsumogiri"] else 0.0)
        keys.append((-int(shanten[k]), int(accept[k]) + shape))
    return keys


def _throw_bonus(counts: np.ndarray, k: int, yakuhai: set[int]) -> float:
    """Tie-break preference for throwing kind ``k``: lone honors first, then lone terminals."""
    if counts[k] != 1:
        return 0.0
    if k >= 27:
        return 1.0 if k in yakuhai else 2.0
    return 1.0 if YAOCHUU[k] and _isolated(counts, k) else 0.0


def _isolated(counts: np.ndarray, k: int) -> bool:
    n = k % 9
    for d in (-2, -1, 1, 2):
        if 0 <= n + d <= 8 and counts[k + d]:
            return False
    return True
