"""A rough test of whether an open hand keeps a way to a yaku after a call.

The rule of thumb of the efficiency agent's calls and of cnn-bot's call features: a call is
safe when the hand then holds a value-tile set (yakuhai, concealed or melded), is all
simples (tanyao: at most one terminal or honor left in the concealed tiles), or is one suit
plus honors (honitsu: at most one tile of another suit left). It is a heuristic, not the
scorer: it does not look for toitoi, chanta, sanshoku or ittsu.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from game.tiles import TERMINALS_AND_HONORS

YAOCHUU = np.zeros(34, dtype=bool)
YAOCHUU[list(TERMINALS_AND_HONORS)] = True


def value_kinds(seat_wind: int, round_wind: int) -> set[int]:
    """The yakuhai kinds of a seat: the three dragons, its seat wind and the round wind."""
    return {31, 32, 33, 27 + seat_wind, 27 + round_wind}


def keeps_yaku(after: np.ndarray, meld_kinds: Iterable[int], call_kinds: Iterable[int],
               yakuhai: set[int]) -> bool:
    """Whether the concealed counts ``after`` a call, with the kinds already melded
    (``meld_kinds``, one entry a tile) and the call's own tiles (``call_kinds``, the called
    kind first), keep a yakuhai, tanyao or honitsu path."""
    meld_kinds = list(meld_kinds)
    call_kinds = list(call_kinds)
    for k in yakuhai:
        if after[k] >= 3 or meld_kinds.count(k) >= 3:
            return True
    open_kinds = meld_kinds + call_kinds
    if not any(YAOCHUU[k] for k in open_kinds) and int(after[YAOCHUU].sum()) <= 1:
        return True
    suit = call_kinds[0] // 9
    if suit < 3 and all(k // 9 in (suit, 3) for k in open_kinds):
        off = sum(int(after[k]) for k in range(27) if k // 9 != suit)
        if off <= 1:
            return True
    return False
