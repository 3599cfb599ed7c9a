"""The hand-coded parts of cnn-bot (T§7.3.3, §7.5; P§V.D, V.F; spec §3.5, §6).

* Win whenever the engine allows it.
* Never an open kan (daiminkan, and kakan, which is an added open kan [AMBIG]).
* A closed kan only when it is *isolated*: "that tile does not own any potential chances of
  involving in declaring a chi meld according to the present hand tile pattern" (T§7.3.3).
  [PROPOSAL, spec §3.5]: honors are always isolated; a suited kind of number r is isolated
  when the concealed hand holds no other tile of its suit with number in r-2..r+2.
* Chi classes: 1/2/3 = the called tile is the left (smallest), middle or right (largest)
  tile of the run (T§7.3.2, "left = smallest" inferred), 0 = no chi.
"""
from __future__ import annotations

import numpy as np

from game.tiles import mjai_to_kind

KAN_TYPES = ("ankan", "daiminkan", "kakan")


def isolated_kan(hand: np.ndarray, kind: int) -> bool:
    """True when a closed kan of ``kind`` leaves no chi chance in the concealed ``hand``."""
    if kind >= 27:
        return True
    lo = kind - kind % 9
    for k in range(max(lo, kind - 2), min(lo + 8, kind + 2) + 1):
        if k != kind and hand[k] > 0:
            return False
    return True


def kan_choice(hand: np.ndarray, legal: list[dict]) -> dict | None:
    """The closed kan the rule declares among ``legal``, or None."""
    for action in legal:
        if action["type"] == "ankan":
            if isolated_kan(hand, mjai_to_kind(action["consumed"][0])):
                return action
    return None


def chi_class(action: dict) -> int:
    """1, 2 or 3: position of the called tile in the run (left, middle, right)."""
    called = mjai_to_kind(action["pai"])
    others = [mjai_to_kind(t) for t in action["consumed"]]
    return 1 + sum(1 for k in others if k < called)


def red_count(action: dict) -> int:
    return sum(1 for t in action.get("consumed", ()) if t.endswith("r"))
