"""Planes that carry what a decision needs beyond Gao et al.'s (issue 10, [PROPOSAL]).

The paper's nets see the table only as tiles; with a few hundred thousand samples and a CPU
they did not learn when a call pays (the chi net stayed near chance). These planes give them
the numbers a call, a riichi or a discard turns on, computed from the seat's own hand:

====  =====================================================================================
ch    content (appended to the 87 planes of :mod:`cnn.encoders`)
====  =====================================================================================
87-90 tiles left in the wall >= 8, 24, 40, 56 (CONST thermometer; the paper has no clock)
91-94 shanten of the concealed hand 0, 1, 2, >= 3 (CONST one-hot; a 14-tile hand: the best
      after one discard)
95-110 per call option (pon, chi with the called tile left / middle / right), 4 planes
      each: legal; best shanten after the call's discard lower than now; the same as now;
      a yaku path kept (:func:`game.yaku_paths.keeps_yaku`, or a yakuhai pon)
111   the offered tile is a value tile for the seat (CONST)
112   own turn: discarding this kind keeps the hand's best shanten (ROWMARK)
113   own turn: the tiles (unseen copies) that lower the shanten after discarding this kind,
      a thermometer over the copy axis: >= 1, 5, 10, 20 (acceptance, "ukeire")
====  =====================================================================================

Which planes a net reads is :data:`TASK_FEATURES` (a call net the table and call groups, the
discard and riichi nets the table and discard groups).
"""
from __future__ import annotations

import numpy as np

from cnn.rules import chi_class
from game.tiles import mjai_to_kind
from game.yaku_paths import keeps_yaku, value_kinds
from search.shanten import shanten_batch
from search.ukeire import Efficiency

FIRST = 87
N_FEATURES = 27
LEFT_STEPS = (8, 24, 40, 56)
ACCEPT_STEPS = (1, 5, 10, 20)
TABLE = list(range(87, 95))
CALL = list(range(95, 112))
DISCARD = [112, 113]
TASK_FEATURES = {"discard": TABLE + DISCARD, "riichi": TABLE + DISCARD,
                 "pon": TABLE + CALL, "chi": TABLE + CALL}


def _own_turn(hand: np.ndarray, unseen: np.ndarray, out: np.ndarray) -> int:
    """Planes 112-113 of a 3k+2 hand (the efficiency agent's shanten and acceptance of every
    discard, :mod:`search.ukeire`); returns the best shanten after a discard."""
    shanten, accept = Efficiency().discard_stats(hand, unseen, all_accept=True)
    best = int(shanten.min())  # kinds not held have shanten 99 and acceptance 0
    out[112 - FIRST, shanten == best] = 1
    for col, step in enumerate(ACCEPT_STEPS):
        out[113 - FIRST, accept >= step, col] = 1
    return best


def _call_options(state, legal: list[dict], hand: np.ndarray, now: int, out: np.ndarray) -> None:
    """Planes 95-111 for the call options among ``legal`` (slot 0 pon, 1-3 the chi classes
    of :func:`cnn.rules.chi_class`)."""
    yakuhai = value_kinds(state.seat_wind, state.round_wind)
    melded = [t // 4 for m in state.melds[state.seat] for t in m.tiles]
    offered = state.last_discard[1] // 4 if state.last_discard is not None else None
    if offered is not None and offered in yakuhai:
        out[111 - FIRST] = 1
    for a in legal:
        if a["type"] == "pon":
            slot = 0
        elif a["type"] == "chi":
            slot = chi_class(a)
        else:
            continue
        called = mjai_to_kind(a["pai"])
        consumed = [mjai_to_kind(n) for n in a["consumed"]]
        after = hand.copy()
        for k in consumed:
            after[k] -= 1
        best = int(shanten_batch(after[None])[0])  # best over the call's discards
        base = 95 - FIRST + 4 * slot
        out[base] = 1
        out[base + 1] = best < now
        out[base + 2] = best == now
        value_pon = a["type"] == "pon" and called in yakuhai
        out[base + 3] = value_pon or keeps_yaku(after, melded, [called] + consumed, yakuhai)


def feature_planes(state, legal: list[dict]) -> np.ndarray:
    """The uint8 ``(N_FEATURES, 34, 4)`` planes of a decision of ``state``'s seat."""
    out = np.zeros((N_FEATURES, 34, 4), dtype=np.uint8)
    for i, step in enumerate(LEFT_STEPS):
        out[i] = state.tiles_left >= step
    hand = np.minimum(np.asarray(state.hand, dtype=np.uint8), 4)
    unseen = np.asarray(state.unseen, dtype=np.int64)
    n = int(hand.sum())
    if n % 3 == 2:
        now = _own_turn(hand, unseen, out)
    elif n % 3 == 1:
        now = int(shanten_batch(hand[None])[0])
        if any(a["type"] in ("pon", "chi") for a in legal):
            _call_options(state, legal, hand, now, out)
    else:
        return out
    out[4 + min(max(now, 0), 3)] = 1
    return out
